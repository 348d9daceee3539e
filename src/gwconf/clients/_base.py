"""The client protocol and the helpers client modules share (design.md section 4).

A client module is small and reads top to bottom: constants (``ID``, ``NAME``, ``FAMILY``,
``WIRE``, ``TIER``, ``RESTART``, ``BASE_FORM``, ``PROGRAMS``, ``DOCS``, ``RESTAMPED``), the hooks
it leaves to the shared defaults below, assigned by name, then ``files(env)``,
``render(docs, target, env)``, ``read(docs, env)`` and its own hooks. ``ClientModule`` lists
them all; nothing is looked up with ``getattr``. Only a client's own module knows about that client.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from gwconf import secrets, urls
from gwconf.errors import ClientError, WriteRefused
from gwconf.formats import MISSING, Document
from gwconf.limits import Limits
from gwconf.paths import Env, display, exists, is_dir
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    import re
    from typing import Any, Protocol

    from gwconf.clients._launch_types import LaunchSpec
    from gwconf.links import Link
else:  # at run time the protocol is a plain class: tests/test_client_protocol reads its members
    Protocol = object

FAMILIES = ("openai", "anthropic", "gemini")
WIRES = ("chat", "responses", "messages", "gemini")


@record(frozen=True)
class ConfigFile:
    """One file a client reads. ``role`` names it inside the client (``config``, ``auth``...)."""

    role: str
    path: Path
    format: str
    secret: bool = False  # holds a key: written 0600
    strict: bool = False  # strict JSON that must stay strict
    key_store: bool = False  # every value is a key (llm's keys.json): a diff masks each of them


@record
class Target:
    """What one client should point at, derived from a profile."""

    client_id: str
    profile_name: str
    base_url: str  # in the form this client wants
    api_key: str
    model: str | None
    wire: str
    family: str
    base_derived: bool = False  # family address derived from the OpenAI-style base
    notes: list[str] = field(default_factory=list)
    # the model's context window and output size: the profile's, else the gateway's (limits.py)
    limits: Limits = field(default_factory=Limits)

    @property
    def masked_key(self) -> str:
        return secrets.mask(self.api_key)


@record
class Finding:
    """One thing doctor or status has to say. ``area``: files, base, key, provider, override, process,
    other (``doctor.AREAS``)."""

    level: str  # "error", "warning" or "info"
    area: str
    message: str
    fix: str | None = None
    # an administrator's layer wins here: over the user's files, and over ``gwconf run`` as well
    administrator: bool = False

    def to_json(self) -> dict[str, Any]:
        found = {"level": self.level, "area": self.area, "message": self.message, "fix": self.fix}
        return {**found, "administrator": True} if self.administrator else found


@record
class Reading:
    """What a client will really send, read back from its files (following its own precedence)."""

    base_url: str | None = None
    api_key: str | None = None
    key_origin: str = ""  # where the key came from, for messages ("~/.codex/auth.json OPENAI_API_KEY")
    model: str | None = None
    provider: str | None = None  # the provider the client uses now, as the client names it
    provider_is_gwconf: bool = False
    wire: str = "chat"
    auth_header: str = "bearer"  # "bearer", "x-api-key" or "x-goog-api-key"
    findings: list[Finding] = field(default_factory=list)

    def fix_for(self, areas: tuple[str, ...], *, errors_only: bool = True) -> str | None:
        """The fix of the first finding in ``areas`` that names one (errors only, unless told):
        the client's own remedy, where one of its settings is at fault, for verify and doctor."""
        return next(
            (
                f.fix
                for f in self.findings
                if f.area in areas and f.fix and (f.level == "error" or not errors_only)
            ),
            None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "key": secrets.mask(self.api_key) if self.api_key else None,
            "key_origin": self.key_origin,
            "model": self.model,
            "provider": self.provider,
            "provider_is_gwconf": self.provider_is_gwconf,
            "wire": self.wire,
            "auth_header": self.auth_header,
            "findings": [f.to_json() for f in self.findings],
        }


# what a value that is not text is, named without the value: a key written as a number is still a key
_KINDS: dict[type, str] = {
    dict: "an object",
    list: "a list",
    int: "a number",
    float: "a number",
    bool: "true or false",
}


