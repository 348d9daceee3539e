"""Open WebUI (server): an env file with ``OPENAI_API_BASE_URLS`` / ``OPENAI_API_KEYS``.

Docs: https://docs.openwebui.com/getting-started/env-configuration ; checked against the docs
v0.5.1-v0.9.0 and ``backend/open_webui/config.py``. gwconf writes
``.env`` in the Open WebUI folder: ``$OPEN_WEBUI_DIR``, else the current folder when it is a
checkout (``backend/open_webui``) or holds a compose file that runs the ``open-webui`` image;
otherwise it refuses. A checkout loads that ``.env`` itself; Docker needs ``--env-file .env`` or
``env_file: .env``. These variables are PersistentConfig: after the first start the values in the
database win and the variables are ignored unless ``ENABLE_PERSISTENT_CONFIG=False``, so gwconf also
prints the Admin Panel steps for an installation that has started before.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import secrets, urls
from gwconf.clients import _server
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target_for,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
    no_steps,
)
from gwconf.formats import Document
from gwconf.paths import Env

ID = "open-webui"
NAME = "Open WebUI"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("open-webui",)
DOCS = "https://docs.openwebui.com/getting-started/env-configuration"
RESTART = (
    "Restart Open WebUI (Docker: docker compose up -d --force-recreate, or docker run again with --env-file; "
    "pip: stop and start open-webui serve). The variables count only on a first start or with "
    "ENABLE_PERSISTENT_CONFIG=False."
)
RESTAMPED: tuple[str, ...] = ()

VARIABLE = "OPEN_WEBUI_DIR"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def _marks(folder: Path) -> bool:
    return (folder / "backend" / "open_webui").is_dir() or _server.compose_mentions(folder, "open-webui")


def location(env: Env) -> _server.Location:
    return _server.locate(env, VARIABLE, _marks)


def files(env: Env) -> list[ConfigFile]:
    where = location(env)
    return [ConfigFile("env", where.folder / ".env", "dotenv", secret=True)] if where.found else []


def detect(env: Env) -> bool:
    return location(env).found or bool(env.which("open-webui"))


def has_started(folder: Path) -> bool:
    """A database means Open WebUI has started here before: its stored connections win."""
    return any((folder / p).is_file() for p in ("backend/data/webui.db", "data/webui.db", "webui.db"))


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    where = location(env)
    _server.require(where, NAME, VARIABLE, "Open WebUI checkout or compose file")
    dotenv = docs["env"]
    notes = [f"Open WebUI folder: {where.folder} ({where.how})"]
    old = dotenv.get(("OPENAI_API_BASE_URLS",), None)
    if isinstance(old, str) and old and old != target.base_url:
        notes.append(f"replaced OPENAI_API_BASE_URLS={old} (gwconf restore open-webui puts it back)")
    dotenv.set(("OPENAI_API_BASE_URLS",), target.base_url)
    dotenv.set(("OPENAI_API_KEYS",), target.api_key)
    dotenv.set(("ENABLE_OPENAI_API",), "true")
    if _server.compose_passes_env_file(where.folder) is False:
        notes.append(
            "your compose file has no env_file: add `env_file: .env` so the container sees these variables"
        )
    lead = (
        "this Open WebUI has started before (webui.db exists): it ignores these variables"
        if has_started(where.folder)
        else "if this Open WebUI has started before, it ignores these variables"
    )
    notes.append(
        f"{lead} unless ENABLE_PERSISTENT_CONFIG=False (which freezes every UI setting to env). Instead: Admin "
        f"Panel > Settings > Connections > OpenAI API > +, URL {target.base_url}, key "
        f"{secrets.mask(target.api_key)}, then select {target.model or 'your model'}"
    )
    return notes


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE, provider="OpenAI API connection")
    where = location(env)
    if "env" not in docs:
        reading.findings.append(Finding("error", "other", f"no Open WebUI folder: set ${VARIABLE}."))
        return reading
    dotenv = docs["env"]
    addresses = dotenv.get(("OPENAI_API_BASE_URLS",), None) or dotenv.get(("OPENAI_API_BASE_URL",), None)
    keys = dotenv.get(("OPENAI_API_KEYS",), None) or dotenv.get(("OPENAI_API_KEY",), None)
    reading.base_url = addresses.split(";")[0] if isinstance(addresses, str) else urls.OFFICIAL_OPENAI_BASE
    reading.api_key = keys.split(";")[0] if isinstance(keys, str) else None
    reading.key_origin = ".env OPENAI_API_KEYS"
    reading.provider_is_gwconf = isinstance(addresses, str)
    if dotenv.get(("ENABLE_OPENAI_API",), "true").lower() in ("false", "0"):
        reading.findings.append(
            Finding("error", "provider", "ENABLE_OPENAI_API is off.", "gwconf apply open-webui")
        )
    if has_started(where.folder) and dotenv.get(("ENABLE_PERSISTENT_CONFIG",), "true").lower() != "false":
        reading.findings.append(
            Finding(
                "warning",
                "override",
                "Open WebUI has started here before: the connections stored in its database win over .env.",
                "Admin Panel > Settings > Connections (or ENABLE_PERSISTENT_CONFIG=False)",
            )
        )
    return reading
