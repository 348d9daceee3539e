"""pi (pi-coding-agent): ``~/.pi/agent/models.json`` (custom providers) + ``~/.pi/agent/settings.json``.

Docs: docs/models.md and docs/settings.md in the npm package
(https://github.com/badlogic/pi-mono/tree/main/packages/coding-agent/docs); checked against
@mariozechner/pi-coding-agent 0.73.1 (run against a test gateway) and its
``dist/``: ``config.js`` builds the folder as ``$PI_CODING_AGENT_DIR`` (``~`` expanded), else
``join(homedir(), ".pi", "agent")``, the same on every OS (``%USERPROFILE%\\.pi\\agent``);
``model-registry.js`` reads models.json after stripping ``//`` comments and trailing commas (no
``/* */``: older ``model-registry.ts`` in badlogic/pi-mono calls plain ``JSON.parse`` and on a
SyntaxError keeps no custom model at all, "Failed to parse models.json"; so gwconf refuses to edit
a models.json with a ``/* */`` comment, naming its line, and status/doctor report it) and takes a
provider's key from ``auth.json`` before models.json's ``apiKey``;
``resolve-config-value.js`` runs an ``apiKey`` starting with ``!`` as a shell command and reads any
other as the name of an environment variable first, as a literal only when no such variable is
set; ``settings-manager.js`` merges ``<cwd>/.pi/settings.json`` over the global file (strict
JSON); ``model-resolver.js``: ``--provider/--model`` > ``defaultProvider``+``defaultModel`` (when
that model exists) > the first vendor with a key.

gwconf owns ``providers.gwconf`` in models.json (``baseUrl``, ``api: "openai-completions"``,
``apiKey``, ``compat.supportsDeveloperRole: false`` so the system prompt goes as ``system``, and
one ``models`` entry), ``providers.gwconf-anthropic`` (``anthropic-messages``) only when the
profile sets an Anthropic-style address, and ``defaultProvider``/``defaultModel`` in settings.json.
With a non-empty ``enabledModels`` (scoped models), pi 0.73.1 starts with the saved default when
it is in scope, else with the first scoped model (``dist/main.js``; ``resolveModelScope``: a
pattern is ``provider/id`` or ``id``, or a glob on either, case aside). So gwconf leaves a scope
that already holds ``gwconf/<model>`` (a ``gwconf/*`` glob, say) as it is, and otherwise puts
``gwconf/<model>`` first (the user's patterns move one place down, in scope for Ctrl+P; element by
element, so each keeps its spelling); restore gives the list back.
The Responses wire pi also speaks is not offered: the gateway's spec serves chat completions.
``gwconf run pi`` starts pi with ``--provider gwconf --model <m>`` on a temporary copy of the
agent folder (``PI_CODING_AGENT_DIR``) whose two files ``render()`` edited.

The model entry's ``contextWindow`` and ``maxTokens`` (docs/models.md "Model fields", both optional;
``model-registry.js`` rejects values <= 0 and defaults them to 128000 and 16384): the model's
limits when known (limits.py), left out when unknown, so pi's own defaults apply.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gwconf import secrets, urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_list,
    default_detect_for,
    default_target,
    env_dir,
    load_other,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, require_model
from gwconf.errors import ParseError
from gwconf.formats import Document, lazy
from gwconf.limits import known_limits
from gwconf.paths import Env
from gwconf.records import fields, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "pi"
NAME = "pi"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("pi",)
DOCS = "https://github.com/badlogic/pi-mono/blob/main/packages/coding-agent/docs/models.md"
RESTART = (
    "pi reads settings.json when it starts: quit running pi sessions and start pi again (in a running "
    "session, /model re-reads models.json: pick gwconf there)."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
ANTHROPIC_ID = "gwconf-anthropic"
APIS = {
    "openai-completions": ("chat", "bearer"),
    "openai-responses": ("responses", "bearer"),
    "anthropic-messages": ("messages", "x-api-key"),
    "google-generative-ai": ("gemini", "x-goog-api-key"),
}
_ENV_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
CLI = "gwconf apply pi"

# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
import_link = no_import_link
preflight = no_preflight
steps = no_steps
import_link = no_import_link
project_scope_files = no_project_scope_files


@record
class PiTarget(Target):
    """The chat target plus the Anthropic-style address when the profile sets one."""

    anthropic_base: str | None = None


def target(profile: Any, env: Env) -> PiTarget:
    base = default_target(sys.modules[__name__], profile, env)
    values = {f.name: getattr(base, f.name) for f in fields(Target)}
    return PiTarget(**values, anthropic_base=profile.anthropic_base_url or None)


def agent_dir(env: Env) -> Path:
    return env_dir(env, "PI_CODING_AGENT_DIR", env.home / ".pi" / "agent")


def files(env: Env) -> list[ConfigFile]:
    folder = agent_dir(env)
    found = [
        ConfigFile("models", folder / "models.json", "jsonc", secret=True),
        ConfigFile("settings", folder / "settings.json", "json"),
    ]
    if (folder / "auth.json").is_file():
        found.append(ConfigFile("auth", folder / "auth.json", "json", secret=True))
    return found


# -- render --------------------------------------------------------------------------------------


def _provider(doc: Document, provider: str, base: str, api: str, target: Target, model: str) -> None:
    entry = ("providers", provider)
    doc.set((*entry, "baseUrl"), base)
    doc.set((*entry, "api"), api)
    doc.set((*entry, "apiKey"), target.api_key)
    if api == "openai-completions":
        doc.set((*entry, "compat", "supportsDeveloperRole"), False)
    # the whole list is gwconf's: the limits of another profile cannot stay behind in it
    limits = dict(known_limits(target, "contextWindow", "maxTokens"))
    doc.set((*entry, "models"), [{"id": model, "name": model, **limits}])


def _block_comment(doc: Document) -> tuple[int, int] | None:
    """Where models.json has a ``/* */`` comment, which pi cannot read (None: it has none). Asked
    before any edit, so ``dump()`` is the file's text; a missing file loads no editor for it."""
    text = doc.dump()
    if "/*" not in text:
        return None
    from gwconf.formats.json import block_comment_at

    return block_comment_at(text)


