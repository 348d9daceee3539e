"""gptme: ``~/.config/gptme/config.toml``, the same literal path on every OS.

Docs: https://gptme.org/docs/custom-providers.html and https://gptme.org/docs/config.html ; checked
against gptme 0.35.1 (run against a test gateway, and ``gptme/config/user.py``,
``config/models.py``, ``config/core.py``). The path is ``os.path.expanduser("~/.config/gptme/
config.toml")``: no XDG variable and no Windows folder moves it. ``config.local.toml`` beside it is
merged over it, and a project's ``gptme.toml`` ``[env]`` over both.

Managed keys: one ``[[providers]]`` entry named ``gwconf`` (``base_url``, ``api_key``,
``default_model``; gptme speaks Chat Completions to it) and ``[env] MODEL = "gwconf/<model>"``,
and ``[models] default`` where the user keeps one (it beats the user config's ``[env] MODEL``).
gptme's own precedence for the model (``resolve_model_source``): ``--model``, then ``GPTME_MODEL`` /
``MODEL`` in the environment, then the project's ``[env]`` (``gptme.toml``, else
``.github/gptme.toml``, with ``gptme.local.toml`` over it), then ``[models] default`` of
``config.runtime.toml`` < ``config.toml`` < ``config.local.toml``, then their ``[env] MODEL``;
``read`` follows it.

``gwconf run gptme``: gptme has no flag or variable for another config file, so one launch uses its
built-in ``local`` provider (OpenAI-compatible at ``OPENAI_API_BASE``, else ``OPENAI_BASE_URL``, with
``OPENAI_API_KEY``; ``llm/llm_openai.py``) through ``--model local/<model>``. gptme's ``get_env``
(``config/core.py``) takes ``GPTME_<NAME>`` before ``<NAME>``, and the environment before every
config file, so the ``GPTME_``-prefixed variables beat the shell's and a project's ``[env]``.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    find_table,
    load_other,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
    upsert_table,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "gptme"
NAME = "gptme"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("gptme",)
DOCS = "https://gptme.org/docs/custom-providers.html"
RESTART = (
    "gptme reads ~/.config/gptme/config.toml when it starts: start a new `gptme` session (a resumed "
    "conversation keeps the model it was saved with; pass -m gwconf/<model> to switch it). MODEL or "
    "GPTME_MODEL exported in your shell still wins."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER = "gwconf"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_path(env: Env) -> Path:
    return env.home / ".config" / "gptme" / "config.toml"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", config_path(env), "toml", secret=True)]


def find_provider(data: Any, name: str) -> tuple[int | None, dict[str, Any] | None]:
    providers = data.get("providers") if isinstance(data, dict) else None
    return find_table(providers, lambda entry: entry.get("name") == name)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    model = require_model(target, NAME, "[env] MODEL")
    entry = {"name": PROVIDER, "base_url": target.base_url, "api_key": target.api_key, "default_model": model}
    keys = ("base_url", "api_key", "default_model")
    index = upsert_table(
        config,
        ("providers",),
        entry,
        lambda item: item.get("name") == PROVIDER,
        "gptme",
        keys=keys,
        hint="[[providers]] entries",
    )
    if index is not None:
        config.delete(("providers", index, "api_key_env"))  # api_key wins anyway; no second source
    config.set(("env", "MODEL"), f"{PROVIDER}/{model}")
    # ``[models] default`` (config.runtime.toml < config.toml < config.local.toml) beats the user
    # config's ``[env] MODEL`` (0.35.1 ``resolve_model_source``): where the user keeps one, it
    # names gwconf's model too; one in config.local.toml, which gwconf does not edit, is named
    notes = []
    defaults = _user_model_defaults(env, config)
    if defaults:
        config.set(("models", "default"), f"{PROVIDER}/{model}")
        local = config_path(env).with_name("config.local.toml")
        if defaults.get("config.local.toml") not in (None, f"{PROVIDER}/{model}"):
            notes.append(
                f'{shown(local, env)} [models] default is "{defaults["config.local.toml"]}", which wins over '
                f"config.toml: set it to {PROVIDER}/{model} (or remove it) for the gateway to answer"
            )
    return notes


_USER_FILES = ("config.runtime.toml", "config.toml", "config.local.toml")  # later wins


def _user_model_defaults(env: Env, config: Document) -> dict[str, str]:
    """File name -> the ``[models] default`` each user config file sets (config.toml as edited)."""
    found = {}
    for name in _USER_FILES:
        if name == "config.toml":
            data = config.data()
        else:
            doc = load_other(config_path(env).with_name(name), "toml", env)
            data = doc.data() if doc is not None else None
        models = data.get("models") if isinstance(data, dict) else None
        default = models.get("default") if isinstance(models, dict) else None
        if isinstance(default, str) and default:
            found[name] = default
    return found


def _project_files(env: Env) -> list[Path]:
    """The project's gptme.toml, else .github/gptme.toml, and gptme.local.toml beside it, highest
    precedence first (0.35.1 ``config/project.py``)."""
    for candidate in (env.cwd / "gptme.toml", env.cwd / ".github" / "gptme.toml"):
        if candidate.exists():
            return [candidate.with_name("gptme.local.toml"), candidate]
    return []


# gptme's built-in OpenAI-compatible provider, configured only by variables (for `run`)
LOCAL_PROVIDER = "local"


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    """gptme's built-in ``local`` provider, pointed at the gateway by variables (module docstring)."""
    model = require_model(target, NAME, "--model")
    return LaunchSpec(
        argv=["gptme", "--model", f"{LOCAL_PROVIDER}/{model}", *args],
        env={"GPTME_OPENAI_API_BASE": target.base_url, "GPTME_OPENAI_API_KEY": target.api_key},
        unset=("MODEL", "GPTME_MODEL", "GPTME_OPENAI_BASE_URL"),
    )


