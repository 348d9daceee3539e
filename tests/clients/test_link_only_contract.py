"""A link-only client (Cherry Studio) passes the contract by writing nothing and naming its link.

The editor and app clients that need a precondition (a server folder, Chatbox's own config.json,
Zed's key variable) run the full contract in tests/test_contract.py, through its PRECONDITIONS.
"""

from __future__ import annotations

import json
from pathlib import Path

from gwconf import registry
from gwconf.paths import Env
from tests.conftest import TEST_KEY


def test_link_only_client_prints_steps_and_writes_nothing(gwconf, home: Path, profile) -> None:
    assert registry.get("cherry-studio").files(Env.current()) == []
    result = gwconf("apply", "cherry-studio", "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)["clients"][0]
    assert not data["changed"] and data["steps"] and "gwconf link cherry-studio" in data["steps"][0]
    assert TEST_KEY not in result.output
    assert [p for p in home.rglob("*") if p.is_file()] == []
