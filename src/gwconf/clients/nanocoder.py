"""nanocoder (npm ``@nanocollective/nanocoder``): ``agents.config.json`` and ``nanocoder-preferences.json``.

Docs: https://github.com/Nano-Collective/nanocoder#configuration ; checked against
@nanocollective/nanocoder 1.30.0 (run against a test gateway, and
``dist/config/paths.js``, ``config/index.js``, ``config/mcp-config-loader.js``,
``config/preferences.js``, ``client-factory.js``, ``plain/initialize.js`` in the npm package).
Folder: Linux ``$XDG_CONFIG_HOME/nanocoder`` (``~/.config``), macOS ``~/Library/Preferences/
nanocoder``, Windows ``%APPDATA%\\nanocoder``; ``NANOCODER_CONFIG_DIR`` moves it (and then the current folder's
preferences file no longer counts; its agents.config.json still does).

Managed keys: the ``nanocoder.providers`` entry named ``gwconf`` (in a top-level ``providers``
list when the file keeps its providers there: nanocoder reads that one only without a
``nanocoder.providers`` list) (``baseUrl``, ``apiKey``,
``models``: the profile's model) in agents.config.json, and in the preferences file
``lastProvider`` / ``lastModel`` / ``providerModels.gwconf``: nanocoder starts with
``--provider``, else ``lastProvider``, else the first provider, and with ``--model``, else
``providerModels[<provider>]``, else the provider's first model; interactive nanocoder takes a
``nanocoder.modeProviders.<mode>`` entry first (the user's per-mode choice: named, not edited). nanocoder rewrites the
preferences file (same values) at every start. Provider entries merge by name: the user file,
then ``./agents.config.json`` in the current folder, then ``$NANOCODER_PROVIDERS``; a
``./nanocoder-preferences.json`` replaces the user one. ``gwconf run nanocoder`` passes the
provider and model as ``--provider gwconf --model <model>`` with the entry in ``$NANOCODER_PROVIDERS``.
The model's window, when known (limits.py), is the entry's ``contextWindow``
(``models/models-dev-client.js`` ``resolveModelContextLimit``: a session override, the provider's
``contextWindows[<model>]``, its ``contextWindow``, ``$NANOCODER_CONTEXT_LIMIT``, then models.dev);
unknown, it is taken out. nanocoder has no output-limit setting.
"""

from __future__ import annotations

from pathlib import Path

