"""The ``processes`` fixture ends what a client left behind, and nothing it did not start.

Real clients leave daemons (Cline's hub, Codex's app server) that detach into their own session;
these tests use ``setsid sleep`` as such a daemon. Fast, and they need no installed client.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.e2e.conftest import Processes

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not shutil.which("setsid"), reason="needs Linux /proc and setsid"
)


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def env() -> dict[str, str]:
    return {"PATH": os.environ["PATH"]}


# A daemon that detaches into its own session, like a client's, before the client exits.
DAEMON = (
    "setsid sh -c 'touch detached; exec sleep 300' </dev/null >/dev/null 2>&1 & "
    "while [ ! -e detached ]; do sleep 0.01; done; echo $!"
)


def test_a_detached_daemon_is_found_and_ended(processes: Processes, tmp_path: pathlib.Path) -> None:
    run = processes.run(["sh", "-c", DAEMON], env=env(), cwd=tmp_path, timeout=30)
    daemon = int(run.stdout.strip())
    assert run.returncode == 0 and not run.timed_out
    assert run.leftovers == [daemon]
    assert not alive(daemon)


def test_a_process_the_test_did_not_start_through_the_fixture_is_left_alone(
    processes: Processes, tmp_path: pathlib.Path
) -> None:
    other = subprocess.Popen(["sleep", "300"], env=env())
    try:
        run = processes.run(["sh", "-c", DAEMON], env=env(), cwd=tmp_path, timeout=30)
        assert run.leftovers == [int(run.stdout.strip())]
        assert alive(other.pid)
    finally:
        other.kill()
        other.wait()


def test_a_hanging_client_is_ended_at_its_time_limit_with_its_group(
    processes: Processes, tmp_path: pathlib.Path
) -> None:
    marker = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {marker}; wait"
    run = processes.run(["sh", "-c", script], env=env(), cwd=tmp_path, timeout=1)
    assert run.timed_out and run.returncode != 0
    assert not alive(int(marker.read_text()))  # its child, in its process group, went with it


# (a client's script, its time limit, then how the run must end: lingered, timed out, its stdout)
ENDINGS = {
    # the grace runs from the text, not from the start; what it printed before is all kept
    "still running after its reply: ended then": (
        "echo working; sleep 1; echo 'the reply'; exec sleep 300",
        120,
        True,
        False,
        "working\nthe reply\n",
    ),
    # a client that logs the end of its run on stderr and prints its reply only at its exit
    "the text on stderr counts too": ("echo 'the reply' >&2; exec sleep 300", 120, True, False, ""),
    "never prints it: timed out": ("echo working; exec sleep 300", 2, False, True, "working\n"),
    "exits after it: neither": ("echo 'the reply'", 30, False, False, "the reply\n"),
}


@pytest.mark.parametrize("case", list(ENDINGS))
def test_a_client_that_stays_running_after_its_done_text_is_ended_a_grace_later(
    case: str, processes: Processes, tmp_path: pathlib.Path
) -> None:
    script, timeout, lingered, timed_out, stdout = ENDINGS[case]
    run = processes.run(
        ["sh", "-c", script], env=env(), cwd=tmp_path, timeout=timeout, done_text="the reply", grace=1
    )
    assert (run.lingered, run.timed_out, run.stdout) == (lingered, timed_out, stdout), run
    assert (run.returncode == 0) == (not lingered and not timed_out), run
