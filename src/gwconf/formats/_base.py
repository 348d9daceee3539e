"""The one document interface every format editor implements (design.md section 5).

A ``KeyPath`` is a tuple of mapping keys (str) and list indices (int). Editors change only the
spans they must; everything else in the text comes back byte for byte. Each editor records the
operations applied to it, so the generic layer in ``gwconf.formats`` can replay them on plain
data and check the re-parsed result (``verify_edit``).

Text handed to ``load`` has no BOM (``gwconf.formats.decode`` strips it and ``encode`` puts it
back); line endings are kept in the text and each editor writes new lines with ``self.eol``.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import re
import sys
from collections.abc import Callable, Iterator

import gwconf
from gwconf.lazyre import LazyPattern as LazyPattern  # re-exported: the format modules use them
from gwconf.lazyre import lazy as lazy
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any, Protocol
else:  # at run time the protocols are plain classes
    Protocol = object

KeyPath = tuple[str | int, ...]


class _Missing:
    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


@record(frozen=True)
class Op:
    """One edit: ``set`` (value) or ``delete``; ``append`` adds ``value`` to the list at ``path``."""

    kind: str
    path: KeyPath
    value: Any = None


@record(frozen=True)
class Edit:
    """One replacement an editor made: ``[start, end)`` of the text as it was just before this
    edit became ``length`` new characters (offsets move with each edit, as the text did).

    ``lo``..``hi`` is the region the operation claimed it may change, found from the parsed node
    (a value's span, a member with its line), never from the cut itself, so a cut that strays
    over a neighbour's comment is caught. ``removes`` False claims a pure insertion: nothing in
    the region may go. The write gate (``formats.check_bytes``) proves from these that every
    byte outside them is unchanged."""

    start: int
    end: int
    length: int
    lo: int
    hi: int
    removes: bool = True


def trimmed_edit(
    text: str, start: int, end: int, piece: str, claim: tuple[int, int] | None = None, removes: bool = True
) -> Edit:
    """The replacement of ``text[start:end]`` by ``piece``, shrunk to what really differs (a cut
    that writes an unchanged comment back is no change to it). ``claim`` defaults to the edit
    itself: an editor that knows no node spans still proves the bytes around its edits."""
    width, size = end - start, len(piece)
    head = common_length(text, start, piece, 0, min(width, size), forward=True)
    tail = common_length(text, end, piece, size, min(width, size) - head, forward=False)
    edit_start, edit_end = start + head, end - tail
    lo, hi = claim if claim is not None else (edit_start, edit_end)
    return Edit(edit_start, edit_end, size - head - tail, lo, hi, removes)


def changed_edit(before: str, after: str, claim: tuple[int, int] | None = None) -> Edit:
    """The one span in which ``after`` differs from ``before``: for editors that rebuild their
    text (dotenv's lines, tomlkit's document) rather than splice it."""
    return trimmed_edit(before, 0, len(before), after, claim)


def common_length(text: str, at: int, piece: str, from_: int, limit: int, *, forward: bool) -> int:
    """How many characters ``text`` and ``piece`` share, forward from ``text[at]``/``piece[from_]``
    or backward from just before them, at most ``limit``. Compared in chunks, at C speed: growing
    until one differs, then only halving inside it. Grown again after each half that matched, a
    difference in a 12,000-character text took 25.7 comparisons on average, not 20.0, and
    ``plan.text_diff``, which calls this twice a diff, cost a dry run 4.5M more instructions."""
    if limit <= 0:
        return 0
    done, chunk = 0, 4096
    narrowing = False  # a chunk differed: the difference is inside it, the chunks only shrink
    while done < limit:
        n = min(chunk, limit - done)
        if forward:
            same = text.startswith(piece[from_ + done : from_ + done + n], at + done)
        else:
            same = text.endswith(piece[from_ - done - n : from_ - done], 0, at - done)
        if not same:
            if n == 1:
                return done
            chunk = max(1, n // 2)  # narrow down inside the chunk that differs
            narrowing = True
            continue
        done += n
        if not narrowing:
            chunk = min(chunk * 2, 1 << 20)
    return done


def changed_regions(edits: list[Edit]) -> list[tuple[int, int, int, int]]:
    """What ``edits`` changed, merged into disjoint spans in text order: (start, end) in the text
    before the first edit, then (start, end) in the text after the last."""
    regions: list[list[int]] = []  # [new start, new end, old start, old end]

    def old_of(pos: int) -> int:  # a position outside every region, in the text before the edits
        return pos - sum((r[1] - r[0]) - (r[3] - r[2]) for r in regions if r[1] <= pos)

    for edit in edits:
        start, end = edit.start, edit.end
        if start == end and not edit.length:
            continue
        shift = edit.length - (end - start)
        merged = [r for r in regions if r[1] >= start and r[0] <= end]
        before = [r for r in regions if r[1] < start]
        after = [r for r in regions if r[0] > end]
        new_start = min([start, *(r[0] for r in merged)])
        new_end = max([end, *(r[1] for r in merged)])
        old_start = merged[0][2] if merged and merged[0][0] == new_start else old_of(new_start)
        old_end = merged[-1][3] if merged and merged[-1][1] == new_end else old_of(new_end)
        for r in after:
            r[0] += shift
            r[1] += shift
        regions = [*before, [new_start, new_end + shift, old_start, old_end], *after]
    return [(r[2], r[3], r[0], r[1]) for r in regions]


def same_run(a: str, a_pos: int, b: str, b_pos: int, size: int) -> bool:
    """``a[a_pos:a_pos + size] == b[b_pos:b_pos + size]``, compared a megabyte at a time."""
    step = 1 << 20
    return all(
        b.startswith(a[a_pos + i : a_pos + min(size, i + step)], b_pos + i) for i in range(0, size, step)
    )


def line_in(
    original: str, edits: list[Edit], pos: int, place: Callable[[int], tuple[int, int]] | None = None
) -> str:
    """``:line:column`` of ``pos``, an offset in the text ``edits`` made of ``original``, in
    ``original`` (the file as the user has it), for a refusal at a value gwconf did not write; ""
    for a place inside gwconf's own new text. ``place``: where an offset of ``original`` is in
    the file, when ``original`` is a stand-in for part of it (``json_windows``)."""
    for edit in reversed(edits):
        if pos >= edit.start + edit.length:
            pos -= edit.length - (edit.end - edit.start)
        elif pos > edit.start:
            return ""
    line, column = place(pos) if place is not None else line_col(original, pos)
    return f":{line}:{column}"


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos``, for ``path:line:col`` errors."""
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def detect_eol(text: str | bytes) -> str:
    """CRLF when CRLF dominates, else LF (one stray LF line does not turn a CRLF file into LF).
    A text with no carriage return is LF, found without counting (2 ms, not 18, for a 16 MB
    settings.json). Bytes are read the same way (``json_windows`` never decodes a big file whole)."""
    if isinstance(text, bytes):
        crlf, lf = (text.count(b"\r\n"), text.count(b"\n")) if b"\r" in text else (0, 0)
    else:
        crlf, lf = (text.count("\r\n"), text.count("\n")) if "\r" in text else (0, 0)
    return "\r\n" if crlf and crlf * 2 > lf else "\n"


def same_value(a: Any, b: Any) -> bool:
    """Whether setting ``b`` where ``a`` is changes nothing, for every editor: 1, 1.0 and True are
    different text in a file (so setting one over another must write), and NaN equals NaN.
    A value is the same as itself (``replay`` shares what an edit does not touch: a 4 MB file's
    data was walked whole after each of Codex's keys)."""
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and a != a:
        return bool(b != b)
    return bool(a == b)


def same_shared(a: Any, b: Any) -> bool:
    """The write gate's equality (``formats._same``) for two values that share most of their
    parts, as an edited file's data read back from its changed lines shares the loaded data's:
    a part both hold is not walked."""
    from gwconf.formats import _equal

    if a is b:
        return True
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(same_shared(a[k], b[k]) for k in a)
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(same_shared(x, y) for x, y in zip(a, b, strict=True))
    return _equal(a, b)


_SHARED_AS_IS = frozenset((str, int, float, bool, type(None), bytes))


def copied(value: Any) -> Any:
    """A deep copy of plain data, made by marshal in C: ``copy.deepcopy`` walks in Python (a
    third of ``gwconf apply continue`` on a 4 MB model list) and its import brings ``weakref``
    (about 1 ms of every command that edits, issue 15). What marshal cannot write (dates, a
    tomlkit item) goes to ``copy.deepcopy``. Values met twice (YAML aliases) stay one value, as
    with deepcopy: marshal writes a value it has met before as a reference to it."""
    kind = type(value)
    if kind in _SHARED_AS_IS:
        return value
    if kind is dict or kind is list or kind is set or kind is tuple:
        try:
            return marshal.loads(marshal.dumps(value))
        except ValueError:
            pass
    import copy

    return copy.deepcopy(value)


class Parsed(Protocol):
    """What the write gate needs of the document as loaded: its data, to replay the edits on."""

    def data(self) -> Any: ...


class Frozen:
    """The data of a document as loaded, held apart from later edits for the write gate's replay."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def data(self) -> Any:
        return self._data


class Document(Protocol):
    """Parsed file that can be edited in place. ``source`` is the display path for errors.

    Every editor declares every member; the two write-gate hooks at the end have shared defaults
    (``never_reads_as``, ``reread_from_scratch``) that an editor assigns by name when it has no
    faster way of its own (checked by tests/formats/test_document_protocol.py)."""

    source: str
    fmt: str  # the format name it was loaded as (``json`` or ``jsonc`` share one editor)
    original: str  # the text as loaded: the write gate compares every byte outside ``edits``
    edits: list[Edit]  # every replacement made to it, in order (``formats.check_bytes``)

    # read-only to callers (each editor keeps them as plain attributes): plan's stand-in for an
    # empty file answers them from the editor it has not loaded yet
    @property
    def eol(self) -> str:
        """The line ending new lines are written with."""

    @property
    def ops(self) -> list[Op]:
        """The operations applied so far, in order (the write gate replays them)."""

    def data(self) -> Any:
        """The plain Python value of the document as it is now (dict for mappings)."""

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        """Plain value at ``path`` or ``default``."""

    def set(self, path: KeyPath, value: Any) -> None:
        """Set ``path`` to ``value``, creating missing parent mappings. No-op if equal."""

    def delete(self, path: KeyPath) -> bool:
        """Remove ``path``; False when it was not there."""

    def append(self, path: KeyPath, value: Any) -> int:
        """Append ``value`` to the list at ``path`` (created if missing); returns its index."""

    def dump(self) -> str:
        """The full text (no BOM)."""

    def gate_text(self) -> str:
        """The text in the coordinates of ``original`` and ``edits``, for the byte check: ``dump()``
        for every editor but JSON5's, whose text pads unquoted keys to line up with its mask."""

    def spelling(self, path: KeyPath) -> str | None:
        """The text the value at ``path`` is written as, where that text alone gives the value
        back (a ``.env`` token, quotes included; a JSON, TOML or YAML scalar, escapes and style
        included); None where the editor keeps no such text (the shell block's: gwconf wrote it)."""

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        """``set``, with ``value`` written as ``spelling`` (what ``spelling`` said of the file
        before gwconf) where the editor can: a restore gives the user's own quoting back, even one
        gwconf would not write itself (``${VAR}``; quotes a client keeps as part of the value)."""

    def put_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None = None,
        line: str | None = None,
    ) -> None:
        """Put back a mapping's missing key ``path`` right before its key ``following``, where the
        file had it (a restore of a key gwconf took out: added at the end, it moved a line of the
        user's file), written as ``spelling`` where the editor can: after the line of the key
        before ``following``, or after the comment line ``above`` (its ``comment_above`` in the
        file before gwconf) when one lies between. ``line``: the key's whole line before gwconf
        (``key_line``), written as it was where it reads alone as the key and ``value``. Where it
        cannot place it there, ``put_back`` (or ``set`` without a spelling) as usual."""

    def key_line(self, path: KeyPath) -> str | None:
        """The line of the key at ``path`` as written, without its indent and line ending
        (``x=1  # why``), where the key and a one-line value have a line of their own; None
        otherwise (and for editors that keep no such lines)."""

    def comment_above(self, path: KeyPath) -> str | None:
        """The comment line right above the key at ``path``, stripped, when the key has a line of
        its own; None otherwise (and for editors that keep no comments)."""

    def restoring_from(self, pristine: Callable[[], Any]) -> None:
        """A restore is about to edit the file: ``pristine()`` gives its text before gwconf first
        wrote it (MISSING: there was no file; None: not known), for an editor whose own layout
        around what it added depends on it (the shell block's blank line above it). Asked only
        when needed: the others ignore it."""

    def reads_as(self, intended: Any) -> bool:
        """True only if ``dump()`` parsed from scratch is exactly ``intended`` (False: not shown
        this way, the write gate re-reads the whole text)."""

    def reread(self) -> Any:
        """What ``load(self.fmt, self.dump(), self.source).data()`` gives (the write gate's re-read)."""