BLOCK_COMMENT = (
    "a /* */ comment: pi strips only // comments and trailing commas before JSON.parse, so it cannot "
    "read this file and drops every provider in it"
)
BLOCK_FIX = "Remove the /* */ comment (or turn it into // lines), then run gwconf again."


_THINKING = ("off", "minimal", "low", "medium", "high", "xhigh")


def in_scope(patterns: list[Any], provider: Any, model: Any) -> bool:
    """Whether ``provider/model`` is among the scoped models ``patterns`` name. pi 0.73.1 starts
    with the saved default when it is in scope, else with the first scoped model (``main.js``);
    a pattern is ``provider/id`` or ``id`` (a ``:thinking`` level may follow), or a glob matched,
    case aside, against either (``resolveModelScope``: minimatch, whose ``*`` stops at ``/``).
    A pattern pi would match more loosely counts as out of scope: gwconf then puts its own first."""
    if not isinstance(provider, str) or not isinstance(model, str):
        return False
    full, bare = f"{provider}/{model}".lower(), model.lower()
    for pattern in patterns:
        if not isinstance(pattern, str):
            continue
        text = pattern.lower()
        head, _, level = text.rpartition(":")
        if head and level in _THINKING:
            text = head
        if any(c in text for c in "*?["):
            if _glob(text, full) or _glob(text, bare):
                return True
        elif text in (full, bare):
            return True
    return False


def _glob(pattern: str, name: str) -> bool:
    """minimatch's answer for the patterns pi's settings hold: ``*`` and ``?`` within one path part."""
    import fnmatch

    parts, names = pattern.split("/"), name.split("/")
    return len(parts) == len(names) and all(
        fnmatch.fnmatchcase(n, p) for p, n in zip(parts, names, strict=True)
    )


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    model = require_model(target, NAME, "settings.json defaultModel")
    models, settings = docs["models"], docs["settings"]
    at = _block_comment(models)
    if at is not None:  # gwconf's entry would be written to a file pi cannot read
        raise ParseError(models.source, BLOCK_COMMENT, *at, hint=BLOCK_FIX)
    _provider(models, PROVIDER_ID, target.base_url, "openai-completions", target, model)
    anthropic = getattr(target, "anthropic_base", None)
    if anthropic:
        _provider(models, ANTHROPIC_ID, anthropic, "anthropic-messages", target, model)
    else:
        models.delete(("providers", ANTHROPIC_ID))
    settings.set(("defaultProvider",), PROVIDER_ID)
    settings.set(("defaultModel",), model)
    scoped = settings.get(("enabledModels",), None)
    ours = f"{PROVIDER_ID}/{model}"
    if isinstance(scoped, list) and scoped and not in_scope(scoped, PROVIDER_ID, model):
        # findInitialModel: the first scoped model wins over defaultProvider/defaultModel. gwconf's goes
        # first (one an earlier profile put there is replaced); the user's stay in scope for Ctrl+P
        rest = [m for m in scoped if not (isinstance(m, str) and m.lower() == ours.lower())]
        if rest and _ours_before(rest[0]):
            rest = rest[1:]
        _set_elements(settings, ("enabledModels",), scoped, [ours, *rest])
    if anthropic:
        return [f"also added provider {ANTHROPIC_ID} (Anthropic Messages); pick it in pi with /model"]
    return []


