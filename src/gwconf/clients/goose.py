"""goose (Block): ``config.yaml`` + a declarative custom provider ``custom_providers/custom_gwconf.json``
+ ``secrets.yaml`` in goose's config folder.

Docs: https://block.github.io/goose/docs/guides/config-file and
https://block.github.io/goose/docs/getting-started/providers#configure-provider ; checked against the
goose source (``crates/goose/src/config/{paths.rs,base/mod.rs,base/secrets.rs,declarative_providers.rs}``,
read November 2026; no release was run). Config
folder: ``$GOOSE_PATH_ROOT/config`` (absolute paths only), else etcetera's XDG strategy on Linux
and macOS (``$XDG_CONFIG_HOME/goose``, ``~/.config/goose``) and ``%APPDATA%\\Block\\goose\\config``
on Windows. gwconf writes the provider goose's own "add custom provider" would write for the
name ``gwconf`` (id ``custom_gwconf``, ``engine: openai``, base address with ``/v1``; goose splits
it into host + ``v1/chat/completions``), selects it with ``GOOSE_PROVIDER`` / ``GOOSE_MODEL`` and, in a
file goose has migrated, ``active_provider`` and ``providers.custom_gwconf.model`` (goose since
May 2026, ``config/providers.rs``: they come first where they exist), and
stores the key under ``CUSTOM_GWCONF_API_KEY`` in ``secrets.yaml`` (0600). goose never reads keys
from config.yaml: a secret comes from the environment, else the OS keyring, else ``secrets.yaml``
(when the keyring is disabled, unavailable, or holds no goose entry).

``gwconf run goose`` needs no file: environment variables override every config key and come
first for secrets, so the built-in ``openai`` provider gets ``OPENAI_HOST`` (scheme and host) and an
``OPENAI_BASE_PATH`` starting with ``/`` (goose then treats it as custom and stays on Chat
Completions for every model name; ``build_url`` joins it onto the host as an absolute path).
The model entry gwconf adds demands ``context_limit``: the known window (limits.py), else gwconf's
stated default 128000, named in apply's output.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import formats, urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    absolute_xdg_config,
    as_list,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.errors import ClientError, GwconfError
from gwconf.formats import Document
from gwconf.limits import known_limits, window_or_default
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "goose"
NAME = "goose"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("goose",)
DOCS = "https://block.github.io/goose/docs/guides/config-file"
RESTART = (
    "Start a new goose session (`goose session` / `goose run`); a running session and goose Desktop keep "
    "the provider they started with: quit goose Desktop fully and reopen it."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "custom_gwconf"
KEY_VAR = "CUSTOM_GWCONF_API_KEY"
OFFICIAL_HOST = urls.root(urls.OFFICIAL_OPENAI_BASE)
DEFAULT_BASE_PATH = "v1/chat/completions"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    root = env.get("GOOSE_PATH_ROOT")
    if root and Path(root).is_absolute():
        return Path(root) / "config"
    if env.platform == "win32":
        return env.appdata / "Block" / "goose" / "config"
    return (absolute_xdg_config(env) or env.home / ".config") / "goose"


def files(env: Env) -> list[ConfigFile]:
    folder = config_dir(env)
    return [
        ConfigFile("config", folder / "config.yaml", "yaml"),
        ConfigFile("provider", folder / "custom_providers" / f"{PROVIDER_ID}.json", "json", strict=True),
        ConfigFile("secrets", folder / "secrets.yaml", "yaml", secret=True),
    ]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config, provider, secrets = docs["config"], docs["provider"], docs["secrets"]
    if not target.model:
        raise ClientError(
            "goose needs a model name for GOOSE_MODEL.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    for key, value in (
        ("name", PROVIDER_ID),
        ("engine", "openai"),
        ("display_name", "gwconf"),
        ("description", "Model gateway (written by gwconf)"),
        ("api_key_env", KEY_VAR),
        ("base_url", target.base_url),
    ):
        provider.set((key,), value)
    models = provider.get(("models",), None)
    notes: list[str] = []
    index = next(
        (i for i, m in enumerate(as_list(models)) if isinstance(m, dict) and m.get("name") == target.model),
        None,
    )
    if index is not None:  # `use`: the window this profile knows replaces the last one
        for limit, number in known_limits(target, "context_limit", None):
            provider.set(("models", index, limit), number)
    else:
        # goose's ModelInfo demands context_limit: the known window, else a stated default
        entry = {"name": target.model, "context_limit": window_or_default(target, NAME, notes)}
        if isinstance(models, list):
            provider.append(("models",), entry)
        else:
            provider.set(("models",), [entry])
    if provider.get(("supports_streaming",), None) is None:
        provider.set(("supports_streaming",), True)
    # goose since May 2026 (config/providers.rs): active_provider, then GOOSE_PROVIDER; the active
    # provider's providers.<id>.model, then GOOSE_MODEL. A file goose has migrated holds the new
    # keys (its next write drops the old two): there they are set; elsewhere the old two still
    # decide, and the file is left without keys it did not have
    chosen: dict[str, Any] = {"enabled": True, "model": target.model, "configured": True}
    current = config.get(("providers", PROVIDER_ID), None)
    if config.get(("active_provider",), None) is not None:
        config.set(("active_provider",), PROVIDER_ID)
        if not isinstance(current, dict):
            config.set(("providers", PROVIDER_ID), chosen)  # one splice for the whole entry
    if isinstance(current, dict):  # a model there wins over GOOSE_MODEL: only what differs
        for field, setting in chosen.items():
            if current.get(field) != setting:
                config.set(("providers", PROVIDER_ID, field), setting)
    config.set(("GOOSE_PROVIDER",), PROVIDER_ID)
    config.set(("GOOSE_MODEL",), target.model)
    secrets.set((KEY_VAR,), target.api_key)
    if not _keyring_disabled(config, env):
        notes.append(
            f"goose reads secrets.yaml only while its OS keyring holds no goose entry; if it reports "
            f"'Missing API key: {KEY_VAR}', your keys live in the keyring: run `goose configure` to store "
            f"{KEY_VAR} there, or set GOOSE_DISABLE_KEYRING: true in config.yaml"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    from urllib.parse import urlsplit

    model = require_model(target, NAME, "GOOSE_MODEL")
    parts = urlsplit(target.base_url)
    return LaunchSpec(
        argv=["goose", *args],
        env={
            "GOOSE_PROVIDER": "openai",
            "GOOSE_MODEL": model,
            "OPENAI_HOST": f"{parts.scheme}://{parts.netloc}",
            "OPENAI_BASE_PATH": "/" + f"{parts.path.strip('/')}/chat/completions".lstrip("/"),
            "OPENAI_API_KEY": target.api_key,
        },
    )


def _keyring_disabled(config: Document, env: Env) -> bool:
    if env.environ.get("GOOSE_DISABLE_KEYRING") is not None:
        return True
    value = config.get(("GOOSE_DISABLE_KEYRING",), None)
    return value is True or (isinstance(value, str) and value in ("true", "1"))


def _param(config: Document, env: Env, name: str) -> tuple[Any, str]:
    """goose's precedence for a config value: the same-named variable, then config.yaml."""
    if env.get(name):
        return env.get(name), f"${name}"
    return config.get((name,), None), f"config.yaml {name}"


