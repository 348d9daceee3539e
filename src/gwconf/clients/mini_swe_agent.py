"""mini-swe-agent (``mini``): the ``.env`` in ``platformdirs.user_config_dir("mini-swe-agent")``.

Docs: https://mini-swe-agent.com/latest/advanced/global_configuration/ ; checked against
mini-swe-agent 2.4.6 (run against a test gateway, and ``minisweagent/__init__.py``,
``run/mini.py``, ``run/utilities/config.py``, ``models/litellm_model.py`` at 2.4.6). Folder: Linux
``$XDG_CONFIG_HOME/mini-swe-agent`` (``~/.config``), macOS ``~/Library/Application
Support/mini-swe-agent``, Windows ``%LOCALAPPDATA%\\mini-swe-agent\\mini-swe-agent``;
``MSWEA_GLOBAL_CONFIG_DIR`` moves it. The file is loaded with python-dotenv's ``load_dotenv``
(override=False): a variable exported in the shell wins over the file.

Managed keys: ``MSWEA_MODEL_NAME=openai/<model>`` (litellm's OpenAI-compatible route),
``OPENAI_API_KEY``, ``OPENAI_API_BASE`` (and ``OPENAI_BASE_URL`` when the file already has one:
litellm reads it first), plus two switches without which the real program stops:
``MSWEA_COST_TRACKING=ignore_errors`` (a gateway's model has no litellm price, and mini ends at
its first reply with "Error calculating cost ... This model isn't mapped yet") and
``MSWEA_CONFIGURED=true`` when missing (without it ``mini`` first runs its interactive set-up
questions). Restore takes all of them back.

``MSWEA_MINI_CONFIG_PATH`` (the shell's or the .env's) names a config mini reads in place of its
built-in mini.yaml: its ``model.model_name`` and ``model.model_kwargs`` (``api_base``, ``api_key``)
win over the .env, and ``read`` follows them (``run/mini.py``, ``models/__init__.py``
``get_model_name`` at 2.4.6).

``gwconf run mini-swe-agent`` exports the same names to mini alone (exported values win over the file).
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
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    platformdirs_config,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, fresh_document, require_model
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "mini-swe-agent"
NAME = "mini-swe-agent"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("mini", "mini-extra")
DOCS = "https://mini-swe-agent.com/latest/advanced/global_configuration/"
RESTART = (
    "mini reads its .env on every start: start a new `mini` run (a running one keeps the old model). "
    "gwconf also set MSWEA_COST_TRACKING=ignore_errors: the gateway's model has no litellm price, and "
    "without it mini stops at its first reply. Variables exported in your shell still win over the file."
)
RESTAMPED: tuple[str, ...] = ()

PREFIX = "openai/"
MODEL_VAR = "MSWEA_MODEL_NAME"
COST_VAR = "MSWEA_COST_TRACKING"
COST_IGNORE = "ignore_errors"
CONFIGURED_VAR = "MSWEA_CONFIGURED"
# what the shell can set to beat the file (load_dotenv never overrides the environment)
WATCHED = (MODEL_VAR, "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", COST_VAR)


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_dir(env: Env) -> Path:
    moved = env.get("MSWEA_GLOBAL_CONFIG_DIR")
    if moved:
        return env.as_given(moved)  # no ~ expanded
    return platformdirs_config(env, "mini-swe-agent")


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("env", config_dir(env) / ".env", "dotenv", secret=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    doc = docs["env"]
    model = require_model(target, NAME, MODEL_VAR)
    doc.set((MODEL_VAR,), model if model.startswith(PREFIX) else PREFIX + model)
    doc.set(("OPENAI_API_KEY",), target.api_key)
    doc.set(("OPENAI_API_BASE",), target.base_url)
    notes = []
    if doc.get(("OPENAI_BASE_URL",), None) is not None:
        doc.set(("OPENAI_BASE_URL",), target.base_url)  # litellm reads it before OPENAI_API_BASE
        notes.append("OPENAI_BASE_URL set too: litellm reads it before OPENAI_API_BASE")
    doc.set((COST_VAR,), COST_IGNORE)
    if not doc.get((CONFIGURED_VAR,), None):
        doc.set((CONFIGURED_VAR,), "true")
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    doc = fresh_document("dotenv", ".env")
    render({"env": doc}, target, env)
    values: dict[str, str | TempPath] = {k: str(v) for k, v in doc.data().items()}
    values["OPENAI_BASE_URL"] = target.base_url
    return LaunchSpec(argv=["mini", *args], env=values)


def read(docs: dict[str, Document], env: Env) -> Reading:
    data = docs["env"].data()
    data = data if isinstance(data, dict) else {}
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE)
    f = reading.findings

    def value(name: str) -> tuple[str | None, str]:
        if env.environ.get(name) is not None:  # load_dotenv(override=False): the shell wins, even ""
            return env.environ[name] or None, f"${name}"
        found = data.get(name)
        return (str(found) if found not in (None, "") else None), f"{where} {name}"

    for name in WATCHED:
        if env.environ.get(name) is not None and data.get(name) not in (None, env.environ[name]):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is set in this shell and wins over {where} (mini never overrides the environment).",
                    f"unset {name}  (or remove it from your shell start-up files)",
                )
            )
    # litellm's openai/ route: OPENAI_BASE_URL, then OPENAI_API_BASE, then OpenAI itself
    base_url, base_from = value("OPENAI_BASE_URL")
    api_base, _ = value("OPENAI_API_BASE")
    if base_url and api_base and base_url != api_base:
        f.append(
            Finding(
                "error",
                "base",
                f"OPENAI_BASE_URL ({base_from}) wins over OPENAI_API_BASE in mini (litellm reads it first).",
                f"gwconf apply {ID}  (or remove OPENAI_BASE_URL from {base_from})",
            )
        )
    reading.base_url = base_url or api_base or urls.OFFICIAL_OPENAI_BASE
    reading.api_key, reading.key_origin = value("OPENAI_API_KEY")
    model, _ = value(MODEL_VAR)
    layer, layer_from = value("MSWEA_MINI_CONFIG_PATH")
    model = _follow_default_config(reading, env, layer, layer_from) or model
    pointed = bool(base_url or api_base) or reading.base_url != urls.OFFICIAL_OPENAI_BASE
    if model and model.startswith(PREFIX):
        reading.model = model[len(PREFIX) :]
        reading.provider = "openai-compatible (litellm openai/ route)"
        reading.provider_is_gwconf = pointed
    else:
        reading.model = model
        reading.provider = f"litellm's own routing for {model!r}" if model else "(no model)"
        f.append(
            Finding(
                "error",
                "provider",
                f"{MODEL_VAR} {model!r} has no openai/ prefix: litellm may send it to its vendor, not the gateway."
                if model
                else f"{where} sets no {MODEL_VAR}: mini stops with 'No default model set'.",
                f"gwconf apply {ID}",
            )
        )
    cost, cost_from = value(COST_VAR)
    if cost != COST_IGNORE:
        f.append(
            Finding(
                "warning",
                "other",
                f"{COST_VAR} is {cost or 'not set'} ({cost_from}): a gateway's model has no litellm price, so mini "
                "stops at its first reply with 'Error calculating cost'.",
                f"gwconf apply {ID}  (writes {COST_VAR}={COST_IGNORE})",
            )
        )
    configured, _ = value(CONFIGURED_VAR)
    if not configured:
        f.append(
            Finding(
                "warning",
                "other",
                f"{CONFIGURED_VAR} is not set: mini asks its set-up questions before every run (and blocks "
                "when it has no terminal).",
                f"gwconf apply {ID}",
            )
        )
    return reading


def _default_config(
    env: Env, setting: str | None, origin: str, findings: list[Finding]
) -> tuple[str, dict[str, Any]] | None:
    """The ``model:`` section of the file ``MSWEA_MINI_CONFIG_PATH`` names (``setting``: the
    variable's value, from the shell or the .env, which mini loads first), with the file's name.

    mini 2.4.6 (``run/mini.py``) reads that file in place of its built-in mini.yaml, found as
    ``get_config_path`` finds a config: ``.yaml`` added when it has another suffix, then as given
    (relative to the current folder), then under ``$MSWEA_CONFIG_DIR``. Its ``model.model_name``
    beats ``MSWEA_MODEL_NAME`` (``models.get_model_name``), and ``model.model_kwargs`` go to
    every litellm call, so an ``api_base`` or ``api_key`` there beats the .env's variables. A
    file that cannot be read goes into ``findings``.

    ``get_config_path`` then looks among mini's own configs, which are not followed here: run
    with the real mini 2.4.6, those ``mini`` can start with (mini, mini_textbased, default) set
    no model route, the benchmark ones (``swebench``: an Anthropic ``model_name``) stop at
    validation before any request (no Docker ``image``), and so does a ``key=value`` value
    (no agent templates). That value, and a name found nowhere, go into ``findings``: mini stops
    before any request, whatever route the .env gives (``_unusable_config``)."""
    if not setting:
        return None
    spec = Path(setting)
    if spec.suffix != ".yaml":
        spec = spec.with_suffix(".yaml")
    candidates = [env.as_given(str(spec))]
    if not spec.is_absolute():
        candidates.append(env.as_given(env.get("MSWEA_CONFIG_DIR") or ".") / spec)
    path = None if "=" in setting else next((path for path in candidates if path.is_file()), None)
    if path is None:
        findings.extend(_unusable_config(setting, spec, origin))
        return None
    doc = load_other(path, "yaml", env, findings)  # mini takes the first found, and stops on a bad one
    data = doc.data() if doc is not None else None
    return (shown(path, env), as_dict(data.get("model"))) if isinstance(data, dict) else None


def _text(mapping: dict[str, Any], key: str) -> str | None:
    """``mapping[key]`` when it is a non-empty string."""
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


# mini 2.4.6's own configs (``minisweagent/config``, its ``benchmarks/``; ``extra/`` holds none):
# ``get_config_path`` finds them by name, a benchmark's also under "benchmarks/", wherever mini starts
_OWN_BENCHMARKS = ("swebench", "swebench_backticks", "swebench_xml", "swebench_modal", "programbench")
_OWN_CONFIGS = frozenset(
    [f"{name}.yaml" for name in ("mini", "mini_textbased", "default", *_OWN_BENCHMARKS)]
    + [f"benchmarks/{name}.yaml" for name in _OWN_BENCHMARKS]
)


def _unusable_config(setting: str, spec: Path, origin: str) -> list[Finding]:
    """Why mini 2.4.6 stops before any request with ``MSWEA_MINI_CONFIG_PATH`` = ``setting`` (``spec``:
    the name it looks for), when it runs without ``-c``: a value holding "=" is read as one
    ``key=value`` setting in place of the whole mini.yaml (``get_config_from_spec``), which
    leaves the agent without its templates; a name found neither as given, nor under
    ``$MSWEA_CONFIG_DIR``, nor among mini's own raises "Could not find config file". A relative
    name is looked for from the folder mini starts in, which may not be this one: a warning."""
    remedy = (
        "unset MSWEA_MINI_CONFIG_PATH" if origin.startswith("$") else f"remove {origin}"
    ) + ", or make it name a config file that exists"
    if "=" in setting:
        message = (
            f"{origin} holds '=': mini reads it as one setting in place of its whole mini.yaml and "
            "stops before any request (its agent has no templates)."
        )
        return [Finding("error", "other", message, remedy)]
    if str(spec) in _OWN_CONFIGS:
        return []
    relative = not spec.is_absolute()
    where = " from this folder, nor under $MSWEA_CONFIG_DIR" if relative else ""
    message = (
        f"{origin} names {spec}, which is not there{where}: mini stops with "
        "'Could not find config file' before any request (unless it is given its own -c)."
    )
    return [Finding("warning" if relative else "error", "other", message, remedy)]


def _follow_default_config(reading: Reading, env: Env, setting: str | None, origin: str) -> str | None:
    """``reading`` as mini sends under ``MSWEA_MINI_CONFIG_PATH``'s model section (its base address
    and key), and the model name it sets (None: the .env's stands)."""
    found = _default_config(env, setting, origin, reading.findings)
    if found is None:
        return None
    where, model = found
    kwargs = as_dict(model.get("model_kwargs"))
    name = _text(model, "model_name")
    keys = ["model_name"] if name else []
    keys += [f"model_kwargs.{field}" for field in ("api_base", "base_url", "api_key") if _text(kwargs, field)]
    base = _text(kwargs, "api_base") or _text(kwargs, "base_url")
    if base:
        reading.base_url = base
    key = _text(kwargs, "api_key")
    if key:
        reading.api_key, reading.key_origin = key, f"{where} model.model_kwargs.api_key"
    if keys:
        reading.findings.append(
            Finding(
                "warning",
                "override",
                f"{where} (named by {origin}) sets model.{', model.'.join(keys)}, which wins over the .env.",
                f"remove those keys from {where}",
            )
        )
    return name
