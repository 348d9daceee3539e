"""Chatbox: ``<userData>/config.json`` (electron-store) while the app is closed; else its import link.

Docs: https://chatboxai.app/ ; checked against Chatbox Community Edition 1.20.0 source
(chatboxai/chatbox @0d3139e5). userData is ``xyz.chatboxapp.app`` (official builds) or
``xyz.chatboxapp.ce`` (Community Edition): gwconf uses whichever exists (both when both do). In
``settings`` gwconf adds the custom provider ``gwconf`` (``customProviders[]`` entry, type
``openai`` = "OpenAI API Compatible"), its ``providers.gwconf`` block (``apiHost`` …/v1, key,
model) and selects it in ``defaultChatModel``. Chatbox holds settings in memory and writes the
whole object back, so gwconf refuses while it runs (--force overrides) and never creates a
config.json Chatbox has not made itself. The no-file route: ``gwconf link chatbox`` (deep link
``chatbox://provider/import``, the user confirms in the app).
"""

from __future__ import annotations

from gwconf.clients import _desktop
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_launch,
    no_project_scope_files,
    no_steps,
)
from gwconf.errors import ClientError, NotSetUp
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

    from gwconf.links import Link

ID = "chatbox"
NAME = "Chatbox"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("chatbox",)
DOCS = "https://chatboxai.app/"
RESTART = (
    "Start Chatbox (gwconf writes config.json only while it is closed); if it was running, quit it fully "
    "(not just close the window) and start it again."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
APPS = ("xyz.chatboxapp.app", "xyz.chatboxapp.ce")
PROCESS_NAMES = ("chatbox", "Chatbox", *APPS)


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files


def import_link(target: Target) -> Link:
    """``chatbox://provider/import?config=…``: a custom ``openai`` provider with the model, if any."""
    from gwconf import links  # only `gwconf link` needs it

    settings: dict[str, Any] = {"apiHost": target.base_url, "apiKey": target.api_key}
    if target.model:
        settings["models"] = [{"modelId": target.model, "nickname": f"{target.model} (gateway)"}]
    payload = {
        "isCustom": True,
        "id": links.PROVIDER_ID,
        "name": links.PROVIDER_NAME,
        "type": "openai",
        "settings": settings,
    }
    return links.make(ID, "chatbox", "provider/import", "config", payload)


def folders(env: Env) -> list[tuple[str, Any]]:
    found = [(app, _desktop.user_data(env, app)) for app in APPS]
    existing = [(app, path) for app, path in found if path.is_dir()]
    return existing or found[:1]


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile(f"config:{app}", path / "config.json", "json", secret=True, strict=True)
        for app, path in folders(env)
    ]


def preflight(env: Env, force: bool) -> list[str]:
    return _desktop.refuse_while_running(env, force, NAME, PROCESS_NAMES)


def _index(items: Any) -> int | None:
    if not isinstance(items, list):
        return None
    for index, item in enumerate(items):
        if isinstance(item, dict) and item.get("id") == PROVIDER_ID:
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if not target.model:
        raise ClientError(
            "Chatbox's provider needs a model id.", 'Pass --model NAME, or add model = "..." to the profile.'
        )
    for doc in docs.values():
        if not doc.data():
            raise NotSetUp(
                f"{doc.source} does not exist yet (Chatbox makes it on its first start).",
                "Start and quit Chatbox once, or import without a file: gwconf link chatbox --open",
            )
        _render_one(doc, target)
    return []


def _render_one(doc: Document, target: Target) -> None:
    settings = ("settings",)
    if not isinstance(doc.get(settings, None), dict):
        raise ClientError(
            f"{doc.source} has no settings object.",
            "Start Chatbox once so it writes its settings, then retry.",
        )
    custom = doc.get((*settings, "customProviders"), None)
    entry = {"id": PROVIDER_ID, "name": "gwconf gateway", "type": "openai", "isCustom": True}
    index = _index(custom)
    if not isinstance(custom, list):
        doc.set((*settings, "customProviders"), [entry])
    elif index is None:
        doc.append((*settings, "customProviders"), entry)
    else:
        doc.set((*settings, "customProviders", index, "type"), "openai")
    provider = (*settings, "providers", PROVIDER_ID)
    doc.set((*provider, "apiHost"), target.base_url)
    doc.set((*provider, "apiKey"), target.api_key)
    models = doc.get((*provider, "models"), None)
    model = {"modelId": target.model, "nickname": f"{target.model} (gateway)"}
    if not isinstance(models, list):
        doc.set((*provider, "models"), [model])
    elif not any(isinstance(m, dict) and m.get("modelId") == target.model for m in models):
        doc.append((*provider, "models"), model)
    doc.set((*settings, "defaultChatModel"), {"provider": PROVIDER_ID, "model": target.model})


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    doc = next(iter(docs.values()))
    chosen = doc.get(("settings", "defaultChatModel"), None)
    provider = chosen.get("provider") if isinstance(chosen, dict) else None
    provider = provider if isinstance(provider, str) else None  # (a list there names no provider)
    reading.provider = provider or "(none chosen)"
    reading.model = chosen.get("model") if isinstance(chosen, dict) else None
    reading.provider_is_gwconf = provider == PROVIDER_ID
    if provider != PROVIDER_ID:
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"defaultChatModel uses provider {provider or '(none)'!r}, not gwconf's.",
                "gwconf apply chatbox  (with Chatbox quit), or pick 'gwconf gateway' in a chat",
            )
        )
    settings = doc.get(("settings", "providers", provider or ""), None)
    if isinstance(settings, dict):
        reading.base_url = settings.get("apiHost")
        reading.api_key = settings.get("apiKey")
        reading.key_origin = f"{doc.source} settings.providers.{provider}.apiKey"
    if len(docs) > 1:
        reading.findings.append(
            Finding(
                "info",
                "other",
                "both the official and the Community Edition of Chatbox have settings; this reads the first.",
            )
        )
    return reading
