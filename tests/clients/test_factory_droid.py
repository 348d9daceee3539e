"""Factory Droid: the gwconf custom model, its position-based id, the legacy file, and the hidden 401."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from tests.clients._env import clean_client_env  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY


def test_fixture(gwconf, home: Path, profile: str) -> None:
    check_case("factory-droid", "user-config", gwconf, home)


def settings(home: Path) -> Path:
    return home / ".factory" / "settings.json"


reading = partial(reading_of, "factory-droid")


def test_the_default_names_gwconfs_entry_by_position(gwconf, home: Path, profile: str) -> None:
    settings(home).parent.mkdir(parents=True)
    settings(home).write_text(json.dumps({"customModels": [{"model": "a", "displayName": "My  Local"}]}))
    assert gwconf("apply", "factory-droid").exit_code == 0
    data = json.loads(settings(home).read_text())
    assert data["customModels"][1]["displayName"] == "gwconf"
    assert data["sessionDefaultSettings"]["model"] == "custom:gwconf-1"
    result = reading()
    assert (result.base_url, result.api_key, result.model) == (
        "https://gw.example.com/v1",
        TEST_KEY,
        "my-model",
    )
    assert result.findings == []
    data["customModels"].pop(0)  # the user removes the entry before gwconf's: the id no longer matches
    settings(home).write_text(json.dumps(data))
    assert "names no entry of customModels" in messages(reading())


def test_factory_home_override_moves_the_folder(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("FACTORY_HOME_OVERRIDE", str(home / "other"))
    assert gwconf("apply", "factory-droid").exit_code == 0
    assert (home / "other" / ".factory" / "settings.json").is_file()


def test_the_legacy_file_counts_when_settings_has_no_custom_models(home: Path) -> None:
    folder = home / ".factory"
    folder.mkdir()
    (folder / "settings.json").write_text('{"sessionDefaultSettings": {"model": "custom:gw-0"}}')
    legacy = {"custom_models": [{"model": "m", "display_name": "gw", "base_url": "https://gw.example.com/v1",
                                 "api_key": TEST_KEY, "provider": "generic-chat-completion-api"}]}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(legacy))
    result = reading()
    assert result.base_url == "https://gw.example.com/v1" and result.api_key == TEST_KEY


def test_doctor_says_droid_hides_the_401(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "factory-droid").exit_code == 0
    entry = json.loads(gwconf("doctor", "factory-droid", "--json").stdout)["clients"][0]
    assert any("does not show a gateway's 401" in f["message"] for f in entry["findings"])
