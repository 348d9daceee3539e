"""Continue (VS Code, JetBrains and the ``cn`` CLI): ``~/.continue/config.yaml`` + ``~/.continue/.env``.

Docs: https://docs.continue.dev/reference ; checked against @continuedev/cli 1.5.47
(run against a test gateway) and continuedev/continue ``core/util/paths.ts``. gwconf owns one
``models`` entry (its name starts with ``gwconf``): ``provider: openai``, ``apiBase``, ``model``,
and ``apiKey: ${{ secrets.GWCONF_API_KEY }}`` resolved from ``~/.continue/.env`` (0600), so the
key stays out of a file people share. ``CONTINUE_GLOBAL_DIR`` moves the folder. The model's limits,
when known (limits.py), go to the entry's ``defaultCompletionOptions.contextLength`` and ``maxTokens``
(@continuedev/config-yaml's model schema); unknown, they are not written (Continue's defaults hold).
``gwconf run continue`` starts ``cn --config FILE`` with a temporary config that ``render()`` fills
with gwconf's model alone (``cn`` takes its last used model, else the first one: a copy of the
user's config.yaml would let another model win), the key only in ``cn``'s environment.
The IDE extensions load the legacy ``config.json`` while no config.yaml exists: gwconf will not
write a config.yaml that hides it unless --force (``cn`` never reads config.json). ``cn`` takes
the model last picked in it (``index/globalContext.json`` ``cliSelectedModel``) over the list's
order: status names it.
"""

from __future__ import annotations

import re
from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_import_link,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError, WriteRefused
from gwconf.formats import Document, lazy
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "continue"
NAME = "Continue"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("cn",)
DOCS = "https://docs.continue.dev/reference"
RESTART = (
    "VS Code's Continue picks up config.yaml within about a second; `cn` reads it on its next run; "
    "in JetBrains, restart the IDE if the model does not appear."
)
RESTAMPED: tuple[str, ...] = ()

