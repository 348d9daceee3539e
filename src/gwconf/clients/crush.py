"""Crush: ``~/.config/crush/crush.json`` (legacy JSON, still read) next to the Bash ``crushrc``.

Docs: https://github.com/charmbracelet/crush/blob/main/docs/config/README.md ; checked against the
charmbracelet/crush source @37f36e9 (2026-08-21, after v0.90.0; ``internal/config/load.go``
``lookupConfigs``/``GlobalConfig``/``GlobalConfigData``)
(not run: no package carries the binary). ``CRUSH_GLOBAL_CONFIG`` (a folder) moves the
global file, else ``$XDG_CONFIG_HOME/crush`` or ``~/.config/crush`` on every OS
(``%USERPROFILE%\\.config\\crush`` on Windows).

gwconf owns ``providers.gwconf`` (``type: openai-compat``: the chat wire; ``type: openai`` would
switch Crush to the Responses API), its ``base_url``, ``api_key`` (the key itself; the file
becomes 0600), one ``models`` entry for the model, and the ``provider``/``model`` of the
``models.large`` and ``models.small`` slots. A slot that moves from another provider to gwconf loses
the settings tied to the model it held (``SelectedModel`` in ``internal/config/config.go``):
``max_tokens`` (it replaces the model's ``default_max_tokens``: ``maxTokens :=
model.CatwalkCfg.DefaultMaxTokens; if model.ModelCfg.MaxTokens != 0 {...}`` in
``internal/agent/coordinator.go``), ``think``, ``reasoning_effort`` and ``provider_options``;
restore puts them back. Sampling settings (``temperature``, ``top_p``...) stay: they are the
user's, not the old model's. A slot already on gwconf keeps what the user set there.

Why crush.json and not ``crushrc``: current Crush prefers a Bash ``crushrc`` of commands
(``provider add gwconf --type openai-compat ...``, ``model large gwconf/<m>``). gwconf has no
editor for such a script: the ``shellrc`` editor's marked block holds only ``export NAME=value``
lines and refuses commands inside it, and ``dotenv`` does not parse Bash commands at all, so
neither round-trips a crushrc; the ``text`` format would make the whole script one value, and a
later restore would take back the user's own edits too. Crush still loads the legacy global
``crush.json`` and merges it with a ``crushrc`` in the same folder (``crushrc`` wins where both
set a key; SRC ``loadFromConfigPaths``), so gwconf edits crush.json for every setup, new ones
included, and reports a ``crushrc`` line that overrides it (``model large ...``) instead of
rewriting the script. The data-folder ``crush.json`` (the model picked in Crush's UI) is merged
after the global files and is reported the same way, never edited. ``gwconf run crush`` points
``CRUSH_GLOBAL_CONFIG`` at a temporary stand-in for the global folder (its entries linked,
crush.json as ``render()`` edits it). The model entry gwconf adds demands ``context_window`` and
``default_max_tokens`` (catwalk's Model): the model's limits (limits.py), else gwconf's stated
defaults (128000 and 8192), named in apply's output.
"""

from __future__ import annotations

import re
from pathlib import Path

from gwconf import formats, urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_dict,
    default_detect_for,
    default_target_for,
    folders_to_project_root,
    local_appdata,
    merge_deep,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
    project_folder,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError, GwconfError
