"""A write the file system refuses says why, and what to do, where a plain errno said too little.

A file marked immutable (``chattr +i``, which users set to keep an app from rewriting its
settings) or append-only passes gwconf's checks of mode and owner, and its replace then fails
with "Operation not permitted", which sent users to check permissions that were fine. The marks
are set with the real ``chattr`` where the test may (root with CAP_LINUX_IMMUTABLE), and always
taken off again.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gwconf.fileio import write_failure
from tests.conftest import add_inactive_profile

ORIGINAL = '# locked so codex cannot rewrite it\nmodel = "o3"\n'


@contextmanager
def _marked(path: Path, mark: str) -> Iterator[None]:
    if not sys.platform.startswith("linux") or shutil.which("chattr") is None:
        pytest.skip("needs Linux chattr")
    done = subprocess.run(["chattr", mark, str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"chattr {mark} not allowed here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-" + mark[1], str(path)], check=True)


def _codex(home: Path) -> Path:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(ORIGINAL)
    return config


@pytest.mark.parametrize(("mark", "kind"), [("+i", "immutable"), ("+a", "append-only")])
def test_a_marked_file_is_named_with_the_command_that_unmarks_it(gwconf, home, profile, mark, kind) -> None:
    config = _codex(home)
    with _marked(config, mark):
        result = gwconf("apply", "codex")
        assert result.exit_code != 0
        assert f"~/.codex/config.toml is marked {kind} ({mark}), so it cannot be replaced" in result.stderr
        assert f"chattr -{mark[1]} {config}" in result.stderr
        assert config.read_text() == ORIGINAL
        assert not (home / ".codex" / "auth.json").exists()  # the client's other file neither
    assert gwconf("apply", "codex").exit_code == 0  # unmarked, it goes through


def test_the_command_that_unmarks_is_one_word_for_a_path_with_a_space(
    gwconf, home, profile, monkeypatch
) -> None:
    folder = home / "my codex"
    monkeypatch.setenv("CODEX_HOME", str(folder))
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text(ORIGINAL)
    with _marked(config, "+i"):
        result = gwconf("apply", "codex")
        assert result.exit_code != 0
        assert f"chattr -i '{config}'" in result.stderr, result


def test_a_marked_folder_is_named_before_anything_is_written(gwconf, home, profile) -> None:
    config = _codex(home)
    with _marked(config.parent, "+i"):
        result = gwconf("apply", "codex")
        assert result.exit_code != 0
        assert (
            f"its folder {config.parent} is marked immutable (+i), so no file in it can be replaced"
            in result.stderr
        )
        assert f"chattr -i {config.parent}" in result.stderr
        assert config.read_text() == ORIGINAL


@pytest.mark.parametrize(
    ("code", "said", "hint"),
    [
        (errno.EROFS, "~/x.json: is on a read-only file system", "gwconf run zed"),
        (errno.ENOSPC, "could not write ~/x.json: No space left on device", "Free some space"),
        (errno.EIO, "could not write ~/x.json: Input/output error", "check the disk before"),
        (errno.EFBIG, "could not write ~/x.json: File too large", "ulimit -f"),
    ],
)
def test_other_refusals_say_what_the_errno_means_here(
    tmp_path: Path, code: int, said: str, hint: str
) -> None:
    what, todo = write_failure(OSError(code, os.strerror(code)), tmp_path / "x.json", "~/x.json", "zed")
    assert what == said and hint in todo


def test_the_by_hand_removal_of_a_launch_folder_is_one_word(tmp_path: Path) -> None:
    """``gwconf run``'s temporary folder (it may hold the key) under a home with a space, as on a
    Mac whose user is "John Smith": the hint's ``rm -rf`` must remove that folder, not /Users/John."""
    from gwconf.errors import GwconfError
    from gwconf.launch import remove_folder

    folder = tmp_path / "John Smith" / "launch-1"
    folder.mkdir(parents=True)
    stuck = folder / "config.toml"
    stuck.write_text("x")
    with _marked(stuck, "+i"), pytest.raises(GwconfError) as refused:
        remove_folder(folder)
    assert refused.value.hint == f"Remove it by hand: rm -rf '{folder}'"


