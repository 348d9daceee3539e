"""``fileio.resolve`` inside ``one_view`` answers as ``os.path.realpath`` does.

Within one command (``one_view``) each folder's real path is worked out once and a file's real
path joins it (issue 15: ``apply --all`` made 961 ``lstat`` calls for 172 files). Held here to
realpath itself on generated trees of folders, files and links: absolute and relative, to a
folder, a file, a parent (".."), another link, nothing, themselves; queried through links, past
missing folders and with ".." in them, every query in one shared view as a command asks them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf import fileio

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the view is used on POSIX only")

_NAMES = ["a", "b", "c", ".d"]
_KINDS = st.sampled_from(
    ["none", "file", "dir", "abs-dir", "rel-dir", "up", "chain", "rel-file", "dangling", "self"]
)


def _make(root: Path, layout: dict[str, str]) -> None:
    (root / "real").mkdir()
    (root / "real" / "inner").mkdir()
    (root / "real" / "x.json").write_text("{}")
    for name, kind in layout.items():
        path = root / name
        if kind == "file":
            path.write_text("x")
        elif kind == "dir":
            path.mkdir()
            (path / "x.json").write_text("{}")
        elif kind == "abs-dir":
            path.symlink_to(root / "real")
        elif kind == "rel-dir":
            path.symlink_to("real/inner")
        elif kind == "up":
            path.symlink_to("..")
        elif kind == "chain":  # to another link of the layout, whatever it is
            path.symlink_to(_NAMES[(_NAMES.index(name) + 1) % len(_NAMES)])
        elif kind == "rel-file":
            path.symlink_to("real/x.json")
        elif kind == "dangling":
            path.symlink_to("nowhere/at/all")
        elif kind == "self":
            path.symlink_to(name)


def _queries(root: Path) -> list[str]:
    found = [str(root), str(root / "real" / "x.json"), str(root / "missing" / "deeper" / "f")]
    for name in _NAMES:
        for tail in ("", "x.json", "inner", "inner/x.json", "missing/f", "../real/x.json", "inner/../x.json"):
            found.append(str(root / name / tail) if tail else str(root / name))
    return found


def _realpath(query: str) -> tuple[str, object]:
    try:
        return "ok", Path(os.path.realpath(query))
    except OSError as exc:
        return "error", type(exc)


def _resolved(query: str, known: bool) -> tuple[str, object]:
    try:
        seen = None
        if known:
            try:
                seen = os.lstat(query)
            except OSError:
                seen = None
        return "ok", fileio.resolve(Path(query), seen)
    except fileio.GwconfError:
        return "error", OSError
    except OSError as exc:
        return "error", type(exc)


@settings(max_examples=150, deadline=None)
@given(
    layout=st.fixed_dictionaries({name: _KINDS for name in _NAMES}),
    order=st.randoms(use_true_random=False),
    known=st.booleans(),
)
def test_resolve_in_one_view_is_realpath(layout: dict[str, str], order, known: bool) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp))
        _make(root, layout)
        queries = _queries(root)
        order.shuffle(queries)  # a folder may be met first as a file's folder or as a query itself
        expected = {q: _realpath(q) for q in queries}
        with fileio.one_view():
            for query in queries:
                got = _resolved(query, known)
                if expected[query][0] == "ok":
                    assert got == expected[query], (query, layout)
                else:  # a loop: realpath raised on this Python, and so does resolve
                    assert got[0] == "error", (query, layout)


def test_outside_a_view_each_call_looks_afresh(tmp_path: Path) -> None:
    """Tests and core callers without a command's view see a link made between two calls."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    link = tmp_path / "here"
    link.symlink_to(tmp_path / "one")
    assert fileio.resolve(link / "f.json") == tmp_path.resolve() / "one" / "f.json"
    link.unlink()
    link.symlink_to(tmp_path / "two")
    assert fileio.resolve(link / "f.json") == tmp_path.resolve() / "two" / "f.json"


def test_a_view_ends_with_its_command(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    link = tmp_path / "here"
    link.symlink_to(tmp_path / "one")
    with fileio.one_view():
        assert fileio.resolve(link / "f.json") == tmp_path.resolve() / "one" / "f.json"
        with fileio.one_view():  # nested: the outer view stands
            assert fileio.resolve(link / "g.json") == tmp_path.resolve() / "one" / "g.json"
    link.unlink()
    link.symlink_to(tmp_path / "two")
    with fileio.one_view():
        assert fileio.resolve(link / "f.json") == tmp_path.resolve() / "two" / "f.json"


def test_a_file_is_read_whole_through_short_reads() -> None:
    """``read_snapshot`` reads unbuffered: one read may return less than asked (a pipe here, a
    network file system or a signal there), and the rest is read until the end."""
    import threading
    import time

    read_end, write_end = os.pipe()

    def feed() -> None:
        for piece in (b"abc", b"defg", b"hij"):
            os.write(write_end, piece)
            time.sleep(0.05)
        os.close(write_end)

    feeder = threading.Thread(target=feed)
    feeder.start()
    with open(read_end, "rb", buffering=0) as handle:
        assert fileio._read_up_to(handle, 8) == b"abcdefgh"
        assert fileio._read_up_to(handle, 100) == b"ij"
    feeder.join()
