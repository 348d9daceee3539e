"""Codex, Claude Code and Continue: before/after fixtures through the CLI, plus their quirks."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY

CASES = [
    ("codex", "user-config"),
    ("codex", "chatgpt-login"),
    ("codex", "crlf-forced-login"),
    ("claude-code", "user-settings"),
    ("claude-code", "fresh-home"),
    ("continue", "user-config"),
    ("continue", "fresh-home"),
]


@pytest.mark.parametrize(("client_id", "case"), CASES)
def test_fixture(client_id: str, case: str, gwconf, home, profile) -> None:
    check_case(client_id, case, gwconf, home)


def test_codex_key_files_are_private(gwconf, home, profile) -> None:
    assert gwconf("apply", "codex").exit_code == 0
    auth = home / ".codex" / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text()) == {"OPENAI_API_KEY": TEST_KEY}


def test_codex_never_writes_chat_wire_or_profiles(gwconf, home, profile) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('[model_providers.gwconf]\nname = "x"\nwire_api = "chat"\n')
    assert gwconf("apply", "codex").exit_code == 0
    text = (home / ".codex" / "config.toml").read_text()
    assert 'wire_api = "responses"' in text and '"chat"' not in text and "[profiles" not in text


@pytest.mark.parametrize(("store", "level"), [("keyring", "error"), ("auto", "warning")])
def test_codex_login_in_the_keyring_gets_the_key_in_the_table(
    gwconf, home, profile, store: str, level: str
) -> None:
    """With cli_auth_credentials_store = "keyring" Codex never reads auth.json, and with "auto" a
    login in the keyring comes first (codex-rs login/src/auth/storage.rs): gwconf cannot read the
    keyring, so the key goes in its provider table, as beside a ChatGPT login."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'# mine\ncli_auth_credentials_store = "{store}"\n')
    applied = gwconf("apply", "codex")
    assert applied.exit_code == 0 and f'cli_auth_credentials_store = "{store}"' in applied.output
    text = config.read_text()
    assert "experimental_bearer_token" in text and "requires_openai_auth" not in text
    assert not (home / ".codex" / "auth.json").exists()
    found = reading_of("codex")
    assert found.api_key == TEST_KEY and found.findings == []
    # a key left in auth.json by hand, no bearer token: the finding says why Codex will not see it
    config.write_text(
        f'cli_auth_credentials_store = "{store}"\nmodel_provider = "gwconf"\n'
        '[model_providers.gwconf]\nbase_url = "https://gw.example.com/v1"\nrequires_openai_auth = true\n'
    )
    (home / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": TEST_KEY}))
    assert any(f.level == level and "OS keyring" in f.message for f in reading_of("codex").findings)


def test_codex_follows_the_administrators_managed_config(
    gwconf, home, profile, tmp_path, monkeypatch
) -> None:
    """/etc/codex/managed_config.toml is merged over config.toml (codex-rs config_loader): a
    provider or model there wins, and gwconf's reading says so instead of calling it gwconf's."""
    from gwconf.clients import codex

    assert gwconf("apply", "codex").exit_code == 0
    assert reading_of("codex").provider_is_gwconf
    managed = tmp_path / "managed_config.toml"
    monkeypatch.setattr(codex, "MANAGED_CONFIG", managed)  # the real one is under /etc
    managed.write_text(
        '# the company\'s\nmodel_provider = "corp"\n\n[model_providers.corp]\nname = "Corp"\nbase_url = "https://llm.corp.example/v1"\nenv_key = "CORP_KEY"\n'
    )
    reading = reading_of("codex")
    assert (reading.provider, reading.base_url, reading.provider_is_gwconf) == (
        "corp",
        "https://llm.corp.example/v1",
        False,
    )
    said = messages(reading)
    assert (
        "(managed by an administrator) sets model_provider, model_providers: it wins over ~/.codex/config.toml"
        in said
    ), said
    managed.write_text('model = "corp-model"\n')  # a model only: gwconf's provider, the company's model
    reading = reading_of("codex")
    assert (
        reading.provider_is_gwconf
        and reading.model == "corp-model"
        and reading.base_url == "https://gw.example.com/v1"
    )
    managed.unlink()
    assert "administrator" not in messages(reading_of("codex"))


def test_claude_code_follows_the_administrators_managed_settings(
    gwconf, home, profile, tmp_path, monkeypatch
) -> None:
    """/etc/claude-code/managed-settings.json, then managed-settings.d/*.json, win over every other
    settings source (Claude Code 2.1.332): their env block's Anthropic variables are what it sends."""
    from gwconf.clients import claude_code

    assert gwconf("apply", "claude-code").exit_code == 0
    managed = tmp_path / "claude-code"
    (managed / "managed-settings.d").mkdir(parents=True)
    monkeypatch.setitem(claude_code.MANAGED, "linux", managed)  # the real one is /etc/claude-code
    (managed / "managed-settings.json").write_text(json.dumps({"env": {"ANTHROPIC_MODEL": "corp-model"}}))
    (managed / "managed-settings.d" / "20-gateway.json").write_text(
        json.dumps({"env": {"ANTHROPIC_BASE_URL": "https://llm.corp.example"}})
    )
    reading = reading_of("claude-code")
    assert (reading.model, reading.base_url) == ("corp-model", "https://llm.corp.example"), reading
    said = messages(reading)
    assert (
        f"{managed / 'managed-settings.d' / '20-gateway.json'} (managed by an administrator) sets Anthropic"
        in said
    )
    (managed / "managed-settings.json").unlink()
    (managed / "managed-settings.d" / "20-gateway.json").unlink()
    assert reading_of("claude-code").base_url == "https://gw.example.com"


def test_codex_home_env_moves_files(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(home / "elsewhere"))
    assert gwconf("apply", "codex").exit_code == 0
    assert (home / "elsewhere" / "config.toml").exists()
    assert not (home / ".codex").exists()


def test_claude_removes_conflicting_key_and_sets_onboarding(gwconf, home, profile) -> None:
    assert gwconf("apply", "claude-code").exit_code == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["env"] == {
        "ANTHROPIC_BASE_URL": "https://gw.example.com",
        "ANTHROPIC_AUTH_TOKEN": TEST_KEY,
        "ANTHROPIC_MODEL": "my-model",
    }
    assert json.loads((home / ".claude.json").read_text()) == {"hasCompletedOnboarding": True}
    assert stat.S_IMODE((home / ".claude" / "settings.json").stat().st_mode) == 0o600


def test_claude_config_dir_moves_both_files(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "cc"))
    assert gwconf("apply", "claude-code").exit_code == 0
    assert (home / "cc" / "settings.json").exists() and (home / "cc" / ".claude.json").exists()


