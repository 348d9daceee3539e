"""``paths.HomePath``'s quick ``/`` answers as pathlib's (issue 15).

On Python 3.11 off Windows, the paths an ``Env`` makes join a plain name without pathlib's
parsing, and carry the text on when the parent has its own already. Each result is held here to
``PosixPath``'s: its parts, text, equality, hash, order, repr and what pathlib derives from it.
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gwconf.paths import Env, HomePath

quick = pytest.mark.skipif(
    sys.version_info >= (3, 12) or os.name == "nt", reason="HomePath is pathlib's Path there"
)

_NAME = st.sampled_from(["a", "home", ".config", "x.json", "a b", "..", ".", "", "é", "a\\b", "~", "-"])
_BASE = st.builds(
    lambda lead, parts, tail: lead + "/".join(parts) + tail,
    st.sampled_from(["/", "//", "///", "", "./", "/h/"]),
    st.lists(_NAME, max_size=3),
    st.sampled_from(["", "/", "/."]),
)
_KEY = st.one_of(
    _NAME,
    st.builds("/".join, st.lists(_NAME, min_size=1, max_size=3)),  # "a/b", "/abs", "a/", ...
    st.text(max_size=4),
)


def _same(got: Path, want: Path) -> None:
    assert got.parts == want.parts
    assert str(got) == str(want)
    assert os.fspath(got) == os.fspath(want)
    assert got == want and want == got
    assert hash(got) == hash(want)
    assert not got < want and not got > want
    assert repr(got) == repr(want)
    assert got.as_posix() == want.as_posix()
    assert (got.name, got.suffix, got.stem) == (want.name, want.suffix, want.stem)
    assert got.parent == want.parent and str(got.parent) == str(want.parent)
    assert got.is_absolute() == want.is_absolute()
    assert PurePosixPath(got) == PurePosixPath(want)


@quick
@settings(max_examples=600, deadline=None)
@given(base=_BASE, keys=st.lists(_KEY, min_size=1, max_size=3), text_first=st.booleans())
@example(base="/", keys=["a"], text_first=True)
@example(base="//", keys=["a"], text_first=True)
@example(base="", keys=["a"], text_first=True)
@example(base=".", keys=["a", "b"], text_first=True)
@example(base="/h", keys=[".", "a"], text_first=True)
@example(base="/h", keys=["/abs"], text_first=True)
def test_quick_join_is_pathlibs(base: str, keys: list[str], text_first: bool) -> None:
    """Joined one name at a time, with or without the parent's text asked first: pathlib's path."""
    got: Path = HomePath(base)
    want: Path = Path(base)
    _same(got, want)
    for key in keys:
        if text_first:
            str(got)
        got, want = got / key, want / key
        _same(got, want)
    _same(got.parent.parent, want.parent.parent)
    _same(got.joinpath("x", "y/z"), want.joinpath("x", "y/z"))
    if want.name:
        _same(got.with_name("n.txt"), want.with_name("n.txt"))
        _same(got.with_suffix(".j"), want.with_suffix(".j"))
    if want.is_absolute():
        _same(got.relative_to(want.anchor), want.relative_to(want.anchor))


@quick
def test_quick_path_takes_paths_and_refuses_what_pathlib_refuses() -> None:
    home = HomePath("/h")
    _same(home / Path("a/b"), Path("/h/a/b"))
    _same(home / PurePosixPath("/x"), Path("/x"))
    with pytest.raises(TypeError):
        home / 1  # type: ignore[operator]
    assert pickle.loads(pickle.dumps(home / "a")) == Path("/h/a")


def test_env_current_makes_home_and_cwd_as_pathlib_does(home: Path) -> None:
    """The derived folders and every client's files are the same paths, printed the same."""
    env = Env.current()
    plain = Env(home=Path(str(home)), platform=env.platform, environ=env.environ, cwd=Path(os.getcwd()))
    assert env == plain and repr(env) == repr(plain)
    for name in ("config_dir", "state_dir", "profiles_dir", "backups_dir", "xdg_config_home", "appdata"):
        _same(getattr(env, name), getattr(plain, name))
    from gwconf import registry

    for client_id in registry.IDS:
        client = registry.get(client_id)
        for got, want in zip(client.files(env), client.files(plain), strict=True):
            _same(got.path, want.path)
