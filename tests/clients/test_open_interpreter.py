"""Open Interpreter: profiles/default.yaml in platformdirs' config folder."""

from __future__ import annotations

import pytest

from gwconf.clients import open_interpreter
from gwconf.paths import Env
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)

PROFILE = ".config/open-interpreter/profiles/default.yaml"


@pytest.mark.parametrize("case", ["default-profile", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("open-interpreter", case, gwconf, home)


def test_status(gwconf, home, profile) -> None:
    assert gwconf("apply", "open-interpreter").exit_code == 0
    assert_status_reads_profile(gwconf, "open-interpreter")


def test_a_new_profile_gets_the_version_that_avoids_the_migration_prompt(gwconf, home, profile) -> None:
    assert gwconf("apply", "open-interpreter").exit_code == 0
    assert "version: 0.2.5\n" in (home / PROFILE).read_text()
    assert not has_finding(reading("open-interpreter").findings, "warning", "migrating")


def test_an_old_version_is_reported_not_changed(gwconf, home, profile) -> None:
    (home / PROFILE).parent.mkdir(parents=True)
    (home / PROFILE).write_text("llm:\n  model: gpt-4\nversion: 0.2.1\n")
    assert gwconf("apply", "open-interpreter").exit_code == 0
    assert "version: 0.2.1\n" in (home / PROFILE).read_text()
    assert has_finding(reading("open-interpreter").findings, "warning", "migrating")


def test_missing_prefix_is_an_error(home) -> None:
    (home / PROFILE).parent.mkdir(parents=True)
    (home / PROFILE).write_text(
        "llm:\n  model: my-model\n  api_base: https://gw.example.com/v1\nversion: 0.2.5\n"
    )
    assert has_finding(reading("open-interpreter").findings, "error", "no openai/ prefix")


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "~/.config/open-interpreter/profiles/default.yaml"),
        ("darwin", {}, "~/Library/Application Support/open-interpreter/profiles/default.yaml"),
        (
            "win32",
            {"LOCALAPPDATA": "/w/Local"},
            "/w/Local/open-interpreter/open-interpreter/profiles/default.yaml",
        ),
    ],
)
def test_paths(platform: str, environ: dict, expected: str, home) -> None:
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(open_interpreter.files(env)[0].path) == expected.replace("~", str(home))


def test_malformed_profile_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(gwconf, home, "open-interpreter", PROFILE, "llm:\n  model: 'gpt-4o\n")


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "open-interpreter")
