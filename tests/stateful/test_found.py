"""Plain regression tests for what the stateful model test (test_machines.py) found, each the
minimal sequence it shrank to, through the real commands in a temporary HOME."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import TEST_KEY

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
