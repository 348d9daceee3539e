"""aichat: config.yaml's `gwconf` client + the key in aichat's .env."""

from __future__ import annotations

import stat

import pytest

from gwconf.clients import aichat
from gwconf.paths import Env
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)
from tests.conftest import TEST_KEY

FOLDER = ".config/aichat"


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("aichat", case, gwconf, home)


def test_status_and_key_placement(gwconf, home, profile) -> None:
    assert gwconf("apply", "aichat").exit_code == 0
    assert_status_reads_profile(gwconf, "aichat")
    assert TEST_KEY not in (home / FOLDER / "config.yaml").read_text()
    assert aichat.aichat_env((home / FOLDER / ".env").read_text())["GWCONF_API_KEY"] == TEST_KEY
    assert stat.S_IMODE((home / FOLDER / ".env").stat().st_mode) == 0o600


def test_existing_gwconf_client_is_updated_not_duplicated(gwconf, home, profile) -> None:
    (home / FOLDER).mkdir(parents=True)
    (home / FOLDER / "config.yaml").write_text(
        "clients:\n- type: openai-compatible\n  name: gwconf\n  api_base: https://old.example/v1\n"
        "  api_key: sk-old-inline-0000\n  models:\n  - name: old-model\n"
    )
    (home / FOLDER / ".env").write_text('GWCONF_API_KEY="sk-old-quoted-1111"\n')
    assert gwconf("apply", "aichat").exit_code == 0
    text = (home / FOLDER / "config.yaml").read_text()
    assert text.count("name: gwconf") == 1 and "api_key" not in text
    assert "- name: old-model\n  - name: my-model\n" in text
    assert (home / FOLDER / ".env").read_text() == f"GWCONF_API_KEY={TEST_KEY}\n"


def test_env_file_beats_the_shell_and_base_override_is_reported(gwconf, home, profile) -> None:
    assert gwconf("apply", "aichat").exit_code == 0
    seen = reading("aichat", GWCONF_API_KEY="sk-shell-2222", GWCONF_API_BASE="https://elsewhere/v1")
    assert seen.api_key == TEST_KEY  # aichat's .env is set over the environment
    assert seen.base_url == "https://elsewhere/v1"
    assert has_finding(seen.findings, "warning", "GWCONF_API_BASE")
    assert reading("aichat", AICHAT_MODEL="ollama:llama3.1").provider_is_gwconf is False


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "~/.config/aichat/config.yaml"),
        ("darwin", {}, "~/Library/Application Support/aichat/config.yaml"),
        ("win32", {"APPDATA": "/w/Roaming"}, "/w/Roaming/aichat/config.yaml"),
        ("darwin", {"XDG_CONFIG_HOME": "/x"}, "/x/aichat/config.yaml"),
        ("linux", {"AICHAT_CONFIG_DIR": "/a"}, "/a/config.yaml"),
        ("linux", {"AICHAT_CONFIG_FILE": "/b/c.yaml"}, "/b/c.yaml"),
    ],
)
def test_paths(platform: str, environ: dict, expected: str, home) -> None:
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(aichat.files(env)[0].path) == expected.replace("~", str(home))


def test_malformed_config_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(
        gwconf, home, "aichat", f"{FOLDER}/config.yaml", "clients:\n  - type: openai\n   bad\n"
    )


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "aichat")


@pytest.mark.parametrize("key", ["sk-abc+/def==", "sk-a~b%c!d", "sk-x#y"])
def test_a_key_aichat_would_read_with_quotes_goes_in_bare(gwconf, home, key: str) -> None:
    """aichat reads .env lines as trimmed NAME=value and keeps quotes: a key the editor would quote
    (base64 padding, "~", "%") must be written bare, or aichat sends the quotes as part of it."""
    added = gwconf(
        "profile", "add", "odd", "--base-url", "https://gw.example.com/v1", "--model", "m",
        "--key-stdin", "--use", input=key + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert gwconf("apply", "aichat").exit_code == 0
    text = (home / FOLDER / ".env").read_text()
    assert aichat.aichat_env(text)["GWCONF_API_KEY"] == key and "'" not in text
    assert reading("aichat").api_key == key


def test_a_config_file_set_in_the_env_file_moves_config_yaml(gwconf, home, profile) -> None:
    """aichat loads its .env before it looks for config.yaml (main.rs): a line there moves it."""
    (home / FOLDER).mkdir(parents=True)
    (home / FOLDER / ".env").write_text(f"# mine\nAICHAT_CONFIG_DIR={home / 'elsewhere'}\n")
    assert gwconf("apply", "aichat").exit_code == 0
    assert "gwconf:my-model" in (home / "elsewhere" / "config.yaml").read_text()
    assert not (home / FOLDER / "config.yaml").exists()
    assert aichat.aichat_env((home / FOLDER / ".env").read_text())["GWCONF_API_KEY"] == TEST_KEY
