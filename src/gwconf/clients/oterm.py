"""oterm: ``config.json`` in its data folder, ``openaiCompatible`` endpoints (a full-screen chat app).

Docs: https://ggozad.github.io/oterm/app_config/ ; checked against oterm 0.26.1
(run against a test gateway, and ``src/oterm/config.py``, ``utils.py``
``get_default_data_dir``, ``providers/__init__.py`` at ggozad/oterm e090ffe). Folder: Linux
``$XDG_DATA_HOME/oterm`` (``~/.local/share``), macOS ``$XDG_DATA_HOME/oterm`` else
``~/Library/Application Support/oterm``, Windows ``~/AppData/Roaming/oterm`` (the home folder,
not ``%APPDATA%``); ``OTERM_DATA_DIR`` moves it. oterm merges the file over its defaults and writes
it back whole (compact JSON) whenever a setting changes in the app.

oterm calls python-dotenv's ``load_dotenv()`` at start (``config.py``): ``find_dotenv`` walks up
from the folder of oterm's own code and loads the first ``.env`` (the shell's variables win).
For a uv, pipx or ``pip --user`` install that walk passes the home folder, so ``~/.env`` can set
``OTERM_DATA_DIR`` (where config.json is) and the variable a ``${VAR}`` key names. gwconf takes
the same ``.env``, found from the ``oterm`` program on PATH (``install_dotenv``).

Managed keys: ``openaiCompatible.gwconf`` (``base_url``, ``api_key``); oterm lists it as provider
``gwconf`` in its new-chat dialog (``openai-compat/gwconf`` inside; seen in 0.26.1 run through tmux) and asks the gateway for its models (``GET /v1/models``). **The model
cannot be preset:** each chat's provider and model are picked in the new-chat dialog (Ctrl+N), so
``read`` reports no model and the reminder says so. ``gwconf run`` cannot start it with a profile.
"""

from __future__ import annotations

import os
from pathlib import Path

from gwconf import records
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    dotenv_values,
    no_doctor,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.formats import Document
from gwconf.lazyre import lazy
from gwconf.paths import Env

ID = "oterm"
NAME = "oterm"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("oterm",)
DOCS = "https://ggozad.github.io/oterm/app_config/"
RESTART = (
    "oterm reads config.json when it starts: quit oterm and start it again. It cannot preset a model: press "
    "Ctrl+N, pick the provider gwconf and the model in the new-chat dialog (existing chats keep "
    "theirs). Quit oterm before applying: it writes config.json back whole when a setting changes."
)
RESTAMPED: tuple[str, ...] = ()

ENTRY = "gwconf"
# api_key: "${VARIABLE}" or "${VARIABLE:-default}" (0.26.1 ``utils.expand_env_vars``)
_ENV_REFERENCE = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")
# the second line of pip's ``#!/bin/sh`` script: ``'''exec' "/path/bin/python" "$0" "$@"``
_TRAMPOLINE = lazy(r"""'''exec' (?:"([^"]+)"|(\S+))""")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def install_dotenv(env: Env) -> Path | None:
    """The ``.env`` oterm's ``load_dotenv()`` would load: the first in its package's folder or
    above. The package is found from the ``oterm`` program on PATH (links followed), through its
    ``#!`` interpreter (or the one pip's ``#!/bin/sh`` trampoline execs) in a virtual
    environment's ``bin``: ``lib/python*/site-packages/oterm``
    beside it, else the environment's own folder. None off POSIX, without the program, for a
    program found through a relative PATH entry (a repository the user cloned must not choose
    the folder gwconf writes the key to), or without a ``.env`` on the way up."""
    program = env.which("oterm") if env.platform != "win32" else None
    if program is None or not os.path.isabs(program):
        return None  # found through "." or an empty PATH entry: the current folder, maybe a clone's
    try:
        with open(os.path.realpath(program), "rb") as script:
            first, second = script.readline(4096), script.readline(4096)
    except OSError:
        return None
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    if words and os.path.basename(words[0]) == "sh":  # pip's trampoline for a long or spaced path
        trampoline = _TRAMPOLINE.match(second.decode("utf-8", "replace"))
        words = [trampoline.group(1) or trampoline.group(2)] if trampoline else []
    if not words or not words[0].startswith("/") or os.path.basename(words[0]) == "env":
        return None  # an interpreter found through PATH: no environment to start from
    root = Path(words[0]).parent.parent  # .../bin/python: the environment (links not followed)
    start = next(iter(sorted(root.glob("lib/python*/site-packages/oterm"))), root)
    for folder in (start, *start.parents):
        candidate = folder / ".env"
        if candidate.is_file():
            return candidate
    return None


