"""Plain regression tests for what the stateful model test (test_machines.py) found, each the
minimal sequence it shrank to, through the real commands in a temporary HOME."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY
from tests.hardening._world import run_forked

USERS_OWN = "sk-users-own-codex-00000000000000"


def test_damaged_ledger_never_leaves_codex_half_restored(gwconf, home: Path, profile, tmp_path: Path) -> None:
    """apply codex; the user edits config.toml; the ledger is damaged; restore --all. Without the
    ledger, config.toml (edited) cannot go back, so auth.json must not go back alone: Codex would
    send the user's own OpenAI key to the gateway config.toml still names (issue 18 items 11-12)."""
    config, auth = home / ".codex" / "config.toml", home / ".codex" / "auth.json"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "gpt-5"\nsandbox_mode = "workspace-write"\n')
    auth.write_text('{\n  "OPENAI_API_KEY": "' + USERS_OWN + '"\n}\n')
    assert gwconf("apply", "codex").exit_code == 0
    config.write_text(config.read_text().replace('"workspace-write"', '"read-only"'))
    (tmp_path / "gwconf" / "state" / "ledger.json").write_text('{"version": 2, "clients": [')
    result = gwconf("restore", "--all")
    assert result.exit_code == 0, result
    assert 'model_provider = "gwconf"' in config.read_text(), "config.toml was changed since: left as it is"
    assert USERS_OWN not in auth.read_text(), (
        "auth.json went back alone: the user's key would go to the gateway"
    )
    assert TEST_KEY in auth.read_text()
    assert "left as it is too" in result.output and "auth.json" in result.output, result
    row = json.loads(gwconf("status", "codex", "--json").stdout)["clients"][0]
    assert row["key"] == "sk-…WXYZ", row


def test_restore_of_a_created_file_adopted_into_dotfiles_leaves_no_dangling_link(
    gwconf, home: Path, profile
) -> None:
    """apply aider (gwconf creates ~/.aider.conf.yml); the user adopts it into ~/dotfiles (mv +
    ln -s); restore. The file was only gwconf's, so it goes, and the link with it: a dangling
    link made the next apply fail ("is a symlink to ..., which does not exist")."""
    path = home / ".aider.conf.yml"
    assert gwconf("apply", "aider").exit_code == 0
    moved = home / "dotfiles" / "aider.conf.yml"
    moved.parent.mkdir()
    path.rename(moved)
    path.symlink_to(moved)
    result = gwconf("restore", "aider")
    assert result.exit_code == 0, result
    assert not moved.exists() and not path.is_symlink() and not path.exists()
    again = gwconf("apply", "aider")
    assert again.exit_code == 0, again
    assert path.is_file()


def test_damaged_ledger_restore_of_an_adopted_created_file_removes_file_and_link(
    gwconf, home: Path, profile, tmp_path: Path
) -> None:
    """CI's sequence for claude-code (no settings.json before): apply, adopt into ~/dotfiles, apply
    another model, damage the ledger, restore --all. Restore falls back to the backups, which say
    gwconf created the file: it goes from the dotfiles folder and the link with it, nothing dangles."""
    path = home / ".claude" / "settings.json"
    assert gwconf("apply", "claude-code").exit_code == 0
    moved = home / "dotfiles" / "settings.json"
    moved.parent.mkdir()
    path.rename(moved)
    path.symlink_to(moved)
    assert gwconf("apply", "claude-code", "--model", "other-model").exit_code == 0
    assert path.is_symlink() and "other-model" in moved.read_text()
    (tmp_path / "gwconf" / "state" / "ledger.json").write_text('{"version": 2, "clients": [')
    result = gwconf("restore", "--all")
    assert result.exit_code == 0, result
    assert not path.is_symlink() and not path.exists() and not moved.exists(), result


