"""mods (Charm): ``mods/mods.yml`` in the XDG config folder (an ``apis`` entry named ``gwconf``).

Docs: https://github.com/charmbracelet/mods#custom-apis ; checked against mods v1.8.1 source, the
last release (the repository was archived on 2026-03-09; upstream points to ``crush run``;
``config.go`` ``ensureConfig``, ``mods.go``
``resolveModel``/``ensureKey``). ``xdg.ConfigFile("mods/mods.yml")`` (adrg/xdg):
``$XDG_CONFIG_HOME`` on every OS, else ``~/.config`` (Linux), ``~/Library/Application Support``
(macOS), ``%LOCALAPPDATA%`` (Windows). Any API name mods does not know (ollama, anthropic, google,
cohere, azure) is an OpenAI Chat Completions client. gwconf owns ``default-api: gwconf``,
``default-model``, and ``apis.gwconf`` (``base-url``, ``api-key`` (it wins over ``api-key-env``,
``api-key-cmd`` and ``$OPENAI_API_KEY``), the model under ``models``). A model entry without
``max-input-chars`` inherits the top-level one, and with neither mods cuts every prompt to zero
characters, so gwconf gives a new model entry ``max-input-chars: 392000`` (mods' own default for
large-context models) when the file sets no top-level value. ``gwconf run mods`` points
``XDG_CONFIG_HOME`` at a temporary folder whose ``mods`` stands in for the user's (its entries
linked, mods.yml as ``render()`` edits it).
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_dict,
    default_detect_for,
    default_target_for,
    local_appdata,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "mods"
NAME = "mods"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("mods",)
DOCS = "https://github.com/charmbracelet/mods#custom-apis"
RESTART = (
    "mods reads mods.yml on every run: nothing to restart. $MODS_API / $MODS_MODEL, or --api / --model, "
    "still win over the file."
)
RESTAMPED: tuple[str, ...] = ()

API = "gwconf"
MAX_INPUT_CHARS = 392000
NON_OPENAI_APIS = ("ollama", "anthropic", "google", "cohere", "azure", "azure-ad")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_path(env: Env) -> Path:
    # adrg/xdg (mods' go.mod: v0.5.3, pathutil.go): a leading ~ or $HOME expanded, then the value
    # counts only as an absolute path
    xdg = env.get("XDG_CONFIG_HOME") or ""
    for head in ("~", "$HOME"):
        if xdg == head or xdg.startswith(head + "/"):
            xdg = str(env.home) + xdg[len(head) :]
    from gwconf.dirs import absolute

    if absolute(xdg):
        base = Path(xdg)
    elif env.platform == "win32":
        base = local_appdata(env)
    elif env.platform == "darwin":
        base = env.home / "Library" / "Application Support"
    else:
        base = env.home / ".config"
    return base / "mods" / "mods.yml"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", config_path(env), "yaml", secret=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    if not target.model:
        raise ClientError(
            "mods needs a model name (default-model, listed under apis.gwconf.models).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    apis = config.get(("apis",), None)
    if apis is not None and not isinstance(apis, dict):
        raise ClientError(
            f"{config.source}: `apis` is not a mapping, so mods cannot read it either.",
            "Fix it by hand, then run gwconf again.",
        )
    notes = []
    if not config.data():
        # mods writes its template (temp and topp 1.0 among its settings) only where no mods.yml
        # exists (config.go writeConfigFile); a file holding gwconf's keys alone would leave both at
        # 0, and mods sends 0 (ptrOrNil keeps any value not below 0): greedy answers, or a refusal
        config.set(("temp",), 1.0)
        config.set(("topp",), 1.0)
        notes.append(
            "new mods.yml: temp and topp 1.0 as mods' own template has them; `mods --settings` edits it"
        )
    config.set(("default-api",), API)
    config.set(("default-model",), target.model)
    config.set(("apis", API, "base-url"), target.base_url)
    config.set(("apis", API, "api-key"), target.api_key)
    model_path = ("apis", API, "models", target.model)
    entry = config.get(model_path, None)
    top_limit = config.get(("max-input-chars",), None)
    if not top_limit and not (isinstance(entry, dict) and entry.get("max-input-chars")):
        config.set((*model_path, "max-input-chars"), MAX_INPUT_CHARS)
    elif entry is None:
        config.set(model_path, {})  # listed, so mods can resolve it; the top-level limit applies
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["mods", *args],
        env={"XDG_CONFIG_HOME": TempPath("config")},
        unset=("MODS_API", "MODS_MODEL"),  # they would win over default-api / default-model
        copies={"config/mods": config_path(env).parent},
        render={"config": "config/mods/mods.yml"},
    )


def _api_list(config: Document) -> list[tuple[str, dict[str, Any]]]:
    apis = config.get(("apis",), None)
    if not isinstance(apis, dict):
        return []
    return [(str(name), value if isinstance(value, dict) else {}) for name, value in apis.items()]


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    where = shown(config_path(env), env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    api_name = env.get("MODS_API") or config.get(("default-api",), None) or ""
    model = env.get("MODS_MODEL") or config.get(("default-model",), None) or ""
    for var, key in (("MODS_API", "default-api"), ("MODS_MODEL", "default-model")):
        if env.get(var) and env.get(var) != config.get((key,), None):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${var} is set in this shell and wins over {key} in {where}.",
                    f"unset {var}",
                )
            )
    chosen: tuple[str, dict[str, Any], str] | None = None
    for name, api in _api_list(config):  # mods' resolveModel
        if api_name and name != api_name:
            continue
        models = as_dict(api.get("models"))
        for model_name, data in models.items():
            aliases = data.get("aliases") if isinstance(data, dict) else None
            if model_name == model or (isinstance(aliases, list) and model in aliases):
                chosen = (name, api, str(model_name))
                break
        if chosen or api_name:
            break
    if chosen is None:
        reading.provider = api_name or "(none)"
        reading.model = str(model) or None
        f.append(
            Finding(
                "error",
                "provider",
                f"mods cannot resolve model {model!r} in API {api_name!r} from {where}.",
                "gwconf apply mods",
            )
        )
        return reading
    name, api, model_name = chosen
    reading.provider = f"apis.{name}"
    reading.model = model_name
    reading.provider_is_gwconf = name == API
    if name in NON_OPENAI_APIS:
        f.append(Finding("error", "provider", f"API {name!r} is not an OpenAI-style client in mods."))
    reading.base_url = api.get("base-url") or env.get("OPENAI_BASE_URL") or urls.OFFICIAL_OPENAI_BASE
    if api.get("api-key"):
        reading.api_key, reading.key_origin = str(api["api-key"]), f"{where} apis.{name}.api-key"
    elif api.get("api-key-env") and not api.get("api-key-cmd"):
        var = str(api["api-key-env"])
        reading.api_key, reading.key_origin = env.get(var), f"${var} (api-key-env)"
    elif api.get("api-key-cmd"):
        reading.key_origin = f"the output of api-key-cmd ({api['api-key-cmd']}): not run by gwconf"
    if not reading.api_key and not api.get("api-key-cmd") and env.get("OPENAI_API_KEY"):
        reading.api_key, reading.key_origin = env.get("OPENAI_API_KEY"), "$OPENAI_API_KEY"
    return reading
