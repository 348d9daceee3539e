"""Open Interpreter: its default profile ``profiles/default.yaml`` in
``platformdirs.user_config_dir("open-interpreter")``.

Docs: https://docs.openinterpreter.com/settings/profiles ; checked against open-interpreter 0.4.3,
the last release (run against a test gateway, and
``interpreter/terminal_interface/utils/oi_dir.py``, ``profiles/profiles.py``). Folder: Linux
``$XDG_CONFIG_HOME/open-interpreter`` (``~/.config``), macOS ``~/Library/Application
Support/open-interpreter``, Windows ``%LOCALAPPDATA%\\open-interpreter\\open-interpreter``
(platformdirs with appauthor = appname). Managed keys: ``llm.model`` (``openai/<model>``: litellm's
OpenAI-compatible route), ``llm.api_base``, ``llm.api_key``; ``version: 0.2.5`` only when the key
is missing (without it Open Interpreter stops at an interactive migration prompt).
The model's limits, when known (limits.py), go to ``llm.context_window`` and ``llm.max_tokens``
(``profiles.py`` maps them like ``--context_window`` / ``--max_tokens``; ``core/llm/llm.py`` trims
the conversation to the window less the output); unknown, they are taken out.
``gwconf run open-interpreter`` passes ``--profile FILE``: a temporary copy of the default profile
as ``render()`` edits it (Open Interpreter takes a path there as it is).
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
    get_str,
    litellm_openai_base,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    platformdirs_config,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env

ID = "open-interpreter"
NAME = "Open Interpreter"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("interpreter",)
DOCS = "https://docs.openinterpreter.com/settings/profiles"
RESTART = (
    "Open Interpreter reads its default profile when `interpreter` starts: start a new session (a running "
    "one keeps the old model); `--profile`, `--model`, `--api_base` flags still win."
)
RESTAMPED: tuple[str, ...] = ()

PREFIX = "openai/"
PROFILE_VERSION = "0.2.5"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    return platformdirs_config(env, "open-interpreter")


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("profile", config_dir(env) / "profiles" / "default.yaml", "yaml", secret=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    profile = docs["profile"]
    if not target.model:
        raise ClientError(
            "Open Interpreter needs a model name for llm.model.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    model = target.model if target.model.startswith(PREFIX) else PREFIX + target.model
    profile.set(("llm", "model"), model)
    profile.set(("llm", "api_base"), target.base_url)
    profile.set(("llm", "api_key"), target.api_key)
    write_limits(  # the model's limits; unknown: taken out, Open Interpreter's own handling
        profile,
        ("llm",),
        [
            (("context_window",), target.limits.context_window),
            (("max_tokens",), target.limits.max_output_tokens),
        ],
    )
    if profile.get(("version",), None) is None:
        profile.set(("version",), PROFILE_VERSION)
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["interpreter", "--profile", TempPath("default.yaml"), *args],
        render={"profile": "default.yaml"},
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    profile = docs["profile"]
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    base = get_str(profile, ("llm", "api_base"))
    # litellm's order for the openai/ route when api_base is not passed
    reading.base_url = base or litellm_openai_base(env) or urls.OFFICIAL_OPENAI_BASE
    key = get_str(profile, ("llm", "api_key"))
    reading.api_key = key or env.get("OPENAI_API_KEY")
    reading.key_origin = f"{where} llm.api_key" if key else "$OPENAI_API_KEY"
    model = get_str(profile, ("llm", "model"))
    if model and model.startswith(PREFIX):
        reading.model = model[len(PREFIX) :]
        reading.provider = "openai-compatible (litellm openai/ route)"
        reading.provider_is_gwconf = bool(base)
    else:
        reading.model = model
        reading.provider = f"litellm's own routing for {model!r}"
        f.append(
            Finding(
                "error",
                "provider",
                f"llm.model {model!r} has no openai/ prefix: litellm may send it to its vendor, not api_base."
                if model
                else f"{where} sets no llm.model (Open Interpreter then uses an OpenAI model).",
                "gwconf apply open-interpreter",
            )
        )
    if not base:
        f.append(Finding("error", "base", f"{where} has no llm.api_base.", "gwconf apply open-interpreter"))
    version = profile.get(("version",), None)
    if str(version) != PROFILE_VERSION:
        f.append(
            Finding(
                "warning",
                "other",
                f"{where} has version {version!r}, not {PROFILE_VERSION}: Open Interpreter stops to ask about "
                "migrating the profile (it blocks non-interactive runs).",
                "run `interpreter` once interactively and answer the prompt",
            )
        )
    return reading
