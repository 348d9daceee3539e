"""Qwen Code: ``~/.qwen/settings.json`` (auth type, model, provider entry) + ``~/.qwen/.env`` (key).

Docs: https://qwenlm.github.io/qwen-code-docs/en/users/configuration/model-providers/ ; checked
against @qwen-code/qwen-code 0.24.4 (run against a test gateway) and the
QwenLM/qwen-code source (``modelConfigResolver.ts``: a ``modelProviders`` entry whose ``id`` is
the chosen model wins over ``--openai-*`` flags, ``OPENAI_*`` variables and
``security.auth.apiKey``/``baseUrl``; ``environment.ts``: a project ``.qwen/.env`` or ``.env``
first, then ``~/.qwen/.env`` and ``~/.env``, the first file to define a name wins and exported
variables win over all files). ``QWEN_HOME`` replaces ``~/.qwen``, exported or set in
``~/.qwen/.env`` or ``~/.env`` (read for it first: ``preResolveHomeEnvOverrides``).

gwconf switches ``security.auth.selectedType`` to ``"openai"`` (away from ``qwen-oauth``, whose
free tier ended), sets ``model.name`` and ``model.baseUrl`` (what Qwen Code saves when a model
is picked: among the entries of that id across ``modelProviders``, the one at that address wins,
else the first), and owns one ``modelProviders.openai`` entry (the one whose
``envKey`` is ``GWCONF_API_KEY``) with the model ``id``, ``baseUrl`` and ``envKey``. The key goes
to ``~/.qwen/.env`` (0600) under ``GWCONF_API_KEY``: a name of its own, so an exported
``OPENAI_API_KEY`` or a project ``.env`` with OpenAI's names cannot shadow it. Qwen Code rewrites
settings.json itself (keeps comments, adds ``"$version"``); that is not drift.
The model's limits (limits.py), when known, go to that entry's ``generationConfig``:
``contextWindowSize`` (the window Qwen Code assumes for the model, else a guess from the model's
name) and ``samplingParams.max_tokens`` (the output limit it sends; the bundled
docs/configuration/settings.md of 0.24.4: a provider entry's generationConfig is sealed, the
top-level ``model.generationConfig`` is not read for it). Unknown, both are taken out, and a
``samplingParams`` left empty with them (a set ``samplingParams`` stops Qwen Code's own default).
``gwconf run qwen-code`` points ``QWEN_HOME`` at a temporary stand-in for ``~/.qwen`` (its entries
linked; settings.json and .env as ``render()`` edits them) and sets ``GWCONF_API_KEY`` in Qwen
Code's environment, where it wins over every .env.
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
    load_other,
    merge_deep,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "qwen-code"
NAME = "Qwen Code"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("qwen",)
DOCS = "https://qwenlm.github.io/qwen-code-docs/en/users/configuration/model-providers/"
RESTART = (
    "Qwen Code reads settings.json and ~/.qwen/.env when it starts: /quit every running `qwen` session "
    "and start a new one."
)
RESTAMPED: tuple[str, ...] = ()

AUTH_TYPE = "openai"
KEY_NAME = "GWCONF_API_KEY"
PROVIDERS = ("modelProviders", AUTH_TYPE)
SYSTEM_SETTINGS = {
    "linux": "/etc/qwen-code/settings.json",
    "darwin": "/Library/Application Support/QwenCode/settings.json",
    "win32": "C:\\ProgramData\\qwen-code\\settings.json",
}


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


def qwen_dir(env: Env) -> Path:
    """``$QWEN_HOME``; else the ``QWEN_HOME`` that ``~/.qwen/.env``, then ``~/.env``, sets; else
    ``~/.qwen``. Qwen Code reads those two files for it before anything else (0.24.4
    ``preResolveHomeEnvOverrides``): a line there moves settings.json, and gwconf edited a file
    Qwen Code no longer read."""
    value = env.get("QWEN_HOME")
    default = env.home / ".qwen"
    if not value:
        from gwconf import fileio

        # once per command: status asks about ten times (gwconf never writes a QWEN_HOME line)
        candidates = (default / ".env", env.home / ".env")
        value = fileio.viewed(("qwen-home", candidates), lambda: _home_from_dotenv(env, candidates))
        if not value:
            return default
    # Qwen Code's Storage.resolvePath: a leading ~ is the home folder, a relative path the cwd's
    if value == "~" or value.startswith(("~/", "~\\")):
        return env.home.joinpath(*[part for part in value[2:].replace("\\", "/").split("/") if part])
    return env.cwd / value


def _home_from_dotenv(env: Env, candidates: tuple[Path, ...]) -> str | None:
    """The first ``QWEN_HOME`` that one of ``candidates`` (.env files) sets to a value."""
    for candidate in candidates:
        doc = load_other(candidate, "dotenv-npm", env)
        found = doc.data().get("QWEN_HOME") if doc is not None else None
        if isinstance(found, str) and found:
            return found
    return None


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("settings", qwen_dir(env) / "settings.json", "jsonc"),
        ConfigFile("env", qwen_dir(env) / ".env", "dotenv-npm", secret=True),
    ]


def project_scope_files(env: Env) -> list[ConfigFile]:
    """``.qwen/settings.json`` and ``.qwen/.env`` in the current folder (Qwen Code 0.24:
    ``loadSettings(process.cwd())`` and ``Storage.getWorkspaceSettingsPath``; the project ``.env``
    is read in trusted workspaces only)."""
    folder = env.cwd / ".qwen"
    return [
        ConfigFile("settings", folder / "settings.json", "jsonc"),
        ConfigFile("env", folder / ".env", "dotenv-npm", secret=True),
    ]


def find_entry(settings: Document) -> int | None:
    """Index of gwconf's entry in ``modelProviders.openai``: the one reading ``GWCONF_API_KEY``."""
    entries = settings.get(PROVIDERS, None)
    if not isinstance(entries, list):
        return None
    for index, item in enumerate(entries):
        if isinstance(item, dict) and item.get("envKey") == KEY_NAME:
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    settings, dotenv = docs["settings"], docs["env"]
    if not target.model:
        raise ClientError(
            "Qwen Code needs a model name for its modelProviders entry and model.name.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    entries = settings.get(PROVIDERS, None)
    if entries is not None and not isinstance(entries, list):
        raise ClientError(
            f"{settings.source}: modelProviders.openai is not a list; gwconf will not guess its shape.",
            "Make it a list of model entries (or remove it), then run gwconf apply qwen-code again.",
        )
    settings.set(("security", "auth", "selectedType"), AUTH_TYPE)
    settings.set(("model", "name"), target.model)
    # what Qwen Code saves when a model is picked: among entries with the model's id, the one at
    # this address wins (a user's own entry of the same id, listed first, won before)
    settings.set(("model", "baseUrl"), target.base_url)
    entry = {
        "id": target.model,
        "name": f"{target.model} (gwconf)",
        "baseUrl": target.base_url,
        "envKey": KEY_NAME,
    }
    index = find_entry(settings)
    if index is None:
        index = settings.append(PROVIDERS, entry)
    else:
        for key in ("id", "name", "baseUrl"):
            settings.set((*PROVIDERS, index, key), entry[key])
    # the model's limits in the entry's own generationConfig (sealed: the top-level one is not read)
    write_limits(
        settings,
        (*PROVIDERS, index, "generationConfig"),
        [
            (("contextWindowSize",), target.limits.context_window),
            (("samplingParams", "max_tokens"), target.limits.max_output_tokens),
        ],
    )
    if settings.get((*PROVIDERS, index, "generationConfig"), None) == {}:
        settings.delete((*PROVIDERS, index, "generationConfig"))
    dotenv.set((KEY_NAME,), target.api_key)
    notes = []
    if env.get(KEY_NAME) and env.get(KEY_NAME) != target.api_key:
        notes.append(f"${KEY_NAME} exported in this shell wins over ~/.qwen/.env: unset it")
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["qwen", *args],
        env={"QWEN_HOME": TempPath("qwen"), KEY_NAME: target.api_key},
        unset=("QWEN_MODEL",),  # it would pick another model than model.name
        copies={"qwen": qwen_dir(env)},
        render={"settings": "qwen/settings.json", "env": "qwen/.env"},
    )


