"""Mistral Vibe (``vibe``): ``~/.vibe/config.toml`` and the key in ``~/.vibe/.env``.

Docs: https://docs.mistral.ai/mistral-vibe/introduction/configuration ; checked against
mistral-vibe 3.0.2 (run against a test gateway, and ``vibe/utils/vibe_home.py``,
``vibe/core/config/models.py``, ``core/config/layers/environment.py``). ``VIBE_HOME`` moves both
files (default ``~/.vibe`` on every OS). A ``[[providers]]`` entry names the *variable* that holds
its key (``api_key_env_var``), and vibe loads that variable from ``.env``; a non-empty variable of
that name in the process environment wins.

Managed keys: the ``[[providers]]`` entry named ``gwconf`` (``api_base``, ``api_key_env_var =
"GWCONF_VIBE_API_KEY"``, ``api_style = "openai"``: Chat Completions, ``backend = "generic"``), the
``[[models]]`` entry whose ``provider`` is ``gwconf`` (``name`` is the wire model, ``alias`` what
vibe shows), ``active_model = <alias>``, and ``GWCONF_VIBE_API_KEY`` in ``.env``. Vibe's layers,
which ``read`` follows: ``config.toml``, then a trusted project's ``.vibe/config.toml``, then
``VIBE_*`` variables (``VIBE_ACTIVE_MODEL``). ``gwconf run mistral-vibe`` points ``VIBE_HOME`` at
a temporary stand-in for ``~/.vibe`` (links to its entries) whose ``config.toml`` is rendered with
the entries above, exports the key variable (the environment wins over ``.env``) and unsets
``VIBE_ACTIVE_MODEL`` so the rendered ``active_model`` holds; the user's files are not touched.
The model's limits, when known (limits.py), go to gwconf's ``[[models]]`` entry as
``max_context_length`` (``ModelConfig`` in core/config/models.py; auto-compaction at 80% of it, the
bundled vibe skill says) and ``max_output_tokens`` (the output cap); unknown, they are taken out.
A file that keeps its models as ``[models.<alias>]`` tables (vibe reads both forms,
``normalize_model_configs``) gets gwconf's model as a table of its own.
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
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "mistral-vibe"
NAME = "Mistral Vibe"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("vibe",)
DOCS = "https://docs.mistral.ai/mistral-vibe/introduction/configuration"
RESTART = (
    "Vibe reads config.toml and .env when it starts: quit a running `vibe` and start it again. "
    "A trusted project's .vibe/config.toml or VIBE_ACTIVE_MODEL in your shell still wins over active_model."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER = "gwconf"
KEY_VAR = "GWCONF_VIBE_API_KEY"
MISTRAL_BASE = "https://api.mistral.ai/v1"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    moved = env.get("VIBE_HOME")
    return env.expand(moved) if moved else env.home / ".vibe"


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("config", folder(env) / "config.toml", "toml"),
        ConfigFile("env", folder(env) / ".env", "dotenv", secret=True),
    ]


def _find(data: Any, table: str, key: str, value: str) -> tuple[int | None, dict[str, Any] | None]:
    entries = data.get(table) if isinstance(data, dict) else None
    return find_table(entries, lambda entry: entry.get(key) == value)


def _upsert(config: Document, table: str, key: str, value: str, entry: dict[str, Any]) -> None:
    """Set ``entry``'s keys on the ``[[table]]`` entry whose ``key`` is ``value``, or append it."""
    upsert_table(
        config, (table,), entry, lambda item: item.get(key) == value, "vibe", hint=f"[[{table}]] entries"
    )


def model_entries(data: Any) -> list[Any]:
    """The ``[[models]]`` entries, or the ``[models.<alias>]`` tables as entries with their alias:
    vibe 3.0.2 reads both forms (``normalize_model_configs``: "Read [[models]] lists or alias maps")."""
    models = data.get("models") if isinstance(data, dict) else None
    if isinstance(models, dict):
        return [{**entry, "alias": alias} for alias, entry in models.items() if isinstance(entry, dict)]
    return models if isinstance(models, list) else []


def _find_model(data: Any, key: str, value: str) -> dict[str, Any] | None:
    return find_table(model_entries(data), lambda entry: entry.get(key) == value)[1]


def alias_for(data: Any, model: str) -> str:
    """The model's own name, unless another provider's entry already uses it as its alias."""
    taken = _find_model(data, "alias", model)
    return model if taken is None or taken.get("provider") == PROVIDER else f"{PROVIDER}-{model}"


