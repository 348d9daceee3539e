"""Zed: settings.json (JSONC) through the CLI; the key stays in the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwconf.clients import zed
from gwconf.paths import Env
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY

SETTINGS = Path(".config/zed/settings.json")


@pytest.mark.parametrize("case", ["user-settings", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("zed", case, gwconf, home)


def test_key_never_in_settings_and_how_to_set_it_is_said(gwconf, home, profile) -> None:
    result = gwconf("apply", "zed")
    assert result.exit_code == 0, result
    assert TEST_KEY not in (home / SETTINGS).read_text()
    assert "GWCONF_API_KEY" in result.stdout and "~/.profile" in result.stdout
    assert "quit Zed fully" in result.stdout


def test_status_reads_the_key_from_the_environment(gwconf, home, profile, monkeypatch) -> None:
    assert gwconf("apply", "zed").exit_code == 0
    missing = json.loads(gwconf("status", "zed", "--json").stdout)["clients"][0]
    assert missing["key"] is None and missing["profile"] is None
    monkeypatch.setenv("GWCONF_API_KEY", TEST_KEY)
    status = json.loads(gwconf("status", "zed", "--json").stdout)["clients"][0]
    assert status["key"] == "sk-…WXYZ" and status["profile"] == "work"
    assert status["base_url"] == "https://gw.example.com/v1" and status["model"] == "my-model"
    again = gwconf("apply", "zed")
    assert "holds the profile's key" in again.stdout


def test_a_second_model_is_added_and_becomes_the_default(gwconf, home, profile) -> None:
    assert gwconf("apply", "zed").exit_code == 0
    assert gwconf("apply", "zed", "--model", "other").exit_code == 0
    data = json.loads((home / SETTINGS).read_text())
    provider = data["language_models"]["openai_compatible"]["gwconf"]
    assert [m["name"] for m in provider["available_models"]] == ["my-model", "other"]
    assert data["agent"]["default_model"] == {"provider": "gwconf", "model": "other"}


def test_only_provider_and_model_change_inside_default_model(gwconf, home, profile) -> None:
    """Zed writes `enable_thinking` and `effort` into default_model itself; users comment it."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    original = (
        '{\n\t"agent": {\n\t\t"default_model": {\n\t\t\t// picked in the agent panel\n'
        '\t\t\t"provider": "anthropic",\n\t\t\t"model": "claude-sonnet-4",\n'
        '\t\t\t"enable_thinking": true, // keep\n\t\t\t"effort": "high",\n\t\t},\n\t},\n}\n'
    )
    path.write_text(original)
    assert gwconf("apply", "zed").exit_code == 0
    text = path.read_text()
    assert text.startswith(
        '{\n\t"agent": {\n\t\t"default_model": {\n\t\t\t// picked in the agent panel\n'
        '\t\t\t"provider": "gwconf",\n\t\t\t"model": "my-model",\n'
        '\t\t\t"enable_thinking": true, // keep\n\t\t\t"effort": "high",\n\t\t},\n'
    )
    assert gwconf("restore", "zed").exit_code == 0
    assert path.read_text() == original


def test_malformed_settings_are_refused_with_position(gwconf, home, profile) -> None:
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "theme": "One Dark"\n  "ui_font_size": 16\n}\n')
    before = path.read_bytes()
    result = gwconf("apply", "zed")
    assert result.exit_code == 1
    assert "~/.config/zed/settings.json:3:3:" in result.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, ".config/zed/settings.json"),
        ("linux", {"XDG_CONFIG_HOME": "{home}/xdg"}, "xdg/zed/settings.json"),
        ("linux", {"FLATPAK_XDG_CONFIG_HOME": "{home}/flat"}, "flat/zed/settings.json"),
        ("darwin", {}, ".config/zed/settings.json"),
        ("win32", {"APPDATA": "{home}/AppData/Roaming"}, "AppData/Roaming/Zed/settings.json"),
    ],
)
def test_folder_per_platform(platform: str, environ: dict[str, str], expected: str, home: Path) -> None:
    env = Env(home=home, platform=platform, environ={k: v.format(home=home) for k, v in environ.items()})
    assert zed.files(env)[0].path == home / expected


