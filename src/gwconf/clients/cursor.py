"""Cursor: no file gwconf may write (settings live in the opaque ``state.vscdb``): printed UI steps.

Docs: https://cursor.com/docs/settings/api-keys (address UNVERIFIED); checked against third-party
gateway guides, August 2026 (Cursor is closed source). Cursor's
OpenAI-compatible mode is its OpenAI key with "Override OpenAI Base URL"; requests are built on
Cursor's servers, so the gateway must be reachable over public HTTPS, and the override applies to
every OpenAI-named model.
"""

from __future__ import annotations

from gwconf.clients import _steps, _vscode
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

ID = "cursor"
NAME = "Cursor"
FAMILY = "openai"
WIRE = "chat"
TIER = 3
BASE_FORM = "v1"
PROGRAMS = ("cursor",)
DOCS = "https://cursor.com/docs/settings/api-keys"
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
    return _vscode.user_dir(env, "cursor").is_dir() or bool(env.which("cursor"))


def steps(target: Target, show_key: bool) -> list[str]:
    return [
        *_steps.public_warning(NAME, target.base_url),
        "Open Cursor Settings (Ctrl+Shift+J / Cmd+Shift+J) > Models > API Keys.",
        "Cursor has no separate 'OpenAI Compatible' provider: its OpenAI key with an overridden base URL is "
        f"that mode. OpenAI API Key: {_steps.key(target, show_key)}",
        f"Turn on 'Override OpenAI Base URL' and enter: {target.base_url}",
        "Click 'Verify'.",
        f"Models > '+ Add model': {_steps.model(target)}, and switch it on (the override applies to every "
        "OpenAI model: switch off the ones the gateway does not serve).",
        f"Pick {_steps.model(target)} in the chat's model menu (Tab completion keeps using Cursor's own models).",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return _steps.read(NAME)
