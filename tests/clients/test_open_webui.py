"""Open WebUI: OPENAI_API_BASE_URLS / OPENAI_API_KEYS in .env, with the persistent-config warning."""

from __future__ import annotations

import json

from tests.clients._harness import check_case
from tests.conftest import TEST_KEY


def test_fixture_compose_folder(gwconf, home, profile, monkeypatch) -> None:
    (home / "open-webui").mkdir()
    monkeypatch.chdir(home / "open-webui")
    check_case("open-webui", "compose", gwconf, home)


def test_values_warning_and_status(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("OPEN_WEBUI_DIR", str(home / "ow"))
    (home / "ow/backend/data").mkdir(parents=True)
    result = gwconf("apply", "open-webui")
    assert result.exit_code == 0, result
    text = (home / "ow/.env").read_text()
    assert f"OPENAI_API_BASE_URLS=https://gw.example.com/v1\nOPENAI_API_KEYS={TEST_KEY}\n" in text
    assert "ENABLE_PERSISTENT_CONFIG=False" in result.stdout and "Admin Panel" in result.stdout
    assert "(webui.db exists)" not in result.stdout
    (home / "ow/backend/data/webui.db").write_bytes(b"")
    again = gwconf("apply", "open-webui")
    assert "has started before (webui.db exists)" in again.stdout
    status = json.loads(gwconf("status", "open-webui", "--json").stdout)["clients"][0]
    assert status["profile"] == "work"


def test_refuses_without_a_folder(gwconf, home, profile) -> None:
    result = gwconf("apply", "open-webui")
    assert result.exit_code == 1 and "OPEN_WEBUI_DIR" in result.stderr


def test_compose_without_env_file_is_reported(gwconf, home, profile, monkeypatch) -> None:
    (home / "ow").mkdir()
    (home / "ow/compose.yaml").write_text("services:\n  webui:\n    image: ghcr.io/open-webui/open-webui\n")
    monkeypatch.chdir(home / "ow")
    result = gwconf("apply", "open-webui")
    assert result.exit_code == 0 and "env_file: .env" in result.stdout


def test_malformed_env_is_refused(gwconf, home, profile, monkeypatch) -> None:
    (home / "ow").mkdir()
    (home / "ow/.env").write_text("OK=1\nBROKEN='unterminated\n")
    monkeypatch.setenv("OPEN_WEBUI_DIR", str(home / "ow"))
    result = gwconf("apply", "open-webui")
    assert result.exit_code == 1 and "ow/.env:2:" in result.stderr, result
