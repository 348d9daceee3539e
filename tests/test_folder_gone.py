"""A command run from a folder removed under the shell (``git worktree remove``, ``rm -rf`` of a
build folder the shell was in) ends with gwconf's own error naming the folder and what to do,
exit 1, and touches nothing: each command once met ``os.getcwd()``'s FileNotFoundError as an
unexpected error, told the user it was a bug and wrote a crash log."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from tests.test_entry_exit import MAIN  # the process's own entry point, as the console script calls it


def _from_removed_folder(folder: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``gwconf ARGS`` started inside ``folder``, which the child removes before it runs gwconf:
    the process's current folder is then gone while ``$PWD`` still names it."""
    folder.mkdir()
    remove_then_run = f"import os; os.rmdir({str(folder)!r}); " + MAIN
    return subprocess.run(
        [sys.executable, "-c", remove_then_run, *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "PWD": str(folder)},
    )


@pytest.mark.parametrize(
    "args",
    [["status"], ["current"], ["apply", "codex", "--dry-run"], ["apply", "codex"], ["status", "--json"]],
)
def test_a_removed_current_folder_is_named_not_a_crash(
    profile: str, home: pathlib.Path, tmp_path: pathlib.Path, args: list[str]
) -> None:
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True, exist_ok=True)
    codex.write_text('model = "mine"  # keep\n')
    gone = tmp_path / "worktree"
    result = _from_removed_folder(gone, *args)
    assert result.returncode == 1, result.stderr
    assert f"the current folder ({gone}) cannot be read" in result.stderr
    assert "removed or moved" in result.stderr
    assert "hint: cd to a folder that exists" in result.stderr
    assert "unexpected error" not in result.stderr and "bug" not in result.stderr
    state = pathlib.Path(os.environ["GWCONF_HOME"]) / "state"
    assert not (state / "crash.log").exists()
    assert codex.read_text() == 'model = "mine"  # keep\n'  # nothing written
    if "--json" in args:
        assert '"exit_code": 1' in result.stdout


def test_a_command_that_needs_no_folder_still_runs(tmp_path: pathlib.Path) -> None:
    result = _from_removed_folder(tmp_path / "worktree", "--version")
    assert result.returncode == 0 and result.stdout.startswith("gwconf ")
