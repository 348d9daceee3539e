"""Cherry Studio: nothing written; apply shows the link route (the link itself: tests/test_links.py)."""

from __future__ import annotations

import json

from tests.clients._apps import files_under
from tests.conftest import TEST_KEY


def test_apply_prints_the_link_route_and_writes_nothing(gwconf, home, profile) -> None:
    (home / ".config/CherryStudio").mkdir(parents=True)
    result = gwconf("apply", "cherry-studio")
    assert result.exit_code == 0, result
    assert "gwconf link cherry-studio --open" in result.stdout
    assert "https://gw.example.com/v1/" in result.stdout and "sk-…WXYZ" in result.stdout
    assert TEST_KEY not in result.output
    assert files_under(home) == []
    assert TEST_KEY in gwconf("apply", "cherry-studio", "--show-key").stdout


def test_listed_as_tier_2_and_detected_by_its_data_folder(gwconf, home, profile) -> None:
    rows = {r["id"]: r for r in json.loads(gwconf("clients", "--json").stdout)["clients"]}
    assert rows["cherry-studio"]["tier"] == 2 and not rows["cherry-studio"]["detected"]
    (home / ".config/CherryStudio").mkdir(parents=True)
    rows = {r["id"]: r for r in json.loads(gwconf("clients", "--json").stdout)["clients"]}
    assert rows["cherry-studio"]["detected"] and rows["cherry-studio"]["files"] == []
