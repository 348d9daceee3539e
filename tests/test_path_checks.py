"""``paths.exists``, ``paths.is_dir`` and ``Env.which`` answer as ``os.path`` and ``shutil.which`` do.

They say no to a missing path with ``os.access`` instead of a ``stat`` that raises (issue 15):
held here to the functions they replace, on generated folders holding files, folders,
executables, links (to files, folders, nothing, themselves) and files standing where a folder
is looked for, and on names the system refuses (too long, a NUL).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gwconf import paths
from gwconf.paths import Env

_NAMES = ["a", "b", "prog", "x.json", ".hidden"]
_KINDS = st.sampled_from(["none", "file", "exe", "dir", "link-file", "link-dir", "link-none", "link-self"])


def _make(root: Path, layout: dict[str, str]) -> None:
    for name, kind in layout.items():
        path = root / name
        if kind == "file":
            path.write_text("x")
        elif kind == "exe":
            path.write_text("#!/bin/sh\n")
            path.chmod(0o755)
        elif kind == "dir":
            path.mkdir()
        elif kind == "link-file":
            (root / f"{name}.target").write_text("x")
            path.symlink_to(root / f"{name}.target")
        elif kind == "link-dir":
            (root / f"{name}.target").mkdir()
            path.symlink_to(root / f"{name}.target")
        elif kind == "link-none":
            path.symlink_to(root / "nowhere")
        elif kind == "link-self":
            path.symlink_to(path)


def _queries(root: Path) -> list[str]:
    found = [str(root), str(root) + "/", "", ".", "\0", str(root / ("n" * 300)), str(root / "a\0b")]
    for name in _NAMES:
        found += [
            str(root / name),
            str(root / name / "child"),
            str(root / name / ".."),
            str(root / name) + "/",
        ]
    return found


def _shutil_executable(path: str) -> bool:
    """shutil.which's own test of a candidate (3.11, off Windows)."""
    return os.path.exists(path) and os.access(path, os.F_OK | os.X_OK) and not os.path.isdir(path)


@settings(max_examples=60, deadline=None)
@given(layout=st.fixed_dictionaries({name: _KINDS for name in _NAMES}))
def test_the_path_checks_answer_as_os_path_and_shutil(layout: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _make(root, layout)
        for query in _queries(root):
            assert paths.exists(query) == os.path.exists(query), query
            assert paths.is_dir(query) == os.path.isdir(query), query
            assert paths._executable(query) == _shutil_executable(query), query


@pytest.mark.skipif(os.name == "nt", reason="Env.which is shutil.which there")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    layouts=st.lists(st.fixed_dictionaries({name: _KINDS for name in _NAMES}), min_size=1, max_size=3),
    entries=st.lists(st.sampled_from(["0", "1", "2", "0/", "missing", "", ".", "0/prog"]), max_size=6),
    program=st.sampled_from([*_NAMES, "nothing", "./prog", "a/b"]),
)
def test_which_is_shutils_which(
    layouts: list[dict[str, str]], entries: list[str], program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folders of PATH in its order, repeated, missing, empty (the current folder), with a
    trailing "/", or a file: the same program found, or none."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for number, layout in enumerate(layouts):
            (root / str(number)).mkdir()
            _make(root / str(number), layout)
        monkeypatch.chdir(root / "0")
        path = os.pathsep.join(
            entry if entry in ("", ".") else str(root / entry) if entry[0] in "0123456789m" else entry
            for entry in entries
        )
        env = Env(home=root, platform="linux", environ={"PATH": path}, cwd=root / "0")
        assert env.which(program) == shutil.which(program, path=path)


def test_an_empty_or_relative_home_is_refused_before_anything_is_read(monkeypatch, tmp_path) -> None:
    """The filesystem sweep: HOME='' made the home "/" (a root run wrote /.codex), and a relative
    HOME was recorded relative in the ledger (another folder's files for the next command)."""
    from tests.conftest import invoke

    work = tmp_path / "somewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    real = os.environ["HOME"]
    try:
        for home, said in (("", "HOME is empty"), ("rel/home", "HOME is relative (rel/home)")):
            os.environ["HOME"] = home
            for args in (("status",), ("apply", "codex", "--profile", "example")):
                result = invoke(*args)
                assert result.exit_code == 2 and said in result.stderr, (home, args, result)
    finally:
        os.environ["HOME"] = real
    assert not any(work.iterdir())
