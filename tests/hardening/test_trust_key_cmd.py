"""Issue 18 item 4: a key command's output is its first line only, and odd output is refused.

``pass show gw/key`` prints the password, then whatever else the entry holds (``user:``, ``url:``
lines). ``pass`` and ``op read`` put the secret on the first line; gwconf takes that line, strips
its line ending, and refuses empty output or a first line holding whitespace or control
characters, naming the command and never showing what it printed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.gateway_server import VALID_KEY

OTHER_SECRET = "hunter2-other-secret-0000"


def fake_pass(folder: Path, printed: str) -> str:
    """A stand-in ``pass`` that prints ``printed`` exactly (a multi-line entry, say)."""
    script = folder / "pass"
    data = folder / "entry.txt"
    data.write_text(printed)
    script.write_text(f"#!/bin/sh\ncat '{data}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{script} show gw/key"


def every_file(home: Path) -> dict[Path, str]:
    found = {}
    for root, _dirs, files in os.walk(home):
        for name in files:
            path = Path(root) / name
            try:
                found[path] = path.read_text(errors="replace")
            except OSError:
                continue
    return found


def test_multi_line_pass_entry_writes_only_the_password(home: Path, tmp_path: Path, gateway) -> None:
    cmd = fake_pass(
        tmp_path, f"{VALID_KEY}\nuser: me@example.com\nurl: https://gw.example.com\nnote: {OTHER_SECRET}\n"
    )
    added = invoke(
        "profile",
        "add",
        "gw",
        "--base-url",
        gateway.base_url,
        "--model",
        "my-model",
        "--key-cmd",
        cmd,
        "--use",
    )
    assert added.exit_code == 0, added
    (home / ".bashrc").write_text("# mine\n")
    applied = invoke("apply", "codex", "claude-code", "aider", "shell")
    assert applied.exit_code == 0, applied
    files = every_file(home)
    holding_key = [p for p, text in files.items() if VALID_KEY in text]
    assert holding_key, "the key was written nowhere"
    for path, text in files.items():
        assert OTHER_SECRET not in text and "user: me@example.com" not in text, path
    checked = invoke("verify", "codex", "--json")
    assert checked.exit_code == 0, checked
    assert all(r.key == VALID_KEY for r in gateway.requests)


@pytest.mark.parametrize(
    ("printed", "why"),
    [
        ("", "printed nothing"),
        ("\n\nsk-after-a-blank-line-0000\n", "first line"),
        ("sk-with a-space-0123456789\n", "whitespace"),
        ("sk-tab\there-0123456789\n", "whitespace"),
        ("sk-bell\x07-0123456789abc\n", "control"),
        ("  sk-leading-blank-0123456789\n", "whitespace"),
    ],
)
def test_odd_key_command_output_is_refused_without_showing_it(
    home: Path, tmp_path: Path, printed: str, why: str
) -> None:
    cmd = fake_pass(tmp_path, printed)
    assert (
        invoke(
            "profile", "add", "gw", "--base-url", "https://gw.example.com/v1", "--key-cmd", cmd, "--use"
        ).exit_code
        == 0
    )
    result = invoke("apply", "shell")
    assert result.exit_code != 0, result
    assert cmd in result.stderr, result  # the error names the command
    assert why in result.stderr, result
    for piece in ("after-a-blank", "a-space", "here-0123", "bell", "leading-blank"):
        assert piece not in result.output, result
    assert not (home / ".bashrc").exists() or "GWCONF" not in (home / ".bashrc").read_text()


def test_key_without_trailing_newline_is_taken_whole(home: Path, tmp_path: Path) -> None:
    cmd = fake_pass(tmp_path, VALID_KEY)  # `op read -n` prints no line ending
    assert (
        invoke(
            "profile", "add", "gw", "--base-url", "https://gw.example.com/v1", "--key-cmd", cmd, "--use"
        ).exit_code
        == 0
    )
    shown = invoke("profile", "show", "gw", "--show-key")
    assert shown.exit_code == 0, shown
    assert VALID_KEY in shown.stdout
