"""Claude Code: ``~/.claude/settings.json`` (``env`` block) + ``~/.claude.json`` (onboarding flag).

Docs: https://code.claude.com/docs/en/settings and /llm-gateway ; checked against
@anthropic-ai/claude-code 2.1.330, run again with 2.1.332 (against a test gateway).
Anthropic-style family: ``ANTHROPIC_BASE_URL`` is the root (Claude appends ``/v1/messages``),
the key goes in ``ANTHROPIC_AUTH_TOKEN`` (sent as Bearer, no approval prompt), and
``ANTHROPIC_API_KEY`` is removed (both together break auth). ``CLAUDE_CONFIG_DIR`` moves both files.
``gwconf run claude-code`` writes nothing of the user's: ``--settings FILE`` (command-line settings
win over every settings file; the file is temporary) carries the same env block.

The model's limits (limits.py), when known, go to the env block as ``CLAUDE_CODE_MAX_CONTEXT_TOKENS``
(the window) and ``CLAUDE_CODE_MAX_OUTPUT_TOKENS``; unknown, both are taken out. Checked in the
2.1.330 binary: for a model id it does not know as a Claude model, ``fw()`` takes the window from
``CLAUDE_CODE_MAX_CONTEXT_TOKENS`` (else it assumes one, and its unknown-model notice says "set
CLAUDE_CODE_MAX_CONTEXT_TOKENS to its real window"); a Claude-named id keeps its built-in window.
``CLAUDE_CODE_MAX_OUTPUT_TOKENS`` is the ``max_tokens`` it sends (capped at the model's upper limit),
so a gateway model with a smaller output limit is not asked for more than it gives.
An administrator's managed settings (``/etc/claude-code/managed-settings.json`` and
``managed-settings.d/*.json``; macOS and Windows have their own folder) win over every other
source: ``read`` follows their ``env`` block and names them.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    env_override_findings,
    get_str,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
    project_folder,
    project_root,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, fresh_document
from gwconf.formats import Document
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "claude-code"
NAME = "Claude Code"
FAMILY = "anthropic"
WIRE = "messages"
TIER = 1
BASE_FORM = "root"
PROGRAMS = ("claude",)
DOCS = "https://code.claude.com/docs/en/llm-gateway"
RESTART = (
    "Claude Code reads settings.json when it starts: exit every running `claude` session and start a new "
    "one (live reload of the env block is not guaranteed; resumed sessions can keep the old environment). "
    "In VS Code, also reload the window."
)
RESTAMPED: tuple[str, ...] = ()

KEY_VARS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
MODEL_ALIASES = (
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
)
FIRST_PARTY_SWITCHES = (
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_USE_GATEWAY",
    "CLAUDE_CODE_USE_MANTLE",
)


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


def config_dir(env: Env) -> Path | None:
    value = env.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else None


def files(env: Env) -> list[ConfigFile]:
    moved = config_dir(env)
    settings = (moved or env.home / ".claude") / "settings.json"
    state = (moved or env.home) / ".claude.json"
    return [
        ConfigFile("settings", settings, "json", secret=True, strict=True),
        ConfigFile("state", state, "json", strict=True),
    ]


def project_scope_files(env: Env) -> list[ConfigFile]:
    """``.claude/settings.local.json`` in the project (the git root, else the current folder): the
    personal, uncommitted layer above ``settings.json`` (checked in the 2.1.330 binary: the
    ``localSettings`` source is ``<git root or cwd>/.claude/settings.local.json``). The onboarding
    flag in ``~/.claude.json`` is global and not written here. Claude Code reads project settings
    only in a folder the user trusts."""
    return [
        ConfigFile(
            "settings",
            project_folder(env) / ".claude" / "settings.local.json",
            "json",
            secret=True,
            strict=True,
        )
    ]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    settings, state = docs["settings"], docs["state"]
    notes: list[str] = []
    settings.set(("env", "ANTHROPIC_BASE_URL"), target.base_url)
    settings.set(("env", "ANTHROPIC_AUTH_TOKEN"), target.api_key)
    if settings.delete(("env", "ANTHROPIC_API_KEY")):
        notes.append("removed env.ANTHROPIC_API_KEY (with ANTHROPIC_AUTH_TOKEN both headers are sent)")
    if target.model:
        settings.set(("env", "ANTHROPIC_MODEL"), target.model)
    for name, value in (
        ("CLAUDE_CODE_MAX_CONTEXT_TOKENS", target.limits.context_window),
        ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", target.limits.max_output_tokens),
    ):
        if value:  # the env block holds strings
            settings.set(("env", name), str(value))
        else:  # unknown for this model: a number left from another profile would be a guess
            settings.delete(("env", name))
    if settings.delete(("forceLoginMethod",)):
        notes.append("removed forceLoginMethod (it forces the vendor's login)")
    state.set(("hasCompletedOnboarding",), True)
    env_block = settings.get(("env",), {}) or {}
    aliases = [a for a in MODEL_ALIASES if isinstance(env_block, dict) and a in env_block]
    if aliases and target.model:
        notes.append(
            f"env also sets {', '.join(aliases)}, which win over ANTHROPIC_MODEL for those slots: "
            "check they name models the gateway serves"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    """The env block ``render()`` writes, in a temporary ``--settings`` file (0600, removed after)."""
    settings = fresh_document("json", "--settings")
    render({"settings": settings, "state": fresh_document("json", "state")}, target, env)
    settings.set(("env", "ANTHROPIC_API_KEY"), "")  # blanks a key from the user's settings (no second header)
    return LaunchSpec(
        argv=["claude", "--settings", TempPath("settings.json"), *args],
        files={"settings.json": settings.dump()},
        beats_project=True,  # --settings ranks above the project's .claude/settings*.json
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    settings, state = docs["settings"], docs["state"]
    layers = _layers(env, settings)
    merged: dict[str, str] = {}
    origin: dict[str, str] = {}
    for name in ("ANTHROPIC_BASE_URL", *KEY_VARS, "ANTHROPIC_MODEL"):
        if env.get(name):
            merged[name], origin[name] = env.environ[name], f"shell ${name}"
    for label, block in layers:  # later layers win: user < project < project local
        for name in ("ANTHROPIC_BASE_URL", *KEY_VARS, "ANTHROPIC_MODEL"):
            value = block.get(name)
            if isinstance(value, str) and value:
                merged[name], origin[name] = value, f"{label} env.{name}"
    reading = Reading(wire=WIRE)
    reading.base_url = merged.get("ANTHROPIC_BASE_URL") or urls.OFFICIAL_ANTHROPIC_BASE
    if "ANTHROPIC_AUTH_TOKEN" in merged:
        reading.api_key, reading.auth_header = merged["ANTHROPIC_AUTH_TOKEN"], "bearer"
        reading.key_origin = origin["ANTHROPIC_AUTH_TOKEN"]
    elif "ANTHROPIC_API_KEY" in merged:
        reading.api_key, reading.auth_header = merged["ANTHROPIC_API_KEY"], "x-api-key"
        reading.key_origin = origin["ANTHROPIC_API_KEY"]
    else:
        reading.key_origin = "settings.json env.ANTHROPIC_AUTH_TOKEN (not set)"
    reading.model = merged.get("ANTHROPIC_MODEL") or get_str(settings, ("model",))
    gateway = "ANTHROPIC_BASE_URL" in merged and not urls.is_vendor_host(urls.host_of(reading.base_url))
    reading.provider = "gateway (ANTHROPIC_BASE_URL)" if gateway else "Anthropic (official login)"
    reading.provider_is_gwconf = gateway
    f = reading.findings
    if "ANTHROPIC_AUTH_TOKEN" in merged and "ANTHROPIC_API_KEY" in merged:
        f.append(
            Finding(
                "error",
                "key",
                f"both ANTHROPIC_AUTH_TOKEN ({origin['ANTHROPIC_AUTH_TOKEN']}) and ANTHROPIC_API_KEY "
                f"({origin['ANTHROPIC_API_KEY']}) are set: auth may not work as expected.",
                "remove ANTHROPIC_API_KEY (gwconf apply claude-code does, for settings.json)",
            )
        )
    if not gateway:
        f.append(
            Finding(
                "error",
                "provider",
                "no ANTHROPIC_BASE_URL: Claude Code talks to Anthropic.",
                "gwconf apply claude-code",
            )
        )
    if state.get(("primaryApiKey",), None):
        f.append(
            Finding(
                "warning",
                "provider",
                "~/.claude.json holds a primaryApiKey from /login: it can shadow the gateway key.",
                "run `claude /logout` once",
            )
        )
    if settings.get(("forceLoginMethod",), None):
        f.append(
            Finding(
                "error",
                "provider",
                "settings.json sets forceLoginMethod (forces the vendor's login).",
                "gwconf apply claude-code",
            )
        )
    if settings.get(("apiKeyHelper",), None):
        f.append(
            Finding(
                "warning", "key", "settings.json sets apiKeyHelper: its output is sent as the key as well."
            )
        )
    if not state.get(("hasCompletedOnboarding",), False):
        f.append(
            Finding(
                "warning",
                "provider",
                "~/.claude.json lacks hasCompletedOnboarding: Claude Code asks to /login.",
                "gwconf apply claude-code",
            )
        )
    rejected = state.get(("customApiKeyResponses", "rejected"), []) or []
    if reading.api_key and isinstance(rejected, list) and reading.api_key.strip()[-20:] in rejected:
        f.append(
            Finding(
                "error",
                "key",
                "this key was once answered 'No' in Claude Code's key prompt (customApiKeyResponses.rejected).",
                "remove it from ~/.claude.json customApiKeyResponses.rejected",
            )
        )
    for label, _block in layers[1:]:
        managed = label.endswith(MANAGED_LABEL)
        f.append(
            Finding(
                "error" if managed else "warning",
                "override",
                f"{label} sets Anthropic variables that override your user settings.",
                f"ask the administrator of {label.removesuffix(MANAGED_LABEL)} to change them: users cannot"
                if managed
                else None,
                administrator=managed,
            )
        )
    f += env_override_findings(
        env, FIRST_PARTY_SWITCHES, "it sends Claude Code to a first-party cloud instead"
    )
    return reading


# the administrator's folder per OS (2.1.332: managed-settings.json, then managed-settings.d/*.json):
# its settings win over every other source; nothing moves it
MANAGED = {
    "linux": Path("/etc/claude-code"),
    "darwin": Path("/Library/Application Support/ClaudeCode"),
    "win32": Path("C:\\Program Files\\ClaudeCode"),
}
MANAGED_LABEL = " (managed by an administrator)"


def _layers(env: Env, settings: Document) -> list[tuple[str, dict[str, Any]]]:
    """settings env blocks in precedence order: user, then the project's shared and local files,
    then the administrator's managed settings."""
    layers: list[tuple[str, dict[str, Any]]] = []
    block = settings.get(("env",), None)
    layers.append(("~/.claude/settings.json", block if isinstance(block, dict) else {}))
    project = [_project_root(env) / ".claude" / name for name in ("settings.json", "settings.local.json")]
    for path in project:
        if path != files(env)[0].path:
            _add_layer(layers, path, str(path))
    managed = MANAGED.get(env.platform)
    if managed is not None and managed.is_dir():
        drop_ins = managed / "managed-settings.d"
        extra = sorted(drop_ins.glob("*.json")) if drop_ins.is_dir() else []
        for path in [managed / "managed-settings.json", *extra]:
            _add_layer(layers, path, display(path, env) + MANAGED_LABEL)
    return layers


def _add_layer(layers: list[tuple[str, dict[str, Any]]], path: Path, label: str) -> None:
    """``path``'s env block, when it sets Anthropic variables."""
    if not path.is_file():
        return
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return
    env_block = data.get("env") if isinstance(data, dict) else None
    if isinstance(env_block, dict) and any(k.startswith("ANTHROPIC_") for k in env_block):
        layers.append((label, env_block))


def _project_root(env: Env) -> Path:
    return project_root(env) or env.cwd
