"""Permissions and links (issue 8): a read-only file or folder, a file of another user, a symlink to
nothing, a symlink loop. For every format: a clear error naming the file, exit 1, nothing changed
(bytes, mode, owner, the folder's entries), no backup taken. The tests run as root here, which
bypasses file permissions: gwconf must honour the modes and owners anyway.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.hardening.test_garbage import WHERE

FORMATS = sorted(WHERE)


def _state(folder: Path) -> dict[str, tuple[bytes | str | None, int, int, int]]:
    """Every entry under ``folder``: content (or link target), mode, owner, mtime."""
    found = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        st = path.lstat()
        if path.is_symlink():
            content: bytes | str | None = os.readlink(path)
        elif path.is_file():
            content = path.read_bytes()
        else:
            content = None
        found[path.relative_to(folder).as_posix()] = (content, st.st_mode, st.st_uid, st.st_mtime_ns)
    return found


def _refused(result, shown: str, words: str, home: Path, before: dict, tmp_path: Path, client: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result
    assert "Traceback" not in result.output and "unexpected error" not in result.output, result
    assert shown in result.stderr and words in result.stderr, result
    assert _state(home) == before, "something changed"
    assert not (tmp_path / "gwconf" / "state" / "backups" / client).exists(), "a backup was taken"


def _place(home: Path, fmt: str) -> tuple[str, Path, str]:
    client, relative, valid = WHERE[fmt]
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(valid)
    return client, path, "~/" + relative


@pytest.mark.parametrize("fmt", FORMATS)
def test_read_only_file(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, path, shown = _place(home, fmt)
    path.chmod(0o444)
    before = _state(home)
    _refused(invoke("apply", client), shown, "read-only", home, before, tmp_path, client)


@pytest.mark.parametrize("fmt", FORMATS)
def test_read_only_folder(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, path, shown = _place(home, fmt)
    folder = path.parent
    if folder == home:
        pytest.skip("the file lives in HOME itself")
    folder.chmod(0o555)
    try:
        before = _state(home)
        shown_folder = shown.rsplit("/", 1)[0] + "/"  # the first of the client's files there is named
        _refused(invoke("apply", client), shown_folder, "not writable", home, before, tmp_path, client)
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_owned_by_another_user(
    home: Path, tmp_path: Path, profile: str, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file belongs to one user, gwconf runs as another (``sudo gwconf``). Only root can give
    a file away, so the test turns it around and runs for any user and on macOS: the file stays
    the tester's, and ``os.geteuid`` (standard library) answers another uid."""
    client, path, shown = _place(home, fmt)
    owner = path.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    before = _state(home)
    _refused(invoke("apply", client), shown, "belongs to", home, before, tmp_path, client)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_symlink_to_a_missing_target(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, relative, _ = WHERE[fmt]
    link = home / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(home / "dotfiles" / "not-there" / link.name)
    before = _state(home)
    _refused(invoke("apply", client), "~/" + relative, "does not exist", home, before, tmp_path, client)
    assert not (home / "dotfiles").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_link_into_the_nix_store(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    """home-manager links a client's file into the read-only Nix store: the error names the store
    and the way out (the Nix configuration, or ``gwconf run``), not the store folder's mode; the
    dry run still shows the values to set there."""
    client, relative, valid = WHERE[fmt]
    stored = tmp_path / "nix" / "store" / "0abc-home-manager-files" / relative
    stored.parent.mkdir(parents=True)
    stored.write_text(valid)
    link = home / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(stored)
    before = _state(home), stored.read_bytes()
    result = invoke("apply", client)
    _refused(result, "~/" + relative, "is a link into the Nix store", home, before[0], tmp_path, client)
    assert f"gwconf run {client}" in result.stderr and stored.read_bytes() == before[1]
    assert invoke("apply", client, "--dry-run").exit_code == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_symlink_loop(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, relative, _ = WHERE[fmt]
    link = home / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    other = link.parent / "other-link"
    link.symlink_to(other)
    other.symlink_to(link)
    before = _state(home)
    _refused(invoke("apply", client), "~/" + relative, "symlink loop", home, before, tmp_path, client)
    status = invoke("status", client)
    assert "Traceback" not in status.output and "unexpected error" not in status.output
    assert _state(home) == before


def test_a_symlink_to_a_device_or_folder(home: Path, tmp_path: Path, profile: str) -> None:
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    for target, words in ((Path("/dev/null"), "not a regular file"), (home / "somedir", "is a folder")):
        target.mkdir(exist_ok=True) if target.parent == home else None
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        before = _state(home)
        _refused(
            invoke("apply", "claude-code"),
            "~/.claude/settings.json",
            words,
            home,
            before,
            tmp_path,
            "claude-code",
        )


def test_restore_honours_the_same_rules(home: Path, tmp_path: Path, profile: str) -> None:
    """A file gwconf wrote that became read-only (or another user's) is not restored over."""
    client, path, _ = _place(home, "json")
    assert invoke("apply", client).exit_code == 0
    path.chmod(0o444)
    before = _state(home)
    result = invoke("restore", client)
    assert result.exit_code == 1 and "read-only" in result.stderr, result
    assert _state(home) == before


@pytest.mark.parametrize("client", ["codex", "claude-code", "aider"])
def test_root_does_not_create_files_in_a_users_home(
    home: Path, tmp_path: Path, profile: str, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sudo gwconf apply`` with the user's HOME kept (macOS's sudo keeps it): the files and
    folders it made were root's (``~/.claude`` 0700), and the client, run as the user, could no
    longer read its own settings. Run as root here, the home is given to another uid; run as a
    user, ``os.geteuid`` answers 0. Without ``SUDO_UID`` (root itself, a container's only user)
    it writes, as root asks."""
    monkeypatch.setenv("SUDO_UID", "12345")
    if os.geteuid() == 0:
        os.chown(home, 12345, 12345)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: 0)
    before = _state(home)
    preview = invoke("apply", client, "--dry-run")
    assert preview.exit_code == 0, preview
    assert "the real run will refuse this: ~/" in preview.stdout, preview
    result = invoke("apply", client)
    assert result.exit_code == 1, result
    assert f"gwconf would create it in {home}, which belongs to " in result.stderr, result
    assert "Run gwconf as that user (not with sudo)." in result.stderr
    assert _state(home) == before, "something was created"


def test_root_does_not_create_gwconfs_own_folders_in_a_users_home(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sudo gwconf profile add`` in a fresh home made ``~/.config`` and ``~/.local`` root's, 0700:
    the user's gwconf, and every other program reading ``~/.config``, could not read them."""
    monkeypatch.setenv("SUDO_UID", "12345")
    if os.geteuid() == 0:
        os.chown(home, 12345, 12345)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setenv("GWCONF_HOME", str(home / ".config" / "gwconf"))
    before = _state(home)
    result = invoke(
        "profile", "add", "w", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
        input="sk-test-0123456789abcdefWXYZ\n",
    )  # fmt: skip
    assert result.exit_code != 0, result
    assert "gwconf would create it in " in result.stderr and "Run gwconf as that user" in result.stderr, (
        result
    )
    assert "unexpected error" not in result.stderr
    assert _state(home) == before, "something was created"


def test_root_itself_writes_in_a_folder_of_another_uid(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A container whose only user is root, over a workspace checked out by another uid (CI): no
    sudo, so nobody else's files are at stake; gwconf writes, as root asks."""
    monkeypatch.delenv("SUDO_UID", raising=False)
    monkeypatch.delenv("DOAS_USER", raising=False)
    if os.geteuid() == 0:
        os.chown(home, 12345, 12345)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setenv("GWCONF_HOME", str(home / ".config" / "gwconf"))
    result = invoke(
        "profile", "add", "w", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
        input="sk-test-0123456789abcdefWXYZ\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    assert invoke("apply", "codex").exit_code == 0
    assert (home / ".codex" / "config.toml").is_file()
