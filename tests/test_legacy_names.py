"""A home whose folder name is not UTF-8 (``caf\\xe9``, a name from a Latin-1 system).

Linux keeps a name's bytes as they are; Python holds the byte that is no UTF-8 as a lone surrogate
(``\\udce9``), and ``str.encode()`` refuses it. apply crashed at the backup folder's name, then at
the ledger's commit (the next command rolled the run back), and ``apply --project`` at git's
answer. Now gwconf works there: the ledger writes such a name as its JSON escape, git's answers
and ``.git/info/exclude`` keep the bytes, and a client that would write the name into its own
(UTF-8) file is refused by name instead of crashing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a name that is no UTF-8 needs Linux")


@pytest.fixture  # asked for before ``profile``, so the profile is saved in this home
def legacy_home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    try:
        (folder / "home").mkdir(parents=True)
    except (OSError, UnicodeEncodeError) as exc:  # a file system that wants UTF-8 names
        pytest.skip(f"no such name here: {exc}")
    with monkeypatch.context() as patch:
        patch.setenv("HOME", str(folder / "home"))
        patch.setenv("GWCONF_HOME", str(folder / "gwconf"))
        yield folder / "home"


def test_apply_use_and_restore_work_in_a_home_named_in_latin1(gwconf, legacy_home: Path, profile) -> None:
    config = legacy_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"  # mine\n')
    applied = gwconf("apply", "codex")
    assert applied.exit_code == 0, applied
    assert 'model = "my-model"  # mine' in config.read_text()
    ledger = (legacy_home.parent / "gwconf" / "state" / "ledger.json").read_bytes()
    assert b"caf\\udce9" in ledger and json.loads(ledger)  # the name as its JSON escape: valid UTF-8
    assert gwconf("use", "work").exit_code == 0
    assert "my-model" in gwconf("status", "codex").stdout
    restored = gwconf("restore", "codex")
    assert restored.exit_code == 0, restored
    assert config.read_text() == 'model = "o3"  # mine\n'
    assert not (legacy_home / ".codex" / "auth.json").exists()


def test_a_client_that_would_write_the_name_into_its_file_is_refused_by_name(
    gwconf, legacy_home: Path, profile
) -> None:
    """Roo Code's VS Code setting names the file gwconf writes for it, under GWCONF_HOME."""
    settings = legacy_home / ".config" / "Code" / "User" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "editor.fontSize": 14\n}\n')
    result = gwconf("apply", "roo-code")
    assert result.exit_code != 0
    assert "unexpected error" not in result.stderr, result
    assert "gwconf would write the name " in result.stderr and "caf\\xe9" in result.stderr, result
    assert "which is not UTF-8" in result.stderr
    assert settings.read_text() == '{\n  "editor.fontSize": 14\n}\n'


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_project_named_in_latin1_is_kept_out_of_git_by_its_own_bytes(
    gwconf, legacy_home: Path, profile
) -> None:
    project = legacy_home / "proj\udce9"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from gwconf.cli import main; sys.exit(main())",
         "apply", "claude-code", "--project"],
        cwd=project, env=env, capture_output=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"unexpected error" not in done.stderr
    exclude = (project / ".git" / "info" / "exclude").read_bytes()
    assert b"\n/.claude/settings.local.json\n" in exclude
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=project, capture_output=True
    )
    assert status.stdout == b""


def test_a_key_variable_holding_bytes_that_are_no_utf8_is_refused_and_never_shown(
    gwconf, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``export GW_KEY=...`` pasted from a Latin-1 document: every command crashed in the masking
    (URL-quoting the key) or in the write; now the profile's key is refused by name, and the
    listings run, none showing any of it."""
    assert gwconf(
        "profile", "add", "env", "--base-url", "https://gw.example.com/v1", "--model", "m",
        "--key-env", "GW_KEY", "--use",
    ).exit_code == 0  # fmt: skip
    monkeypatch.setenv("GW_KEY", "sk-abcdefPRIVATE\udce9tailWXYZ1234")
    for args in (("apply", "codex", "--dry-run"), ("apply", "codex")):
        result = gwconf(*args)
        assert result.exit_code != 0 and "unexpected error" not in result.stderr, result
        assert "$GW_KEY holds bytes that are not UTF-8 text" in result.stderr, result
    assert not (home / ".codex").exists()
    for args in (("status",), ("clients",), ("profile", "show", "env"), ("doctor", "codex")):
        result = gwconf(*args)
        assert "unexpected error" not in result.stderr, (args, result)
        assert "PRIVATE" not in result.output and "tailWXYZ" not in result.output, (args, result)
