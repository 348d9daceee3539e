"""LobeChat / LobeHub, self-hosted server: ``.env`` with ``OPENAI_API_KEY`` and ``OPENAI_PROXY_URL``.

Docs: https://lobehub.com/docs/self-hosting/environment-variables/model-provider ; checked against
``docs/self-hosting/environment-variables/model-provider.mdx`` @001d37c6 and @lobehub/chat 1.143
(lobehub/lobe-chat ``ImportSettings``). The server's built-in OpenAI provider takes a base-URL override
(``OPENAI_PROXY_URL``, with ``/v1``), the key and ``OPENAI_MODEL_LIST`` (``+my-model`` adds the
model). The folder: ``$LOBECHAT_DIR``, else the current folder when a compose file there runs the
LobeChat image; otherwise gwconf refuses. The web URL import (``/?settings=``) is best effort on
current versions and the desktop app has no file route: neither is used.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
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

ID = "lobechat"
NAME = "LobeChat (self-hosted)"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
DOCS = "https://lobehub.com/docs/self-hosting/environment-variables/model-provider"
RESTART = (
    "Recreate the LobeChat container so it reads .env again: docker compose up -d --force-recreate "
    "(a plain restart keeps the old variables)."
)
PROGRAMS: tuple[str, ...] = ()
RESTAMPED: tuple[str, ...] = ()

VARIABLE = "LOBECHAT_DIR"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def _marks(folder: Path) -> bool:
    return _server.compose_mentions(folder, "lobehub/lobe-chat", "lobehub/lobehub", "lobe-chat")


def location(env: Env) -> _server.Location:
    return _server.locate(env, VARIABLE, _marks)


def files(env: Env) -> list[ConfigFile]:
    where = location(env)
    return [ConfigFile("env", where.folder / ".env", "dotenv-npm", secret=True)] if where.found else []


def detect(env: Env) -> bool:
    return location(env).found


def _with_model(current: object, model: str) -> str:
    tokens = [t.strip() for t in current.split(",")] if isinstance(current, str) and current.strip() else []
    if any(t.lstrip("+").split("=")[0].split("<")[0] == model for t in tokens):
        return ",".join(tokens)
    return ",".join([*tokens, f"+{model}"])


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    where = location(env)
    _server.require(where, "LobeChat", VARIABLE, "compose file running the LobeChat image")
    dotenv = docs["env"]
    dotenv.set(("OPENAI_API_KEY",), target.api_key)
    dotenv.set(("OPENAI_PROXY_URL",), target.base_url)
    if target.model:
        dotenv.set(
            ("OPENAI_MODEL_LIST",), _with_model(dotenv.get(("OPENAI_MODEL_LIST",), None), target.model)
        )
    if dotenv.get(("ENABLED_OPENAI",), "1") == "0":
        dotenv.set(("ENABLED_OPENAI",), "1")
    notes = [f"LobeChat folder: {where.folder} ({where.how})"]
    if _server.compose_passes_env_file(where.folder) is False:
        notes.append(
            "your compose file has no env_file: add `env_file: .env` so the container sees these variables"
        )
    notes.append("users who set their own OpenAI key or proxy in LobeChat's settings keep theirs")
    return notes


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE, provider="openai (server-side)")
    if "env" not in docs:
        reading.findings.append(Finding("error", "other", f"no LobeChat folder: set ${VARIABLE}."))
        return reading
    dotenv = docs["env"]
    reading.base_url = dotenv.get(("OPENAI_PROXY_URL",), None) or urls.OFFICIAL_OPENAI_BASE
    reading.api_key = dotenv.get(("OPENAI_API_KEY",), None)
    reading.key_origin = ".env OPENAI_API_KEY"
    reading.provider_is_gwconf = bool(dotenv.get(("OPENAI_PROXY_URL",), None))
    models = dotenv.get(("OPENAI_MODEL_LIST",), None)
    if isinstance(models, str):
        first = next((t.strip().lstrip("+") for t in models.split(",") if t.strip().startswith("+")), None)
        reading.model = first.split("=")[0] if first else None
    if dotenv.get(("ENABLED_OPENAI",), "1") == "0":
        reading.findings.append(Finding("error", "provider", "ENABLED_OPENAI=0 turns the provider off."))
    return reading
