"""The command line: click only. Each command lives in its own module, imported on first use.

``main`` is the one top-level handler: ``GwconfError`` -> its message, hint and exit code;
anything unexpected -> one line and a hint to rerun with ``--debug``.

Start-up is measured (bench/startup.py): importing click costs about three times Python's own
start-up, so this module does not import it. The click group lives in ``_root`` and is built on
first use; ``gwconf --version`` and ``gwconf --help`` are answered without it, the help by
``root_help``, the one renderer both paths use.
"""

from __future__ import annotations

import os
import stat
import sys

import gwconf
from gwconf import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs ~8 ms to import: annotations only
    from collections.abc import Callable
    from typing import Any

# command name -> module under gwconf.cli defining ``command``
COMMANDS: dict[str, str] = {
    "apply": "apply",
    "clients": "clients",
    "completion": "completion",
    "current": "current",
    "doctor": "doctor",
    "hook": "hook",
    "init": "init",
    "link": "link",
    "models": "models",
    "profile": "profile",
    "restore": "restore",
    "run": "launch",  # not run.py: a submodule named run would replace the function run() below
    "status": "status",
    "use": "use",
    "verify": "verify",
}

EPILOG = """\b
Examples:
  gwconf init                           # guided first run: gateway, key, model, clients
  gwconf profile add work --base-url https://gw.example.com/v1 --model my-model --use
  gwconf apply codex claude-code        # edit those clients' files (backup first)
  gwconf apply --all --dry-run          # the diff for every detected client, write nothing
  gwconf verify codex                   # a real test completion with what Codex will send
  gwconf doctor                         # the 401 procedure, client by client
  gwconf restore --all                  # put back what was there before gwconf
"""


HELP = """Point every AI client at one model gateway.

gwconf edits each client's real configuration files (only the keys it manages, everything
else kept byte for byte, a backup first), switches between saved gateway profiles, makes a
real test completion with what each client will actually send, and turns a 401 into a
verdict with its remedy.
"""

# command name -> its line in ``gwconf --help``, so the listing imports no command module.
# A command missing here gets the first sentence of its docstring, read from its source.
SUMMARIES: dict[str, str] = {
    "apply": "Rewrite clients' configuration files to use a gateway profile.",
    "clients": "List every supported client: id, tier, detected, its files, and whether it points at a profile.",
    "current": "Print the name of the profile used here (for shell prompts); exit 1 when there is none.",
    "doctor": "Find out why a client gets a 401: address, key, provider, then a direct request.",
    "hook": "Print a prompt hook for bash, zsh or fish that exports the folder's profile.",
    "init": "Set up gwconf the first time: gateway, key, model, then the clients found here.",
    "link": "Build APP's import link for a profile; the app shows what it imports and asks you to confirm.",
    "models": "List the model ids the gateway serves (GET {base}/models with the profile's key).",
    "profile": "Manage saved gateway profiles (TOML files, mode 0600, in gwconf's config folder).",
    "restore": "Put back what each client's files held before gwconf.",
    "run": "Start CLIENT once with a profile injected; its configuration files are not touched.",
    "status": "Show each client's base address, key (masked), model and provider, the profile it matches, "
    "and any managed key changed by hand since gwconf wrote it.",
    "use": "Make NAME the active profile and re-apply it to every client gwconf applied before.",
    "verify": "Make one real test completion per client, with exactly what it will send.",
}

# the root options as ``gwconf --help`` lists them (declared for click in ``_root``)
OPTIONS: tuple[tuple[str, str], ...] = (
    ("-V, --version", "Show the version and exit."),
    ("--debug", "Show the full traceback of unexpected errors."),
    ("-q, --quiet", "Print only errors and what scripts need."),
    ("-h, --help", "Show this message and exit."),
)


def module_exists(name: str) -> bool:
    return os.path.exists(os.path.join(os.path.dirname(__file__), COMMANDS[name] + ".py"))


def terminal_width() -> int:
    """The help width click would use: the terminal's (``$COLUMNS`` first), at most 100, minus 2."""
    columns = 0
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        pass
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(min(columns, 100) - 2, 50)


