"""Kilo: fixtures through the CLI, the VS Code model settings of Kilo Code 7, and Kilo's file order."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY


@pytest.mark.parametrize("case", ["jsonc-with-extension", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("kilo", case, gwconf, home)


def folder(home: Path) -> Path:
    return home / ".config" / "kilo"


reading = partial(reading_of, "kilo")


def install(home: Path, version: str) -> None:
    (home / ".vscode" / "extensions" / f"kilocode.kilo-code-{version}").mkdir(parents=True)


def test_status_reads_back(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "kilo").exit_code == 0
    status = json.loads(gwconf("status", "kilo", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert status["profile"] == "work"
    assert (folder(home) / "kilo.jsonc").stat().st_mode & 0o777 == 0o600
    assert '"$schema": "https://app.kilo.ai/config.json"' in (folder(home) / "kilo.jsonc").read_text()


def test_no_vscode_settings_without_kilo_code_7(gwconf, home: Path, profile: str) -> None:
    install(home, "5.10.4")  # the legacy Roo fork: another product
    assert gwconf("apply", "kilo").exit_code == 0
    assert not (home / ".config" / "Code").exists()
    assert "Kilo Code 5.x or older" in messages(reading())


def test_vscode_setting_left_at_kilo_is_reported(gwconf, home: Path, profile: str) -> None:
    install(home, "7.0.25")
    assert gwconf("apply", "kilo").exit_code == 0
    settings = home / ".config" / "Code" / "User" / "settings.json"
    settings.write_text('{"kilo-code.new.model.providerID": "kilo"}')
    assert 'providerID = "kilo"' in messages(reading())


def test_legacy_opencode_file_is_edited_when_it_is_the_only_one(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text('{"theme": "kilo"}\n')
    assert gwconf("apply", "kilo").exit_code == 0
    assert not (folder(home) / "kilo.jsonc").exists()
    assert json.loads((folder(home) / "opencode.json").read_text())["model"] == "gwconf/my-model"


def test_opencode_json_beside_kilo_jsonc_wins_so_gwconf_edits_it(gwconf, home: Path, profile: str) -> None:
    """Kilo merges kilo.jsonc < opencode.json < opencode.jsonc (config.ts ``global``): a legacy
    opencode.json beside kilo.jsonc overrides what gwconf would write to kilo.jsonc."""
    folder(home).mkdir(parents=True)
    kilo_jsonc = '{\n  // mine\n  "model": "anthropic/claude-sonnet-4-5",\n}\n'
    legacy = '{\n  "model": "kilo/kilo-auto/free",\n  "theme": "kilo"\n}\n'
    (folder(home) / "kilo.jsonc").write_text(kilo_jsonc)
    (folder(home) / "opencode.json").write_text(legacy)
    assert gwconf("apply", "kilo").exit_code == 0
    assert (folder(home) / "kilo.jsonc").read_text() == kilo_jsonc
    assert json.loads((folder(home) / "opencode.json").read_text())["model"] == "gwconf/my-model"
    status = json.loads(gwconf("status", "kilo", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["provider"]) == ("https://gw.example.com/v1", "gwconf")
    assert not [f for f in reading().findings if f.level == "error"]
    assert "nothing to change" in gwconf("apply", "kilo").stdout
    assert gwconf("restore", "kilo").exit_code == 0
    assert (folder(home) / "opencode.json").read_text() == legacy
    assert (folder(home) / "kilo.jsonc").read_text() == kilo_jsonc


def test_opencode_file_added_after_apply_is_read_and_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "kilo").exit_code == 0
    (folder(home) / "opencode.json").write_text('{"model": "kilo/kilo-auto/free"}')
    result = reading()
    assert result.provider == "kilo"
    assert '`model` is "kilo/kilo-auto/free"' in messages(result)
    assert gwconf("apply", "kilo").exit_code == 0  # now written where it wins
    assert reading().provider == "gwconf"


def test_model_is_required(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("apply", "kilo")
    assert result.exit_code == 1 and "--model" in result.output


def test_malformed_vscode_settings_are_refused_and_nothing_is_written(
    gwconf, home: Path, profile: str
) -> None:
    install(home, "7.2.1")
    settings = home / ".config" / "Code" / "User" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "editor.fontSize" 14\n}\n')
    before = settings.read_bytes()
    result = gwconf("apply", "kilo")
    assert result.exit_code == 1 and "~/.config/Code/User/settings.json:2:21" in result.stderr
    assert settings.read_bytes() == before and not folder(home).exists()


def test_verify_sends_a_chat_request_with_the_key(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "kilo")
    assert entry["verdict"] == "ok" and entry["wire"] == "chat"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"


def test_kilo_code_in_cursor_gets_its_settings_too(gwconf, home: Path, profile: str) -> None:
    """Every VS Code variant counts (the shared _vscode helper), Cursor and Windsurf included."""
    (home / ".cursor" / "extensions" / "kilocode.kilo-code-7.1.0").mkdir(parents=True)
    assert gwconf("apply", "kilo").exit_code == 0
    settings = home / ".config" / "Cursor" / "User" / "settings.json"
    assert '"kilo-code.new.model.providerID": "gwconf"' in settings.read_text()


def test_kilos_default_agent_is_code_and_its_model_is_followed(gwconf, home: Path, profile: str) -> None:
    """Kilo renamed build to code (config.ts default_agent: "Falls back to 'code'")."""
    folder(home).mkdir(parents=True)
    (folder(home) / "kilo.jsonc").write_text('{"agent": {"code": {"model": "kilo/kilo-auto/free"}}}\n')
    assert gwconf("apply", "kilo").exit_code == 0
    result = reading()
    assert result.provider == "kilo" and not result.provider_is_gwconf
    assert 'agent.code.model is "kilo/kilo-auto/free"' in messages(result)


def test_hidden_folders_kilo_reads_and_the_one_it_no_longer_reads(gwconf, home: Path, profile: str) -> None:
    """Kilo 7.7.7 reads ~/.kilo and ~/.kilocode (even from inside a repository) and a project's
    .kilo/.kilocode, after the global files; a .opencode folder it no longer reads."""
    assert gwconf("apply", "kilo").exit_code == 0
    repo = Path.cwd()
    (repo / ".git").mkdir()
    (repo / ".opencode").mkdir()
    (repo / ".opencode" / "opencode.json").write_text('{"model": "opencode/big-pickle"}')
    assert reading().provider == "gwconf" and "big-pickle" not in messages(reading())
    (home / ".kilo").mkdir()
    (home / ".kilo" / "kilo.jsonc").write_text('{"model": "kilo/kilo-auto/free"}')
    result = reading()
    assert result.provider == "kilo" and '`model` is "kilo/kilo-auto/free"' in messages(result)