def _set_elements(doc: Document, path: tuple[str, ...], old: list[Any], new: list[Any]) -> None:
    """``new`` into the list at ``path`` element by element, not as one new list: each of the user's
    entries keeps its place in the text (an inline list stays inline) and is gwconf's own managed
    key, so restore puts each back as the user wrote it and leaves their later edits alone."""
    for index, value in enumerate(new):
        if index >= len(old):
            doc.append(path, value)
        elif old[index] != value:
            doc.set((*path, index), value)
    for index in range(len(old) - 1, len(new) - 1, -1):
        doc.delete((*path, index))


def _ours_before(pattern: Any) -> bool:
    """An entry gwconf put first for another model: ``gwconf/<model>``, no glob."""
    return (
        isinstance(pattern, str)
        and pattern.startswith(f"{PROVIDER_ID}/")
        and not any(c in pattern for c in "*?[")
    )


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    model = require_model(target, NAME, "--model")
    return LaunchSpec(
        argv=["pi", "--provider", PROVIDER_ID, "--model", model, *args],
        env={"PI_CODING_AGENT_DIR": TempPath("agent")},
        copies={"agent": agent_dir(env)},
        render={"models": "agent/models.json", "settings": "agent/settings.json"},
    )


# -- read ----------------------------------------------------------------------------------------


def resolve(value: Any, env: Env) -> tuple[str | None, str | None]:
    """pi's resolveConfigValue: (the value pi sends, the variable it came from). A ``!command`` is
    not run here: (None, None)."""
    if not isinstance(value, str) or not value:
        return None, None
    if value.startswith("!"):
        return None, None
    from_env = env.get(value)
    return (from_env, value) if from_env else (value, None)


def read(docs: dict[str, Document], env: Env) -> Reading:
    reading = _read(docs, env)
    at = _block_comment(docs["models"])
    if at is not None:
        reading.provider_is_gwconf = False
        reading.findings.insert(
            0,
            Finding(
                "error",
                "provider",
                f"{shown(agent_dir(env) / 'models.json', env)}:{at[0]}:{at[1]}: {BLOCK_COMMENT}.",
                BLOCK_FIX,
            ),
        )
    return reading


