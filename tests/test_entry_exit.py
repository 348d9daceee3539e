"""The console entry (``gwconf.cli.main``) ends the process itself once the streams are
flushed (issue 15: the interpreter's teardown was 6-8M instructions of a listing). What a
caller sees must be what ``sys.exit`` gave: the exit code, every byte of both streams, atexit
handlers run. A closed pipe ends quietly with 141 (``gwconf.cli.closed_pipe``)."""

from __future__ import annotations

import fcntl
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable

import pytest

# the process's own entry point, as the console script calls it; ARGV after the code
MAIN = "import sys; from gwconf.cli import main; sys.argv = ['gwconf', *sys.argv[1:]]; main()"
# the same command through run() and sys.exit: the interpreter's usual ending
RUN = "import sys; from gwconf.cli import run; sys.exit(run(sys.argv[1:]))"


def _environ() -> dict[str, str]:
    """The test's environment with Python's own stdout buffering (as users run it): a command's
    output then waits in the buffer for the ending to flush it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return {**env, "PATH": "/usr/bin:/bin"}


def _both(args: list[str], prefix: str = "") -> tuple[subprocess.CompletedProcess[str], ...]:
    env = _environ()
    return tuple(
        subprocess.run([sys.executable, "-c", prefix + code, *args], capture_output=True, text=True, env=env)
        for code in (MAIN, RUN)
    )


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["clients", "--json"],
        ["profile", "list"],
        ["--version"],
        ["no-such-command"],
        ["use", "nope"],
    ],
)
def test_main_ends_as_sys_exit_would(profile: str, args: list[str]) -> None:
    ended, exited = _both(args)
    assert (ended.returncode, ended.stdout, ended.stderr) == (exited.returncode, exited.stdout, exited.stderr)
    assert ended.stdout or ended.stderr


def test_an_atexit_handler_still_runs(profile: str) -> None:
    handler = "import atexit; atexit.register(lambda: print('handler ran', file=sys.stderr)); "
    ended, _ = _both(["status"], prefix="import sys; " + handler)
    assert ended.returncode == 0
    assert ended.stderr.endswith("handler ran\n")


def test_a_closed_pipe_ends_the_same_through_run(profile: str) -> None:
    env = _environ()
    seen = []
    for code in (MAIN, RUN):
        read, write = os.pipe()
        os.close(read)  # nobody reads: the first write fails
        proc = subprocess.run(
            [sys.executable, "-c", code, "clients"], stdout=write, stderr=subprocess.PIPE, text=True, env=env
        )
        os.close(write)
        seen.append((proc.returncode, proc.stderr))
    assert seen[0] == seen[1] == (141, "")


def _long_listing_env(home: pathlib.Path) -> dict[str, str]:
    """An environment whose ``gwconf clients`` prints far more than a pipe holds: every client's
    files under a deep XDG_CONFIG_HOME."""
    config = home
    for _ in range(8):
        config = config / ("c" * 200)
    config.mkdir(parents=True)
    return {**_environ(), "XDG_CONFIG_HOME": str(config)}


@pytest.mark.parametrize("args", [["clients"], ["clients", "--json"]])
def test_a_reader_that_stops_early_ends_it_quietly(home: pathlib.Path, profile: str, args: list[str]) -> None:
    """``gwconf clients | head -1``: the reader takes one line and goes; gwconf ends at once,
    nothing on stderr (no "Exception ignored ... BrokenPipeError", no traceback), with the status
    a shell shows for a program SIGPIPE ended."""
    env = _long_listing_env(home)
    read, write = os.pipe()
    fcntl.fcntl(read, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe: the output cannot all fit
    proc = subprocess.Popen(
        [sys.executable, "-m", "gwconf", *args], stdout=write, stderr=subprocess.PIPE, env=env
    )
    os.close(write)
    with os.fdopen(read, "rb") as reader:
        first = reader.readline()
    stderr = proc.stderr.read().decode()  # type: ignore[union-attr]
    assert proc.wait(timeout=30) == 141, stderr
    assert first and stderr == ""


@pytest.mark.parametrize(
    "args", [["profile", "list"], ["profile", "list", "--json"], ["--help"], [], ["current"]]
)
def test_the_paths_without_click_end_as_quietly(profile: str, args: list[str]) -> None:
    """The same for the commands answered without click (``gwconf.cli._fast``)."""
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run(
        [sys.executable, "-m", "gwconf", *args],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        env=_environ(),
    )
    os.close(write)
    assert (proc.returncode, proc.stderr) == (141, "")


class _Shared:
    """stdout or stderr of a test, both writing into one list as a pipe they share would:
    (stream, text) per write, flushes counted apart."""

    def __init__(self, name: str, writes: list[tuple[str, str]], terminal: bool = False) -> None:
        self.name, self.writes, self.terminal = name, writes, terminal

    def write(self, text: str | bytes) -> int:
        if text:  # click.echo writes bytes, and an empty string first
            self.writes.append((self.name, text.decode() if isinstance(text, bytes) else text))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.terminal


def test_held_lines_go_out_before_a_line_to_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick command's stdout to a pipe is written once (issue 15: ``status`` made a write for
    each of its lines), but never after a line it printed before one to stderr."""
    from gwconf.cli import _output

    writes: list[tuple[str, str]] = []
    monkeypatch.setattr(sys, "stdout", _Shared("out", writes))
    monkeypatch.setattr(sys, "stderr", _Shared("err", writes))
    _output.hold_output()
    try:
        _output.out("first")
        _output.out("second")
        assert writes == []
        _output.warn("on stderr")
        _output.out("third")
    finally:
        _output.release_output()
    assert writes == [("out", "first\nsecond\n"), ("err", "warning: on stderr\n"), ("out", "third\n")]
    _output.out("after the command")  # nothing is held any more
    assert writes[-1] == ("out", "after the command\n")