# -- reading ----------------------------------------------------------------------------------


def settings_layers(settings: Document, env: Env) -> list[tuple[str, dict[str, Any]]]:
    """user < project < system (system settings override), as (label, data)."""
    found = [(display(qwen_dir(env) / "settings.json", env), settings.data() or {})]
    project = env.cwd / ".qwen" / "settings.json"
    system = Path(
        env.get("QWEN_CODE_SYSTEM_SETTINGS_PATH")
        or SYSTEM_SETTINGS.get(env.platform, SYSTEM_SETTINGS["linux"])
    )
    for path in (project, system):
        if path == qwen_dir(env) / "settings.json":
            continue
        doc = load_other(path, "jsonc", env)
        if doc is not None and isinstance(doc.data(), dict):
            found.append((display(path, env), doc.data()))
    return found


def project_env(env: Env) -> Path | None:
    """The one project .env Qwen Code loads: ``.qwen/.env`` or ``.env``, nearest folder first."""
    folder = env.cwd
    while folder != env.home:
        for candidate in (folder / ".qwen" / ".env", folder / ".env"):
            if candidate.is_file():
                return candidate
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def env_files(env: Env, dotenv: Document) -> list[tuple[str, dict[str, Any]]]:
    """The .env files Qwen Code loads, in order (the first to define a name wins)."""
    found: list[tuple[str, dict[str, Any]]] = []
    project = project_env(env)
    doc = load_other(project, "dotenv-npm", env) if project else None
    if project and doc is not None:
        found.append((display(project, env), doc.data() or {}))
    found.append((display(qwen_dir(env) / ".env", env), dotenv.data() or {}))
    extra = [env.home / ".env"]
    if qwen_dir(env) != env.home / ".qwen":  # QWEN_HOME set: the old ~/.qwen/.env still loads
        extra.insert(0, env.home / ".qwen" / ".env")
    for path in extra:
        doc = load_other(path, "dotenv-npm", env)
        if doc is not None:
            found.append((display(path, env), doc.data() or {}))
    return found


