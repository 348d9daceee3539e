"""The README documents what the code does: every client, the two commands, the exit codes."""

from __future__ import annotations

import re
from pathlib import Path

from gwconf import registry
from gwconf.errors import ExitCode

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_every_client_is_in_the_clients_table() -> None:
    section = README.split("## Supported clients", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.MULTILINE)
    assert listed == list(registry.IDS)


def test_the_two_commands() -> None:
    section = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    assert "gwconf apply --all --dry-run --profile profiles/example.toml" in section
    assert "bash scripts/test" in section
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "scripts/test" in ci


def test_every_exit_code_is_documented() -> None:
    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in ExitCode:
        assert re.search(rf"^\| {int(code)} ", section, re.MULTILINE), code
