"""The order of what reaches the disk in one client's write: its backups and journal are
fsynced (their folders once each) before the first file of the client is replaced, and the
ledger (the commit point) after every replaced file and each replaced file's folder (once). The syscalls are watched through the
audit hook that ``os.replace`` and ``os.rename`` raise and a recording ``os.fsync`` wrapper:
the gwconf code runs unchanged."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []  # ("fsync", path) / ("rename", to) / ("from", from) just before it
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        seen.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def hook(event: str, args: tuple) -> None:  # type: ignore[type-arg]
        if recording and event in ("os.rename", "os.replace"):
            seen.append(("from", os.fsdecode(args[0])))
            seen.append(("rename", os.fsdecode(args[1])))

    recording = True
    monkeypatch.setattr(os, "fsync", fsync)
    sys.addaudithook(hook)  # audit hooks cannot be removed: it records only while this test runs
    yield seen
    recording = False  # the hook reads it


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads fd paths from /proc")
def test_backups_and_journal_reach_the_disk_before_the_first_replace_and_the_ledger_after_the_last(
    gwconf, home: Path, profile, tmp_path: Path, events: list[tuple[str, str]]
) -> None:
    codex = home / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('# mine\nmodel = "gpt-5"\n')
    (codex / "auth.json").write_text('{"OPENAI_API_KEY": "sk-mine-0123456789abcd"}\n')
    events.clear()
    assert gwconf("apply", "codex").exit_code == 0
    state = str((tmp_path / "gwconf" / "state").resolve())
    targets = {str((codex / name).resolve()) for name in ("config.toml", "auth.json")}
    first_replace = min(i for i, (kind, path) in enumerate(events) if kind == "rename" and path in targets)
    last_replace = max(i for i, (kind, path) in enumerate(events) if kind == "rename" and path in targets)
    before = events[:first_replace]
    backups = {
        (before[i - 1][1], path)
        for i, (kind, path) in enumerate(before)
        if kind == "rename" and "/backups/" in path
    }
    assert backups, events
    for temp, copy in backups:  # each copy's own bytes, then its folder, before any file is replaced
        assert ("fsync", temp) in before, (copy, events)
        assert ("fsync", str(Path(copy).parent)) in before, (copy, events)
        # the folders made for it (the file's, the client's, backups/) are names in their parents
        for made in (Path(copy).parent, Path(copy).parent.parent, Path(copy).parent.parent.parent):
            assert ("fsync", str(made.parent)) in before, (made, events)
    journal = next(before[i - 1][1] for i, e in enumerate(before) if e == ("rename", state + "/journal.json"))
    assert ("fsync", journal) in before and ("fsync", state) in before, events
    folder_syncs = [path for kind, path in before if kind == "fsync" and os.path.isdir(path)]
    assert len(folder_syncs) == len(set(folder_syncs)), (
        f"a folder fsynced twice before the replace: {folder_syncs}"
    )
    ledger = state + "/ledger.json"
    commit = next(i for i, (kind, path) in enumerate(events) if kind == "rename" and path == ledger)
    assert commit > last_replace
    assert ("fsync", str(codex.resolve())) in events[last_replace:commit], "the replaced files' folder"
    replacing = [
        path for kind, path in events[first_replace:commit] if kind == "fsync" and os.path.isdir(path)
    ]
    assert replacing.count(str(codex.resolve())) == 1, f"one fsync for both files' folder: {replacing}"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads fd paths from /proc")
def test_a_folder_gwconf_makes_for_a_file_is_a_name_on_disk_before_the_commit(
    gwconf, home: Path, profile, tmp_path: Path, events: list[tuple[str, str]]
) -> None:
    """A new file's folder that gwconf makes (Codex's ~/.codex on a fresh home) is named in its
    parent, and a name is on disk only once its folder is synced: the parent's fsync comes before
    the ledger's commit, as the file's own folder's does."""
    events.clear()
    assert gwconf("apply", "codex").exit_code == 0
    codex = home.resolve() / ".codex"
    assert (codex / "config.toml").is_file()
    ledger = str((tmp_path / "gwconf" / "state" / "ledger.json").resolve())
    commit = next(i for i, (kind, path) in enumerate(events) if kind == "rename" and path == ledger)
    synced = {path for kind, path in events[:commit] if kind == "fsync"}
    assert {str(codex), str(home.resolve())} <= synced, events
