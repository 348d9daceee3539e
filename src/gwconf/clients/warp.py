"""Warp: no file gwconf may write (custom endpoints live in the OS secure storage): printed UI steps.

Docs: https://docs.warp.dev/agent-platform/inference/custom-inference-endpoint ; checked against
those docs and warpdotdev/warp ``crates/ai/src/api_keys.rs`` @19548aec.
The endpoint schema is "OpenAI Chat Completions"; requests go through Warp's servers, so the
address must be public HTTPS. ``settings.toml`` does not hold these settings.
"""

from __future__ import annotations

from gwconf.clients import _steps
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

ID = "warp"
NAME = "Warp"
FAMILY = "openai"
WIRE = "chat"
TIER = 3
BASE_FORM = "v1"
PROGRAMS = ("warp-terminal", "warp")
DOCS = "https://docs.warp.dev/agent-platform/inference/custom-inference-endpoint"
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
    return (env.home / ".warp").is_dir() or any(env.which(p) for p in PROGRAMS)


def steps(target: Target, show_key: bool) -> list[str]:
    return [
        *_steps.public_warning(NAME, target.base_url),
        "Open Warp > Settings > AI (Agents) > Custom inference endpoint > Add.",
        "Name: gwconf; API type/schema: 'OpenAI Chat Completions' (the OpenAI Compatible choice).",
        f"URL: {target.base_url}",
        f"API key: {_steps.key(target, show_key)}",
        f"Model name: {_steps.model(target)}; save.",
        f"Pick {_steps.model(target)} (gwconf) in the agent's model menu.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return _steps.read(NAME)
