"""fabric: ~/.config/fabric/.env through its LiteLLM (OpenAI-compatible chat) vendor."""

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

ENV_FILE = ".config/fabric/.env"


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("fabric", case, gwconf, home)


def test_status_and_private_file(gwconf, home, profile) -> None:
    result = gwconf("apply", "fabric")
    assert result.exit_code == 0
    assert_status_reads_profile(gwconf, "fabric")
    assert stat.S_IMODE((home / ENV_FILE).stat().st_mode) == 0o600


def test_users_openai_vendor_is_kept(gwconf, home, profile) -> None:
    (home / ENV_FILE).parent.mkdir(parents=True)
    (home / ENV_FILE).write_text("DEFAULT_VENDOR=OpenAI\nOPENAI_API_KEY=sk-proj-mine-0000\n")
    result = gwconf("apply", "fabric")
    assert "default vendor OpenAI -> LiteLLM" in result.stdout
    assert "OPENAI_API_KEY=sk-proj-mine-0000\n" in (home / ENV_FILE).read_text()


def test_openai_vendor_is_read_as_responses(home) -> None:
    (home / ENV_FILE).parent.mkdir(parents=True)
    (home / ENV_FILE).write_text("DEFAULT_VENDOR=OpenAI\nDEFAULT_MODEL=gpt-4o\nOPENAI_API_KEY=sk-1\n")
    seen = reading("fabric")
    assert (seen.wire, seen.base_url) == ("responses", "https://api.openai.com/v1")
    assert has_finding(seen.findings, "error", "Responses API")
    # fabric v1.4.261's disableResponsesAPI (config.yaml) keeps the vendor on Chat Completions
    (home / ENV_FILE).with_name("config.yaml").write_text("# mine\ndisableResponsesAPI: true\n")
    seen = reading("fabric")
    assert seen.wire == "chat" and not has_finding(seen.findings, "error", "Responses API")


def test_exported_variables_win(gwconf, home, profile) -> None:
    assert gwconf("apply", "fabric").exit_code == 0
    (home / ".config/fabric/config.yaml").write_text("model: gpt-4o\npattern: summarize\n")
    seen = reading("fabric", DEFAULT_MODEL="other")
    assert seen.model == "other"
    assert has_finding(seen.findings, "warning", "$DEFAULT_MODEL")
    assert has_finding(seen.findings, "warning", "model: gpt-4o", "wins over DEFAULT_MODEL")


def test_malformed_env_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(
        gwconf, home, "fabric", ENV_FILE, "DEFAULT_VENDOR=OpenAI\nOPENAI_API_KEY='unclosed\n"
    )


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "fabric")
