"""Roo Code: the import file + VS Code settings.json (JSONC) through the CLI."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.clients._apps import check_case_placeholders
from tests.conftest import TEST_KEY

CODE_SETTINGS = Path(".config/Code/User/settings.json")


def import_file() -> Path:
    return Path(os.environ["GWCONF_HOME"]) / "roo-code-settings.json"


@pytest.mark.parametrize("case", ["vscode-settings", "cursor-and-codium"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case_placeholders("roo-code", case, gwconf, home, {"GWCONF_HOME": os.environ["GWCONF_HOME"]})
    assert not import_file().exists(), "restore removes the import file gwconf created"


def test_import_file_maps_every_mode_and_is_private(gwconf, home, profile) -> None:
    result = gwconf("apply", "roo-code")
    assert result.exit_code == 0, result
    raw = import_file().read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "Roo's JSON.parse rejects a BOM"
    assert stat.S_IMODE(import_file().stat().st_mode) == 0o600
    data = json.loads(raw)["providerProfiles"]
    assert data["currentApiConfigName"] == "gwconf"
    assert data["apiConfigs"]["gwconf"] == {
        "id": "gwconf",
        "apiProvider": "openai",
        "openAiBaseUrl": "https://gw.example.com/v1",
        "openAiApiKey": TEST_KEY,
        "openAiModelId": "my-model",
    }
    assert data["modeApiConfigs"] == dict.fromkeys(
        ("architect", "code", "ask", "debug", "orchestrator"), "gwconf"
    )
    settings = json.loads((home / CODE_SETTINGS).read_text())
    assert settings == {"roo-cline.autoImportSettingsPath": str(import_file())}
    assert "Reload Window" in result.stdout


def test_settings_go_to_the_variants_with_roo_installed(gwconf, home, profile) -> None:
    check_case_placeholders(
        "roo-code", "cursor-and-codium", gwconf, home, {"GWCONF_HOME": os.environ["GWCONF_HOME"]}
    )
    assert not (home / CODE_SETTINGS).exists()


def test_status_and_drift(gwconf, home, profile) -> None:
    assert gwconf("apply", "roo-code").exit_code == 0
    status = json.loads(gwconf("status", "roo-code", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["key"] == "sk-…WXYZ" and status["model"] == "my-model"
    path = home / CODE_SETTINGS
    path.write_text(path.read_text().replace(str(import_file()), "/elsewhere.json"))
    status = json.loads(gwconf("status", "roo-code", "--json").stdout)["clients"][0]
    assert status["changed_by_hand"], status


def test_malformed_vscode_settings_are_refused_and_nothing_is_written(gwconf, home, profile) -> None:
    path = home / CODE_SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "editor.fontSize": 14\n  "files.autoSave": "off"\n}\n')
    result = gwconf("apply", "roo-code")
    assert result.exit_code == 1
    assert "~/.config/Code/User/settings.json:3:3:" in result.stderr
    assert not import_file().exists()


def test_needs_a_model(gwconf, home) -> None:
    gwconf("profile", "add", "nomodel", "--base-url", "https://gw.example.com", "--key", TEST_KEY, "--use")
    result = gwconf("apply", "roo-code")
    assert result.exit_code == 1 and "--model" in result.stderr


def test_a_workspace_setting_that_wins_is_named(gwconf, home, profile) -> None:
    """roo-cline.autoImportSettingsPath has VS Code's default window scope: a workspace's
    .vscode/settings.json wins over the user's (an empty value imports nothing)."""
    from tests.clients._harness import messages, reading_of

    assert gwconf("apply", "roo-code").exit_code == 0
    local = Path.cwd() / ".vscode" / "settings.json"
    local.parent.mkdir()
    local.write_text('{\n  // team settings\n  "roo-cline.autoImportSettingsPath": ""\n}\n')
    assert "imports nothing" in messages(reading_of("roo-code"))
    local.write_text(json.dumps({"roo-cline.autoImportSettingsPath": str(import_file())}))
    assert "wins over your user settings" not in messages(reading_of("roo-code"))
