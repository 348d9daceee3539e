"""Claude Code Router (``ccr``): ``~/.claude-code-router/config.json``, a ``Providers`` entry and ``Router.default``.

Docs: https://github.com/musistudio/claude-code-router#2-configuration ; checked against
@musistudio/claude-code-router 2.0.0 (run against a test gateway) and its
``dist/cli.js``: the folder is ``join(os.homedir(), ".claude-code-router")`` on every OS, with no
variable to move it; the file is parsed as JSON5 and string values get ``${VAR}`` / ``$VAR``
filled from the environment (left as written when unset). ``ccr code`` starts the router in the
background (port ``PORT``, 3456) and runs Claude Code against it; the router speaks Anthropic
Messages to Claude Code and sends chat completions to the provider. So it is how Claude Code
uses a gateway that has no Anthropic-style endpoint (doctor says so when the profile has none).

gwconf owns the ``Providers`` element named ``gwconf`` (``api_base_url``: the full
``…/v1/chat/completions`` address, ``api_key``, ``models``) and ``Router.default``
(``gwconf,<model>``). Other routes (``background``, ``think``, ``longContext``, ``webSearch``) stay
the user's; doctor names those that send Claude Code's requests elsewhere, and a project's own
``Router`` (``~/.claude-code-router/<project>/config.json``, which replaces the global one for
that project's sessions). A lowercase ``providers`` list is read when there is no ``Providers``
(``t.Providers||t.providers``): gwconf's entry joins it then. No ``gwconf run``: the
config path is fixed under the home folder and the router is a shared background service.
"""

from __future__ import annotations