_AUTH_TYPES = frozenset(("openai", "openai-responses", "qwen-oauth", "gemini", "vertex-ai", "anthropic"))


def _entries_for(merged: dict[str, Any], selected: str) -> list[dict[str, Any]]:
    """The ``modelProviders`` entries Qwen Code looks through for the auth type ``selected``, in
    its order (0.24.4 ``collectProviderModelsForProtocol``): under every key whose protocol
    (``providerProtocol``'s word for it, else the key) is ``selected``; an entry's ``wireApi``
    picks the OpenAI protocol (chat or responses) itself."""
    protocols = as_dict(merged.get("providerProtocol"))
    found = []
    for key, entries in as_dict(merged.get("modelProviders")).items():
        protocol = protocols.get(key, key)
        if protocol not in _AUTH_TYPES or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            wire = entry.get("wireApi")
            if wire is not None:
                if wire not in ("chat-completions", "responses") or protocol not in (
                    "openai",
                    "openai-responses",
                ):
                    continue  # Qwen Code skips such an entry (and refuses it at start)
                protocol_here = "openai-responses" if wire == "responses" else "openai"
            else:
                protocol_here = protocol
            if protocol_here == selected:
                found.append(entry)
    return found


def read(docs: dict[str, Document], env: Env) -> Reading:
    settings, dotenv = docs["settings"], docs["env"]
    reading = Reading(wire=WIRE)
    f = reading.findings
    layers = settings_layers(settings, env)
    merged: dict[str, Any] = {}
    for _, data in layers:
        merged = merge_deep(merged, data)
    dotenvs = env_files(env, dotenv)
    settings_env = as_dict(merged.get("env"))

    def lookup(name: str) -> tuple[str | None, str]:
        if env.get(name):
            return env.get(name), f"shell ${name}"
        for label, values in dotenvs:
            if values.get(name):
                return values[name], f"{label} {name}"
        if isinstance(settings_env.get(name), str) and settings_env[name]:
            return settings_env[name], f"settings.json env.{name}"
        return None, ""

    auth = as_dict(as_dict(merged.get("security")).get("auth"))
    selected = auth.get("selectedType")
    reading.provider = selected or "(auth type not chosen)"
    model = as_dict(merged.get("model"))
    chosen, persisted = model.get("name"), model.get("baseUrl")
    entries = _entries_for(merged, selected) if isinstance(selected, str) else []
    matches = [e for e in entries if e.get("id") == chosen] if chosen else []
    if persisted and matches:  # Qwen Code's exact match: the id at the saved address
        matches = [e for e in matches if e.get("baseUrl") == persisted] or matches
    if matches:
        entry = matches[0]
        reading.model = entry.get("id")
        reading.base_url = entry.get("baseUrl") or lookup("OPENAI_BASE_URL")[0] or auth.get("baseUrl")
        if entry.get("envKey"):
            reading.api_key, reading.key_origin = lookup(str(entry["envKey"]))
            if not reading.api_key:
                reading.key_origin = f"${entry['envKey']} (not set anywhere Qwen Code looks)"
                f.append(
                    Finding(
                        "error",
                        "key",
                        f"the model entry reads its key from ${entry['envKey']}, which is not set.",
                        "gwconf apply qwen-code",
                    )
                )
        reading.provider_is_gwconf = selected == AUTH_TYPE and entry.get("envKey") == KEY_NAME
        if len(matches) > 1:
            f.append(
                Finding(
                    "warning",
                    "provider",
                    f'modelProviders has {len(matches)} {selected} entries with id "{chosen}"'
                    + (f" at {persisted}" if persisted and matches[0].get("baseUrl") == persisted else "")
                    + ": Qwen Code uses the first one.",
                    "remove the duplicates",
                )
            )
    else:
        # model.name first: the variables count only without it (resolveCliGenerationConfig)
        reading.model = chosen or lookup("OPENAI_MODEL")[0] or lookup("QWEN_MODEL")[0]
        reading.base_url = lookup("OPENAI_BASE_URL")[0] or auth.get("baseUrl") or urls.OFFICIAL_OPENAI_BASE
        reading.api_key, reading.key_origin = lookup("OPENAI_API_KEY")
        if not reading.api_key and auth.get("apiKey"):
            reading.api_key, reading.key_origin = auth["apiKey"], "settings.json security.auth.apiKey"
        if selected == AUTH_TYPE:
            f.append(
                Finding(
                    "warning",
                    "provider",
                    f'model.name "{chosen}" has no modelProviders.openai entry: Qwen Code falls back to '
                    "OPENAI_* variables and security.auth.",
                    "gwconf apply qwen-code",
                )
            )
    if selected != AUTH_TYPE:
        f.append(
            Finding(
                "error",
                "provider",
                f"security.auth.selectedType is {selected!r}"
                + (" (Qwen's own login; its free tier has ended)" if selected == "qwen-oauth" else "")
                + f', not "{AUTH_TYPE}".',
                "gwconf apply qwen-code",
            )
        )
    for label, data in layers[1:]:
        touched = [p for p in ("security", "model", "modelProviders") if p in data]
        if touched:
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{label} sets {', '.join(touched)}, which wins over ~/.qwen/settings.json.",
                )
            )
    ours = display(qwen_dir(env) / ".env", env)
    if dotenvs[0][0] != ours:
        label, values = dotenvs[0]
        names = [n for n in (KEY_NAME, "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL") if n in values]
        if names:
            f.append(
                Finding(
                    "warning", "override", f"{label} defines {', '.join(names)} and is read before {ours}."
                )
            )
    if (
        env.get(KEY_NAME)
        and dotenv.get((KEY_NAME,), None)
        and env.get(KEY_NAME) != dotenv.get((KEY_NAME,), None)
    ):
        f.append(
            Finding(
                "warning",
                "override",
                f"${KEY_NAME} is exported in this shell and wins over ~/.qwen/.env (they differ).",
                f"unset {KEY_NAME}",
            )
        )
    return reading