def _tilde_folders(client: ClientAdapter, env: Env) -> list[Finding]:
    """A file the client reads under a folder named ``~``: a variable that moves its folder holds
    a literal ``~`` (quoted in the shell, or set in a .env), which the client does not expand
    (``Env.as_given``). It reads a folder named ``~`` under the current one, not the home folder."""
    for file in client.files(env):
        if "~" not in file.path.parts:
            continue
        # the variables whose folder, taken as given, holds the file (any other ~-variable of the
        # environment is not this client's); all of them when none does (a path made in steps)
        leading = [
            name
            for name in env.literal_tildes
            if file.path.is_relative_to(env.as_given(env.environ[name].strip()))
        ]
        names = leading or list(env.literal_tildes)
        said = " and ".join(f"${name}" for name in names)
        verb = "starts" if len(names) == 1 else "start"
        return [
            Finding(
                "error",
                "files",
                f"{client.name} reads {display(file.path, env)}, under a folder named `~` in "
                f"{display(env.cwd, env)}: {said} {verb} with a literal `~`, which {client.name} does "
                "not expand.",
                f'Set {"it" if len(names) == 1 else "them"} with $HOME instead of ~ (export NAME="$HOME/..."), '
                "or leave the ~ unquoted.",
            )
        ]
    return []


def _only_text(reading: Reading, client_id: str) -> None:
    """A base address, key, model or provider that the file holds as a list, an object, a number
    or true (a hand edit gone wrong) is no value the client can send: reported, and read as
    unset. Each reader took what its file held, and the listing and doctor then treated it as
    text ("unexpected error" over a dozen clients' files, found by a type fuzz)."""
    for name, area in (
        ("base_url", "base"),
        ("api_key", "key"),
        ("model", "provider"),
        ("provider", "provider"),
    ):
        value = getattr(reading, name)
        if value is not None and not isinstance(value, str):
            setattr(reading, name, None)
            shown = _KINDS.get(type(value), "another kind of value")
            what = {"base_url": "base address", "api_key": "key"}.get(name, name)
            reading.findings.append(
                Finding(
                    "error",
                    area,
                    f"the {what} in the file is {shown}, not text.",
                    f"gwconf apply {client_id}",
                )
            )


# -- defaults ------------------------------------------------------------------------------------


def default_target(module: Any, profile: Any, env: Env) -> Target:
    """The profile's address in the form this client wants (``BASE_FORM``), key, model and limits."""
    family = module.FAMILY
    form = module.BASE_FORM
    derived = False
    notes: list[str] = []
    if family == "anthropic":
        base, derived = profile.anthropic_root()
        if derived:
            notes.append(f"Anthropic-style address derived from the base address: {base}")
    elif family == "gemini":
        base, derived = profile.gemini_root()
        if derived:
            notes.append(f"Gemini-style address derived from the base address: {base}")
    else:
        base = profile.base_url
        if form == "root":
            base = urls.root(base)
        elif form == "slash":
            base = urls.with_slash(base)
        elif form == "chat_endpoint":
            base = urls.chat_endpoint(base)
    from gwconf.limits import resolve

    model = profile.model_for(module.ID)
    return Target(
        client_id=module.ID,
        profile_name=profile.name,
        base_url=base,
        api_key=profile.resolve_key(env),
        model=model,
        wire=module.WIRE,
        family=family,
        base_derived=derived,
        notes=notes,
        limits=resolve(profile, model, env),
    )


def default_detect(module: Any, env: Env) -> bool:
    """A program on PATH, a config file, or the client's own folder (not a shared one like ~ or ~/.config).

    Files in gwconf's own folders (an import file gwconf writes for an app) are not the client's:
    saving a profile must not make a client look installed.
    """
    return default_detect_files(module, env, module.files(env))


def default_detect_files(module: Any, env: Env, files: list[ConfigFile]) -> bool:
    """``default_detect`` with the client's ``files(env)`` already worked out (``status`` and
    ``clients`` ask for them once per client). Strings and ``os.path``, not ``Path``: for 48
    clients the Path objects were most of detection's time (issue 15)."""
    if any(env.which(p) for p in module.PROGRAMS):
        return True
    if os.name == "nt":  # folders compare without case there: pathlib's rules
        shared_paths = {env.home, env.xdg_config_home, env.appdata, env.xdg_data_home}
        return any(
            f.path.exists() or (f.path.parent not in shared_paths and f.path.parent.is_dir())
            for f in files
            if not in_gwconf_folders(f.path, env)
        )
    shared = env.shared_folders
    for f in files:
        path = str(f.path)
        if in_gwconf_folders(f.path, env):
            continue
        if exists(path):
            return True
        parent = os.path.dirname(path) or "."
        if parent not in shared and is_dir(parent):
            return True
    return False


