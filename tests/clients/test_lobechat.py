"""LobeChat self-hosted: OPENAI_API_KEY / OPENAI_PROXY_URL / OPENAI_MODEL_LIST in .env."""

from __future__ import annotations

import json

from tests.clients._harness import check_case


def test_fixture_compose(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("LOBECHAT_DIR", str(home / "lobe-chat"))
    check_case("lobechat", "compose", gwconf, home)


def test_model_list_keeps_the_users_entries(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("LOBECHAT_DIR", str(home / "lobe-chat"))
    check_case("lobechat", "compose", gwconf, home)
    assert gwconf("apply", "lobechat").exit_code == 0
    text = (home / "lobe-chat/.env").read_text()
    assert "OPENAI_MODEL_LIST='-all,+gpt-4o,+my-model'\n" in text
    assert 'export OPENAI_API_KEY="sk-test-' in text, "export and the quote style are kept"
    status = json.loads(gwconf("status", "lobechat", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["base_url"] == "https://gw.example.com/v1"


def test_found_through_the_compose_file_in_the_current_folder(gwconf, home, profile, monkeypatch) -> None:
    (home / "lc").mkdir()
    (home / "lc/docker-compose.yml").write_text("services:\n  app:\n    image: lobehub/lobe-chat\n")
    monkeypatch.chdir(home / "lc")
    result = gwconf("apply", "lobechat")
    assert result.exit_code == 0 and "env_file: .env" in result.stdout
    assert gwconf("apply", "lobechat").exit_code == 0


def test_refuses_without_a_folder(gwconf, home, profile) -> None:
    result = gwconf("apply", "lobechat")
    assert result.exit_code == 1 and "LOBECHAT_DIR" in result.stderr


def test_malformed_env_is_refused(gwconf, home, profile, monkeypatch) -> None:
    (home / "l").mkdir()
    (home / "l/.env").write_text("A 1\n")  # npm dotenv skips the line: the user meant something
    monkeypatch.setenv("LOBECHAT_DIR", str(home / "l"))
    result = gwconf("apply", "lobechat")
    assert result.exit_code == 1 and "l/.env:1:" in result.stderr, result
