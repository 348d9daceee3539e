"""VS Code GitHub Copilot Chat, bring your own key: ``<VS Code user folder>/chatLanguageModels.json``.

Docs: https://code.visualstudio.com/docs/copilot/customization/language-models ; checked against
Copilot Chat 0.42.0 source and the June-2026 docs (vscode-copilot-chat @31acd00a). VS Code keeps BYOK
provider groups in ``chatLanguageModels.json`` (a JSON array) in the profile folder and reloads it
when it changes. gwconf owns the group ``vendor: "customendpoint"``, ``name: "gwconf"`` (the
"Custom Endpoint" provider, OpenAI-compatible, ``apiType: "chat-completions"``) whose model ``url``
is the full ``…/v1/chat/completions``. That provider exists on VS Code Insiders only (hidden on
Stable in 0.42), so gwconf writes the Insiders file; when only Stable is installed it writes nothing
and prints the steps. The old setting ``github.copilot.chat.customOAIModels`` is deprecated and not
used.

The model entry's ``maxInputTokens`` and ``maxOutputTokens`` are required (package.json 0.42, the
provider's ``configuration`` schema); ``resolveModelInfo`` (src/extension/byok/common/byokProvider.ts)
takes their sum as the context window. gwconf writes the model's output limit and the window less
it (limits.py), else gwconf's stated defaults (128000 and 8192), named in apply's output; ``use``
rewrites them in gwconf's entry for the model.
"""

from __future__ import annotations

from gwconf import secrets
from gwconf.clients import _vscode
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_list,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
)
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.limits import output_or_default, window_or_default
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "copilot"
NAME = "VS Code Copilot Chat (BYOK)"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "chat_endpoint"
DOCS = "https://code.visualstudio.com/docs/copilot/customization/language-models"
RESTART = (
    "VS Code reloads chatLanguageModels.json by itself; if the model does not show in the Copilot Chat "
    "model picker, restart VS Code Insiders."
)
PROGRAMS: tuple[str, ...] = ()
RESTAMPED: tuple[str, ...] = ()

GROUP_NAME = "gwconf"
VENDOR = "customendpoint"
FILE = "chatLanguageModels.json"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def variant(env: Env) -> str | None:
    """Insiders when it is installed or when no VS Code is (then it is the one to install); None: Stable only."""
    installed = _vscode.installed_variants(env)
    if "insiders" in installed or "code" not in installed:
        return "insiders"
    return None


def files(env: Env) -> list[ConfigFile]:
    chosen = variant(env)
    if chosen is None:
        return []  # Stable only: the custom endpoint is hidden there, print steps instead
    return [ConfigFile("models", _vscode.user_dir(env, chosen) / FILE, "jsonc", secret=True)]


def _group(target: Target, notes: list[str]) -> dict[str, Any]:
    return {
        "name": GROUP_NAME,
        "vendor": VENDOR,
        "apiKey": target.api_key,
        "apiType": "chat-completions",
        "models": [_model(target, notes)],
    }


def _limits(target: Target, notes: list[str]) -> dict[str, int]:
    """``maxInputTokens`` and ``maxOutputTokens`` (both required): Copilot takes the window as their
    sum (``resolveModelInfo``), so the prompt limit is the window less the output."""
    window = window_or_default(target, NAME, notes)
    output = output_or_default(target, NAME, notes)
    return {"maxInputTokens": window - output if window > output else window, "maxOutputTokens": output}


def _model(target: Target, notes: list[str]) -> dict[str, Any]:
    return {
        "id": target.model,
        "name": f"{target.model} (gateway)",
        "url": target.base_url,
        "toolCalling": True,
        "vision": False,
        **_limits(target, notes),
    }


