"""llm: extra-openai-models.yaml + keys.json + default_model.txt in llm's user folder."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from gwconf.clients import llm
from gwconf.paths import Env
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)
from tests.conftest import TEST_KEY

USER_DIR = Path(".config") / "io.datasette.llm"


@pytest.mark.parametrize("case", ["user-config", "fresh-home"])
def test_fixture(case: str, gwconf, home, profile) -> None:
    check_case("llm", case, gwconf, home)


def test_status_and_key_file(gwconf, home, profile) -> None:
    assert gwconf("apply", "llm").exit_code == 0
    assert_status_reads_profile(gwconf, "llm")
    keys = home / USER_DIR / "keys.json"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert json.loads(keys.read_text())["gwconf"] == TEST_KEY


def test_a_new_model_updates_gwconfs_entry_in_place(gwconf, home, profile) -> None:
    assert gwconf("apply", "llm").exit_code == 0
    assert gwconf("apply", "llm", "--model", "other-model").exit_code == 0
    text = (home / USER_DIR / "extra-openai-models.yaml").read_text()
    assert text.count("api_key_name: gwconf") == 1
    assert "model_id: other-model" in text and "my-model" not in text
    assert (home / USER_DIR / "default_model.txt").read_text() == "other-model\n"


def test_llm_user_path_moves_everything(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("LLM_USER_PATH", str(home / "llm-data"))
    assert gwconf("apply", "llm").exit_code == 0
    assert sorted(p.name for p in (home / "llm-data").iterdir()) == [
        "default_model.txt",
        "extra-openai-models.yaml",
        "keys.json",
    ]
    assert not (home / ".config").exists()


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {}, "~/.config/io.datasette.llm"),
        ("linux", {"XDG_CONFIG_HOME": "/x/cfg"}, "/x/cfg/io.datasette.llm"),
        ("darwin", {}, "~/Library/Application Support/io.datasette.llm"),
        ("win32", {"APPDATA": "/w/Roaming"}, "/w/Roaming/io.datasette.llm"),
        ("win32", {}, "~/io.datasette.llm"),  # click.get_app_dir without %APPDATA%
        ("darwin", {"LLM_USER_PATH": "/data/llm"}, "/data/llm"),
    ],
)
def test_user_dir_per_platform(platform: str, environ: dict, expected: str, home) -> None:
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(llm.user_dir(env)) == expected.replace("~", str(home))


def test_malformed_models_file_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(
        gwconf, home, "llm", str(USER_DIR / "extra-openai-models.yaml"), "- model_id: [x\n"
    )


def test_malformed_keys_file_is_refused(gwconf, home, profile) -> None:
    assert_refuses_malformed(gwconf, home, "llm", str(USER_DIR / "keys.json"), '{"openai": "sk-1",\n}\n')


def test_a_mapping_instead_of_a_list_is_refused(gwconf, home, profile) -> None:
    path = home / USER_DIR / "extra-openai-models.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("model_id: x\n")
    result = gwconf("apply", "llm")
    assert result.exit_code == 1 and "not a YAML list" in result.output
    assert path.read_text() == "model_id: x\n"


def test_needs_a_model(gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, "llm")


def test_read_follows_llm(gwconf, home, profile) -> None:
    assert gwconf("apply", "llm").exit_code == 0
    chosen = reading("llm", LLM_MODEL="ollama-llama3")
    assert chosen.model == "ollama-llama3" and chosen.provider_is_gwconf is False
    assert has_finding(chosen.findings, "warning", "$LLM_MODEL")
    builtin = reading("llm", LLM_MODEL="gpt-4o", OPENAI_BASE_URL="https://elsewhere.example/v1")
    assert builtin.base_url == "https://elsewhere.example/v1"
    assert has_finding(builtin.findings, "error", "llm calls OpenAI")


def test_missing_api_key_name_means_dummy_key(home) -> None:
    folder = home / USER_DIR
    folder.mkdir(parents=True)
    (folder / "extra-openai-models.yaml").write_text(
        "- model_id: m\n  model_name: m\n  api_base: https://gw.example.com/v1\n"
    )
    (folder / "default_model.txt").write_text("m\n")
    seen = reading("llm", OPENAI_API_KEY=TEST_KEY)
    assert seen.api_key == "DUMMY_KEY"
    assert has_finding(seen.findings, "error", "DUMMY_KEY")
