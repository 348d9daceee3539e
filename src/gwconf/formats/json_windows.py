"""A big JSON or JSONC file edited through a stand-in made of the parts an edit needs (issue 15).

Zed's and VS Code's settings.json are one flat object. Edited whole, a 16 MB one was held as its
bytes, its text (twice the bytes where a character needs two: CJK, an emoji's four), its mask,
its data and the new text at once: 14x the file in memory, where a client's edit touches two or
three of its members.

Here the bytes stay bytes. The top-level object is cut into windows at lines where a member
starts (no JSON string holds a line break, so such a line is never inside one): the file's head,
up to its first member's line, then windows of about ``WINDOW`` bytes. Each window is checked
alone by the JSON editor's own reader, which proves the cut: a window that is not a run of whole
members followed by a comma does not read. Of each, the document keeps only its top-level keys,
and of the file its style (line ending, indent unit, trailing commas, a key twice anywhere). The
editor then edits a stand-in: the head, the last window (the closing brace, where a new member
goes), and every window holding a top-level key the client reads or writes. Those windows joined
are the object with the members between them left out, so the editor does there what it does on
the whole text. A key the client asks for later brings its windows in: the stand-in is made
again and the edits so far are made again on it.

The write gate checks the stand-in's edit as it checks any (``formats.checked_edit``); the bytes
written are the file's own bytes with the stand-in's windows, as edited, in their place
(``whole_bytes``). An edit that would reach across from one window to a window that was left out
of the stand-in beside it, and any caller that wants the whole data (``data``), gets the whole
text as the stand-in: the plain editor's behaviour, and its memory.

``plan`` reads a file this way above ``plan._WINDOWED_ABOVE`` (4 MB) in apply's and restore's
plans (restore reads the file's pristine copy so too), and so do ``status``, ``clients``,
``verify`` and ``doctor``; ``run`` reads whole files. ``load`` answers None wherever the whole
text should be edited instead: a top-level value that is no object, a file of one window, any
window that does not read (the whole-text editor then reports the error with its line), text
that is no UTF-8.
"""

from __future__ import annotations

import copy
import itertools

from gwconf.errors import ParseError
from gwconf.fileio import BOM
from gwconf.formats import json as json_editor
from gwconf.formats._base import MISSING, KeyPath, detect_eol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gwconf.formats._base import Edit, Op

_BOM = BOM.encode()
WINDOW = 256 << 10  # bytes a window holds at least (one member more, to the next member's line)

# from the file's first brace, its first member on a line of its own below lines without a quote
# (matched there only: tried at every brace, a file of braces and no line break cost n squared)
_FIRST_MEMBER = rb"\{(?:[^\"\n]*\n)*?([ \t]*)\""


def load(raw: bytes, source: str, fmt: str, *, window: int = WINDOW) -> WindowedJson | None:
    """``raw`` (a BOM first stays there, outside every window) as a windowed document, or None:
    edit the whole text instead."""
    if fmt not in ("json", "jsonc") or len(raw) <= window or _PROBE_BYTES in raw:
        return None
    start = len(_BOM) if raw.startswith(_BOM) else 0
    cuts = _cuts(raw, start, window)
    if cuts is None:
        return None
    import array

    names: list[str] = []
    trailing = dups = False
    # the top-level keys' hashes: a key in two windows is a key twice too. Eight bytes a key where
    # the keys themselves, kept in a set, were the peak memory of apply on a 16 MB file (150,000
    # keys); two keys with one hash count as a key twice, which costs the editor only a slower
    # search: with no key really twice, it edits and deletes as it would have.
    hashes = array.array("q")
    for number, (begin, end) in enumerate(itertools.pairwise(cuts)):
        facts = _read_window(raw, begin, end, number == 0, number == len(cuts) - 2, source, fmt)
        if facts is None:
            return None
        keys, window_trailing, window_dups = facts
        # joined by NUL, one at each end: a compact index to look a key up in (a 16 MB
        # settings.json has 150,000 of them)
        names.append("\x00" + "\x00".join(keys) + "\x00")
        hashes.extend(map(hash, keys))
        trailing, dups = trailing or window_trailing, dups or window_dups
    if not dups:
        ordered = sorted(hashes)
        dups = any(a == b for a, b in itertools.pairwise(ordered))
        del ordered
    eol = detect_eol(raw)
    # the editor finds the indent unit in the first 64K characters: four bytes each at most
    unit = json_editor.unit_of(raw[start : start + (1 << 18)].decode("utf-8", "ignore")[: 1 << 16])
    return WindowedJson(raw, cuts, names, source, fmt, (eol, unit, trailing, dups))


