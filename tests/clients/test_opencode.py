"""opencode: fixtures through the CLI, which file is edited, layers, references and the key order."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import assert_doctor_flags, check_case, messages, reading_of
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY


@pytest.mark.parametrize("case", ["jsonc-user-config", "json-user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("opencode", case, gwconf, home)


def folder(home: Path) -> Path:
    return home / ".config" / "opencode"


reading = partial(reading_of, "opencode")


def test_status_reads_back_provider_model_and_small_model(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "opencode").exit_code == 0
    status = json.loads(gwconf("status", "opencode", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert status["provider"] == "gwconf" and status["profile"] == "work"
    assert reading().findings == []
    data = json.loads((folder(home) / "opencode.json").read_text())
    assert data["small_model"] == "gwconf/my-model"
    assert data["provider"]["gwconf"]["npm"] == "@ai-sdk/openai-compatible"
    assert (folder(home) / "opencode.json").stat().st_mode & 0o777 == 0o600


def test_jsonc_is_edited_when_both_exist(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text('{"theme": "opencode"}\n')
    (folder(home) / "opencode.jsonc").write_text("// mine\n{}\n")
    assert gwconf("apply", "opencode").exit_code == 0
    assert (folder(home) / "opencode.json").read_text() == '{"theme": "opencode"}\n'
    assert '"gwconf/my-model"' in (folder(home) / "opencode.jsonc").read_text()


def test_env_reference_is_resolved_and_an_unset_one_reported(home: Path, monkeypatch) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text(
        json.dumps(
            {
                "provider": {
                    "gwconf": {"options": {"baseURL": "https://gw.example.com/v1", "apiKey": "{env:GW_KEY}"}}
                },
                "model": "gwconf/my-model",
                "small_model": "gwconf/my-model",
            }
        )
    )
    result = reading()
    assert result.api_key == "" and "$GW_KEY, which is not set" in messages(result)
    monkeypatch.setenv("GW_KEY", TEST_KEY)
    result = reading()
    assert result.api_key == TEST_KEY and result.findings == []


def test_auth_json_key_is_used_when_options_has_none(home: Path) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text(
        '{"provider": {"gwconf": {"options": {"baseURL": "https://gw.example.com/v1"}}}, "model": "gwconf/m"}'
    )
    auth = home / ".local" / "share" / "opencode" / "auth.json"
    auth.parent.mkdir(parents=True)
    auth.write_text(json.dumps({"gwconf": {"type": "api", "key": TEST_KEY}}))
    result = reading()
    assert result.api_key == TEST_KEY and "auth.json" in result.key_origin


def test_project_file_overriding_model_is_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "opencode").exit_code == 0
    Path(".git").mkdir()
    Path("opencode.json").write_text('{"model": "anthropic/claude-sonnet-4-5"}')
    result = reading()
    assert result.provider == "anthropic" and not result.provider_is_gwconf
    assert "opencode.json sets model, which wins over ~/.config/opencode/opencode.json" in messages(result)


def test_config_env_layer_and_vendor_small_model(gwconf, home: Path, profile: str, monkeypatch) -> None:
    assert gwconf("apply", "opencode").exit_code == 0
    extra = home / "extra.json"
    extra.write_text('{"small_model": "openai/gpt-5.4-nano"}')
    monkeypatch.setenv("OPENCODE_CONFIG", str(extra))
    text = messages(reading())
    assert 'small_model is "openai/gpt-5.4-nano"' in text and "$OPENCODE_CONFIG" in text


def test_older_config_json_is_merged_underneath(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "config.json").write_text('{"model": "openai/gpt-5", "theme": "x"}')
    assert gwconf("apply", "opencode").exit_code == 0
    assert (folder(home) / "config.json").read_text() == '{"model": "openai/gpt-5", "theme": "x"}'
    assert reading().provider == "gwconf"


def test_model_is_required(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("apply", "opencode")
    assert result.exit_code == 1 and "--model" in result.output


def test_xdg_config_home_moves_the_folder(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    assert gwconf("apply", "opencode").exit_code == 0
    assert (home / "xdg" / "opencode" / "opencode.json").is_file()


def test_malformed_file_is_refused_and_left_alone(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    bad = folder(home) / "opencode.jsonc"
    bad.write_text('{\n  // comment\n  "model": "x" "theme": "y"\n}\n')
    before = bad.read_bytes()
    result = gwconf("apply", "opencode")
    assert result.exit_code == 1 and "~/.config/opencode/opencode.jsonc:3:16" in result.stderr
    assert bad.read_bytes() == before


def test_verify_sends_a_chat_request_with_the_key(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "opencode")
    assert entry["verdict"] == "ok" and entry["wire"] == "chat"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"


def test_the_default_agents_own_model_wins_and_is_reported(gwconf, home: Path, profile: str) -> None:
    """session prompt: ``input.model ?? agent.model ?? ...``: agent.build.model (build is the
    default primary agent) overrides the top-level model gwconf sets."""
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text(
        '{\n  "agent": {\n    "build": {"model": "anthropic/claude-opus-4-6"},\n'
        '    "plan": {"model": "openai/gpt-5"}\n  }\n}\n'
    )
    applied = gwconf("apply", "opencode")
    assert applied.exit_code == 0
    assert (
        'agent.build.model is "anthropic/claude-opus-4-6": opencode\'s default agent build keeps using it'
        in (applied.stdout)
    )
    status = json.loads(gwconf("status", "opencode", "--json").stdout)["clients"][0]
    assert (status["provider"], status["model"]) == ("anthropic", "claude-opus-4-6")
    result = reading()
    assert not result.provider_is_gwconf
    text = messages(result)
    assert 'agent.build.model is "anthropic/claude-opus-4-6" (~/.config/opencode/opencode.json)' in text
    assert "plan (openai/gpt-5)" in text
    fixes = [f.fix for f in result.findings if f.fix]
    assert (
        "remove agent.build.model from ~/.config/opencode/opencode.json (or set it to gwconf/<model>)"
        in fixes
    )
    assert_doctor_flags(gwconf, "opencode", "agent.build.model")


def test_verify_and_doctor_name_the_agents_model_not_apply_as_the_fix(
    gwconf, home: Path, gateway_profile
) -> None:
    """The default agent's vendor model picks a provider without a key: verify and doctor said
    "gwconf apply opencode", which leaves that model alone and so changes nothing. A quarter of
    the real opencode, Kilo and OpenClaw files looked at set a model per agent."""
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text(
        '{"default_agent": "plan", "agent": {"plan": {"model": "openai/gpt-5"}}}\n'
    )
    assert gwconf("apply", "opencode").exit_code == 0
    fix = "remove agent.plan.model from ~/.config/opencode/opencode.json (or set it to gwconf/<model>)"
    verified = gwconf("verify", "opencode")
    assert verified.exit_code == 1
    assert "no key where it reads it (its files name none): it uses provider openai, not gwconf's" in (
        verified.stderr
    )
    assert f"hint: {fix}" in verified.stderr and "gwconf apply" not in verified.stderr
    doctor = json.loads(gwconf("doctor", "opencode", "--json").stdout)
    [client] = doctor["clients"]
    base_and_key = [f for f in client["findings"] if f["area"] in ("base", "key") and f["level"] == "error"]
    assert base_and_key and all(f["fix"] == fix for f in base_and_key)


def test_default_agent_names_the_agent_whose_model_counts(gwconf, home: Path, profile: str) -> None:
    folder(home).mkdir(parents=True)
    (folder(home) / "opencode.json").write_text(
        '{"default_agent": "mine", "agent": {"mine": {"model": "anthropic/claude-opus-4-6"}}}\n'
    )
    assert gwconf("apply", "opencode").exit_code == 0
    assert reading().provider == "anthropic"


def test_enabled_providers_gets_gwconf_and_restore_takes_it_out(gwconf, home: Path, profile: str) -> None:
    """provider.ts isProviderAllowed: ``enabled_providers`` is a whitelist; without gwconf in it
    the apply cannot work at all."""
    folder(home).mkdir(parents=True)
    original = '{\n  "enabled_providers": ["anthropic", "openai"],\n  "theme": "opencode"\n}\n'
    (folder(home) / "opencode.json").write_text(original)
    applied = gwconf("apply", "opencode")
    assert applied.exit_code == 0 and 'added "gwconf" to enabled_providers' in applied.stdout
    data = json.loads((folder(home) / "opencode.json").read_text())
    assert data["enabled_providers"] == ["anthropic", "openai", "gwconf"]
    assert reading().provider_is_gwconf and not [f for f in reading().findings if f.level == "error"]
    assert "nothing to change" in gwconf("apply", "opencode").stdout
    assert gwconf("restore", "opencode").exit_code == 0
    assert (folder(home) / "opencode.json").read_text() == original


def test_a_provider_filter_elsewhere_is_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "opencode").exit_code == 0
    (folder(home) / "config.json").write_text('{"disabled_providers": ["gwconf"]}')
    result = reading()
    assert not result.provider_is_gwconf
    assert "disabled_providers (~/.config/opencode/config.json) lists gwconf" in messages(result)
    (folder(home) / "config.json").unlink()
    (folder(home) / "opencode.jsonc").write_text('{"enabled_providers": ["anthropic"]}')
    assert "enabled_providers (~/.config/opencode/opencode.jsonc) does not list gwconf" in messages(reading())


@pytest.mark.parametrize(("client", "name"), [("opencode", "opencode.jsonc"), ("kilo", "kilo.json")])
def test_the_administrators_folder_wins_over_every_layer(
    gwconf, home: Path, profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: str, name: str
) -> None:
    """opencode and Kilo read /etc/<app> (macOS: /Library/Application Support/<app>, Windows:
    %ProgramData%\\<app>) last: its model beats the file gwconf writes and even the inline content
    ``gwconf run`` passes. Status follows it, and the fix names the administrator, not a removal."""
    from gwconf.clients import opencode
    from gwconf.clients.kilo import LAYOUT as KILO
    from gwconf.paths import Env

    assert gwconf("apply", client).exit_code == 0
    assert reading_of(client).model == "my-model"
    managed = tmp_path / "etc"
    managed.mkdir()
    (managed / name).write_text('{\n  // the company\'s\n  "model": "corp/approved"\n}\n')
    monkeypatch.setenv(f"{client.upper()}_TEST_MANAGED_CONFIG_DIR", str(managed))
    monkeypatch.setenv(f"{client.upper()}_CONFIG_CONTENT", '{"model": "gwconf/my-model"}')
    reading = reading_of(client)
    assert (reading.provider, reading.model) == ("corp", "approved")
    [finding] = [f for f in reading.findings if "(managed by an administrator)" in f.message]
    assert f"{name} (managed by an administrator) sets model" in finding.message
    assert finding.fix is not None and finding.fix.startswith("ask the administrator of ")
    layout = opencode.OPENCODE if client == "opencode" else KILO
    app = layout.app
    assert opencode.managed_dir(Env(home=home, platform="linux", environ={}), layout) == Path("/etc") / app
    mac = Env(home=home, platform="darwin", environ={})
    assert opencode.managed_dir(mac, layout) == Path("/Library/Application Support") / app
    windows = Env(home=home, platform="win32", environ={"ProgramData": "D:\\Data"})
    assert opencode.managed_dir(windows, layout) == Path("D:\\Data") / app