def _layers(env: Env, config: Document, findings: list[Finding]) -> list[tuple[str, dict[str, Any]]]:
    """The files gptme merges, highest precedence first: the project's gptme.local.toml and
    gptme.toml, config.local.toml, config.toml."""
    layers: list[tuple[str, dict[str, Any]]] = []
    for path in (*_project_files(env), config_path(env).with_name("config.local.toml")):
        doc = load_other(path, "toml", env, findings)
        if doc is not None and isinstance(doc.data(), dict):
            layers.append((shown(path, env), doc.data()))
    data = config.data()
    layers.append((shown(config_path(env), env), data if isinstance(data, dict) else {}))
    return layers


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    reading = Reading(wire=WIRE)
    f = reading.findings
    layers = _layers(env, config, f)
    model_value: str | None = None
    model_from = ""
    for name in ("GPTME_MODEL", "MODEL"):
        if env.get(name):
            model_value, model_from = env.get(name), f"${name}"
            break
    if model_value is None:
        projects = {shown(path, env) for path in _project_files(env)}
        defaults = list(_user_model_defaults(env, config).items())
        for label, data in layers:
            if label not in projects and defaults:
                # below the project's [env], the user config's [models] default comes first (the
                # last file's wins)
                name, default = defaults[-1]
                model_value, model_from = (
                    default,
                    f"{shown(config_path(env).with_name(name), env)} [models] default",
                )
                break
            section = data.get("env")
            if isinstance(section, dict) and section.get("MODEL"):
                model_value, model_from = str(section["MODEL"]), f"{label} [env] MODEL"
                break
    home_label = layers[-1][0]
    if model_from and not model_from.startswith(home_label):
        fix = (
            f"unset {model_from[1:]}"
            if model_from.startswith("$")
            else f"remove [models] default from {model_from.split()[0]}"
            if model_from.endswith("[models] default")
            else f"remove MODEL from {model_from.split()[0]}"
        )
        f.append(
            Finding(
                "warning",
                "override",
                f"the model comes from {model_from}, which wins over {home_label}.",
                fix,
            )
        )
    provider_name, _, model = (model_value or "").partition("/")
    entry: dict[str, Any] | None = None
    entry_from = ""
    for label, data in reversed(layers):  # gptme merges the layers; the last one wins per provider
        _, found = find_provider(data, provider_name)
        if found is not None:
            entry, entry_from = found, label
    reading.provider = provider_name or None
    if entry is None:
        reading.model = model or model_value
        reading.base_url = urls.OFFICIAL_OPENAI_BASE if provider_name == "openai" else None
        reading.api_key = env.get("OPENAI_API_KEY") if provider_name == "openai" else None
        reading.key_origin = "$OPENAI_API_KEY" if provider_name == "openai" else ""
        f.append(
            Finding(
                "error",
                "provider",
                f"the model {model_value!r} ({model_from}) is not on a [[providers]] entry: gptme sends it to "
                f"its built-in {provider_name!r} provider."
                if model_value
                else "no MODEL is set: gptme picks a vendor from the API keys it finds.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    reading.model = model or entry.get("default_model")
    reading.base_url = entry.get("base_url") if isinstance(entry.get("base_url"), str) else None
    reading.provider_is_gwconf = provider_name == PROVIDER
    if entry.get("api_key"):
        reading.api_key, reading.key_origin = (
            str(entry["api_key"]),
            f"{entry_from} providers.{provider_name}.api_key",
        )
    else:
        var = str(entry.get("api_key_env") or f"{provider_name.upper().replace('-', '_')}_API_KEY")
        reading.api_key = env.get(f"GPTME_{var}") or env.get(var)
        reading.key_origin = f"${var}"
    return reading
