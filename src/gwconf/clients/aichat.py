"""aichat: ``config.yaml`` (a ``clients`` entry named ``gwconf``) + ``.env`` (its key) in aichat's
config folder.

Docs: https://github.com/sigoden/aichat/wiki/Configuration-Guide ; checked against aichat 0.30.0
source (``src/config/mod.rs`` ``config_dir``,
``load_env_file``; ``src/client/macros.rs`` ``config_get_fn``). Folder: ``$AICHAT_CONFIG_DIR``, else
``$XDG_CONFIG_HOME/aichat``, else ``dirs::config_dir()/aichat`` (``~/.config``, ``~/Library/Application
Support``, ``%APPDATA%``); ``$AICHAT_CONFIG_FILE`` / ``$AICHAT_ENV_FILE`` move the two files. gwconf
owns ``model: gwconf:<model>`` and the ``clients`` entry named ``gwconf`` (``type:
openai-compatible``, ``api_base``, its ``models``). The key goes to ``.env`` as ``GWCONF_API_KEY``:
aichat loads that file at start over the environment, and ``<CLIENT>_API_KEY`` beats the entry's
``api_key``, so the key stays out of config.yaml (often kept in dotfiles) and a stray shell
variable cannot shadow it. aichat's .env reader trims ``NAME=value`` and keeps quotes literally.
The model's limits, when known (limits.py), go to gwconf's model item as ``max_input_tokens``
(the window) and ``max_output_tokens``; unknown, they are taken out.
``gwconf run aichat`` points ``AICHAT_CONFIG_DIR`` at a temporary stand-in for the folder (its
entries linked; config.yaml and .env as ``render()`` edits them, the .env without the
``AICHAT_MODEL``, ``AICHAT_CONFIG_DIR`` or other variable the launch sets or unsets).
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
    empty_folder_findings,
    find_table,
    get_str,
    no_doctor,
    no_import_link,
    no_project_scope_files,
    no_steps,
    refuse_empty_folder_variables,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "aichat"
NAME = "aichat"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("aichat",)
DOCS = "https://github.com/sigoden/aichat/wiki/Configuration-Guide"
RESTART = (
    "aichat reads config.yaml and .env when it starts: run it again; an open REPL or `aichat --serve` keeps "
    "the old client until restarted (or `.model gwconf:<model>` in the REPL)."
)
RESTAMPED: tuple[str, ...] = ()

CLIENT = "gwconf"
KEY_VAR = "GWCONF_API_KEY"  # <CLIENT>_API_KEY, upper-cased
BASE_VAR = "GWCONF_API_BASE"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    # env::var: a set variable as it is, empty, relative or with a ~ (nothing expanded)
    if "AICHAT_CONFIG_DIR" in env.environ:
        return env.as_given(env.environ["AICHAT_CONFIG_DIR"])
    if "XDG_CONFIG_HOME" in env.environ:
        return env.as_given(env.environ["XDG_CONFIG_HOME"]) / "aichat"
    return env.appdata / "aichat"


def _honoured_when_empty(env: Env) -> tuple[str, ...]:
    """The variables aichat takes even when empty (then: the folder it starts in, or no file)."""
    folder = "AICHAT_CONFIG_DIR" if "AICHAT_CONFIG_DIR" in env.environ else "XDG_CONFIG_HOME"
    return (folder, "AICHAT_CONFIG_FILE", "AICHAT_ENV_FILE")


def preflight(env: Env, force: bool) -> list[str]:
    return refuse_empty_folder_variables(env, _honoured_when_empty(env), NAME, force)


def files(env: Env) -> list[ConfigFile]:
    folder = config_dir(env)
    dotenv = Path(env.get("AICHAT_ENV_FILE") or folder / ".env")
    # aichat loads that .env into its environment first (main.rs: load_env_file before
    # Config::init), so an AICHAT_CONFIG_FILE or AICHAT_CONFIG_DIR line there moves config.yaml
    from gwconf import fileio

    # once per command: files() is asked for many times (gwconf writes no such line)
    moved = fileio.viewed(("aichat-moved", dotenv), lambda: _moved_by_dotenv(dotenv))
    if moved.get("AICHAT_CONFIG_FILE"):
        config = Path(moved["AICHAT_CONFIG_FILE"])
    elif env.get("AICHAT_CONFIG_FILE") and not moved.get("AICHAT_CONFIG_DIR"):
        config = Path(env.get("AICHAT_CONFIG_FILE") or "")
    else:
        config = Path(moved.get("AICHAT_CONFIG_DIR") or folder) / "config.yaml"
    return [
        ConfigFile("config", config, "yaml"),
        ConfigFile("env", dotenv, "dotenv", secret=True),
    ]


def _moved_by_dotenv(dotenv: Path) -> dict[str, str]:
    """The AICHAT_CONFIG_FILE and AICHAT_CONFIG_DIR the .env sets (aichat's own reading of it)."""
    from gwconf.fileio import read_plain

    try:
        text = read_plain(dotenv).decode("utf-8", errors="replace")
    except OSError:
        return {}
    if "AICHAT_CONFIG_" not in text:
        return {}
    values = aichat_env(text)
    return {name: values[name] for name in ("AICHAT_CONFIG_FILE", "AICHAT_CONFIG_DIR") if values.get(name)}


def aichat_env(text: str) -> dict[str, str]:
    """``.env`` as aichat reads it: trimmed ``NAME=value`` lines, ``#`` lines skipped, quotes kept."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def client_name(entry: dict[str, Any]) -> str:
    return str(entry.get("name") or entry.get("type") or "")


def find_client(config: Document, name: str) -> tuple[int | None, dict[str, Any] | None]:
    return find_table(config.get(("clients",), None), lambda entry: client_name(entry) == name)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config, dotenv = docs["config"], docs["env"]
    if not target.model:
        raise ClientError(
            "aichat needs a model name (model: gwconf:<model>).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    clients = config.get(("clients",), None)
    if clients is not None and not isinstance(clients, list):
        raise ClientError(
            f"{config.source}: `clients` is not a list, so aichat cannot read it either.",
            "Fix it by hand (a list of `- type: ...` entries), then run gwconf again.",
        )
    index, entry = find_client(config, CLIENT)
    if index is None or entry is None:
        new = {
            "type": "openai-compatible",
            "name": CLIENT,
            "api_base": target.base_url,
            "models": [{"name": target.model}],
        }
        if clients is None:
            config.set(("clients",), [new])
        else:
            config.append(("clients",), new)
    else:
        config.set(("clients", index, "type"), "openai-compatible")
        config.set(("clients", index, "api_base"), target.base_url)
        config.delete(("clients", index, "api_key"))  # the .env key wins anyway; no second copy
        models = entry.get("models")
        if not isinstance(models, list):
            config.set(("clients", index, "models"), [{"name": target.model}])
        elif not any(isinstance(m, dict) and m.get("name") == target.model for m in models):
            config.append(("clients", index, "models"), {"name": target.model})
    _render_limits(config, target)
    config.set(("model",), f"{CLIENT}:{target.model}")
    if dotenv.get((KEY_VAR,), None) is not None and aichat_env(dotenv.dump()).get(KEY_VAR) != dotenv.get(
        (KEY_VAR,), None
    ):
        dotenv.delete((KEY_VAR,))  # quoted or commented: aichat would read those characters too
    dotenv.set((KEY_VAR,), target.api_key)
    # aichat keeps quotes as part of the value (``load_env_file``: trimmed NAME=value): a key that
    # the editor quoted (one holding "=", "~", "%"...) goes in bare, where it reads the same
    dotenv.put_back((KEY_VAR,), target.api_key, target.api_key)
    if aichat_env(dotenv.dump()).get(KEY_VAR) != target.api_key:
        raise ClientError(
            f"{dotenv.source}: the key cannot be written so that aichat reads it back as it is (aichat "
            "keeps quotes and trims spaces).",
            f"Set {KEY_VAR} in the environment instead: it wins over the .env file.",
        )
    return []


def _render_limits(config: Document, target: Target) -> None:
    """The model's limits on gwconf's entry for the model (``ModelData`` in src/client/model.rs:
    ``max_input_tokens``, the window aichat checks a prompt against, as in its models.yaml, and
    ``max_output_tokens``); unknown, taken out, so aichat's own handling applies."""
    index, _ = find_client(config, CLIENT)
    models = config.get(("clients", index, "models"), None) if index is not None else None
    for position, model in enumerate(models if isinstance(models, list) else []):
        if isinstance(model, dict) and model.get("name") == target.model:
            write_limits(
                config,
                ("clients", index, "models", position),
                [
                    (("max_input_tokens",), target.limits.context_window),
                    (("max_output_tokens",), target.limits.max_output_tokens),
                ],
            )


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["aichat", *args],
        env={"AICHAT_CONFIG_DIR": TempPath("aichat"), KEY_VAR: target.api_key},
        unset=("AICHAT_CONFIG_FILE", "AICHAT_ENV_FILE", "AICHAT_MODEL", BASE_VAR),
        copies={"aichat": config_dir(env)},
        render={"config": "aichat/config.yaml", "env": "aichat/.env"},
        dotenv_over=("aichat/.env",),  # set into aichat's environment: its AICHAT_MODEL would win
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    config, dotenv = docs["config"], docs["env"]
    env_file = files(env)[1].path
    loaded = aichat_env(dotenv.dump())
    environ = {k: v for k, v in env.environ.items() if v}
    origin = {k: f"${k}" for k in environ}
    for name, value in loaded.items():  # env::set_var: the file wins over the shell
        environ[name], origin[name] = value, f"{shown(env_file, env)} {name}"
    reading = Reading(wire=WIRE)
    f = reading.findings
    f += empty_folder_findings(env, _honoured_when_empty(env), NAME)
    model = environ.get("AICHAT_MODEL") or get_str(config, ("model",))
    if environ.get("AICHAT_MODEL"):
        f.append(
            Finding(
                "warning",
                "override",
                f"AICHAT_MODEL ({origin['AICHAT_MODEL']}) wins over config.yaml's model.",
                "unset AICHAT_MODEL",
            )
        )
    if not model:
        reading.provider = "(no model)"
        f.append(Finding("error", "provider", "config.yaml sets no model.", "gwconf apply aichat"))
        return reading
    name, _, model_name = model.partition(":")
    reading.model = model_name or None
    reading.provider = f"client {name!r}"
    index, entry = find_client(config, name)
    if entry is None:
        f.append(
            Finding(
                "error",
                "provider",
                f"model {model!r} names client {name!r}, which config.yaml does not define.",
                "gwconf apply aichat",
            )
        )
        return reading
    prefix = name.upper()
    reading.provider_is_gwconf = name == CLIENT and entry.get("type") == "openai-compatible"
    default_base = urls.OFFICIAL_OPENAI_BASE if entry.get("type") == "openai" else None
    if environ.get(f"{prefix}_API_BASE"):
        reading.base_url = environ[f"{prefix}_API_BASE"]
        f.append(
            Finding(
                "warning",
                "override",
                f"{prefix}_API_BASE ({origin[f'{prefix}_API_BASE']}) wins over the client's api_base.",
                f"unset {prefix}_API_BASE",
            )
        )
    else:
        reading.base_url = entry.get("api_base") or default_base
    if environ.get(f"{prefix}_API_KEY"):
        reading.api_key = environ[f"{prefix}_API_KEY"]
        reading.key_origin = origin[f"{prefix}_API_KEY"]
    else:
        reading.api_key = entry.get("api_key")
        reading.key_origin = f"config.yaml clients[{index}].api_key"
    parsed = dotenv.get((KEY_VAR,), None)
    if KEY_VAR in loaded and parsed is not None and loaded[KEY_VAR] != parsed:
        f.append(
            Finding(
                "error",
                "key",
                f"{shown(env_file, env)}: {KEY_VAR} is quoted or carries a comment; aichat sends those characters.",
                "gwconf apply aichat  (rewrites the line plainly)",
            )
        )
    return reading