def _active(config: Document, env: Env) -> tuple[Any, str]:
    """goose's provider (``get_active_provider``): $GOOSE_PROVIDER, then ``active_provider`` (or
    $ACTIVE_PROVIDER, which ``get_param`` reads first), then config.yaml's GOOSE_PROVIDER."""
    if env.get("GOOSE_PROVIDER"):
        return env.get("GOOSE_PROVIDER"), "$GOOSE_PROVIDER"
    if env.get("ACTIVE_PROVIDER"):
        return env.get("ACTIVE_PROVIDER"), "$ACTIVE_PROVIDER"
    if config.get(("active_provider",), None):
        return config.get(("active_provider",), None), "config.yaml active_provider"
    return config.get(("GOOSE_PROVIDER",), None), "config.yaml GOOSE_PROVIDER"


def _active_model(config: Document, env: Env, provider: Any) -> tuple[Any, str]:
    """goose's model (``get_active_model``): $GOOSE_MODEL, then ``providers.<provider>.model`` when
    not empty, then config.yaml's GOOSE_MODEL."""
    if env.get("GOOSE_MODEL"):
        return env.get("GOOSE_MODEL"), "$GOOSE_MODEL"
    entry = config.get(("providers", str(provider)), None) if provider else None
    if isinstance(entry, dict) and isinstance(entry.get("model"), str) and entry["model"]:
        return entry["model"], f"config.yaml providers.{provider}.model"
    return config.get(("GOOSE_MODEL",), None), "config.yaml GOOSE_MODEL"


