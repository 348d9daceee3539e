"""LibreChat: librechat.yaml custom endpoint + .env key, in the folder gwconf is pointed at."""

from __future__ import annotations

import json

import yaml

from tests.clients._apps import files_under
from tests.clients._harness import check_case
from tests.conftest import TEST_KEY


def test_fixture_via_librechat_dir(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("LIBRECHAT_DIR", str(home / "LibreChat"))
    check_case("librechat", "user-config", gwconf, home)


def test_fixture_via_current_folder_with_only_the_example(gwconf, home, profile, monkeypatch) -> None:
    (home / "LibreChat").mkdir()
    monkeypatch.chdir(home / "LibreChat")
    check_case("librechat", "example-only", gwconf, home)


def test_endpoint_and_key(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("LIBRECHAT_DIR", str(home / "LibreChat"))
    check_case("librechat", "user-config", gwconf, home)
    assert gwconf("apply", "librechat").exit_code == 0
    config = yaml.safe_load((home / "LibreChat/librechat.yaml").read_text())
    assert config["version"] == "1.2.8", "the installation's version is kept"
    groq, ours = config["endpoints"]["custom"]
    assert groq["name"] == "groq"
    assert ours["baseURL"] == "https://gw.example.com/v1" and ours["apiKey"] == "${GWCONF_API_KEY}"
    assert ours["models"]["default"] == ["my-model"]
    assert TEST_KEY not in (home / "LibreChat/librechat.yaml").read_text()
    assert f"GWCONF_API_KEY={TEST_KEY}" in (home / "LibreChat/.env").read_text()
    status = json.loads(gwconf("status", "librechat", "--json").stdout)["clients"][0]
    assert status["profile"] == "work" and status["key"] == "sk-…WXYZ"


def test_refuses_without_a_folder(gwconf, home, profile) -> None:
    result = gwconf("apply", "librechat")
    assert result.exit_code == 1
    assert "LIBRECHAT_DIR" in result.stderr and "librechat.yaml" in result.stderr
    assert files_under(home) == []


def test_config_path_in_env_is_reported(gwconf, home, profile, monkeypatch) -> None:
    folder = home / "lc"
    folder.mkdir()
    (folder / "librechat.yaml").write_text("version: 1.3.17\n")
    (folder / ".env").write_text("CONFIG_PATH=/srv/other.yaml\n")
    monkeypatch.setenv("LIBRECHAT_DIR", str(folder))
    result = gwconf("apply", "librechat")
    assert result.exit_code == 0 and "CONFIG_PATH=/srv/other.yaml" in result.stdout


def test_malformed_yaml_is_refused(gwconf, home, profile, monkeypatch) -> None:
    folder = home / "lc"
    folder.mkdir()
    (folder / "librechat.yaml").write_text("version: 1.3.17\nendpoints:\n  custom: [\n")
    monkeypatch.setenv("LIBRECHAT_DIR", str(folder))
    result = gwconf("apply", "librechat")
    assert result.exit_code == 1 and "lc/librechat.yaml:" in result.stderr, result
    assert not (folder / ".env").exists()
