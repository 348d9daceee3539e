"""Cline: the CLI's ``~/.cline/data/settings/providers.json`` and the extension's (>= 3.66)
``~/.cline/data/globalState.json`` + ``secrets.json``, one client.

Docs: https://docs.cline.bot/provider-config/openai-compatible ; checked against the CLI
``cline`` 3.0.65 (run against a test gateway) and the cline/cline source
@21cb8d2525 (extension 4.1.13): ``StoredProviderSettingsSchema``
(``updatedAt`` must be an ISO date-time, else the whole providers.json reads as empty and Cline
falls back to its own cloud provider), ``state-keys.ts`` and ``ClineFileStorage.ts``.
``CLINE_DIR`` moves ``~/.cline``, ``CLINE_DATA_DIR`` its ``data`` folder,
``CLINE_PROVIDER_SETTINGS_PATH`` providers.json; Windows uses ``%USERPROFILE%\\.cline``.

CLI: the ``openai-compatible`` entry (``provider``, ``apiKey``, ``model``, ``baseUrl``) with
``updatedAt`` and ``tokenSource``, and ``lastUsedProvider``. ``updatedAt`` changes only when the
entry does, so a second apply writes nothing; ``SOURCE_DATE_EPOCH`` fixes the time (reproducible
files). Extension: ``actModeApiProvider`` and ``planModeApiProvider`` = ``"openai"`` (the
"OpenAI Compatible" provider; both modes are stored apart), ``openAiBaseUrl``, the act and plan
model ids, ``welcomeViewCompleted`` when unset, and ``openAiApiKey`` in ``secrets.json`` (0600).
providers.json alone does not switch the extension: its state files win.

The model's limits (limits.py), when known: ``models.json`` beside providers.json (the SDK's
``resolveModelsRegistryPath``; ``StoredModelsFileSchema``: ``version: 1`` and
``providers["openai-compatible"].models.<model>.contextWindow`` / ``maxTokens``), which the CLI
3.0.65 (its binary: ``M7()``, ``registerCustomModels``) and the extension 4.1.13
(``sdk/model-catalog/store.ts``: "models.json overrides, which are the source of truth" for
openai-compatible) read; and ``actModeOpenAiModelInfo`` / ``planModeOpenAiModelInfo`` in
globalState.json, which older extensions use instead of their defaults (so: those defaults with the
model's numbers; 4.1 migrates it once into models.json when that has no entry). No ``capabilities``
list is written: a list without "tools" would switch tool calling off (cline #13463). Unknown, all of
it is taken out (an emptied model entry too).

The extension reads these files once and rewrites them whole from memory, so ``preflight``
refuses to write while VS Code, a VS Code fork or a JetBrains IDE with Cline, or a ``cline``
process, is running for this data folder (Linux: ``/proc``, matching the process's own HOME /
``CLINE_*``; macOS ``ps``; Windows ``tasklist``), unless ``--force``. ``gwconf run cline`` points
``CLINE_PROVIDER_SETTINGS_PATH`` at a temporary providers.json as ``render()`` edits it (the
extension's files are read, never written), so it needs no running-app guard.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from gwconf import processes
from gwconf.clients import _vscode
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    no_import_link,
    no_project_scope_files,
    no_steps,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError, WriteRefused
from gwconf.formats import Document, lazy
from gwconf.limits import write_limits
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "cline"
NAME = "Cline"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("cline",)
DOCS = "https://docs.cline.bot/provider-config/openai-compatible"
# Cline re-stamps these itself on every run (e2e with cline 3.0.65): not a sign the user edited the entry
RESTAMPED = ("updatedAt",)
RESTART = (
    "The `cline` CLI reads the change on its next run. Start VS Code or your JetBrains IDE again now "
    "(it had to be closed, or Cline would have overwritten the files from memory)."
)

CLI_PROVIDER = "openai-compatible"
EXT_PROVIDER = "openai"
STATE_KEYS = ("actModeApiProvider", "planModeApiProvider")
MODEL_KEYS = ("actModeOpenAiModelId", "planModeOpenAiModelId")
INFO_KEYS = ("actModeOpenAiModelInfo", "planModeOpenAiModelInfo")
# openAiModelInfoSafeDefaults (apps/vscode/src/shared/api.ts @21cb8d2525): what the extension assumes
# without a model info, and what its own model picker writes; maxTokens -1 is its "not set"
SAFE_DEFAULTS: dict[str, int | bool] = {
    "maxTokens": -1,
    "contextWindow": 128_000,
    "supportsImages": True,
    "supportsPromptCache": False,
    "inputPrice": 0,
    "outputPrice": 0,
    "temperature": 0,
}
EXTENSION = "saoudrizwan.claude-dev"
# what Cline's schema takes for updatedAt (zod 4 ``string().datetime()``, checked with the zod of
# @cline 3.0.65): UTC with a "Z", no offset; any other stamp makes the whole file read as empty
_ISO = lazy(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
project_scope_files = no_project_scope_files
import_link = no_import_link


def cline_dir(env: Env) -> Path:
    value = env.get("CLINE_DIR")
    return env.as_given(value.strip()) if value and value.strip() else env.home / ".cline"


def data_dir(env: Env) -> Path:
    value = env.get("CLINE_DATA_DIR")
    return env.as_given(value.strip()) if value and value.strip() else cline_dir(env) / "data"


def providers_path(env: Env) -> Path:
    value = env.get("CLINE_PROVIDER_SETTINGS_PATH")
    if value and value.strip():
        return env.as_given(value.strip())
    return data_dir(env) / "settings" / "providers.json"


def models_path(env: Env) -> Path:
    """``models.json`` beside providers.json (the SDK's ``resolveModelsRegistryPath``)."""
    return providers_path(env).parent / "models.json"


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("providers", providers_path(env), "json", secret=True, strict=True),
        ConfigFile("state", data_dir(env) / "globalState.json", "json", strict=True),
        ConfigFile("secrets", data_dir(env) / "secrets.json", "json", secret=True, strict=True),
        ConfigFile("models", models_path(env), "json", strict=True),
    ]