def _peek(path: Path) -> Any:
    from gwconf.fileio import read_plain

    try:
        raw = read_plain(path)
        text, _ = formats.decode(raw, str(path))
        return formats.load("json", text, str(path)).data()
    except (OSError, GwconfError):
        return None


def read(docs: dict[str, Document], env: Env) -> Reading:
    config, provider_doc, secrets = docs["config"], docs["provider"], docs["secrets"]
    folder = config_dir(env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    name, name_origin = _active(config, env)
    model, model_origin = _active_model(config, env, name)
    reading.provider = str(name) if name else "(none)"
    reading.model = str(model) if model else None
    for value, origin in ((name, name_origin), (model, model_origin)):
        if (origin.startswith("$") and config.get((origin[1:],), None) not in (None, value)) or (
            origin == "$ACTIVE_PROVIDER" and config.get(("active_provider",), None) != value
        ):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{origin} is set in this shell and wins over config.yaml.",
                    f"unset {origin[1:]}",
                )
            )
    secret_store = secrets.data() if isinstance(secrets.data(), dict) else {}

    def secret(var: str) -> tuple[str | None, str]:
        if env.get(var):
            return env.get(var), f"${var}"
        value = secret_store.get(var)
        return (str(value), f"{shown(folder / 'secrets.yaml', env)} {var}") if value else (None, "")

    if name == "openai":
        host, _ = _param(config, env, "OPENAI_HOST")
        path, _ = _param(config, env, "OPENAI_BASE_PATH")
        host = str(host or OFFICIAL_HOST).rstrip("/")
        path = str(path or DEFAULT_BASE_PATH).strip("/")
        reading.base_url = f"{host}/{path.removesuffix('chat/completions').strip('/')}".rstrip("/")
        reading.api_key, reading.key_origin = secret("OPENAI_API_KEY")
        if "/" in host.split("://", 1)[-1]:
            f.append(
                Finding(
                    "error",
                    "base",
                    f"OPENAI_HOST {host!r} has a path: goose wants scheme and host only (the path goes in "
                    "OPENAI_BASE_PATH).",
                    "gwconf apply goose",
                )
            )
        key_var = "OPENAI_API_KEY"
    else:
        data = (
            provider_doc.data()
            if name == PROVIDER_ID
            else _peek(folder / "custom_providers" / f"{name}.json")
        )
        if not isinstance(data, dict) or not data:
            f.append(
                Finding(
                    "error",
                    "provider",
                    f"GOOSE_PROVIDER is {name!r}, not gwconf's custom provider."
                    if name
                    else "no GOOSE_PROVIDER.",
                    "gwconf apply goose",
                )
            )
            return reading
        reading.base_url = data.get("base_url")
        key_var = str(data.get("api_key_env") or "")
        reading.api_key, reading.key_origin = secret(key_var) if key_var else (None, "")
        reading.provider_is_gwconf = name == PROVIDER_ID
    if config.get((key_var,), None):
        f.append(
            Finding(
                "warning",
                "key",
                f"config.yaml holds {key_var}, but goose never reads secrets from config.yaml.",
                f"remove it from config.yaml (gwconf keeps the key in {shown(folder / 'secrets.yaml', env)})",
            )
        )
    if reading.key_origin.endswith(f"secrets.yaml {key_var}") and not _keyring_disabled(config, env):
        f.append(
            Finding(
                "info",
                "key",
                "goose uses secrets.yaml only while its OS keyring holds no goose entry (gwconf cannot see the keyring).",
                f"if goose says 'Missing API key: {key_var}': `goose configure`, or GOOSE_DISABLE_KEYRING: true",
            )
        )
    return reading
