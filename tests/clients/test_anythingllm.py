"""AnythingLLM: the Generic OpenAI provider in its .env (checkout, Docker storage, desktop)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clients._apps import files_under, running_app
from tests.clients._harness import check_case
from tests.conftest import TEST_KEY

DESKTOP_ENV = Path(".config/anythingllm-desktop/storage/.env")


def test_fixture_checkout_via_variable(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("ANYTHINGLLM_DIR", str(home / "anything-llm"))
    check_case("anythingllm", "checkout", gwconf, home)


def test_fixture_docker_storage_as_current_folder(gwconf, home, profile, monkeypatch) -> None:
    (home / "anythingllm").mkdir()
    monkeypatch.chdir(home / "anythingllm")
    check_case("anythingllm", "docker-storage", gwconf, home)


def test_generic_openai_values(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("ANYTHINGLLM_DIR", str(home / "anything-llm"))
    check_case("anythingllm", "checkout", gwconf, home)
    assert gwconf("apply", "anythingllm").exit_code == 0
    text = (home / "anything-llm/server/.env").read_text()
    assert "LLM_PROVIDER='generic-openai'" in text, "the quote style of the line is kept"
    assert f"GENERIC_OPEN_AI_API_KEY={TEST_KEY}" in text
    assert "OPEN_AI_KEY=sk-official-openai-key-0000" in text
    status = json.loads(gwconf("status", "anythingllm", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["model"] == "my-model"


def test_desktop_env_only_when_it_exists_and_not_while_running(gwconf, home, profile, tmp_path) -> None:
    assert gwconf("apply", "anythingllm").exit_code == 1, "no .env anywhere: refused"
    assert files_under(home) == []
    (home / DESKTOP_ENV).parent.mkdir(parents=True)
    (home / DESKTOP_ENV).write_text("SERVER_PORT=3001\n")
    with running_app(tmp_path / "bin", "anythingllm") as pid:
        refused = gwconf("apply", "anythingllm")
        assert refused.exit_code == 1 and f"pid {pid}" in refused.stderr
    assert gwconf("apply", "anythingllm").exit_code == 0
    assert "generic-openai" in (home / DESKTOP_ENV).read_text()


def test_unsafe_characters_are_warned(gwconf, home, monkeypatch) -> None:
    gwconf(
        "profile",
        "add",
        "p",
        "--base-url",
        "https://gw.example.com",
        "--model",
        "a#b",
        "--key",
        TEST_KEY,
        "--use",
    )
    monkeypatch.setenv("ANYTHINGLLM_DIR", str(home / "a"))
    (home / "a").mkdir()
    result = gwconf("apply", "anythingllm")
    assert result.exit_code == 0 and "the model contains #" in result.stdout


def test_malformed_env_is_refused(gwconf, home, profile, monkeypatch) -> None:
    (home / "a").mkdir()
    (home / "a/.env").write_text("SERVER_PORT=3001\nthis is not an assignment\n")
    monkeypatch.setenv("ANYTHINGLLM_DIR", str(home / "a"))
    result = gwconf("apply", "anythingllm")
    assert result.exit_code == 1 and "a/.env:2:1:" in result.stderr, result
