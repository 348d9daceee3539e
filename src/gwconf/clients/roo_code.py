"""Roo Code (VS Code extension ``RooVeterinaryInc.roo-cline``): an import file + VS Code ``settings.json``.

Docs: https://docs.roocode.com/ ; checked against Roo Code 3.52.1 source
@cb836567. Roo keeps its provider profiles in VS Code's encrypted SecretStorage, which nobody
should write. Its official route is the setting ``roo-cline.autoImportSettingsPath``: on every
extension start Roo imports that JSON file (profiles are merged). gwconf writes the file
``<gwconf config>/roo-code-settings.json`` (0600, UTF-8 without BOM) with one profile ``gwconf``
(provider ``openai`` = "OpenAI Compatible", explicit ``id``) and ``modeApiConfigs`` mapping every
built-in mode to it (otherwise switching mode silently returns to the old profile), and points the
setting at it in the user ``settings.json`` (JSONC, comments kept) of each VS Code variant that has
Roo installed (else each variant that exists, else VS Code).

The model's window, when known (limits.py), goes to the profile's ``openAiCustomModelInfo``
(``modelInfoSchema``: ``contextWindow`` and ``supportsPromptCache`` required, ``maxTokens``
optional): ``OpenAiHandler.getModel`` (src/api/providers/openai.ts, 3.52.1) uses that object
instead of ``openAiModelInfoSaneDefaults``, so gwconf writes those defaults with the model's
``contextWindow`` and ``maxTokens`` (-1, Roo's "not set", when only the window is known). Unknown,
the object is taken out: the import replaces a profile whole (``importExport.ts`` spreads
``apiConfigs`` by name), so Roo drops it too. Checked in the RooCodeInc/Roo-Code source at 3.52.1
(cb83656718); an object failing ``modelInfoSchema`` would make Roo skip the whole profile.
"""

from __future__ import annotations

from pathlib import Path

from gwconf.clients import _vscode
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target_for,
    get_str,
    load_other,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.paths import Env

ID = "roo-code"
NAME = "Roo Code"
FAMILY = "openai"
WIRE = "chat"
TIER = 2
BASE_FORM = "v1"
DOCS = "https://docs.roocode.com/features/settings-management"
RESTART = (
    "Run 'Developer: Reload Window' in VS Code (or restart it): Roo Code imports the file when it starts "
    "and shows an 'imported' message."
)
PROGRAMS: tuple[str, ...] = ()
RESTAMPED: tuple[str, ...] = ()

EXTENSION = "rooveterinaryinc.roo-cline"
SETTING = "roo-cline.autoImportSettingsPath"
PROFILE_ID = "gwconf"
MODES = ("architect", "code", "ask", "debug", "orchestrator")  # packages/types/src/mode.ts
# openAiModelInfoSaneDefaults (packages/types/src/providers/openai.ts, 3.52.1): what Roo assumes
# without openAiCustomModelInfo; maxTokens -1 is its "not set"
SANE_DEFAULTS: dict[str, int | bool] = {
    "maxTokens": -1,
    "contextWindow": 128_000,
    "supportsImages": True,
    "supportsPromptCache": False,
    "inputPrice": 0,
    "outputPrice": 0,
}


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def import_file(env: Env) -> Path:
    return env.config_dir / "roo-code-settings.json"


def variants(env: Env) -> list[str]:
    return _vscode.variants_with_extension(env, EXTENSION) or _vscode.installed_variants(env) or ["code"]


def detect(env: Env) -> bool:
    """The extension in a VS Code variant: the import file is gwconf's, and VS Code alone is not Roo."""
    return bool(_vscode.variants_with_extension(env, EXTENSION))


