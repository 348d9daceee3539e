"""A hard-linked dotfile: gwconf says, before and when it writes, that the link comes apart.

gwconf replaces a file by renaming a new one over its name (atomic and crash-safe; see
../shared/reference/formats.md section 7.2), which a second name for the same file does not
follow: the dotfiles folder's name keeps the old text. A user who hard-linked
``~/dotfiles/codex.toml`` to ``~/.codex/config.toml`` is told so, with how to join them again,
by the dry run, apply, ``use`` and restore; a file of one name gets no such note.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY, add_inactive_profile

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="hard links as POSIX makes them")

ORIGINAL = '# my codex\nmodel = "o3"\napproval_policy = "on-request"\n'
NOTE = "~/.codex/config.toml has 2 names (hard links)"


def _linked(home: Path) -> tuple[Path, Path]:
    """``~/.codex/config.toml`` as a second name of ``~/dotfiles/codex.toml``."""
    dotfile, live = home / "dotfiles" / "codex.toml", home / ".codex" / "config.toml"
    dotfile.parent.mkdir()
    live.parent.mkdir()
    dotfile.write_text(ORIGINAL)
    os.link(dotfile, live)
    return dotfile, live


def test_dry_run_and_apply_say_the_link_comes_apart(gwconf, home, profile) -> None:
    dotfile, live = _linked(home)
    dry = gwconf("apply", "codex", "--dry-run")
    assert dry.exit_code == 0, dry
    assert NOTE in dry.stdout and "ln -f ~/.codex/config.toml OTHER-NAME" in dry.stdout
    assert os.stat(live).st_nlink == 2 and live.read_text() == ORIGINAL  # the dry run wrote nothing

    notes = json.loads(gwconf("apply", "codex", "--dry-run", "--json").stdout)
    assert any(NOTE in note for result in notes["clients"] for note in result["notes"]), notes

    applied = gwconf("apply", "codex")
    assert applied.exit_code == 0, applied
    assert NOTE in applied.stdout
    # what the note says happened: the client's name holds the new text, the other the old
    assert "gw.example.com" in live.read_text() and dotfile.read_text() == ORIGINAL
    assert os.stat(live).st_nlink == 1
    assert TEST_KEY not in applied.output


def test_a_file_of_one_name_gets_no_note(gwconf, home, profile) -> None:
    live = home / ".codex" / "config.toml"
    live.parent.mkdir()
    live.write_text(ORIGINAL)
    result = gwconf("apply", "codex")
    assert result.exit_code == 0, result
    assert "hard links" not in result.output
    # nor does the next write, though gwconf's backups hold the first file's old bytes by a link
    assert gwconf("apply", "codex", "--model", "other-model").exit_code == 0
    again = gwconf("apply", "codex", "--model", "third-model")
    assert again.exit_code == 0 and "hard links" not in again.output, again


def test_use_and_restore_say_it_each_time_the_user_links_again(gwconf, home, profile) -> None:
    dotfile, live = _linked(home)
    assert gwconf("apply", "codex").exit_code == 0
    add_inactive_profile("second", "https://second.example.com/v1", "sk-second-0123456789abcdefQRST")

    os.link(live, home / "dotfiles" / "codex-now.toml")  # the user joins them again, as told
    switched = gwconf("use", "second")
    assert switched.exit_code == 0, switched
    assert NOTE in switched.stdout
    assert "second.example.com" in live.read_text()
    assert "gw.example.com" in (home / "dotfiles" / "codex-now.toml").read_text()

    os.link(live, home / "dotfiles" / "codex-third.toml")
    restored = gwconf("restore", "codex")
    assert restored.exit_code == 0, restored
    assert NOTE in restored.stdout
    assert live.read_text() == ORIGINAL and dotfile.read_text() == ORIGINAL
    assert "second.example.com" in (home / "dotfiles" / "codex-third.toml").read_text()


def test_restore_removing_a_file_with_another_name_says_the_file_stays(gwconf, home, profile) -> None:
    assert gwconf("apply", "codex").exit_code == 0
    auth = home / ".codex" / "auth.json"  # gwconf created it: restore removes it
    assert auth.exists()
    kept = home / "dotfiles-auth.json"
    os.link(auth, kept)
    restored = gwconf("restore", "codex")
    assert restored.exit_code == 0, restored
    assert "~/.codex/auth.json has 2 names (hard links): this removes only this one" in restored.stdout
    assert not auth.exists() and kept.exists()


def test_a_second_name_in_gwconfs_own_backups_is_not_the_users(gwconf, home, profile, tmp_path) -> None:
    """A run killed between keeping the file by a link and replacing it leaves the live file a
    second name in its backup folder: that is gwconf's, and no reason to tell the user anything."""
    live = home / ".codex" / "config.toml"
    live.parent.mkdir()
    live.write_text(ORIGINAL)
    assert gwconf("apply", "codex").exit_code == 0
    (folder,) = (tmp_path / "gwconf").rglob("config.toml-*")
    os.link(live, folder / "20261128T000000000000-left-by-a-killed-run.bak")
    assert os.stat(live).st_nlink == 2
    result = gwconf("apply", "codex", "--model", "other-model")
    assert result.exit_code == 0, result
    assert "hard links" not in result.output
    # a name of the user's besides one of gwconf's is still told, counted without gwconf's
    os.link(live, folder / "20261128T000000000001-left-by-a-killed-run.bak")
    os.link(live, home / "dotfiles-codex.toml")
    assert os.stat(live).st_nlink == 3
    told = gwconf("apply", "codex", "--model", "third-model", "--dry-run")
    assert NOTE in told.stdout and "the other name keeps the old text" in told.stdout, told


def test_the_command_in_the_note_is_one_word_for_a_path_with_a_space(
    gwconf, home, profile, monkeypatch
) -> None:
    """A folder like macOS's "Application Support": the ``ln`` to copy must still be one word,
    with ``~/`` outside the quotes, where the shell still expands it."""
    folder = home / "my codex"
    monkeypatch.setenv("CODEX_HOME", str(folder))
    folder.mkdir()
    (folder / "config.toml").write_text(ORIGINAL)
    os.link(folder / "config.toml", home / "codex.toml")
    result = gwconf("apply", "codex", "--dry-run")
    assert result.exit_code == 0, result
    assert "To share one file again: ln -f ~/'my codex/config.toml' OTHER-NAME" in result.stdout
