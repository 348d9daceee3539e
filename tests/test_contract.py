"""One contract every registered client passes (design.md section 8)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.clients._base import FAMILIES, WIRES
from gwconf.paths import Env
from tests.conftest import TEST_KEY

CLIENTS_DIR = Path(__file__).resolve().parents[1] / "src" / "gwconf" / "clients"


def test_every_client_module_is_registered() -> None:
    modules = {p.stem for p in CLIENTS_DIR.glob("*.py") if not p.stem.startswith("_")}
    assert modules == set(registry.MODULES.values())
    assert list(registry.IDS) == sorted(registry.IDS)


# Clients whose files name no model gwconf can read back, each with why (issue 16: declared, not skipped)
READS_NO_MODEL: dict[str, str] = {
    "open-webui": "its .env sets the connection only; the model is picked in its chat window",
    "oterm": "its config.json has no place for a model: it is chosen when a chat is created",
    "shell": "the exported OpenAI variables carry no model every program agrees on",
}


def test_reads_no_model_names_only_registered_clients() -> None:
    assert set(READS_NO_MODEL) <= set(registry.IDS)


@pytest.mark.parametrize("client_id", registry.IDS)
def test_module_declares_itself(client_id: str) -> None:
    client = registry.get(client_id)
    assert client.id == client_id
    assert client.family in FAMILIES and client.wire in WIRES
    assert client.tier in (1, 2, 3)
    assert len(client.restart) > 20, "a precise restart reminder"
    doc = client.module.__doc__ or ""
    assert re.search(r"\d+\.\d+|checked", doc), "the docstring names the version checked"
    assert "http" in doc or client.docs_url.startswith("http"), "the docstring or DOCS names the docs"


@pytest.mark.parametrize("client_id", registry.IDS)
@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_files_on_every_platform(client_id: str, platform: str, home: Path) -> None:
    env = Env(home=home, platform=platform, environ={"HOME": str(home)}, cwd=home)
    for file in registry.get(client_id).files(env):
        assert file.path.is_absolute()
        assert file.format in __import__("gwconf.formats", fromlist=["FORMATS"]).FORMATS


# What a client needs before it may write on an empty home (each module's docstring says why):
# server clients need their folder, Chatbox edits only a config.json it made itself, Zed reads
# the key from $GWCONF_API_KEY. Values: env vars ("{home}" expands) and files to create.
PRECONDITIONS: dict[str, dict[str, dict[str, str]]] = {
    "anythingllm": {"env": {"ANYTHINGLLM_DIR": "{home}/srv"}, "files": {"srv/.keep": ""}},
    "librechat": {"env": {"LIBRECHAT_DIR": "{home}/srv"}, "files": {"srv/.keep": ""}},
    "lobechat": {"env": {"LOBECHAT_DIR": "{home}/srv"}, "files": {"srv/.keep": ""}},
    "open-webui": {"env": {"OPEN_WEBUI_DIR": "{home}/srv"}, "files": {"srv/.keep": ""}},
    "zed": {"env": {"GWCONF_API_KEY": TEST_KEY}},
    "chatbox": {"files": {".config/xyz.chatboxapp.app/config.json": '{"settings": {}}'}},
}


def _writable(client_id: str) -> bool:
    """Tier 1-2 clients with files to write (a link-only client such as cherry-studio has none)."""
    client = registry.get(client_id)
    nowhere = Env(home=Path("/nonexistent"), platform="linux", environ={}, cwd=Path("/nonexistent"))
    return client.tier < 3 and (bool(client.files(nowhere)) or client_id in PRECONDITIONS)


@pytest.mark.parametrize("client_id", [c for c in registry.IDS if _writable(c)])
def test_apply_read_restore_on_empty_home(client_id: str, gwconf, home: Path, profile, monkeypatch) -> None:
    setup = PRECONDITIONS.get(client_id, {})
    for name, value in setup.get("env", {}).items():
        monkeypatch.setenv(name, value.format(home=home))
    for name, text in setup.get("files", {}).items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    applied = gwconf("apply", client_id, "--json")
    assert applied.exit_code == 0, applied
    assert TEST_KEY not in applied.output
    result = json.loads(applied.stdout)["clients"][0]
    assert result["changed"] and result["restart"]

    status = json.loads(gwconf("status", client_id, "--json").stdout)["clients"][0]
    client = registry.get(client_id)
    target = client.target(
        __import__("gwconf.profiles", fromlist=["x"]).ProfileStore(Env.current()).load("work"), Env.current()
    )
    assert status["base_url"].rstrip("/") == target.base_url.rstrip("/")
    assert status["key"] == "sk-…WXYZ"
    if client_id in READS_NO_MODEL:
        assert status["model"] is None, f"{client_id} now reads a model: drop it from READS_NO_MODEL"
    else:
        assert status["model"] is not None and target.model in status["model"]
    assert status["profile"] == "work"
    assert status["changed_by_hand"] == []

    again = json.loads(gwconf("apply", client_id, "--json").stdout)["clients"][0]
    assert not again["changed"], "applying the same profile twice changes nothing"

    assert gwconf("restore", client_id).exit_code == 0
    left = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert left == before, f"restore did not leave exactly what was there: {sorted(left)}"


@pytest.mark.parametrize("client_id", [c for c in registry.IDS if not _writable(c)])
def test_tier3_prints_steps_and_writes_nothing(client_id: str, gwconf, home: Path, profile) -> None:
    result = gwconf("apply", client_id)
    assert result.exit_code == 0, result
    assert "1. " in result.stdout and TEST_KEY not in result.output
    assert [p for p in home.rglob("*") if p.is_file()] == []


_COMMENT = {"toml": "# my note\n", "yaml": "# my note\n", "jsonc": "// my note\n", "dotenv": "# my note\n"}
_COMMENT.update({"shellrc": "# my note\n", "fish": "# my note\n", "powershell": "# my note\n"})


def _user_edits(path: Path, fmt: str) -> list[str]:
    """What a user does to a client file between gwconf's steps: a setting of their own and a
    comment at the end. Returns the texts that must survive."""
    from gwconf import formats

    text, bom = formats.decode(path.read_bytes(), str(path))
    survivors = []
    if fmt in ("json", "jsonc", "toml", "yaml"):
        doc = formats.load(fmt, text, str(path))
        if not isinstance(doc.data(), dict):
            return []
        doc.set(("my-own-setting",), "kept-by-gwconf")
        text = doc.dump()
        survivors.append("kept-by-gwconf")
    elif fmt == "dotenv":
        text += ("" if text.endswith("\n") or not text else "\n") + "MY_OWN_SETTING=kept-by-gwconf\n"
        survivors.append("MY_OWN_SETTING=kept-by-gwconf")
    comment = _COMMENT.get(fmt)
    if comment:
        text += ("" if text.endswith("\n") or not text else "\n") + comment
        survivors.append(comment.strip())
    path.write_bytes(formats.encode(text, bom))
    return survivors


@pytest.mark.parametrize("client_id", [c for c in registry.IDS if _writable(c)])
def test_user_edits_survive_reapply_and_restore(
    client_id: str, gwconf, home: Path, profile, monkeypatch
) -> None:
    """Issue 13, over every client: apply, the user edits each file, gwconf applies another model,
    restore. Every user edit stays; nothing of gwconf's (address, key, model) is left."""
    setup = PRECONDITIONS.get(client_id, {})
    for name, value in setup.get("env", {}).items():
        monkeypatch.setenv(name, value.format(home=home))
    for name, text in setup.get("files", {}).items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    assert gwconf("apply", client_id).exit_code == 0
    env = Env.current()
    survivors: dict[Path, list[str]] = {}
    for file in registry.get(client_id).files(env):
        if file.path.is_file():
            survivors[file.path] = _user_edits(file.path, file.format)
    result = gwconf("apply", client_id, "--model", "another-model")
    assert result.exit_code == 0, result
    result = gwconf("restore", client_id)
    assert result.exit_code == 0, result
    for path, texts in survivors.items():
        assert path.is_file() or not texts, f"{path}: removed with the user's edits in it"
        if not texts:
            continue
        content = path.read_text()
        for text in texts:
            assert text in content, f"{path}: the user's {text!r} was lost"
        for value in (TEST_KEY, "gw.example.com", "another-model"):
            assert value not in content, f"{path}: gwconf's {value!r} left behind after restore"