def test_the_dry_run_says_what_the_real_run_will_refuse(gwconf, home, profile) -> None:
    """A preview of a file the run will not write shows its diff (what to set by hand) and why."""
    config = _codex(home)
    config.chmod(0o444)
    dry = gwconf("apply", "codex", "--dry-run")
    assert dry.exit_code == 0, dry
    assert "note: the real run will refuse this: ~/.codex/config.toml: is read-only." in dry.stdout
    assert "+" in dry.stdout and "gw.example.com" in dry.stdout  # the diff is still there
    refused = gwconf("apply", "codex")
    assert refused.exit_code != 0 and "is read-only" in refused.stderr
    config.chmod(0o644)
    assert gwconf("apply", "codex").exit_code == 0
    fine = gwconf("restore", "codex", "--dry-run")
    assert "will refuse" not in fine.stdout, fine
    with _marked(config, "+i"):
        preview = gwconf("restore", "codex", "--dry-run")
        assert (
            "the real run will refuse this: ~/.codex/config.toml is marked immutable (+i)" in preview.stdout
        )
        assert gwconf("restore", "codex").exit_code != 0


@pytest.mark.parametrize("marked", ["file", "folder"])
def test_the_dry_run_names_an_append_only_mark_that_access_calls_writable(
    gwconf, home, profile, marked
) -> None:
    """``os.access`` says yes to a file or folder marked append-only, even as its owner, and the
    dry run said nothing; the real run then failed at its rename. Both now name the mark."""
    config = _codex(home)
    path = config if marked == "file" else config.parent
    with _marked(path, "+a"):
        preview = gwconf("apply", "codex", "--dry-run")
        assert preview.exit_code == 0, preview
        assert "the real run will refuse this: ~/.codex/" in preview.stdout, preview
        assert "is marked append-only (+a)" in preview.stdout
        assert f"chattr -a {path}" in preview.stdout
        refused = gwconf("apply", "codex")
        assert refused.exit_code != 0 and "append-only (+a)" in refused.stderr
        assert config.read_text() == ORIGINAL
    assert "will refuse" not in gwconf("apply", "codex", "--dry-run").stdout