def in_gwconf_folders(path: Path, env: Env) -> bool:
    """Is ``path`` inside gwconf's own config or state folder?"""
    prefixes = env.own_folder_prefixes
    text = str(path)
    if prefixes is not None and text.startswith("/") and not text.startswith("//"):
        return any(text == folder or text.startswith(inside) for folder, inside in prefixes)
    return _in_folders_by_pathlib(path, env)


def _in_folders_by_pathlib(path: Path, env: Env) -> bool:
    """``in_gwconf_folders`` by pathlib's rules (the string shortcut is held to it)."""
    for folder in (env.config_dir, env.state_dir):
        try:
            path.relative_to(folder)
        except ValueError:
            continue
        return True
    return False


class ClientModule(Protocol):
    """What every module in ``clients/`` declares: each constant and each hook, no exceptions.

    As in pre-commit's ``Language`` protocol, a module without a hook of its own assigns the
    shared default explicitly (``preflight = no_preflight``, ``detect = default_detect_for(__name__)``),
    so a misspelled hook is an error a test finds (tests/test_client_protocol.py), never a default
    that silently runs instead.
    """

    ID: str
    NAME: str
    FAMILY: str  # which gateway protocol family: one of FAMILIES
    WIRE: str  # what verify must probe: one of WIRES
    TIER: int  # 1 files, 2 files of an app that must be closed, 3 steps to follow in the app
    RESTART: str  # the restart reminder
    BASE_FORM: str  # the form of the address it wants: v1, root, slash, chat_endpoint
    PROGRAMS: tuple[str, ...]  # programs on PATH that mean it is installed
    DOCS: str  # the client's own documentation page
    RESTAMPED: tuple[str, ...]  # fields the client itself rewrites in entries gwconf created

    def files(self, env: Env) -> list[ConfigFile]: ...

    def detect(self, env: Env) -> bool: ...

    def target(self, profile: Any, env: Env) -> Target: ...

    def render(self, docs: dict[str, Document], target: Target, env: Env) -> list[str] | None: ...

    def read(self, docs: dict[str, Document], env: Env) -> Reading: ...

    def preflight(self, env: Env, force: bool) -> list[str] | None:
        """Refuse (raise) or warn before writing; e.g. an app that rewrites its files from memory."""

    def steps(self, target: Target, show_key: bool) -> list[str] | None:
        """Tier 3: numbered UI steps instead of writing files."""

    def launch(self, target: Target, env: Env, args: list[str]) -> LaunchSpec | None:
        """``gwconf run``: how to start the client once with ``target`` injected (None: it cannot)."""

    def doctor(self, docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding] | None:
        """The client's own traps, beyond what ``read`` already found."""

    def project_scope_files(self, env: Env) -> list[ConfigFile] | None:
        """``apply --project``: the client's own project-scope files for the current folder, in
        the roles ``render`` edits (a role left out is not written); None when it has none."""

    def import_link(self, target: Target) -> Link | None:
        """``gwconf link``: the app's own import link for ``target`` (None: it has none)."""


def default_detect_for(module_name: str) -> Callable[[Env], bool]:
    """The shared ``detect`` for the module named ``module_name`` (see ``default_detect``)."""

    def detect(env: Env) -> bool:
        return default_detect(sys.modules[module_name], env)

    detect.default_for = module_name  # type: ignore[attr-defined]  # ClientAdapter.detect skips files(env)
    return detect


def default_target_for(module_name: str) -> Callable[[Any, Env], Target]:
    """The shared ``target`` for the module named ``module_name`` (see ``default_target``)."""

    def target(profile: Any, env: Env) -> Target:
        return default_target(sys.modules[module_name], profile, env)

    return target


def merge_deep(base: Any, top: Any) -> Any:
    """``top`` over ``base`` as the clients' layered configs merge: objects (tables) key by key,
    anything else replaced (opencode's ``mergeDeep``, codex-rs ``merge_toml_values``)."""
    if isinstance(base, dict) and isinstance(top, dict):
        result = dict(base)
        for key, value in top.items():
            result[key] = merge_deep(result.get(key), value)
        return result
    return top


def empty_folder_variables(env: Env, names: tuple[str, ...]) -> list[str]:
    """The variables of ``names`` set to nothing. A client that takes a set variable as it is
    (Rust's ``env::var``, Python's ``os.environ.get`` with a default) reads its files from the
    folder it starts in then: another file in each folder, which gwconf cannot write for all."""
    return [name for name in names if name in env.environ and not env.environ[name].strip()]


