"""LibreChat (server): ``librechat.yaml`` (custom endpoint) + ``.env`` (the key) in its folder.

Docs: https://www.librechat.ai/docs/configuration/librechat_yaml ; checked against
``librechat.example.yaml`` @00450b59, config ``version: 1.3.17``.
The folder: ``$LIBRECHAT_DIR``, else the current folder when it holds ``librechat.yaml`` (or
``librechat.example.yaml``); otherwise gwconf refuses (it never guesses). gwconf owns the entry of
``endpoints.custom`` named "gwconf gateway" (OpenAI-compatible by default): ``baseURL`` …/v1,
``apiKey: "${GWCONF_API_KEY}"`` resolved from ``.env`` (0600), the model, title generation. The
``version`` the installation declares is kept; a new file gets 1.3.17.
"""

from __future__ import annotations

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
from gwconf.errors import ClientError
from gwconf.formats import Document, lazy
from gwconf.paths import Env

ID = "librechat"
NAME = "LibreChat"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
DOCS = "https://www.librechat.ai/docs/configuration/librechat_yaml"
RESTART = (
    "Restart the LibreChat server: it reads librechat.yaml and .env only at start "
    "(Docker: docker compose down && docker compose up -d; from source: stop and start npm run backend)."
)
PROGRAMS: tuple[str, ...] = ()
RESTAMPED: tuple[str, ...] = ()

VARIABLE = "LIBRECHAT_DIR"
ENTRY_NAME = "gwconf gateway"
SECRET = "GWCONF_API_KEY"
CONFIG_VERSION = "1.3.17"
MARKERS = ("librechat.yaml", "librechat.example.yaml")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def location(env: Env) -> _server.Location:
    return _server.locate(env, VARIABLE, lambda folder: any((folder / m).is_file() for m in MARKERS))


def files(env: Env) -> list[ConfigFile]:
    where = location(env)
    if not where.found:
        return []  # nowhere to write: render says how to point gwconf at the folder
    folder = where.folder
    return [
        ConfigFile("config", folder / "librechat.yaml", "yaml"),
        ConfigFile("env", folder / ".env", "dotenv-npm", secret=True),
    ]


def detect(env: Env) -> bool:
    return location(env).found


def find_entry(config: Document) -> int | None:
    entries = config.get(("endpoints", "custom"), None)
    if not isinstance(entries, list):
        return None
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("name") == ENTRY_NAME:
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    where = location(env)
    _server.require(where, NAME, VARIABLE, "librechat.yaml")
    if not target.model:
        raise ClientError(
            "LibreChat's custom endpoint needs a model.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    config, dotenv = docs["config"], docs["env"]
    if not config.data():
        config.set(("version",), CONFIG_VERSION)
    entry = {
        "name": ENTRY_NAME,
        "apiKey": "${" + SECRET + "}",
        "baseURL": target.base_url,
        "models": {"default": [target.model], "fetch": False},
        "titleConvo": True,
        "titleModel": target.model,
        "modelDisplayLabel": ENTRY_NAME,
    }
    index = find_entry(config)
    if index is None:
        custom = config.get(("endpoints", "custom"), None)
        if custom is not None and not isinstance(custom, list):
            raise ClientError(
                f"{config.source}: endpoints.custom is not a list.", "Fix it by hand, then retry."
            )
        config.append(("endpoints", "custom"), entry)
    else:
        base = ("endpoints", "custom", index)
        for key in ("apiKey", "baseURL", "titleModel"):
            config.set((*base, key), entry[key])
        defaults = config.get((*base, "models", "default"), None)
        if not (isinstance(defaults, list) and target.model in defaults):
            config.set((*base, "models", "default"), [target.model])
    dotenv.set((SECRET,), target.api_key)
    notes = [f"LibreChat folder: {where.folder} ({where.how})"]
    other = dotenv.get(("CONFIG_PATH",), None)
    if isinstance(other, str) and other.strip():
        notes.append(f".env sets CONFIG_PATH={other}: LibreChat reads that file, not librechat.yaml here")
    if (where.folder / "docker-compose.yml").is_file() and not _server.compose_mentions(
        where.folder, "librechat.yaml"
    ):
        override = where.folder / "docker-compose.override.yml"
        if not (override.is_file() and "librechat.yaml" in override.read_text(errors="replace")):
            notes.append(
                "in Docker, librechat.yaml reaches the container only through a volume in "
                "docker-compose.override.yml (./librechat.yaml:/app/librechat.yaml)"
            )
    return notes


_REF = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    if "config" not in docs:
        reading.findings.append(
            Finding("error", "other", f"no LibreChat folder: set ${VARIABLE} or run gwconf in that folder.")
        )
        return reading
    config, dotenv = docs["config"], docs["env"]
    index = find_entry(config)
    if index is None:
        reading.provider = "no gwconf endpoint"
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"librechat.yaml has no custom endpoint {ENTRY_NAME!r}.",
                "gwconf apply librechat",
            )
        )
        return reading
    entry = config.get(("endpoints", "custom", index))
    reading.provider = f"endpoints.custom[{index}] {ENTRY_NAME}"
    reading.provider_is_gwconf = True
    reading.base_url = entry.get("baseURL")
    models = entry.get("models") or {}
    default = models.get("default") if isinstance(models, dict) else None
    reading.model = default[0] if isinstance(default, list) and default else None
    raw = str(entry.get("apiKey") or "")
    match = _REF.fullmatch(raw.strip())
    if raw == "user_provided":
        reading.key_origin = "each user's own key (apiKey: user_provided)"
        reading.findings.append(
            Finding("info", "key", "apiKey is user_provided: every user enters a key in the UI.")
        )
    elif match:
        name = match.group(1)
        value = dotenv.get((name,), None)
        reading.api_key = value if isinstance(value, str) else env.get(name)
        reading.key_origin = f".env {name}" if isinstance(value, str) else f"${name}"
        if not reading.api_key:
            reading.findings.append(
                Finding("error", "key", f"{name} is not set in .env.", "gwconf apply librechat")
            )
    else:
        reading.api_key = raw or None
        reading.key_origin = "librechat.yaml apiKey"
    return reading