def _with_file_size_limit(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``gwconf ARGS`` in a process that may write no file beyond ``limit`` bytes, a full disk's
    stand-in that needs no mount: the write fails with EFBIG (SIGXFSZ ignored, as a shell with
    ``ulimit -f`` leaves it for a program that handles it)."""
    resource = pytest.importorskip("resource")
    import signal

    if not hasattr(signal, "SIGXFSZ"):
        pytest.skip("no file size limit signal here")

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    from tests.test_entry_exit import MAIN

    return subprocess.run(
        [sys.executable, "-c", MAIN, *args], capture_output=True, text=True, preexec_fn=limited, timeout=120
    )


def test_a_full_disk_under_gwconfs_own_files_is_said_plainly_and_the_next_run_goes_through(
    gwconf, home, profile
) -> None:
    """A write of gwconf's journal that the system refuses (a full disk, a quota, a size limit)
    was an "unexpected error ... this is a bug in gwconf" with a crash log. It is named with its
    file and what to do, exit 1; no client file was touched, and once the space is back the same
    command, then a restore, work as if nothing had happened."""
    import json

    config = _codex(home)
    opencode = home / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    # big enough that the journal (which holds its new text) passes the limit, the file itself not
    original = json.dumps({f"setting{i}": "x" * 60 for i in range(120)}, indent=2) + "\n"
    opencode.write_text(original)
    state = Path(os.environ["GWCONF_HOME"]) / "state"

    result = _with_file_size_limit(len(original) + 2000, "apply", "codex", "opencode")
    assert result.returncode == 1, result.stderr
    assert "File too large" in result.stderr and str(state) in result.stderr, result.stderr
    assert "hint: A limit on file size stopped the write" in result.stderr
    assert "unexpected error" not in result.stderr and "bug" not in result.stderr
    assert not (state / "crash.log").exists()
    assert config.read_text() == ORIGINAL and opencode.read_text() == original
    assert not [p for p in home.rglob("*") if p.name.endswith(".gwconf-tmp")]  # no temp file left

    applied = gwconf("apply", "codex", "opencode")
    assert applied.exit_code == 0, applied
    assert "https://gw.example.com/v1" in config.read_text() and "gwconf" in opencode.read_text()
    restored = gwconf("restore", "codex", "opencode")
    assert restored.exit_code == 0, restored
    assert config.read_text() == ORIGINAL and opencode.read_text() == original


def test_use_stopped_by_a_full_disk_says_the_switch_happened_and_how_to_finish(gwconf, home, profile) -> None:
    """``use`` makes the profile active, then re-applies: stopped in between, the error says so,
    or status would show a switch that never reached the clients with nothing to explain it."""
    config = _codex(home)
    assert gwconf("apply", "codex").exit_code == 0
    add_inactive_profile("other", "https://other.example.com/v1", "sk-other-0123456789abcdef")
    result = _with_file_size_limit(200, "use", "other")
    assert result.returncode == 1, result.stderr
    assert "File too large" in result.stderr and "unexpected error" not in result.stderr
    said = " ".join(result.stderr.split())
    assert "The active profile is other already; the clients kept the profile they had." in said
    assert "Once that is fixed, gwconf use other re-applies them." in said
    assert gwconf("current").stdout.strip() == "other"
    assert "https://gw.example.com/v1" in config.read_text()  # still the profile it had
    assert gwconf("use", "other").exit_code == 0
    assert "https://other.example.com/v1" in config.read_text()


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (
            OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/s/ledger.json"),
            "could not write /s/ledger.json",
        ),
        (
            OSError(errno.EIO, os.strerror(errno.EIO), "/s/config.toml"),
            "could not read or write /s/config.toml",
        ),
        (OSError(errno.EDQUOT, os.strerror(errno.EDQUOT)), "a write failed: "),
        (OSError(errno.ENOENT, os.strerror(errno.ENOENT), "/s/x"), None),  # gwconf's to handle: a bug
        # a path in a state a user (or a sudo run) left: named, not a bug; a rename names its target
        (
            PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/s/gwconf.lock"),
            "could not use /s/gwconf.lock",
        ),
        (
            IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), "/s/.active.tmp", None, "/s/active"),
            "could not use /s/active",
        ),
        (PermissionError(errno.EACCES, os.strerror(errno.EACCES)), None),  # no path to name
        (ValueError("no"), None),
    ],
)
def test_only_the_systems_own_failures_are_said_as_such(exc: BaseException, said: str | None) -> None:
    """(and a path gwconf cannot use: the filesystem sweep found a lock that is a folder, a
    backups folder that is a file, a state folder root owns, each reported as a bug)"""
    from gwconf.fileio import system_failure

    failure = system_failure(exc)
    if said is None:
        assert failure is None
    else:
        assert failure is not None and said in failure.message and failure.exit_code == 1


def test_gwconfs_own_paths_in_states_a_user_left_are_named_not_reported_as_bugs(
    gwconf, home, profile, tmp_path: Path
) -> None:
    state = tmp_path / "gwconf" / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "gwconf.lock").unlink(missing_ok=True)  # profile add took the lock
    (state / "gwconf.lock").mkdir()
    result = gwconf("apply", "codex")
    assert result.exit_code == 1 and "unexpected error" not in result.output, result
    assert f"could not use {state / 'gwconf.lock'}: Is a directory." in result.stderr
    assert "move it aside" in result.stderr
    (state / "gwconf.lock").rmdir()
    (state / "backups").mkdir(exist_ok=True)
    (state / "backups" / "codex").write_text("not a folder")
    result = gwconf("apply", "codex")
    assert result.exit_code == 1 and f"could not use {state / 'backups' / 'codex'}" in result.stderr, result
    (home / ".codex").symlink_to(home / ".codex")  # a folder that links to itself
    listed = gwconf("clients")
    assert listed.exit_code == 0 and "unexpected error" not in listed.output, listed
    result = gwconf("apply", "codex")
    assert "~/.codex/config.toml: its path goes through a symlink loop." in result.stderr, result


def test_a_lock_that_links_into_a_missing_folder_is_named(gwconf, home, profile, tmp_path: Path) -> None:
    state = tmp_path / "gwconf" / "state"
    lock = state / "gwconf.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(tmp_path / "nowhere" / "gwconf.lock")
    result = gwconf("apply", "codex")
    assert result.exit_code == 1 and "unexpected error" not in result.output, result
    assert (
        f"{lock}: is a link to {tmp_path / 'nowhere' / 'gwconf.lock'}, which cannot be created."
        in result.stderr
    )
