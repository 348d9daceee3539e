"""Hermes Agent (PyPI ``hermes-agent``, Nous Research): ``~/.hermes/config.yaml``.

Docs: https://hermes-agent.nousresearch.com/docs/user-guide/configuration ; checked against
hermes-agent 0.19.0 (run against a test gateway, and ``hermes_constants.py``,
``hermes_cli/main.py``, ``hermes_cli/runtime_provider.py`` in the 0.19.0 wheel). Folder:
``HERMES_HOME``, else ``~/.hermes`` (Windows: ``%LOCALAPPDATA%\\hermes``, not ``%USERPROFILE%``
as the reference had it). A sticky profile (``active_profile`` naming anything but ``default``)
makes hermes read ``profiles/<name>/config.yaml`` instead: doctor says so. An administrator's
folder (``$HERMES_MANAGED_DIR``, else ``/etc/hermes``) wins over both: ``read`` follows it.

Managed keys, in the ``model`` mapping: ``default`` (the model), ``provider: custom``,
``base_url``, ``api_key`` (a plain string ``model:`` is turned into that mapping). Hermes's own
precedence, which ``read`` follows: ``--provider``/``--model`` flags, then ``model.provider`` in
config.yaml (over ``$HERMES_INFERENCE_PROVIDER``); for a ``custom`` provider the address is
``$CUSTOM_BASE_URL`` (``~/.hermes/.env``, which hermes loads over the shell's value, or the
shell) before ``model.base_url``, and the key is
``model.api_key`` (``OPENAI_API_KEY`` is never sent to an unrelated host). ``gwconf run hermes``
points ``HERMES_HOME`` at a temporary copy of the folder with config.yaml edited and ``.env`` (which
hermes loads over the launch's variables) a private copy without ``CUSTOM_BASE_URL``, ``HERMES_HOME``
and the provider and model variables.
The model's limits, when known (limits.py), go to the same mapping as ``context_length`` and
``max_tokens`` (0.19.0 ``agent/agent_init.py``: explicit overrides of the auto-detected window and
of the provider's default output); unknown, they are taken out.
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
    load_other,
    local_appdata,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "hermes"
NAME = "Hermes Agent"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("hermes",)
DOCS = "https://hermes-agent.nousresearch.com/docs/user-guide/configuration"
RESTART = (
    "Hermes reads config.yaml when it starts: quit a running `hermes` (and restart `hermes gateway` if you "
    "run it) to use the new model. CUSTOM_BASE_URL in your shell or ~/.hermes/.env still wins over base_url."
)
RESTAMPED: tuple[str, ...] = ()

OPENROUTER = "https://openrouter.ai/api/v1"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    moved = env.get("HERMES_HOME")
    if moved:
        return env.as_given(moved.strip())  # hermes expands no ~
    if env.platform == "win32":
        return local_appdata(env) / "hermes"
    return env.home / ".hermes"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", folder(env) / "config.yaml", "yaml", secret=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    model = require_model(target, NAME, "model.default")
    values = {"default": model, "provider": "custom", "base_url": target.base_url, "api_key": target.api_key}
    current = config.get(("model",), None)
    notes = []
    if current is not None and not isinstance(current, dict):
        config.set(("model",), values)  # the legacy `model: <name>` string
        notes.append(f"model: {current!r} became a mapping (default, provider, base_url, api_key)")
    else:
        for key, value in values.items():
            config.set(("model", key), value)
    # the model's limits; unknown: taken out, so hermes detects them itself
    write_limits(
        config,
        ("model",),
        [
            (("context_length",), target.limits.context_window),
            (("max_tokens",), target.limits.max_output_tokens),
        ],
    )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["hermes", *args],
        env={"HERMES_HOME": TempPath("hermes")},
        unset=("CUSTOM_BASE_URL", "HERMES_INFERENCE_PROVIDER", "HERMES_INFERENCE_MODEL"),
        copies={"hermes": folder(env)},
        render={"config": "hermes/config.yaml"},
        dotenv_over=("hermes/.env",),  # loaded over the shell: its CUSTOM_BASE_URL would win
    )


def managed_dir(env: Env) -> Path | None:
    """The administrator's folder (0.19.0 ``managed_scope.get_managed_dir``): ``$HERMES_MANAGED_DIR``
    when set and a folder, else ``/etc/hermes`` when it is one (POSIX only); None without one.
    Its config.yaml's leaves win over the user's, its .env over every other value."""
    moved = (env.get("HERMES_MANAGED_DIR") or "").strip()
    path = Path(moved) if moved else None if env.platform == "win32" else Path("/etc/hermes")
    return path if path is not None and path.is_dir() else None


def _managed_model(env: Env) -> tuple[Any, str]:
    """The administrator's config.yaml ``model`` (None without one) and where. ``load_config``
    merges it over the user's leaf by leaf (``_deep_merge``) when it is a mapping; a bare name
    replaces the user's whole mapping, provider, address and key with it (checked with 0.19.0:
    "Hermes isn't configured yet")."""
    managed = managed_dir(env)
    if managed is None:
        return None, ""
    doc = load_other(managed / "config.yaml", "yaml", env)
    data = doc.data() if doc is not None else None
    return (data.get("model") if isinstance(data, dict) else None), shown(managed / "config.yaml", env)


def _dotenv_value(env: Env, name: str) -> tuple[str | None, str]:
    """A variable as hermes sees it: the administrator's .env (loaded last, over everything), then
    ~/.hermes/.env, which it loads over the shell's values (0.19.0 ``load_hermes_dotenv``:
    "overrides stale shell-exported values"), else the shell."""
    managed = managed_dir(env)
    if managed is not None:
        doc = load_other(managed / ".env", "dotenv", env)
        value = doc.get((name,), None) if doc is not None else None
        if value:
            return str(value), f"{shown(managed / '.env', env)} {name}"
    path = folder(env) / ".env"
    doc = load_other(path, "dotenv", env)
    value = doc.get((name,), None) if doc is not None else None
    if value:
        return str(value), f"{shown(path, env)} {name}"
    if env.get(name):
        return env.get(name), f"${name}"
    return None, f"{shown(path, env)} {name}"


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    active = folder(env) / "active_profile"
    # hermes follows active_profile unless HERMES_HOME is itself a profile's folder (its parent is
    # named "profiles": 0.19.0 ``_apply_profile_override``), a set HERMES_HOME root included
    home_is_a_profile = bool(env.get("HERMES_HOME")) and folder(env).parent.name == "profiles"
    if not home_is_a_profile and active.is_file():
        from gwconf.fileio import read_plain

        try:
            name = read_plain(active, 4096).decode("utf-8", errors="replace").strip()
        except OSError:
            name = ""
        if name and name != "default":
            f.append(
                Finding(
                    "error",
                    "override",
                    f"{shown(active, env)} makes profile {name!r} sticky: hermes reads "
                    f"{shown(folder(env) / 'profiles' / name / 'config.yaml', env)}, not {where}.",
                    f"hermes profile use default  (or HERMES_HOME={shown(folder(env) / 'profiles' / name, env)} "
                    f"gwconf apply {ID})",
                )
            )
    model: Any = config.get(("model",), None)
    settings: dict[str, Any] = model if isinstance(model, dict) else {"default": model}
    pinned, managed_where = _managed_model(env)
    if isinstance(pinned, dict):
        overruled = sorted(k for k, v in pinned.items() if v is not None and settings.get(k) != v)
        settings = {**settings, **{k: v for k, v in pinned.items() if v is not None}}
        what = "model." + ", model.".join(overruled)
    elif pinned is not None:  # a bare name: the user's mapping is gone
        overruled, settings = ["model"], {"default": pinned}
        what = f"model to the bare name {pinned!r}, which replaces {where}'s whole model mapping"
    else:
        overruled = []
    if overruled:
        f.append(
            Finding(
                "error",
                "override",
                f"{managed_where} (managed by an administrator) pins {what}: it wins over {where}.",
                f"ask the administrator of {managed_where} to change it: users cannot",
                administrator=True,
            )
        )
    provider = str(settings.get("provider") or "").strip().lower() or None
    if provider is None and env.get("HERMES_INFERENCE_PROVIDER"):
        provider = (env.get("HERMES_INFERENCE_PROVIDER") or "").lower()
    reading.provider = provider or "auto"
    reading.model = settings.get("default") if isinstance(settings.get("default"), str) else None
    if provider != "custom":
        reading.base_url = OPENROUTER if provider in (None, "auto", "openrouter") else None
        reading.api_key, reading.key_origin = _dotenv_value(env, "OPENROUTER_API_KEY")
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} model.provider is {provider or 'not set'}: hermes uses "
                + ("OpenRouter" if reading.base_url else f"its {provider!r} provider")
                + ", not a custom endpoint.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    reading.provider_is_gwconf = True
    custom, custom_from = _dotenv_value(env, "CUSTOM_BASE_URL")
    base = settings.get("base_url") if isinstance(settings.get("base_url"), str) else None
    if custom:
        reading.base_url = custom
        if custom.rstrip("/") != (base or "").rstrip("/"):
            f.append(
                Finding(
                    "error",
                    "base",
                    f"CUSTOM_BASE_URL ({custom_from}) wins over {where} model.base_url.",
                    f"remove CUSTOM_BASE_URL from {custom_from.split()[0]}"
                    if not custom_from.startswith("$")
                    else "unset CUSTOM_BASE_URL",
                )
            )
    else:
        reading.base_url = base
    key = settings.get("api_key")
    reading.api_key = str(key) if key else None
    reading.key_origin = f"{where} model.api_key"
    return reading