def no_spelling(doc: Document, path: KeyPath) -> str | None:
    """The shared ``spelling``: the editor writes each value its own way (``set``'s)."""
    return None


def put_back_as_set(doc: Document, path: KeyPath, value: Any, spelling: str) -> None:
    """The shared ``put_back``: an editor with ``no_spelling`` never gets one; ``set`` it."""
    doc.set(path, value)


def put_before_as_put_back(
    doc: Document,
    path: KeyPath,
    value: Any,
    spelling: str | None,
    following: str,
    above: str | None = None,
    line: str | None = None,
) -> None:
    """The shared ``put_before``: an editor that places a new key only one way puts it there."""
    if spelling is None:
        doc.set(path, value)
    else:
        doc.put_back(path, value, spelling)


def ignore_pristine(doc: Document, pristine: Callable[[], Any]) -> None:
    """The shared ``restoring_from``: an editor that takes out what it added the same way always."""


def eol_added_to_last_line(pristine: Callable[[], Any] | None, text: str, eol: str) -> bool:
    """Whether ``text`` ends with ``eol`` after the last line of ``pristine()`` (the file before
    gwconf first wrote it, as ``restoring_from`` gave it; None: no restore asked), which ended
    with that line and no line break: the line ending gwconf gave it before what it added at
    the end, for a restore in a later run to take back."""
    pristine = pristine() if pristine is not None else None
    if not isinstance(pristine, str) or not pristine or pristine.endswith(("\n", "\r")):
        return False
    last = pristine.rsplit("\n", 1)[-1]
    return bool(last.strip()) and text.endswith(last + eol)