from gwconf.formats import Document, lazy
from gwconf.limits import known_limits, output_or_default, window_or_default
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "crush"
NAME = "Crush"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("crush",)
DOCS = "https://github.com/charmbracelet/crush/blob/main/docs/config/README.md"
RESTART = (
    "Crush reads its configuration when it starts: quit every running `crush` session (Ctrl+C) and "
    "start a new one."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
SCHEMA = "https://charm.land/crush.json"
SLOTS = ("large", "small")
# SelectedModel fields tied to the model a slot held (config.go): max_tokens replaces the model's
# default_max_tokens (coordinator: ``if model.ModelCfg.MaxTokens != 0``), think and reasoning_effort
# are a vendor model's reasoning switches, provider_options that provider's own options
SLOT_TAKEN = ("max_tokens", "think", "reasoning_effort", "provider_options")
_CONTINUED_LINE = lazy(r"\\\r?\n")  # a backslash at the end of a line: the line goes on
_VAR = lazy(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:[:?=+-][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


def global_dir(env: Env) -> Path:
    value = env.get("CRUSH_GLOBAL_CONFIG")
    return Path(value).expanduser() if value else env.xdg_config_home / "crush"


def data_file(env: Env) -> Path:
    value = env.get("CRUSH_GLOBAL_DATA")
    if value:
        return Path(value).expanduser() / "crush.json"
    if env.get("XDG_DATA_HOME"):
        return env.xdg_data_home / "crush" / "crush.json"
    if env.platform == "win32":
        return local_appdata(env) / "crush" / "crush.json"
    return env.home / ".local" / "share" / "crush" / "crush.json"


def files(env: Env) -> list[ConfigFile]:
    found = [ConfigFile("config", global_dir(env) / "crush.json", "json", secret=True, strict=True)]
    if data_file(env).is_file():  # read only: what Crush's model picker saved
        found.append(ConfigFile("data", data_file(env), "json", strict=True))
    return found


def project_scope_files(env: Env) -> list[ConfigFile]:
    """``.crush.json`` or ``crush.json`` in the project (the git root, else the current folder):
    Crush's ``config.Load`` merges ``<dir>/crush.json`` then ``<dir>/.crush.json`` over the
    global file. The one that exists is edited (``.crush.json`` first, it is merged last); a new
    one is ``crush.json``."""
    folder = project_folder(env)
    for name in (".crush.json", "crush.json"):
        if (folder / name).is_file():
            return [ConfigFile("config", folder / name, "json", secret=True, strict=True)]
    return [ConfigFile("config", folder / "crush.json", "json", secret=True, strict=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    if not target.model:
        raise ClientError(
            "Crush needs a model name for its models.large / models.small slots.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    config = docs["config"]
    models = config.get(("providers", PROVIDER_ID, "models"), None)
    if models is not None and not isinstance(models, list):
        raise ClientError(
            f"{config.source}: providers.gwconf.models is not a list.",
            "Fix or remove it by hand, then run gwconf apply crush again.",
        )
    if not config.data():
        config.set(("$schema",), SCHEMA)
    entry = ("providers", PROVIDER_ID)
    config.set((*entry, "type"), "openai-compat")
    config.set((*entry, "name"), "gwconf gateway")
    config.set((*entry, "base_url"), target.base_url)
    config.set((*entry, "api_key"), target.api_key)
    notes: list[str] = []
    index = next(
        (i for i, m in enumerate(models or []) if isinstance(m, dict) and m.get("id") == target.model), None
    )
    if index is None:
        # crush's model entry demands both numbers (catwalk.Model); a stated default when unknown
        limits = {
            "context_window": window_or_default(target, NAME, notes),
            "default_max_tokens": output_or_default(target, NAME, notes),
        }
        config.append((*entry, "models"), {"id": target.model, "name": target.model, **limits})
    else:  # `use`: the limits this profile knows replace the last ones; an unknown one stays
        for key, value in known_limits(target, "context_window", "default_max_tokens"):
            config.set((*entry, "models", index, key), value)
    for slot in SLOTS:
        held = config.get(("models", slot), None)
        if isinstance(held, dict) and held.get("provider") != PROVIDER_ID:
            # the settings of another provider's model do not carry over to gwconf's; taken out
            # (restore puts each back where it was: ``Document.put_before``)
            for key in reversed([k for k in held if k in SLOT_TAKEN]):
                config.delete(("models", slot, key))
        config.set(("models", slot, "provider"), PROVIDER_ID)
        config.set(("models", slot, "model"), target.model)
    for label, data in _later_layers(docs, env, []):
        slots = [s for s in SLOTS if s in as_dict(data.get("models"))]
        if slots:
            notes.append(
                f"{label} also sets models.{'/'.join(slots)} and wins over crush.json: pick gwconf/"
                f"{target.model} in Crush's model menu, or change it there"
            )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["crush", *args],
        env={"CRUSH_GLOBAL_CONFIG": TempPath("crush")},
        copies={"crush": global_dir(env)},
        render={"config": "crush/crush.json"},
    )


# -- reading ----------------------------------------------------------------------------------


def scan_crushrc(text: str) -> dict[str, Any]:
    """What a crushrc's plain ``provider add`` and ``model large|small`` lines set (best effort:
    it is a Bash script; conditionals and ``source`` are not followed)."""
    import shlex  # here: only a crushrc needs it, and every listing imports this module

    data: dict[str, Any] = {}
    logical = _CONTINUED_LINE.sub(" ", text)
    for line in logical.splitlines():
        try:
            words = shlex.split(line, comments=True, posix=True)
        except ValueError:
            continue
        if len(words) >= 3 and words[0] == "provider" and words[1] == "add":
            entry: dict[str, Any] = {}
            flags = {"--type": "type", "--base-url": "base_url", "--api-key": "api_key", "--name": "name"}
            for index, word in enumerate(words[3:], 3):
                if word in flags and index + 1 < len(words):
                    entry[flags[word]] = words[index + 1]
            data.setdefault("providers", {})[words[2]] = entry
        elif len(words) >= 3 and words[0] == "model" and words[1] in SLOTS and "/" in words[2]:
            provider, model = words[2].split("/", 1)
            data.setdefault("models", {})[words[1]] = {"provider": provider, "model": model}
    return data


def _read_path(path: Path, env: Env, findings: list[Finding]) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    shown = display(path, env)
    try:
        raw = path.read_bytes()
        text, _ = formats.decode(raw, shown)
        if path.name in ("crushrc", ".crushrc"):
            return scan_crushrc(text)
        data = formats.load("json", text, shown).data()
    except (OSError, GwconfError) as exc:
        findings.append(Finding("warning", "override", f"{shown} cannot be read: {exc}"))
        return None
    return data if isinstance(data, dict) else None


def _project_boundary(env: Env) -> list[Path]:
    """Folders from cwd up to the git root (cwd alone outside a repository)."""
    chain, root = folders_to_project_root(env)
    return chain if root is not None else [env.cwd]


def _later_layers(
    docs: dict[str, Document], env: Env, findings: list[Finding]
) -> list[tuple[str, dict[str, Any]]]:
    """Layers merged after the global crush.json: crushrc beside it, the data file, the project."""
    folder = global_dir(env)
    found: list[tuple[str, dict[str, Any]]] = []
    rc = _read_path(folder / "crushrc", env, findings)
    if rc:
        found.append((display(folder / "crushrc", env), rc))
    if "data" in docs and isinstance(docs["data"].data(), dict) and docs["data"].data():
        found.append((display(data_file(env), env), docs["data"].data()))
    skip = {folder / "crush.json", folder / "crushrc"}
    for directory in reversed(_project_boundary(env)):
        for name in ("crush.json", ".crush.json", "crushrc", ".crushrc"):
            path = directory / name
            if path in skip:
                continue
            data = _read_path(path, env, findings)
            if data:
                found.append((display(path, env), data))
    # last and winning: the workspace file, crush.json in the nearest .crush folder up to the git
    # root (its data folder; internal/config/load.go), where `crush run -m` and a resumed session
    # save the models they used (internal/cmd/run.go, config.ScopeWorkspace)
    workspace = next((d / ".crush" for d in _project_boundary(env) if (d / ".crush").is_dir()), None)
    data = _read_path(workspace / "crush.json", env, findings) if workspace else None
    if workspace and data:
        found.append((display(workspace / "crush.json", env), data))
    return found


def expand(value: Any, env: Env) -> tuple[str | None, list[str]]:
    """Crush shell-expands ``$VAR`` and ``${VAR}`` in api_key and base_url; unset ones are named."""
    if not isinstance(value, str):
        return None, []
    missing: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        got = env.get(name)
        if got is None:
            missing.append(name)
        return got or ""

    return _VAR.sub(one, value), missing


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    reading = Reading(wire=WIRE)
    f = reading.findings
    later = _later_layers(docs, env, f)
    merged: dict[str, Any] = config.data() or {}
    for _, data in later:
        merged = merge_deep(merged, data)
    slots = as_dict(merged.get("models"))
    large = as_dict(slots.get("large"))
    provider_id, model = large.get("provider"), large.get("model")
    reading.provider, reading.model = provider_id, model
    providers = as_dict(merged.get("providers"))
    entry = as_dict(providers.get(provider_id)) if isinstance(provider_id, str) else {}
    if not provider_id:
        reading.provider = "no large model chosen"
        f.append(
            Finding(
                "error",
                "provider",
                "models.large is not set: Crush picks a vendor default.",
                "gwconf apply crush",
            )
        )
        return reading
    kind = entry.get("type") or ("openai" if provider_id == "openai" else None)
    if kind == "openai":
        reading.wire = "responses"
    elif kind == "anthropic":
        reading.wire, reading.auth_header = "messages", "x-api-key"
    reading.provider_is_gwconf = provider_id == PROVIDER_ID
    reading.base_url, unset = expand(entry.get("base_url"), env)
    if not reading.base_url and provider_id == "openai":
        reading.base_url = urls.OFFICIAL_OPENAI_BASE
    raw_key = entry.get("api_key")
    if isinstance(raw_key, str) and "$(" in raw_key:
        f.append(
            Finding("info", "key", f"providers.{provider_id}.api_key runs a command; gwconf cannot read it.")
        )
    else:
        reading.api_key, missing = expand(raw_key, env)
        unset += missing
    reading.key_origin = f"providers.{provider_id}.api_key"
    for name in unset:
        f.append(
            Finding(
                "error",
                "key",
                f"providers.{provider_id} refers to ${name}, which is not set here.",
                f"export {name}=...  (or run: gwconf apply crush)",
            )
        )
    if provider_id != PROVIDER_ID:
        f.append(
            Finding(
                "error",
                "provider",
                f'models.large uses provider "{provider_id}", not gwconf\'s entry.',
                "gwconf apply crush",
            )
        )
    elif kind != "openai-compat":
        f.append(
            Finding(
                "error",
                "provider",
                f'providers.gwconf.type is "{kind}"'
                + (" (the Responses API)" if kind == "openai" else "")
                + ': the gateway is served as "openai-compat".',
                "gwconf apply crush",
            )
        )
    small = as_dict(slots.get("small"))
    if small.get("provider") != PROVIDER_ID:
        f.append(
            Finding(
                "warning",
                "provider",
                f"models.small uses {small.get('provider') or 'a default'}: Crush's small requests "
                "(titles, summaries) do not go to the gateway.",
                "gwconf apply crush",
            )
        )
    if (
        reading.base_url
        and urls.is_vendor_host(urls.host_of(reading.base_url))
        and reading.provider_is_gwconf
    ):
        f.append(
            Finding("error", "base", f"providers.gwconf.base_url points at a vendor: {reading.base_url}")
        )
    for label, data in later:
        touched = [f"models.{s}" for s in SLOTS if s in as_dict(data.get("models"))]
        if PROVIDER_ID in as_dict(data.get("providers")):
            touched.append("providers.gwconf")
        if touched:
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{label} sets {', '.join(touched)}, which wins over {display(global_dir(env) / 'crush.json', env)}.",
                    "pick gwconf's model in Crush's model menu"
                    if label == display(data_file(env), env)
                    else f"remove or change those lines in {label}",
                )
            )
    return reading
