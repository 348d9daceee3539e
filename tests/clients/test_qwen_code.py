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


@pytest.mark.parametrize(
    ("where", "line", "moved"),
    [
        (".env", "QWEN_HOME=~/qwen-moved", "qwen-moved"),
        (".qwen/.env", "QWEN_HOME=~/from-qwen-env", "from-qwen-env"),
        (".env", "QWEN_HOME=", ".qwen"),  # empty: not set
    ],
)
def test_a_qwen_home_set_in_a_dotenv_moves_the_folder(
    gwconf, home: Path, profile: str, where: str, line: str, moved: str
) -> None:
    """Qwen Code reads QWEN_HOME from ~/.qwen/.env, then ~/.env, before anything else."""
    (home / where).parent.mkdir(parents=True, exist_ok=True)
    (home / where).write_text(f"# mine\n{line}\n")
    assert gwconf("apply", "qwen-code").exit_code == 0
    assert json.loads((home / moved / "settings.json").read_text())["model"]["name"] == "my-model"
    assert f"GWCONF_API_KEY={TEST_KEY}" in (home / moved / ".env").read_text()
    assert json.loads(gwconf("status", "qwen-code", "--json").stdout)["clients"][0]["model"] == "my-model"


def test_the_qwen_env_file_wins_over_the_home_one(gwconf, home: Path, profile: str) -> None:
    (home / ".qwen").mkdir()
    (home / ".qwen" / ".env").write_text("QWEN_HOME=~/first\n")
    (home / ".env").write_text("QWEN_HOME=~/second\n")
    assert gwconf("apply", "qwen-code").exit_code == 0
    assert (home / "first" / "settings.json").is_file() and not (home / "second").exists()


def test_a_users_entry_of_the_same_id_listed_first_loses_to_the_saved_address(
    gwconf, home: Path, profile: str
) -> None:
    """Qwen Code picks the entry whose id and baseUrl match model.name and model.baseUrl, else
    the first of that id: gwconf saves the address, as Qwen Code does when a model is picked."""
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "openai"}},
                "model": {"name": "my-model", "baseUrl": "https://dashscope.example.com/v1"},
                "modelProviders": {
                    "mine": [
                        {"id": "my-model", "baseUrl": "https://dashscope.example.com/v1", "envKey": "DS"}
                    ],
                },
                "providerProtocol": {"mine": "openai"},
            },
            indent=2,
        )
    )
    before = reading()
    assert before.base_url == "https://dashscope.example.com/v1"  # the custom key counts too
    assert not before.provider_is_gwconf
    assert gwconf("apply", "qwen-code").exit_code == 0
    data = json.loads((home / ".qwen" / "settings.json").read_text())
    assert data["model"] == {"name": "my-model", "baseUrl": "https://gw.example.com/v1"}
    after = reading()
    assert (after.base_url, after.api_key) == ("https://gw.example.com/v1", TEST_KEY)
    assert after.provider_is_gwconf
    assert gwconf("restore", "qwen-code").exit_code == 0
    assert reading().base_url == "https://dashscope.example.com/v1"


def test_model_name_wins_over_model_variables(home: Path, monkeypatch) -> None:
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "chosen"}})
    )
    monkeypatch.setenv("OPENAI_MODEL", "from-variable")
    assert reading().model == "chosen"
