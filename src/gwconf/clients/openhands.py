"""OpenHands CLI (``openhands``): ``~/.openhands/agent_settings.json``, the agent it saves.

Docs: https://docs.openhands.dev/openhands/usage/cli/installation ; checked against the PyPI
package ``openhands`` 1.16.0 (run against a test gateway, and
``openhands_cli/locations.py``, ``stores/agent_store.py`` in OpenHands/OpenHands-CLI). The folder
is ``~/.openhands`` on every OS (``os.path.expanduser``); ``OPENHANDS_PERSISTENCE_DIR`` moves it.
The file is a pydantic-serialized SDK ``Agent`` (strict JSON): ``llm`` is the model the agent
talks to, ``condenser.llm`` the one that summarises long conversations; both are litellm
settings. Managed keys, in both: ``model`` (``openai/<model>``: litellm's OpenAI-compatible route),
``base_url``, ``api_key``. On a new file gwconf also writes what the CLI's own set-up writes around
them (``kind``, ``usage_id``, the ``LLMSummarizingCondenser``). The ``LLM_API_KEY``,
``LLM_BASE_URL`` and ``LLM_MODEL`` variables count only with ``--override-with-envs``.
The model's limits, when known (limits.py), go to both ``llm`` settings as ``max_input_tokens`` (the
window: litellm's ``max_input_tokens`` is what the SDK otherwise looks up, and below 16384 the SDK
refuses the model) and ``max_output_tokens`` (sent with each request); unknown, they are taken out
(SDK 1.21.0 ``openhands/sdk/llm/llm.py``).

A wrong key is not reported: OpenHands prints the conversation and "Goodbye!" and exits 0, so
``gwconf verify openhands`` is the way to check the key. ``gwconf run openhands`` passes
``--override-with-envs`` with the three variables (they are not saved to disk).
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
    get_str,
    litellm_openai_base,
    no_doctor,
    no_import_link,
    no_project_scope_files,
    no_steps,
    refuse_empty_folder_variables,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.formats import Document
from gwconf.limits import write_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "openhands"
NAME = "OpenHands CLI"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("openhands",)
DOCS = "https://docs.openhands.dev/openhands/usage/cli/installation"
RESTART = (
    "OpenHands reads agent_settings.json when it starts: quit a running `openhands` and start it again. "
    "It does not report a wrong key (it prints 'Goodbye!' and exits 0): check with `gwconf verify openhands`."
)
RESTAMPED: tuple[str, ...] = ()

PREFIX = "openai/"
ENV_VARS = ("LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL")
CONDENSER_KIND = "LLMSummarizingCondenser"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    # os.environ.get with a default: a set variable as it is, empty or with a ~ (nothing expanded)
    moved = env.environ.get(VARIABLE)
    return env.as_given(moved) if moved is not None else env.home / ".openhands"


VARIABLE = "OPENHANDS_PERSISTENCE_DIR"


def preflight(env: Env, force: bool) -> list[str]:
    return refuse_empty_folder_variables(env, (VARIABLE,), NAME, force)


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("agent", folder(env) / "agent_settings.json", "json", secret=True, strict=True)]


def _set_llm(doc: Document, at: tuple[str, ...], model: str, target: Target, usage_id: str) -> None:
    doc.set((*at, "model"), model)
    doc.set((*at, "base_url"), target.base_url)
    doc.set((*at, "api_key"), target.api_key)
    if doc.get((*at, "usage_id"), None) is None:
        doc.set((*at, "usage_id"), usage_id)
    write_limits(
        doc,
        at,
        [
            (("max_input_tokens",), target.limits.context_window),
            (("max_output_tokens",), target.limits.max_output_tokens),
        ],
    )


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    doc = docs["agent"]
    name = require_model(target, NAME, "llm.model")
    model = name if name.startswith(PREFIX) else PREFIX + name
    if doc.get(("kind",), None) is None:
        doc.set(("kind",), "Agent")
    _set_llm(doc, ("llm",), model, target, "agent")
    condenser = doc.get(("condenser",), None)
    if condenser is None:
        doc.set(("condenser", "kind"), CONDENSER_KIND)
        _set_llm(doc, ("condenser", "llm"), model, target, "condenser")
    elif isinstance(condenser, dict) and isinstance(condenser.get("llm"), dict):
        _set_llm(doc, ("condenser", "llm"), model, target, "condenser")
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    name = require_model(target, NAME, "LLM_MODEL")
    return LaunchSpec(
        argv=["openhands", "--override-with-envs", *args],
        env={
            "LLM_API_KEY": target.api_key,
            "LLM_BASE_URL": target.base_url,
            "LLM_MODEL": name if name.startswith(PREFIX) else PREFIX + name,
        },
    )


def _llm_view(llm: Any) -> tuple[str | None, str | None, str | None]:
    if not isinstance(llm, dict):
        return None, None, None
    values = (llm.get("model"), llm.get("base_url"), llm.get("api_key"))
    return tuple(v if isinstance(v, str) and v else None for v in values)  # type: ignore[return-value]


def read(docs: dict[str, Document], env: Env) -> Reading:
    doc = docs["agent"]
    where = shown(files(env)[0].path, env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    f += empty_folder_findings(env, (VARIABLE,), NAME)
    model, base, key = _llm_view(doc.get(("llm",), None))
    # litellm's openai/ route without base_url: OPENAI_BASE_URL, OPENAI_API_BASE, then OpenAI itself
    reading.base_url = base or litellm_openai_base(env) or urls.OFFICIAL_OPENAI_BASE
    reading.api_key = key
    reading.key_origin = f"{where} llm.api_key"
    if model and model.startswith(PREFIX):
        reading.model = model[len(PREFIX) :]
        reading.provider = "openai-compatible (litellm openai/ route)"
        reading.provider_is_gwconf = bool(base)
    else:
        reading.model = model
        reading.provider = f"litellm's own routing for {model!r}" if model else "(no agent saved)"
        f.append(
            Finding(
                "error",
                "provider",
                f"llm.model {model!r} has no openai/ prefix: litellm may send it to its vendor, not base_url."
                if model
                else f"{where} has no llm.model: OpenHands asks for a provider at its next start.",
                f"gwconf apply {ID}",
            )
        )
    if not base and model:
        f.append(Finding("error", "base", f"{where} has no llm.base_url.", f"gwconf apply {ID}"))
    if get_str(doc, ("llm", "api_key")) == "**********":
        f.append(
            Finding(
                "error",
                "key",
                f"{where} llm.api_key is a masked placeholder (a settings file saved without its secrets).",
                f"gwconf apply {ID}",
            )
        )
    condenser = doc.get(("condenser",), None)
    if isinstance(condenser, dict) and isinstance(condenser.get("llm"), dict):
        c_model, c_base, c_key = _llm_view(condenser["llm"])
        if (c_model, c_base, c_key) != (model, base, key):
            f.append(
                Finding(
                    "warning",
                    "other",
                    f"{where} condenser.llm differs from llm (model, address or key): the summaries of long "
                    "conversations go elsewhere and fail there.",
                    f"gwconf apply {ID}",
                )
            )
    set_vars = [name for name in ENV_VARS if env.get(name)]
    if set_vars:
        f.append(
            Finding(
                "info",
                "override",
                f"${', $'.join(set_vars)} set in this shell: OpenHands uses them only with --override-with-envs, "
                "and then they win over agent_settings.json.",
            )
        )
    return reading
