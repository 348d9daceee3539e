"""Witsy: settings.json engine; the key only when no other keys would be wiped; not while it runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clients._apps import running_app
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY

SETTINGS = Path(".config/Witsy/settings.json")


@pytest.mark.parametrize("case", ["user-settings", "stored-keys"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("witsy", case, gwconf, home)


def test_key_written_only_without_an_encrypted_key_store(gwconf, home, profile) -> None:
    assert gwconf("apply", "witsy").exit_code == 0
    engine = json.loads((home / SETTINGS).read_text())["engines"]["cgwconf"]
    assert engine["apiKey"] == TEST_KEY and engine["api"] == "openai"
    status = json.loads(gwconf("status", "witsy", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["provider"] == "cgwconf"


def test_stored_keys_are_never_put_at_risk(gwconf, home, profile) -> None:
    folder = home / SETTINGS.parent
    folder.mkdir(parents=True)
    (folder / "apiKeys.json").write_bytes(b"\x00encrypted")
    result = gwconf("apply", "witsy")
    assert result.exit_code == 0, result
    assert "apiKey" not in (home / SETTINGS).read_text()
    assert "paste it in Witsy" in result.stdout
    status = json.loads(gwconf("status", "witsy", "--json").stdout)["clients"][0]
    assert status["key"] is None and status["provider"] == "cgwconf"


def test_refused_while_witsy_runs_unless_forced(gwconf, home, profile, tmp_path) -> None:
    with running_app(tmp_path / "bin", "witsy") as pid:
        refused = gwconf("apply", "witsy")
        assert refused.exit_code == 1 and f"pid {pid}" in refused.stderr and "--force" in refused.stderr
        assert not (home / SETTINGS).exists()
        forced = gwconf("apply", "witsy", "--force")
        assert forced.exit_code == 0 and "--force" in forced.stdout
    assert (home / SETTINGS).exists()


def test_malformed_settings_are_refused(gwconf, home, profile) -> None:
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // comments are not JSON\n  "llm": {}\n}\n')
    result = gwconf("apply", "witsy")
    assert result.exit_code == 1 and "~/.config/Witsy/settings.json:2:3:" in result.stderr, result
    assert "// comments" in path.read_text()


def test_the_engine_model_list_witsy_saved_gets_the_model_too(gwconf, home, profile) -> None:
    """Witsy 3.6.0 moves an engine's models out of settings.json into engines/<id>.json on save
    and spreads that file over the engine on load: a new model must join that list."""
    assert gwconf("apply", "witsy").exit_code == 0
    saved = home / SETTINGS.parent / "engines" / "cgwconf.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps({"models": {"chat": [{"id": "my-model", "name": "my-model"}]}, "voices": []}))
    assert gwconf("apply", "witsy", "--model", "other-model").exit_code == 0
    assert [m["id"] for m in json.loads(saved.read_text())["models"]["chat"]] == ["my-model", "other-model"]
    saved.write_text(json.dumps({"models": {"chat": [{"id": "my-model", "name": "my-model"}]}}))
    assert "lists no model 'other-model'" in messages(reading_of("witsy"))
    assert gwconf("restore", "witsy").exit_code == 0


def test_witsy_home_moves_the_folder(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("WITSY_HOME", str(home / "witsy-data"))
    assert gwconf("apply", "witsy").exit_code == 0
    assert (home / "witsy-data" / "settings.json").is_file() and not (home / SETTINGS).exists()