def _read(docs: dict[str, Document], env: Env) -> Reading:
    reading = Reading(wire=WIRE)
    findings = reading.findings
    folder = agent_dir(env)
    settings_data = docs["settings"].data()
    merged = dict(settings_data) if isinstance(settings_data, dict) else {}
    project = env.cwd / ".pi" / "settings.json"
    project_doc = load_other(project, "json", env, findings) if project != folder / "settings.json" else None
    project_data = project_doc.data() if project_doc is not None else None
    if isinstance(project_data, dict):
        overrides = [k for k in ("defaultProvider", "defaultModel", "enabledModels") if k in project_data]
        if overrides:
            findings.append(
                Finding(
                    "warning",
                    "override",
                    f"{shown(project, env)} sets {', '.join(overrides)}, which wins over the global settings.json "
                    "when pi starts in this folder.",
                    f"remove {', '.join(overrides)} from {shown(project, env)}",
                )
            )
        merged.update(project_data)
    provider, model = merged.get("defaultProvider"), merged.get("defaultModel")
    reading.provider = provider if isinstance(provider, str) else None
    reading.model = model if isinstance(model, str) else None
    field = "defaultProvider"
    scoped = merged.get("enabledModels")
    first = scoped[0] if isinstance(scoped, list) and scoped else None
    saved_in_scope = isinstance(scoped, list) and in_scope(scoped, reading.provider, reading.model)
    if isinstance(first, str) and not saved_in_scope:
        # model-resolver.ts findInitialModel: 2. the first scoped model, before 3. the saved default
        findings.append(
            Finding(
                "error",
                "provider",
                f'settings.json enabledModels (scoped models) starts with "{first}": pi starts with the first '
                "model it matches, not defaultProvider/defaultModel.",
                CLI,
            )
        )
        if "/" not in first or any(c in first for c in "*?["):
            reading.provider, reading.model = f"the first match of {first!r}", None
            return reading
        reading.provider, reading.model = first.split("/", 1)
        field = "enabledModels[0]"
    if not reading.provider or not reading.model:
        findings.append(
            Finding(
                "error",
                "provider",
                "settings.json has no defaultProvider and defaultModel: pi picks the first vendor it has a key for.",
                CLI,
            )
        )
        return reading
    providers = docs["models"].get(("providers",), None)
    entry = providers.get(reading.provider) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        findings.append(
            Finding(
                "error",
                "provider",
                f'{field} is "{reading.provider}", a built-in vendor provider, not gwconf\'s entry.',
                CLI,
            )
        )
        return reading
    reading.provider_is_gwconf = reading.provider in (PROVIDER_ID, ANTHROPIC_ID)
    api = entry.get("api")
    api = api if isinstance(api, str) else "openai-completions"
    reading.wire, reading.auth_header = APIS.get(api, ("chat", "bearer"))
    reading.base_url = entry.get("baseUrl") if isinstance(entry.get("baseUrl"), str) else None
    listed = [m.get("id") for m in as_list(entry.get("models")) if isinstance(m, dict)]
    if reading.model not in listed:
        findings.append(
            Finding(
                "error",
                "provider",
                f'defaultModel "{reading.model}" is not a model of provider {reading.provider} in models.json: '
                "pi falls back to the first vendor it has a key for.",
                CLI,
            )
        )
    _read_key(reading, reading.provider, docs, entry, env, folder)
    if reading.provider == PROVIDER_ID and api != "openai-completions":
        findings.append(
            Finding(
                "error",
                "provider",
                f'providers.gwconf.api is "{api}": the gateway serves chat completions.',
                CLI,
            )
        )
    if reading.base_url and urls.is_vendor_host(urls.host_of(reading.base_url)):
        findings.append(Finding("error", "base", f"providers.{reading.provider}.baseUrl points at a vendor."))
    return reading


def _read_key(
    reading: Reading, provider: str, docs: dict[str, Document], entry: dict[str, Any], env: Env, folder: Path
) -> None:
    """auth.json's ``api_key`` credential for the provider wins over models.json's ``apiKey``."""
    auth = docs["auth"].get((provider,), None) if "auth" in docs else None
    if isinstance(auth, dict) and auth.get("type") in ("api_key", "oauth"):
        where = f"{shown(folder / 'auth.json', env)} {reading.provider}"
        reading.findings.append(
            Finding(
                "warning",
                "key",
                f"{where} holds a {auth['type']} credential: pi sends it, not models.json's apiKey.",
                f"remove the {reading.provider} entry from {shown(folder / 'auth.json', env)}",
            )
        )
        if auth.get("type") == "api_key":
            reading.api_key, variable = resolve(auth.get("key"), env)
            reading.key_origin = f"${variable} (named by {where})" if variable else where
        return
    raw = entry.get("apiKey")
    reading.api_key, variable = resolve(raw, env)
    field = f"models.json providers.{reading.provider}.apiKey"
    reading.key_origin = f"${variable} (named by {field})" if variable else field
    if isinstance(raw, str) and raw.startswith("!"):
        reading.findings.append(
            Finding(
                "warning",
                "key",
                f"{field} starts with '!': pi runs the rest as a shell command and sends what it prints "
                "(gwconf does not run it).",
            )
        )


def doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    """pi reads an apiKey that looks like a variable name as that variable when it is set."""
    providers = docs["models"].get(("providers",), None)
    entry = providers.get(reading.provider) if isinstance(providers, dict) and reading.provider else None
    raw = entry.get("apiKey") if isinstance(entry, dict) else None
    if not isinstance(raw, str) or not _ENV_NAME.fullmatch(raw):
        return []
    field = f"providers.{reading.provider}.apiKey"
    if env.get(raw):
        return [
            Finding(
                "warning",
                "key",
                f"{field} ({secrets.mask(raw)}) is also the name of an environment variable set here: "
                "pi reads it as that name and sends the variable's value instead.",
                f"unset that variable, or use a key that is not a variable name (then run: {CLI})",
            )
        ]
    return [
        Finding(
            "warning",
            "key",
            f"{field} looks like an environment variable name: pi sends it as the key only while no "
            "variable of that name is set.",
            CLI,
        )
    ]
