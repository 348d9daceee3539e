"""OpenClaw: ``~/.openclaw/openclaw.json`` (JSON5), ``models.providers.gwconf`` + ``agents.defaults.model.primary``.

Docs: https://docs.openclaw.ai/concepts/models and docs/providers/litellm.md (a proxy, the same
shape), docs/help/environment.md and docs/gateway/configuration.md in the npm package; checked
against openclaw 2026.9.6 (run against a test gateway) and its
``dist/paths-*.mjs``: the config is ``$OPENCLAW_CONFIG_PATH``, else ``openclaw.json`` in the state
folder, ``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``, or the Clawdbot-era ``~/.clawdbot`` (and
``clawdbot.json``) where only that exists (``$OPENCLAW_HOME`` replaces the home folder), the same
on every OS. A named profile (``openclaw --profile work``) is a flag of each run: gwconf follows
it when ``$OPENCLAW_STATE_DIR`` says ``~/.openclaw-work``. The file is JSON5: gwconf edits it with the JSON editor's JSON5
mode, so comments, trailing commas, unquoted keys and single quotes survive. Keys may be
``${VAR}`` references, filled from the environment and then from ``<state>/.env``.

gwconf owns ``models.providers.gwconf`` (``baseUrl``, ``apiKey``, ``api: "openai-completions"``,
one ``models`` entry, and ``request.allowPrivateNetwork: true`` when the gateway is on a private
LAN address, which OpenClaw otherwise refuses) and ``agents.defaults.model.primary``
(``gwconf/<model>``), which moves the default agent off a vendor's provider.

OpenClaw copies custom providers into each agent's ``<state>/agents/<id>/agent/models.json`` and,
in the default ``models.mode: "merge"``, a non-empty ``baseUrl`` or ``apiKey`` already in that
copy wins over openclaw.json (docs/concepts/models.md, "Merge mode precedence"). gwconf does not
edit the copy, which OpenClaw regenerates; ``read`` follows it and doctor names a stale one.
An agent's own ``agents.list[].model`` (a string or ``{primary}``) overrides
``agents.defaults.model`` (docs: "Per-agent defaults can override agents.defaults.model via
agents.list[].model"; ``src/agents/agent-scope.ts`` ``resolveAgentEffectiveModelPrimary``). The
default agent is the first entry with ``default: true``, else the one with id ``main``, else the
first (``resolveDefaultAgentId``). ``read`` follows the default agent's model, and status, doctor
and verify with it; doctor names the override and its remedy, apply names it too. gwconf does not
edit ``agents.list``: each agent's model is the user's choice for that agent.
``gwconf run openclaw`` points ``OPENCLAW_CONFIG_PATH`` at a rendered temporary copy.
The model entry's ``contextWindow`` and ``maxTokens``: the model's limits (limits.py), else gwconf's
stated defaults (128000 and 8192), named in apply's output.
"""

from __future__ import annotations

import re
from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_dict,
    as_list,
    default_detect_for,
    default_target_for,
    dotenv_values,
    env_dir,
    load_other,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.formats import Document, lazy