def _cuts(raw: bytes, start: int, window: int) -> list[int] | None:
    """The offsets the windows start at, and the end: None when the object's members do not start
    lines of their own at one indent, or the file is one window.

    The first window is the file's head, up to the line of its first member: the stand-in always
    holds it (the object's opening), so it holds no member that may be the file's biggest (Claude
    Code's ~/.claude.json puts its megabytes of ``projects`` near the top). A member bigger than a
    window starts a window of its own, so the members before it are read without it."""
    import re

    first = re.compile(_FIRST_MEMBER).match(raw, max(raw.find(b"{", start), start), start + (1 << 16))
    if first is None:
        return None
    starter = b"\n" + first.group(1) + b'"'
    cuts = [start, first.start(1)]
    while True:
        found = raw.find(starter, cuts[-1] + window)
        if found < 0:
            break
        # a member bigger than a window gets one of its own: the members before it are read
        # without it (the megabytes of ``projects`` among ~/.claude.json's small first members)
        before = raw.rfind(starter, cuts[-1], cuts[-1] + window)
        if before >= 0 and found - before > window:
            cuts.append(before + 1)
        cuts.append(found + 1)
    if len(cuts) < 3:
        return None
    cuts.append(len(raw))
    return cuts


# A member added after a window that the next one follows (it must end in a comma, which this
# then needs): the window reads alone as an object with no trailing comma of its own making. A
# file that holds its key is edited whole (the key would be a duplicate the window made).
_PROBE_KEY = "\x00gwconf-window"
_PROBE_MEMBER = b'"\\u0000gwconf-window": 0}'  # the key as JSON spells it
_PROBE_BYTES = b"gwconf-window"  # a file with these bytes anywhere is edited whole


def _read_window(
    raw: bytes, start: int, end: int, first: bool, last: bool, source: str, fmt: str
) -> tuple[list[str], bool, bool] | None:
    """One window's top-level keys, whether it writes trailing commas and holds a key twice in one
    object; None when it is not a run of whole members (each followed by a comma, but the
    file's last)."""
    # one bytes object decoded once: a window of a giant member is not copied again as text
    pieces = (b"" if first else b"{", memoryview(raw)[start:end], b"" if last else _PROBE_MEMBER)
    try:
        text = b"".join(pieces).decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        keys, trailing, dups = json_editor.window_facts(text, source, fmt=fmt)
    except ParseError:
        return None
    if not last:
        if _PROBE_KEY not in keys[-1:]:
            return None
        keys.pop()
    if any("\x00" in key for key in keys):
        return None
    return keys, trailing, dups


