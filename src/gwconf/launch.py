"""``gwconf run``: start a client once with a profile's target injected, writing nothing to its files.

Each client module says how through an optional ``launch(target, env, args) -> LaunchSpec`` hook
(each module cites the client docs or source that name them, the way cc-switch-cli and OmniRoute
launch Claude Code and Codex): variables the client reads, the client's own one-launch
options (Codex ``-c key=value``, Claude Code ``--settings FILE``), or a stand-in for its config
folder that the variable which moves that folder points at (``QWEN_HOME``, ``LLM_USER_PATH``...).
A module without the hook cannot be launched this way; ``gwconf apply`` configures it instead.

Everything a launch needs on disk lives in one temporary folder (0700, files 0600) that is
removed when the child ends, also after SIGINT, SIGTERM or SIGHUP (which are passed on to the
child). A stand-in folder is not a full copy: every entry of the user's folder appears in it as a
symlink (logins, history and sessions stay where the client keeps them), and only the files the
client's own ``render()`` edits are real files in the temporary folder. Before the folder goes,
what the client created or replaced there (a new ``logs.db``, an update by temp + rename) is
carried back to the user's folder (``carry_back``); gwconf's rendered files never are. Nothing
else in the user's folders is written by gwconf.

Variables that would override the injection (every ``OPENAI_*``, ``ANTHROPIC_*``, ``GEMINI_*`` and
``GOOGLE_*`` one the launch does not set itself) are removed from the child's environment. The
child's exit code is passed on (128 + N when a signal N ended it); 127 when the program is not on
PATH.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gwconf.clients._launch_types import Arg, LaunchSpec, TempPath, fresh_document, require_model
from gwconf.errors import ClientError, GwconfError, UsageError
from gwconf.processes import alive
from gwconf.records import record

# The types a client fills live in clients/_launch_types.py (re-exported here for callers of
# ``gwconf run``); the process and file machinery below is imported inside the functions that
# start a launch (``gwconf clients`` never pays for it).

__all__ = ["Arg", "LaunchSpec", "TempPath", "fresh_document", "require_model"]

if TYPE_CHECKING:
    from gwconf.clients._base import ClientAdapter, Target
    from gwconf.paths import Env

NOT_FOUND = 127  # the shell's "command not found"
SCRUBBED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_")
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
TEMP_PREFIX = "gwconf-run-"


class ProgramNotFound(ClientError):
    exit_code = NOT_FOUND


class CannotExecute(ClientError):
    exit_code = 126  # the shell's "found but cannot be executed"


# -- planning -------------------------------------------------------------------------------------


@record
class Launch:
    """A launch that can start: the client, what it points at, its spec and the program found on PATH."""

    client: ClientAdapter
    target: Target
    spec: LaunchSpec
    program: str
    profile_name: str


def plan_launch(
    client: ClientAdapter,
    profile: Any,
    env: Env,
    args: list[str],
    *,
    model: str | None = None,
    dry_run: bool = False,
) -> Launch:
    """The launch for ``client`` on ``profile``; raises when the client cannot be launched or is missing."""
    target = client.target(profile, env)
    if model:
        target.model = model
    spec = client.launch(target, env, list(args))
    if spec is None:
        raise UsageError(
            f"gwconf cannot start {client.name} for one launch: it has no command-line way to take a "
            "gateway without its configuration files.",
            f"Configure it instead with: gwconf apply {client.id}  (gwconf restore {client.id} undoes it)",
        )
    if not spec.argv:
        raise UsageError(
            f"nothing to run for {client.id}.", f"Name the command: gwconf run {client.id} -- CMD"
        )
    spec.notes += administrator_notes(client, env)
    first = spec.argv[0]
    name = first.resolve(Path(".")) if isinstance(first, TempPath) else first
    found = env.which(name)  # the explicit environment's PATH, as detection looks
    if found is None and dry_run:  # show what would run anyway, and say why it cannot yet
        spec.notes.append(f"{name} is not on PATH: install {client.name} (or fix PATH) before running it.")
        return Launch(client, target, spec, name, profile.name)
    if found is None:
        hint = (
            f"Install {client.name}, or check your PATH."
            if client.programs
            else "Check the command's name and your PATH."
        )
        raise ProgramNotFound(f"{name} was not found on PATH.", hint)
    return Launch(client, target, spec, found, profile.name)


def administrator_notes(client: ClientAdapter, env: Env) -> list[str]:
    """What an administrator's layer (``/etc/codex/managed_config.toml``, Claude Code's managed
    settings...) sets over the client's own files: it wins over a launch's variables and options
    as well, so the launch may not reach the gateway. Read from the client's files as status reads
    them; a file the client cannot read takes nothing from the launch, which needs none."""
    from gwconf.operations import read_client

    try:
        findings = read_client(client, env).findings
    except Exception:  # a note only: whatever the client's files hold, the launch goes ahead
        return []
    return [
        f"{finding.message.rstrip('.')}; it wins over this launch as well, which may not reach the "
        f"gateway: {finding.fix or 'ask the administrator'}."
        for finding in findings
        if finding.administrator
    ]


def child_environ(parent: dict[str, str] | Any, launch: Launch, folder: Path | None) -> dict[str, str]:
    """The child's environment: the parent's without rival provider variables, plus the injection."""
    spec = launch.spec
    environ = {
        name: value
        for name, value in dict(parent).items()
        if not name.startswith(SCRUBBED_PREFIXES) and name not in spec.unset
    }
    environ["GWCONF_PROFILE"] = launch.profile_name
    for name, value in spec.env.items():
        environ[name] = _resolve(value, folder)
    return environ


def _resolve(value: Arg, folder: Path | None) -> str:
    if isinstance(value, TempPath):
        return value.resolve(folder if folder is not None else Path("<temporary folder>"))
    return value


def describe(launch: Launch, env: Env) -> dict[str, Any]:
    """What the launch will do, for ``--dry-run`` (values are redacted by the CLI's output layer)."""
    placeholder = Path("<temporary folder>")
    environ = child_environ(env.environ, launch, placeholder)
    removed = sorted(n for n in env.environ if n not in environ)
    return {
        "client": launch.client.id,
        "profile": launch.profile_name,
        "base_url": launch.target.base_url,
        "model": launch.target.model,
        "program": launch.program,
        "argv": [_resolve(a, placeholder) for a in launch.spec.argv],
        "set": {n: environ[n] for n in sorted(launch.spec.env)},
        "removed": removed,
        "temporary": sorted({*launch.spec.files, *launch.spec.render.values()}),
        "dotenv_over": {
            name: sorted({*launch.spec.env, *launch.spec.unset}) for name in sorted(launch.spec.dotenv_over)
        },
        "stand_ins": {name: str(path) for name, path in sorted(launch.spec.copies.items())},
        "notes": list(launch.target.notes) + list(launch.spec.notes),
    }


# -- starting -------------------------------------------------------------------------------------


def start(launch: Launch, env: Env, on_ready: Any = None, *, trust_project: bool = False) -> int:
    """Prepare the temporary folder, run the child to its end, remove the folder; the child's exit
    code. ``on_ready`` gets the preparation's notes just before the child starts. Unless
    ``trust_project``, raises ``UntrustedAddress`` first when a project file in the current
    folder would win over the launch's address with one no profile has
    (``check_project_address``)."""
    folder: Path | None = None
    try:
        notes: list[str] = []
        if launch.spec.needs_temp:
            root = _temp_root(env)
            sweep(root)
            with _cleanup_on_signals():  # SIGTERM/SIGHUP before the child starts: still clean up
                folder = _new_folder(root)
                notes = prepare(launch, env, folder)
        environ = child_environ(env.environ, launch, folder)
        if not trust_project:
            check_project_address(launch, env, environ)
        if on_ready is not None:
            on_ready(notes)
        argv = [_resolve(a, folder) for a in launch.spec.argv]
        return run_child(argv, environ, env.cwd, executable=launch.program)
    except _Stopped as stopped:
        return 128 + stopped.signum
    finally:
        if folder is not None:
            try:
                carry_back(launch.spec, folder)
            finally:
                remove_folder(folder)


def rehearse(launch: Launch, env: Env) -> None:
    """``--dry-run``'s look at what ``start`` would refuse: the launch's temporary files prepared
    in a folder removed at once, and ``check_project_address`` on them; nothing is started."""
    if launch.spec.beats_project:  # nothing to check: no folder to prepare either
        return
    folder: Path | None = None
    try:
        if launch.spec.needs_temp:
            folder = _new_folder(_temp_root(env))
            prepare(launch, env, folder)  # (a folder left by a kill here is swept by the next run)
        check_project_address(launch, env, child_environ(env.environ, launch, folder))
    finally:
        if folder is not None:
            remove_folder(folder)


def _temp_root(env: Env) -> Path:
    """Where launch folders go: the explicit environment's temporary folder."""
    import tempfile

    return Path(env.get("TMPDIR") or env.get("TEMP") or env.get("TMP") or tempfile.gettempdir())


def _new_folder(root: Path) -> Path:
    """A new launch folder (0700), named so ``sweep`` can tell whose it is."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=root))


def check_project_address(launch: Launch, env: Env, environ: dict[str, str]) -> None:
    """Raise ``UntrustedAddress`` when the client, started with ``environ`` (and the launch's
    temporary files, already in place), would take an address no profile has from a project
    file in the current folder (``trust.launch_refusal``). A launch whose own precedence beats
    every project file (``LaunchSpec.beats_project``: an option, an exported variable) is not
    read back: gwconf's readers see its files and variables, not its command line."""
    if launch.spec.beats_project:
        return
    from gwconf.records import replace
    from gwconf.trust import launch_refusal

    refusal = launch_refusal(launch.client, env, replace(env, environ=environ))
    if refusal is not None:
        raise refusal


class _Stopped(BaseException):
    """A signal that ends gwconf before the child runs: unwinds through the clean-up."""

    def __init__(self, signum: int) -> None:
        self.signum = signum


class _cleanup_on_signals:
    """Turn SIGTERM and SIGHUP into ``_Stopped`` while the temporary folder is being prepared."""

    def __enter__(self) -> None:
        import signal
        import threading

        self.previous: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return

        def stop(signum: int, frame: Any) -> None:
            raise _Stopped(signum)

        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None:
                self.previous[number] = signal.signal(number, stop)

    def __exit__(self, *exc: object) -> None:
        import signal

        for number, handler in self.previous.items():
            signal.signal(number, handler)


def prepare(launch: Launch, env: Env, folder: Path) -> list[str]:
    """Stand-ins, temporary files, then the client's files as its ``render()`` edits them."""
    spec = launch.spec
    for name, source in spec.copies.items():
        stand_in(source, folder, name)
    for name, text in spec.files.items():
        write_private(folder, name, text.encode("utf-8"))
    notes = render_into(launch, env, folder) if spec.render else []
    wanted: dict[str, str | None] = {n: None for n in spec.unset}
    wanted.update((n, _resolve(value, folder)) for n, value in spec.env.items())
    for name in spec.dotenv_over:
        notes += scrub_dotenv(folder, name, wanted)
    return notes


def scrub_dotenv(folder: Path, name: str, wanted: dict[str, str | None]) -> list[str]:
    """``folder/name``, a .env the client loads over its environment, without what would undo the
    launch: a variable it unsets (``wanted`` None), or sets to another value. Written as a
    private copy in place of the link to the user's file (which is never written), or over the
    rendered file. A note names what was left out (the names only).

    A .env the editor cannot read (a line python-dotenv skips: an unclosed quote, ``A B=1``)
    still starts the client, as the plain link did: the rivals' lines are left out line by line
    (``_scrub_lines``), every other line kept as it is."""
    from gwconf import formats
    from gwconf.errors import ParseError

    path = _inside(folder, name)
    try:
        raw = path.read_bytes()  # through the link: the user's file
    except FileNotFoundError:
        return []
    shown = os.path.realpath(path) if path.is_symlink() else name
    text, had_bom = formats.decode(raw, shown)
    try:
        doc = formats.load("dotenv", text, shown)
    except ParseError:
        removed, kept = _scrub_lines(text, wanted)
        data = formats.encode(kept, had_bom)
    else:
        before = doc.data()
        rivals = [n for n, value in wanted.items() if doc.get((n,), None) not in (None, value)]
        removed = sorted(n for n in rivals if doc.delete((n,)))
        data = formats.encode(formats.verify_edit("dotenv", formats.Frozen(before), doc), had_bom)
    if not removed:
        return []
    write_private(folder, name, data)
    return [f"left out of {name} for this launch (it loads them over the launch's own): {', '.join(removed)}"]


def _scrub_lines(text: str, wanted: dict[str, str | None]) -> tuple[list[str], str]:
    """The names of ``wanted`` that ``text`` sets (``NAME=``, ``export NAME=``), and ``text``
    without their lines: whatever value they hold, a launch's own variable is in its environment."""
    import re

    names = "|".join(re.escape(n) for n in wanted)
    if not names:
        return [], text
    setting = re.compile(rf"^[ \t]*(?:export[ \t]+)?({names})[ \t]*=")
    removed: set[str] = set()
    kept = []
    for line in text.splitlines(keepends=True):
        found = setting.match(line)
        if found:
            removed.add(found.group(1))
        else:
            kept.append(line)
    return sorted(removed), "".join(kept)


def _inside(folder: Path, name: str) -> Path:
    """``folder/name``, refusing names that climb out of the temporary folder."""
    if not name or ".." in Path(name).parts or Path(name).is_absolute():
        raise ClientError(f"launch file name {name!r} leaves the temporary folder.", "This is a gwconf bug.")
    return folder / name


def stand_in(source: Path, folder: Path, name: str) -> None:
    """``folder/name`` stands in for ``source``: a folder of links to its entries, or a link to the file."""
    target = _inside(folder, name)
    materialise(folder, target.parent)
    if target.is_symlink() or target.is_file():
        target.unlink()
    if source.is_dir():
        target.mkdir(mode=0o700, exist_ok=True)
        for entry in os.scandir(source):
            if not (target / entry.name).exists():
                _link(Path(entry.path), target / entry.name)
    elif source.exists():
        _link(source, target)


def _link(source: Path, target: Path) -> None:
    import shutil

    try:
        os.symlink(source, target, target_is_directory=source.is_dir())
    except OSError:  # no symlinks here (Windows without the privilege): a copy instead
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copy2(source, target)


def materialise(folder: Path, path: Path) -> None:
    """Make every folder from the launch ``folder`` down to ``path`` a real folder: a linked folder
    becomes a folder of links, so a file written there never lands in the user's folder."""
    current = folder
    for part in path.relative_to(folder).parts:
        current = current / part
        if current.is_symlink():
            source = Path(os.readlink(current))
            current.unlink()
            current.mkdir(mode=0o700)
            if source.is_dir():
                for entry in os.scandir(source):
                    _link(Path(entry.path), current / entry.name)
        elif not current.exists():
            current.mkdir(mode=0o700)
    if not Path(os.path.realpath(path)).is_relative_to(Path(os.path.realpath(folder))):
        raise ClientError(f"{path} resolves outside the temporary folder.", "This is a gwconf bug.")


def write_private(folder: Path, name: str, data: bytes) -> None:
    """A new 0600 file in the launch folder; a link standing there is replaced, never followed."""
    path = _inside(folder, name)
    materialise(folder, path.parent)
    if path.is_symlink() or path.exists():
        path.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def render_into(launch: Launch, env: Env, folder: Path) -> list[str]:
    """The client's files as ``render()`` edits them, written into the temporary folder only.

    Files read from where the client keeps them (or empty, with ``fresh``); roles not mapped to a
    temporary name are read but never written, whatever ``render()`` did to them.
    """
    import copy

    from gwconf import formats, plan

    spec, client = launch.spec, launch.client
    files = client.files(env)
    roles = {f.role for f in files}
    missing = sorted(set(spec.render) - roles)
    if missing:
        raise ClientError(
            f"{client.id}: no file with role {', '.join(missing)} to launch with.", "This is a gwconf bug."
        )
    loaded: dict[str, tuple[Any, Any, bytes | None, bool]] = {}
    for file in files:
        if spec.fresh:
            doc = formats.load(file.format, "", spec.render.get(file.role, file.role))
            loaded[file.role] = (doc, None, None, False)
        else:
            item = plan.load_file(file, env)
            loaded[file.role] = (item.doc, copy.deepcopy(item.data), item.snapshot.data, item.had_bom)
    docs = {role: entry[0] for role, entry in loaded.items()}
    notes = client.render(docs, launch.target, env)
    formats_of = {f.role: f.format for f in files}
    for role, name in spec.render.items():
        doc, before, raw, had_bom = loaded[role]
        if doc.ops:
            original = formats.Frozen(before) if before is not None else None
            data = formats.encode(formats.verify_edit(formats_of[role], original, doc), had_bom)
        else:
            data = raw or b""
        write_private(folder, name, data)
    return notes


def carry_back(spec: LaunchSpec, folder: Path) -> list[Path]:
    """Copy what the client created or replaced in a stand-in folder back to the user's folder.

    Writes into a linked entry already reached the user's file; but a new file (llm's ``logs.db``,
    a first ``aliases.json``), a new folder, and an update made by temp + rename (which replaces
    the link by a real file) exist only in the stand-in, and used to vanish with it. The files
    gwconf rendered (``render``/``files``: they hold the gateway's key and address) never go back,
    and neither does anything the client deleted or linked: only real files and folders. Each file
    goes back through the one atomic write path. Returns the user's paths written."""
    from gwconf.fileio import atomic_write

    managed = {folder / name for name in spec.own_files}
    written: list[Path] = []
    for name, source in spec.copies.items():
        _carry(folder / name, source, managed, written, atomic_write)
    return written


def _carry(stand: Path, source: Path, managed: set[Path], written: list[Path], write: Any) -> None:
    if stand in managed or not os.path.lexists(stand) or stand.is_symlink():
        return  # gwconf's own file, nothing there, or a link (to the user's entry, or the client's)
    if stand.is_dir():
        if os.path.lexists(source) and not source.is_dir():
            return  # the user has a file where the client made a folder: leave both as they are
        entries = list(os.scandir(stand))
        if not source.exists():
            if not any(_has_own(Path(e.path), managed) for e in entries):
                return  # only gwconf's files (or links) below: nothing of the client's to keep
            source.mkdir(parents=True, mode=0o700)
            written.append(source)
        for entry in entries:
            _carry(Path(entry.path), source / entry.name, managed, written, write)
        return
    data = stand.read_bytes()
    real = Path(os.path.realpath(source))  # a dotfiles manager's link: write where the bytes are
    try:
        if real.is_file() and real.read_bytes() == data:
            return
    except OSError:
        return
    import stat

    write(real, data, mode=stat.S_IMODE(stand.stat().st_mode), secret=False, shown=str(source))
    written.append(source)


def _has_own(path: Path, managed: set[Path]) -> bool:
    """Whether ``path`` is, or holds, a real file of the client's (not gwconf's, not a link)."""
    if path in managed or path.is_symlink():
        return False
    if path.is_dir():
        return any(_has_own(Path(e.path), managed) for e in os.scandir(path))
    return path.exists()


def remove_folder(folder: Path) -> None:
    """Remove the launch folder; links in it are removed, never followed."""
    import shutil

    try:
        shutil.rmtree(folder)
    except OSError as exc:
        from gwconf.paths import shell_word  # one word: "rm -rf /Users/John Smith/..." removes /Users/John

        raise GwconfError(
            f"could not remove the temporary folder {folder} ({exc.strerror}); it may hold the key.",
            f"Remove it by hand: rm -rf {shell_word(str(folder))}",
        ) from None


def sweep(root: Path) -> None:
    """Remove launch folders left by a gwconf that was killed (SIGKILL) before it could clean up."""
    import shutil

    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        pid = entry.name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or alive(int(pid)):
            continue
        try:
            if (
                entry.is_dir(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_uid == os.getuid()
            ):
                shutil.rmtree(entry.path, ignore_errors=True)
        except (OSError, AttributeError):
            continue


# -- the child ------------------------------------------------------------------------------------


def run_child(argv: list[str], environ: dict[str, str], cwd: Path, executable: str | None = None) -> int:
    """Start the child, pass on SIGINT/SIGTERM/SIGHUP, wait; its exit code (128 + N after signal N)."""
    import signal
    import subprocess
    import threading

    pending: list[int] = []
    proc: subprocess.Popen[bytes] | None = None  # set once started; the handler reads it

    def forward(signum: int, frame: Any) -> None:
        if signum == signal.SIGINT and _terminal_sent_it_too():
            return
        if proc is None:
            pending.append(signum)
            return
        try:
            proc.send_signal(signum)
        except (ProcessLookupError, OSError):
            pass

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for name in FORWARDED_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                previous[number] = signal.signal(number, forward)
    try:
        try:
            proc = subprocess.Popen(argv, executable=executable, env=environ, cwd=str(cwd))
        except OSError as exc:
            raise CannotExecute(
                f"{argv[0]} could not be started ({exc.strerror}).", "Check that it is an executable program."
            ) from None
        for signum in pending:
            proc.send_signal(signum)
        code = proc.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 128 - code if code < 0 else code


def _terminal_sent_it_too() -> bool:
    """Ctrl-C on a terminal reaches the whole foreground process group, the child included: passing
    it on as well would make the child see two (many programs quit on the second)."""
    if not hasattr(os, "tcgetpgrp"):
        return True  # Windows: the console sends Ctrl-C to every process attached to it
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except OSError:
            continue
    return False
