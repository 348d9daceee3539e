"""Checks every terminal client's tests share: status read-back, refusal of broken files, the model rule.

Each goes through the real CLI (or, for findings, the real ``read`` path) in the hermetic HOME.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gwconf import operations, registry
from gwconf.clients._base import Finding, Reading
from gwconf.paths import Env
from tests.conftest import TEST_KEY


def status_of(gwconf, client_id: str) -> dict:
    result = gwconf("status", client_id, "--json")
    assert result.exit_code == 0, result
    assert TEST_KEY not in result.output
    return json.loads(result.stdout)["clients"][0]


def assert_status_reads_profile(gwconf, client_id: str, model: str | None = "my-model") -> dict:
    """After apply: status shows the profile's base address, the masked key and the model."""
    status = status_of(gwconf, client_id)
    assert status["base_url"] == "https://gw.example.com/v1"
    assert status["key"] == "sk-…WXYZ"
    assert status["model"] == model
    assert status["profile"] == "work"
    assert status["provider_is_gwconf"] is True
    return status


def assert_refuses_malformed(gwconf, home: Path, client_id: str, relpath: str, text: str) -> str:
    """A file that does not parse: exit 1, ``path:line:col`` named, the file left byte for byte."""
    path = home / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = path.read_bytes(), path.stat().st_mtime_ns
    result = gwconf("apply", client_id)
    assert result.exit_code == 1, result
    name = re.escape(Path(relpath).name)
    assert re.search(rf"{name}:\d+:\d+", result.output), result.output
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    return result.output


def assert_needs_model(gwconf, home: Path, client_id: str) -> None:
    """A profile without a model: refused with the fix, nothing written."""
    added = gwconf(
        "profile",
        "add",
        "bare",
        "--base-url",
        "https://gw.example.com/v1",
        "--key-stdin",
        input=TEST_KEY + "\n",
    )
    assert added.exit_code == 0, added
    before = sorted(p for p in home.rglob("*") if p.is_file())
    result = gwconf("apply", client_id, "-p", "bare")
    assert result.exit_code == 1, result
    assert "--model" in result.output
    assert sorted(p for p in home.rglob("*") if p.is_file()) == before


def reading(client_id: str, **environ: str) -> Reading:
    """What ``client.read`` reports in this HOME, with extra environment variables."""
    env = Env.current()
    env = Env(home=env.home, platform=env.platform, environ={**env.environ, **environ}, cwd=env.cwd)
    return operations.read_client(registry.get(client_id), env)


def has_finding(found: list[Finding], level: str, *words: str) -> bool:
    return any(f.level == level and all(w in f.message for w in words) for f in found)