def refuse_empty_folder_variables(env: Env, names: tuple[str, ...], client: str, force: bool) -> list[str]:
    """The pre-flight check for ``empty_folder_variables``: refused, or with ``--force`` written in
    the current folder (where the client, started there, reads it), with a note."""
    empty = empty_folder_variables(env, names)
    if not empty:
        return []
    shown, here = ", ".join(f"${name}" for name in empty), display(env.cwd, env)
    if force:
        return [
            f"--force: {shown} is set but empty, so {client} reads the folder it starts in: written in {here}"
        ]
    raise WriteRefused(
        f"{shown} is set but empty: {client} then reads its files from the folder it starts in "
        f"({here} here), another one in each folder.",
        f"unset {' '.join(empty)} (or set it to a folder), then run again; --force writes in {here}.",
    )


def empty_folder_findings(env: Env, names: tuple[str, ...], client: str) -> list[Finding]:
    """What doctor and verify say of ``empty_folder_variables``."""
    return [
        Finding(
            "warning",
            "files",
            f"${name} is set but empty: {client} reads its files from the folder it starts in "
            f"({display(env.cwd, env)} here).",
            f"unset {name}",
        )
        for name in empty_folder_variables(env, names)
    ]


def no_preflight(env: Env, force: bool) -> list[str]:
    """Nothing to check before writing."""
    return []


def no_steps(target: Target, show_key: bool) -> list[str] | None:
    """Not a tier-3 client: gwconf writes its files."""
    return None


def no_launch(target: Target, env: Env, args: list[str]) -> LaunchSpec | None:
    """No one-launch way to inject a target: ``gwconf apply`` configures it instead."""
    return None


def no_doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    """No traps beyond what ``read`` reports."""
    return []


def no_import_link(target: Target) -> Link | None:
    """No import link of the app's own: ``gwconf link`` does not offer it."""
    return None


def no_project_scope_files(env: Env) -> list[ConfigFile] | None:
    """No project-scope settings file of its own: ``apply --project`` refuses, naming ``run``."""
    return None


def project_folder(env: Env) -> Path:
    """Where a project-scope file goes when the client looks in the repository's root: the git
    root above the current folder, else the current folder."""
    return project_root(env) or env.cwd


