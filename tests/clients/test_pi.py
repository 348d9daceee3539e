"""pi: fixtures through the CLI, the key's precedence (auth.json, variable names, commands), project settings."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.paths import Env
from tests.clients._env import clean_client_env  # noqa: F401
from tests.clients._harness import assert_doctor_flags, check_case, messages, reading_of
from tests.conftest import TEST_KEY


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str) -> None:
    check_case("pi", case, gwconf, home)


def agent(home: Path) -> Path:
    return home / ".pi" / "agent"


reading = partial(reading_of, "pi")


def test_apply_writes_provider_and_defaults_and_status_reads_them(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    models = json.loads((agent(home) / "models.json").read_text())
    assert models["providers"]["gwconf"]["api"] == "openai-completions"
    assert models["providers"]["gwconf"]["models"] == [{"id": "my-model", "name": "my-model"}]
    assert "gwconf-anthropic" not in models["providers"]
    assert (agent(home) / "models.json").stat().st_mode & 0o777 == 0o600
    status = json.loads(gwconf("status", "pi", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"], status["provider"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
        "gwconf",
    )
    assert reading().findings == []


def test_pi_coding_agent_dir_moves_the_folder(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / "elsewhere"))
    assert gwconf("apply", "pi").exit_code == 0
    assert (home / "elsewhere" / "models.json").is_file() and not agent(home).exists()


def test_an_anthropic_address_adds_a_messages_provider(gwconf, home: Path) -> None:
    added = gwconf(
        "profile", "add", "both", "--base-url", "https://gw.example.com/v1", "--model", "my-model",
        "--anthropic-base-url", "https://gw.example.com/anthropic", "--key-stdin", "--use", input=TEST_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("apply", "pi").exit_code == 0
    entry = json.loads((agent(home) / "models.json").read_text())["providers"]["gwconf-anthropic"]
    assert entry["api"] == "anthropic-messages" and entry["baseUrl"] == "https://gw.example.com/anthropic"


def test_auth_json_key_wins_over_models_json(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    (agent(home) / "auth.json").write_text(json.dumps({"gwconf": {"type": "api_key", "key": "sk-old-0000"}}))
    result = reading()
    assert result.api_key == "sk-old-0000"
    assert "auth.json gwconf holds a api_key credential" in messages(result)


def test_a_key_that_names_a_variable_is_read_from_it(gwconf, home: Path, profile: str, monkeypatch) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    path = agent(home) / "models.json"
    path.write_text(path.read_text().replace(TEST_KEY, "GW_KEY"))
    assert reading().api_key == "GW_KEY"  # unset: sent literally
    monkeypatch.setenv("GW_KEY", TEST_KEY)
    result = reading()
    assert result.api_key == TEST_KEY and result.key_origin.startswith("$GW_KEY")
    from gwconf import formats
    from gwconf.clients import pi

    found = pi.doctor({"models": formats.load("jsonc", path.read_text(), "m")}, Env.current(), result)
    assert "also the name of an environment variable" in found[0].message and "GW_KEY" not in found[0].message


def test_project_settings_override_is_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    project = Path.cwd() / ".pi" / "settings.json"
    project.parent.mkdir(parents=True)
    project.write_text('{"defaultProvider": "openai", "defaultModel": "gpt-5.4"}\n')
    result = reading()
    assert result.provider == "openai" and not result.provider_is_gwconf
    assert "wins over the global settings.json" in messages(result)


def test_run_injects_provider_and_model_without_writing(gwconf, home: Path, profile: str) -> None:
    from gwconf.clients import pi

    spec = pi.launch(registry.get("pi").target(_profile(), Env.current()), Env.current(), ["-p", "hi"])
    assert spec.argv[:5] == ["pi", "--provider", "gwconf", "--model", "my-model"]
    assert set(spec.render) == {"models", "settings"} and not agent(home).exists()


def _profile():
    from gwconf.profiles import ProfileStore

    return ProfileStore(Env.current()).load("work")


SCOPED = '{\n  "enabledModels": ["anthropic/claude-sonnet-4-5", "openai/*"],\n  "theme": "dark"\n}\n'


def test_scoped_models_win_so_gwconfs_goes_first_and_restore_takes_it_out(
    gwconf, home: Path, profile: str
) -> None:
    """model-resolver.ts findInitialModel: the first scoped model (enabledModels) is picked
    before defaultProvider/defaultModel (found in a real user's settings.json)."""
    agent(home).mkdir(parents=True)
    (agent(home) / "settings.json").write_text(SCOPED)
    assert gwconf("apply", "pi").exit_code == 0
    settings = json.loads((agent(home) / "settings.json").read_text())
    assert settings["enabledModels"] == ["gwconf/my-model", "anthropic/claude-sonnet-4-5", "openai/*"]
    assert reading().findings == [] and reading().provider == "gwconf"
    # another profile's model replaces gwconf's entry, never piles up
    assert gwconf("apply", "pi", "--model", "other-model").exit_code == 0
    settings = json.loads((agent(home) / "settings.json").read_text())
    assert settings["enabledModels"] == ["gwconf/other-model", "anthropic/claude-sonnet-4-5", "openai/*"]
    assert gwconf("restore", "pi").exit_code == 0
    assert (agent(home) / "settings.json").read_text() == SCOPED


def test_a_scoped_vendor_model_first_is_reported(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    path = agent(home) / "settings.json"
    data = json.loads(path.read_text())
    data["enabledModels"] = ["anthropic/claude-sonnet-4-5"]
    path.write_text(json.dumps(data))
    result = reading()
    assert (result.provider, result.model, result.provider_is_gwconf) == (
        "anthropic",
        "claude-sonnet-4-5",
        False,
    )
    assert 'enabledModels (scoped models) starts with "anthropic/claude-sonnet-4-5"' in messages(result)
    status = json.loads(gwconf("status", "pi", "--json").stdout)["clients"][0]
    assert status["provider"] == "anthropic"


@pytest.mark.parametrize(
    "scope",
    [
        ["anthropic/claude-sonnet-4-5", "gwconf/*"],  # a glob, on provider/id
        ["anthropic/claude-sonnet-4-5", "my-*:high"],  # a glob on the id, with a thinking level
        ["anthropic/claude-sonnet-4-5", "GWCONF/My-Model"],  # case aside
    ],
)
def test_a_saved_default_in_scope_is_the_one_pi_starts_with(
    gwconf, home: Path, profile: str, scope: list[str]
) -> None:
    """pi 0.73.1 main.js: with scoped models, the saved default when it is in scope, else the first
    scoped model. gwconf's model already in scope: the user's list stays as it is."""
    agent(home).mkdir(parents=True)
    text = json.dumps({"enabledModels": scope}, indent=2) + "\n"
    (agent(home) / "settings.json").write_text(text)
    assert gwconf("apply", "pi").exit_code == 0
    assert json.loads((agent(home) / "settings.json").read_text())["enabledModels"] == scope
    result = reading()
    assert (result.provider, result.model) == ("gwconf", "my-model") and result.findings == []


BLOCK = (
    '{\n  // mine\n  "providers": {\n    /* local models\n       for the train */\n'
    '    "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions", "apiKey": "x",\n'
    '               "models": [{"id": "llama3/*"}]}\n  }\n}\n'
)


def test_a_block_comment_in_models_json_is_refused_with_its_line(gwconf, home: Path, profile: str) -> None:
    """pi strips only // comments and trailing commas before JSON.parse: a /* */ comment makes
    the whole file unreadable to pi, so gwconf must not write its provider there and call it ok."""
    agent(home).mkdir(parents=True)
    (agent(home) / "models.json").write_text(BLOCK)
    result = gwconf("apply", "pi")
    assert result.exit_code == 1
    out = result.stdout + result.stderr
    assert "~/.pi/agent/models.json:4:5" in out and "/* */ comment" in out
    assert "Remove the /* */ comment" in out
    assert (agent(home) / "models.json").read_text() == BLOCK
    assert not (agent(home) / "settings.json").exists()


def test_a_block_comment_added_later_is_reported_not_healthy(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "pi").exit_code == 0
    path = agent(home) / "models.json"
    path.write_text(path.read_text().replace("{", "{ /* note */", 1))
    result = reading()
    assert not result.provider_is_gwconf
    assert "models.json:1:3: a /* */ comment: pi strips only // comments" in messages(result)
    assert_doctor_flags(gwconf, "pi", "/* */ comment")


def test_slash_star_inside_a_string_or_line_comment_is_fine(gwconf, home: Path, profile: str) -> None:
    agent(home).mkdir(parents=True)
    (agent(home) / "models.json").write_text(
        '{\n  // a /* inside a line comment\n  "providers": {"x": {"baseUrl": "http://h/*", "modelOverrides": {}}}\n}\n'
    )
    assert gwconf("apply", "pi").exit_code == 0
    assert reading().findings == []
