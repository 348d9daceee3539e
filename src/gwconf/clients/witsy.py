"""Witsy: ``<userData>/settings.json`` (userData ``Witsy``): a custom engine, and the key only when safe.

Docs: https://github.com/Kochava-Studios/witsy ; checked against Witsy 3.6.0 source
(``src/main/config.ts``). gwconf adds the engine ``cgwconf``
(label "gwconf gateway", ``api: "openai"``, ``baseURL``, the model) and selects it in
``llm.engine``. Key hazard: when settings.json holds any ``…apiKey`` string, Witsy deletes every key
it keeps encrypted in ``apiKeys.json`` and keeps only the ones in the file. So gwconf writes the key
only while no ``apiKeys.json`` exists; otherwise it leaves the key out and asks you to paste it in
Settings > Models. Witsy writes the file back from memory: gwconf refuses while it runs (--force).
Once Witsy has saved its settings, the engine's model list lives in ``engines/cgwconf.json``,
merged over settings.json on load: a new model joins that list too. ``WITSY_HOME`` moves the
folder (``src/main.ts``).
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
    default_detect_for,
    default_target_for,
    get_str,
    no_doctor,
    no_import_link,
    no_launch,
    no_project_scope_files,
    no_steps,
)
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "witsy"
NAME = "Witsy"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("witsy",)
DOCS = "https://github.com/Kochava-Studios/witsy"
RESTART = (
    "Start Witsy (gwconf writes only while it is closed); it reloads settings.json when it changes, so if "
    "the gateway engine does not show, quit Witsy fully and start it again."
)
RESTAMPED: tuple[str, ...] = ()

ENGINE = "cgwconf"  # Witsy's custom engines are 'c' + an id; anything not built in counts as custom
APP = "Witsy"
PROCESS_NAMES = ("witsy", "Witsy")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    """``$WITSY_HOME`` (Witsy 3.6.0 ``src/main.ts`` answers ``app.getPath("userData")`` with it),
    else the app's user-data folder."""
    moved = env.get("WITSY_HOME")
    return Path(moved) if moved else _desktop.user_data(env, APP)


def engine_models(env: Env) -> Path:
    """Where Witsy keeps gwconf's engine's model list once it has saved settings once: it moves
    ``models`` out of settings.json into this file and spreads it back over the engine on load
    (``src/main/config.ts``), so a list here wins over the one in settings.json."""
    return folder(env) / "engines" / f"{ENGINE}.json"


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("settings", folder(env) / "settings.json", "json", secret=True, strict=True),
        ConfigFile("models", engine_models(env), "json", strict=True),
    ]


def preflight(env: Env, force: bool) -> list[str]:
    return _desktop.refuse_while_running(env, force, NAME, PROCESS_NAMES)


def keys_elsewhere(env: Env) -> bool:
    """Witsy keeps keys encrypted in apiKeys.json; a key in settings.json would wipe them all."""
    return (folder(env) / "apiKeys.json").exists()


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if not target.model:
        raise ClientError(
            "Witsy's engine needs a model name.", 'Pass --model NAME, or add model = "..." to the profile.'
        )
    settings = docs["settings"]
    engine = ("engines", ENGINE)
    settings.set((*engine, "label"), "gwconf gateway")
    settings.set((*engine, "api"), "openai")
    settings.set((*engine, "baseURL"), target.base_url)
    models = settings.get((*engine, "models", "chat"), None)
    entry = {"id": target.model, "name": target.model}
    if not isinstance(models, list):
        settings.set((*engine, "models"), {"chat": [entry], "image": []})
    elif not _lists(models, target.model):
        settings.append((*engine, "models", "chat"), entry)
    settings.set((*engine, "model", "chat"), target.model)
    settings.set(("llm", "engine"), ENGINE)
    saved = docs["models"]
    listed = saved.get(("models", "chat"), None)
    if isinstance(listed, list) and not _lists(listed, target.model):
        # Witsy's own list for the engine, merged over settings.json: the model joins it there too,
        # or Witsy finds no such model and chats with none
        saved.append(("models", "chat"), entry)
    if keys_elsewhere(env):
        settings.delete((*engine, "apiKey"))
        return [
            "Witsy keeps your other keys encrypted (apiKeys.json); a key in settings.json would make it delete "
            "them all, so gwconf left the key out: paste it in Witsy > Settings > Models > gwconf gateway."
        ]
    settings.set((*engine, "apiKey"), target.api_key)
    return ["Witsy moves the key into its encrypted store on its next start"]


def _lists(models: list[Any], model: Any) -> bool:
    """Whether a Witsy model list (``[{id, name}]``) holds ``model``."""
    return any(isinstance(m, dict) and m.get("id") == model for m in models)


def read(docs: dict[str, Document], env: Env) -> Reading:
    settings = docs["settings"]
    engine = get_str(settings, ("llm", "engine")) or "openai"
    reading = Reading(wire=WIRE, provider=engine, provider_is_gwconf=engine == ENGINE)
    config = settings.get(("engines", engine), None)
    if engine != ENGINE:
        reading.findings.append(
            Finding(
                "error", "provider", f"llm.engine is {engine!r}, not gwconf's engine.", "gwconf apply witsy"
            )
        )
    if not isinstance(config, dict):
        reading.base_url = urls.OFFICIAL_OPENAI_BASE if engine == "openai" else None
        return reading
    reading.base_url = config.get("baseURL")
    chosen = config.get("model")
    reading.model = chosen.get("chat") if isinstance(chosen, dict) else None
    reading.api_key = config.get("apiKey") or None
    reading.key_origin = f"settings.json engines.{engine}.apiKey"
    if not reading.api_key:
        reading.key_origin = "Witsy's encrypted key store (apiKeys.json)"
        reading.findings.append(
            Finding(
                "info",
                "key",
                "the key is in Witsy's encrypted store, which gwconf cannot read.",
                "check it in Witsy > Settings > Models > gwconf gateway",
            )
        )
    listed = docs["models"].get(("models", "chat"), None) if engine == ENGINE else None
    if isinstance(listed, list) and not _lists(listed, reading.model):
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"engines/{engine}.json, which Witsy merges over settings.json, lists no model {reading.model!r}: "
                "Witsy finds no model to chat with.",
                "gwconf apply witsy",
            )
        )
    return reading
