"""JetBrains AI Assistant: no file gwconf may write (IDE options XML + Password Safe): printed UI steps.

Docs: https://www.jetbrains.com/help/ai-assistant/bring-your-own-key-byok.html ; checked against
AI Assistant 2026.1 docs. The provider is "OpenAI-compatible"; one
entry per model. The form of the URL field is UNVERIFIED (the …/v1 base is expected).
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

ID = "jetbrains-ai"
NAME = "JetBrains AI Assistant"
FAMILY = "openai"
WIRE = "chat"
TIER = 3
BASE_FORM = "v1"
DOCS = "https://www.jetbrains.com/help/ai-assistant/bring-your-own-key-byok.html"
RESTART = _steps.RESTART
PROGRAMS: tuple[str, ...] = ()
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
    if env.platform == "win32":
        return (env.appdata / "JetBrains").is_dir()
    if env.platform == "darwin":
        return (env.appdata / "JetBrains").is_dir()
    return (env.xdg_config_home / "JetBrains").is_dir()


def steps(target: Target, show_key: bool) -> list[str]:
    return [
        "In the IDE: Settings > Tools > AI Assistant > Providers & API keys (older IDEs: Models > Third-party "
        "AI providers; or in AI Chat: 'Use API Key or Local Models').",
        "Add a provider and choose 'OpenAI-compatible' (older IDEs: 'Other OpenAI-compatible service').",
        f"URL: {target.base_url}",
        f"API key: {_steps.key(target, show_key)}",
        f"Model: {_steps.model(target)} (add one entry per model), then Apply.",
        f"In AI Chat, pick {_steps.model(target)} in the model menu.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return _steps.read(NAME)
