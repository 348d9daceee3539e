"""The console entry (``gwconf.cli.main``) ends the process itself once the streams are
flushed (issue 15: the interpreter's teardown was 6-8M instructions of a listing). What a
caller sees must be what ``sys.exit`` gave: the exit code, every byte of both streams, atexit
handlers run, and a closed pipe reported by Python as before."""

from __future__ import annotations

import os
import subprocess
import sys

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


def test_a_closed_pipe_is_reported_as_before(profile: str) -> None:
    env = _environ()
    seen = []
    for code in (MAIN, RUN):
        read, write = os.pipe()
        os.close(read)  # nobody reads: the flush at the end fails
        proc = subprocess.run(
            [sys.executable, "-c", code, "clients"], stdout=write, stderr=subprocess.PIPE, text=True, env=env
        )
        os.close(write)
        seen.append((proc.returncode, proc.stderr))
    assert seen[0] == seen[1]  # run() itself may meet the closed pipe first: then both say nothing
