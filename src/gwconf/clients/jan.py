"""Jan: no file gwconf may write (providers live in the app's WebView localStorage): printed UI steps.

Docs: https://jan.ai/docs/remote-models/openai ; checked against janhq/jan
``web-app/src/hooks/useModelProvider.ts`` @00ec5d11 (version and UI
wording UNVERIFIED). No deep link or import for providers was found.
"""

from __future__ import annotations

from gwconf.clients import _desktop, _steps
from gwconf.clients._base import (
    Reading,
    Target,
    default_target_for,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
)
from gwconf.formats import Document
from gwconf.paths import Env

ID = "jan"
NAME = "Jan"
FAMILY = "openai"
WIRE = "chat"
TIER = 3
BASE_FORM = "v1"
PROGRAMS = ("jan", "Jan")
DOCS = "https://jan.ai/docs/remote-models/openai"
RESTART = _steps.RESTART
RESTAMPED: tuple[str, ...] = ()

files = _steps.files
render = _steps.render


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def detect(env: Env) -> bool:
    return any(_desktop.user_data(env, name).is_dir() for name in ("Jan", "jan.ai.app")) or any(
        env.which(p) for p in PROGRAMS
    )


def steps(target: Target, show_key: bool) -> list[str]:
    return [
        "Open Jan > Settings > Model Providers.",
        "Click '+ Add Provider', name it gwconf (an OpenAI Compatible provider; or edit the built-in 'OpenAI').",
        f"Base URL: {target.base_url}",
        f"API Key: {_steps.key(target, show_key)}",
        f"Under Models, click '+' and add the model id: {_steps.model(target)}",
        f"In a new chat, pick gwconf > {_steps.model(target)}.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return _steps.read(NAME)
