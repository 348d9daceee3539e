"""Chatbox: config.json (electron-store) only when it exists and the app is closed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clients._apps import files_under, running_app
from tests.clients._harness import check_case
from tests.conftest import TEST_KEY

CONFIG = Path(".config/xyz.chatboxapp.app/config.json")
CE_CONFIG = Path(".config/xyz.chatboxapp.ce/config.json")
MINIMAL = '{\n\t"settings": {\n\t\t"language": "en"\n\t},\n\t"configVersion": 12\n}'


def test_fixture(gwconf, home, profile) -> None:
    check_case("chatbox", "user-config", gwconf, home)


def test_provider_entry_and_default_model(gwconf, home, profile) -> None:
    check_case("chatbox", "user-config", gwconf, home)
    assert gwconf("apply", "chatbox").exit_code == 0
    settings = json.loads((home / CONFIG).read_text())["settings"]
    assert settings["customProviders"] == [
        {"id": "gwconf", "name": "gwconf gateway", "type": "openai", "isCustom": True}
    ]
    assert settings["providers"]["gwconf"]["apiHost"] == "https://gw.example.com/v1"
    assert settings["providers"]["gwconf"]["apiKey"] == TEST_KEY
    assert settings["providers"]["openai"] == {"apiKey": "sk-openai-official-key-0000"}
    assert settings["defaultChatModel"] == {"provider": "gwconf", "model": "my-model"}
    status = json.loads(gwconf("status", "chatbox", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["key"] == "sk-…WXYZ"


def test_never_creates_a_config_chatbox_has_not_made(gwconf, home, profile) -> None:
    result = gwconf("apply", "chatbox")
    assert result.exit_code == 1
    assert "does not exist yet" in result.stderr and "gwconf link chatbox" in result.stderr
    assert files_under(home) == []


def test_both_editions_are_written(gwconf, home, profile) -> None:
    for path in (CONFIG, CE_CONFIG):
        (home / path).parent.mkdir(parents=True)
        (home / path).write_text(MINIMAL)
    assert gwconf("apply", "chatbox").exit_code == 0
    for path in (CONFIG, CE_CONFIG):
        assert json.loads((home / path).read_text())["settings"]["defaultChatModel"]["provider"] == "gwconf"
    assert gwconf("restore", "chatbox").exit_code == 0
    assert all((home / p).read_text() == MINIMAL for p in (CONFIG, CE_CONFIG))


def test_refused_while_chatbox_runs(gwconf, home, profile, tmp_path) -> None:
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text(MINIMAL)
    with running_app(tmp_path / "bin", "chatbox") as pid:
        refused = gwconf("apply", "chatbox")
        assert refused.exit_code == 1 and f"Chatbox is running (pid {pid})" in refused.stderr
        assert (home / CONFIG).read_text() == MINIMAL
        assert gwconf("apply", "chatbox", "--dry-run").exit_code == 0, "a dry run writes nothing: allowed"
        assert gwconf("apply", "chatbox", "--force").exit_code == 0
    assert "gwconf" in (home / CONFIG).read_text()


def test_malformed_config_is_refused(gwconf, home, profile) -> None:
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text('{"settings": {"language": "en",}}')
    result = gwconf("apply", "chatbox")
    assert result.exit_code == 1 and "config.json:1:" in result.stderr, result
