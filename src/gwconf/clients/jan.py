"""Jan: no file gwconf may write (providers live in the app's WebView localStorage): printed UI steps.

Docs: https://jan.ai/docs/remote-models/openai ; checked against janhq/jan
``web-app/src/hooks/useModelProvider.ts`` @00ec5d11 (version and UI
wording UNVERIFIED). No deep link or import for providers was found.

Found by its folders: the Electron app's ``<appData>/Jan``; the Tauri app's (0.6 on,
``src-tauri/tauri.conf.json`` 0.8.4: identifier ``jan.ai.app``, program ``Jan-Desktop``)
``<appData>/jan.ai.app`` on macOS and Windows, and on Linux its data folder,
``$XDG_DATA_HOME/jan.ai.app`` (``~/.local/share``: Tauri's ``app_data_dir``, where the
WebView's storage lives), besides ``~/.config/jan.ai.app``.
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
PROGRAMS = ("jan", "Jan", "Jan-Desktop")
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
    folders = [_desktop.user_data(env, name) for name in ("Jan", "jan.ai.app")]
    if env.platform == "linux":
        folders.append(env.xdg_data_home / "jan.ai.app")
    return any(folder.is_dir() for folder in folders) or any(env.which(p) for p in PROGRAMS)


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
