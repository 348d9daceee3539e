"""Aider: ~/.aider.conf.yml through the CLI, and aider's own precedence in read()."""

from __future__ import annotations

import stat

import pytest

from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)
from tests.conftest import TEST_KEY


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("aider", case, gwconf, home)


def test_status_and_private_file(gwconf, home, profile) -> None:
    assert gwconf("apply", "aider").exit_code == 0
    status = assert_status_reads_profile(gwconf, "aider")
    assert status["provider"] == "openai-compatible (litellm openai/ route)"
    assert stat.S_IMODE((home / ".aider.conf.yml").stat().st_mode) == 0o600


def test_model_keeps_an_existing_openai_prefix(gwconf, home, profile) -> None:
    assert gwconf("apply", "aider", "--model", "openai/big").exit_code == 0
    assert "model: openai/big\n" in (home / ".aider.conf.yml").read_text()


def test_malformed_yaml_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(gwconf, home, "aider", ".aider.conf.yml", "model: gpt-4o\nread: [a, b\n")


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "aider")


def test_the_git_roots_env_wins_over_the_current_folders(
    gwconf, home, profile, tmp_path, monkeypatch
) -> None:
    """aider 0.86.2 loads ~/.env, then the current folder's .env, then the git root's (its
    --env-file default, moved to the end of the search list): the git root's wins."""
    assert gwconf("apply", "aider").exit_code == 0
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".env").write_text("AIDER_MODEL=openai/from-root\n")
    (repo / "src" / ".env").write_text("AIDER_MODEL=openai/from-src\n")
    monkeypatch.chdir(repo / "src")
    seen = reading("aider")
    assert seen.model == "from-root"
    assert has_finding(seen.findings, "warning", "model comes from " + str(repo / ".env"))


def test_project_files_in_the_git_root_override(gwconf, home, profile, tmp_path, monkeypatch) -> None:
    assert gwconf("apply", "aider").exit_code == 0
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".aider.conf.yml").write_text("model: gpt-4o-mini\n")
    (repo / ".env").write_text("OPENAI_BASE_URL=https://api.openai.com/v1\n")
    monkeypatch.chdir(repo / "src")
    seen = reading("aider")
    assert seen.model == "gpt-4o-mini"  # the git root's file is closer than ~
    assert seen.base_url == "https://api.openai.com/v1"  # litellm reads OPENAI_BASE_URL first
    assert seen.api_key == TEST_KEY
    assert has_finding(seen.findings, "warning", ".aider.conf.yml", "wins over ~/.aider.conf.yml")
    assert has_finding(seen.findings, "error", "OPENAI_BASE_URL", "wins over openai-api-base")
    assert has_finding(seen.findings, "error", "no openai/ prefix")


def test_dotenv_key_only_matters_when_the_yaml_has_none(gwconf, home, profile) -> None:
    (home / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv-0000\nAIDER_MODEL=openai/other\n")
    assert gwconf("apply", "aider").exit_code == 0
    seen = reading("aider", OPENAI_API_KEY="sk-from-shell-1111")
    assert seen.api_key == TEST_KEY  # openai-api-key is copied into the environment last
    assert seen.model == "other"  # AIDER_MODEL from ~/.env beats the YAML
    assert has_finding(seen.findings, "warning", "model comes from ~/.env")


def test_shell_variables(gwconf, home, profile) -> None:
    assert gwconf("apply", "aider").exit_code == 0
    seen = reading("aider", AIDER_MODEL="openai/x")
    assert seen.model == "x"
    assert has_finding(seen.findings, "warning", "$AIDER_MODEL")


def test_set_env_in_the_config_is_the_environment_litellm_reads(gwconf, home, profile) -> None:
    """aider 0.86 main.py puts set-env's NAME=value into the environment first, then api-key,
    then openai-api-key and openai-api-base: an OPENAI_BASE_URL there beats openai-api-base
    (litellm reads it first), and status said the gateway's address (the round's sweep)."""
    assert gwconf("apply", "aider").exit_code == 0
    path = home / ".aider.conf.yml"
    text = path.read_text()
    path.write_text(
        text
        + "set-env:\n  - OPENAI_BASE_URL=https://corp-proxy.example.com/v1\n  - OPENAI_API_KEY=sk-set-env-0000\n"
    )
    seen = reading("aider")
    assert seen.base_url == "https://corp-proxy.example.com/v1"
    assert seen.api_key == TEST_KEY  # openai-api-key comes after set-env
    assert has_finding(
        seen.findings, "error", "OPENAI_BASE_URL (~/.aider.conf.yml set-env) wins over openai-api-base"
    )
    path.write_text(text + "set-env: OPENAI_BASE_URL=\n")  # set empty: litellm reads it as not set
    assert (
        reading("aider", OPENAI_BASE_URL="https://shell.example.com/v1").base_url
        != "https://shell.example.com/v1"
    )


def test_detection_needs_more_than_a_home_folder(home) -> None:
    from gwconf.clients import aider
    from gwconf.paths import Env

    env = Env(home=home, platform="linux", environ={"PATH": ""}, cwd=home)
    assert not aider.detect(env)
    (home / ".aider").mkdir()
    assert aider.detect(env)
