"""shell-gpt: ~/.config/shell_gpt/.sgptrc, read the way sgpt itself reads it."""

from __future__ import annotations

import stat

import pytest

from gwconf.clients import shell_gpt
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)
from tests.conftest import TEST_KEY

RC = ".config/shell_gpt/.sgptrc"


@pytest.mark.parametrize("case", ["sgpt-written", "hand-edited", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("shell-gpt", case, gwconf, home)


def test_written_values_read_back_as_sgpt_reads_them(gwconf, home, profile) -> None:
    (home / ".config/shell_gpt").mkdir(parents=True)
    (home / RC).write_text('# mine\nOPENAI_API_KEY="sk-old-quoted-0000" # old\nAPI_BASE_URL=default\n')
    result = gwconf("apply", "shell-gpt")
    assert result.exit_code == 0, result
    assert "rewrote OPENAI_API_KEY without quotes" in result.stdout
    view = shell_gpt.sgpt_view((home / RC).read_text())
    assert view["OPENAI_API_KEY"] == TEST_KEY
    assert view["API_BASE_URL"] == "https://gw.example.com/v1"
    assert view["DEFAULT_MODEL"] == "my-model"
    assert "sgpt rewrites .sgptrc on its next run" in result.stdout
    assert_status_reads_profile(gwconf, "shell-gpt")
    assert stat.S_IMODE((home / RC).stat().st_mode) == 0o600


def test_a_quoted_value_is_written_bare_in_its_place_and_its_quotes_come_back(gwconf, home, profile) -> None:
    """Found over real dotfiles: a quoted DEFAULT_MODEL was taken out and written again at the end
    of the file, so a key-by-key restore (the user had edited the file) left it there."""
    (home / ".config/shell_gpt").mkdir(parents=True)
    original = 'DEFAULT_MODEL="gpt-4o"\nREQUEST_TIMEOUT=60\nAPI_BASE_URL=default\n'
    (home / RC).write_text(original)
    result = gwconf("apply", "shell-gpt")
    assert result.exit_code == 0, result
    assert "rewrote DEFAULT_MODEL without quotes" in result.stdout
    assert (home / RC).read_text().startswith("DEFAULT_MODEL=my-model\nREQUEST_TIMEOUT=60\n")
    (home / RC).write_text((home / RC).read_text() + "# mine\n")
    assert gwconf("restore", "shell-gpt").exit_code == 0
    assert (home / RC).read_text() == original + "# mine\n"


def test_environment_wins_over_the_file(gwconf, home, profile) -> None:
    assert gwconf("apply", "shell-gpt").exit_code == 0
    seen = reading("shell-gpt", OPENAI_API_KEY="sk-shell-key-1111", DEFAULT_MODEL="gpt-4o")
    assert seen.api_key == "sk-shell-key-1111" and seen.model == "gpt-4o"
    assert has_finding(seen.findings, "warning", "$OPENAI_API_KEY", "prefers it")


def test_default_base_falls_back_to_the_sdk(home) -> None:
    (home / ".config/shell_gpt").mkdir(parents=True)
    (home / RC).write_text(f"OPENAI_API_KEY={TEST_KEY}\nAPI_BASE_URL=default\nUSE_LITELLM=true\n")
    seen = reading("shell-gpt")
    assert seen.base_url == "https://api.openai.com/v1"
    assert has_finding(seen.findings, "error", "sgpt calls OpenAI")
    assert has_finding(seen.findings, "error", "USE_LITELLM=true")
    via_env = reading("shell-gpt", OPENAI_BASE_URL="https://gw.example.com/v1")
    assert via_env.base_url == "https://gw.example.com/v1"


def test_malformed_file_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(
        gwconf, home, "shell-gpt", RC, "OPENAI_API_KEY=sk-1\nthis line has no equals sign\n"
    )


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "shell-gpt")
