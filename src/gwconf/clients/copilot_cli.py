"""GitHub Copilot CLI (``copilot``): BYOK is environment only, so gwconf writes ``COPILOT_PROVIDER_*`` and
``COPILOT_MODEL`` into its marked block in the shell start-up files, next to what ``shell`` writes.

Docs: ``copilot help providers`` (https://docs.github.com/en/copilot/how-tos/use-copilot-agents/use-copilot-cli);
checked against @github/copilot 1.0.102 (run against a test gateway):
``COPILOT_PROVIDER_BASE_URL`` switches it to BYOK and away from the GitHub login,
``COPILOT_PROVIDER_TYPE`` (``openai``/``azure``/``anthropic``), ``COPILOT_PROVIDER_API_KEY`` (or
``_BEARER_TOKEN``, ``_API_KEY_COMMAND``), ``COPILOT_PROVIDER_WIRE_API`` (``completions``/
``responses``) and ``COPILOT_MODEL`` (required). ``~/.copilot/settings.json`` holds no provider
setting, and the undocumented ``providers.json`` is not written. The files are the ``shell``
client's (bash, zsh, fish, PowerShell; see shell.py): the same block, other variables, each
client restoring only its own.

The model's limits, when known (limits.py), go to the same block as
``COPILOT_PROVIDER_MAX_PROMPT_TOKENS`` (the window less the output) and
``COPILOT_PROVIDER_MAX_OUTPUT_TOKENS`` (``copilot help providers`` in 1.0.102); unknown, they are
taken out of the block.

``read`` is the environment a new terminal gets: the block of the login shell's file, plus the
assignments after the block that override it; doctor also compares it with this terminal's
variables. ``gwconf run copilot-cli`` sets the variables for one launch.
"""

from __future__ import annotations

from gwconf.clients import shell
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target_for,
    env_override_findings,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.formats import Document
from gwconf.paths import Env

ID = "copilot-cli"
NAME = "GitHub Copilot CLI"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("copilot",)
DOCS = "https://docs.github.com/en/copilot/how-tos/use-copilot-agents/use-copilot-cli"
RESTART = (
    "Copilot CLI reads COPILOT_PROVIDER_* and COPILOT_MODEL from its environment when it starts: open a new "
    "terminal (or `source ~/.bashrc` / `source ~/.zshrc` / `exec fish`) and start `copilot` again; a running "
    "session keeps its provider. For one launch without a new terminal: gwconf run copilot-cli."
)
RESTAMPED: tuple[str, ...] = ()

MANAGED = (
    "COPILOT_PROVIDER_BASE_URL",
    "COPILOT_PROVIDER_TYPE",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_WIRE_API",
    "COPILOT_MODEL",
)
# The model's limits (``copilot help providers``, 1.0.102: "Maximum prompt tokens" / "Maximum output
# tokens"), set when known (limits.py) and taken out when not, so Copilot CLI keeps its own.
LIMIT_VARS = ("COPILOT_PROVIDER_MAX_PROMPT_TOKENS", "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS")
# Set next to gwconf's key, these change which credential Copilot CLI sends.
# variables that would change what gwconf's set does (``copilot help environment``, 1.0.102): a
# token or key command sent instead of the key, another model id or name on the wire, a transport
# the chat wire cannot use
RIVALS = (
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_API_KEY_COMMAND",
    "COPILOT_PROVIDER_MODEL_ID",
    "COPILOT_PROVIDER_WIRE_MODEL",
    "COPILOT_PROVIDER_TRANSPORT",
)
CLI = "gwconf apply copilot-cli"

# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
import_link = no_import_link
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link
project_scope_files = no_project_scope_files


def files(env: Env) -> list[ConfigFile]:
    return shell.files(env)


def detect(env: Env) -> bool:
    """``copilot`` on PATH or its ``~/.copilot`` folder; the shell files alone say nothing."""
    folder = env_copilot_home(env)
    return bool(env.which("copilot")) or folder.is_dir()


def env_copilot_home(env: Env):  # type: ignore[no-untyped-def]
    value = env.get("COPILOT_HOME")
    return env.expand(value) if value else env.home / ".copilot"


