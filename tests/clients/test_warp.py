"""Warp (tier 3): printed steps only."""

from __future__ import annotations

import pytest

from tests.clients._apps import check_steps
from tests.conftest import TEST_KEY


def test_steps(gwconf, home, profile) -> None:
    out = check_steps(gwconf, home, "warp", "'OpenAI Chat Completions'", "OpenAI Compatible", "my-model")
    assert "Warning" not in out


@pytest.mark.parametrize(
    ("base", "why"),
    [("https://10.0.0.5/v1", "private address"), ("https://gateway.lan/v1", "local name")],
)
def test_unreachable_gateways_are_flagged(base: str, why: str, gwconf, home) -> None:
    gwconf("profile", "add", "p", "--base-url", base, "--key", TEST_KEY, "--use")
    out = gwconf("apply", "warp").stdout
    assert "1. Warning: Warp" in out and why in out