def with_install_dotenv(env: Env) -> tuple[Env, Path | None]:
    """``env`` as oterm sees it after ``load_dotenv()``: the ``.env``'s variables under the
    shell's (``override=False``), and that file."""
    path = install_dotenv(env)
    loaded = dotenv_values(path, env) if path is not None else {}
    return (records.replace(env, environ={**loaded, **env.environ}) if loaded else env), path


def data_dir(env: Env) -> Path:
    return _data_dir(with_install_dotenv(env)[0])


def _data_dir(env: Env) -> Path:
    """``data_dir`` in ``env`` as oterm sees it (its ``.env`` loaded)."""
    moved = env.get("OTERM_DATA_DIR")
    if moved:
        return env.as_given(moved)  # no ~ expanded
    if env.platform == "win32":
        return env.home / "AppData" / "Roaming" / "oterm"
    xdg = env.get("XDG_DATA_HOME")
    if env.platform == "darwin":
        return Path(xdg) / "oterm" if xdg else env.home / "Library" / "Application Support" / "oterm"
    return env.xdg_data_home / "oterm"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", data_dir(env) / "config.json", "json", secret=True, strict=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    config.set(("openaiCompatible", ENTRY, "base_url"), target.base_url)
    config.set(("openaiCompatible", ENTRY, "api_key"), target.api_key)
    notes = ["oterm cannot preset a model: pick the provider gwconf and the model with Ctrl+N"]
    return notes


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    loaded, dotenv = with_install_dotenv(env)  # (once: the folder and a ${VAR} key both need it)
    where = shown(_data_dir(loaded) / "config.json", env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    entries = config.get(("openaiCompatible",), None)
    entry = entries.get(ENTRY) if isinstance(entries, dict) else None
    if not isinstance(entry, dict) or not entry.get("base_url"):
        others = (
            sorted(k for k, v in entries.items() if isinstance(v, dict)) if isinstance(entries, dict) else []
        )
        reading.provider = f"openai-compat/{others[0]}" if others else "ollama (oterm's default)"
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} has no openaiCompatible.{ENTRY} endpoint: oterm offers only "
                + (", ".join(f"openai-compat/{o}" for o in others) if others else "Ollama and vendor keys")
                + ".",
                f"gwconf apply {ID}",
            )
        )
        return reading
    reading.provider = f"openai-compat/{ENTRY}"
    reading.provider_is_gwconf = True
    reading.base_url = str(entry["base_url"])
    raw_key = entry.get("api_key")
    key, variable = raw_key if isinstance(raw_key, str) else None, None
    match = _ENV_REFERENCE.fullmatch(key.strip()) if key else None
    origin = f"{where} openaiCompatible.{ENTRY}.api_key"
    if match:  # oterm: the variable when it is set at all (even empty), else the default
        variable = match.group(1)
        key = loaded.environ[variable] if variable in loaded.environ else match.group(3)
        origin = f"${variable} (named in {where})"
        if variable not in env.environ and variable in loaded.environ and dotenv is not None:
            origin = f"{shown(dotenv, env)} {variable} (named in {where}; oterm loads that .env)"
    reading.api_key = key
    reading.key_origin = origin
    reading.model = None  # picked per chat in the app
    f.append(
        Finding(
            "info",
            "other",
            "oterm has no default-model setting: each chat's model is picked in the new-chat dialog (Ctrl+N).",
        )
    )
    return reading
