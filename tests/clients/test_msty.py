"""Msty (tier 3): printed steps only."""

from __future__ import annotations

from tests.clients._apps import check_steps


def test_steps(gwconf, home, profile) -> None:
    check_steps(gwconf, home, "msty", "'OpenAI Compatible'", "https://gw.example.com/v1", "my-model")
