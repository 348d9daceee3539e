"""Factory Droid (``droid``): ``~/.factory/settings.json`` ``customModels`` + ``sessionDefaultSettings.model``.

Docs: https://docs.factory.ai/cli/byok/overview ; checked against the @factory/cli-linux-x64
0.225.2 binary (run against a test gateway, and its strings): the home folder is
``$FACTORY_HOME_OVERRIDE``, else ``$HOME`` / ``%USERPROFILE%``, with ``.factory`` below it on every
OS; the legacy ``~/.factory/config.json`` ``custom_models`` (snake_case) is merged, settings.json
winning. A custom model's id is ``custom:<displayName, blanks as ->-<index in customModels>``
(``Ct(e,r){return`custom:${An(e)}-${r}`}``, ``An`` trims and joins blanks with ``-``);
``sessionDefaultSettings.model`` picks it for new sessions and ``droid exec`` without ``-m``.
``provider: "generic-chat-completion-api"`` is the chat wire (``openai`` would be Responses,
``anthropic`` Messages). ``apiKey`` may be ``${VAR}``. A BYOK run needs no Factory login.

gwconf owns the ``customModels`` element whose ``displayName`` is ``gwconf`` (``model``, ``baseUrl``,
``apiKey``, ``provider``, ``maxOutputTokens``) and ``sessionDefaultSettings.model``.
``maxOutputTokens`` is the model's output limit when known (limits.py), sent as ``max_tokens`` and
used as the summarizer's ceiling; it is optional (the 0.225.2 schema: ``maxOutputTokens:l().optional()``,
and without it Droid uses its own default), so with the limits unknown it is left out: no made-up
number. Droid has no setting for the window itself that 0.225.2 reads (the schema declares
``maxContextLimit`` but nothing reads it): a custom model compacts at
``compactionTokenLimitPerModel[<its id>]``, else ``compactionTokenLimit``, else 250000 whatever its
window (``getCompactionTokenLimitForModel``; the per-model table is a top-level key of settings.json,
which Droid's own /compact-limit picker writes). With both limits known gwconf writes its model's
entry there: the window less the output, the point Droid derives for its own models
(``maxInputTokens``); otherwise it takes that entry out. Droid does not
show a rejected key (``droid exec`` prints only "Exec failed"), so doctor's direct request is
what tells a bad key from a bad setting. ``gwconf run factory-droid`` adds ``-m <id>`` after a
temporary ``FACTORY_HOME_OVERRIDE`` whose settings.json ``render()`` edited.
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
    env_dir,
    find_table,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.formats import Document, lazy
from gwconf.limits import known_limits
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "factory-droid"
NAME = "Factory Droid"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("droid",)
DOCS = "https://docs.factory.ai/cli/byok/overview"
RESTART = (
    "Droid reads settings.json when a session starts: leave running `droid` sessions (/quit) and start droid "
    "again, or pick the gwconf model with /model in a running one; `droid exec` reads it on every run."
)
RESTAMPED: tuple[str, ...] = ()

DISPLAY_NAME = "gwconf"
PROVIDERS = {
    "generic-chat-completion-api": ("chat", "bearer"),
    "openai": ("responses", "bearer"),
    "anthropic": ("messages", "x-api-key"),
}
CLI = "gwconf apply factory-droid"
_ENV_REF = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
import_link = no_import_link
preflight = no_preflight
steps = no_steps
import_link = no_import_link
project_scope_files = no_project_scope_files


def factory_dir(env: Env) -> Path:
    return env_dir(env, "FACTORY_HOME_OVERRIDE", env.home) / ".factory"


def files(env: Env) -> list[ConfigFile]:
    found = [ConfigFile("settings", factory_dir(env) / "settings.json", "jsonc", secret=True)]
    legacy = factory_dir(env) / "config.json"
    if legacy.is_file():
        found.append(ConfigFile("legacy", legacy, "jsonc", secret=True))
    return found


def model_id(display_name: str, index: int) -> str:
    return f"custom:{'-'.join(display_name.split())}-{index}"


def find_entry(doc: Document) -> tuple[int | None, dict[str, Any] | None]:
    return find_table(
        doc.get(("customModels",), None), lambda entry: entry.get("displayName") == DISPLAY_NAME
    )


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    model = require_model(target, NAME, "customModels[].model")
    settings = docs["settings"]
    index, _ = find_entry(settings)
    fields_: dict[str, Any] = {
        "model": model,
        "displayName": DISPLAY_NAME,
        "baseUrl": target.base_url,
        "apiKey": target.api_key,
        "provider": "generic-chat-completion-api",
        **dict(known_limits(target, None, "maxOutputTokens")),
    }
    models = settings.get(("customModels",), None)
    if index is None:
        if isinstance(models, list):
            index = settings.append(("customModels",), fields_)
        else:
            settings.set(("customModels",), [fields_])
            index = 0
    else:
        for key, value in fields_.items():
            settings.set(("customModels", index, key), value)
        if "maxOutputTokens" not in fields_:  # unknown now: no number left from another profile
            settings.delete(("customModels", index, "maxOutputTokens"))
    settings.set(("sessionDefaultSettings", "model"), model_id(DISPLAY_NAME, index))
    _render_compaction(settings, model_id(DISPLAY_NAME, index), target)
    return []


def _render_compaction(settings: Document, custom_id: str, target: Target) -> None:
    """``compactionTokenLimitPerModel[<custom id>]``: the window less the output when both are known
    (what Droid derives for its own models: ``maxInputTokens``, the window without the output, is
    their compaction point); else taken out, and so is an id of gwconf's entry at another place."""
    table = ("compactionTokenLimitPerModel",)
    current = settings.get(table, None)
    for key in list(current) if isinstance(current, dict) else []:
        if key != custom_id and key.startswith(f"custom:{DISPLAY_NAME}-"):
            settings.delete((*table, key))
    window, output = target.limits.context_window, target.limits.max_output_tokens
    if window and output and window > output:
        settings.set((*table, custom_id), window - output)
    else:
        settings.delete((*table, custom_id))
    if settings.get(table, None) == {}:
        settings.delete(table)


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    require_model(target, NAME, "-m")
    return LaunchSpec(
        argv=["droid", *args],
        env={"FACTORY_HOME_OVERRIDE": TempPath("home")},
        copies={"home/.factory": factory_dir(env)},
        render={"settings": "home/.factory/settings.json"},
    )


