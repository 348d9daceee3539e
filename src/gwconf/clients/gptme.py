"""gptme: ``~/.config/gptme/config.toml``, the same literal path on every OS.

Docs: https://gptme.org/docs/custom-providers.html and https://gptme.org/docs/config.html ; checked
against gptme 0.35.1 (run against a test gateway, and ``gptme/config/user.py``,
``config/models.py``, ``config/core.py``). The path is ``os.path.expanduser("~/.config/gptme/
config.toml")``: no XDG variable and no Windows folder moves it. ``config.local.toml`` beside it is
merged over it, and a project's ``gptme.toml`` ``[env]`` over both.

Managed keys: one ``[[providers]]`` entry named ``gwconf`` (``base_url``, ``api_key``,
``default_model``; gptme speaks Chat Completions to it) and ``[env] MODEL = "gwconf/<model>"``.
gptme's own precedence for a setting such as ``MODEL``: ``--model``, then ``GPTME_MODEL`` / ``MODEL``
in the environment, then the project's ``gptme.toml``, then ``config.local.toml``, then
``config.toml``; ``read`` follows it.

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
    """The files gptme merges, highest precedence first: project gptme.toml, config.local.toml, config.toml."""
    layers: list[tuple[str, dict[str, Any]]] = []
    for path in (env.cwd / "gptme.toml", config_path(env).with_name("config.local.toml")):
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
        for label, data in layers:
            section = data.get("env")
            if isinstance(section, dict) and section.get("MODEL"):
                model_value, model_from = str(section["MODEL"]), f"{label} [env] MODEL"
                break
    home_label = layers[-1][0]
    if model_from and not model_from.startswith(home_label):
        fix = (
            f"unset {model_from[1:]}"
            if model_from.startswith("$")
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
