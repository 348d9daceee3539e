"""grok-cli (``grok``, npm ``@vibe-kit/grok-cli``): ``~/.grok/user-settings.json``.

Docs: https://github.com/superagent-ai/grok-cli#readme ; checked against @vibe-kit/grok-cli 0.0.34
(run against a test gateway, and ``dist/utils/settings-manager.js``,
``dist/index.js`` in the npm package). ``os.homedir()/.grok`` on every OS; no variable moves it.

Managed keys: ``apiKey``, ``baseURL``, ``defaultModel``, and the model in ``models`` (the list
``/models`` offers). grok's precedence, which ``read`` follows: ``--api-key`` / ``--base-url`` /
``--model`` flags, then ``GROK_API_KEY`` / ``GROK_BASE_URL`` / ``GROK_MODEL``, then for the model
the project's ``.grok/settings.json`` ``model``, then the user file. A user file whose
``settingsVersion`` is missing or below 2 is "migrated" and rewritten whole at grok's next start,
so a file gwconf creates gets ``settingsVersion = 2`` too.

The trap: on every start grok writes ``.grok/settings.json`` with ``{"model": "grok-code-fast-1"}``
into the folder it runs in when that file is missing, and that project model beats
``defaultModel``. gwconf does not write into projects; ``doctor`` names such a file, the reminder
says to pass ``--model`` (or export ``GROK_MODEL``), and ``gwconf run grok-cli`` passes ``--model``.
"""

from __future__ import annotations

from pathlib import Path

from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    get_str,
    load_other,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.formats import Document
from gwconf.paths import Env

ID = "grok-cli"
NAME = "grok-cli"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("grok",)
DOCS = "https://github.com/superagent-ai/grok-cli#readme"
RESTART = (
    "grok reads ~/.grok/user-settings.json when it starts: start a new `grok` session. It also writes "
    ".grok/settings.json into the folder it runs in, and that file's model beats defaultModel: start it as "
    "`grok --model <model>`, export GROK_MODEL=<model>, or use `gwconf run grok-cli`."
)
RESTAMPED: tuple[str, ...] = ()

XAI_BASE = "https://api.x.ai/v1"
GROK_DEFAULT_MODEL = "grok-code-fast-1"
SETTINGS_VERSION = 2  # settings-manager.js 0.0.34: a file without it (or older) is rewritten whole


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("settings", env.home / ".grok" / "user-settings.json", "json", secret=True, strict=True)
    ]


def project_settings(env: Env) -> Path:
    return env.cwd / ".grok" / "settings.json"


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    doc = docs["settings"]
    model = require_model(target, NAME, "defaultModel")
    doc.set(("apiKey",), target.api_key)
    doc.set(("baseURL",), target.base_url)
    doc.set(("defaultModel",), model)
    if doc.get(("settingsVersion",), None) is None:
        # without it grok "migrates" the file at its next start and rewrites it whole
        doc.set(("settingsVersion",), SETTINGS_VERSION)
    models = doc.get(("models",), None)
    if not isinstance(models, list):
        doc.set(("models",), [model])
    elif model not in models:
        doc.append(("models",), model)
    notes = []
    project = project_settings(env)
    if project.is_file() and project != files(env)[0].path:
        notes.append(
            f"{shown(project, env)} (grok writes it into every folder it runs in) sets the model for this "
            "folder; pass --model or export GROK_MODEL"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    model = require_model(target, NAME, "--model")
    return LaunchSpec(
        argv=["grok", "--model", model, *args],
        env={"GROK_API_KEY": target.api_key, "GROK_BASE_URL": target.base_url, "GROK_MODEL": model},
        beats_project=True,  # the current folder's .env never overrides an exported variable
    )


_VARIABLES = ("GROK_API_KEY", "GROK_BASE_URL", "GROK_MODEL")


def _variables(env: Env) -> tuple[dict[str, str], dict[str, str]]:
    """grok's variables and where each comes from: the shell, else the current folder's ``.env``,
    which grok loads at start without overriding the shell (0.0.34 ``dist/index.js``:
    ``dotenv.config()``)."""
    values: dict[str, str] = {}
    origins: dict[str, str] = {}
    local = env.cwd / ".env"
    doc = load_other(local, "dotenv-npm", env) if local.is_file() else None
    from_file = doc.data() if doc is not None and isinstance(doc.data(), dict) else {}
    for name in _VARIABLES:
        if env.get(name):
            values[name], origins[name] = env.get(name) or "", f"${name}"
        elif isinstance(from_file.get(name), str) and from_file[name]:
            values[name], origins[name] = from_file[name], f"{shown(local, env)} {name}"
    return values, origins


def read(docs: dict[str, Document], env: Env) -> Reading:
    doc = docs["settings"]
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE, provider="user-settings.json")
    f = reading.findings
    variables, origins = _variables(env)
    if variables.get("GROK_API_KEY"):
        reading.api_key, reading.key_origin = variables["GROK_API_KEY"], origins["GROK_API_KEY"]
    else:
        reading.api_key, reading.key_origin = get_str(doc, ("apiKey",)), f"{where} apiKey"
    base = variables.get("GROK_BASE_URL") or get_str(doc, ("baseURL",))
    reading.base_url = base or XAI_BASE
    reading.provider_is_gwconf = bool(base) and (base or "").rstrip("/") != XAI_BASE
    for name, what in (("GROK_API_KEY", "apiKey"), ("GROK_BASE_URL", "baseURL")):
        if variables.get(name) and variables[name] != get_str(doc, (what,)):
            shell = origins[name].startswith("$")
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{'$' + name + ' is set in this shell' if shell else origins[name] + ' is set'} and wins "
                    f"over {where} {what}.",
                    f"unset {name}" if shell else f"remove {name} from {origins[name].split()[0]}",
                )
            )
    model = get_str(doc, ("defaultModel",))
    project = project_settings(env)
    local = load_other(project, "json", env, f) if project != files(env)[0].path else None
    local_model = local.get(("model",), None) if local is not None else None
    if variables.get("GROK_MODEL"):
        model = variables["GROK_MODEL"]
    elif isinstance(local_model, str) and local_model:
        if local_model != model:
            f.append(  # a warning: started as the reminder says (--model or GROK_MODEL), grok is right
                Finding(
                    "warning",
                    "override",
                    f"{shown(project, env)} sets model {local_model!r}, which wins over defaultModel {model!r} "
                    "in this folder (grok writes that file itself, with grok-code-fast-1, where it is missing).",
                    f'start grok with --model {model}, export GROK_MODEL={model}, or set "model" in '
                    f"{shown(project, env)}"
                    if model
                    else f"gwconf apply {ID}",
                )
            )
        model = local_model
    reading.model = model or GROK_DEFAULT_MODEL
    if not reading.provider_is_gwconf:
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} has no baseURL of a gateway: grok talks to xAI ({XAI_BASE}).",
                f"gwconf apply {ID}",
            )
        )
    return reading