class ClientAdapter:
    """A client module seen through the protocol, with its summary line worked out once."""

    def __init__(self, module: ClientModule | ModuleType) -> None:
        client: ClientModule = module  # type: ignore[assignment,unused-ignore]  # test_client_protocol checks it
        self.module = client
        self.id: str = client.ID
        self.name: str = client.NAME
        self.family: str = client.FAMILY
        self.wire: str = client.WIRE
        self.tier: int = client.TIER
        self.restart: str = client.RESTART
        self.base_form: str = client.BASE_FORM
        self.programs: tuple[str, ...] = tuple(client.PROGRAMS)
        self.docs_url: str = client.DOCS
        self.restamped: tuple[str, ...] = tuple(client.RESTAMPED)
        doc = module.__doc__
        self.summary: str = doc.strip().splitlines()[0] if doc else self.name

    def files(self, env: Env) -> list[ConfigFile]:
        return list(self.module.files(env))

    def detect(self, env: Env, files: list[ConfigFile] | None = None) -> bool:
        """``files``: this client's ``files(env)`` when the caller has them already."""
        detect = self.module.detect
        if files is not None and getattr(detect, "default_for", None) == getattr(self.module, "__name__", 0):
            return default_detect_files(self.module, env, files)
        return detect(env)

    def target(self, profile: Any, env: Env) -> Target:
        return self.module.target(profile, env)

    def render(self, docs: dict[str, Document], target: Target, env: Env) -> list[str]:
        return list(self.module.render(docs, target, env) or [])

    def read(self, docs: dict[str, Document], env: Env) -> Reading:
        reading: Reading = self.module.read(docs, env)
        if not reading.wire:
            reading.wire = self.wire
        _only_text(reading, self.id)
        if env.literal_tildes:
            reading.findings += _tilde_folders(self, env)
        return reading

    def preflight(self, env: Env, force: bool) -> list[str]:
        return list(self.module.preflight(env, force) or [])

    def steps(self, target: Target, show_key: bool) -> list[str] | None:
        return self.module.steps(target, show_key)

    def launch(self, target: Target, env: Env, args: list[str]) -> LaunchSpec | None:
        return self.module.launch(target, env, args)

    def doctor(self, docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
        return list(self.module.doctor(docs, env, reading) or [])

    def project_scope_files(self, env: Env) -> list[ConfigFile]:
        return list(self.module.project_scope_files(env) or [])

    @property
    def has_import_link(self) -> bool:
        return self.module.import_link is not no_import_link

    def import_link(self, target: Target) -> Link | None:
        return self.module.import_link(target)


# -- helpers for client modules -----------------------------------------------------------------


def home_file(env: Env, *parts: str) -> Path:
    return env.home.joinpath(*parts)


def env_dir(env: Env, variable: str, default: Path) -> Path:
    """A folder a client lets users move with an environment variable (``CODEX_HOME``...)."""
    value = env.get(variable)
    return Path(os.path.expanduser(value)) if value else default


def absolute_xdg_config(env: Env) -> Path | None:
    """``$XDG_CONFIG_HOME`` where a reader that keeps to the XDG spec takes it (platformdirs,
    xdg_base_dirs, etcetera, adrg/xdg): an absolute path only; else None. (``Env.xdg_config_home``
    is the value as Node's and Go's plain lookups take it, relative or not.)"""
    from gwconf.dirs import absolute

    value = absolute(env.get("XDG_CONFIG_HOME"))
    return Path(value) if value else None


def platformdirs_config(env: Env, app: str) -> Path:
    """``platformdirs.user_config_dir(app)`` as the client's Python sees it (platformdirs 4.14):
    Windows ``%LOCALAPPDATA%/<app>/<app>``; elsewhere ``$XDG_CONFIG_HOME`` when it is an absolute
    path (macOS too: its class takes the XDG variables first), else ``~/Library/Application
    Support`` on macOS and ``~/.config`` on Linux."""
    if env.platform == "win32":
        return local_appdata(env) / app / app
    given = absolute_xdg_config(env)
    if given:
        return given / app
    if env.platform == "darwin":
        return env.home / "Library" / "Application Support" / app
    return env.home / ".config" / app


def local_appdata(env: Env) -> Path:
    """Windows ``%LOCALAPPDATA%`` (``~/AppData/Local`` when unset): where Python apps using
    platformdirs, and Go apps, keep their config on Windows, not in the roaming folder."""
    local = env.get("LOCALAPPDATA")
    return Path(local) if local else env.home / "AppData" / "Local"


def litellm_openai_base(env: Env) -> str | None:
    """The base URL litellm's ``openai/`` route takes when none is passed: ``$OPENAI_BASE_URL``, then
    ``$OPENAI_API_BASE`` (callers add OpenAI itself as the last fallback where litellm does)."""
    return env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_BASE")


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one: a client file's shape is never trusted."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def find_table(
    entries: Any, matches: Callable[[dict[str, Any]], bool]
) -> tuple[int | None, dict[str, Any] | None]:
    """The first table in ``entries`` that ``matches``, with its index: the clients take the first one
    too; ``entries`` that is not a list, and items that are not tables, are passed over, never trusted."""
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and matches(entry):
                return index, entry
    return None, None


def upsert_table(
    doc: Document,
    path: tuple[str, ...],
    entry: dict[str, Any],
    matches: Callable[[dict[str, Any]], bool],
    program: str,
    *,
    keys: tuple[str, ...] | None = None,
    hint: str = "",
) -> int | None:
    """Set ``entry``'s keys (or only ``keys``) on the first table under ``path`` that ``matches``, else
    append ``entry``: edits the one entry in place so the user's other entries and comments stay.
    Returns the index of the entry that was there (``None`` when it was appended). A value at ``path``
    that is not a list is the user's to fix: the client cannot read it either, so nothing is written."""
    current = doc.get(path, None)
    if current is not None and not isinstance(current, list):
        raise ClientError(
            f"{doc.source}: `{'.'.join(path)}` is not an array of tables, so {program} cannot read it either.",
            f"Fix it by hand{f' ({hint})' if hint else ''}, then run gwconf again.",
        )
    index, _ = find_table(current, matches)
    if index is None:
        if current is None:
            doc.set(path, [entry])
        else:
            doc.append(path, entry)
    else:
        for key in keys or tuple(entry):
            doc.set((*path, index, key), entry[key])
    return index


def get_str(doc: Document, path: tuple[str | int, ...]) -> str | None:
    value = doc.get(path)
    return value if isinstance(value, str) and value is not MISSING else None


def set_or_delete(doc: Document, path: tuple[str | int, ...], value: Any) -> None:
    """Set ``path`` to ``value``; ``None`` removes it (a profile without a model, say)."""
    if value is None:
        doc.delete(path)
    else:
        doc.set(path, value)


