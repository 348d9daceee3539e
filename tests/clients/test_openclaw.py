"""OpenClaw: its JSON5 file through the CLI, the agent copy that wins in merge mode, ${VAR} keys."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from gwconf import formats
from tests.clients._env import clean_client_env  # noqa: F401
from tests.clients._harness import assert_doctor_flags, check_case, messages, reading_of
from tests.conftest import TEST_KEY


@pytest.mark.parametrize("case", ["json5-user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("openclaw", case, gwconf, home)


def config(home: Path) -> Path:
    return home / ".openclaw" / "openclaw.json"


reading = partial(reading_of, "openclaw")


def test_apply_keeps_json5_and_status_reads_it(gwconf, home: Path, profile: str) -> None:
    config(home).parent.mkdir(parents=True)
    config(home).write_text(
        "{\n  // mine\n  agents: { defaults: { model: 'anthropic/claude-opus-4-6' } },\n}\n"
    )
    assert gwconf("apply", "openclaw").exit_code == 0
    text = config(home).read_text()
    assert "// mine" in text and "model: 'gwconf/my-model'" in text  # the short form stays short
    data = formats.load("json5", text, "c").data()
    assert data["models"]["providers"]["gwconf"]["baseUrl"] == "https://gw.example.com/v1"
    assert config(home).stat().st_mode & 0o777 == 0o600
    status = json.loads(gwconf("status", "openclaw", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"], status["provider"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
        "gwconf",
    )
    assert reading().findings == []


def test_config_path_and_state_dir_move_the_file(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(home / "state"))
    assert gwconf("apply", "openclaw").exit_code == 0
    assert (home / "state" / "openclaw.json").is_file()
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(home / "pinned.json5"))
    assert gwconf("apply", "openclaw").exit_code == 0
    assert (home / "pinned.json5").is_file()


@pytest.mark.parametrize(
    ("existing", "written"),
    [
        # a Clawdbot-era install: OpenClaw still reads the legacy folder and name
        (".clawdbot/clawdbot.json", ".clawdbot/clawdbot.json"),
        (".clawdbot/openclaw.json", ".clawdbot/openclaw.json"),
        # the current folder wins once it exists, with either name
        (".openclaw/clawdbot.json", ".openclaw/clawdbot.json"),
        # nothing yet: the current folder and name
        (None, ".openclaw/openclaw.json"),
    ],
)
def test_the_file_openclaw_reads_is_the_one_written(
    gwconf, home: Path, profile: str, existing: str | None, written: str
) -> None:
    if existing is not None:
        (home / existing).parent.mkdir(parents=True)
        (home / existing).write_text("{\n  // mine\n  gateway: { mode: 'local' },\n}\n")
    assert gwconf("apply", "openclaw").exit_code == 0
    text = (home / written).read_text()
    assert "gwconf/my-model" in text
    if existing is not None:
        assert "// mine" in text
        assert not (home / ".openclaw" / "openclaw.json").exists() or written == ".openclaw/openclaw.json"
    status = json.loads(gwconf("status", "openclaw", "--json").stdout)["clients"][0]
    assert status["model"] == "my-model"
    assert gwconf("restore", "openclaw").exit_code == 0
    if existing is None:
        assert not (home / written).exists()
    else:
        assert (home / written).read_text() == "{\n  // mine\n  gateway: { mode: 'local' },\n}\n"


def test_a_set_state_folder_is_not_left_for_the_legacy_one(
    gwconf, home: Path, profile: str, monkeypatch
) -> None:
    (home / ".clawdbot").mkdir()
    (home / ".clawdbot" / "clawdbot.json").write_text("{}\n")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(home / "state"))
    assert gwconf("apply", "openclaw").exit_code == 0
    assert (home / "state" / "openclaw.json").is_file()
    assert (home / ".clawdbot" / "clawdbot.json").read_text() == "{}\n"


def test_a_stale_agent_copy_wins_and_is_named(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "openclaw").exit_code == 0
    copy = home / ".openclaw" / "agents" / "main" / "agent" / "models.json"
    copy.parent.mkdir(parents=True)
    copy.write_text(
        json.dumps({"providers": {"gwconf": {"baseUrl": "https://gw.example.com/v1", "apiKey": "sk-old-1"}}})
    )
    result = reading()
    assert result.api_key == "sk-old-1"
    assert "has another apiKey, which wins over openclaw.json in merge mode" in messages(result)


def test_a_key_reference_is_filled_from_the_state_dotenv(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "openclaw").exit_code == 0
    config(home).write_text(config(home).read_text().replace(TEST_KEY, "${GW_KEY}"))
    assert "${GW_KEY}, which is set neither" in messages(reading())
    (home / ".openclaw" / ".env").write_text(f"GW_KEY={TEST_KEY}\n")
    result = reading()
    assert result.api_key == TEST_KEY and result.findings == []


def test_a_lan_gateway_gets_allow_private_network(gwconf, home: Path) -> None:
    added = gwconf(
        "profile", "add", "lan", "--base-url", "http://192.168.1.20:4000/v1", "--model", "m", "--key-stdin", "--use",
        input=TEST_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("apply", "openclaw").exit_code == 0
    data = formats.load("json5", config(home).read_text(), "c").data()
    assert data["models"]["providers"]["gwconf"]["request"] == {"allowPrivateNetwork": True}


REPRO = (
    '{ "agents": { "defaults": { "model": { "primary": "anthropic/claude-sonnet-4-5" } }, "list": [ '
    '{ "id": "main", "default": true, "model": "anthropic/claude-opus-4-6" } ] } }\n'
)


def test_the_default_agents_own_model_wins_and_doctor_names_it(gwconf, home: Path, profile: str) -> None:
    """agents.list[].model overrides agents.defaults.model (docs; agent-scope.ts
    resolveAgentEffectiveModelPrimary): the default agent still talks to Anthropic."""
    config(home).parent.mkdir(parents=True)
    config(home).write_text(REPRO)
    applied = gwconf("apply", "openclaw")
    assert applied.exit_code == 0
    assert 'agents.list[0].model is "anthropic/claude-opus-4-6": the default agent "main" keeps using' in (
        applied.stdout
    )
    data = formats.load("json5", config(home).read_text(), "c").data()
    assert data["agents"]["list"][0]["model"] == "anthropic/claude-opus-4-6"  # the user's, not edited
    status = json.loads(gwconf("status", "openclaw", "--json").stdout)["clients"][0]
    assert (status["provider"], status["model"]) == ("anthropic", "claude-opus-4-6")
    result = reading()
    assert not result.provider_is_gwconf
    [override] = [f for f in result.findings if "uses its own model" in f.message]
    assert override.level == "error" and 'default agent "main" uses its own model' in override.message
    assert override.fix == (
        'remove "model" from agent "main" (agents.list[0].model) in ~/.openclaw/openclaw.json, '
        "or set it to gwconf/<model>"
    )
    assert_doctor_flags(gwconf, "openclaw", "agents.list[0].model")
    verified = gwconf("verify", "openclaw")
    assert "has no base address" in verified.output and 'remove "model" from agent "main"' in verified.output


@pytest.mark.parametrize(
    ("agents", "expected"),
    [
        (
            '[{ id: "a", model: "openai/gpt-5" }, { id: "main", model: { primary: "anthropic/x" } }]',
            "anthropic",
        ),
        ('[{ id: "a", model: "openai/gpt-5" }, { id: "b" }]', "openai"),
        ('[{ id: "a" }, { id: "b", default: true, model: "gwconf/my-model" }]', "gwconf"),
        ('[{ id: "main" }, { id: "b", model: "openai/gpt-5" }]', "gwconf"),
    ],
)
def test_which_agent_is_the_default(gwconf, home: Path, profile: str, agents: str, expected: str) -> None:
    """resolveDefaultAgentId: default: true, else id main, else the first entry."""
    config(home).parent.mkdir(parents=True)
    config(home).write_text(f"{{ agents: {{ list: {agents} }} }}\n")
    assert gwconf("apply", "openclaw").exit_code == 0
    assert reading().provider == expected
