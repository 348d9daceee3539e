"""Zed: ``settings.json`` (JSONC) in Zed's config folder; the key only in the environment.

Docs: https://zed.dev/docs/ai/llm-providers ; checked against Zed's docs ``use-api-access.md``
@03560fd4 and ``open_ai_compatible.rs`` @014676e4 (Zed release
UNVERIFIED). gwconf adds ``language_models.openai_compatible.gwconf`` (``api_url`` and the model in
``available_models``) and sets ``agent.default_model`` to it. Zed reads the key for provider
``gwconf`` from ``$GWCONF_API_KEY`` (upper-snake provider id + ``_API_KEY``) or its keychain,
never from settings.json, so gwconf writes no key and says how to set it (apply's note; the fix of
``read``'s key finding, which ``verify`` gives as its remedy when the key is missing). Folder: Linux
``$FLATPAK_XDG_CONFIG_HOME/zed`` or ``$XDG_CONFIG_HOME/zed`` (``~/.config/zed``), macOS
``~/.config/zed``, Windows ``%APPDATA%\\Zed``. The ``available_models`` entry gwconf adds demands
``max_tokens`` (the context window): the known one (limits.py), else gwconf's stated default 128000,
named in apply's output; ``max_output_tokens`` (optional) only when known. A block of settings.json
that sets ``agent.default_model`` over the root one, and an agent profile with a model of its own
(``agent.profiles.<id>.default_model``, docs ``ai/agent-profiles``), are named, not edited.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import secrets, urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_dict,
    as_list,
    default_detect_for,
    default_target_for,
    get_str,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
    no_steps,
)
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.limits import known_limits, window_or_default
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "zed"
NAME = "Zed"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("zed", "zeditor", "zedit")
DOCS = "https://zed.dev/docs/ai/llm-providers"
RESTART = (
    "Zed applies settings.json at once. The key comes from $GWCONF_API_KEY, which Zed reads only at start: "
    "after setting it, quit Zed fully (cmd-q / zed: quit) and start it again."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
KEY_VARIABLE = "GWCONF_API_KEY"  # Zed: format!("{}_API_KEY", id).to_case(UpperSnake)
PROVIDER = ("language_models", "openai_compatible", PROVIDER_ID)
DEFAULT_MODEL = ("agent", "default_model")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    if env.platform == "win32":
        return env.appdata / "Zed"
    if env.platform == "linux":
        flatpak = env.get("FLATPAK_XDG_CONFIG_HOME")
        if flatpak:
            return Path(flatpak) / "zed"
        return env.xdg_config_home / "zed"
    return env.home / ".config" / "zed"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("settings", config_dir(env) / "settings.json", "jsonc")]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    settings = docs["settings"]
    if not target.model:
        raise ClientError(
            "Zed's agent.default_model needs a model name.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    settings.set((*PROVIDER, "api_url"), target.base_url)
    models = settings.get((*PROVIDER, "available_models"), None)
    notes: list[str] = []
    entry: dict[str, object] = {"name": target.model, "display_name": f"{target.model} (gateway)"}
    if not isinstance(models, list) or not any(
        isinstance(m, dict) and m.get("name") == target.model for m in models
    ):
        # max_tokens (the context window) is required by Zed's schema: the known one, else a stated default
        entry["max_tokens"] = window_or_default(target, NAME, notes)
        if target.limits.max_output_tokens:
            entry["max_output_tokens"] = target.limits.max_output_tokens
    index = next(
        (i for i, m in enumerate(as_list(models)) if isinstance(m, dict) and m.get("name") == target.model),
        None,
    )
    if index is not None:  # `use`: the limits this profile knows replace the last ones
        for key, value in known_limits(target, "max_tokens", "max_output_tokens"):
            settings.set((*PROVIDER, "available_models", index, key), value)
    if not isinstance(models, list):
        settings.set((*PROVIDER, "available_models"), [entry])
    elif not any(isinstance(m, dict) and m.get("name") == target.model for m in models):
        settings.append((*PROVIDER, "available_models"), entry)
    if isinstance(settings.get(DEFAULT_MODEL, None), dict):
        # Only these two: Zed itself writes `enable_thinking` and `effort` beside them, and users
        # keep comments inside (issue 23, seen in real settings files).
        settings.set((*DEFAULT_MODEL, "provider"), PROVIDER_ID)
        settings.set((*DEFAULT_MODEL, "model"), target.model)
    else:
        settings.set(DEFAULT_MODEL, {"provider": PROVIDER_ID, "model": target.model})
    return notes + _key_notes(env, target) + [message for message, _ in _block_overrides(settings, env)]


# blocks of the user settings merged over the root (crates/settings/src/settings_store.rs: the
# release channel's, then the OS's, then the active profile's)
_CHANNELS = ("stable", "preview", "nightly", "dev")
_OS_BLOCK = {"linux": "linux", "darwin": "macos", "win32": "windows"}


def _block_overrides(settings: Document, env: Env) -> list[tuple[str, str]]:
    """(message, block) for each block of settings.json that sets ``agent.default_model`` over the
    root one gwconf edits: a release channel's (the one Zed runs as applies), this OS's, a profile's;
    then each agent profile with a model of its own (``_agent_profile_overrides``).

    Each block is asked for by its path, not through the whole data: a settings.json over 4 MB is
    edited through a stand-in of the members read (``formats.json_windows``), and ``data()``
    read all of it again: ``apply zed`` on 16 MB went from 19 MB/s and 3.4x the file in memory to
    4.7 MB/s and 18x (issue 15's scale rows)."""
    blocks = [*_CHANNELS, _OS_BLOCK.get(env.platform, "linux")]
    found = []
    for block in blocks:
        chosen = as_dict(as_dict(settings.get((block,), None)).get("agent")).get("default_model")
        if chosen is not None:
            found.append(
                (
                    f'settings.json "{block}" sets agent.default_model, which wins over the root one '
                    f"when Zed runs as that{' release channel' if block in _CHANNELS else ' OS'}: "
                    "remove it or set it to gwconf's",
                    block,
                )
            )
    for name, profile in as_dict(settings.get(("profiles",), None)).items():
        chosen = as_dict(as_dict(profile).get("agent")).get("default_model")
        if chosen is not None:
            found.append(
                (
                    f'settings.json profile "{name}" sets agent.default_model, which wins while that '
                    "profile is active",
                    f"profiles.{name}",
                )
            )
    return found + _agent_profile_overrides(as_dict(settings.get(("agent",), None)))


def _agent_profile_overrides(agent: dict[str, Any]) -> list[tuple[str, str]]:
    """(message, where) for each agent profile (``agent.profiles``: the Agent Panel's Write, Ask,
    Minimal and the user's own) whose ``default_model`` names a provider other than gwconf's: Zed's
    docs (ai/agent-profiles) say a profile sets the model of threads that use it, so the root
    ``agent.default_model`` gwconf sets does not reach them. The profile new threads start on is
    ``agent.default_profile`` ("write" when unset)."""
    starting = agent.get("default_profile")
    starting = starting if isinstance(starting, str) and starting else "write"
    found = []
    for name, profile in as_dict(agent.get("profiles")).items():
        chosen = as_dict(as_dict(profile).get("default_model"))
        provider = chosen.get("provider")
        if chosen and provider != PROVIDER_ID:
            when = "every new thread (they start on it)" if name == starting else "threads on it"
            found.append(
                (
                    f'settings.json agent profile "{name}" sets its own default_model (provider '
                    f"{provider if isinstance(provider, str) else '?'!r}), which Zed uses for {when}, not "
                    "gwconf's",
                    f"agent.profiles.{name}.default_model",
                )
            )
    return found


def _key_notes(env: Env, target: Target) -> list[str]:
    current = env.get(KEY_VARIABLE)
    if current == target.api_key:
        return [f"${KEY_VARIABLE} in this shell holds the profile's key; Zed sees it if it starts from here"]
    lead = (
        f"${KEY_VARIABLE} in this shell holds another key ({secrets.mask(current)}): Zed would send that one. "
        if current
        else f"Zed reads the key from ${KEY_VARIABLE}, never from settings.json: "
    )
    return [lead + key_step(env, KEY_VARIABLE, PROVIDER_ID)]


def key_step(env: Env, variable: str, provider: str) -> str:
    """How to give Zed its key: the variable in the login shell, or the keychain through Zed's own
    settings (apply never writes it). Apply's note and the key finding's fix, which verify shows."""
    how = (
        f"setx {variable} <key>  (then sign out or restart Zed)"
        if env.platform == "win32"
        else f"export {variable}=<key> in ~/.profile (macOS zsh: ~/.zprofile): Zed loads the login shell's "
        "environment at start"
    )
    return how + f"; or paste the key in Zed's Agent settings (LLM Providers, {provider}). Restart Zed after."


def read(docs: dict[str, Document], env: Env) -> Reading:
    settings = docs["settings"]
    reading = Reading(wire=WIRE)
    chosen = settings.get(DEFAULT_MODEL, None)
    provider = chosen.get("provider") if isinstance(chosen, dict) else None
    provider = provider if isinstance(provider, str) else None  # (an object there names no provider)
    reading.provider = provider or "(Zed's default: zed.dev)"
    reading.model = chosen.get("model") if isinstance(chosen, dict) else None
    reading.provider_is_gwconf = provider == PROVIDER_ID
    for message, block in _block_overrides(settings, env):
        reading.findings.append(
            Finding("warning", "override", message + ".", f"edit {block} in settings.json")
        )
    compatible = settings.get(("language_models", "openai_compatible", provider or ""), None)
    if provider != PROVIDER_ID:
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"agent.default_model uses provider {provider or 'zed.dev'!r}, not gwconf's.",
                "gwconf apply zed",
            )
        )
    if isinstance(compatible, dict):
        reading.base_url = compatible.get("api_url")
        variable = (
            provider.upper().replace("-", "_").replace(" ", "_") + "_API_KEY" if provider else KEY_VARIABLE
        )
    else:
        reading.base_url = get_str(settings, ("language_models", "openai", "api_url")) or (
            urls.OFFICIAL_OPENAI_BASE if provider == "openai" else None
        )
        variable = "OPENAI_API_KEY" if provider == "openai" else KEY_VARIABLE
    reading.api_key = env.get(variable)
    reading.key_origin = f"${variable} (Zed reads the environment it starts with)"
    if not reading.api_key:
        reading.findings.append(
            Finding(
                "warning",
                "key",
                f"${variable} is not set in this shell; Zed may hold a key in the OS keychain, which gwconf "
                "cannot read.",
                key_step(env, variable, provider or PROVIDER_ID),
            )
        )
    if settings.get((*PROVIDER, "api_key"), None) is not None:
        reading.findings.append(
            Finding("warning", "key", "settings.json holds an api_key field: Zed ignores it (docs).")
        )
    return reading
