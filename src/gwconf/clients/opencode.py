"""opencode: ``opencode.jsonc`` / ``opencode.json`` in ``$XDG_CONFIG_HOME/opencode`` (+ ``auth.json``).

Docs: https://opencode.ai/docs/providers/#custom-provider and https://opencode.ai/docs/config/ ;
checked against opencode-ai 1.18.33 (run against a test gateway) and the
anomalyco/opencode source (global files merged ``config.json`` < ``opencode.json`` <
``opencode.jsonc``; ``options.apiKey`` wins over ``auth.json``, which wins over the provider's
``env`` list). The folder is xdg-basedir's: ``~/.config/opencode`` on every OS, Windows included
(``%USERPROFILE%\\.config\\opencode``); ``XDG_CONFIG_HOME`` moves it, ``OPENCODE_CONFIG`` adds a
file merged last, ``OPENCODE_CONFIG_DIR`` and ``OPENCODE_CONFIG_CONTENT`` add more layers. An
administrator's folder (``/etc/opencode``, ``/Library/Application Support/opencode``,
``%ProgramData%\\opencode``) is read after all of them, and wins: ``read`` follows it and names it
(macOS's managed preferences plist is not read).

gwconf owns ``provider.gwconf`` (``npm: "@ai-sdk/openai-compatible"``: the chat wire; the built-in
``openai`` provider speaks the Responses API), its ``options.baseURL``, ``options.apiKey`` (the
key itself, so the file becomes 0600; opencode reads it before ``auth.json``), one ``models``
entry, and the top-level ``model`` and ``small_model`` (opencode sends a title request with
``small_model``; left at a vendor model it fails or goes elsewhere). A whitelist
``enabled_providers`` gets ``"gwconf"`` added (restore takes it out again): provider.ts
``isProviderAllowed`` drops every provider it does not list, and ``disabled_providers`` every one it
lists (reported, not edited). An agent's own ``agent.<name>.model`` wins over ``model`` (session
prompt: ``input.model ?? agent.model ?? lastModel``); ``read`` follows the default agent's
(``default_agent``, else ``build``; Kilo: ``code``) and reports it, apply names it, neither edits
it: it is the user's choice for that agent. It edits ``opencode.jsonc``
when the user has one, else ``opencode.json``. Kilo (an opencode fork) reuses this module's
functions with its own ``Layout``. ``gwconf run opencode`` passes the provider entry ``render()``
builds as ``OPENCODE_CONFIG_CONTENT``, the last configuration layer but the administrator's
(project files included), so nothing is written at all. The model's limits, when known (limits.py), go to
``provider.gwconf.models.<model>.limit.context`` and ``.output`` (both required in opencode's
models.dev schema once ``limit`` is given; not checked against a running 1.18.33); unknown,
``limit`` is taken out.
"""

from __future__ import annotations