def no_key_line(doc: Document, path: KeyPath) -> str | None:
    """The shared ``key_line``: an editor that puts a key back only its own way."""
    return None


def no_comment_above(doc: Document, path: KeyPath) -> str | None:
    """The shared ``comment_above``: an editor whose keys never follow a comment of the user's."""
    return None


def comment_line_above(text: str, line: int, marks: tuple[str, ...]) -> str | None:
    """The line before the one starting at ``line``, stripped, when it starts with one of
    ``marks`` (a comment's); None at the top of the text or for any other line."""
    if line <= 0:
        return None
    above = text[text.rfind("\n", 0, line - 1) + 1 : line].strip()
    return above if above.startswith(marks) else None


def after_comment(text: str, start: int, stop: int, above: str | None) -> int:
    """Where a key goes between ``start`` (just after the line of the key before it) and ``stop``
    (the start of the line of the key after it): after the first line of those whose stripped
    text is ``above``, the comment that stood right above it (a delete leaves it there, above the
    next key's own); else at ``start``."""
    pos = start
    while above is not None and pos < stop:
        end = text.find("\n", pos, stop)
        end = stop if end < 0 else end + 1
        if text[pos:end].strip() == above:
            return end
        pos = end
    return start


def never_reads_as(doc: Document, intended: Any) -> bool:
    """The shared ``reads_as``: no shortcut, the write gate re-reads the whole text."""
    return False


