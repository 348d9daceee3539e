"""The contract test (tests/test_contract.py) for the editor/app clients that need a precondition.

On an empty home these clients rightly refuse or write nothing: a server client needs its folder
(``LIBRECHAT_DIR``...), Chatbox needs the config.json it makes on first start, Zed reads the key
from ``$GWCONF_API_KEY``, and Cherry Studio is link-only. Given that precondition, each must pass
the same checks: apply, read back the profile, apply twice changes nothing, restore leaves exactly
what was there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.paths import Env
from gwconf.profiles import ProfileStore
from tests.conftest import TEST_KEY

FOLDERS = {"anythingllm": "ANYTHINGLLM_DIR", "librechat": "LIBRECHAT_DIR", "lobechat": "LOBECHAT_DIR"}
FOLDERS["open-webui"] = "OPEN_WEBUI_DIR"
CHATBOX = ".config/xyz.chatboxapp.app/config.json"


def _setup(client_id: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Prepare what the client needs; returns the files that were there before (path -> bytes)."""
    if client_id in FOLDERS:
        (home / "srv").mkdir()
        monkeypatch.setenv(FOLDERS[client_id], str(home / "srv"))
        return {}
    if client_id == "zed":
        monkeypatch.setenv("GWCONF_API_KEY", TEST_KEY)
        return {}
    if client_id == "chatbox":
        (home / CHATBOX).parent.mkdir(parents=True)
        (home / CHATBOX).write_text('{\n\t"settings": {}\n}')
        return {CHATBOX: (home / CHATBOX).read_bytes()}
    raise AssertionError(client_id)


@pytest.mark.parametrize(
    "client_id", ["anythingllm", "chatbox", "librechat", "lobechat", "open-webui", "zed"]
)
def test_contract_with_precondition(client_id: str, gwconf, home: Path, profile, monkeypatch) -> None:
    before = _setup(client_id, home, monkeypatch)
    applied = gwconf("apply", client_id, "--json")
    assert applied.exit_code == 0, applied
    assert TEST_KEY not in applied.output
    result = json.loads(applied.stdout)["clients"][0]
    assert result["changed"] and result["restart"]

    status = json.loads(gwconf("status", client_id, "--json").stdout)["clients"][0]
    env = Env.current()
    target = registry.get(client_id).target(ProfileStore(env).load("work"), env)
    assert status["base_url"].rstrip("/") == target.base_url.rstrip("/")
    assert status["key"] == "sk-…WXYZ"
    if status["model"] is not None:
        assert target.model in status["model"]
    assert status["profile"] == "work" and status["changed_by_hand"] == []

    again = json.loads(gwconf("apply", client_id, "--json").stdout)["clients"][0]
    assert not again["changed"], "applying the same profile twice changes nothing"

    assert gwconf("restore", client_id).exit_code == 0
    left = {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert left == before, "restore leaves exactly what was there"


def test_link_only_client_prints_steps_and_writes_nothing(gwconf, home: Path, profile) -> None:
    assert registry.get("cherry-studio").files(Env.current()) == []
    result = gwconf("apply", "cherry-studio", "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)["clients"][0]
    assert not data["changed"] and data["steps"] and "gwconf link cherry-studio" in data["steps"][0]
    assert TEST_KEY not in result.output
    assert [p for p in home.rglob("*") if p.is_file()] == []
