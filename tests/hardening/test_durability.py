"""The durability steps of ``fileio.atomic_write``, in their order (issue 13).

A power cut must leave either the old file or the new one, whole. That takes three steps in this
order: fsync the temp file (its bytes are on disk before its name can point at them), rename it
over the target, fsync the folder (the rename itself is on disk). Removing either fsync survived
every test before this one; each leaves no trace a test could see afterwards, so the steps are
recorded as they happen.

``os.fsync`` is wrapped (standard library, not gwconf's code) to note what each call synced, by
inode. Renames are seen through the audit event ``os.rename``, which ``os.replace`` raises and
which fileio raises itself before its ``renameat2`` call on Linux.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from gwconf.fileio import atomic_write, read_snapshot, remove_file

_events: list[tuple[str, Any]] | None = None  # recording only while a test sets it


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _events is not None and event == "os.rename":
        _events.append(("rename", Path(os.fsdecode(args[1])).name))


sys.addaudithook(_audit)  # audit hooks cannot be removed: this one records only when asked


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    global _events
    recorded: list[tuple[str, Any]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        info = os.fstat(fd)
        kind = "fsync folder" if stat.S_ISDIR(info.st_mode) else "fsync file"
        recorded.append((kind, info.st_ino))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    _events = recorded
    yield recorded
    _events = None


def _expected(target: Path) -> list[tuple[str, Any]]:
    return [
        ("fsync file", target.stat().st_ino),  # the temp file: the inode the target now has
        ("rename", target.name),
        ("fsync folder", target.parent.stat().st_ino),
    ]


def test_a_new_file_is_synced_renamed_then_its_folder_synced(tmp_path: Path, steps: list) -> None:
    target = tmp_path / "config.json"
    atomic_write(target, b'{"a": 1}\n', mode=None, secret=False)
    assert target.read_bytes() == b'{"a": 1}\n'
    assert steps == _expected(target)


def test_a_replaced_file_is_synced_renamed_then_its_folder_synced(tmp_path: Path, steps: list) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"old\n")
    atomic_write(target, b"new\n", mode=0o644, secret=False)
    assert target.read_bytes() == b"new\n"
    assert steps == _expected(target)


@pytest.mark.parametrize("exists", [True, False], ids=["existing", "new"])
def test_the_compare_and_swap_write_keeps_the_same_order(tmp_path: Path, steps: list, exists: bool) -> None:
    """The plan's write path: an expected snapshot, swapped in with renameat2 on Linux (a plain
    replace elsewhere); the same three steps, whichever way the rename is made."""
    target = tmp_path / "config.toml"
    if exists:
        target.write_bytes(b'model = "a"\n')
    snapshot = read_snapshot(target)
    atomic_write(target, b'model = "b"\n', mode=0o600, secret=True, expect=snapshot, shown="config.toml")
    assert target.read_bytes() == b'model = "b"\n'
    assert steps == _expected(target)


def test_a_removed_file_has_its_folder_synced(tmp_path: Path, steps: list) -> None:
    target = tmp_path / "gone.json"
    target.write_bytes(b"{}")
    remove_file(target)
    assert not target.exists()
    assert steps == [("fsync folder", tmp_path.stat().st_ino)]


@pytest.mark.parametrize("secret", [True, False])
def test_the_folder_is_made_when_missing_and_a_file_in_its_place_is_refused(
    tmp_path: Path, secret: bool
) -> None:
    """atomic_write makes a missing folder (0700 for a secret file), writes into one that is
    there, and refuses a folder name that is a file, leaving that file as it was."""
    target = tmp_path / "new" / "deeper" / "config.json"
    atomic_write(target, b"{}\n", mode=None, secret=secret)
    assert target.read_bytes() == b"{}\n"
    if secret and os.name != "nt":
        assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    atomic_write(target.parent / "other.json", b"[]\n", mode=None, secret=secret)
    assert sorted(p.name for p in target.parent.iterdir()) == ["config.json", "other.json"]
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"mine\n")
    with pytest.raises(OSError):
        atomic_write(blocker / "config.json", b"{}\n", mode=None, secret=secret)
    assert blocker.read_bytes() == b"mine\n"