# -- read ----------------------------------------------------------------------------------------


def _custom_models(docs: dict[str, Document]) -> list[dict[str, Any]]:
    """settings.json's ``customModels``; the legacy file's ``custom_models`` only when it has none."""
    models = docs["settings"].get(("customModels",), None)
    if isinstance(models, list) and models:
        return [m for m in models if isinstance(m, dict)]
    legacy = docs["legacy"].get(("custom_models",), None) if "legacy" in docs else None
    if not isinstance(legacy, list):
        return []
    renamed = {"base_url": "baseUrl", "api_key": "apiKey", "display_name": "displayName"}
    return [{renamed.get(k) or k: v for k, v in m.items()} for m in legacy if isinstance(m, dict)]


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    findings = reading.findings
    chosen = docs["settings"].get(("sessionDefaultSettings", "model"), None)
    reading.provider = chosen if isinstance(chosen, str) else None
    if not isinstance(chosen, str) or not chosen.startswith("custom:"):
        findings.append(
            Finding(
                "error",
                "provider",
                f"sessionDefaultSettings.model is {chosen!r}: Droid uses Factory's own models (and login), "
                "not a custom model.",
                CLI,
            )
        )
        return reading
    models = _custom_models(docs)
    entry = None
    for index, candidate in enumerate(models):
        if model_id(str(candidate.get("displayName") or candidate.get("model") or ""), index) == chosen:
            entry = candidate
            break
    if entry is None:
        findings.append(
            Finding(
                "error",
                "provider",
                f'sessionDefaultSettings.model is "{chosen}", which names no entry of customModels (the id is '
                "custom:<displayName>-<position>: an entry added or removed before it changes it).",
                CLI,
            )
        )
        return reading
    reading.provider_is_gwconf = entry.get("displayName") == DISPLAY_NAME
    reading.model = entry.get("model") if isinstance(entry.get("model"), str) else None
    provider = entry.get("provider")
    provider = provider if isinstance(provider, str) else ""
    reading.wire, reading.auth_header = PROVIDERS.get(provider, ("chat", "bearer"))
    reading.base_url = entry.get("baseUrl") if isinstance(entry.get("baseUrl"), str) else None
    raw = entry.get("apiKey")
    where = (
        f"{shown(factory_dir(env) / 'settings.json', env)} customModels[{entry.get('displayName')}].apiKey"
    )
    reading.key_origin = where
    if isinstance(raw, str) and _ENV_REF.fullmatch(raw):
        name = _ENV_REF.fullmatch(raw).group(1)  # type: ignore[union-attr]
        reading.api_key, reading.key_origin = env.get(name), f"${name} (named by {where})"
        if reading.api_key is None:
            findings.append(
                Finding("error", "key", f"{where} refers to ${name}, which is not set here.", CLI)
            )
    else:
        reading.api_key = raw if isinstance(raw, str) else None
    if provider != "generic-chat-completion-api":
        findings.append(
            Finding(
                "error",
                "provider",
                f'the custom model\'s provider is "{provider}": the gateway is served as '
                '"generic-chat-completion-api" (chat completions).',
                CLI,
            )
        )
    if reading.base_url and urls.is_vendor_host(urls.host_of(reading.base_url)):
        findings.append(Finding("error", "base", "the custom model's baseUrl points at a vendor."))
    return reading


def doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    """Droid hides a rejected key: say so, since its own output will not."""
    return [
        Finding(
            "info",
            "key",
            "Droid does not show a gateway's 401: `droid exec` prints only \"Exec failed\". This doctor's direct "
            "request is the way to tell a rejected key from a setting.",
        )
    ]