def _set_model_entry(config: Document, model: str, alias: str) -> tuple[Any, ...] | None:
    """gwconf's model entry, in the form the file keeps its models in; returns its path."""
    models = config.get(("models",), None)
    if isinstance(models, dict):  # [models.<alias>] tables: gwconf's is the one of its provider
        for key, entry in models.items():
            if isinstance(entry, dict) and entry.get("provider") == PROVIDER and key != alias:
                config.delete(("models", key))
        config.set(("models", alias, "name"), model)
        config.set(("models", alias, "provider"), PROVIDER)
        return ("models", alias)
    _upsert(config, "models", "provider", PROVIDER, {"name": model, "provider": PROVIDER, "alias": alias})
    index, _ = _find(config.data(), "models", "provider", PROVIDER)
    return None if index is None else ("models", index)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config, dotenv = docs["config"], docs["env"]
    model = require_model(target, NAME, "active_model")
    provider = {
        "name": PROVIDER,
        "api_base": target.base_url,
        "api_key_env_var": KEY_VAR,
        "api_style": "openai",
        "backend": "generic",
    }
    _upsert(config, "providers", "name", PROVIDER, provider)
    alias = alias_for(config.data(), model)
    entry = _set_model_entry(config, model, alias)
    if entry is not None:  # the model's limits on gwconf's entry; unknown: taken out, vibe's own handling
        write_limits(
            config,
            entry,
            [
                (("max_context_length",), target.limits.context_window),
                (("max_output_tokens",), target.limits.max_output_tokens),
            ],
        )
    config.set(("active_model",), alias)
    dotenv.set((KEY_VAR,), target.api_key)
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    require_model(target, NAME, "active_model")
    return LaunchSpec(
        argv=["vibe", *args],
        env={"VIBE_HOME": TempPath("vibe"), KEY_VAR: target.api_key},
        unset=("VIBE_ACTIVE_MODEL",),
        copies={"vibe": folder(env)},
        render={"config": "vibe/config.toml"},
    )


def _project_config(env: Env) -> Path | None:
    """The nearest ``.vibe/config.toml`` from the current folder up, stopping at the folder that
    holds VIBE_HOME (3.0.2 ``layers/project.py`` ``_discover_config_file``; vibe reads it in a
    trusted folder)."""
    stop = folder(env).parent
    for directory in (env.cwd, *env.cwd.parents):
        if directory == stop:
            return None
        candidate = directory / ".vibe" / "config.toml"
        if candidate.is_file():
            return candidate
    return None


def read(docs: dict[str, Document], env: Env) -> Reading:
    config, dotenv = docs["config"], docs["env"]
    where = shown(folder(env) / "config.toml", env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    data = config.data() if isinstance(config.data(), dict) else {}
    active, active_from = data.get("active_model"), f"{where} active_model"
    project = _project_config(env)
    local = (
        load_other(project, "toml", env, f) if project and project != folder(env) / "config.toml" else None
    )
    if project and local is not None and isinstance(local.data(), dict) and local.data().get("active_model"):
        active, active_from = local.data()["active_model"], f"{shown(project, env)} active_model"
        f.append(
            Finding(
                "warning",
                "override",
                f"{shown(project, env)} sets active_model; in a trusted folder it wins over {where}.",
                f"remove active_model from {shown(project, env)}",
            )
        )
    if env.get("VIBE_ACTIVE_MODEL"):
        active, active_from = env.get("VIBE_ACTIVE_MODEL"), "$VIBE_ACTIVE_MODEL"
        f.append(
            Finding(
                "warning",
                "override",
                f"$VIBE_ACTIVE_MODEL is set in this shell and wins over {where}.",
                "unset VIBE_ACTIVE_MODEL",
            )
        )
    model_entry = _find_model(data, "alias", str(active)) if active else None
    if model_entry is None and active:
        model_entry = _find_model(data, "name", str(active))
    provider_name = str(model_entry.get("provider")) if model_entry else None
    _, provider = _find(data, "providers", "name", provider_name) if provider_name else (None, None)
    reading.provider = provider_name or "mistral (vibe's default)"
    reading.model = str(model_entry.get("name")) if model_entry else (str(active) if active else None)
    if provider is None:
        reading.base_url = MISTRAL_BASE
        reading.api_key = env.get("MISTRAL_API_KEY") or dotenv.get(("MISTRAL_API_KEY",), None)
        reading.key_origin = "MISTRAL_API_KEY"
        f.append(
            Finding(
                "error",
                "provider",
                f"{active_from} ({active!r}) is not a [[models]] entry of a [[providers]] entry in {where}: "
                "vibe uses Mistral's own API."
                if active
                else f"{where} sets no active_model: vibe uses Mistral's own API.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    reading.base_url = str(provider.get("api_base") or "") or None
    reading.provider_is_gwconf = provider_name == PROVIDER
    if str(provider.get("api_style", "openai")) != "openai":
        reading.wire = {"openai-responses": "responses", "anthropic": "messages"}.get(
            str(provider.get("api_style")), WIRE
        )
    var = str(provider.get("api_key_env_var") or "")
    if not var:
        f.append(Finding("error", "key", f"{where} provider {provider_name!r} names no api_key_env_var."))
        return reading
    from_file = dotenv.get((var,), None)
    if env.get(var):
        reading.api_key, reading.key_origin = env.get(var), f"${var}"
        if from_file not in (None, env.get(var)):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${var} is set in this shell and wins over {shown(folder(env) / '.env', env)}.",
                    f"unset {var}",
                )
            )
    else:
        reading.api_key = str(from_file) if from_file else None
        reading.key_origin = f"{shown(folder(env) / '.env', env)} {var}"
    return reading
