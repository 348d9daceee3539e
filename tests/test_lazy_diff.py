"""The unified diff is made only when it is shown (issue 15): on a 4 MB file difflib was over a
third of ``gwconf apply``, which prints no diff. Whole processes in a temporary HOME: after a real
apply difflib was never imported; a dry run imports it and shows the diff."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import TEST_KEY

PROBE = (
    "import sys\n"
    "from gwconf.cli import run\n"
    "code = run(sys.argv[1:])\n"
    "print('difflib' in sys.modules, code)\n"
)


def _gwconf(home: Path, gw: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "GWCONF_HOME": str(gw)}
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_apply_makes_no_diff_and_a_dry_run_shows_one(tmp_path: Path) -> None:
    home, gw = tmp_path / "home", tmp_path / "gw"
    (home / ".codex").mkdir(parents=True)
    config = home / ".codex" / "config.toml"
    config.write_text('# mine\nmodel = "x"\n')
    added = _gwconf(
        home,
        gw,
        "profile",
        "add",
        "work",
        "--base-url",
        "https://gw.example.com/v1",
        "--model",
        "m",
        "--key-stdin",
        "--use",
        stdin=TEST_KEY + "\n",
    )
    assert added.stdout.splitlines()[-1].endswith(" 0"), added.stderr
    dry = _gwconf(home, gw, "apply", "codex", "--dry-run")
    assert dry.stdout.splitlines()[-1] == "True 0", dry.stderr
    assert '-model = "x"' in dry.stdout and '+model = "m"' in dry.stdout
    real = _gwconf(home, gw, "apply", "codex")
    assert real.stdout.splitlines()[-1] == "False 0", real.stderr
    assert 'model = "m"' in config.read_text() and "# mine" in config.read_text()
