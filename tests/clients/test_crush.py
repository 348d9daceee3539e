"""Crush: fixtures through the CLI (legacy crush.json, also beside a crushrc), layers and references."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from gwconf.clients.crush import scan_crushrc
from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY


@pytest.mark.parametrize("case", ["legacy-json", "crushrc-user", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("crush", case, gwconf, home)


def folder(home: Path) -> Path:
    return home / ".config" / "crush"


reading = partial(reading_of, "crush")


def test_status_reads_back(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "crush").exit_code == 0
    status = json.loads(gwconf("status", "crush", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert status["profile"] == "work" and reading().findings == []
    assert (folder(home) / "crush.json").stat().st_mode & 0o777 == 0o600


def test_crushrc_model_line_wins_and_is_reported(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "crushrc").write_text("model large ollama/llama3.3\n")
    applied = gwconf("apply", "crush")
    assert applied.exit_code == 0 and "also sets models.large and wins over crush.json" in applied.stdout
    result = reading()
    assert result.provider == "ollama" and not result.provider_is_gwconf
    assert "~/.config/crush/crushrc sets models.large" in messages(result)
    assert (folder(home) / "crushrc").read_text() == "model large ollama/llama3.3\n"


def test_model_picked_in_the_ui_is_reported(gwconf, home: Path, profile: str) -> None:
    data = home / ".local" / "share" / "crush" / "crush.json"
    data.parent.mkdir(parents=True)
    data.write_text('{"models": {"large": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}}')
    assert gwconf("apply", "crush").exit_code == 0
    assert (
        data.read_text() == '{"models": {"large": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}}'
    )
    result = reading()
    assert result.provider == "anthropic"
    assert "share/crush/crush.json sets models.large" in messages(result)


def test_variable_references_are_expanded(home: Path, monkeypatch) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "crush.json").write_text(
        json.dumps(
            {
                "providers": {
                    "gwconf": {
                        "type": "openai-compat",
                        "base_url": "https://gw.example.com/v1",
                        "api_key": "${GW_KEY:?set GW_KEY}",
                    }
                },
                "models": {s: {"provider": "gwconf", "model": "m"} for s in ("large", "small")},
            }
        )
    )
    assert "$GW_KEY, which is not set" in messages(reading())
    monkeypatch.setenv("GW_KEY", TEST_KEY)
    result = reading()
    assert result.api_key == TEST_KEY and result.findings == []


def test_openai_type_means_the_responses_api(home: Path) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "crush.json").write_text(
        '{"providers": {"gwconf": {"type": "openai", "base_url": "https://gw.example.com/v1", "api_key": "sk-x"}},'
        ' "models": {"large": {"provider": "gwconf", "model": "m"}}}'
    )
    result = reading()
    assert result.wire == "responses" and "(the Responses API)" in messages(result)


def test_crushrc_scan_follows_continuations_and_quotes() -> None:
    data = scan_crushrc(
        '# x\nprovider add gwconf --type openai-compat \\\n  --base-url "https://gw/v1" --api-key "$K"\n'
        "model small gwconf/m  # small one\n"
    )
    assert data["providers"]["gwconf"] == {
        "type": "openai-compat",
        "base_url": "https://gw/v1",
        "api_key": "$K",
    }
    assert data["models"]["small"] == {"provider": "gwconf", "model": "m"}


def test_model_is_required(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("apply", "crush")
    assert result.exit_code == 1 and "--model" in result.output


def test_global_config_variable_moves_the_file(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("CRUSH_GLOBAL_CONFIG", str(home / "cc"))
    assert gwconf("apply", "crush").exit_code == 0
    assert (home / "cc" / "crush.json").is_file()


def test_comments_in_crush_json_are_refused(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    bad = folder(home) / "crush.json"
    bad.write_text('{\n  // crush reads plain JSON only\n  "options": {}\n}\n')
    before = bad.read_bytes()
    result = gwconf("apply", "crush")
    assert result.exit_code == 1 and "~/.config/crush/crush.json:2:3" in result.stderr
    assert bad.read_bytes() == before


def test_verify_sends_a_chat_request_with_the_key(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "crush")
    assert entry["verdict"] == "ok" and entry["wire"] == "chat"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"


SLOTTED = (
    '{\n  "models": {\n    "large": {"model": "claude-opus-4-6", "provider": "anthropic", "temperature": 0.2, '
    '"max_tokens": 64000, "think": true},\n    "small": {"model": "claude-haiku-4-5", "provider": "anthropic", '
    '"reasoning_effort": "high", "provider_options": {"cache": true}}\n  },\n  "options": {"debug": false}\n}\n'
)


def test_the_old_models_slot_settings_do_not_carry_over_and_restore_puts_them_back(
    gwconf, home: Path, profile: str
) -> None:
    """SelectedModel.MaxTokens replaces the model's default_max_tokens in Crush: 64000 for a
    vendor's model must not reach the gateway's (found in a real user's crush.json)."""
    path = folder(home) / "crush.json"
    path.parent.mkdir(parents=True)
    path.write_text(SLOTTED)
    assert gwconf("apply", "crush").exit_code == 0
    models = json.loads(path.read_text())["models"]
    assert models["large"] == {"model": "my-model", "provider": "gwconf", "temperature": 0.2}
    assert models["small"] == {"model": "my-model", "provider": "gwconf"}
    # a setting the user puts on gwconf's slot afterwards is theirs: a second apply keeps it
    path.write_text(path.read_text().replace('"temperature": 0.2', '"temperature": 0.2, "max_tokens": 4000'))
    assert gwconf("apply", "crush", "--model", "other-model").exit_code == 0
    assert json.loads(path.read_text())["models"]["large"]["max_tokens"] == 4000
    path.write_text(path.read_text().replace(', "max_tokens": 4000', ""))
    assert gwconf("restore", "crush").exit_code == 0
    assert path.read_text() == SLOTTED


def test_the_workspace_file_crush_run_writes_is_read_last(gwconf, home: Path, profile: str) -> None:
    """Crush merges .crush/crush.json (the nearest .crush folder up to the git root) last; `crush
    run -m` and a resumed session save their models there (internal/cmd/run.go, ScopeWorkspace)."""
    assert gwconf("apply", "crush").exit_code == 0
    repo = Path.cwd()
    (repo / ".git").mkdir()
    (repo / ".crush").mkdir()
    (repo / ".crush" / "crush.json").write_text(
        '{"models": {"large": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}}'
    )
    result = reading()
    assert result.provider == "anthropic"
    assert ".crush/crush.json sets models.large" in messages(result)
