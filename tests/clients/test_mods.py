"""mods: mods.yml's `gwconf` API, resolved the way mods resolves a model."""

from __future__ import annotations

import stat

import pytest

from gwconf.clients import mods
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

CONFIG = ".config/mods/mods.yml"


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("mods", case, gwconf, home)


def test_status_and_private_file(gwconf, home, profile) -> None:
    assert gwconf("apply", "mods").exit_code == 0
    assert_status_reads_profile(gwconf, "mods")
    assert stat.S_IMODE((home / CONFIG).stat().st_mode) == 0o600


def test_a_new_file_gets_an_input_limit(gwconf, home, profile) -> None:
    """Without any max-input-chars mods cuts the prompt to nothing."""
    assert gwconf("apply", "mods").exit_code == 0
    assert "max-input-chars: 392000" in (home / CONFIG).read_text()


def test_inline_key_wins_and_env_overrides_are_reported(gwconf, home, profile) -> None:
    assert gwconf("apply", "mods").exit_code == 0
    assert reading("mods", OPENAI_API_KEY="sk-other-3333").api_key == TEST_KEY
    seen = reading("mods", MODS_API="openai", MODS_MODEL="gpt-4o")
    assert seen.provider_is_gwconf is False
    assert has_finding(seen.findings, "warning", "$MODS_API")
    assert has_finding(seen.findings, "error", "cannot resolve model")


def test_alias_resolution(home) -> None:
    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text(
        "default-api: gwconf\ndefault-model: gw\napis:\n  gwconf:\n    base-url: https://gw.example.com/v1\n"
        "    api-key-env: GW_KEY\n    models:\n      my-model:\n        aliases: [gw]\n"
    )
    seen = reading("mods", GW_KEY=TEST_KEY)
    assert (seen.model, seen.api_key, seen.key_origin) == ("my-model", TEST_KEY, "$GW_KEY (api-key-env)")


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "~/.config/mods/mods.yml"),
        ("darwin", {}, "~/Library/Application Support/mods/mods.yml"),
        ("win32", {"LOCALAPPDATA": "/w/Local"}, "/w/Local/mods/mods.yml"),
        ("darwin", {"XDG_CONFIG_HOME": "/x"}, "/x/mods/mods.yml"),
        # adrg/xdg: ~ and $HOME expanded, then only an absolute path counts
        ("linux", {"XDG_CONFIG_HOME": "~/cfg"}, "~/cfg/mods/mods.yml"),
        ("linux", {"XDG_CONFIG_HOME": "$HOME/cfg"}, "~/cfg/mods/mods.yml"),
        ("linux", {"XDG_CONFIG_HOME": "relative/cfg"}, "~/.config/mods/mods.yml"),
    ],
)
def test_paths(platform: str, environ: dict, expected: str, home) -> None:
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(mods.config_path(env)) == expected.replace("~", str(home))


def test_malformed_config_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(gwconf, home, "mods", CONFIG, "apis:\n  openai: {base-url: x\n")


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "mods")
