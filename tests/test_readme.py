"""The README documents what the code does: every client, the two commands, the exit codes, and a
Quick start that runs as written (issue 19). It is also the package's long description, so it
stays short and its links work off the repository."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.errors import ExitCode

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    return README.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_every_client_is_in_the_clients_table() -> None:
    listed = re.findall(r"^\| `([a-z0-9-]+)` \|", section("Supported clients"), re.MULTILINE)
    assert listed == list(registry.IDS)


def test_the_two_commands() -> None:
    text = section("The two commands")
    assert "gwconf apply --all-supported --dry-run --profile profiles/example.toml" in text
    assert "bash scripts/test" in text
    ci = (REPO / ".ci" / "run").read_text()
    assert "scripts/test" in ci


def test_every_exit_code_is_documented() -> None:
    text = section("Exit codes")
    for name, code in ExitCode.all().items():
        assert re.search(rf"^\| {code} ", text, re.MULTILINE), name


def test_the_readme_fits_and_its_links_work_off_the_repository() -> None:
    assert len(README.splitlines()) <= 250
    targets = re.findall(r"\]\(([^)]+)\)", README)
    assert all(t.startswith("https://") for t in targets), targets
    for name in re.findall(r"`(docs/[a-z-]+\.md)`", README):
        assert (REPO / name).is_file(), name
    assert (REPO / "LICENSE").read_text().startswith("MIT License")


def quick_start() -> list[str]:
    block = section("Quick start").split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("installed", [False, True], ids=["fresh-home", "codex-installed"])
def test_the_quick_start_runs_top_to_bottom(gwconf, home, gateway, monkeypatch, tmp_path, installed) -> None:
    from tests.gateway_server import VALID_KEY

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))  # nothing installed but what the test puts there
    if installed:
        (home / ".codex").mkdir()
    lines = quick_start()
    assert lines[0].startswith("export GW_KEY=") and len(lines) >= 8
    for line in lines:
        line = line.replace("https://gw.example.com/v1", gateway.base_url).replace(
            "sk-your-gateway-key", VALID_KEY
        )
        if line.startswith("export "):
            name, value = line[len("export ") :].split("=", 1)
            monkeypatch.setenv(name, value)
            continue
        args = shlex.split(line)
        assert args[0] == "gwconf"
        result = gwconf(*args[1:])
        assert result.exit_code == 0, (line, result)
        if args[1:] == ["models"]:
            assert "my-model" in result.stdout
        if args[1:] == ["apply", "--all"] and installed:
            assert "updated ~/.codex/config.toml" in result.stdout or "created ~/.codex" in result.stdout
        if args[1:] == ["verify"]:
            assert "verdict  ok" in result.stdout
    paths = {r.path for r in gateway.requests}
    assert ("/v1/responses" in paths) is installed
    assert not (home / ".codex" / "config.toml").exists(), "restore --all put everything back"
