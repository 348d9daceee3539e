"""Kilo CLI and Kilo Code 7.x: ``~/.config/kilo/kilo.jsonc`` (+ VS Code ``kilo-code.new.model.*``).

Docs: https://kilo.ai/docs/ai-providers/openai-compatible ; checked against @kilocode/cli 7.7.9
(RUN) and kilo-vscode 7.0.25 (``packages/kilo-vscode/package.json``), and the
Kilo-Org/kilocode source (``packages/opencode/src/config/config.ts`` ``global``: files merged
``config.json`` < ``kilo.json`` < ``kilo.jsonc`` < ``opencode.json`` < ``opencode.jsonc``, later
wins; ``KILO_CONFIG``, ``KILO_CONFIG_DIR``,
``KILO_CONFIG_CONTENT``, ``KILO_DISABLE_PROJECT_CONFIG``). Kilo is an opencode fork: the provider
entry has opencode's shape and this module reuses ``gwconf.clients.opencode``. The folder is
xdg-basedir's ``~/.config/kilo`` on every OS, Windows included; ``XDG_CONFIG_HOME`` moves it.

gwconf edits the file that wins that merge among those the user has: the first of
``opencode.jsonc``, ``opencode.json``, ``kilo.jsonc``, ``kilo.json``, else creates ``kilo.jsonc``.
Kilo saves its own settings to the first of ``kilo.jsonc``, ``kilo.json``, ``opencode.jsonc``...
(``globalConfigFile``), but a legacy ``opencode.json`` beside ``kilo.jsonc`` overrides whatever is
written there: editing ``kilo.jsonc`` then changed nothing Kilo used (found in a real home). The Kilo Code
extension takes the model of new sessions from the VS Code settings
``kilo-code.new.model.providerID`` / ``modelID`` (defaults ``kilo`` / Kilo's auto model), so those
two are set too, in the user ``settings.json`` of every VS Code variant that has Kilo Code 7+
installed. Kilo Code 5.x and older (the Roo fork) is another product and is not configured here.
``gwconf run kilo`` starts the Kilo CLI with the entry in ``KILO_CONFIG_CONTENT`` (as opencode).
"""

from __future__ import annotations

from gwconf.clients import _vscode, opencode
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
)
from gwconf.clients._launch_types import LaunchSpec
from gwconf.formats import Document
from gwconf.paths import Env

ID = "kilo"
NAME = "Kilo CLI / Kilo Code"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("kilo",)
DOCS = "https://kilo.ai/docs/ai-providers/openai-compatible"
RESTART = (
    "Kilo Code: run 'Developer: Reload Window' in VS Code (its `kilo serve` reads the configuration at "
    "start); Kilo CLI: quit running `kilo` sessions and start a new one."
)
RESTAMPED: tuple[str, ...] = ()

LAYOUT = opencode.Layout(
    app="kilo",
    global_names=("config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"),
    edit_order=("opencode.jsonc", "opencode.json", "kilo.jsonc", "kilo.json"),  # the winner first
    new_name="kilo.jsonc",
    # 7.7.7: the project's kilo.json(c), then its opencode.json(c) (``for(... of["kilo","opencode"])``),
    # so an opencode.json beside kilo.jsonc wins; .opencode folders are no longer read ("Kilo no
    # longer falls back to opencode configuration"); a .kilocode or .kilo folder is read for
    # ``ALL_CONFIG_FILES``, in the project and in the home folder
    project_groups=(("kilo.json", "kilo.jsonc"), ("opencode.json", "opencode.jsonc")),
    project_dirs=(".kilocode", ".kilo"),
    dir_names=("kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json"),
    config_env="KILO_CONFIG",
    config_dir_env="KILO_CONFIG_DIR",
    content_env="KILO_CONFIG_CONTENT",
    disable_project_env="KILO_DISABLE_PROJECT_CONFIG",
    schema="https://app.kilo.ai/config.json",
    cli="gwconf apply kilo",
    managed_names=("kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json"),  # ALL_CONFIG_FILES
    default_agent="code",  # config.ts default_agent: "Falls back to 'code'" (Kilo's name for build)
)

PROVIDER_SETTING = "kilo-code.new.model.providerID"
MODEL_SETTING = "kilo-code.new.model.modelID"
EXTENSION = "kilocode.kilo-code"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


def vscode_files(env: Env) -> list[ConfigFile]:
    """The user settings of every VS Code variant (Code, Insiders, VSCodium, Cursor, Windsurf) with Kilo Code 7+."""
    variants = [v for v, version in _vscode.installed_versions(env, EXTENSION) if version[0] >= 7]
    return [
        ConfigFile(f"vscode:{_vscode.VARIANTS[v].folder}", _vscode.settings_file(env, v), "jsonc")
        for v in dict.fromkeys(variants)
    ]


def files(env: Env) -> list[ConfigFile]:
    return opencode.layout_files(env, LAYOUT) + vscode_files(env)


def project_scope_files(env: Env) -> list[ConfigFile]:
    return opencode.files_in_project(env, LAYOUT)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    notes = opencode.render_layout(docs, target, LAYOUT, "Kilo")
    for role, doc in docs.items():
        if role.startswith("vscode:"):
            doc.set((PROVIDER_SETTING,), opencode.PROVIDER_ID)
            doc.set((MODEL_SETTING,), target.model)
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return opencode.launch_layout(target, LAYOUT, "Kilo", args)


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = opencode.read_layout(docs, env, LAYOUT, "Kilo")
    for role, doc in docs.items():
        if not role.startswith("vscode:"):
            continue
        provider = doc.get((PROVIDER_SETTING,), None) or "kilo"
        model = doc.get((MODEL_SETTING,), None)
        if provider != opencode.PROVIDER_ID or (reading.model and model != reading.model):
            reading.findings.append(
                Finding(
                    "warning",
                    "provider",
                    f"{role[len('vscode:') :]} settings.json: Kilo Code starts new sessions with "
                    f'{PROVIDER_SETTING} = "{provider}", {MODEL_SETTING} = "{model or "(default)"}".',
                    LAYOUT.cli,
                )
            )
    legacy = [v for v, version in _vscode.installed_versions(env, EXTENSION) if version[0] < 6]
    if legacy:
        reading.findings.append(
            Finding(
                "info",
                "other",
                f"Kilo Code 5.x or older is installed in {_vscode.VARIANTS[legacy[0]].name}: it keeps its own "
                "provider profiles (import file route) and does not read kilo.jsonc.",
            )
        )
    return reading