def root_help(width: int, summary: Callable[[str, int], str] | None = None) -> str:
    """The text of ``gwconf --help`` at ``width`` (no final newline).

    A command missing from ``SUMMARIES`` gets the first sentence of its docstring, read from its
    source; when that fails, ``summary(name, limit)`` gives its line, and without it
    ``LookupError`` is raised (the caller then renders with click).
    """
    names = sorted(name for name in COMMANDS if module_exists(name))
    out = ["Usage: gwconf [OPTIONS] COMMAND [ARGS]...", ""]
    for paragraph in HELP.strip().split("\n\n"):
        out += _wrap(paragraph, width, "  ")
        out.append("")
    out.append("Options:")
    out += _table(OPTIONS, width)
    out += ["", "Commands:"]
    column = max(len(n) for n in names) if names else 0
    limit = width - 6 - column
    rows = []
    for name in names:
        line = SUMMARIES.get(name) or _source_summary(name)
        if line:
            rows.append((name, _shorten(line, limit)))
        elif summary is not None:
            rows.append((name, summary(name, limit)))
        else:
            raise LookupError(name)
    out += _table(rows, width)
    out.append("")
    for line in EPILOG.strip("\n").splitlines():
        if line.strip() != "\b":
            out.append(("  " + line) if line else "")
    return "\n".join(out)


def _source_summary(name: str) -> str | None:
    """The first sentence of ``command``'s docstring in the command's module, without importing it."""
    import re

    try:
        with open(
            os.path.join(os.path.dirname(__file__), COMMANDS[name] + ".py"), encoding="utf-8"
        ) as handle:
            source = handle.read()
    except OSError:
        return None
    match = re.search(r'^def command\(.*?\)\s*(?:->[^:]+)?:\s*"""(.*?)"""', source, re.S | re.M)
    if match is None:
        return None
    words = match.group(1).split("\n\n", 1)[0].replace("\b", "").split()
    for index, word in enumerate(words):
        if word.endswith("."):
            return " ".join(words[: index + 1])
    return " ".join(words) or None


