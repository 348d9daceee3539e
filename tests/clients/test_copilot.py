"""Copilot Chat BYOK: chatLanguageModels.json on VS Code Insiders; steps on Stable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.clients._apps import files_under
from tests.clients._harness import check_case
from tests.conftest import TEST_KEY

INSIDERS = Path(".config/Code - Insiders/User/chatLanguageModels.json")


def _strip_comments(text: str) -> str:
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


@pytest.mark.parametrize("case", ["insiders-groups", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("copilot", case, gwconf, home)


def test_existing_group_is_updated_not_duplicated(gwconf, home, profile) -> None:
    check_case("copilot", "insiders-groups", gwconf, home)
    assert gwconf("apply", "copilot").exit_code == 0
    text = (home / INSIDERS).read_text()
    assert "// my local models" in text
    groups = json.loads(_strip_comments(text))
    assert [g["vendor"] for g in groups] == ["ollama", "customendpoint"]
    ours = groups[1]
    assert ours["apiKey"] == TEST_KEY and ours["apiType"] == "chat-completions"
    assert [m["id"] for m in ours["models"]] == ["old-model", "my-model"]
    assert {m["url"] for m in ours["models"]} == {"https://gw.example.com/v1/chat/completions"}


def test_stable_only_prints_steps_and_writes_nothing(gwconf, home, profile) -> None:
    (home / ".config/Code/User/globalStorage").mkdir(parents=True)
    result = gwconf("apply", "copilot")
    assert result.exit_code == 0, result
    assert "Insiders" in result.stdout and "  1. " in result.stdout
    assert "https://gw.example.com/v1/chat/completions" in result.stdout
    assert "'Custom Endpoint'" in result.stdout and "sk-…WXYZ" in result.stdout
    assert TEST_KEY not in result.output
    assert [p.name for p in files_under(home)] == []
    assert TEST_KEY in gwconf("apply", "copilot", "--show-key").stdout


def test_status_reads_the_group(gwconf, home, profile) -> None:
    assert gwconf("apply", "copilot").exit_code == 0
    status = json.loads(gwconf("status", "copilot", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["model"] == "my-model"
    assert status["base_url"] == "https://gw.example.com/v1/chat/completions"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[\n  {"name": "x",\n   "vendor" "ollama"}\n]\n', "chatLanguageModels.json:3:13:"),
        ('{"name": "gwconf"}\n', "expected a JSON array"),
    ],
)
def test_bad_files_are_refused(text: str, needle: str, gwconf, home, profile) -> None:
    path = home / INSIDERS
    path.parent.mkdir(parents=True)
    path.write_text(text)
    result = gwconf("apply", "copilot")
    assert result.exit_code == 1 and needle in result.stderr, result
    assert path.read_text() == text
