"""Files gwconf consults beside a client's own (a project's ``.env`` and ``.aider.conf.yml``,
aichat's ``.env``, Continue's index, gwconf's ``active`` file): they were read with a plain
``read_bytes``, without the checks every client file gets. Found by the thirty-eighth round's
filesystem sweep: a FIFO at one of them hung ``status`` and ``clients`` for ever (a FIFO in the
folder of ``gwconf current`` hung the shell's prompt), and a link to ``/dev/zero``, which a
cloned repository can hold, was read until memory ran out. Each runs as a process with a
deadline: a hang fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY, invoke


def _gwconf(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gwconf", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.fixture
def applied(home: Path) -> None:
    added = invoke(
        "profile", "add", "work", "--base-url", "https://gw.example.com/v1", "--model", "m",
        "--key-stdin", "--use", input=TEST_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    (home / ".config" / "aichat").mkdir(parents=True)
    assert invoke("apply", "aider", "aichat", "continue").exit_code == 0


@pytest.mark.parametrize("odd", ["fifo", "/dev/zero"])
def test_a_cloned_repositorys_odd_files_neither_hang_nor_exhaust_memory(
    home: Path, tmp_path: Path, applied: None, odd: str
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in (".env", ".aider.conf.yml"):
        if odd == "fifo":
            os.mkfifo(repo / name)
        else:
            (repo / name).symlink_to(odd)
    for args in (("status",), ("clients",), ("status", "aider", "--json"), ("doctor", "aider")):
        done = _gwconf(repo, *args)
        assert "unexpected error" not in done.stderr, (args, done.stderr)
        assert done.returncode in (0, 1, 3, 4), (args, done.returncode, done.stderr)
    assert "aider" in _gwconf(repo, "status", "aider").stdout


def test_odd_files_beside_the_clients_and_in_gwconfs_own_folder(
    home: Path, tmp_path: Path, applied: None
) -> None:
    dotenv = home / ".config" / "aichat" / ".env"
    dotenv.unlink()
    os.mkfifo(dotenv)
    index = home / ".continue" / "index" / "globalContext.json"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.symlink_to("/dev/zero")
    active = Path(os.environ["GWCONF_HOME"]) / "active"
    active.unlink()
    os.mkfifo(active)
    for args in (("current",), ("status",), ("clients",), ("status", "continue")):
        done = _gwconf(tmp_path, *args)
        assert "unexpected error" not in done.stderr, (args, done.stderr)