class WindowedJson:
    """The document ``plan`` edits a big JSON(C) file through: the ``Document`` interface, kept by
    a ``json.JsonDocument`` of the stand-in (see the module docstring)."""

    def __init__(
        self,
        raw: bytes,
        cuts: list[int],
        names: list[str],
        source: str,
        fmt: str,
        style: tuple[str, str, bool, bool],
    ) -> None:
        self.source, self.fmt = source, fmt
        self._raw, self._cuts, self._names, self._style = raw, cuts, names, style
        last = len(cuts) - 2
        self._chosen: list[int] = sorted({0, last})  # the windows in the stand-in, in order
        self._calls: list[tuple[str, tuple[Any, ...]]] = []  # the edits so far, to make again
        self._inner = self._stand_in()

    # -- the stand-in ---------------------------------------------------------------------------

    def _stand_in(self) -> json_editor.JsonDocument:
        texts = [self._window_text(n) for n in self._chosen]
        self._lengths = [len(text) for text in texts]  # in characters, as the stand-in's offsets
        text = "".join(texts)
        del texts
        eol, unit, trailing, dups = self._style
        inner = json_editor.load_part(
            text, self.source, fmt=self.fmt, eol=eol, unit=unit, trailing=trailing, dups=dups
        )
        self._loaded = inner.data()
        inner.place = lambda pos: self._file_place(text, pos)
        for name, args in self._calls:
            getattr(inner, name)(*args)
        # the write gate compares the stand-in before and after (the inner editor's own lists)
        self.original: str = inner.original
        self.edits: list[Edit] = inner.edits
        return inner

    def _file_place(self, text: str, pos: int) -> tuple[int, int]:
        """Line and column in the file of offset ``pos`` of the stand-in ``text`` (as made, of
        the windows chosen now): each window starts a line, so the column is the stand-in's own."""
        start = 0
        for number, length in zip(self._chosen, self._lengths, strict=True):
            if pos < start + length or number == self._chosen[-1]:
                line = self._raw.count(b"\n", 0, self._cuts[number]) + text.count("\n", start, pos) + 1
                return line, pos - max(text.rfind("\n", start, pos) + 1, start) + 1
            start += length
        raise AssertionError("unreachable")

    def _window_text(self, number: int) -> str:
        return self._raw[self._cuts[number] : self._cuts[number + 1]].decode("utf-8")

    def _reach(self, *names: Any, around: bool = False) -> None:
        """Bring the windows holding these top-level keys into the stand-in; ``around``: their
        neighbours too (``_edit`` says when)."""
        wanted = {
            number
            for name in names
            if isinstance(name, str) and "\x00" not in name
            for number, keys in enumerate(self._names)
            if f"\x00{name}\x00" in keys
        }
        if around:
            wanted |= {n + step for n in wanted for step in (-1, 1) if 0 <= n + step < len(self._names)}
        if not wanted <= set(self._chosen):
            self._choose(wanted)

    def _choose(self, wanted: set[int]) -> None:
        self._chosen = sorted(wanted.union(self._chosen))
        self._inner = self._stand_in()

    def _reach_all(self) -> None:
        if len(self._chosen) < len(self._cuts) - 1:
            self._choose(set(range(len(self._cuts) - 1)))

    def _edit(self, name: str, path: KeyPath, *args: Any, also: Any = None) -> Any:
        if not path:
            self._reach_all()
        # taking a top-level member out, or putting one before another, writes or takes out the
        # comma (and lines) of the member before it; a value replaced, or a member added at the
        # end (in the last window, which starts with a member), stays within its window
        around = len(path) == 1 and name in ("delete", "put_before")
        self._reach(path[0] if path else None, also, around=around)
        result = getattr(self._inner, name)(path, *args)
        self._calls.append((name, (path, *copy.deepcopy(args))))
        return result

    def loaded_data(self) -> Any:
        """What the stand-in read as before any edit: the write gate's "before" (with ``MISSING``
        as ``plan.Loaded.data``, for the members outside it are not read)."""
        return self._loaded

    def settle(self) -> None:
        """Before the write gate: an edit that reaches across a window boundary where the next
        window was left out takes the whole text as the stand-in (``whole_bytes`` could not place it)."""
        if self._pieces() is None:
            self._reach_all()

    def whole_bytes(self) -> bytes:
        """The file's bytes with the stand-in's edits in their windows (after ``settle``); a BOM
        the file starts with stays, before the first window."""
        pieces = self._pieces()
        assert pieces is not None, "settle() first"
        raw = memoryview(self._raw)
        out: list[Any] = []
        done = 0
        text = self._inner.dump()
        for number, (start, end) in zip(self._chosen, pieces, strict=True):
            out += (raw[done : self._cuts[number]], text[start:end].encode("utf-8"))
            done = self._cuts[number + 1]
        out.append(raw[done:])
        return b"".join(out)

    def _pieces(self) -> list[tuple[int, int]] | None:
        """Where each chosen window's text lies in the edited stand-in, or None when an edit
        spans two windows, or adds text right between two that are not neighbours in the file."""
        bounds = [0, *itertools.accumulate(self._lengths)]
        adjacent = [b + 1 == a for b, a in zip(self._chosen, self._chosen[1:], strict=False)]
        for edit in self._inner.edits:
            start, end, grown = edit.start, edit.end, edit.length - (edit.end - edit.start)
            for i in range(1, len(bounds) - 1):
                at = bounds[i]
                if not adjacent[i - 1] and (start < at < end or at == start == end):
                    return None
                if start < at < end:  # across two windows that are neighbours in the file too:
                    bounds[i] = start  # the new text goes to the second, as their bytes are one run
            bounds = [at + grown if at >= end and at > start else at for at in bounds]
        return list(itertools.pairwise(bounds))

    # -- the Document interface ------------------------------------------------------------------

    @property
    def ops(self) -> list[Op]:
        return self._inner.ops

    @property
    def eol(self) -> str:
        return self._inner.eol

    @property
    def notes(self) -> list[str]:
        return self._inner.notes

    def data(self) -> Any:
        self._reach_all()
        return self._inner.data()

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        if not path:
            return self.data()
        self._reach(path[0])
        return self._inner.get(path, default)

    def set(self, path: KeyPath, value: Any) -> None:
        self._edit("set", path, value)

    def delete(self, path: KeyPath) -> bool:
        return bool(self._edit("delete", path))

    def append(self, path: KeyPath, value: Any) -> int:
        return int(self._edit("append", path, value))

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        self._edit("put_back", path, value, spelling)

    def put_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None = None,
        line: str | None = None,
    ) -> None:
        also = following if len(path) == 1 else None
        self._edit("put_before", path, value, spelling, following, above, line, also=also)

    def spelling(self, path: KeyPath) -> str | None:
        self._reach(path[0] if path else None)
        return self._inner.spelling(path)

    def key_line(self, path: KeyPath) -> str | None:
        self._reach(path[0] if path else None)
        return self._inner.key_line(path)

    def comment_above(self, path: KeyPath) -> str | None:
        self._reach(path[0] if path else None)
        return self._inner.comment_above(path)

    def restoring_from(self, pristine: Callable[[], Any]) -> None:
        self._inner.restoring_from(pristine)
        self._calls.append(("restoring_from", (pristine,)))

    def dump(self) -> str:
        return self._inner.dump()

    def gate_text(self) -> str:
        return self._inner.gate_text()

    def reads_as(self, intended: Any) -> bool:
        return self._inner.reads_as(intended)

    def reread(self) -> Any:
        return self._inner.reread()