import re
import sys

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target,
    find_table,
    no_import_link,
    no_launch,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
    upsert_table,
)
from gwconf.clients._launch_types import require_model
from gwconf.formats import Document, lazy
from gwconf.paths import Env
from gwconf.processes import alive
from gwconf.records import fields, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "claude-code-router"
NAME = "Claude Code Router"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "chat_endpoint"
PROGRAMS = ("ccr",)
DOCS = "https://github.com/musistudio/claude-code-router#2-configuration"
RESTART = (
    "The router reads config.json when it starts: run `ccr restart` (a running `ccr code` session keeps the "
    "old route until then); `ccr code` starts it when it is not running."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER = "gwconf"
CLI = "gwconf apply claude-code-router"
ROUTES = ("background", "think", "longContext", "webSearch", "image")
_ENV_REF = lazy(r"\$\{([^}]+)\}|\$([A-Z_][A-Z0-9_]*)")

# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
import_link = no_import_link
preflight = no_preflight
steps = no_steps
launch = no_launch
project_scope_files = no_project_scope_files


@record
class RouterTarget(Target):
    """The chat target, and whether the profile has an Anthropic-style address of its own."""

    has_anthropic: bool = False


def target(profile: Any, env: Env) -> RouterTarget:
    base = default_target(sys.modules[__name__], profile, env)
    values = {f.name: getattr(base, f.name) for f in fields(Target)}
    return RouterTarget(**values, has_anthropic=bool(profile.anthropic_base_url))


def folder(env: Env):  # type: ignore[no-untyped-def]
    return env.home / ".claude-code-router"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", folder(env) / "config.json", "json5", secret=True)]


def providers_key(doc: Document) -> str:
    """The list the router reads: ``Providers``, else a lowercase ``providers`` (2.0.0
    ``dist/cli.js``: ``t.Providers||t.providers``). A ``Providers`` added beside a lowercase list
    would hide the user's providers, and every route that names one of them."""
    data = doc.data()
    if (
        isinstance(data, dict)
        and data.get("Providers") in (None, False, "")
        and isinstance(data.get("providers"), list)
    ):
        return "providers"
    return "Providers"


def find_provider(doc: Document, name: str) -> tuple[int | None, dict[str, Any] | None]:
    return find_table(doc.get((providers_key(doc),), None), lambda entry: entry.get("name") == name)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    model = require_model(target, NAME, "Router.default")
    config = docs["config"]
    entry = {"name": PROVIDER, "api_base_url": target.base_url, "api_key": target.api_key, "models": [model]}
    upsert_table(
        config,
        (providers_key(config),),
        entry,
        lambda item: item.get("name") == PROVIDER,
        NAME,
        keys=("api_base_url", "api_key", "models"),
        hint="Providers is a list of provider objects",
    )
    config.set(("Router", "default"), f"{PROVIDER},{model}")
    if not getattr(target, "has_anthropic", True):
        return [no_anthropic_note()]
    return []


def no_anthropic_note() -> str:
    return (
        "the profile has no Anthropic-style address: through the router, Claude Code still works with this "
        "gateway (start it with `ccr code`)"
    )


# -- read ----------------------------------------------------------------------------------------


def fill(value: Any, env: Env, unset: list[str]) -> Any:
    """ccr's interpolation: ``${VAR}`` or ``$VAR`` from the environment, kept as written when unset."""
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        got = env.get(name)
        if got is None:
            unset.append(name)
            return match.group(0)
        return got

    return _ENV_REF.sub(one, value)


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    reading = Reading(wire=WIRE)
    findings = reading.findings
    route = config.get(("Router", "default"), None)
    if not isinstance(route, str) or "," not in route:
        reading.provider = "no default route"
        findings.append(
            Finding(
                "error", "provider", "Router.default is not set: the router has no model to send to.", CLI
            )
        )
        return reading
    name, reading.model = (part.strip() for part in route.split(",", 1))
    reading.provider = name
    reading.provider_is_gwconf = name == PROVIDER
    _, entry = find_provider(config, name)
    if entry is None:
        findings.append(
            Finding(
                "error", "provider", f'Router.default is "{route}", but no provider is named "{name}".', CLI
            )
        )
        return reading
    unset: list[str] = []
    # (a list or a number there is the adapter's to report, as for every client)
    reading.base_url = fill(entry.get("api_base_url"), env, unset)
    reading.api_key = fill(entry.get("api_key"), env, unset)
    reading.key_origin = f"{shown(folder(env) / 'config.json', env)} Providers[{name}].api_key"
    for variable in unset:
        findings.append(
            Finding(
                "error",
                "key",
                f"Providers[{name}] refers to ${variable}, which is not set here: the router sends the text as written.",
                CLI,
            )
        )
    if name != PROVIDER:
        findings.append(
            Finding(
                "error",
                "provider",
                f"Router.default is \"{route}\": Claude Code's requests go to provider {name}, not gwconf's entry.",
                CLI,
            )
        )
    models = entry.get("models")
    if isinstance(models, list) and reading.model not in models:
        findings.append(
            Finding("warning", "provider", f'"{reading.model}" is not in Providers[{name}].models.', CLI)
        )
    if entry.get("transformer"):
        findings.append(
            Finding(
                "info",
                "other",
                f"Providers[{name}] has a transformer: the router reshapes requests before the gateway sees them.",
            )
        )
    routes = config.get(("Router",), None)
    for key in ROUTES:
        other = routes.get(key) if isinstance(routes, dict) else None
        if isinstance(other, str) and other.split(",", 1)[0].strip() != name:
            findings.append(
                Finding(
                    "warning",
                    "override",
                    f'Router.{key} is "{other}": those requests of Claude Code go to another provider.',
                    f"set Router.{key} to {route} in {shown(folder(env) / 'config.json', env)}, or remove it",
                )
            )
    if reading.base_url and urls.is_vendor_host(urls.host_of(reading.base_url)):
        findings.append(Finding("error", "base", f"Providers[{name}].api_base_url points at a vendor."))
    findings += _project_routers(env)
    return reading


def _project_routers(env: Env) -> list[Finding]:
    """A ``Router`` in ``~/.claude-code-router/<project>/config.json`` replaces the global one for
    Claude Code sessions of that project (2.0.0 ``dist/cli.js``: the session's file, then the
    project's, then config.json's ``Router``); gwconf edits only the global one."""
    import json

    found = []
    try:
        folders = sorted(entry for entry in folder(env).iterdir() if entry.is_dir())
    except OSError:
        return []
    for project in folders:
        try:
            data = json.loads((project / "config.json").read_bytes())
        except (OSError, ValueError):
            continue
        router = data.get("Router") if isinstance(data, dict) else None
        default = router.get("default") if isinstance(router, dict) else None
        if router and not (isinstance(default, str) and default.split(",", 1)[0].strip() == PROVIDER):
            where = shown(project / "config.json", env)
            found.append(
                Finding(
                    "warning",
                    "override",
                    f"{where} has a Router of its own: Claude Code sessions of that project route by it, "
                    "not by the global Router.default.",
                    f"set its Router.default to {PROVIDER},<model>, or remove its Router",
                )
            )
    return found


def doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    """A router started before the last change still routes the old way."""
    from gwconf.fileio import read_plain

    found: list[Finding] = []
    pid_file = folder(env) / ".claude-code-router.pid"
    config = folder(env) / "config.json"
    try:
        pid = int(read_plain(pid_file, 64).decode("ascii", errors="replace").strip())
        started = pid_file.stat().st_mtime
        changed = config.stat().st_mtime
    except (OSError, ValueError):
        pid = 0
    if pid and alive(pid) and changed > started:
        found.append(
            Finding(
                "warning",
                "process",
                f"the router (pid {pid}) started before {shown(config, env)} last changed: it still routes the "
                "old way.",
                "ccr restart",
            )
        )
    # (why ccr for a gateway without an Anthropic-style address is said by apply, which knows the
    # profile it writes: render's note; doctor's hook sees files, not profiles)
    return found
