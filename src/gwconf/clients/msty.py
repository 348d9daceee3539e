"""Msty: no verifiable config file, import format or deep link (closed source): printed UI steps.

Docs: https://docs.msty.app/ ; checked August 2026 (menu wording and
the …/v1 base form are UNVERIFIED). Provider choice: "OpenAI Compatible".
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

ID = "msty"
NAME = "Msty"
FAMILY = "openai"
WIRE = "chat"
TIER = 3
BASE_FORM = "v1"
PROGRAMS = ("msty", "Msty")
DOCS = "https://docs.msty.app/"
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
    return _desktop.user_data(env, "Msty").is_dir() or any(env.which(p) for p in PROGRAMS)


def steps(target: Target, show_key: bool) -> list[str]:
    return [
        "Open Msty > Settings > Remote model providers > Add.",
        "Provider: 'OpenAI Compatible'; name it gwconf.",
        f"API endpoint: {target.base_url}",
        f"API key: {_steps.key(target, show_key)}",
        f"Model: {_steps.model(target)} (add it if Msty does not list it), then save.",
        f"Pick gwconf > {_steps.model(target)} in a new chat.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return _steps.read(NAME)