def test_killed_apply_then_damaged_ledger_restore_still_finds_gwconfs_copies(
    gwconf, home: Path, profile, tmp_path: Path
) -> None:
    """The json machine's sequence: apply killed (SIGKILL before each of its renames/unlinks), the
    next apply repairs and completes, the ledger is damaged, restore --all. Killed after the ledger's
    commit but before the backup folders' meta.json, the repair never wrote them: the damaged-ledger
    restore found "nothing to restore" and left the gateway's address and key in settings.json."""
    state = tmp_path / "gwconf" / "state"
    watch = (str(home), str(tmp_path / "gwconf"))
    files = (home / ".claude" / "settings.json", home / ".claude.json")
    log = tmp_path / "ops.log"
    assert os.WEXITSTATUS(run_forked(("apply", "claude-code"), watch=watch, log=log)) == 0
    count = len(log.read_text().splitlines())
    for kill_at in range(1, count + 1):
        shutil.rmtree(state)
        for path in files:
            path.unlink(missing_ok=True)
        status = run_forked(("apply", "claude-code"), kill_at=kill_at, watch=watch)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        assert gwconf("apply", "claude-code").exit_code == 0
        (state / "ledger.json").write_text('{"version": 2, "clients": [')
        result = gwconf("restore", "--all")
        assert result.exit_code == 0, (kill_at, result)
        for path in files:
            left = path.read_text() if path.exists() else ""
            assert "gw.example.com" not in left and TEST_KEY not in left, (kill_at, path, result.output)


def test_apply_over_a_damaged_ledger_then_restore_leaves_nothing_of_gwconfs(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """apply codex; the ledger is damaged; apply again (another model); restore. The second apply
    said nothing about the damaged ledger, recorded what the first apply wrote as the values from
    before gwconf, and restore then "restored" the gateway's address and key (exit 0). Now it is
    refused (codex is in the backups), and restore puts back the user's bytes from the backups."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "gpt-5"\n')
    assert gwconf("apply", "codex").exit_code == 0
    (tmp_path / "gwconf" / "state" / "ledger.json").write_text("{garbage")
    applied = gwconf("apply", "codex", "--model", "other-model")
    result = gwconf("restore", "codex")
    left = "".join(p.read_text() for p in (home / ".codex").iterdir() if p.is_file())
    assert applied.exit_code == 1 and "damaged" in applied.stderr, applied
    assert result.exit_code == 0, result
    assert "gw.example.com" not in left and TEST_KEY not in left, left
    assert config.read_text() == '# mine\nmodel = "gpt-5"\n'


@pytest.mark.parametrize("before", ["config.toml", "auth.json"])
def test_a_killed_restore_then_a_codex_write_never_leaves_codex_half_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str
) -> None:
    """restore codex is killed just before it replaces ``before``; Codex then writes config.toml;
    restore again. The repair used to finish the killed restore around config.toml (still the
    gateway's): auth.json got the user's own key back, the ledger forgot Codex, and Codex sent
    the user's own key to the gateway ("nothing to restore", exit 0)."""
    from tests.conftest import invoke
    from tests.hardening._world import SEED, USERS_OWN_KEY, World, run_forked

    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    w.add_profiles()
    assert invoke("apply", "codex").exit_code == 0
    w.save("applied")
    log = tmp_path / "ops.log"
    watch = (str(w.home), str(w.gw))
    assert os.WEXITSTATUS(run_forked(("restore", "codex"), watch=watch, log=log)) == 0
    kill_at = log.read_text().splitlines().index(f"os.rename {w.home}/.codex/{before}") + 1
    w.load("applied")
    assert os.WTERMSIG(run_forked(("restore", "codex"), kill_at=kill_at, watch=watch)) == signal.SIGKILL
    config = w.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + '\n[projects."/home/me/x"]\ntrust_level = "trusted"\n')
    result = invoke("restore", "codex")
    assert result.exit_code == 0, result
    text = config.read_text()
    assert "gwconf" not in text and "trust_level" in text, text
    assert (w.home / ".codex" / "auth.json").read_text() == SEED[".codex/auth.json"][0]
    assert USERS_OWN_KEY in (w.home / ".codex" / "auth.json").read_text()
    assert json.loads(invoke("status", "codex", "--json").stdout)["clients"][0]["applied_profile"] is None
