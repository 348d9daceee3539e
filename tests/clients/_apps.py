"""Helpers for the editor and desktop-app client tests: running a fake app, tier-3 checks."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import TEST_KEY, fake_apps_lock


@contextlib.contextmanager
def running_app(folder: Path, name: str) -> Iterator[int]:
    """A real process whose program name is ``name`` (a copy of sleep), ended by its pid afterwards."""
    program = folder / name
    program.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    with fake_apps_lock(exclusive=True):  # (the other worker's commands wait: tests/conftest.py)
        process = subprocess.Popen([str(program), "60"])
        comm = Path(f"/proc/{process.pid}/comm")
        try:
            # Popen can return before the child has exec'd: wait for its name, up to 30 s, and say
            # when it never comes (the wait was 5 s and then went on without the app; test_witsy
            # once found no app in CI, 2026-11-28, cause not found: this rules the wait out)
            deadline = time.monotonic() + 30
            while comm.read_text().strip() != name[:15]:
                assert time.monotonic() < deadline, f"the fake {name} (pid {process.pid}) never started"
                time.sleep(0.01)
            yield process.pid
        finally:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=10)


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def check_steps(gwconf, home: Path, client_id: str, *needles: str) -> str:
    """Tier 3: numbered steps, the key masked (full only with --show-key), exit 0, nothing written."""
    result = gwconf("apply", client_id)
    assert result.exit_code == 0, result
    assert "  1. " in result.stdout and "  4. " in result.stdout
    assert TEST_KEY not in result.output and "sk-…WXYZ" in result.stdout
    assert "--show-key" in result.stdout
    for needle in needles:
        assert needle in result.stdout, needle
    shown = gwconf("apply", client_id, "--show-key")
    assert shown.exit_code == 0 and TEST_KEY in shown.stdout
    assert files_under(home) == []
    return result.stdout


def check_case_placeholders(
    client_id: str, case: str, gwconf, home: Path, placeholders: dict[str, str], *extra_args: str
) -> None:
    """``_harness.check_case`` for files that hold a test-run path: goldens spell it ``@NAME@``."""
    from tests.clients import _harness

    case_dir = _harness.FIXTURES / client_id / case
    before = _harness.tree(case_dir / "before")
    for name, data in before.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(data)
    applied = gwconf("apply", client_id, *extra_args)
    assert applied.exit_code == 0, applied
    after_dir = case_dir / "after"
    names = sorted(set(before) | set(_harness.tree(after_dir)) | _harness._new_files(home, before))
    produced = {n: (home / n).read_bytes() for n in names if (home / n).exists()}

    def golden(data: bytes) -> bytes:
        for marker, value in placeholders.items():
            data = data.replace(value.encode(), f"@{marker}@".encode())
        return data

    if os.environ.get("UPDATE_GOLDENS"):
        shutil.rmtree(after_dir, ignore_errors=True)
        for name, data in produced.items():
            (after_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (after_dir / name).write_bytes(golden(data))
    assert {n: golden(d) for n, d in produced.items()} == _harness.tree(after_dir), f"{client_id}/{case}"
    first = _harness.snapshot(home, names)
    again = gwconf("apply", client_id, *extra_args)
    assert again.exit_code == 0 and "nothing to change" in again.stdout, again
    assert _harness.snapshot(home, names) == first, "a second apply changed bytes or mtime"
    assert gwconf("restore", client_id).exit_code == 0
    assert {n: (home / n).read_bytes() for n in names if (home / n).exists()} == before