def test_verify_without_the_key_says_how_to_give_zed_its_key(gwconf, home, profile, monkeypatch) -> None:
    """apply never writes Zed's key: verify's remedy is the export/keychain step, not `gwconf apply
    zed`, which would change nothing and loop."""
    monkeypatch.delenv("GWCONF_API_KEY", raising=False)
    assert gwconf("apply", "zed").exit_code == 0
    result = gwconf("verify", "zed", "--json")
    text = json.dumps(json.loads(result.stdout))
    assert "has no key where it reads it" in text
    assert "export GWCONF_API_KEY=<key> in ~/.profile" in text and "Agent settings" in text
    assert "gwconf apply zed" not in text
    plain = gwconf("verify", "zed")
    assert "export GWCONF_API_KEY=<key>" in plain.stdout + plain.stderr
    assert "gwconf apply zed" not in plain.stdout + plain.stderr


def test_a_channel_os_or_profile_block_that_sets_the_model_is_named(gwconf, home, profile) -> None:
    """Zed merges the release channel's block, then the OS's, then the active profile's over the
    root settings (crates/settings/src/settings_store.rs): one that sets agent.default_model wins
    over the root one gwconf edits, and apply and status name it."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text(
        '{\n  // mine\n  "linux": {"agent": {"default_model": {"provider": "zed.dev", "model": "claude-sonnet-4"}}},\n'
        '  "macos": {"agent": {"default_model": {"provider": "zed.dev", "model": "x"}}},\n'
        '  "profiles": {"work": {"agent": {"default_model": {"provider": "ollama", "model": "llama3"}}}}\n}\n'
    )
    applied = gwconf("apply", "zed")
    assert applied.exit_code == 0
    assert 'settings.json "linux" sets agent.default_model' in applied.output
    assert '"macos"' not in applied.output  # another OS's block does not apply here
    assert 'profile "work" sets agent.default_model' in applied.output
    assert '"linux" sets agent.default_model' in messages(reading_of("zed"))


def test_an_agent_profile_with_its_own_model_is_named(gwconf, home, profile) -> None:
    """An agent profile (``agent.profiles``, the Agent Panel's Write/Ask/Minimal or the user's own)
    can set its own default_model, which threads on that profile use (Zed's ai/agent-profiles): the
    one new threads start on (``agent.default_profile``, "write" unset) is named as such, another
    as used by its threads; a profile on gwconf's provider, or with no model, is no finding."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text(
        '{\n  "agent": {\n    "profiles": {\n'
        '      "write": {"name": "Write", "default_model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"}},\n'
        '      "ask": {"name": "Ask", "default_model": {"provider": "ollama", "model": "llama3"}},\n'
        '      "mine": {"name": "Mine", "default_model": {"provider": "gwconf", "model": "my-model"}},\n'
        '      "minimal": {"name": "Minimal", "tools": {}}\n    }\n  }\n}\n'
    )
    applied = gwconf("apply", "zed")
    assert applied.exit_code == 0
    said = " ".join(applied.output.split())
    assert (
        "agent profile \"write\" sets its own default_model (provider 'zed.dev'), which Zed uses for every new thread"
        in said
    )
    assert (
        "agent profile \"ask\" sets its own default_model (provider 'ollama'), which Zed uses for threads on it"
        in said
    )
    assert '"mine"' not in said and '"minimal"' not in said
    data = json.loads(path.read_text())  # (no comments here) the profiles are the user's: untouched
    assert data["agent"]["profiles"]["write"]["default_model"]["provider"] == "zed.dev"
    found = [f for f in reading_of("zed").findings if "agent profile" in f.message]
    assert [(f.level, f.fix) for f in found] == [
        ("warning", "edit agent.profiles.write.default_model in settings.json"),
        ("warning", "edit agent.profiles.ask.default_model in settings.json"),
    ]
    data["agent"]["default_profile"] = "ask"  # now new threads start on Ask
    path.write_text(json.dumps(data))
    said = messages(reading_of("zed"))
    assert (
        "\"ask\" sets its own default_model (provider 'ollama'), which Zed uses for every new thread" in said
    )
    assert (
        "\"write\" sets its own default_model (provider 'zed.dev'), which Zed uses for threads on it" in said
    )