def test_claude_family_address_from_profile(gwconf, home) -> None:
    added = gwconf(
        "profile", "add", "split", "--base-url", "https://gw.example.com/v1", "--key-env", "GWK",
        "--anthropic-base-url", "https://anthropic.gw.example.com/", "--use",
    )  # fmt: skip
    assert added.exit_code == 0
    os.environ["GWK"] = TEST_KEY
    try:
        assert gwconf("apply", "claude-code").exit_code == 0
    finally:
        del os.environ["GWK"]
    env = json.loads((home / ".claude" / "settings.json").read_text())["env"]
    assert env["ANTHROPIC_BASE_URL"] == "https://anthropic.gw.example.com"
    assert "ANTHROPIC_MODEL" not in env


def test_continue_needs_a_model(gwconf, home) -> None:
    gwconf("profile", "add", "nomodel", "--base-url", "https://gw.example.com", "--key", TEST_KEY, "--use")
    result = gwconf("apply", "continue")
    assert result.exit_code == 1 and "--model" in result.stderr
    assert gwconf("apply", "continue", "--model", "picked").exit_code == 0
    assert "model: picked" in (home / ".continue" / "config.yaml").read_text()


def test_continue_key_stays_out_of_config_yaml(gwconf, home, profile) -> None:
    assert gwconf("apply", "continue").exit_code == 0
    assert TEST_KEY not in (home / ".continue" / "config.yaml").read_text()
    dotenv = home / ".continue" / ".env"
    assert TEST_KEY in dotenv.read_text() and stat.S_IMODE(dotenv.stat().st_mode) == 0o600


