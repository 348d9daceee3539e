"""Two ``gwconf use`` at once (a shell hook in two terminals, a script) end as if one had run
after the other.

``use`` planned before it took gwconf's lock, and wrote (compare-and-swap) only what its plan
changed. Twelve pairs of ``use a`` and ``use b`` started together left the clients on two
profiles, each run reporting success: one run had found aider "already up to date", the other
switched it meanwhile, and no order of the two gives that. Now ``use`` holds the lock from
before it switches the active profile to its last write.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from gwconf.fileio import exclusive_lock
from tests.conftest import add_inactive_profile
from tests.test_entry_exit import MAIN

CLIENTS = ("codex", "opencode", "aider")


def _state(gwconf) -> tuple[str, dict[str, str | None]]:
    import json

    status = json.loads(gwconf("status", *CLIENTS, "--json").stdout)
    return gwconf("current").stdout.strip(), {c["id"]: c["profile"] for c in status["clients"]}


def test_two_uses_at_once_leave_every_client_on_the_profile_made_active(
    gwconf, home: Path, profile: str
) -> None:
    """Pairs of ``use work`` and ``use other`` started together. Each pair must end as one of the
    two orders would: the active profile on every client. Before, a run planned while the other
    wrote; with these three clients about one pair in two ended mixed (``aider`` on one profile,
    the rest on the other), both runs exiting 0."""
    add_inactive_profile("other", "https://other.example.com/v1", "sk-other-0123456789abcdef")
    assert gwconf("apply", *CLIENTS).exit_code == 0
    for _ in range(6):
        runs = [
            subprocess.Popen(
                [sys.executable, "-c", MAIN, "use", name],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("other", profile)
        ]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
        active, on = _state(gwconf)
        assert on == dict.fromkeys(CLIENTS, active), (active, on)


def test_a_nested_lock_in_one_process_is_already_held(tmp_path: Path) -> None:
    """The write and the repair take the lock on their own, inside a run that holds it: with
    ``flock`` a second descriptor waited for the first, its own holder, until the timeout."""
    lock = tmp_path / "gwconf.lock"
    started = time.monotonic()
    with exclusive_lock(lock), exclusive_lock(lock, timeout=0.5), exclusive_lock(lock, timeout=0.5):
        pass
    assert time.monotonic() - started < 0.4
    # released in full: another process takes it at once
    taken = subprocess.run(
        [sys.executable, "-c", f"from gwconf.fileio import exclusive_lock\nwith exclusive_lock(__import__('pathlib').Path({str(lock)!r}), timeout=1): print('ok')"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert taken.stdout.strip() == "ok", taken.stderr


def test_a_command_waiting_for_the_lock_says_so(gwconf, home, tmp_path: Path) -> None:
    """The filesystem sweep: with another gwconf holding the lock, a command waited up to 30 s
    with nothing on the screen. After a second it says what it waits for."""
    lock = tmp_path / "gwconf" / "state" / "gwconf.lock"
    with exclusive_lock(lock):
        waiting = subprocess.Popen(
            [
                sys.executable,
                "-c",
                MAIN,
                "profile",
                "add",
                "w",
                "--base-url",
                "https://gw.example.com/v1",
                "--key-stdin",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiting.stdin is not None
        waiting.stdin.write("sk-test-0123456789abcdefWXYZ\n")
        waiting.stdin.close()
        time.sleep(2.5)
    assert waiting.wait(timeout=60) == 0
    assert waiting.stderr is not None
    err = waiting.stderr.read()
    assert f"note: waiting for another gwconf to finish (lock {lock}; up to 30 s)..." in err