def files(env: Env) -> list[ConfigFile]:
    found = [ConfigFile("import", import_file(env), "json", secret=True, strict=True)]
    for variant in variants(env):
        found.append(ConfigFile(f"settings:{variant}", _vscode.settings_file(env, variant), "jsonc"))
    return found


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if not target.model:
        raise ClientError(
            "Roo Code's profile needs a model id.", 'Pass --model NAME, or add model = "..." to the profile.'
        )
    data = docs["import"]
    root = ("providerProfiles",)
    config = (*root, "apiConfigs", PROFILE_ID)
    data.set((*root, "currentApiConfigName"), PROFILE_ID)
    data.set((*config, "id"), PROFILE_ID)
    data.set((*config, "apiProvider"), "openai")
    data.set((*config, "openAiBaseUrl"), target.base_url)
    data.set((*config, "openAiApiKey"), target.api_key)
    data.set((*config, "openAiModelId"), target.model)
    if target.limits.context_window:
        # Roo uses this object instead of its defaults, whole: its defaults with the model's limits
        info = {**SANE_DEFAULTS, "contextWindow": target.limits.context_window}
        info["maxTokens"] = target.limits.max_output_tokens or SANE_DEFAULTS["maxTokens"]
        data.set((*config, "openAiCustomModelInfo"), info)
    else:  # unknown: Roo's own defaults, not another profile's numbers
        data.delete((*config, "openAiCustomModelInfo"))
    for mode in MODES:
        data.set((*root, "modeApiConfigs", mode), PROFILE_ID)
    path = str(import_file(env))
    notes = []
    for role, doc in docs.items():
        if role.startswith("settings:"):
            doc.set((SETTING,), path)
            variant = role.split(":", 1)[1]
            if _vscode.other_profiles(env, variant):
                notes.append(
                    f"{_vscode.VARIANTS[variant].name} has other profiles: the setting is in the default "
                    "profile only; copy it into a profile's settings.json to use Roo there."
                )
    notes.append("the import file holds the key (mode 0600); Roo re-imports it on every start")
    return notes


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    ours = str(import_file(env))
    settings = [doc for role, doc in docs.items() if role.startswith("settings:")]
    pointed = [get_str(doc, (SETTING,)) for doc in settings]
    if not any(p and Path(env.expand(p)) == Path(ours) for p in pointed):
        others = [p for p in pointed if p]
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"{SETTING} points at {others[0]}, not gwconf's import file."
                if others
                else f"VS Code's settings.json has no {SETTING}: Roo imports nothing.",
                "gwconf apply roo-code",
            )
        )
    # the setting has VS Code's default (window) scope: a workspace's .vscode/settings.json wins
    # over the user's (Roo-Code src/package.json declares no scope; autoImportSettings.ts reads it)
    local = env.cwd / ".vscode" / "settings.json"
    workspace = load_other(local, "jsonc", env)
    there = (
        workspace.data().get(SETTING)
        if workspace is not None and isinstance(workspace.data(), dict)
        else None
    )
    if there is not None and not (isinstance(there, str) and there and Path(env.expand(there)) == Path(ours)):
        reading.findings.append(
            Finding(
                "warning",
                "override",
                f"{shown(local, env)} sets {SETTING} to {there!r}, which wins over your user settings in "
                "this workspace" + (" (empty: Roo imports nothing)" if not there else "") + ".",
                f"remove {SETTING} from {shown(local, env)}",
            )
        )
    data = docs["import"]
    current = get_str(data, ("providerProfiles", "currentApiConfigName"))
    config = data.get(("providerProfiles", "apiConfigs", current or ""), None)
    reading.provider = current
    if not isinstance(config, dict):
        reading.findings.append(
            Finding("error", "provider", "the import file has no current profile.", "gwconf apply roo-code")
        )
        return reading
    reading.provider_is_gwconf = config.get("apiProvider") == "openai" and current == PROFILE_ID
    reading.base_url = config.get("openAiBaseUrl")
    reading.api_key = config.get("openAiApiKey")
    reading.key_origin = f"{ours} providerProfiles.apiConfigs.{current}.openAiApiKey"
    reading.model = config.get("openAiModelId")
    modes = data.get(("providerProfiles", "modeApiConfigs"), None) or {}
    unmapped = [m for m in MODES if modes.get(m) != config.get("id", current)]
    if unmapped:
        reading.findings.append(
            Finding(
                "warning",
                "provider",
                f"modes {', '.join(unmapped)} are not mapped to the profile: switching to them "
                "returns to another provider.",
                "gwconf apply roo-code",
            )
        )
    raw = import_file(env).read_bytes() if import_file(env).is_file() else b""
    if raw.startswith(b"\xef\xbb\xbf"):
        reading.findings.append(
            Finding("error", "other", f"{ours} starts with a BOM: Roo's JSON.parse rejects it.")
        )
    reading.findings.append(
        Finding(
            "info",
            "provider",
            "Roo keeps imported profiles in VS Code's secret storage: this is what it imports on the next "
            "start, not necessarily what it uses now.",
        )
    )
    return reading