def reread_from_scratch(doc: Document) -> Any:
    """The shared ``reread``: parse the dumped text again with the format's own loader."""
    from gwconf.formats import load

    return load(doc.fmt, doc.dump(), doc.source).data()


class TotalPattern(Protocol):
    """A compiled pattern that matches at every position (its top level can match nothing, e.g. a
    ``*`` run), so ``match`` returns a match, never None: the scanners call ``.end()`` directly."""

    @property
    def pattern(self) -> str: ...

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str]: ...


def total(pattern: str, flags: int = 0) -> TotalPattern:
    """A pattern that always matches, compiled on first use; checked then (it must match the empty
    string), so the type the checker sees is true and a hot loop needs no None test."""
    return LazyPattern(pattern, flags, total=True)  # its __getattr__ answers as the protocol


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a parser or a walk runs (JSON's C scanner, PyYAML's
    composer). Both make a great many short-lived containers and no reference cycles, and each
    collection they trigger walks every object already loaded again: a fifth of the write path
    on a 16 MB settings.json, and superlinear growth on YAML (4 MB took 2x longer per MB than
    1 MB; bench/scale.py). Nested uses leave the collector as the outermost found it.

    A pause only defers those collections: the first allocation after it ran a full one over
    everything the parse made (a big file's data and nodes: about 0.1 s per 4 MB of YAML, paid
    after each parse). So when the pause made many objects (``_FREEZE_AFTER``) they are frozen
    first (``gc.freeze``): later collections skip them. The parsers' data holds no cycles; the
    cost is that cyclic garbage already waiting then is kept until the process ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > _FREEZE_AFTER:
            gc.freeze()
        gc.enable()


