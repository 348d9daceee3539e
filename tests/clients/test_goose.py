"""goose: config.yaml + custom_providers/custom_gwconf.json + secrets.yaml."""

from __future__ import annotations

import json
import stat

import pytest

from gwconf.clients import goose
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

FOLDER = ".config/goose"


@pytest.mark.parametrize("case", ["user-config", "keyring-disabled", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("goose", case, gwconf, home)


def test_status_and_files(gwconf, home, profile) -> None:
    result = gwconf("apply", "goose")
    assert result.exit_code == 0
    assert "GOOSE_DISABLE_KEYRING" in result.stdout  # the keyring caveat is said, not hidden
    assert_status_reads_profile(gwconf, "goose")
    provider = json.loads((home / FOLDER / "custom_providers" / "custom_gwconf.json").read_text())
    assert provider["api_key_env"] == "CUSTOM_GWCONF_API_KEY" and provider["engine"] == "openai"
    assert TEST_KEY not in (home / FOLDER / "config.yaml").read_text()
    assert stat.S_IMODE((home / FOLDER / "secrets.yaml").stat().st_mode) == 0o600


def test_no_keyring_note_when_it_is_disabled(gwconf, home, profile) -> None:
    (home / FOLDER).mkdir(parents=True)
    (home / FOLDER / "config.yaml").write_text("GOOSE_DISABLE_KEYRING: true\n")
    result = gwconf("apply", "goose")
    assert result.exit_code == 0 and "keyring" not in result.stdout
    assert not has_finding(reading("goose").findings, "info", "keyring")


def test_environment_wins(gwconf, home, profile) -> None:
    assert gwconf("apply", "goose").exit_code == 0
    seen = reading("goose", GOOSE_MODEL="other", CUSTOM_GWCONF_API_KEY="sk-from-env-9999")
    assert seen.model == "other" and seen.api_key == "sk-from-env-9999"
    assert has_finding(seen.findings, "warning", "$GOOSE_MODEL")


def test_builtin_openai_provider_is_read(home) -> None:
    (home / FOLDER).mkdir(parents=True)
    (home / FOLDER / "config.yaml").write_text(
        "GOOSE_PROVIDER: openai\nGOOSE_MODEL: m\nOPENAI_HOST: https://gw.example.com/v1\nOPENAI_API_KEY: sk-x\n"
    )
    seen = reading("goose", OPENAI_API_KEY=TEST_KEY)
    assert seen.api_key == TEST_KEY
    assert has_finding(seen.findings, "error", "OPENAI_HOST", "has a path")
    assert has_finding(seen.findings, "warning", "never reads secrets from config.yaml")


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "~/.config/goose"),
        ("darwin", {}, "~/.config/goose"),  # etcetera's XDG strategy on macOS too
        ("linux", {"XDG_CONFIG_HOME": "relative/cfg"}, "~/.config/goose"),  # only absolute XDG paths count
        ("win32", {"APPDATA": "/w/Roaming"}, "/w/Roaming/Block/goose/config"),
        ("win32", {"GOOSE_PATH_ROOT": "/srv/goose"}, "/srv/goose/config"),
    ],
)
def test_config_dir(platform: str, environ: dict, expected: str, home) -> None:
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(goose.config_dir(env)) == expected.replace("~", str(home))


def test_malformed_config_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(
        gwconf, home, "goose", f"{FOLDER}/config.yaml", "GOOSE_PROVIDER: openai\n  bad: [\n"
    )


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "goose")


MIGRATED = (
    "# goose wrote this\n"
    "active_provider: anthropic\n"
    "providers:\n"
    "  anthropic:\n"
    "    enabled: true\n"
    "    model: claude-sonnet-4-5\n"
    "    configured: true\n"
)


def test_a_config_goose_already_migrated(gwconf, home, profile) -> None:
    """goose since May 2026 (config/providers.rs) takes active_provider and providers.<id>.model
    before GOOSE_PROVIDER/GOOSE_MODEL, and drops those two on its next write once a providers
    block exists: gwconf sets the structured keys too, and keeps the user's entries."""
    path = home / FOLDER / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(MIGRATED + "GOOSE_PROVIDER: custom_gwconf\nGOOSE_MODEL: my-model\n")
    before = reading("goose")
    assert (before.provider, before.model) == ("anthropic", "claude-sonnet-4-5")  # the legacy keys lose
    assert gwconf("apply", "goose").exit_code == 0
    text = path.read_text()
    assert "active_provider: custom_gwconf" in text and "# goose wrote this" in text
    assert "model: claude-sonnet-4-5" in text  # the user's own provider entry stays
    after = reading("goose")
    assert (after.provider, after.model, after.provider_is_gwconf) == ("custom_gwconf", "my-model", True)
    overridden = reading("goose", ACTIVE_PROVIDER="anthropic")  # get_param reads the variable first
    assert overridden.provider == "anthropic"
    assert has_finding(overridden.findings, "warning", "$ACTIVE_PROVIDER is set in this shell")
    assert gwconf("restore", "goose").exit_code == 0
    assert path.read_text() == MIGRATED + "GOOSE_PROVIDER: custom_gwconf\nGOOSE_MODEL: my-model\n"


def test_a_stale_model_in_gwconfs_provider_entry_is_replaced(gwconf, home, profile) -> None:
    """Without active_provider goose takes GOOSE_PROVIDER, but then the providers entry's model
    before GOOSE_MODEL: one left there by an earlier profile is set too; a file with neither new
    key gets none."""
    path = home / FOLDER / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("GOOSE_PROVIDER: anthropic\nproviders:\n  custom_gwconf:\n    model: old-model\n")
    assert gwconf("apply", "goose").exit_code == 0
    assert "model: my-model" in path.read_text() and "active_provider" not in path.read_text()
    assert (reading("goose").provider, reading("goose").model) == ("custom_gwconf", "my-model")