def env_reference(value: str | None, env: Env, pattern: re.Pattern[str]) -> tuple[str | None, str | None]:
    """Resolve a client's env-var reference such as ``{env:X}`` or ``${{ secrets.X }}``.

    ``pattern`` (a ``lazy`` one, so the stored code serves it) has one group for the variable
    name. Returns (value, variable name).
    """
    if not value:
        return value, None
    match = pattern.fullmatch(value.strip())
    if not match:
        return value, None
    name = match.group(1)
    return env.get(name), name


def load_other(path: Path, fmt: str, env: Env, findings: list[Finding] | None = None) -> Document | None:
    """A file the client reads but gwconf does not edit (project or system layers): parsed, or None.

    A file that cannot be read is not an error here (the client skips it too); with ``findings``
    it is reported.
    """
    from gwconf import formats
    from gwconf.errors import GwconfError

    if not path.is_file():
        return None
    where = display(path, env)
    try:
        text, _ = formats.decode(path.read_bytes(), where)
        return formats.load(fmt, text, where)
    except (OSError, GwconfError) as exc:
        if findings is not None:
            findings.append(Finding("warning", "override", f"{where} cannot be read: {exc}"))
        return None


def dotenv_values(path: Path, env: Env, fmt: str = "dotenv") -> dict[str, str]:
    """The names a ``.env`` the client loads sets (``load_other``: {} when it is missing or cannot
    be read), as its library reads them."""
    doc = load_other(path, fmt, env)
    data = doc.data() if doc is not None else None
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def folders_to_project_root(env: Env, *, stop_at_home: bool = False) -> tuple[list[Path], Path | None]:
    """The folders from cwd upwards to the project root (the first holding ``.git``), and that root.

    The list includes the root; without one it runs to the file system's root (or to the home
    folder, included, with ``stop_at_home``) and the root is None. Clients that look for project
    files differ in where they stop; this one walk serves them all.
    """
    from gwconf import fileio

    chain, root = fileio.viewed(
        ("project-root", env.cwd, env.home, stop_at_home), lambda: _walk_to_project_root(env, stop_at_home)
    )  # one walk per command: status asked it 8 times, a stat of every folder up to / each
    return list(chain), root


def _walk_to_project_root(env: Env, stop_at_home: bool) -> tuple[tuple[Path, ...], Path | None]:
    chain: list[Path] = []
    for folder in (env.cwd, *env.cwd.parents):
        chain.append(folder)
        if (folder / ".git").exists():
            return tuple(chain), folder
        if stop_at_home and folder == env.home:
            break
    return tuple(chain), None


def project_root(env: Env) -> Path | None:
    """The nearest folder from cwd upwards that holds ``.git``, or None outside a repository."""
    return folders_to_project_root(env)[1]


def shown(path: Path, env: Env) -> str:
    return display(path, env)


def env_override_findings(env: Env, names: tuple[str, ...], why: str) -> list[Finding]:
    """Shell variables that would override or confuse the client's files (report, never delete)."""
    found = []
    for name in names:
        if env.get(name):
            found.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is set in this shell ({why}).",
                    f"unset {name}  (or remove it from your shell startup files)",
                )
            )
    return found


def key_findings(actual: str | None, expected: str | None, origin: str) -> list[Finding]:
    """Doctor (b): is the key present, the profile's, and well-formed? Never prints either key."""
    if not actual:
        return [Finding("error", "key", f"no key where this client reads it ({origin or 'nowhere'}).")]
    found = [Finding("warning", "key", f"the key {p}.") for p in secrets.key_problems(actual)]
    if expected is not None and actual != expected:
        if expected.startswith(actual) or actual.strip() == expected:
            detail = "a truncated or padded copy of"
        elif len(actual) < len(expected):
            detail = "shorter than, and different from,"
        else:
            detail = "different from"
        found.append(
            Finding(
                "error",
                "key",
                f"the key in {origin} ({secrets.mask(actual)}) is {detail} the profile's ({secrets.mask(expected)}).",
            )
        )
    return found


RESTART_NEW_SESSION = "Start a new {name} session; a running one keeps the old settings."
RESTART_PER_RUN = "{name} reads its configuration on every run: nothing to restart."
RESTART_RELOAD_WINDOW = "Run 'Developer: Reload Window' in VS Code (or restart it) to load the change."
RESTART_QUIT_APP = "Quit {name} fully (not just close the window), then start it again."
