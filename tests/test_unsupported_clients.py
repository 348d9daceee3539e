"""Clients that cannot be supported: their id prints why (the README's line), not "unknown client"."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwconf import registry

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("client_id", sorted(registry.UNSUPPORTED))
def test_the_readme_says_why(client_id: str) -> None:
    assert f"- `{client_id}`: {registry.UNSUPPORTED[client_id]}" in README


@pytest.mark.parametrize("command", ["apply", "run", "verify", "doctor", "status", "restore"])
@pytest.mark.parametrize("client_id", ["qoder", "qodercli", "auggie", "amp"])
def test_typing_the_id_prints_the_reason(command: str, client_id: str, gwconf, profile) -> None:
    result = gwconf(command, client_id)
    assert result.exit_code == 2, result
    assert registry.unsupported(client_id) in result.output
    assert "unknown client" not in result.output


def test_no_unsupported_id_is_a_supported_one() -> None:
    assert not set(registry.UNSUPPORTED) & set(registry.MODULES)
    assert set(registry.UNSUPPORTED_ALIASES.values()) <= set(registry.UNSUPPORTED)