from gwconf.limits import output_or_default, window_or_default
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "openclaw"
NAME = "OpenClaw"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("openclaw",)
DOCS = "https://docs.openclaw.ai/concepts/models"
RESTART = (
    "A running OpenClaw Gateway reloads `models` and `agents` from openclaw.json by itself (reload mode "
    "hybrid); with `gateway.reload.mode: off` run `openclaw gateway restart`. `openclaw agent exec` and "
    "other one-off commands read it at their next start."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
CLI = "gwconf apply openclaw"
APIS = {
    "openai-completions": ("chat", "bearer"),
    "openai-responses": ("responses", "bearer"),
    "anthropic-messages": ("messages", "x-api-key"),
}
_ENV_REF = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
import_link = no_import_link
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link
project_scope_files = no_project_scope_files


# Before its renames OpenClaw was Clawdbot: a user who installed it then may still have only
# ``~/.clawdbot``, holding ``clawdbot.json`` or ``openclaw.json``, and OpenClaw reads that one
# (2026.9.6 ``dist/paths-*.mjs``: ``LEGACY_STATE_DIRNAMES``, ``LEGACY_CONFIG_FILENAMES``). Writing
# a new ``~/.openclaw/openclaw.json`` beside it would make OpenClaw read gwconf's file alone.
_STATE_DIRS = (".openclaw", ".clawdbot")  # the current name first, then the legacy one
_CONFIG_NAMES = ("openclaw.json", "clawdbot.json")


def _home(env: Env) -> Path:
    return env_dir(env, "OPENCLAW_HOME", env.home)


def state_dir(env: Env) -> Path:
    """``$OPENCLAW_STATE_DIR``, else the first of ``~/.openclaw`` and ``~/.clawdbot`` that
    exists, else ``~/.openclaw`` (OpenClaw's ``resolveStateDir``)."""
    if env.get("OPENCLAW_STATE_DIR"):
        return env_dir(env, "OPENCLAW_STATE_DIR", _home(env))
    dirs = [_home(env) / name for name in _STATE_DIRS]
    return next((folder for folder in dirs if folder.exists()), dirs[0])


def config_path(env: Env) -> Path:
    """The file OpenClaw loads (its ``resolveConfigPath``): ``$OPENCLAW_CONFIG_PATH``; else the
    first config file the state folder holds; else, with no state folder set, the first of the
    current and the legacy names in the current and the legacy folders; else a new
    ``openclaw.json`` in the state folder."""
    if env.get("OPENCLAW_CONFIG_PATH"):
        return env_dir(env, "OPENCLAW_CONFIG_PATH", _home(env))
    from gwconf import fileio

    # once per command (status asks about twenty times); what gwconf writes is the answer itself
    key = ("openclaw-config", _home(env), env.get("OPENCLAW_STATE_DIR"))
    return fileio.viewed(key, lambda: _find_config(env))  # type: ignore[no-any-return]


def _find_config(env: Env) -> Path:
    state = state_dir(env)
    candidates = [state / name for name in _CONFIG_NAMES]
    if not env.get("OPENCLAW_STATE_DIR"):
        candidates += [_home(env) / folder / name for folder in _STATE_DIRS for name in _CONFIG_NAMES]
    return next((path for path in candidates if path.exists()), state / "openclaw.json")


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", config_path(env), "json5", secret=True)]


# -- render --------------------------------------------------------------------------------------


def _private_lan(base: str) -> bool:
    """A private address that is not loopback: OpenClaw asks for ``request.allowPrivateNetwork``."""
    address = urls.ip_literal(urls.host_of(base))
    return address is not None and address.is_private and not address.is_loopback


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    model = require_model(target, NAME, "agents.defaults.model.primary")
    config = docs["config"]
    entry = ("models", "providers", PROVIDER_ID)
    config.set((*entry, "baseUrl"), target.base_url)
    config.set((*entry, "apiKey"), target.api_key)
    config.set((*entry, "api"), "openai-completions")
    notes: list[str] = []
    config.set(
        (*entry, "models"),
        [
            {
                "id": model,
                "name": model,
                "reasoning": False,
                "input": ["text"],
                # the model's limits (limits.py), else stated defaults named in the output
                "contextWindow": window_or_default(target, NAME, notes),
                "maxTokens": output_or_default(target, NAME, notes),
            }
        ],
    )
    override = agent_override(config)
    if override is not None and not override[2].startswith(f"{PROVIDER_ID}/"):
        where, agent, own = override
        notes.append(
            f'{where} is "{own}": the default agent "{agent}" keeps using that model; remove its "model" '
            f"(or set it to {PROVIDER_ID}/{model}) for the gateway to answer"
        )
    if _private_lan(target.base_url):
        config.set((*entry, "request", "allowPrivateNetwork"), True)
    else:
        config.delete((*entry, "request", "allowPrivateNetwork"))
    current = config.get(("agents", "defaults", "model"), None)
    if isinstance(current, str):  # the short form: a bare "provider/model"
        config.set(("agents", "defaults", "model"), f"{PROVIDER_ID}/{model}")
    else:
        config.set(("agents", "defaults", "model", "primary"), f"{PROVIDER_ID}/{model}")
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    require_model(target, NAME, "agents.defaults.model.primary")
    return LaunchSpec(
        argv=["openclaw", *args],
        env={"OPENCLAW_CONFIG_PATH": TempPath("openclaw.json")},
        render={"config": "openclaw.json"},
    )


# -- read ----------------------------------------------------------------------------------------


def substitute(value: Any, env: Env, findings: list[Finding], field: str) -> str | None:
    """``${VAR}``: the environment first, then ``<state>/.env`` (which never overrides it)."""
    if not isinstance(value, str):
        return None
    names = _ENV_REF.findall(value)
    if not names:
        return value
    extra = dotenv_values(state_dir(env) / ".env", env)

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        got = env.get(name) or extra.get(name)
        if got is None:
            findings.append(
                Finding(
                    "error",
                    "key" if "apiKey" in field else "base",
                    f"{field} refers to ${{{name}}}, which is set neither in the environment nor in "
                    f"{shown(state_dir(env) / '.env', env)}.",
                    CLI,
                )
            )
        return got or ""

    return _ENV_REF.sub(fill, value)


def primary(config: Document) -> str | None:
    model = config.get(("agents", "defaults", "model"), None)
    if isinstance(model, dict):
        model = model.get("primary")
    return model if isinstance(model, str) else None


def _model_primary(raw: Any) -> str | None:
    """agent-scope.ts resolveModelPrimary: a string, or the ``primary`` of an object; trimmed."""
    if isinstance(raw, dict):
        raw = raw.get("primary")
    return (raw.strip() or None) if isinstance(raw, str) else None


def default_agent(config: Document) -> tuple[int, dict[str, Any]] | None:
    """agent-scope.ts resolveDefaultAgentId: the first ``agents.list`` entry with ``default: true``,
    else the one with id ``main``, else the first; None without a list (the built-in ``main``)."""
    listed = config.get(("agents", "list"), None)
    entries = (
        [(i, e) for i, e in enumerate(listed) if isinstance(e, dict)] if isinstance(listed, list) else []
    )
    if not entries:
        return None
    marked = next(((i, e) for i, e in entries if e.get("default")), None)
    main = next(((i, e) for i, e in entries if str(e.get("id") or "").strip().lower() == "main"), None)
    return marked or main or entries[0]


def agent_override(config: Document) -> tuple[str, str, str] | None:
    """(``agents.list[i].model``, the agent's id, its model) when the default agent names a model of its
    own other than ``agents.defaults.model``: resolveAgentEffectiveModelPrimary takes it first."""
    found = default_agent(config)
    if found is None:
        return None
    index, entry = found
    own = _model_primary(entry.get("model"))
    if own is None or own == primary(config):
        return None
    return f"agents.list[{index}].model", str(entry.get("id") or "main"), own


def agent_copies(env: Env) -> list[Path]:
    """``<state>/agents/<id>/agent/models.json``: OpenClaw's own copies of the custom providers."""
    root = state_dir(env) / "agents"
    return sorted(root.glob("*/agent/models.json")) if root.is_dir() else []


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    reading = Reading(wire=WIRE)
    findings = reading.findings
    choice = primary(config)
    source = "agents.defaults.model.primary"
    override = agent_override(config)
    if override is not None:
        where, agent, choice = override
        findings.append(
            Finding(
                "error",
                "provider",
                f'{where} is "{choice}": the default agent "{agent}" uses its own model, which overrides '
                "agents.defaults.model (gwconf's).",
                f'remove "model" from agent "{agent}" ({where}) in {shown(config_path(env), env)}, or set it '
                "to gwconf/<model>",
            )
        )
        source = where
    _other_agents(config, findings)
    if not choice or "/" not in choice:
        reading.provider = "no model chosen"
        findings.append(
            Finding(
                "error",
                "provider",
                "agents.defaults.model.primary is not set: OpenClaw's default agent uses a vendor model.",
                CLI,
            )
        )
        return reading
    provider, reading.model = choice.split("/", 1)
    reading.provider = provider
    reading.provider_is_gwconf = provider == PROVIDER_ID
    entry = config.get(("models", "providers", provider), None)
    if not isinstance(entry, dict):
        findings.append(
            Finding(
                "error",
                "provider",
                f'{source} is "{choice}": OpenClaw uses its built-in {provider} provider, not gwconf\'s entry.',
                CLI if override is None else None,
            )
        )
        return reading
    where = f"models.providers.{provider}"
    api = entry.get("api")
    api = api if isinstance(api, str) else "openai-completions"
    reading.wire, reading.auth_header = APIS.get(api, ("chat", "bearer"))
    reading.base_url = substitute(entry.get("baseUrl"), env, findings, f"{where}.baseUrl")
    reading.api_key = substitute(entry.get("apiKey"), env, findings, f"{where}.apiKey")
    reading.key_origin = f"{shown(config_path(env), env)} {where}.apiKey"
    if isinstance(entry.get("apiKey"), dict):
        reading.key_origin += " (a SecretRef gwconf does not resolve)"
    listed = [m.get("id") for m in as_list(entry.get("models")) if isinstance(m, dict)]
    if reading.model not in listed:
        findings.append(
            Finding(
                "error",
                "provider",
                f'"{reading.model}" is not among {where}.models: OpenClaw does not know that model.',
                CLI,
            )
        )
    if provider == PROVIDER_ID and api != "openai-completions":
        findings.append(
            Finding("error", "provider", f'{where}.api is "{api}": the gateway serves chat completions.', CLI)
        )
    allowed = as_dict(entry.get("request")).get("allowPrivateNetwork")
    if reading.base_url and _private_lan(reading.base_url) and not allowed:
        findings.append(
            Finding(
                "error",
                "base",
                f"{where}.baseUrl is on a private network: OpenClaw refuses it without "
                f"{where}.request.allowPrivateNetwork: true.",
                CLI,
            )
        )
    if config.get(("models", "mode"), "merge") != "replace":
        _follow_copies(reading, env, provider, where)
    return reading


def _other_agents(config: Document, findings: list[Finding]) -> None:
    """Other agents that name a vendor's model of their own: they do not use the gateway."""
    found = default_agent(config)
    listed = config.get(("agents", "list"), None)
    others = [
        f"{e.get('id')} ({model})"
        for i, e in enumerate(listed if isinstance(listed, list) else [])
        if isinstance(e, dict) and (found is None or i != found[0])
        for model in [_model_primary(e.get("model"))]
        if model and not model.startswith(f"{PROVIDER_ID}/")
    ]
    if others:
        findings.append(
            Finding(
                "warning",
                "provider",
                f"{len(others)} other agent(s) in agents.list use a model of their own, not the gateway's: "
                f"{', '.join(others)}.",
                "remove `model` from those entries of agents.list where the gateway should answer",
            )
        )


def _follow_copies(reading: Reading, env: Env, provider: str, where: str) -> None:
    """In merge mode a non-empty baseUrl or apiKey in an agent's models.json wins over openclaw.json."""
    for path in agent_copies(env):
        doc = load_other(path, "json", env, reading.findings)
        entry = doc.get(("providers", provider), None) if doc is not None else None
        if not isinstance(entry, dict):
            continue
        stale = []
        base, key = entry.get("baseUrl"), entry.get("apiKey")
        if isinstance(base, str) and base and base != reading.base_url:
            stale.append("baseUrl")
            if path.parent.parent.name == "main":
                reading.base_url = base
        if isinstance(key, str) and key and key != reading.api_key and not _ENV_REF.fullmatch(key):
            stale.append("apiKey")
            if path.parent.parent.name == "main":
                reading.api_key, reading.key_origin = key, f"{shown(path, env)} providers.{provider}.apiKey"
        if stale:
            reading.findings.append(
                Finding(
                    "error",
                    "key" if "apiKey" in stale else "base",
                    f"{shown(path, env)} (OpenClaw's copy of {where}) has another {' and '.join(stale)}, "
                    "which wins over openclaw.json in merge mode.",
                    f"remove providers.{provider} from {shown(path, env)} (OpenClaw writes it again from "
                    "openclaw.json), then run: " + CLI,
                )
            )
