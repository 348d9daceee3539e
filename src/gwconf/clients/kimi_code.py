"""Kimi Code CLI (``kimi``, npm ``@moonshot-ai/kimi-code``): ``~/.kimi-code/config.toml``.

Docs: https://github.com/MoonshotAI/kimi-code/blob/main/docs/en/configuration/providers.md ; checked
against @moonshot-ai/kimi-code 2.1.0 (run against a test gateway, and
``docs/en/configuration/{config-files,providers,overrides,env-vars,data-locations}.md`` at
MoonshotAI/kimi-code d723cc47). Not the archived PyPI ``kimi-cli``. ``KIMI_CODE_HOME`` moves the
folder; without it, ``~/.kimi-code`` on every OS (``C:\\Users\\<name>\\.kimi-code`` on Windows).

Managed keys: ``[providers.gwconf]`` (``type = "openai"``: Chat Completions, ``base_url``,
``api_key``), ``[models."gwconf/<model>"]`` (``provider``, ``model``, and ``max_context_size``
when missing: kimi refuses a model without it) and ``default_model``. Kimi's own precedence, which
``read`` follows: ``-m``, then the ``KIMI_MODEL_*`` variables (``KIMI_MODEL_NAME`` makes an
in-memory provider that beats ``default_model``), then config.toml. Credentials come from
``api_key``, or the variable ``api_key_env`` names (2.1.0; kimi refuses a provider with both, or
either beside ``oauth``: gwconf's entry keeps ``api_key`` alone), then the provider's
``[providers.<id>.env]`` table; no other shell variable.
``gwconf run kimi-code`` uses that ``KIMI_MODEL_*`` channel for one launch.
The model entry's ``max_context_size`` (kimi needs one): the model's window (limits.py), else
gwconf's stated default 128000, named in apply's output.
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
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, require_model
from gwconf.formats import Document
from gwconf.limits import window_or_default
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "kimi-code"
NAME = "Kimi Code CLI"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("kimi",)
DOCS = "https://github.com/MoonshotAI/kimi-code/blob/main/docs/en/configuration/providers.md"
RESTART = (
    "Kimi Code reads config.toml when it starts: quit a running `kimi` and start it again (a resumed "
    "session keeps its model; pick the new one with /model). KIMI_MODEL_NAME in your shell still wins."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER = "gwconf"
WIRES = {"openai": "chat", "kimi": "chat", "openai_responses": "responses", "anthropic": "messages"}
ENV_KEYS = {  # the credential names a provider's [env] table may hold, per type
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "openai_responses": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "kimi": ("KIMI_API_KEY", "KIMI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
DEFAULT_BASES = {"kimi": "https://api.moonshot.ai/v1", "openai": "https://api.openai.com/v1"}


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    moved = env.get("KIMI_CODE_HOME")
    return env.as_given(moved) if moved else env.home / ".kimi-code"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", folder(env) / "config.toml", "toml", secret=True)]


def alias(model: str) -> str:
    return f"{PROVIDER}/{model}"


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    model = require_model(target, NAME, "default_model")
    config.set(("providers", PROVIDER, "type"), "openai")
    config.set(("providers", PROVIDER, "base_url"), target.base_url)
    config.set(("providers", PROVIDER, "api_key"), target.api_key)
    # kimi refuses a provider with api_key beside api_key_env or oauth ("mutually exclusive",
    # 2.1.0 ``declaredProviderCredential``): the key gwconf writes replaces those
    for other in ("api_key_env", "oauth"):
        config.delete(("providers", PROVIDER, other))
    name = alias(model)
    config.set(("models", name, "provider"), PROVIDER)
    config.set(("models", name, "model"), model)
    notes: list[str] = []
    if target.limits.context_window or config.get(("models", name, "max_context_size"), None) is None:
        # kimi needs a number: the model's window (limits.py), else a stated default named in the output
        config.set(("models", name, "max_context_size"), window_or_default(target, NAME, notes))
    config.set(("default_model",), name)
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    model = require_model(target, NAME, "KIMI_MODEL_NAME")
    return LaunchSpec(
        argv=["kimi", *args],
        env={
            "KIMI_MODEL_NAME": model,
            "KIMI_MODEL_API_KEY": target.api_key,
            "KIMI_MODEL_BASE_URL": target.base_url,
            "KIMI_MODEL_PROVIDER_TYPE": "openai",
        },
    )


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    where = shown(files(env)[0].path, env)
    data = _table(config.data())
    reading = Reading(wire=WIRE)
    f = reading.findings
    if env.get("KIMI_MODEL_NAME"):
        kind = env.get("KIMI_MODEL_PROVIDER_TYPE") or "kimi"
        reading.model = env.get("KIMI_MODEL_NAME")
        reading.base_url = env.get("KIMI_MODEL_BASE_URL") or DEFAULT_BASES.get(kind)
        reading.api_key, reading.key_origin = env.get("KIMI_MODEL_API_KEY"), "$KIMI_MODEL_API_KEY"
        reading.provider = f"$KIMI_MODEL_* ({kind})"
        reading.wire = WIRES.get(kind, WIRE)
        f.append(
            Finding(
                "warning",
                "override",
                f"$KIMI_MODEL_NAME is set in this shell: kimi uses the KIMI_MODEL_* variables, not {where}.",
                "unset KIMI_MODEL_NAME KIMI_MODEL_API_KEY KIMI_MODEL_BASE_URL KIMI_MODEL_PROVIDER_TYPE",
            )
        )
        return reading
    default = data.get("default_model")
    entry = _table(_table(data.get("models")).get(default)) if isinstance(default, str) else {}
    provider_id = entry.get("provider") if isinstance(entry.get("provider"), str) else None
    provider = _table(_table(data.get("providers")).get(provider_id)) if provider_id else {}
    reading.model = entry.get("model") if isinstance(entry.get("model"), str) else default
    reading.provider = provider_id
    if not provider:
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} default_model {default!r} is not a [models] entry with a [providers] entry: kimi "
                "falls back to its Kimi Code login."
                if default
                else f"{where} sets no default_model: kimi uses its Kimi Code login.",
                f"gwconf apply {ID}",
            )
        )
        return reading
    kind = str(provider.get("type") or "")
    reading.wire = WIRES.get(kind, WIRE)
    key_name, base_name = ENV_KEYS.get(kind, ("", ""))
    env_table = _table(provider.get("env"))
    base = provider.get("base_url") or env_table.get(base_name) or DEFAULT_BASES.get(kind)
    reading.base_url = str(base) if base else None
    named = provider.get("api_key_env")
    if provider.get("api_key") and (named or "oauth" in provider):
        f.append(
            Finding(
                "error",
                "key",
                f"{where} providers.{provider_id} has api_key and {'api_key_env' if named else 'oauth'}: "
                "kimi refuses a provider with both.",
                f"gwconf apply {ID}" if provider_id == PROVIDER else f"remove one of them in {where}",
            )
        )
    if provider.get("api_key"):
        reading.api_key, reading.key_origin = (
            str(provider["api_key"]),
            f"{where} providers.{provider_id}.api_key",
        )
    elif isinstance(named, str) and named:  # the variable it names (2.1.0: ``api_key_env``)
        reading.api_key = env.get(named)
        reading.key_origin = f"${named} ({where} providers.{provider_id}.api_key_env)"
        if not reading.api_key:
            f.append(
                Finding(
                    "error",
                    "key",
                    f"{where} providers.{provider_id}.api_key_env names ${named}, which is not set.",
                    f"export {named}=... or gwconf apply {ID}",
                )
            )
    elif env_table.get(key_name):
        reading.api_key = str(env_table[key_name])
        reading.key_origin = f"{where} providers.{provider_id}.env.{key_name}"
    else:
        reading.key_origin = f"{where} providers.{provider_id}.api_key"
    reading.provider_is_gwconf = provider_id == PROVIDER
    if not entry.get("max_context_size"):
        f.append(
            Finding(
                "error",
                "other",
                f"{where} models.{default!r} has no max_context_size: kimi refuses to start with it.",
                f"gwconf apply {ID}",
            )
        )
    if (
        key_name
        and env.get(key_name)
        and not provider.get("api_key")
        and not env_table.get(key_name)
        and named != key_name
    ):
        f.append(
            Finding(
                "warning",
                "key",
                f"${key_name} is set in this shell, but kimi reads a key from the environment only where a "
                "provider's api_key_env names the variable.",
                f"gwconf apply {ID}  (writes the key into {where})",
            )
        )
    return reading
