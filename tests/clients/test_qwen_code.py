"""Qwen Code: fixtures through the CLI, the provider entry gwconf owns, and what shadows the key."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("qwen-code", case, gwconf, home)


reading = partial(reading_of, "qwen-code")


def test_status_reads_back_the_provider_entry(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "qwen-code").exit_code == 0
    status = json.loads(gwconf("status", "qwen-code", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert status["provider_is_gwconf"] and status["profile"] == "work"
    assert TEST_KEY not in (home / ".qwen" / "settings.json").read_text()
    assert (home / ".qwen" / ".env").stat().st_mode & 0o777 == 0o600


def test_switching_model_updates_the_same_entry(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "qwen-code").exit_code == 0
    assert gwconf("apply", "qwen-code", "--model", "other-model").exit_code == 0
    data = json.loads((home / ".qwen" / "settings.json").read_text())
    assert [e["id"] for e in data["modelProviders"]["openai"]] == ["other-model"]
    assert data["model"]["name"] == "other-model"


def test_exported_openai_variables_do_not_shadow_the_entry(
    gwconf, home: Path, profile: str, monkeypatch
) -> None:
    assert gwconf("apply", "qwen-code").exit_code == 0
    monkeypatch.setenv("OPENAI_API_KEY", "sk-someone-else-000000000000")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    result = reading()
    assert (result.base_url, result.api_key) == ("https://gw.example.com/v1", TEST_KEY)


def test_exported_gwconf_key_wins_and_is_reported(gwconf, home: Path, profile: str, monkeypatch) -> None:
    assert gwconf("apply", "qwen-code").exit_code == 0
    monkeypatch.setenv("GWCONF_API_KEY", "sk-stale-key-0000000000000000")
    result = reading()
    assert result.api_key == "sk-stale-key-0000000000000000"
    assert "exported in this shell and wins" in messages(result)


def test_project_env_read_first_is_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "qwen-code").exit_code == 0
    Path(".env").write_text("GWCONF_API_KEY=sk-project-0000000000000000\n")
    result = reading()
    assert result.api_key == "sk-project-0000000000000000"
    assert "is read before ~/.qwen/.env" in messages(result)


def test_qwen_oauth_is_reported(home: Path) -> None:
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text('{"security": {"auth": {"selectedType": "qwen-oauth"}}}')
    result = reading()
    assert not result.provider_is_gwconf
    assert "Qwen's own login" in messages(result)


def test_model_is_required(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("apply", "qwen-code")
    assert result.exit_code == 1 and "--model" in result.output
    assert not (home / ".qwen").exists()


def test_qwen_home_moves_the_folder(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("QWEN_HOME", str(home / "q"))
    assert gwconf("apply", "qwen-code").exit_code == 0
    assert (home / "q" / "settings.json").is_file() and (home / "q" / ".env").is_file()


def test_malformed_settings_are_refused_and_left_alone(gwconf, home: Path, profile: str) -> None:
    (home / ".qwen").mkdir()
    bad = home / ".qwen" / "settings.json"
    bad.write_text('{\n  "model": {"name": "x"},\n  "ui": [1, 2\n}\n')
    before = bad.read_bytes()
    result = gwconf("apply", "qwen-code")
    assert result.exit_code == 1 and "~/.qwen/settings.json:4:1" in result.stderr
    assert bad.read_bytes() == before and not (home / ".qwen" / ".env").exists()


def test_verify_sends_a_chat_request_with_the_key(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "qwen-code")
    assert entry["verdict"] == "ok" and entry["wire"] == "chat"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"
