"""AnythingLLM: its ``.env`` (Generic OpenAI provider), found in a server folder or the desktop storage.

Docs: https://docs.anythingllm.com/ ; checked against Mintplex-Labs/anything-llm 1.16.0 source
(``server/.env.example``, ``server/utils/helpers/updateENV.js``).
gwconf sets ``LLM_PROVIDER='generic-openai'`` ("Generic OpenAI" = OpenAI-compatible),
``GENERIC_OPEN_AI_BASE_PATH`` …/v1, ``GENERIC_OPEN_AI_MODEL_PREF``, ``GENERIC_OPEN_AI_API_KEY`` and,
when missing, ``GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT``. Where the ``.env`` is, first match wins:
``$ANYTHINGLLM_DIR`` (a checkout: ``server/.env``; a Docker ``$STORAGE_LOCATION``: ``.env``); the
current folder when it is a checkout (``server/.env.example``) or a Docker storage folder
(``anythingllm.db``); the desktop app's ``<userData anythingllm-desktop>/storage/.env`` when that
file exists (its location is UNVERIFIED, so gwconf never creates it). When its UI saves settings,
AnythingLLM rewrites the whole ``.env`` from memory: the desktop app is refused while it runs.
``GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT`` (unset, AnythingLLM assumes 4096): the known window
(limits.py), else, when the file has none, gwconf's stated default 128000, named in apply's output.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients import _desktop
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target_for,
    no_doctor,
    no_import_link,
    no_launch,
    no_project_scope_files,
    no_steps,
)
from gwconf.errors import ClientError, NotSetUp
from gwconf.formats import Document
from gwconf.limits import window_or_default
from gwconf.paths import Env

ID = "anythingllm"
NAME = "AnythingLLM"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
DOCS = "https://docs.anythingllm.com/"
RESTART = (
    "Restart AnythingLLM (docker restart <container>, the server process, or quit the desktop app fully): "
    "it reads .env only at start. Do not save LLM settings in its UI before that: it rewrites .env from memory."
)
PROGRAMS: tuple[str, ...] = ()
RESTAMPED: tuple[str, ...] = ()

VARIABLE = "ANYTHINGLLM_DIR"
DESKTOP_APP = "anythingllm-desktop"
PROCESS_NAMES = ("anythingllm", "AnythingLLM", "anythingllm-desktop")
UNSAFE = "#'\"` \t"  # AnythingLLM cuts a value at these when it rewrites .env (updateENV.js)


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def _env_file(folder: Path) -> Path:
    return folder / "server" / ".env" if (folder / "server").is_dir() else folder / ".env"


def desktop_env(env: Env) -> Path:
    return _desktop.user_data(env, DESKTOP_APP) / "storage" / ".env"


def location(env: Env) -> tuple[Path, str, bool]:
    """(the .env, how it was found, found at all)."""
    value = env.get(VARIABLE)
    if value:
        return _env_file(env.expand(value)), f"${VARIABLE}", True
    if (env.cwd / "server" / ".env.example").is_file() or (env.cwd / "server" / ".env").is_file():
        return env.cwd / "server" / ".env", "the current folder (a checkout)", True
    if (env.cwd / "anythingllm.db").is_file():
        return env.cwd / ".env", "the current folder (Docker storage)", True
    if desktop_env(env).is_file():
        return desktop_env(env), "the desktop app's storage", True
    return env.cwd / ".env", "nowhere", False


def files(env: Env) -> list[ConfigFile]:
    path, _how, found = location(env)
    return [ConfigFile("env", path, "dotenv-npm", secret=True)] if found else []


def detect(env: Env) -> bool:
    return location(env)[2] or _desktop.user_data(env, DESKTOP_APP).is_dir()


def preflight(env: Env, force: bool) -> list[str]:
    path, _how, _found = location(env)
    if path == desktop_env(env):
        return _desktop.refuse_while_running(env, force, "AnythingLLM", PROCESS_NAMES)
    return []


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    path, how, found = location(env)
    if not found:
        hint = (
            "start and quit the desktop app once so it writes its .env, or "
            if _desktop.user_data(env, DESKTOP_APP).is_dir()
            else ""
        )
        raise NotSetUp(
            f"no AnythingLLM .env found: ${VARIABLE} is not set, the current folder is neither a checkout "
            "nor a Docker storage folder, and the desktop app has no storage/.env.",
            f"{hint}export {VARIABLE}=/path/to/anything-llm (or your Docker $STORAGE_LOCATION)",
        )
    if not target.model:
        raise ClientError(
            "AnythingLLM needs a model name.", 'Pass --model NAME, or add model = "..." to the profile.'
        )
    dotenv = docs["env"]
    dotenv.set(("LLM_PROVIDER",), "generic-openai")
    dotenv.set(("GENERIC_OPEN_AI_BASE_PATH",), target.base_url)
    dotenv.set(("GENERIC_OPEN_AI_MODEL_PREF",), target.model)
    dotenv.set(("GENERIC_OPEN_AI_API_KEY",), target.api_key)
    notes = [f"AnythingLLM .env: {path} ({how})"]
    if target.limits.context_window or dotenv.get(("GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT",), None) is None:
        # unset, AnythingLLM assumes 4096 tokens; the known window, else a stated default
        dotenv.set(("GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT",), str(window_or_default(target, NAME, notes)))
    risky = [
        name
        for name, value in (
            ("key", target.api_key),
            ("model", target.model),
            ("base address", target.base_url),
        )
        if any(ch in value for ch in UNSAFE)
    ]
    if risky:
        notes.append(
            f"the {', '.join(risky)} contains #, a quote, a backtick or a space: AnythingLLM cuts such values "
            "when its UI rewrites .env; don't save LLM settings in its UI"
        )
    return notes


def read(docs: dict[str, Document], env: Env) -> Reading:
    if "env" not in docs:
        return Reading(
            wire=WIRE, findings=[Finding("error", "other", f"no AnythingLLM .env found: set ${VARIABLE}.")]
        )
    dotenv = docs["env"]
    provider = dotenv.get(("LLM_PROVIDER",), None)
    reading = Reading(
        wire=WIRE, provider=provider or "(not set)", provider_is_gwconf=provider == "generic-openai"
    )
    if provider == "generic-openai":
        reading.base_url = dotenv.get(("GENERIC_OPEN_AI_BASE_PATH",), None)
        reading.api_key = dotenv.get(("GENERIC_OPEN_AI_API_KEY",), None)
        reading.model = dotenv.get(("GENERIC_OPEN_AI_MODEL_PREF",), None)
        reading.key_origin = ".env GENERIC_OPEN_AI_API_KEY"
    else:
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"LLM_PROVIDER is {provider or '(not set)'!r}, not 'generic-openai' (Generic OpenAI).",
                "gwconf apply anythingllm",
            )
        )
        if provider == "openai":
            reading.base_url = urls.OFFICIAL_OPENAI_BASE
            reading.api_key = dotenv.get(("OPEN_AI_KEY",), None)
            reading.key_origin = ".env OPEN_AI_KEY"
    return reading
