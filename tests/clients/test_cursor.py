"""Cursor (tier 3): printed steps only."""

from __future__ import annotations

from tests.clients._apps import check_steps
from tests.conftest import TEST_KEY


def test_steps(gwconf, home, profile) -> None:
    out = check_steps(
        gwconf, home, "cursor", "Override OpenAI Base URL", "https://gw.example.com/v1", "my-model"
    )
    assert "'OpenAI Compatible'" in out and "Warning" not in out


def test_a_local_gateway_is_flagged_first(gwconf, home) -> None:
    gwconf("profile", "add", "local", "--base-url", "http://127.0.0.1:8080", "--key", TEST_KEY, "--use")
    out = gwconf("apply", "cursor").stdout
    assert "  1. Warning: Cursor sends requests from its own servers" in out and "not https" in out