def variables(target: Target) -> dict[str, str]:
    model = require_model(target, NAME, "COPILOT_MODEL")
    return {
        "COPILOT_PROVIDER_BASE_URL": target.base_url,
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": target.api_key,
        "COPILOT_PROVIDER_WIRE_API": "completions",
        "COPILOT_MODEL": model,
    }


def limit_variables(target: Target) -> dict[str, str]:
    """The prompt limit is the window less the output when both are known (the prompt and the answer
    share the window), else the window; the output limit as known."""
    window, output = target.limits.context_window, target.limits.max_output_tokens
    found = {}
    if window:
        found["COPILOT_PROVIDER_MAX_PROMPT_TOKENS"] = str(
            window - output if output and window > output else window
        )
    if output:
        found["COPILOT_PROVIDER_MAX_OUTPUT_TOKENS"] = str(output)
    return found


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    wanted = variables(target)
    limits = limit_variables(target)
    for doc in docs.values():
        for name in MANAGED:
            doc.set((name,), wanted[name])
        for name in LIMIT_VARS:
            if name in limits:
                doc.set((name,), limits[name])
            else:
                doc.delete((name,))
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["copilot", *args], env={**variables(target), **limit_variables(target)}, unset=RIVALS
    )


def _block(doc: Document | None) -> dict[str, str]:
    data = doc.data() if doc is not None else None
    return {k: v for k, v in data.items() if k in MANAGED} if isinstance(data, dict) else {}


def read(docs: dict[str, Document], env: Env) -> Reading:
    chosen = files(env)
    primary = chosen[0]
    block = _block(docs.get(primary.role))
    where = shown(primary.path, env)
    reading = Reading(wire=WIRE)
    findings = reading.findings
    reading.base_url = block.get("COPILOT_PROVIDER_BASE_URL")
    reading.api_key = block.get("COPILOT_PROVIDER_API_KEY")
    reading.model = block.get("COPILOT_MODEL")
    reading.key_origin = f"{where} gwconf block COPILOT_PROVIDER_API_KEY"
    if not reading.base_url:
        reading.provider = "GitHub Copilot (no BYOK provider)"
        findings.append(
            Finding(
                "error",
                "provider",
                f"{where} exports no COPILOT_PROVIDER_BASE_URL: new terminals run Copilot CLI against GitHub's "
                "models with the GitHub login.",
                CLI,
            )
        )
        return reading
    kind = block.get("COPILOT_PROVIDER_TYPE") or "openai"
    wire = block.get("COPILOT_PROVIDER_WIRE_API") or "completions"
    reading.provider = f"BYOK {kind} ({where})"
    reading.provider_is_gwconf = True
    if kind == "anthropic":
        reading.wire, reading.auth_header = "messages", "x-api-key"
    elif wire == "responses":
        reading.wire = "responses"
    if kind != "openai" or wire != "completions":
        findings.append(
            Finding(
                "error",
                "provider",
                f"COPILOT_PROVIDER_TYPE={kind}, COPILOT_PROVIDER_WIRE_API={wire}: the gateway serves OpenAI chat "
                "completions (openai, completions).",
                CLI,
            )
        )
    if not reading.model:
        findings.append(
            Finding("error", "provider", "COPILOT_MODEL is not exported: BYOK mode needs a model.", CLI)
        )
    for file in chosen[1:]:
        if _block(docs.get(file.role)) != block:
            findings.append(
                Finding(
                    "warning",
                    "override",
                    f"{shown(file.path, env)} exports other COPILOT_* values than {where}.",
                    CLI,
                )
            )
    for file in chosen:
        doc = docs.get(file.role)
        if doc is not None:
            findings += shell.outside_block(doc, file, env, MANAGED)
    findings += shell.stale_terminal(block, env)
    findings += env_override_findings(
        env,
        RIVALS,
        "Copilot CLI may send it instead of COPILOT_PROVIDER_API_KEY, or use another model or transport",
    )
    findings += shell.startup_traps(chosen, env)
    return reading