def find_group(groups: Any) -> int | None:
    if not isinstance(groups, list):
        return None
    for index, group in enumerate(groups):
        if isinstance(group, dict) and group.get("vendor") == VENDOR and group.get("name") == GROUP_NAME:
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if "models" not in docs:
        return [
            "only VS Code Stable is installed: Copilot's custom endpoint is Insiders-only, nothing written"
        ]
    if not target.model:
        raise ClientError(
            "Copilot's custom endpoint needs a model id.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    doc = docs["models"]
    groups = doc.data()
    notes: list[str] = []
    if groups in ({}, None):
        doc.set((), [_group(target, notes)])
        return notes
    if not isinstance(groups, list):
        raise ClientError(
            f"{doc.source}: expected a JSON array of provider groups, found an object.",
            "Fix or move the file aside, then run gwconf apply copilot again.",
        )
    index = find_group(groups)
    if index is None:
        doc.append((), _group(target, notes))
        return notes
    group = groups[index]
    doc.set((index, "apiKey"), target.api_key)
    doc.set((index, "apiType"), "chat-completions")
    models = group.get("models")
    if not isinstance(models, list):
        doc.set((index, "models"), [_model(target, notes)])
        return notes
    for position, model in enumerate(models):
        if isinstance(model, dict) and model.get("url") != target.base_url:
            doc.set((index, "models", position, "url"), target.base_url)
        if isinstance(model, dict) and model.get("id") == target.model:
            for key, value in _limits(target, notes).items():  # the profile's limits, not the last one's
                doc.set((index, "models", position, key), value)
    if not any(isinstance(m, dict) and m.get("id") == target.model for m in models):
        doc.append((index, "models"), _model(target, notes))
    return notes


def steps(target: Target, show_key: bool) -> list[str]:
    key = target.api_key if show_key else secrets.mask(target.api_key)
    return [
        "VS Code Stable hides Copilot's custom endpoint (Insiders only); install VS Code Insiders and run "
        "`gwconf apply copilot` again, or try these steps in your VS Code:",
        "Command Palette: 'Chat: Manage Language Models', then 'Add Models...'.",
        "Choose the provider 'Custom Endpoint' (older builds: 'OpenAI Compatible'); if neither is listed, "
        "this VS Code cannot use a gateway yet.",
        f"Name: {GROUP_NAME}; API type: Chat Completions; URL: {target.base_url}",
        f"API key: {key}",
        f"Model id: {target.model or '<model>'}; then pick it in the Copilot Chat model picker.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    if "models" not in docs:
        reading.findings.append(
            Finding(
                "warning",
                "provider",
                "only VS Code Stable is installed: Copilot's custom endpoint is Insiders-only.",
                "install VS Code Insiders, then: gwconf apply copilot",
            )
        )
        return reading
    groups = docs["models"].data()
    index = find_group(groups)
    if index is None:
        reading.provider = "no gwconf group"
        reading.findings.append(
            Finding(
                "error", "provider", f"{FILE} has no gwconf custom endpoint group.", "gwconf apply copilot"
            )
        )
        return reading
    group = groups[index]
    reading.provider = f"{group.get('vendor')}/{group.get('name')}"
    reading.provider_is_gwconf = True
    models = [m for m in as_list(group.get("models")) if isinstance(m, dict)]
    if models:
        reading.base_url = models[0].get("url")
        reading.model = models[0].get("id")
    key = group.get("apiKey")
    if isinstance(key, str) and key.startswith("${input:"):
        reading.key_origin = "VS Code secret storage (set in the UI)"
        reading.findings.append(
            Finding("info", "key", "the key was entered in VS Code's UI; gwconf cannot read it back.")
        )
    else:
        reading.api_key = key if isinstance(key, str) else None
        reading.key_origin = f"{FILE} gwconf group apiKey"
    if group.get("apiType") not in (None, "chat-completions"):
        reading.wire = "responses" if group.get("apiType") == "responses" else reading.wire
    others = _vscode.other_profiles(env, variant(env) or "insiders")
    if others:
        reading.findings.append(
            Finding(
                "info",
                "override",
                "VS Code has other profiles; each keeps its own chatLanguageModels.json (gwconf edits the "
                "default profile).",
            )
        )
    return reading