import os
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
    folders_to_project_root,
    load_other,
    merge_deep,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
    project_folder,
)
from gwconf.clients._launch_types import LaunchSpec, fresh_document
from gwconf.errors import ClientError
from gwconf.formats import Document, lazy
from gwconf.limits import output_or_default, window_or_default
from gwconf.paths import Env, display
from gwconf.records import record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "opencode"
NAME = "opencode"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("opencode",)
DOCS = "https://opencode.ai/docs/providers/#custom-provider"
RESTART = (
    "opencode reads its configuration when it starts: quit every running `opencode` (the TUI and any "
    "`opencode serve`) and start it again; sessions already open keep the old provider."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
NPM = "@ai-sdk/openai-compatible"
_ENV_REF = lazy(r"\{env:([^}]+)\}")
_FILE_REF = lazy(r"\{file:([^}]+)\}")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


@record(frozen=True)
class Layout:
    """What differs between opencode and its forks: folder names, file names, variable names."""

    app: str  # folder under the XDG config and data folders
    global_names: tuple[str, ...]  # global files in merge order (later wins)
    edit_order: tuple[str, ...]  # the first of these that exists is edited
    new_name: str  # ... else this one is created
    # project files in merge order (later wins): each group across the folders from the git root
    # down to cwd, group after group (Kilo reads its own names, then opencode's)
    project_groups: tuple[tuple[str, ...], ...]
    project_dirs: tuple[str, ...]  # hidden config folders, in the project and in the home folder
    dir_names: tuple[str, ...]  # what a hidden config folder is read for, in merge order
    config_env: str  # one more file, merged after the global ones
    config_dir_env: str
    content_env: str
    disable_project_env: str
    schema: str
    cli: str  # the apply command in fixes
    managed_names: tuple[str, ...]  # read from the administrator's folder (``managed_dir``), in order
    default_agent: str = "build"  # the primary agent a session starts with when default_agent is unset


OPENCODE = Layout(
    app="opencode",
    global_names=("config.json", "opencode.json", "opencode.jsonc"),
    edit_order=("opencode.jsonc", "opencode.json"),
    new_name="opencode.json",
    project_groups=(("opencode.json", "opencode.jsonc"),),
    project_dirs=(".opencode",),
    dir_names=("opencode.json", "opencode.jsonc"),
    config_env="OPENCODE_CONFIG",
    config_dir_env="OPENCODE_CONFIG_DIR",
    content_env="OPENCODE_CONFIG_CONTENT",
    disable_project_env="OPENCODE_DISABLE_PROJECT_CONFIG",
    schema="https://opencode.ai/config.json",
    cli="gwconf apply opencode",
    managed_names=("opencode.json", "opencode.jsonc"),
)


# -- files ---------------------------------------------------------------------------------------


def config_dir(env: Env, layout: Layout) -> Path:
    return env.xdg_config_home / layout.app


_MANAGED = " (managed by an administrator)"  # a managed layer's label ends so


def managed_dir(env: Env, layout: Layout) -> Path:
    """The administrator's folder, read after every other layer and so winning over them all
    (1.18.33 and Kilo 7.7.7 ``managedConfigDir``; ``<APP>_TEST_MANAGED_CONFIG_DIR`` moves it)."""
    moved = env.get(f"{layout.app.upper()}_TEST_MANAGED_CONFIG_DIR")
    if moved:
        return env.as_given(moved)
    if env.platform == "darwin":
        return Path("/Library/Application Support") / layout.app
    if env.platform == "win32":
        return Path(env.get("ProgramData") or "C:\\ProgramData") / layout.app
    return Path("/etc") / layout.app


def layout_files(env: Env, layout: Layout) -> list[ConfigFile]:
    """The edited file (role ``config``); the other global files and ``auth.json``, read only, when
    they exist (they take part in what the client will use)."""
    folder = config_dir(env, layout)
    edited = next((n for n in layout.edit_order if (folder / n).is_file()), layout.new_name)
    found = [ConfigFile("config", folder / edited, "jsonc", secret=True)]
    for name in layout.global_names:
        if name != edited and (folder / name).is_file():
            found.append(ConfigFile(f"global:{name}", folder / name, "jsonc"))
    auth = env.xdg_data_home / layout.app / "auth.json"
    if auth.is_file():
        found.append(ConfigFile("auth", auth, "json", secret=True))
    return found


def files(env: Env) -> list[ConfigFile]:
    return layout_files(env, OPENCODE)


def files_in_project(env: Env, layout: Layout) -> list[ConfigFile]:
    """The project file at the git root (else the current folder), which the client finds walking
    up from the current folder to the work tree's root (opencode's ``ConfigPaths.projectFiles``:
    ``findUp`` of ``<name>.jsonc`` and ``<name>.json`` between ``directory`` and ``worktree``).
    The one that exists is edited; a new one takes the layout's JSON name."""
    folder = project_folder(env)
    winner_first = [name for group in reversed(layout.project_groups) for name in reversed(group)]
    for name in winner_first:
        if (folder / name).is_file():
            return [ConfigFile("config", folder / name, "jsonc", secret=True)]
    # none yet: the app's own JSON name (Kilo: kilo.json, which its own loader reads first)
    new = next(name for group in layout.project_groups for name in group if name.endswith(".json"))
    return [ConfigFile("config", folder / new, "jsonc", secret=True)]


def project_scope_files(env: Env) -> list[ConfigFile]:
    return files_in_project(env, OPENCODE)


# -- render --------------------------------------------------------------------------------------


def render_layout(docs: dict[str, Document], target: Target, layout: Layout, name: str) -> list[str]:
    if not target.model:
        raise ClientError(
            f"{name} needs a model for its `model` setting (gwconf/<model>).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    config = docs["config"]
    if not config.data():
        config.set(("$schema",), layout.schema)
    entry = ("provider", PROVIDER_ID)
    config.set((*entry, "npm"), NPM)
    config.set((*entry, "name"), "gwconf gateway")
    config.set((*entry, "options", "baseURL"), target.base_url)
    config.set((*entry, "options", "apiKey"), target.api_key)
    if not isinstance(config.get((*entry, "models", target.model), None), dict):
        config.set((*entry, "models", target.model), {"name": target.model})
    notes: list[str] = []
    if target.limits.known:
        # models.<m>.limit needs both numbers (opencode's models.dev schema: context and output)
        limit = {
            "context": window_or_default(target, name, notes),
            "output": output_or_default(target, name, notes),
        }
        config.set((*entry, "models", target.model, "limit"), limit)
    else:  # unknown: opencode's own handling, not numbers left from another profile
        config.delete((*entry, "models", target.model, "limit"))
    config.set(("model",), f"{PROVIDER_ID}/{target.model}")
    config.set(("small_model",), f"{PROVIDER_ID}/{target.model}")
    allowed = config.get(("enabled_providers",), None)
    if isinstance(allowed, list) and PROVIDER_ID not in allowed:
        # a whitelist without gwconf hides gwconf's entry altogether (restore takes it out again)
        config.append(("enabled_providers",), PROVIDER_ID)
        notes.append(
            f'added "{PROVIDER_ID}" to enabled_providers: {name} loads only the providers listed there'
        )
    agent = config.get(("default_agent",), None)
    agent = agent if isinstance(agent, str) and agent else layout.default_agent
    own = config.get(("agent", agent, "model"), None)
    if isinstance(own, str) and not own.startswith(f"{PROVIDER_ID}/"):
        notes.append(
            f'agent.{agent}.model is "{own}": {name}\'s default agent {agent} keeps using it; remove it from '
            f"{config.source} (or set it to {PROVIDER_ID}/{target.model})"
        )
    return notes


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    return render_layout(docs, target, OPENCODE, NAME)


def launch_layout(target: Target, layout: Layout, name: str, args: list[str]) -> LaunchSpec:
    """The gwconf provider and model as inline JSON content (opencode parses it as JSON, so the
    key is a literal: it never reaches a file)."""
    config = fresh_document("json", f"${layout.content_env}")
    render_layout({"config": config}, target, layout, name)
    # the inline layer (OPENCODE_CONFIG_CONTENT) is merged after the project's opencode.json[c]
    return LaunchSpec(argv=[layout.app, *args], env={layout.content_env: config.dump()}, beats_project=True)


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return launch_layout(target, OPENCODE, NAME, args)


# -- read ----------------------------------------------------------------------------------------


def _load_extra(path: Path, env: Env, findings: list[Finding]) -> dict[str, Any] | None:
    """A layer gwconf does not edit (project file, OPENCODE_CONFIG): its data, or None."""
    doc = load_other(path, "jsonc", env, findings)
    data = doc.data() if doc is not None else None
    return data if isinstance(data, dict) else None


def project_layers(env: Env, layout: Layout, skip: set[Path]) -> list[Path]:
    """Project files from the git root down to cwd (nearer folders win), then hidden folders;
    only those that are files (the others are no layer). Looked up as strings: a Path for each
    of the 12 names in each folder up to the root was most of ``clients`` reading opencode and
    Kilo (issue 15)."""
    chain = [str(folder) for folder in reversed(folders_to_project_root(env, stop_at_home=True)[0])]
    skipped = {os.path.normcase(path) for path in skip}
    candidates = [
        os.path.join(folder, name) for group in layout.project_groups for folder in chain for name in group
    ]
    # hidden config folders: the project's, then the home folder's, read whether or not the walk
    # reached it (``ConfigPaths.directories``: ``up`` from the home folder to itself)
    homes = [] if str(env.home) in chain else [str(env.home)]
    candidates += [
        os.path.join(folder, hidden, name)
        for folder in [*chain, *homes]
        for hidden in layout.project_dirs
        for name in layout.dir_names
    ]
    return [Path(p) for p in candidates if os.path.normcase(p) not in skipped and os.path.isfile(p)]


def layers(
    docs: dict[str, Document], env: Env, layout: Layout, findings: list[Finding]
) -> list[tuple[str, dict[str, Any]]]:
    """Every configuration layer in opencode's merge order, as (label, data)."""
    folder = config_dir(env, layout)
    by_name = {n: docs.get(f"global:{n}") for n in layout.global_names}
    edited = Path(getattr(docs["config"], "source", "")).name
    result: list[tuple[str, dict[str, Any]]] = []
    for name in layout.global_names:
        doc = docs["config"] if name == edited else by_name.get(name)
        data = doc.data() if doc is not None else None
        if isinstance(data, dict) and (data or name == edited):  # the edited file marks its place
            result.append((display(folder / name, env), data))
    extra = env.get(layout.config_env)
    if extra:
        data = _load_extra(env.as_given(extra), env, findings)
        if data:
            result.append((f"${layout.config_env} ({extra})", data))
    if not env.get(layout.disable_project_env):
        skip = {folder / n for n in layout.global_names}
        for path in project_layers(env, layout, skip):
            data = _load_extra(path, env, findings)
            if data:
                result.append((display(path, env), data))
    extra_dir = env.get(layout.config_dir_env)
    if extra_dir:
        for name in layout.dir_names:
            data = _load_extra(env.as_given(extra_dir) / name, env, findings)
            if data:
                result.append((display(Path(extra_dir) / name, env), data))
    content = env.get(layout.content_env)
    if content:
        import json

        try:
            data = json.loads(content)
        except ValueError:
            findings.append(Finding("warning", "override", f"${layout.content_env} is not valid JSON."))
        else:
            if isinstance(data, dict):
                result.append((f"${layout.content_env}", data))
    managed = managed_dir(env, layout)
    for name in layout.managed_names:
        path = managed / name
        if os.path.isfile(path):
            data = _load_extra(path, env, findings)
            if data:
                result.append((f"{display(path, env)}{_MANAGED}", data))
    return result


def substitute(value: Any, env: Env, base: Path) -> tuple[Any, list[str]]:
    """``{env:X}`` (unset: empty, as opencode does) and ``{file:path}``; returns unset names too."""
    if not isinstance(value, str):
        return value, []
    missing: list[str] = []

    def from_env(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        got = env.get(name)
        if got is None:
            missing.append(name)
        return got or ""

    def from_file(match: re.Match[str]) -> str:
        raw = match.group(1).strip()
        path = (
            env.expand(raw)
            if raw.startswith("~")
            else (base / raw if not Path(raw).is_absolute() else Path(raw))
        )
        try:
            from gwconf.fileio import read_plain

            return read_plain(path).decode("utf-8").strip()
        except OSError:
            missing.append(f"file {raw}")
            return ""

    return _FILE_REF.sub(from_file, _ENV_REF.sub(from_env, value)), missing


def read_layout(docs: dict[str, Document], env: Env, layout: Layout, name: str) -> Reading:
    reading = Reading(wire=WIRE)
    findings = reading.findings
    stack = layers(docs, env, layout, findings)
    merged: dict[str, Any] = {}
    for _, data in stack:
        merged = merge_deep(merged, data)
    folder = config_dir(env, layout)
    choice = merged.get("model")
    source = "`model`"
    agents = merge_deep(as_dict(merged.get("agent")), as_dict(merged.get("mode")))  # mode: the old name
    default_agent = merged.get("default_agent")
    default_agent = (
        default_agent if isinstance(default_agent, str) and default_agent else layout.default_agent
    )
    own = as_dict(agents.get(default_agent)).get("model")
    if isinstance(own, str) and "/" in own and own != choice:
        # session prompt: input.model ?? agent.model ?? the last or default model
        where = _layer_setting(stack, ("agent", default_agent, "model")) or _layer_setting(
            stack, ("mode", default_agent, "model")
        )
        findings.append(
            Finding(
                "error",
                "provider",
                f'agent.{default_agent}.model is "{own}" ({where}): {name}\'s default agent {default_agent} '
                f"uses that model, not `model`.",
                f"remove agent.{default_agent}.model from {where} (or set it to gwconf/<model>)",
            )
        )
        choice, source = own, f"agent.{default_agent}.model"
    others = sorted(
        f"{agent} ({model})"
        for agent, model in ((a, as_dict(v).get("model")) for a, v in agents.items() if a != default_agent)
        if isinstance(model, str) and "/" in model and not model.startswith(f"{PROVIDER_ID}/")
    )
    if others:
        findings.append(
            Finding(
                "warning",
                "provider",
                f"{len(others)} other agent(s) set a model of their own, not the gateway's: {', '.join(others)}.",
                "remove agent.<name>.model where the gateway should answer",
            )
        )
    if not isinstance(choice, str) or "/" not in choice:
        reading.provider = "no model chosen"
        findings.append(
            Finding(
                "error",
                "provider",
                f"no `model` is set: {name} picks its last used or a vendor model.",
                layout.cli,
            )
        )
        return reading
    provider_id, model = choice.split("/", 1)
    reading.provider, reading.model = provider_id, model
    providers = as_dict(merged.get("provider"))
    entry = as_dict(providers.get(provider_id))
    options = as_dict(entry.get("options"))
    npm = entry.get("npm") or NPM
    reading.provider_is_gwconf = provider_id == PROVIDER_ID
    if npm == "@ai-sdk/openai" or (provider_id == "openai" and not entry.get("npm")):
        reading.wire = "responses"
    elif npm == "@ai-sdk/anthropic" or (provider_id == "anthropic" and not entry.get("npm")):
        reading.wire, reading.auth_header = "messages", "x-api-key"
    base, unset = substitute(options.get("baseURL"), env, folder)
    reading.base_url = base or (urls.OFFICIAL_OPENAI_BASE if provider_id == "openai" else None)
    if "apiKey" in options:
        reading.api_key, unset_key = substitute(options.get("apiKey"), env, folder)
        reading.key_origin = f"provider.{provider_id}.options.apiKey"
        unset += unset_key
    else:
        auth = docs["auth"].get((provider_id,), None) if "auth" in docs else None
        variables = as_list(entry.get("env"))
        if isinstance(auth, dict) and auth.get("type") == "api" and auth.get("key"):
            reading.api_key = auth["key"]
            reading.key_origin = f"{display(env.xdg_data_home / layout.app / 'auth.json', env)} {provider_id}"
        else:
            for variable in variables:
                if isinstance(variable, str) and env.get(variable):
                    reading.api_key, reading.key_origin = env.get(variable), f"${variable}"
                    break
    for item in unset:
        findings.append(
            Finding(
                "error",
                "key",
                f"provider.{provider_id} refers to {'$' + item if not item.startswith('file ') else item}, "
                "which is not set here: opencode sends an empty value.",
                f"export {item}=...  (or run: {layout.cli})" if not item.startswith("file ") else layout.cli,
            )
        )
    if provider_id != PROVIDER_ID and source == "`model`":  # an agent's model: reported above
        findings.append(
            Finding(
                "error",
                "provider",
                f'{source} is "{choice}": {name} talks to the {provider_id} provider, not gwconf\'s entry.',
                layout.cli,
            )
        )
    elif npm != NPM:
        findings.append(
            Finding(
                "error",
                "provider",
                f'provider.gwconf.npm is "{npm}"'
                + (" (the Responses API)" if npm == "@ai-sdk/openai" else "")
                + f": the gateway is served through {NPM}.",
                layout.cli,
            )
        )
    _provider_filters(reading, stack, merged, provider_id, name)
    small = merged.get("small_model")
    import json

    if not (isinstance(small, str) and small.startswith(f"{PROVIDER_ID}/")):
        findings.append(
            Finding(
                "warning",
                "provider",
                f"small_model is {json.dumps(small) if small else 'not set'}: {name}'s title request per "
                "session goes to that model (a vendor default when unset), not the gateway.",
                layout.cli,
            )
        )
    if (
        reading.base_url
        and provider_id == PROVIDER_ID
        and urls.is_vendor_host(urls.host_of(reading.base_url))
    ):
        findings.append(
            Finding("error", "base", f"provider.gwconf.options.baseURL points at a vendor: {base}")
        )
    edited = display(folder / Path(docs["config"].source).name, env)
    edited_at = next((i for i, (label, _) in enumerate(stack) if label == edited), -1)
    for index, (label, data) in enumerate(stack):
        if index <= edited_at:
            continue
        touched: list[str] = [k for k in ("model", "small_model") if k in data]
        if PROVIDER_ID in as_dict(data.get("provider")):
            touched.append("provider.gwconf")
        if touched:
            findings.append(
                Finding(
                    "warning",
                    "override",
                    f"{label} sets {', '.join(touched)}, which wins over {edited}.",
                    f"ask the administrator of {label.removesuffix(_MANAGED)} to change it: it wins over "
                    "every file of yours and over `gwconf run`"
                    if label.endswith(_MANAGED)
                    else f"remove {', '.join(touched)} from {label}",
                    administrator=label.endswith(_MANAGED),
                )
            )
    return reading


def _layer_setting(stack: list[tuple[str, dict[str, Any]]], path: tuple[str, ...]) -> str | None:
    """The label of the last layer (the one that wins) that sets ``path``."""
    found = None
    for label, data in stack:
        node: Any = data
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            found = label
    return found


def _provider_filters(
    reading: Reading,
    stack: list[tuple[str, dict[str, Any]]],
    merged: dict[str, Any],
    provider_id: str,
    name: str,
) -> None:
    """``enabled_providers`` (only those) and ``disabled_providers`` filter the providers opencode
    loads (provider.ts ``isProviderAllowed``): the chosen one filtered out is not there at all."""
    allowed = merged.get("enabled_providers")
    if isinstance(allowed, list) and provider_id not in allowed:
        where = _layer_setting(stack, ("enabled_providers",))
        reading.provider_is_gwconf = False
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"enabled_providers ({where}) does not list {provider_id}: {name} loads only the providers "
                f"listed there, so {provider_id}'s entry is ignored.",
                f'add "{provider_id}" to enabled_providers in {where}',
            )
        )
    denied = merged.get("disabled_providers")
    if isinstance(denied, list) and provider_id in denied:
        where = _layer_setting(stack, ("disabled_providers",))
        reading.provider_is_gwconf = False
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f"disabled_providers ({where}) lists {provider_id}: {name} does not load that provider.",
                f'remove "{provider_id}" from disabled_providers in {where}',
            )
        )


def read(docs: dict[str, Document], env: Env) -> Reading:
    return read_layout(docs, env, OPENCODE, NAME)