def test_continue_status_names_the_env_file_as_other_messages_do(gwconf, home, profile) -> None:
    """The key's origin is shown as ``~/...`` like every other client's, not as an absolute path."""
    assert gwconf("apply", "continue").exit_code == 0
    result = gwconf("status", "continue")
    assert "(~/.continue/.env GWCONF_API_KEY)" in result.output, result.output


LEGACY_JSON = '{\n  "models": [{"title": "Mine", "provider": "ollama", "model": "llama3"}]\n}\n'


def test_continue_will_not_hide_a_legacy_config_json(gwconf, home, profile) -> None:
    """The IDE extensions load config.json only while no config.yaml exists: a new config.yaml
    would make every model and setting in it stop loading."""
    legacy = home / ".continue" / "config.json"
    legacy.parent.mkdir()
    legacy.write_text(LEGACY_JSON)
    assert "load ~/.continue/config.json (there is no config.yaml)" in messages(reading_of("continue"))
    preview = gwconf("apply", "continue", "--dry-run")  # the preview says what the real run refuses
    assert preview.exit_code == 0, preview.output
    assert (
        "note: the real run will refuse this: Continue's IDE extensions load ~/.continue/config.json"
        in preview.output
    ), preview.output
    assert "+  - name: gwconf" in preview.output or "+models:" in preview.output, preview.output
    result = gwconf("apply", "continue")
    assert result.exit_code != 0, result.output
    assert "Continue's IDE extensions load ~/.continue/config.json" in result.output, result.output
    assert "docs.continue.dev/yaml-migration" in result.output
    assert sorted(p.name for p in legacy.parent.iterdir()) == ["config.json"]
    assert legacy.read_text() == LEGACY_JSON
    forced_preview = gwconf("apply", "continue", "--force", "--dry-run")
    assert "will refuse" not in forced_preview.output, forced_preview.output
    assert (
        "the real run will note: --force: Continue's IDE extensions now load config.yaml"
        in forced_preview.output
    )
    assert sorted(p.name for p in legacy.parent.iterdir()) == ["config.json"]
    forced = gwconf("apply", "continue", "--force")
    assert forced.exit_code == 0, forced.output
    assert "now load config.yaml instead of ~/.continue/config.json" in forced.output
    assert "config.json" not in messages(reading_of("continue"))  # config.yaml exists now
    assert gwconf("restore", "continue").exit_code == 0
    assert sorted(p.name for p in legacy.parent.iterdir()) == ["config.json"]


def test_continue_names_the_model_last_picked_in_cn(gwconf, home, profile) -> None:
    """``cn`` takes the model last picked in it (index/globalContext.json) over the list."""
    folder = home / ".continue"
    folder.mkdir()
    (folder / "config.yaml").write_text(
        "name: Mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Mine\n    provider: ollama\n    model: llama3\n"
    )
    assert gwconf("apply", "continue").exit_code == 0
    (folder / "index").mkdir()
    context = folder / "index" / "globalContext.json"
    context.write_text(json.dumps({"cliSelectedModel": "Mine"}))
    assert '`cn` uses "Mine", the model last picked in it' in messages(reading_of("continue"))
    context.write_text(json.dumps({"cliSelectedModel": "gwconf my-model"}))
    assert "last picked" not in messages(reading_of("continue"))
    context.write_text(json.dumps({"cliSelectedModel": "gone"}))  # no such model: cn takes the list's
    assert "last picked" not in messages(reading_of("continue"))


def test_continue_warns_of_a_project_env_that_sets_its_key(gwconf, home, profile) -> None:
    """`cn` run in a folder whose .env sets the key's name uses that one: status says so, for
    ``export NAME =`` too, and not for a longer name that begins the same."""
    assert gwconf("apply", "continue").exit_code == 0
    local = Path.cwd() / ".env"
    local.write_text("# project\nGWCONF_API_KEY_OLD=x\nOTHER=1\n")
    assert "also defines" not in messages(reading_of("continue"))
    local.write_text("# project\nOTHER=1\n  export GWCONF_API_KEY = sk-project\n")
    assert f"{local} also defines GWCONF_API_KEY" in messages(reading_of("continue"))
