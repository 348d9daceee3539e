"""Gemini CLI: fixtures through the CLI, the one-.env rule, folder trust and auth traps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.operations import read_client
from gwconf.paths import Env
from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import check_case, messages
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("gemini-cli", case, gwconf, home)


def reading(findings_only: bool = False):
    client = registry.get("gemini-cli")
    env = Env.current()
    result = read_client(client, env)
    result.findings += client.doctor({}, env, result)
    return result


def test_status_reads_back_root_address_key_and_model(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    status = json.loads(gwconf("status", "gemini-cli", "--json").stdout)["clients"][0]
    assert status["base_url"] == "https://gw.example.com"  # root: the SDK appends /v1beta
    assert (status["key"], status["model"], status["profile"]) == ("sk-…WXYZ", "my-model", "work")
    result = reading()
    assert result.auth_header == "x-goog-api-key" and result.wire == "gemini"
    assert result.api_key == TEST_KEY and result.provider_is_gwconf


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ('{\n  // mine\n  "ui": { "theme": "GitHub", },\n}\n', "3:28", "a trailing comma"),
        ('\ufeff{\n  "ui": { "theme": "GitHub" }\n}\n', "1:1", "a byte-order mark"),
    ],
)
def test_a_settings_file_gemini_cannot_read_is_named_not_edited(
    gwconf, home: Path, profile: str, text: str, where: str, what: str
) -> None:
    """Gemini CLI 0.61 reads settings.json as JSON.parse(stripJsonComments(text)): a trailing
    comma or a byte-order mark stops it from starting, where gwconf's JSONC reader went on,
    wrote its keys in and said all was well (the shapes sweep)."""
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text, encoding="utf-8")
    result = gwconf("apply", "gemini-cli")
    assert result.exit_code == 1, result
    assert f"~/.gemini/settings.json:{where}: {what}: Gemini CLI reads settings.json as JSON" in result.stderr
    assert settings.read_text(encoding="utf-8") == text
    doctor = gwconf("doctor", "gemini-cli")
    assert f"~/.gemini/settings.json:{where}: {what}" in doctor.stdout, doctor
    settings.write_text('{\n  // mine: comments are fine\n  "ui": { "theme": "GitHub" }\n}\n')
    assert gwconf("apply", "gemini-cli").exit_code == 0


def test_key_file_is_private_and_settings_is_not(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    assert (home / ".gemini" / ".env").stat().st_mode & 0o777 == 0o600
    assert TEST_KEY not in (home / ".gemini" / "settings.json").read_text()


def test_untrusted_folder_is_reported_and_trusting_it_clears_that(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    assert "not a folder Gemini CLI trusts" in messages(reading())
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(Path.cwd().parent): "TRUST_FOLDER"})
    )
    assert "trust" not in messages(reading())


def test_trust_parent_and_do_not_trust_rules(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    rules = home / ".gemini" / "trustedFolders.json"
    rules.write_text(json.dumps({str(Path.cwd() / "marker"): "TRUST_PARENT"}))
    assert "trust" not in messages(reading())
    rules.write_text(json.dumps({str(Path.cwd().parent): "TRUST_FOLDER", str(Path.cwd()): "DO_NOT_TRUST"}))
    assert "marked 'do not trust'" in messages(reading())


def test_folder_trust_switched_off_needs_no_rule(gwconf, home: Path, profile: str, monkeypatch) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert "trust" not in messages(reading())


def test_project_env_shadows_the_user_env(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    Path(".env").write_text("DATABASE_URL=postgres://localhost/app\n")
    result = reading()
    assert result.base_url == "https://generativelanguage.googleapis.com"
    assert result.api_key is None
    assert "shadows ~/.gemini/.env" in messages(result)


def test_exported_auth_switches_are_flagged(gwconf, home: Path, profile: str, monkeypatch) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    for name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA"):
        monkeypatch.setenv(name, "true")
    text = messages(reading())
    for name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA"):
        assert f"${name} is set" in text


def test_exported_gemini_variables_win_and_are_reported(
    gwconf, home: Path, profile: str, monkeypatch
) -> None:
    assert gwconf("apply", "gemini-cli").exit_code == 0
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "https://other.example.com")
    result = reading()
    assert result.base_url == "https://other.example.com"
    assert "$GOOGLE_GEMINI_BASE_URL is exported" in messages(result)


def test_oauth_login_and_v1beta_base_are_errors(home: Path) -> None:
    folder = home / ".gemini"
    folder.mkdir()
    (folder / "settings.json").write_text('{"security": {"auth": {"selectedType": "oauth-personal"}}}')
    (folder / ".env").write_text(
        "GOOGLE_GEMINI_BASE_URL=https://gw.example.com/v1beta\nGEMINI_API_KEY=sk-x\n"
    )
    result = reading()
    assert not result.provider_is_gwconf
    assert "uses the Google login" in messages(result)
    assert "ends in v1beta" in messages(result)


def test_home_env_var_moves_the_folder(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home / "alt"))
    assert gwconf("apply", "gemini-cli").exit_code == 0
    assert (home / "alt" / ".gemini" / ".env").is_file()
    assert not (home / ".gemini").exists()


def test_malformed_settings_are_refused_and_left_alone(gwconf, home: Path, profile: str) -> None:
    (home / ".gemini").mkdir()
    bad = home / ".gemini" / "settings.json"
    bad.write_text('{\n  "ui": {"theme": "GitHub"\n  "security": {}\n}\n')
    before = bad.read_bytes()
    result = gwconf("apply", "gemini-cli")
    assert result.exit_code == 1
    assert "~/.gemini/settings.json:3:3" in result.stderr
    assert bad.read_bytes() == before and not (home / ".gemini" / ".env").exists()


def test_profile_without_model_leaves_the_model_alone(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    assert gwconf("apply", "gemini-cli").exit_code == 0
    assert "GEMINI_MODEL" not in (home / ".gemini" / ".env").read_text()


def test_verify_sends_the_gemini_wire_with_the_goog_header(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "gemini-cli")
    assert entry["verdict"] == "ok" and entry["wire"] == "gemini"
    assert request.path.startswith("/v1beta/models/my-model:")
    assert request.headers["x-goog-api-key"] == VALID_KEY


def test_model_from_env_file_beats_settings_model_and_is_said(gwconf, home: Path, profile: str) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text('{"model": {"name": "gemini-2.5-pro"}}\n')
    assert gwconf("apply", "gemini-cli").exit_code == 0
    result = reading()
    assert result.model == "my-model"
    assert "a model picked with /model does not stick" in messages(result)