from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_dict,
    as_list,
    default_detect_for,
    default_target_for,
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
from gwconf.limits import known_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "nanocoder"
NAME = "nanocoder"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("nanocoder",)
DOCS = "https://github.com/Nano-Collective/nanocoder#configuration"
RESTART = (
    "nanocoder reads agents.config.json when it starts: quit a running `nanocoder` and start it again "
    "(or pick gwconf with /provider). An agents.config.json or nanocoder-preferences.json in the current "
    "folder still wins."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER = "gwconf"
PROVIDERS = ("nanocoder", "providers")
_MODES = ("normal", "auto-accept", "yolo", "plan")  # app/types.js VALID_MODES


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    moved = env.get("NANOCODER_CONFIG_DIR")
    if moved:
        return env.as_given(moved)  # no ~ expanded
    if env.platform == "win32":
        return env.appdata / "nanocoder"
    if env.platform == "darwin":
        return env.home / "Library" / "Preferences" / "nanocoder"
    return env.xdg_config_home / "nanocoder"


def files(env: Env) -> list[ConfigFile]:
    folder = config_dir(env)
    return [
        ConfigFile("agents", folder / "agents.config.json", "json", secret=True, strict=True),
        ConfigFile("preferences", folder / "nanocoder-preferences.json", "json", strict=True),
    ]


def _providers(data: Any) -> list[Any]:
    """A file's provider list, where ``_providers_path`` says nanocoder reads it."""
    found: Any = as_dict(data)
    for part in _providers_path(data):
        found = found.get(part) if isinstance(found, dict) else None
    return as_list(found)


def _providers_path(data: Any) -> tuple[str, ...]:
    """Where the list nanocoder reads lives: ``nanocoder.providers`` when that is a list, else a
    top-level ``providers`` list (``config/mcp-config-loader.js`` ``loadProviderConfigFromFile``).
    A ``nanocoder.providers`` written beside a top-level list would hide the user's providers."""
    if isinstance(data, dict) and isinstance(data.get("providers"), list):
        inner = data.get("nanocoder")
        if not (isinstance(inner, dict) and isinstance(inner.get("providers"), list)):
            return ("providers",)
    return PROVIDERS


def _mode_overrides(data: Any) -> list[tuple[str, str, str]]:
    """(mode, provider, model) of each ``nanocoder.modeProviders`` entry naming another provider
    than gwconf's: in that mode nanocoder starts with it, over ``lastProvider``
    (``hooks/startup-provider.js`` ``resolveStartupProvider``; ``config/index.js``)."""
    modes = as_dict(as_dict(as_dict(data).get("nanocoder")).get("modeProviders"))
    names = {str(item.get("name")).lower() for item in _providers(data) if isinstance(item, dict)}
    found = []
    for mode, picked in modes.items():
        picked = as_dict(picked)
        provider, model = picked.get("provider"), picked.get("model")
        if (
            mode in _MODES
            and isinstance(provider, str)
            and isinstance(model, str)
            and provider.lower() != PROVIDER
            and provider.lower() in names  # nanocoder drops an entry naming no provider it has
        ):
            found.append((mode, provider, model))
    return found


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    agents, prefs = docs["agents"], docs["preferences"]
    model = require_model(target, NAME, "--model")
    entry = _entry(target, model)
    where = _providers_path(agents.data())
    index = upsert_table(agents, where, entry, lambda item: item.get("name") == PROVIDER, "nanocoder")
    if index is not None and "contextWindow" not in entry:  # unknown now: no number from another profile
        agents.delete((*where, index, "contextWindow"))
    prefs.set(("lastProvider",), PROVIDER)
    prefs.set(("lastModel",), model)
    prefs.set(("providerModels", PROVIDER), model)
    return [
        f"nanocoder.modeProviders.{mode} picks {provider}/{picked}: in {mode} mode nanocoder starts with it; "
        f"set it to {PROVIDER}/{model} (or remove it) for the gateway to answer"
        for mode, provider, picked in _mode_overrides(agents.data())
    ]


def _entry(target: Target, model: str) -> dict[str, Any]:
    """gwconf's provider entry; ``contextWindow`` (the provider's default window, which nanocoder
    takes before ``NANOCODER_CONTEXT_LIMIT`` and a models.dev lookup) only when known."""
    entry: dict[str, Any] = {"name": PROVIDER, "baseUrl": target.base_url, "apiKey": target.api_key}
    entry["models"] = [model]
    return {**entry, **dict(known_limits(target, "contextWindow", None))}


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    model = require_model(target, NAME, "--model")
    entry = _entry(target, model)
    import json

    return LaunchSpec(
        argv=["nanocoder", "--provider", PROVIDER, "--model", model, *args],
        env={"NANOCODER_PROVIDERS": json.dumps([entry])},
        unset=("NANOCODER_PROVIDERS_FILE",),
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    agents, prefs = docs["agents"], docs["preferences"]
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    merged: dict[str, tuple[dict[str, Any], str]] = {}
    order: list[str] = []

    def add(providers: list[Any], label: str) -> None:
        for entry in providers:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                if entry["name"] not in merged:
                    order.append(entry["name"])
                merged[entry["name"]] = (entry, label)

    add(_providers(agents.data()), where)
    preferences = prefs.data() if isinstance(prefs.data(), dict) else {}
    prefs_from = shown(files(env)[1].path, env)
    # the current folder's providers count even with NANOCODER_CONFIG_DIR set
    # (``loadProjectProviderConfigs``); only the preferences lookup skips the folder then
    local = env.cwd / "agents.config.json"
    if local != files(env)[0].path:
        doc = load_other(local, "json", env, f)
        if doc is not None and _providers(doc.data()):
            add(_providers(doc.data()), shown(local, env))
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{shown(local, env)} has providers of its own, which nanocoder merges over {where} here.",
                    f"remove them from {shown(local, env)} (or run nanocoder elsewhere)",
                )
            )
    if not env.get("NANOCODER_CONFIG_DIR"):
        local_prefs = env.cwd / "nanocoder-preferences.json"
        if local_prefs != files(env)[1].path:
            doc = load_other(local_prefs, "json", env, f)
            if doc is not None and isinstance(doc.data(), dict):
                preferences, prefs_from = doc.data(), shown(local_prefs, env)
                f.append(
                    Finding(
                        "warning",
                        "override",
                        f"{prefs_from} replaces {shown(files(env)[1].path, env)} in this folder.",
                        f"delete {prefs_from}",
                    )
                )
    variable = "NANOCODER_PROVIDERS" if env.get("NANOCODER_PROVIDERS") else None
    raw = env.get("NANOCODER_PROVIDERS") or ""
    if variable is None and env.get("NANOCODER_PROVIDERS_FILE"):  # read only without the other
        variable = "NANOCODER_PROVIDERS_FILE"
        try:
            from gwconf.fileio import read_plain

            file = env.as_given(env.get("NANOCODER_PROVIDERS_FILE") or "")
            raw = read_plain(file).decode("utf-8", errors="replace")
        except OSError:
            variable = None
    if variable is not None:
        import json

        try:
            given = json.loads(raw)  # an array, or agents.config.json's own shape
            add(given if isinstance(given, list) else _providers(given), f"${variable}")
        except ValueError:
            pass
        f.append(
            Finding(
                "warning",
                "override",
                f"${variable} is set in this shell; its providers win over agents.config.json.",
                f"unset {variable}",
            )
        )
    if not order:
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} has no providers: nanocoder asks to set one up.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    wanted = preferences.get("lastProvider")
    name = next((n for n in order if isinstance(wanted, str) and n.lower() == wanted.lower()), order[0])
    entry, label = merged[name]
    reading.provider = name
    reading.provider_is_gwconf = name == PROVIDER
    reading.base_url = entry.get("baseUrl") if isinstance(entry.get("baseUrl"), str) else None
    reading.api_key = entry.get("apiKey") if isinstance(entry.get("apiKey"), str) else None
    reading.key_origin = f"{label} providers[{name}].apiKey"
    models = [m for m in as_list(entry.get("models")) if isinstance(m, str)]
    remembered = as_dict(preferences.get("providerModels")).get(name) if isinstance(name, str) else None
    reading.model = remembered if remembered in models else (models[0] if models else None)
    for mode, provider, picked in _mode_overrides(agents.data()):
        f.append(
            Finding(
                "warning" if mode != "normal" else "error",
                "provider",
                f"{where} nanocoder.modeProviders.{mode} picks {provider}/{picked}: interactive nanocoder "
                f"starts with it in {mode} mode, over lastProvider.",
                f"set modeProviders.{mode} to {PROVIDER} (or remove it) in {where}",
            )
        )
    if name != PROVIDER and PROVIDER in merged:
        f.append(
            Finding(
                "error",
                "provider",
                f"nanocoder starts with provider {name!r} ({prefs_from} lastProvider or the first entry), not "
                f"{PROVIDER!r}.",
                f"gwconf apply {ID}",
            )
        )
    return reading