def now_iso(env: Env) -> str:
    """Like JavaScript's ``toISOString()``; ``SOURCE_DATE_EPOCH`` pins it (reproducible files)."""
    epoch = env.get("SOURCE_DATE_EPOCH")
    moment = float(epoch) if epoch and epoch.isdigit() else time.time()
    millis = int(moment * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{millis:03d}Z"


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if not target.model:
        raise ClientError(
            "Cline needs a model name (its act and plan modes and the CLI entry name one).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    providers, state, secrets = docs["providers"], docs["state"], docs["secrets"]
    if providers.get(("version",), None) is None:
        providers.set(("version",), 1)
    entry = ("providers", CLI_PROVIDER)
    wanted = {
        "provider": CLI_PROVIDER,
        "apiKey": target.api_key,
        "model": target.model,
        "baseUrl": target.base_url,
    }
    changed = any(providers.get((*entry, "settings", k), None) != v for k, v in wanted.items())
    for key, value in wanted.items():
        providers.set((*entry, "settings", key), value)
    stamp = providers.get((*entry, "updatedAt"), None)
    if changed or not (isinstance(stamp, str) and _ISO.match(stamp)):
        providers.set((*entry, "updatedAt"), now_iso(env))
    if providers.get((*entry, "tokenSource"), None) not in ("manual", "oauth", "migration"):
        providers.set((*entry, "tokenSource"), "manual")
    providers.set(("lastUsedProvider",), CLI_PROVIDER)
    for key in STATE_KEYS:
        state.set((key,), EXT_PROVIDER)
    state.set(("openAiBaseUrl",), target.base_url)
    for key in MODEL_KEYS:
        state.set((key,), target.model)
    if state.get(("welcomeViewCompleted",), None) is None:
        state.set(("welcomeViewCompleted",), True)
    secrets.set(("openAiApiKey",), target.api_key)
    if "models" in docs:
        _render_limits(docs["models"], state, target)
    notes = []
    problem = _valid_store(providers.data())
    if problem:
        notes.append(
            f"{providers.source}: {problem} (an entry gwconf does not manage): Cline reads the whole file "
            "as empty until that is fixed"
        )
    old = [v for v in extension_versions(env) if v < (3, 66, 0)]
    if old:
        notes.append(
            f"Cline {'.'.join(map(str, max(old)))} keeps its settings in VS Code's own storage, not in these "
            "files: update the extension to 3.66 or later"
        )
    return notes


def _render_limits(models: Document, state: Document, target: Target) -> None:
    """The model's limits where Cline reads them: models.json (the CLI, the extension from 4.1) and
    the act/plan model info in globalState.json (older extensions; 4.1 migrates it once)."""
    model = str(target.model)
    entry = ("providers", CLI_PROVIDER, "models", model)
    if target.limits.known and models.get(("version",), None) is None:
        models.set(("version",), 1)
    write_limits(
        models,
        entry,
        [
            (("contextWindow",), target.limits.context_window),
            (("maxTokens",), target.limits.max_output_tokens),
        ],
    )
    if models.get(entry, None) == {}:
        models.delete(entry)
    for key in INFO_KEYS:
        if target.limits.context_window:
            # the extension uses this object instead of its defaults, whole
            info = {**SAFE_DEFAULTS, "contextWindow": target.limits.context_window}
            info["maxTokens"] = target.limits.max_output_tokens or SAFE_DEFAULTS["maxTokens"]
            state.set((key,), info)
        else:  # unknown: Cline's own defaults, not another profile's numbers
            state.delete((key,))


# -- the rewrite hazard: who holds these files in memory -------------------------------------------

VSCODE_NAMES = {"code", "code-insiders", "code-oss", "codium", "vscodium", "cursor", "windsurf"}
JETBRAINS_NAMES = {
    "idea", "pycharm", "webstorm", "goland", "clion", "rider", "phpstorm", "rubymine", "datagrip",
    "rustrover", "studio", "aqua", "dataspell",
}  # fmt: skip
MAC_APPS = ("Visual Studio Code", "Code - Insiders", "VSCodium", "Cursor.app", "Windsurf.app")
WINDOWS_IMAGES = {"code.exe": "VS Code", "code - insiders.exe": "VS Code Insiders", "vscodium.exe": "VSCodium",
                  "cursor.exe": "Cursor", "windsurf.exe": "Windsurf", "cline.exe": "cline"}  # fmt: skip


def extension_versions(env: Env) -> list[tuple[int, ...]]:
    """Versions of the Cline extension installed in any VS Code variant."""
    return [version for _, version in _vscode.installed_versions(env, EXTENSION)]


def classify(argv: list[str]) -> str | None:
    """Which Cline host a command line is: "VS Code", "JetBrains", "cline", or None."""
    if not argv or not argv[0]:
        return None
    name = os.path.basename(argv[0]).lower()
    for suffix in (".sh", ".exe", "64"):
        name = name.removesuffix(suffix)
    if name in VSCODE_NAMES:
        return "VS Code"
    if name in JETBRAINS_NAMES or any(
        "com.intellij.idea.Main" in a or "-Didea.paths.selector" in a for a in argv
    ):
        return "JetBrains IDE"
    if name == "cline" or (
        name in ("node", "bun") and any(os.path.basename(a) == "cline" for a in argv[1:3])
    ):
        return "cline"
    return None


def _process_data_dir(environ: dict[str, str]) -> Path | None:
    if environ.get("CLINE_DATA_DIR", "").strip():
        return Path(environ["CLINE_DATA_DIR"].strip())
    if environ.get("CLINE_DIR", "").strip():
        return Path(environ["CLINE_DIR"].strip()) / "data"
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) / ".cline" / "data" if home else None


def _linux_processes(env: Env) -> list[tuple[int, str]]:
    ours = os.path.realpath(data_dir(env))
    found = []
    for process in processes.processes():
        kind = classify(process.argv)
        if kind is None or process.environ is None:  # another user's process shares no files with us
            continue
        theirs = _process_data_dir(process.environ)
        if theirs is not None and os.path.realpath(theirs) == ours:
            found.append((process.pid, kind))
    return found


def _other_processes(env: Env) -> list[tuple[int, str]]:
    """macOS (``ps``) and Windows (``tasklist``): by name only; their environment is not readable."""
    import subprocess  # only here: every gwconf command imports this module

    found: list[tuple[int, str]] = []
    try:
        if env.platform == "win32":
            out = subprocess.run(
                ["tasklist", "/fo", "csv", "/nh"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=10,
            )
            for line in out.stdout.splitlines():
                cells = [c.strip('"') for c in line.split('","')]
                if len(cells) > 1 and cells[0].lower() in WINDOWS_IMAGES and cells[1].isdigit():
                    found.append((int(cells[1]), WINDOWS_IMAGES[cells[0].lower()]))
            return found
        # any process's arguments may be bytes that are no UTF-8: only the names matter here
        out = subprocess.run(
            ["ps", "-axo", "pid=,command="], capture_output=True, text=True, errors="replace", timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return found
    for line in out.stdout.splitlines():
        pid, _, command = line.strip().partition(" ")
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        kind = "VS Code" if any(app in command for app in MAC_APPS) else classify(command.split())
        if kind is None and "JetBrains" in command:
            kind = "JetBrains IDE"
        if kind:
            found.append((int(pid), kind))
    return found


def running_hosts(env: Env) -> list[tuple[int, str]]:
    """Processes that may hold Cline's files in memory for this data folder."""
    found = _linux_processes(env) if processes.available(env.platform) else _other_processes(env)
    has_extension = bool(extension_versions(env))
    used = data_dir(env).is_dir()
    return [
        (pid, kind)
        for pid, kind in found
        if kind == "cline" or (kind == "VS Code" and has_extension) or (kind == "JetBrains IDE" and used)
    ]


def preflight(env: Env, force: bool) -> list[str]:
    running = running_hosts(env)
    if not running:
        return []
    kinds: dict[str, list[int]] = {}
    for pid, kind in running:
        kinds.setdefault(kind, []).append(pid)
    listed = "; ".join(f"{kind} (pid {', '.join(map(str, pids[:5]))})" for kind, pids in kinds.items())
    if force:
        return [f"--force: wrote while {listed} runs; if Cline saves a setting it puts its old ones back"]
    raise WriteRefused(
        f"Cline is running ({listed}): it keeps {display(data_dir(env), env)} in memory and rewrites the "
        "files whole on its next save, which would undo gwconf's edit.",
        "Quit VS Code / your JetBrains IDE (every window) and any `cline` process (the background "
        "`cline --cline-hub-daemon` too), then run `gwconf apply cline` again; or pass --force.",
    )


# -- reading ----------------------------------------------------------------------------------


def _valid_store(data: Any) -> str | None:
    """Why Cline would read providers.json as empty, or None when its schema accepts it."""
    if not isinstance(data, dict) or not data:
        return None
    if data.get("version") != 1:
        return '"version" is not 1'
    providers = data.get("providers")
    if not isinstance(providers, dict):
        return '"providers" is missing'
    for name, entry in providers.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("settings"), dict):
            return f"providers.{name} has no settings"
        stamp = entry.get("updatedAt")
        if not (isinstance(stamp, str) and _ISO.match(stamp)):
            return f"providers.{name} has no valid updatedAt"
    return None


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["cline", *args],
        env={"CLINE_PROVIDER_SETTINGS_PATH": TempPath("providers.json")},
        render={"providers": "providers.json"},
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    providers, state, secrets = docs["providers"], docs["state"], docs["secrets"]
    reading = Reading(wire=WIRE)
    f = reading.findings
    shown = display(providers_path(env), env)
    store = providers.data() or {}
    problem = _valid_store(store)
    last = store.get("lastUsedProvider") if isinstance(store, dict) else None
    act = state.get(("actModeApiProvider",), None)
    if last or not act:  # the CLI's view, unless only the extension is configured
        stored = store.get("providers") if isinstance(store, dict) else None
        entry = stored.get(last, {}) if isinstance(stored, dict) and isinstance(last, str) else {}
        settings = entry.get("settings") if isinstance(entry, dict) else None
        settings = settings if isinstance(settings, dict) else {}
        reading.provider = last or "cline (default: no lastUsedProvider)"
        reading.provider_is_gwconf = last in (CLI_PROVIDER, EXT_PROVIDER) and problem is None
        reading.base_url = settings.get("baseUrl")
        reading.api_key = settings.get("apiKey")
        reading.model = settings.get("model")
        reading.key_origin = f"{shown} providers.{last}.settings.apiKey"
        if last not in (CLI_PROVIDER, EXT_PROVIDER):
            f.append(
                Finding(
                    "error",
                    "provider",
                    f"lastUsedProvider is {f'{last!r}' if last else 'not set'}: the cline CLI uses "
                    + (
                        "its own cloud provider."
                        if last in (None, "cline", "cline-pass")
                        else "another provider."
                    ),
                    "gwconf apply cline",
                )
            )
    else:  # the extension's view
        reading.provider = f"extension act mode: {act}"
        reading.provider_is_gwconf = act == EXT_PROVIDER
        reading.base_url = state.get(("openAiBaseUrl",), None)
        reading.api_key = secrets.get(("openAiApiKey",), None)
        reading.model = state.get(("actModeOpenAiModelId",), None)
        reading.key_origin = f"{display(data_dir(env) / 'secrets.json', env)} openAiApiKey"
    if problem:
        f.append(
            Finding(
                "error",
                "provider",
                f"{shown}: {problem}; Cline reads the whole file as empty, falls back to its own provider "
                "and may rewrite it (the keys in it are lost).",
                "gwconf apply cline",
            )
        )
    modes = {key: state.get((key,), None) for key in STATE_KEYS}
    if state.data() or last:
        for key, value in modes.items():
            if value != EXT_PROVIDER:
                f.append(
                    Finding(
                        "error" if key == "actModeApiProvider" else "warning",
                        "provider",
                        f"globalState.json {key} is {f'{value!r}' if value else 'not set (openrouter)'}: the "
                        f"extension's {key[: -len('ModeApiProvider')]} mode does not use the gateway.",
                        "gwconf apply cline",
                    )
                )
    ext = (state.get(("openAiBaseUrl",), None), secrets.get(("openAiApiKey",), None))
    cli_entry = ((store.get("providers") or {}).get(CLI_PROVIDER) or {}) if isinstance(store, dict) else {}
    cli = cli_entry.get("settings", {}) if isinstance(cli_entry, dict) else {}
    if state.data() and cli and (ext[0] != cli.get("baseUrl") or ext[1] != cli.get("apiKey")):
        f.append(
            Finding(
                "warning",
                "other",
                "the extension's files (globalState.json, secrets.json) and the CLI's providers.json hold "
                "different addresses or keys.",
                "gwconf apply cline",
            )
        )
    old = [v for v in extension_versions(env) if v < (3, 66, 0)]
    if old:
        f.append(
            Finding(
                "warning",
                "other",
                f"Cline {'.'.join(map(str, max(old)))} is installed: before 3.66 it keeps its settings in VS "
                "Code's storage and ignores these files.",
                "update the Cline extension",
            )
        )
    return reading


def doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    running = running_hosts(env)
    if not running:
        return []
    return [
        Finding(
            "warning",
            "process",
            "Cline is running ("
            + ", ".join(f"{kind} pid {pid}" for pid, kind in running[:5])
            + "): a setting it saves rewrites these files from memory.",
            "quit it before changing Cline's files",
        )
    ]
