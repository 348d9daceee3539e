"""elia (PyPI ``elia-chat``): ``$XDG_CONFIG_HOME/elia/config.toml``, a full-screen chat app.

Docs: https://github.com/darrenburns/elia#configuration ; checked against elia-chat 1.10.0, its last
release (run against a test gateway, and ``elia_chat/locations.py``,
``config.py``, ``__main__.py``, ``widgets/chat.py`` at darrenburns/elia 3236532). The folder comes
from ``xdg_base_dirs.xdg_config_home()``: ``$XDG_CONFIG_HOME``, else ``~/.config``, on macOS and
Windows too. elia reads the file with ``tomllib`` and creates it empty when it is missing.

Managed keys: the ``[[models]]`` entry with ``id = "gwconf"`` (``name = "openai/<model>"``: litellm's
OpenAI-compatible route, ``api_base``, ``api_key``, ``provider``, ``display_name``) and
``default_model = "gwconf"``. ``elia -m <id or name>`` beats ``default_model``; the entry's
``api_key``/``api_base`` beat litellm's ``OPENAI_*`` variables. ``gwconf run elia``: elia takes no
other config file, so one launch points ``XDG_CONFIG_HOME`` at a temporary stand-in for the user's
(links to its entries) whose ``elia/config.toml`` is rendered with the entry, and passes ``-m gwconf``.
elia's chats live under ``XDG_DATA_HOME``, which stays the user's.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    absolute_xdg_config,
    default_detect_for,
    default_target_for,
    find_table,
    litellm_openai_base,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
    upsert_table,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "elia"
NAME = "elia"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("elia",)
DOCS = "https://github.com/darrenburns/elia#configuration"
RESTART = (
    "elia reads config.toml when it starts: quit elia (Ctrl+C) and start it again; a chat opened before "
    "keeps the model it was started with. `elia -m <model>` still picks another model."
)
RESTAMPED: tuple[str, ...] = ()

ENTRY_ID = "gwconf"
PREFIX = "openai/"
ELIA_DEFAULT = "elia-gpt-4o"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_path(env: Env) -> Path:
    """xdg_base_dirs' ``xdg_config_home()`` (6.0.3, what elia 1.10 uses): ``$XDG_CONFIG_HOME`` only
    when it is an absolute path, else ``~/.config``."""
    return (absolute_xdg_config(env) or env.home / ".config") / "elia" / "config.toml"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", config_path(env), "toml", secret=True)]


def find_model(data: Any, wanted: str) -> tuple[int | None, dict[str, Any] | None]:
    """The entry elia picks for ``wanted``: its ``id``, else its ``name`` (``lookup_key``)."""
    models = data.get("models") if isinstance(data, dict) else None
    return find_table(models, lambda entry: (entry.get("id") or entry.get("name")) == wanted)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    model = require_model(target, NAME, "default_model")
    entry = {
        "id": ENTRY_ID,
        "name": model if model.startswith(PREFIX) else PREFIX + model,
        "display_name": f"{model} (gwconf)",
        "provider": "gwconf",
        "api_base": target.base_url,
        "api_key": target.api_key,
    }
    upsert_table(
        config,
        ("models",),
        entry,
        lambda item: (item.get("id") or item.get("name")) == ENTRY_ID,
        "elia",
        hint="[[models]] entries",
    )
    config.set(("default_model",), ENTRY_ID)
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    require_model(target, NAME, "default_model")
    return LaunchSpec(
        argv=["elia", "-m", ENTRY_ID, *args],
        env={"XDG_CONFIG_HOME": TempPath("config")},
        copies={"config": env.xdg_config_home},
        render={"config": "config/elia/config.toml"},
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    where = shown(config_path(env), env)
    data = config.data() if isinstance(config.data(), dict) else {}
    reading = Reading(wire=WIRE)
    f = reading.findings
    wanted = str(data.get("default_model") or ELIA_DEFAULT)
    _, entry = find_model(data, wanted)
    if entry is None:
        reading.model = wanted
        reading.provider = "elia's built-in models"
        reading.base_url = litellm_openai_base(env) or urls.OFFICIAL_OPENAI_BASE
        reading.api_key, reading.key_origin = env.get("OPENAI_API_KEY"), "$OPENAI_API_KEY"
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} default_model {wanted!r} is not one of its [[models]]: elia uses a built-in vendor model.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    name = str(entry.get("name") or "")
    reading.provider = str(entry.get("provider") or entry.get("id") or name)
    reading.provider_is_gwconf = entry.get("id") == ENTRY_ID
    base = entry.get("api_base")
    reading.base_url = str(base) if base else litellm_openai_base(env)
    if entry.get("api_key"):
        reading.api_key, reading.key_origin = str(entry["api_key"]), f"{where} models[{wanted}].api_key"
    else:
        reading.api_key, reading.key_origin = env.get("OPENAI_API_KEY"), "$OPENAI_API_KEY"
    if name.startswith(PREFIX):
        reading.model = name[len(PREFIX) :]
    else:
        reading.model = name
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} model {wanted!r} has name {name!r} without the openai/ prefix: litellm may send it to "
                "its vendor instead of api_base.",
                f"gwconf apply {ID}",
            )
        )
    if not base:
        f.append(Finding("error", "base", f"{where} model {wanted!r} has no api_base.", f"gwconf apply {ID}"))
    return reading