_FREEZE_AFTER = 50_000  # containers made during one pause (about 5 MB of JSON: 16 MB made 145,000)


def keep_until_exit(obj: object) -> None:
    """Keep ``obj`` alive until the process ends, in a process whose entry point ends it with
    ``os._exit`` (``gwconf.kept_until_exit`` is then a list).

    A parsed file's tree is freed object by object when the last name for it goes: 0.15 s for a
    4 MB YAML file's nodes and data, a ninth of ``gwconf apply continue`` on it (issue 15).
    ``os._exit`` hands all the process's memory back at once. In-process callers (tests, which
    run thousands of commands in one process) keep nothing."""
    kept = gwconf.kept_until_exit
    if kept is not None:
        kept.append(obj)


@record
class OpLog:
    """Mixin-ish helper: editors keep their applied operations here."""

    ops: list[Op] = field(default_factory=list)


class NamedValues:
    """Reading shared by documents that are lines of ``NAME=value`` (dotenv, the shell-rc block).

    The subclass keeps ``_lines``: items with ``name`` (None for comments and blanks) and ``value``.
    """

    source: str
    _lines: list[Any]

    def _error(self, text: str, pos: int, message: str) -> Exception:
        from gwconf.errors import ParseError

        return ParseError(self.source, message, *line_col(text, pos))

    def data(self) -> dict[str, str]:
        """NAME -> value; a later line of the same name wins, as when the file is sourced."""
        return {line.name: line.value for line in self._lines if line.name is not None}

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        data = self.data()  # a fresh dict each call: callers may keep it
        if tuple(path) == ():
            return data
        if len(path) == 1 and path[0] in data:
            return data[path[0]]
        return default