SECRET_NAME = "GWCONF_API_KEY"
SECRET_REF = "${{ secrets." + SECRET_NAME + " }}"
_ASSIGNMENT = lazy(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=", re.M)
_SECRET_PATTERN = lazy(r"\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    moved = env.get("CONTINUE_GLOBAL_DIR")  # resolved against the current folder: no ~ expanded
    return env.as_given(moved) if moved else env.home / ".continue"


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("config", folder(env) / "config.yaml", "yaml"),
        ConfigFile("env", folder(env) / ".env", "dotenv-npm", secret=True),
    ]


def _legacy_json_only(env: Env) -> Path | None:
    """``config.json`` when it is the file Continue's IDE extensions load: no config.yaml beside it
    (continuedev/continue ``core/util/paths.ts``; "If a config.yaml file is present, it will be
    loaded instead of config.json", docs.continue.dev/yaml-migration)."""
    legacy = folder(env) / "config.json"
    return legacy if legacy.is_file() and not (folder(env) / "config.yaml").exists() else None


def preflight(env: Env, force: bool) -> list[str]:
    """A new config.yaml would hide a legacy config.json from the IDE extensions: every model and
    setting in it would stop loading. Refused unless --force."""
    legacy = _legacy_json_only(env)
    if legacy is None:
        return []
    if force:
        return [
            f"--force: Continue's IDE extensions now load config.yaml instead of {display(legacy, env)}; "
            "move what you need from it to config.yaml"
        ]
    raise WriteRefused(
        f"Continue's IDE extensions load {display(legacy, env)} while no config.yaml exists beside it; "
        "the config.yaml gwconf would write replaces it for them, and your models and settings there "
        "would stop loading.",
        "Convert it to config.yaml (docs.continue.dev/yaml-migration), then run `gwconf apply continue` "
        "again; or pass --force if only the `cn` CLI uses this folder (it never reads config.json).",
    )


def entry_name(model: str) -> str:
    return f"gwconf {model}"


def _models(config: Document) -> Any:
    """The models list as the document holds it, to look at only: ``get`` copies it, and a big
    config.yaml's list was copied three times per apply (issue 15)."""
    data = config.data()
    return data.get("models") if isinstance(data, dict) else None


def find_entry(config: Document) -> int | None:
    models = _models(config)
    if not isinstance(models, list):
        return None
    for index, item in enumerate(models):
        if isinstance(item, dict) and str(item.get("name", "")).startswith("gwconf"):
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config, dotenv = docs["config"], docs["env"]
    if not target.model:
        raise ClientError(
            "Continue needs a model name for its models entry.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    if config.get(("name",), None) is None and not config.data():
        config.set(("name",), "Local Config")
        config.set(("version",), "1.0.0")
        config.set(("schema",), "v1")
    entry = {
        "name": entry_name(target.model),
        "provider": "openai",
        "model": target.model,
        "apiBase": target.base_url,
        "apiKey": SECRET_REF,
        "roles": ["chat", "edit", "apply"],
    }
    index = find_entry(config)
    if index is None:
        index = config.append(("models",), entry)
    else:
        for key in ("name", "provider", "model", "apiBase", "apiKey"):
            config.set(("models", index, key), entry[key])
    # the model's limits where Continue reads them (config.yaml reference: defaultCompletionOptions
    # contextLength, maxTokens); unknown, Continue keeps its own defaults and nothing is written
    options = ("models", index, "defaultCompletionOptions")
    for key, value in (
        ("contextLength", target.limits.context_window),
        ("maxTokens", target.limits.max_output_tokens),
    ):
        if value:
            config.set((*options, key), value)
        elif isinstance(config.get(options, None), dict):  # unknown: no number left from another profile
            config.delete((*options, key))
    if config.get(options, None) == {}:
        config.delete(options)
    dotenv.set((SECRET_NAME,), target.api_key)
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["cn", "--config", TempPath("config.yaml"), *args],
        env={SECRET_NAME: target.api_key},
        render={"config": "config.yaml"},
        fresh=True,
        beats_project=True,  # cn reads the --config file alone
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    config, dotenv = docs["config"], docs["env"]
    reading = Reading(wire=WIRE)
    models = _models(config)
    index = find_entry(config)
    legacy = _legacy_json_only(env)
    if legacy is not None:
        reading.findings.append(
            Finding(
                "warning",
                "provider",
                f"Continue's IDE extensions load {display(legacy, env)} (there is no config.yaml); "
                "`cn` reads only config.yaml.",
                "convert it to config.yaml (docs.continue.dev/yaml-migration), then gwconf apply continue",
            )
        )
    if index is None:
        reading.provider = "no gwconf model entry"
        reading.findings.append(
            Finding("error", "provider", "config.yaml has no gwconf model entry.", "gwconf apply continue")
        )
        if isinstance(models, list) and models and isinstance(models[0], dict):
            entry = models[0]
        else:
            return reading
    else:
        entry = models[index]
        reading.provider = f"models[{index}] ({entry.get('provider')})"
        reading.provider_is_gwconf = entry.get("provider") == "openai"
    reading.base_url = entry.get("apiBase") or urls.OFFICIAL_OPENAI_BASE
    if not entry.get("apiBase"):
        reading.findings.append(
            Finding("error", "base", "the model entry has no apiBase: Continue calls official OpenAI.")
        )
    reading.model = entry.get("model")
    raw = entry.get("apiKey")
    match = _SECRET_PATTERN.fullmatch(str(raw or "").strip())
    if match:
        name = match.group(1)
        value = env.get(name) or dotenv.get((name,), None)
        reading.api_key = value
        reading.key_origin = f"${name}" if env.get(name) else f"{shown(folder(env) / '.env', env)} {name}"
        local = env.cwd / ".env"
        if local.is_file() and _assigns(local.read_text(errors="replace"), name):
            reading.findings.append(
                Finding("warning", "override", f"{local} also defines {name}; `cn` run here uses it.")
            )
    else:
        reading.api_key = raw
        reading.key_origin = "config.yaml apiKey"
    picked = _cn_picked_model(env)
    if index is not None and picked and picked not in (entry.get("name"), entry.get("model")):
        names = {item.get(key) for item in models if isinstance(item, dict) for key in ("name", "model")}
        if picked in names:
            reading.findings.append(
                Finding(
                    "warning",
                    "provider",
                    f'`cn` uses "{picked}", the model last picked in it, over gwconf\'s entry.',
                    f'pick "{entry.get("name")}" with /model in `cn`',
                )
            )
    if index not in (None, 0):
        reading.findings.append(
            Finding(
                "info",
                "provider",
                "other models come before gwconf's in config.yaml: pick it in Continue's model menu.",
            )
        )
    return reading


def _cn_picked_model(env: Env) -> str | None:
    """The model last picked in ``cn`` (``cliSelectedModel`` of ``index/globalContext.json``), which
    it takes over the list's order when a model of that name or id exists (@continuedev/cli 1.5.47
    ``src/services/ModelService.ts``, ``src/util/modelPersistence.ts``)."""
    import json

    from gwconf.fileio import read_plain

    try:
        data = json.loads(read_plain(folder(env) / "index" / "globalContext.json"))
    except (OSError, ValueError):
        return None
    picked = data.get("cliSelectedModel") if isinstance(data, dict) else None
    return picked if isinstance(picked, str) and picked else None


def _assigns(text: str, name: str) -> bool:
    """Whether a .env text sets ``name`` (a pattern built from the name needed ``re`` itself)."""
    return any(match.group(1) == name for match in _ASSIGNMENT.finditer(text))
