"""Garbage in (issue 8): every kind of broken file, for every format, through the CLI.

Each case puts one broken file where a client keeps its configuration and runs ``gwconf apply``
(and ``gwconf status``): a clear error naming the file (and line, where there is one), exit 1, no
traceback, nothing written, nothing left behind in the folder, no backup taken.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import invoke

# format -> (client, file relative to HOME, a valid file of that client)
WHERE = {
    "json": (
        "claude-code",
        ".claude/settings.json",
        '{\n  "theme": "dark",\n  "env": {\n    "A": "1"\n  }\n}\n',
    ),
    "jsonc": (
        "gemini-cli",
        ".gemini/settings.json",
        # comments, no trailing comma: Gemini CLI reads JSON with comments only (5801e56)
        '// mine\n{\n  "theme": "dark", /* c */\n  "a": [1, 2]\n}\n',
    ),
    "json5": (
        "openclaw",
        ".openclaw/openclaw.json",
        "// mine\n{\n  theme: 'dark', /* c */\n  a: [1, 2,],\n}\n",
    ),
    "toml": ("codex", ".codex/config.toml", '# mine\nmodel = "x"\n\n[tui]\nnotifications = true\n'),
    "yaml": ("continue", ".continue/config.yaml", "# mine\nname: mine\nversion: 0.0.1\nmodels: []\n"),
    "dotenv": ("fabric", ".config/fabric/.env", "# mine\nDEFAULT_VENDOR=OpenAI\nexport A='b c'\n"),
    "shellrc": ("shell", ".bashrc", '# bashrc\nalias ll="ls -l"\n'),
    "text": ("llm", ".config/io.datasette.llm/default_model.txt", "gpt-4o\n"),
}
NEST = 10_000
NOISE = random.Random(8).randbytes(4096)

# (format, case name, bytes, line the error must name or None)
CASES: list[tuple[str, str, bytes, int | None]] = [
    ("json", "truncated", b'{\n  "theme": "dark",\n  "env": {\n    "A": "1"\n', 5),
    ("json", "truncated-string", b'{\n  "theme": "da', 2),
    ("json", "nested-arrays", b"[" * NEST + b"]" * NEST, 1),
    ("json", "nested-objects", b'{"a":' * NEST + b"1" + b"}" * NEST, 1),
    ("json", "control-character", b'{\n  "theme": "da\x00rk"\n}\n', 2),
    ("json", "comment-in-strict-json", b'{\n  // no\n  "theme": "dark"\n}\n', 2),
    ("jsonc", "unterminated-comment", b'{\n  "theme": "dark" /* never closed\n}\n', 2),
    ("jsonc", "truncated", b'// mine\n{\n  "a": [1, 2,\n', 4),
    ("jsonc", "nested-objects", b'{"a":' * NEST + b"1" + b"}" * NEST, 1),
    ("json5", "truncated", b"// mine\n{\n  a: [1, 2,\n", 4),
    ("json5", "unterminated-string", b"{\n  theme: 'dark\n}\n", 2),
    ("json5", "nested-objects", b"{a:" * NEST + b"1" + b"}" * NEST, 1),
    ("json5", "hex-number", b"{\n  port: 0x1F90,\n}\n", 2),
    ("toml", "truncated-header", b'model = "x"\n[model_providers\n', 2),
    ("toml", "truncated-string", b'model = "x\n', 1),
    ("toml", "duplicate-keys", b'model = "x"\nmodel = "y"\n', 2),
    ("toml", "duplicate-tables", b"[tui]\na = 1\n[tui]\nb = 2\n", 3),
    ("toml", "nested-arrays", b"a = " + b"[" * NEST + b"]" * NEST + b"\n", None),
    ("toml", "nested-inline-tables", b"a = " + b"{b = " * NEST + b"1" + b"}" * NEST + b"\n", None),
    ("toml", "control-character", b'model = "x\x01y"\n', 1),
    ("yaml", "truncated-string", b'name: mine\nversion: "0.0.1\n', 3),  # the end of the stream
    ("yaml", "bad-indentation", b"models:\n  - name: a\n   provider: b\n", 3),
    ("yaml", "duplicate-keys", b"name: mine\nversion: 1\nname: other\n", 3),
    ("yaml", "nested-flow", b"a: " + b"[" * NEST + b"]" * NEST + b"\n", 1),
    ("yaml", "nested-block-sequences", b"- " * NEST + b"x\n", 1),
    ("yaml", "tab-indentation", b"models:\n\t- name: a\n", 2),
    ("dotenv", "unterminated-quote", b"# mine\nOPENAI_API_KEY='sk-abc\nB=1\n", 2),
    ("dotenv", "not-an-assignment", b"# mine\nthis is not a variable\n", 2),
    ("shellrc", "unclosed-block", b"# bashrc\n# >>> gwconf >>>\nexport OPENAI_API_KEY='x'\n", 2),
    ("shellrc", "two-blocks", b"# >>> gwconf >>>\n# <<< gwconf <<<\n# >>> gwconf >>>\n# <<< gwconf <<<\n", 3),
]
for fmt, (_, _, valid) in WHERE.items():
    lines = valid.encode().split(b"\n")
    broken = b"\n".join([*lines[:1], lines[1] + b"\xff\xfe", *lines[2:]])  # invalid UTF-8 on line 2
    CASES.append((fmt, "invalid-utf8", broken, 2))
    CASES.append((fmt, "binary-noise", NOISE, None))
    CASES.append((fmt, "bom-then-noise", b"\xef\xbb\xbf" + NOISE, None))


def _tree(root: Path) -> dict[str, tuple[bytes | None, int]]:
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        st = path.lstat()
        found[rel] = (path.read_bytes() if path.is_file() and st.st_size < 1 << 20 else None, st.st_mtime_ns)
    return found


def _check_refused(
    result, shown: str, line: int | None, home: Path, before: dict, gw: Path, client: str
) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result
    assert "Traceback" not in result.output and "unexpected error" not in result.output, result
    assert shown in result.stderr, result
    if line is not None:
        match = re.search(re.escape(shown) + r":(\d+)", result.stderr)
        assert match, f"no line named: {result.stderr}"
        assert int(match.group(1)) == line, result.stderr
    assert _tree(home) == before, "something was written or left behind"
    assert not (gw / "state" / "backups" / client).exists(), "a backup was taken of a refused file"
    assert not (gw / "state" / "journal.json").exists()


@pytest.mark.parametrize(("fmt", "case", "data", "line"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_broken_file_is_refused(
    home: Path, tmp_path: Path, profile: str, fmt: str, case: str, data: bytes, line: int | None
) -> None:
    client, relative, _ = WHERE[fmt]
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    before = _tree(home)
    shown = "~/" + relative
    result = invoke("apply", client)
    if fmt == "text" and case == "binary-noise" and result.exit_code == 0:
        pytest.fail("random bytes were accepted as a model name")
    _check_refused(result, shown, line, home, before, tmp_path / "gwconf", client)
    status = invoke("status", client)
    assert "Traceback" not in status.output and "unexpected error" not in status.output, status
    assert shown in status.output, status
    assert _tree(home) == before


def test_a_key_pasted_twice_is_read_as_the_clients_read_it(home: Path, profile: str) -> None:
    """A setting pasted twice is no broken file: Claude Code (JSON.parse) keeps the last one. gwconf
    edits that one, leaves the other as it was, says so, and restore puts the file back."""
    path = home / ".claude/settings.json"
    path.parent.mkdir(parents=True)
    original = (
        '{\n  "env": {\n    "ANTHROPIC_BASE_URL": "https://old.example.com",\n    "A": "1"\n  },\n'
        '  "theme": "dark",\n  "env": {\n    "ANTHROPIC_BASE_URL": "https://other.example.com"\n  }\n}\n'
    )
    path.write_text(original)
    result = invoke("apply", "claude-code")
    assert result.exit_code == 0, result
    assert "duplicate key env at lines 2 and 7: the last one counts; gwconf edited that one" in result.output
    text = path.read_text()
    assert text.startswith(original[: original.index('  "theme"')])  # the first one untouched
    assert "other.example.com" not in text and text.count("ANTHROPIC_BASE_URL") == 2
    assert invoke("restore", "claude-code").exit_code == 0
    assert path.read_text() == original


@pytest.mark.parametrize("fmt", sorted(WHERE))
def test_a_folder_where_the_file_should_be(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, relative, _ = WHERE[fmt]
    (home / relative).mkdir(parents=True)
    (home / relative / "inside").write_text("x")
    before = _tree(home)
    result = invoke("apply", client)
    _check_refused(result, "~/" + relative, None, home, before, tmp_path / "gwconf", client)
    assert "is a folder" in result.stderr


@pytest.mark.parametrize("fmt", sorted(WHERE))
def test_a_fifo_where_the_file_should_be(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    """A FIFO would block a reader forever: refused without opening it (a subprocess, bounded)."""
    client, relative, _ = WHERE[fmt]
    (home / relative).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(home / relative)
    before = _tree(home)
    done = subprocess.run(
        [sys.executable, "-m", "gwconf", "apply", client], capture_output=True, text=True, timeout=60
    )
    result = type(
        "R", (), {"exit_code": done.returncode, "stderr": done.stderr, "output": done.stdout + done.stderr}
    )
    _check_refused(result, "~/" + relative, None, home, before, tmp_path / "gwconf", client)
    assert "FIFO" in done.stderr


@pytest.mark.parametrize("fmt", sorted(WHERE))
def test_a_200_mb_file(home: Path, tmp_path: Path, profile: str, fmt: str) -> None:
    client, relative, valid = WHERE[fmt]
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(valid)
    os.truncate(path, 200 * 1024 * 1024)  # sparse: no disk, no time
    before = _tree(home)
    result = invoke("apply", client)
    _check_refused(result, "~/" + relative, None, home, before, tmp_path / "gwconf", client)
    assert "200 MB" in result.stderr


# -- gwconf's own files ------------------------------------------------------------------------------

OWN = [
    ("state/ledger.json", NOISE),
    ("state/ledger.json", b'{"version": 1, "clients": {"codex": []}}'),
    ("state/ledger.json", b'{"version": 1, "clients": {"codex": {"files": {"/x": {"keys": 7}}}}}'),
    ("state/ledger.json", b"[" * NEST + b"]" * NEST),
    ("state/journal.json", NOISE),
    ("state/journal.json", b'{"client": "codex", "files": [{"target": 7}]}'),
    ("state/journal.json", b'{"client": "codex", "files": "x"}'),
    ("profiles/work.toml", NOISE),
    ("profiles/work.toml", b'base_url = "https://gw.example.com/v1"\nkey = [1]\n'),
    ("active", NOISE),
]


@pytest.mark.parametrize(("name", "data"), OWN, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OWN)])
@pytest.mark.parametrize(
    "command", [("apply", "claude-code"), ("status",), ("restore", "--all"), ("use", "work")]
)
def test_broken_files_of_gwconf_itself(
    home: Path, tmp_path: Path, profile: str, name: str, data: bytes, command: tuple[str, ...]
) -> None:
    """A damaged ledger, journal, profile or active mark: a clear error or a recovery, never a crash,
    and nothing of the user's is touched."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "theme": "dark"\n}\n')
    path = tmp_path / "gwconf" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    result = invoke(*command)
    assert "Traceback" not in result.output and "unexpected error" not in result.output, result
    assert result.exit_code in (0, 1), result
    if result.exit_code == 1:
        assert "gwconf: error:" in result.stderr
    if command[0] != "apply" or result.exit_code == 1:
        assert settings.read_text() == '{\n  "theme": "dark"\n}\n'