def test_a_terminal_gets_each_line_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from gwconf.cli import _output

    writes: list[tuple[str, str]] = []
    monkeypatch.setattr(sys, "stdout", _Shared("out", writes, terminal=True))
    _output.hold_output()
    try:
        _output.out("shown now")
        assert writes == [("out", "shown now\n")]
    finally:
        _output.release_output()


def test_status_to_a_pipe_prints_what_it_printed_line_by_line(profile: str) -> None:
    """The held lines are the same bytes, under Python's own buffering and unbuffered (-u)."""
    env = _environ()
    held = subprocess.run([sys.executable, "-m", "gwconf", "status"], capture_output=True, text=True, env=env)
    unbuffered = subprocess.run(
        [sys.executable, "-u", "-m", "gwconf", "status"], capture_output=True, text=True, env=env
    )
    by_line = subprocess.run(
        [sys.executable, "-c", "import sys; from gwconf.cli import _output, main; "
         "_output.hold_output = lambda: None; sys.argv = ['gwconf', 'status']; main()"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert held.returncode == unbuffered.returncode == by_line.returncode == 0
    assert held.stdout == unbuffered.stdout == by_line.stdout
    assert "Active profile" in held.stdout


def _closing(*fds: int) -> Callable[[], None]:
    def close() -> None:  # in the child, before gwconf starts: as ``gwconf ... >&-`` leaves it
        for fd in fds:
            os.close(fd)

    return close


@pytest.mark.parametrize("closed", [(1,), (1, 2), (0,)])
def test_a_command_with_a_closed_stream_does_its_work(
    profile: str, home: pathlib.Path, closed: tuple[int, ...]
) -> None:
    """A closed stdout was an unexpected error once the work was done, and the first file opened
    took descriptor 1: what is printed goes nowhere now, and nothing lands in a client's file."""
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text('model = "mine"  # keep\n')
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "apply", "codex"],
        capture_output=True,
        text=True,
        env=_environ(),
        preexec_fn=_closing(*closed),
    )
    assert done.returncode == 0
    assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    text = codex.read_text()
    assert "# keep" in text and 'base_url = "https://gw.example.com/v1"' in text
    for printed in ("== codex", "updated ~/", "restart:", "Applied profile", "Undo with"):
        assert printed not in text and printed not in (home / ".codex" / "auth.json").read_text()
    listed = subprocess.run(
        [sys.executable, "-c", MAIN, "status"],
        capture_output=True,
        env=_environ(),
        preexec_fn=_closing(*closed),
    )
    assert listed.returncode == 0 and b"unexpected error" not in listed.stderr


def test_an_error_still_reaches_stderr_when_stdout_is_closed(profile: str) -> None:
    failed = subprocess.run(
        [sys.executable, "-c", MAIN, "use", "nope"],
        capture_output=True,
        text=True,
        env=_environ(),
        preexec_fn=_closing(1),
    )
    assert failed.returncode == 1
    assert failed.stderr.startswith("gwconf: error: no profile named 'nope'")