def _wrap(text: str, width: int, indent: str) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(indent) + len(current) + 1 + len(word) > width:
            lines.append(indent + current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(indent + current)
    return lines


def _table(rows: Any, width: int) -> list[str]:
    """Two columns: the first as wide as its longest entry (at most 30), the second wrapped."""
    first = min(max(len(a) for a, _ in rows), 30) + 2
    out = []
    for term, text in rows:
        wrapped = _wrap(text, max(width - first - 2, 10), "") or [""]
        if len(term) <= first - 2:
            out.append(f"  {term.ljust(first)}{wrapped[0]}".rstrip())
        else:
            out.append(f"  {term}")
            out.append(" " * (first + 2) + wrapped[0])
        out += [" " * (first + 2) + line for line in wrapped[1:]]
    return out


def _shorten(text: str, limit: int) -> str:
    """``text`` cut at a word boundary with "..." when longer than ``limit`` (as click does)."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 3, 1) + 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "..."


def _fast(args: list[str]) -> int | None:
    """``gwconf --version`` / ``--help`` / ``current`` / ``profile list`` without click; None when click
    must handle ``args``."""
    if "_GWCONF_COMPLETE" in os.environ:
        return None
    if args and args[0] == "current" and set(args[1:]) <= {"--json"} and len(args) <= 2:
        return print_current(as_json=len(args) == 2)
    if args[:2] == ["current", "--hook"] and len(args) == 3 and args[2] in ("bash", "zsh", "fish"):
        from gwconf.hook import export

        return export(args[2])
    if args[:2] == ["profile", "list"] and args[2:] in ([], ["--json"]):
        return _profile_list(as_json=len(args) == 3)
    if not args:
        return _no_arguments()
    if len(args) != 1:
        return None
    if args[0] in ("-V", "--version"):
        text = f"gwconf {__version__}"
    elif args[0] in ("-h", "--help"):
        try:
            text = root_help(terminal_width())
        except LookupError:
            return None
    else:
        return None
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        return closed_pipe()
    return 0


def closed_pipe() -> int:
    """What to do once stdout's reader has gone (``gwconf clients | head -1``): point this process's
    stdout, and stderr when it is closed too, at os.devnull, so the interpreter's last flush has
    somewhere to go instead of printing ``Exception ignored ... BrokenPipeError`` and ending with
    120 (the recipe in Python's ``signal`` documentation); returns 141, the status a shell shows
    for a program SIGPIPE ended. Streams an in-process caller (a test) put in place are left alone."""
    for stream, current in ((sys.__stdout__, sys.stdout), (sys.__stderr__, sys.stderr)):
        if stream is None or current is not stream:
            continue
        try:
            stream.flush()
            closed = stream is sys.__stdout__  # stdout's reader is gone whatever this flush says
        except (OSError, ValueError):
            closed = True
        if closed:
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
                os.close(devnull)
            except (OSError, ValueError):
                pass
    return 141  # errors.ExitCode.CLOSED_PIPE, without importing errors on the fast paths


def _profile_list(as_json: bool) -> int | None:
    """``gwconf profile list [--json]`` without click; None (click runs it and reports the error)
    when reading the profiles fails, before anything is printed."""
    from gwconf.cli import _listing

    try:
        active, rows = _listing.collect()
    except Exception:
        return None
    try:
        return _listing.render(active, rows, as_json)
    except BrokenPipeError:
        return closed_pipe()


def active_profile_file() -> str:
    """``<gwconf config>/active``, placed by the one rule ``Env.config_dir`` uses (``gwconf.dirs``).

    ``gwconf current`` runs in shell prompts: it reads this one small file and imports nothing
    it can avoid (no ``Env``, no pathlib; tests/test_newcomer.py checks that the two agree).
    """
    from gwconf.dirs import home_folder, own_folders

    home = home_folder(os.environ, sys.platform)
    return os.path.join(own_folders(os.environ, sys.platform, home)[0], "active")


def read_active_name() -> str | None:
    """The active profile's name, or None (no file, or not a valid name)."""
    try:  # without blocking, and only a file: a FIFO there hung the shell prompt's hook
        fd = os.open(active_profile_file(), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            name = os.read(fd, 200).decode("utf-8").strip()
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
    if not name or len(name) > 64 or not name[0].isalnum() or any(ch not in allowed for ch in name):
        return None
    return name


def _no_arguments() -> int:
    """``gwconf`` alone: the help, then where this user stands and the next step (exit 0)."""
    try:
        text = root_help(terminal_width())
    except LookupError:
        return None  # type: ignore[return-value]  # click renders it
    folder = os.path.join(os.path.dirname(active_profile_file()), "profiles")
    try:
        saved = sorted(n[:-5] for n in os.listdir(folder) if n.endswith(".toml"))
    except OSError:
        saved = []
    active = read_active_name()
    if active:
        where = f"Active profile: {active}. Where each client points: gwconf status"
    elif saved:
        where = f"No active profile; choose one: gwconf use {saved[0]}   (saved: {', '.join(saved[:10])})"
    else:
        where = "New here? Start with: gwconf init   (a guided first run)"
    try:
        sys.stdout.write(text + "\n\n" + where + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        return closed_pipe()
    return 0


def print_current(as_json: bool = False) -> int:
    """``gwconf current``: the name of the profile commands here use, and nothing else; 1 (silently)
    when there is none. The same order as every command (``gwconf.binding``): GWCONF_PROFILE, the
    nearest .gwconf.toml, the active profile. ``--json`` adds which of them chose it."""
    from gwconf import binding
    from gwconf.dirs import home_folder
    from gwconf.errors import FolderGone
    from gwconf.paths import working_folder

    active = read_active_name()
    home = home_folder(os.environ, sys.platform)
    try:
        choice = binding.resolve(None, os.environ, working_folder(os.environ), home, active)
    except (binding.BindingError, FolderGone, OSError) as exc:
        message = getattr(exc, "message", str(exc))
        hint = getattr(exc, "hint", "Check the folder and GWCONF_PROFILE.")
        if as_json:
            _write('{"error": ' + _json_str(message) + ', "hint": ' + _json_str(hint) + ', "exit_code": 1}')
        sys.stderr.write(f"gwconf: error: {message}\nhint: {hint}\n")
        return 1
    name = choice.name
    if as_json:
        text = (
            "{"
            + ", ".join(
                f"{_json_str(k)}: {_json_str(v)}"
                for k, v in (
                    ("profile", name),
                    ("source", choice.source),
                    ("file", choice.file),
                    ("active", active),
                )
            )
            + "}"
        )
    else:
        text = name or ""
    if not _write(text):
        return closed_pipe()
    return 0 if name else 1


def _json_str(value: str | None) -> str:
    """A JSON string (or null) without importing json (~3 ms on the prompt path)."""
    if value is None:
        return "null"
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(ch if ch >= " " else f"\\u{ord(ch):04x}" for ch in escaped) + '"'


def _write(text: str) -> bool:
    """``text`` and a newline on stdout; False when its reader has gone."""
    try:
        if text:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except BrokenPipeError:
        return False
    return True


def __getattr__(name: str) -> Any:
    """``gwconf.cli.cli`` and ``LazyGroup``: the click group, built on first use."""
    if name in ("cli", "LazyGroup"):
        from gwconf.cli import _root

        return getattr(_root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _note_on_stderr(text: str) -> None:
    sys.stderr.write(f"note: {text}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    _open_standard_streams()
    _defer_unused_modules()
    _fewer_collections()
    gwconf.kept_until_exit = []  # ``_end_now`` ends the process: no need to free parsed files
    gwconf.wait_note = _note_on_stderr
    from gwconf import _bytecode

    _bytecode.install()
    code = run(sys.argv[1:] if argv is None else argv)
    code = _flushed(code)
    _spare_the_last_collections()
    _end_now(code)
    sys.exit(code)


# standard-library modules that ``pathlib`` imports for what gwconf seldom does: ``urllib.parse``
# imports ``ipaddress`` for URLs with a bracketed host (4.7M instructions), ``pathlib`` imports
# ``ntpath`` for Windows paths (2.0M); ``pathlib`` alone is 39M, nine tenths of a command's floor
_DEFERRABLE = ("ipaddress", "ntpath")


def _flushed(code: int) -> int:
    """``code`` once stdout and stderr are flushed; ``closed_pipe()``'s when a reader has gone
    before the last of the output (buffered, not yet written) reached it."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BrokenPipeError:
        return closed_pipe()
    except Exception:
        pass
    return code


def _open_standard_streams() -> None:
    """Put ``/dev/null`` on any of descriptors 0-2 the caller closed (``gwconf use work >&-``, a
    service manager), and a stream on it where Python left ``sys.stdout`` (or another) None.

    Output to a closed stream was an unexpected error ("'NoneType' object has no attribute
    'write'") after the command's work was done. Worse, the first file gwconf opened took the
    free number: a client program started with the inherited descriptor would write its output
    into that file. The streams are None only when a descriptor was closed at start, so a normal
    start pays one comparison."""
    if sys.stdin is not None and sys.stdout is not None and sys.stderr is not None:
        return
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            stream = open(fd, mode, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115 (the process's)
            setattr(sys, name, stream)


def _defer_unused_modules() -> None:
    """Put a ``lazyre.DeferredModule`` in place of each module in ``_DEFERRABLE`` not yet imported (on
    Windows ``ntpath`` is ``os.path``, imported at start: left alone), and ``re``'s own stand-in
    (``lazyre.DeferredRe``: its flags and some modules' ``compile`` answer without it). The
    process's own entry point only, like the collector settings below: in-process callers keep
    their modules."""
    from gwconf.lazyre import DeferredModule, defer_re

    defer_re()
    for name in _DEFERRABLE:
        if name not in sys.modules:
            sys.modules[name] = DeferredModule(name)


def _fewer_collections() -> None:
    """One command makes a great many short-lived containers (each file's data, nodes, tokens)
    and next to no reference cycles, then ends: the youngest generation is collected a
    seventieth as often, so the older ones (which walk every object loaded, modules included)
    seldom are. The collector was 2.3% of a dry run's instructions (callgrind: 1,004M, 981M
    with it disabled). Cycles are still collected, later. The process's own entry point only:
    in-process callers (tests) keep their collector as it was."""
    import gc

    gc.set_threshold(50_000, 10, 10)


def _spare_the_last_collections() -> None:
    """The interpreter collects twice as it shuts down, each walking every object still alive
    (every module's functions, classes and data): 17M of the 170M instructions of ``status`` on
    a home with nothing applied, 10% of a listing (callgrind). What is alive as the command
    returns is frozen, so those walks skip it. Nothing gwconf writes waits for a collection: its
    files are closed (``with``) and synced before they are renamed, and the standard streams
    are flushed at shutdown as before. The process's own entry point only, like the above."""
    import gc

    gc.freeze()


def _end_now(code: int) -> None:
    """Flush the standard streams and end the process with ``code`` at once, when nothing is left
    that shutting down would do: no ``atexit`` handler, no thread but this one. Shutting down
    then only takes every module apart object by object (6-8M instructions of a listing's
    150-200M, callgrind), which the operating system does at no cost. Returns (and ``main``
    exits the usual way) when a handler or thread exists, or a stream cannot be flushed: a
    closed pipe then gets Python's own message and exit status, as before."""
    import atexit

    threading = sys.modules.get("threading")
    if getattr(atexit, "_ncallbacks", lambda: 1)() or (
        threading is not None and threading.active_count() > 1
    ):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:
        return
    os._exit(code)


def run(args: list[str]) -> int:
    """Run one command line and return its exit code; the one top-level handler (design.md section 6)."""
    fast = _fast(args)
    if fast is not None:
        return fast
    loaded = sys.modules.get("gwconf.profiles")
    if loaded is not None:  # in-process callers (tests) run many commands: key commands run once each
        loaded.forget_command_keys()
    from gwconf.cli import _output
    from gwconf.errors import ExitCode, GwconfError

    plain = _plain(args)
    click: Any = None
    if plain is None:
        import click

        from gwconf.cli._root import cli
    # without click, none of its exceptions can be raised: empty tuples catch nothing
    interrupts = (KeyboardInterrupt,) if click is None else (click.exceptions.Abort, KeyboardInterrupt)
    exits = () if click is None else (click.exceptions.Exit,)
    click_errors = () if click is None else (click.ClickException,)

    args = _root_flags_first(args)
    debug = "--debug" in args
    wants_json = "--json" in args[: args.index("--")] if "--" in args else "--json" in args
    try:
        if plain is not None:
            _output.hold_output()  # quick and local: its lines go out in one write at the end
            try:
                result = plain()
            finally:
                _output.release_output()
        else:
            result = cli.main(
                args=args, prog_name="gwconf", complete_var="_GWCONF_COMPLETE", standalone_mode=False
            )
    except GwconfError as exc:
        _output.print_error(exc, as_json=wants_json)
        return int(exc.exit_code)
    except interrupts:
        _output.echo("gwconf: interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except exits as exc:
        return int(exc.exit_code)
    except click_errors as exc:
        from gwconf.errors import UsageError

        command = getattr(getattr(exc, "ctx", None), "command_path", None) or "gwconf"
        error = UsageError(_click_message(exc), f"See the options and examples: {command} --help")
        error.exit_code = exc.exit_code if exc.exit_code in ExitCode.all().values() else ExitCode.USAGE
        _output.print_error(error, as_json=wants_json)
        return int(exc.exit_code)
    except BrokenPipeError:
        return closed_pipe()
    except Exception as exc:
        from gwconf.fileio import system_failure

        failure = system_failure(exc)  # a full disk and its like: said plainly, no crash log
        if failure is not None and not debug:
            _output.print_error(failure, as_json=wants_json)
            return int(failure.exit_code)
        if debug:
            raise
        from gwconf import crashlog
        from gwconf.secrets import redact

        _output.echo(f"gwconf: unexpected error: {redact(type(exc).__name__ + ': ' + str(exc))}", err=True)
        log = crashlog.write(exc, args, crashlog.current_env(), _output.known_keys())
        if log is not None:
            _output.echo(f"hint: this is a bug in gwconf; please report it with {log}", err=True)
            _output.echo("      (keys are redacted; --debug shows the traceback here).", err=True)
        else:
            _output.echo("hint: rerun with --debug for the traceback, and report it.", err=True)
        return int(ExitCode.ERROR)
    return int(result) if isinstance(result, int) else 0


# the writing commands' flags that take no value -> their parameter; see ``_plain``
_WRITING_FLAGS: dict[str, dict[str, str]] = {
    "apply": {
        "--all": "all_clients",
        "--all-supported": "all_supported",
        "--dry-run": "dry_run",
        "-n": "dry_run",
        "--check": "check",
        "--stat": "stat",
        "--force": "force",
        "--json": "as_json",
    },
    "use": {
        "--no-apply": "no_apply",
        "--dry-run": "dry_run",
        "-n": "dry_run",
        "--force": "force",
        "--json": "as_json",
    },
    "restore": {
        "--all": "all_clients",
        "--dry-run": "dry_run",
        "-n": "dry_run",
        "--force": "force",
        "--json": "as_json",
    },
}


def _plain(args: list[str]) -> Callable[[], int] | None:
    """The command lines that run without click, through the same handler as every command:
    click's import was about a tenth of ``clients`` and ``status`` and 50 ms of each write (issue 15).

    - ``clients`` and ``status``, each with or without ``--json``;
    - ``apply``, ``use NAME`` and ``restore`` with client ids and flags that take no value
      (``apply --all --dry-run``, ``use work``, ``restore --all``): their bodies in ``_writing``
      are what the click commands call.

    Any other form (an option with a value, ``--help``, ``--``, root options, completion) goes to
    click, which parses it as before."""
    if "_GWCONF_COMPLETE" in os.environ or not args:
        return None
    if args[0] in _WRITING_FLAGS:
        return _plain_writing(args[0], args[1:])
    if args[1:] not in ([], ["--json"]):
        return None
    as_json = len(args) == 2
    if args[:1] == ["clients"]:
        from gwconf.cli._listing import clients

        return lambda: clients(as_json)
    if args[:1] == ["status"]:
        from gwconf.cli._listing import status

        return lambda: status((), as_json)
    return None


def _plain_writing(name: str, rest: list[str]) -> Callable[[], int] | None:
    flags = _WRITING_FLAGS[name]
    values: dict[str, Any] = {}  # the flags given; the bodies' defaults are the rest
    words: list[str] = []
    for arg in rest:
        if arg in flags:
            values[flags[arg]] = True
        elif arg.startswith("-"):
            return None  # an option with a value, --help, --, a short-flag bundle: click's
        else:
            words.append(arg)
    from gwconf.cli import _writing

    if name == "use":
        if len(words) != 1:
            return None
        return lambda: _writing.use(words[0], **values)
    if name == "apply":
        return lambda: _writing.apply(tuple(words), **values)
    return lambda: _writing.restore(tuple(words), **values)


def _root_flags_first(args: list[str]) -> list[str]:
    """``gwconf status -q`` as ``gwconf -q status``: -q/--quiet and --debug are accepted after the
    command too (never after ``--``, nor among the arguments ``run`` passes to its client)."""
    end = args.index("--") if "--" in args else len(args)
    if "run" in args[:end]:
        end = args.index("run")
    moved = [a for a in args[:end] if a in ("-q", "--quiet", "--debug")]
    if not moved:
        return args
    rest = [a for a in args[:end] if a not in moved]
    return moved + rest + args[end:]


def _click_message(exc: Any) -> str:
    """click's message in gwconf's style: lower-case start, one sentence."""
    text = str(exc.format_message()).strip()
    text = text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
    return text if text.endswith((".", "?")) else text + "."
