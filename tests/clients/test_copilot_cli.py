"""Copilot CLI: BYOK variables in gwconf's shell block beside the shell client's, each restored alone."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from gwconf import registry
from gwconf.paths import Env
from tests.clients._env import clean_client_env  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY


def test_fixture(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    check_case("copilot-cli", "bashrc-with-shell-block", gwconf, home)


reading = partial(reading_of, "copilot-cli")


def test_shares_the_block_with_shell_and_restores_only_its_own(
    gwconf, home: Path, profile: str, monkeypatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    rc = home / ".bashrc"
    rc.write_text("alias ll='ls -l'\n")
    assert gwconf("apply", "copilot-cli").exit_code == 0
    assert not registry.get("shell").detect(Env.current()), (
        "copilot's variables alone do not make shell applied"
    )
    assert gwconf("apply", "shell").exit_code == 0
    text = rc.read_text()
    assert text.count("# >>> gwconf >>>") == 1
    for line in ("export COPILOT_PROVIDER_BASE_URL='https://gw.example.com/v1'", "export COPILOT_MODEL='my-model'",
                 "export COPILOT_PROVIDER_WIRE_API='completions'", "export OPENAI_API_KEY="):  # fmt: skip
        assert line in text
    assert rc.stat().st_mode & 0o777 == 0o600
    status = json.loads(gwconf("status", "copilot-cli", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert gwconf("restore", "copilot-cli").exit_code == 0
    text = rc.read_text()
    assert "COPILOT_" not in text and "export OPENAI_API_KEY=" in text
    assert gwconf("restore", "shell").exit_code == 0
    assert rc.read_text() == "alias ll='ls -l'\n"


def test_read_is_what_a_new_terminal_gets(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert gwconf("apply", "copilot-cli").exit_code == 0
    result = reading()
    assert result.api_key == TEST_KEY and result.provider_is_gwconf
    assert "differ from the gwconf block" in messages(result)  # this test's process was started before
    rc = home / ".bashrc"
    rc.write_text(rc.read_text() + "export COPILOT_MODEL=gpt-5\n")
    assert "sets COPILOT_MODEL again below the gwconf block" in messages(reading())
    monkeypatch.setenv("COPILOT_PROVIDER_BEARER_TOKEN", "tok")
    assert "$COPILOT_PROVIDER_BEARER_TOKEN is set" in messages(reading())
    # the model name on the wire (copilot help environment, 1.0.102), and a transport chat cannot use
    monkeypatch.setenv("COPILOT_PROVIDER_WIRE_MODEL", "gpt-5")
    monkeypatch.setenv("COPILOT_PROVIDER_TRANSPORT", "websockets")
    assert "$COPILOT_PROVIDER_WIRE_MODEL is set" in messages(reading())
    assert "$COPILOT_PROVIDER_TRANSPORT is set" in messages(reading())


def test_without_the_block_copilot_uses_github(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    result = reading()
    assert not result.provider_is_gwconf and "no COPILOT_PROVIDER_BASE_URL" in messages(result)


def test_run_sets_the_variables_for_one_launch(home: Path, profile: str) -> None:
    from gwconf.clients import copilot_cli
    from gwconf.profiles import ProfileStore

    env = Env.current()
    spec = copilot_cli.launch(
        registry.get("copilot-cli").target(ProfileStore(env).load("work"), env), env, ["-p", "hi"]
    )
    assert spec.argv == ["copilot", "-p", "hi"]
    assert spec.env["COPILOT_PROVIDER_API_KEY"] == TEST_KEY and spec.env["COPILOT_MODEL"] == "my-model"
    assert {"COPILOT_PROVIDER_BEARER_TOKEN", "COPILOT_PROVIDER_WIRE_MODEL"} <= set(spec.unset)
