"""TOML files (Codex ``config.toml`` and friends), edited with tomlkit plus text-level placement.

tomlkit keeps comments and layout, but measured on real files (0.15.2; dotted keys: its PR #588) it places new
tables and keys by rules that are hard to undo: a key added to a table lands below the comment
that introduces the next table, a removed table leaves its separating blank line behind (or takes
the next table's comment with it), and a table added next to dotted keys can silently change
their meaning. So gwconf:

- finds the table sections in the text itself (header lines outside strings and arrays),
- inserts a new table as a rendered chunk after its closest relative (else at the end), with one
  blank line on each side it touches, and a new key right after the last key of its table,
- removes a table's sections and exactly one separating blank line; comments right under its
  keys go with it, comments after a blank line or right above the next header stay, and a
  comment above a removed header is kept (set apart from the next header),
- edits values in place through tomlkit (comments, alignment and literal quoting kept),
- keeps the file's final-newline state and line endings,
- re-parses every candidate text and accepts it only when it reads back as intended (with
  tomllib when the file was strict TOML 1.0, the reader Codex's own parser agrees with; with
  tomlkit otherwise); when the text-level way does not, it falls back to plain tomlkit, and
  refuses when that fails too. tomlkit's tree is built only for edits that need it.

Because every edit starts from the text, a table added today and removed next month (a new
process, a fresh parse) gives back the original bytes, not only within one session.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable, Iterator

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import replay
from gwconf.formats._base import (
    MISSING,
    Edit,
    KeyPath,
    Op,
    after_comment,
    changed_edit,
    changed_regions,
    comment_line_above,
    copied,
    detect_eol,
    ignore_pristine,
    lazy,
    line_in,
    paused_gc,
    put_before_as_put_back,
    reread_from_scratch,
    same_run,
    same_shared,
    total,
)
from gwconf.formats._base import same_value as _same
from gwconf.records import record

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any, Literal, TypeGuard


def load(text: str, source: str, *, fmt: str = "toml") -> TomlDocument:
    """Parse ``text``; tomlkit is imported here so commands that touch no TOML never pay for it."""
    return TomlDocument(text, source)


# -- parsing ---------------------------------------------------------------------------------------


def _parse(text: str, source: str, *, unwrap: bool = False) -> Any:
    """tomlkit's document of ``text``; with ``unwrap``, (the document, its plain data). tomlkit
    takes a table that redefines a dotted key's value (``a.b = "x"`` then ``[a.b]``) and fails
    only when asked for the data, with ``KeyAlreadyPresent``: read here, that is a parse error
    naming the line, where ``status`` and ``apply`` ended in "unexpected error" (found by a
    random run of a property test)."""
    import tomlkit

    try:
        doc = tomlkit.parse(text)
        return (doc, dict(doc.unwrap())) if unwrap else doc
    except RecursionError:  # tomlkit and tomllib recurse per nesting level: [[[[...]]]] x 10,000
        raise ParseError(source, "arrays or inline tables are nested too deeply to read") from None
    except Exception as exc:  # tomlkit raises ParseError and assorted TOMLKitErrors on bad input
        raise _parse_error(text, source, exc) from None


def _kind_of(value: Any) -> str:
    """A TOML value's kind, as a refusal names it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "a date or time"


def _likely(said: str, line: str, column: int) -> str | None:
    """What a person most likely wrote where tomllib stopped (``said``) at ``column`` of ``line``.
    Nothing of the line is repeated: an unquoted value may be a key."""
    char, before = line[column : column + 1], line[:column]
    word = line[column:].split(None, 1)[0].rstrip(",]}") if line[column:].strip() else ""
    if said == "Invalid value" and (char.isalpha() or char == "_") and word.lstrip("+-") not in _TOML_WORDS:
        return 'a string without quotes (TOML quotes strings: model = "gpt-5")'
    if ("hex value" in said or "escape" in said.lower() or "Unescaped" in said) and "\\" in before:
        return (
            "a backslash in a double-quoted string starts an escape: write a Windows path in single "
            "quotes ('C:\\Users\\me') or double each backslash"
        )
    if said.startswith("Illegal character") and char in ("", "\n", "\r") and before.count('"') % 2:
        return "a quote that never closes on its line"
    if said.startswith("Expected '=' after a key") and char == ":":
        return "a ':' where TOML writes '=' (key = value)"
    return None


_TOML_WORDS = ("true", "false", "inf", "nan")  # TOML's bare values: tomllib stopped after one


def _parse_error(text: str, source: str, exc: Exception) -> ParseError:
    """tomllib's messages are clearer (tomlkit says "Unexpected character: '\\x00'" for an
    unterminated array); use them when tomllib rejects the text too (TOML 1.1 may differ)."""
    line = getattr(exc, "line", None)
    col = getattr(exc, "col", None)
    message = re.sub(r" at line \d+ col \d+$", "", str(exc)) or type(exc).__name__
    column = col + 1 if isinstance(col, int) else None
    import tomllib

    try:
        tomllib.loads(text)
    except RecursionError:  # nested too deeply for tomllib too: tomlkit's message it is
        return ParseError(source, message, line, column)
    except tomllib.TOMLDecodeError as err:
        text_message = str(err)
        if "already exists" in message:  # tomlkit names the duplicate key, tomllib does not
            text_message = re.sub(r"^.*?(?= \(at )", message.rstrip("."), text_message)
        m = re.search(r" \(at line (\d+), column (\d+)\)$", text_message)
        if m:
            at_line, at_column = int(m.group(1)), int(m.group(2))
            said = text_message[: m.start()]
            likely = _likely(said, text.split("\n")[at_line - 1] if at_line >= 1 else "", at_column - 1)
            return ParseError(
                source, f"{likely}; tomllib says: {said}" if likely else said, at_line, at_column
            )
        m = re.search(r" \(at end of document\)$", text_message)
        if m:
            end_line = text.count("\n") + 1
            end_col = len(text) - (text.rfind("\n") + 1) + 1
            return ParseError(
                source, text_message[: m.start()] + " at the end of the file", end_line, end_col
            )
        return ParseError(source, text_message, line, column)
    return ParseError(source, message, line, column)


# -- the text's table sections -----------------------------------------------------------------


@record
class _Row:
    start: int
    end: int  # after the line ending
    kind: str  # "blank", "comment", "header" or "other" (keys, values, lines inside strings)


class _Section:
    """A header line and the lines up to the next header; the preamble has ``header`` False.
    ``text`` holds its characters at ``start``..``end`` (an older text may: ``_sections_since``).

    Its rows are classified when first asked for (``_rows``): a section starts where the lexer
    is clean (a header line, or the file's start), so its own lines are all that is needed, and
    most edits look at one or two sections of a big file (issue 15)."""

    __slots__ = ("_rows", "aot", "end", "header", "path", "start", "text")

    def __init__(
        self, path: tuple[str, ...], aot: bool, header: bool, text: str, start: int, end: int
    ) -> None:
        self.path = path
        self.aot = aot
        self.header = header
        self.text = text
        self.start = start
        self.end = end
        self._rows: list[_Row] | None = None

    @property
    def rows(self) -> list[_Row]:
        if self._rows is None:
            self._rows = _rows(self.text, self.start, self.end) if self.end > self.start else []
        return self._rows


_LEX_SPECIAL = lazy(r"""[#"'\[\]{}]""")
_BASIC_REST = lazy(r'[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*')  # a basic string's body, escapes skipped
_LITERAL_REST = lazy(r"[^'\n]*")
_NOT_LITERAL = lazy(r"['\x00-\x08\x0a-\x1f\x7f]")  # what a literal string cannot hold
_BARE_LF = lazy(r"(?<!\r)\n")
_ML_BASIC_BODY = lazy(r'(?:[^"\\]|\\[\s\S]|"(?!""))*')


def _advance(line: str, ml: str | None, depth: int) -> tuple[str | None, int]:
    """Carry the lexer state (open multi-line string, bracket depth) across one line, jumping
    from one character that matters to the next."""
    i, n = 0, len(line)
    while i < n:
        if ml is not None:
            if ml == '"""':
                i = _ML_BASIC_BODY.match(line, i).end()  # type: ignore[union-attr]
                if not line.startswith(ml, i):
                    return ml, depth
            else:
                i = line.find(ml, i)
                if i < 0:
                    return ml, depth
            i += 3
            extra = 0
            while i < n and line[i] == ml[0] and extra < 2:  # `""""` ends the content with a quote
                i += 1
                extra += 1
            ml = None
            continue
        found = _LEX_SPECIAL.search(line, i)
        if found is None:
            break
        i = found.start()
        c = line[i]
        if c == "#":
            break
        if c in "\"'":
            if line.startswith(c * 3, i):
                ml = c * 3
                i += 3
                continue
            rest = _BASIC_REST if c == '"' else _LITERAL_REST
            i = rest.match(line, i + 1).end() + 1  # type: ignore[union-attr]
            continue
        depth = depth + 1 if c in "[{" else max(0, depth - 1)
        i += 1
    return ml, depth


_HEADER_KEY_PATTERN = r"""[A-Za-z0-9_-]+|"[^"\\\x00-\x1f\x7f]*"|'[^'\x00-\x08\x0a-\x1f\x7f]*'"""
_HEADER_KEY = lazy(_HEADER_KEY_PATTERN)
_SIMPLE_HEADER = lazy(
    rf"(?P<open>\[\[?)[ \t]*(?P<keys>(?:{_HEADER_KEY_PATTERN})(?:[ \t]*\.[ \t]*(?:{_HEADER_KEY_PATTERN}))*)"
    rf"[ \t]*(?P<close>\]\]?)[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
)


# ``[a.b]`` and ``[projects."/home/me/x"]`` (Codex's trusted folders): bare keys and quoted ones
# without escapes, dotted without spaces; the most common headers, read without the general
# pattern and its cache
_PLAIN_KEY = r'(?:[A-Za-z0-9_-]+|"[^"\\\x00-\x1f\x7f]*")'
_PLAIN_HEADER = lazy(rf"[ \t]*\[[ \t]*({_PLAIN_KEY}(?:\.{_PLAIN_KEY})*)[ \t]*\][ \t]*\r?\n?")
_PLAIN_PARTS = lazy(r'([A-Za-z0-9_-]+)|"([^"]*)"')


def _header_path(line: str) -> tuple[tuple[str, ...], bool]:
    """The key path of a ``[header]`` line and whether it is an ``[[array]]`` element."""
    plain = _PLAIN_HEADER.fullmatch(line)
    if plain is None:
        return _any_header_path(line)
    keys = plain.group(1)
    if '"' not in keys:
        return tuple(keys.split(".")), False
    return tuple(bare or quoted for bare, quoted in _PLAIN_PARTS.findall(keys)), False


@functools.lru_cache(maxsize=4096)
def _any_header_path(line: str) -> tuple[tuple[str, ...], bool]:
    match = _SIMPLE_HEADER.fullmatch(line.strip())
    if match is not None and len(match.group("open")) == len(
        match.group("close")
    ):  # bare keys and quoted keys without escapes: read here, in microseconds
        parts = tuple(
            key[1:-1] if key[0] in "\"'" else key for key in _HEADER_KEY.findall(match.group("keys"))
        )
        return parts, match.group("open") == "[["
    node: Any = _strict_read(line.strip())
    if node is None:  # TOML 1.1 in the header (tomllib reads the 1.0 forms)
        import tomlkit

        node = tomlkit.parse(line.strip()).unwrap()
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        key = next(iter(node))
        path.append(key)
        node = node[key]
        if isinstance(node, list):
            return tuple(path), True
    return tuple(path), False


def _rows(text: str, start: int, stop: int) -> list[_Row]:
    """The lines of ``text[start:stop]`` by kind, the lexer starting clean at ``start``."""
    rows: list[_Row] = []
    ml: str | None = None
    depth = 0
    pos = start
    while pos < stop:
        newline = text.find("\n", pos, stop)
        end = stop if newline < 0 else newline + 1
        line = text[pos:end]
        stripped = line.strip()
        if ml is not None:
            kind = "other"
            ml, depth = _advance(line, ml, depth)
        elif not stripped:
            kind = "blank"
        elif stripped.startswith("#"):
            kind = "comment" if depth == 0 else "other"
        elif stripped.startswith("[") and depth == 0:
            kind = "header"
        else:
            kind = "other"
            ml, depth = _advance(line, ml, depth)
        rows.append(_Row(pos, end, kind))
        pos = end
    return rows


# A line that leaves the lexer as clean as it found it and is no header, when the file has no
# multi-line string: brackets balanced within the line (three levels deep at most), strings closed
# on it, an optional comment. Runs of such lines are skipped at C speed; any other line goes
# through ``_advance`` as before. A match only ever means "clean after it": when in doubt the
# pattern fails, and the slow way decides.
_ATOM = r"""[^\[\]{}"'#\n]++|"[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+"|'[^'\n]*+'"""
_LEVEL0 = rf"(?:{_ATOM})*+"
_LEVEL1 = rf"(?:{_ATOM}|\[{_LEVEL0}\]|\{{{_LEVEL0}\}})*+"
_LEVEL2 = rf"(?:{_ATOM}|\[{_LEVEL1}\]|\{{{_LEVEL1}\}})*+"
_LEVEL3 = rf"(?:{_ATOM}|\[{_LEVEL2}\]|\{{{_LEVEL2}\}})*+"
_CLEAN_LINES = total(rf"(?:(?![ \t]*+\[){_LEVEL3}(?:#[^\n]*+)?\n|[ \t]*+\[[^\n]*+\n)*+")
# the header lines of a run of such lines: each line of the run starts where the lexer is clean,
# and only header lines start with ``[`` there; a plain header's keys (``_PLAIN_HEADER``'s) are
# group 1, read in the same match, not a second one per header (a 4 MB config.toml has 33k)
_PLAIN_HEADER_LINES = lazy(
    rf"^[ \t]*\[(?:[ \t]*({_PLAIN_KEY}(?:\.{_PLAIN_KEY})*)[ \t]*\][ \t]*\r?\n|[^\n]*\n)", re.M
)


# texts over this many characters take the fast scan (tests set it to force either way): any
# size now, the patterns coming compiled from ``gwconf._regex_code`` (compiling them was 5 ms, a
# common config.toml's whole scan, when only files over 64 KB took it). Line by line in Python,
# the 6 KB files of a home took 10M of a dry run's 666M instructions more (issue 15)
_FAST_SCAN = -1
# a scan that may stop early looks at this many characters first, then twice as many each time,
# up to _SCAN_WINDOW: the first header of a 6 KB file is near its top (a 64 KB window made the
# dry run match each file whole for it: 10M instructions)
_SCAN_FIRST_WINDOW = 1 << 10
_SCAN_WINDOW = 1 << 16


def _sections(text: str) -> list[_Section]:
    """The preamble followed by one section per header line, in text order.

    A header is a line starting with ``[`` where the lexer is clean (outside multi-line strings
    and arrays). Lines are followed one by one only where that state can change; elsewhere
    ``_CLEAN_LINES`` skips them in C (a 4 MB config.toml: 1.2 s before, per line in Python)."""
    starts: list[tuple[int, tuple[str, ...], bool]] = []  # (offset, path, aot) of each header
    _scan_headers(text, 0, starts)
    return _made_sections(text, starts)


def _scan_headers(
    text: str,
    pos: int,
    starts: list[tuple[int, tuple[str, ...], bool]],
    after: int = 0,
    known: set[int] | None = None,
    first: bool = False,
) -> int:
    """Add the headers from ``pos`` (where the lexer is clean) on to ``starts``; returns where
    it stopped: the end of the text, or, given ``known`` offsets, the first header at or after
    ``after`` whose offset is one of them (that header is not added), or with ``first`` the
    first header (added)."""
    ml: str | None = None
    depth = 0
    size = len(text)
    # no multi-line strings: a line's state is its own
    fast = size > _FAST_SCAN and '"""' not in text and "'''" not in text
    step = min(_SCAN_FIRST_WINDOW, _SCAN_WINDOW)
    while pos < size:
        if fast and ml is None and depth == 0:
            # a scan that may stop early (at the first header, or at one already known): a
            # window at a time, not the whole run at once (a key's line edited at the top of a
            # 4 MB file matched all of it before finding the next header)
            window = min(size, pos + step) if first or known is not None else size
            step = min(step * 2, _SCAN_WINDOW)
            run_end = _CLEAN_LINES.match(text, pos, window).end()
            if run_end > pos:
                for found in _PLAIN_HEADER_LINES.finditer(text, pos, run_end):
                    at = found.start()
                    if known is not None and at >= after and at in known:
                        return at
                    keys = found.group(1)
                    if keys is None:
                        path, aot = _header_path(found.group())
                    elif '"' in keys:
                        path, aot = (
                            tuple(bare or quoted for bare, quoted in _PLAIN_PARTS.findall(keys)),
                            False,
                        )
                    else:
                        path, aot = tuple(keys.split(".")), False
                    starts.append((at, path, aot))
                    if first:
                        return at
                pos = run_end
            if pos >= size:
                break
        newline = text.find("\n", pos)
        end = size if newline < 0 else newline + 1
        line = text[pos:end]
        stripped = line.strip()
        if ml is not None:
            ml, depth = _advance(line, ml, depth)
        elif not stripped or stripped.startswith("#"):
            pass
        elif stripped.startswith("[") and depth == 0:
            if known is not None and pos >= after and pos in known:
                return pos
            path, aot = _header_path(line)
            starts.append((pos, path, aot))
            if first:
                return pos
        else:
            ml, depth = _advance(line, ml, depth)
        pos = end
    return size


def _first_header(text: str) -> int:
    """Where the first header line starts (the end of the text when there is none): the end of
    the preamble, found without reading the headers below it."""
    found: list[tuple[int, tuple[str, ...], bool]] = []
    _scan_headers(text, 0, found, first=True)
    return found[0][0] if found else len(text)


def _made_sections(text: str, starts: list[tuple[int, tuple[str, ...], bool]]) -> list[_Section]:
    size = len(text)
    first = starts[0][0] if starts else size
    sections = [_Section((), False, False, text, 0, first)]
    for k, (start, path, aot) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else size
        sections.append(_Section(path, aot, True, text, start, stop))
    return sections


def _sections_since(old: str, old_sections: list[_Section], new: str) -> list[_Section]:
    """``_sections(new)``, from those of ``old`` and the one span in which the texts differ. The
    headers before that span stay where they were; the scan starts again at the last header
    before it (the lexer is clean there) and stops at the first header after it that the old
    scan also found, moved by the change in length: the scan is a function of the lexer state
    and the text left, both the same there as in the old scan, so the rest is the old rest.

    The sections before the scan's start are the old objects (same offsets, same characters:
    their ``text`` may be the older one), and so are those after it when the length did not
    change; making 33k section objects again was most of the cost of a new key in a big file."""
    import bisect

    edit = changed_edit(old, new)
    shift = edit.length - (edit.end - edit.start)
    old_starts = [s.start for s in old_sections[1:]]
    k = bisect.bisect_left(old_starts, edit.start) - 1  # the last header before the change
    begin = old_starts[k] if k >= 0 else 0
    later = bisect.bisect_left(old_starts, edit.end + 1)  # old headers after the change
    known = {start + shift for start in old_starts[later:]}
    found: list[tuple[int, tuple[str, ...], bool]] = []
    stop = _scan_headers(new, begin, found, edit.start + edit.length, known)
    rest: list[_Section] = []
    if stop < len(new):
        rest = old_sections[1 + bisect.bisect_left(old_starts, stop - shift) :]
        if shift:
            rest = [_Section(s.path, s.aot, True, new, s.start + shift, s.end + shift) for s in rest]
    size = len(new)
    ends = [start for start, _, _ in found[1:]] + [rest[0].start if rest else size]
    if k >= 0 and found and found[0][0] == begin:
        sections = old_sections[: k + 1]
    elif k >= 0:  # the header at ``begin`` is gone: the section above it now reaches further
        above = old_sections[k]
        sections = old_sections[:k]
        sections.append(
            _Section(
                above.path, above.aot, above.header, new, above.start, found[0][0] if found else ends[-1]
            )
        )
    else:
        sections = [_Section((), False, False, new, 0, found[0][0] if found else ends[-1])]
    sections += [
        _Section(path, aot, True, new, start, stop_at)
        for (start, path, aot), stop_at in zip(found, ends, strict=False)
    ]
    sections += rest
    return sections


def _attached_start(section: _Section, text: str) -> int:
    """Where the comment lines that sit right above the next header begin (they belong to it)."""
    if section.end >= len(text) or not section.rows:
        return section.end if section.rows else 0
    index = len(section.rows)
    first = 1 if section.header else 0
    while index > first and section.rows[index - 1].kind == "comment":
        index -= 1
    return section.rows[index].start if index < len(section.rows) else section.end


def _gap_start(section: _Section, text: str) -> int:
    """Where a table's own lines end: comments right under its last key belong to it; from the
    first blank line after them on, comments are free-standing (or introduce the next table)."""
    rows = section.rows
    index = len(rows)
    first = 1 if section.header else 0
    while index > first and rows[index - 1].kind in ("blank", "comment"):
        index -= 1
    run = rows[index:]
    blank = next((row for row in run if row.kind == "blank"), None)
    if blank is not None:
        return blank.start
    if run and section.end < len(text):
        return run[0].start  # comment lines right above the next header
    return section.end


def _last_line(text: str) -> str:
    """The last complete line of ``text`` (which ends with a newline)."""
    return text.rsplit("\n", 2)[-2] if text.count("\n") >= 1 else text


def _ends_blank(text: str) -> bool:
    return bool(text) and text.endswith("\n") and not _last_line(text).strip()


def _starts_blank(text: str) -> bool:
    return bool(text) and not text.split("\n", 1)[0].strip()


def _insert_chunk(text: str, chunk: str, path: tuple[str, ...], eol: str, sections: list[_Section]) -> str:
    """Put a rendered table (ending with a newline) after its closest relative, else at the end;
    ``sections`` are the text's (``_sections(text)``)."""
    best: _Section | None = None
    best_len = 0
    for section in sections[1:]:
        common = 0
        for a, b in zip(section.path, path, strict=False):
            if a != b:
                break
            common += 1
        if common and common >= best_len:
            best, best_len = section, common
    return _insert_after(text, chunk, best, eol)


def _insert_after(text: str, chunk: str, anchor: _Section | None, eol: str) -> str:
    """Put ``chunk`` after the lines of ``anchor`` (at the end when None), one blank line apart
    from what is around it; comments right above the next header stay with that header."""
    at = _attached_start(anchor, text) if anchor is not None else len(text)
    if at == len(text):
        # at the end: before the blank lines that end the file, which stay its end. After them,
        # the table stood below the file's own trailing blank lines and the final-newline state
        # added as many again below it: a restore could take out one blank line, not both runs
        # (a real elia config.toml ending in three blank lines, then a table the user added)
        at = _content_end(text)
    before, after = text[:at], text[at:]
    if before and not before.endswith("\n"):
        before += eol
    if before and not _ends_blank(before):
        before += eol
    if after and not _starts_blank(after):
        chunk += eol
    return before + chunk + after


def _content_end(text: str) -> int:
    """Just past the line ending of the text's last line that is not blank (``len(text)`` when
    no blank line ends it, or nothing but blanks is in it)."""
    body, final = _split_final(text)
    if final is None or not final.count("\n") > 1:
        return len(text)
    return len(body) + (2 if final.startswith("\r\n") else 1)


def _names_only(path: tuple[str | int, ...]) -> TypeGuard[tuple[str, ...]]:
    """Whether ``path`` names tables and keys only (no array index): a path a header can spell."""
    return all(isinstance(p, str) for p in path)


def _element_family(
    sections: list[_Section], aot: tuple[str | int, ...], index: int
) -> list[_Section] | None:
    """The sections of one ``[[aot]]`` element: its header and the sub-tables written under it."""
    elements = [i for i, s in enumerate(sections) if s.aot and s.path == aot]
    if not -len(elements) <= index < len(elements):
        return None
    first = last = elements[index]
    while (
        last + 1 < len(sections)
        and sections[last + 1].path[: len(aot)] == aot
        and not (sections[last + 1].aot and sections[last + 1].path == aot)
    ):
        last += 1
    return sections[first : last + 1]


def _home_section(sections: list[_Section], path: tuple[str | int, ...]) -> _Section | None:
    """The one section that holds the keys of the table at ``path`` (``()``: the preamble), also
    inside an ``[[aot]]`` element; None when it has none (implicit, dotted, inline) or is ambiguous."""
    positions = [(k, part) for k, part in enumerate(path) if isinstance(part, int)]
    if not positions:
        homes = [s for s in sections if s.path == path and not s.aot and (s.header or not path)]
        return homes[0] if len(homes) == 1 else None
    if len(positions) > 1:
        return None
    k, index = positions[0]
    family = _element_family(sections, path[:k], index)
    if family is None:
        return None
    rest = path[k + 1 :]
    if not rest:
        return family[0]
    homes = [s for s in family if s.path == (*path[:k], *rest) and not s.aot]
    return homes[0] if len(homes) == 1 else None


def _tables_under(sections: list[_Section], path: tuple[str, ...]) -> list[_Section]:
    """The sections whose header names ``path`` or a table under it: what ``_remove_sections``
    cuts, none when no header names it."""
    size = len(path)
    return [section for section in sections[1:] if section.path[:size] == path]


def _remove_sections(text: str, path: tuple[str, ...], sections: list[_Section]) -> str | None:
    """Cut the table at ``path`` (and its sub-tables) out of the text (``_cut_sections``)."""
    matching = _tables_under(sections, path)
    return _cut_sections(text, matching) if matching else None


def _cut_sections(text: str, matching: list[_Section]) -> str:
    """Cut ``matching`` (a table and its sub-tables, or one ``[[aot]]`` element's) out of the
    text: their header and key lines, never a comment line (gwconf writes none: any comment in or
    after what it wrote is the user's), and one blank line that separated them from what was above.

    The text is walked back from its end once: what is kept after ``pos`` gathers in ``kept``
    (last piece first) and is joined at the end. Cutting each key line out of the whole text
    was a copy of the file per line (a 40k-key table in a 0.9 MB file: 0.9 s)."""
    kept: list[str] = []  # the text after ``text[:pos]``, its last piece first
    pos = len(text)
    for section in reversed(matching):
        own = [row for row in section.rows if row.kind in ("header", "other")]
        for row in reversed(own[1:]):
            _keep(kept, text[row.end : pos])
            pos = row.start
        start, stop = own[0].start, own[0].end
        _keep(kept, text[stop:pos])
        pos = start
        # ``text[:start]`` (a line start) ends with the newline of ``above``'s line
        above = text.rfind("\n", 0, start - 1) + 1 if start else 0
        last = text[above:start]
        if start and last.lstrip().startswith("#"):
            # a comment written above the removed header: keep it, but not glued to the next one
            first = _first_kept_line(kept)
            if kept and first.strip() and not first.lstrip(" \t").startswith("#"):
                kept.append("\r\n" if last.endswith("\r\n") else "\n")
        elif not start or not last.strip():
            first = _first_kept_line(kept)
            if not kept or not first.strip() or first.lstrip(" \t").startswith("#"):
                if start and kept and first in ("\n", "\r\n") and last not in ("\n", "\r\n"):
                    # the empty line below is the one the insert added (after a line of blanks
                    # above, it adds none there): the user's line of spaces stays (a real
                    # kimi-code config.toml's " " line between two tables became empty)
                    _drop_kept(kept, len(first))
                elif start:
                    pos = above
                elif kept and not first.strip():
                    _drop_kept(kept, len(first))
    return text[:pos] + "".join(reversed(kept))


def _keep(kept: list[str], piece: str) -> None:
    if piece:
        kept.append(piece)


def _first_kept_line(kept: list[str]) -> str:
    """The first line of the kept text (``kept`` holds it last piece first), with its newline."""
    line = ""
    for piece in reversed(kept):
        newline = piece.find("\n")
        if newline >= 0:
            return line + piece[: newline + 1]
        line += piece
    return line


def _drop_kept(kept: list[str], size: int) -> None:
    """Take the first ``size`` characters off the kept text."""
    while size:
        piece = kept.pop()
        if len(piece) > size:
            kept.append(piece[size:])
            return
        size -= len(piece)


def _insert_key_line(text: str, section: _Section, line: str, eol: str) -> str:
    """Add ``line`` (no line ending) after the last key of ``section``, in its indentation."""
    content = [row for row in section.rows if row.kind == "other"]
    indent = ""
    if content:
        first = text[content[0].start : content[0].end]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        at = content[-1].end
    elif section.header:
        at = section.rows[0].end
    else:
        at = _attached_start(section, text)
    before, after = text[:at], text[at:]
    if before and not before.endswith("\n"):
        before += eol
    return before + indent + line + eol + after


_KEY_LINE = lazy(r"""[ \t]*(?P<key>[A-Za-z0-9_-]+|"(?:[^"\\\n])*"|'[^'\n]*')[ \t]*=[ \t]*""")
_BARE_VALUE = lazy(r"[^\s#]+")
_BASIC_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _key_lines(text: str, section: _Section, key: str) -> Iterator[tuple[_Row, int]]:
    """Each ``key = ...`` line of ``section`` (a line inside a multi-line string may look like
    one: the callers' read-back refuses what that would get wrong), and where its value starts."""
    for row in section.rows:
        if row.kind == "other":
            match = _KEY_LINE.match(text, row.start, row.end)
            if match is not None and match.group("key").strip("\"'") == key:
                yield row, match.end()


def _scalar_line(text: str, section: _Section, key: str) -> tuple[_Row, int, int] | None:
    """The one ``key = value`` line of ``section`` whose value is a one-line scalar with at most
    a comment after it, and where in the text its value starts and ends; None when there is no
    such line, or more than one, or it is not simple enough to be sure (a line inside a
    multi-line string may look like one: the write gate's read-back refuses that edit)."""
    found: list[tuple[_Row, int, int]] = []
    for row, value_start in _key_lines(text, section, key):
        line = text[row.start : row.end]
        start = value_start - row.start
        end = _scalar_end(line, start)
        if end is None:
            return None
        rest = line[end:].strip(" \t\r\n")
        if rest and not rest.startswith("#"):
            return None
        found.append((row, row.start + start, row.start + end))
    return found[0] if len(found) == 1 else None


def _replace_scalar(text: str, section: _Section, key: str, value: Any) -> str | None:
    """Swap the value token on the one ``key = value`` line of ``section`` for ``value`` (text,
    integer or boolean), keeping the spacing, the comment after it and a literal string's quotes;
    None when that line is not simple enough to be sure (the caller falls back to tomlkit)."""
    found = _scalar_line(text, section, key)
    if found is None:
        return None
    _, start, end = found
    rendered = _render_scalar(value, literal=text[start] == "'")
    return None if rendered is None else text[:start] + rendered + text[end:]


def _remove_key_line(text: str, section: _Section, key: str) -> str | None:
    """The text without the one ``key = value`` line of ``section`` (a one-line scalar and the
    comment after it), as tomlkit deletes that key, without building tomlkit's tree; None when
    the line is not simple enough to be sure (the caller falls back to tomlkit). Restoring
    Codex after a hand edit deletes five such keys one at a time, and each was a tomlkit parse
    of the whole file (a 6 KB config.toml: 167 ms of CPU for the command, 60 ms now; issue 15)."""
    found = _scalar_line(text, section, key)
    if found is None:
        return None
    row = found[0]
    return text[: row.start] + text[row.end :]


# a multi-line string's body and close, from just after its opening quotes (``""""`` and
# ``'''''`` end the content with one or two quotes)
_ML_CLOSE = {
    '"""': lazy(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""(?:""?(?!"))?'),
    "'''": lazy(r"[\s\S]*?'''(?:''?(?!'))?"),
}


def _multi_line_value(text: str, section: _Section, key: str) -> tuple[_Row, int, int] | None:
    """The one line of ``section`` where ``key`` takes a multi-line string, and where that
    string starts and ends, when at most a comment follows its close; None otherwise (then
    ``spelling`` has none, and the value goes back as ``set`` writes it)."""
    found: list[tuple[_Row, int, int]] = []
    for row, start in _key_lines(text, section, key):
        close = _ML_CLOSE.get(text[start : start + 3])
        found_close = None if close is None else close.match(text, start + 3, section.end)
        if found_close is None:
            continue
        newline = text.find("\n", found_close.end(), section.end)
        rest = text[found_close.end() : section.end if newline < 0 else newline].strip(" \t\r")
        if rest and not rest.startswith("#"):
            return None
        found.append((row, start, found_close.end()))
    return found[0] if len(found) == 1 else None


def _scalar_end(line: str, start: int) -> int | None:
    """Where the one-line scalar starting at ``start`` ends; None for anything else."""
    if line.startswith(('"""', "'''"), start) or start >= len(line) or line[start] in "[{":
        return None
    if line[start] == "'":
        close = line.find("'", start + 1)
        return None if close < 0 else close + 1
    if line[start] == '"':
        i = start + 1
        while i < len(line) and line[i] not in '"\n':
            i += 2 if line[i] == "\\" else 1
        return i + 1 if i < len(line) and line[i] == '"' else None
    match = _BARE_VALUE.match(line, start)
    return match.end() if match else None


def _render_scalar(value: Any, literal: bool = False) -> str | None:
    """TOML text for a string, integer or boolean (a string as tomlkit writes it, or as a literal
    'string' when the old value was one and the new one can be); None for other values."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    if literal and not _NOT_LITERAL.search(value):
        return f"'{value}'"
    out = []
    for char in value:
        if char in _BASIC_ESCAPES:
            out.append(_BASIC_ESCAPES[char])
        elif char < " " or char == "\x7f":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


# -- values ----------------------------------------------------------------------------------------

_SCALARS = (str, bool, int, float, datetime.datetime, datetime.date, datetime.time)


def _check_value(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise WriteRefused(f"{where}: TOML keys are text, got {key!r}.")
            _check_value(item, where)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, where)
    elif value is None:
        raise WriteRefused(f"{where}: TOML has no null value; delete the key instead.")
    elif not isinstance(value, _SCALARS):
        raise WriteRefused(f"{where}: cannot write a {type(value).__name__} to TOML.")


# -- reading an edited text back without parsing all of it ---------------------------------------


def _same_top(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """``_same`` for two tables that share most of their values: a shared value is not walked."""
    return a.keys() == b.keys() and all(a[k] is b[k] or _same(a[k], b[k]) for k in a)


def _clean_at(text: str, start: int, pos: int) -> bool:
    """Whether the lexer, clean at line start ``start``, is clean again at line start ``pos``
    (outside any multi-line string or array), following ``_sections``' reading of each line."""
    ml: str | None = None
    depth = 0
    while start < pos:
        newline = text.find("\n", start, pos)
        end = pos if newline < 0 else newline + 1
        line = text[start:end]
        stripped = line.strip()
        if ml is not None or not (
            not stripped or stripped.startswith("#") or (stripped.startswith("[") and depth == 0)
        ):
            ml, depth = _advance(line, ml, depth)
        start = end
    return ml is None and depth == 0


def _only_notes(text: str, start: int, stop: int) -> bool:
    """Only blank and comment lines in ``text[start:stop]`` (read where the lexer is clean)."""
    return all(not line.strip() or line.lstrip().startswith("#") for line in text[start:stop].splitlines())


def _local_read(
    base: str,
    base_data: dict[str, Any],
    new: str,
    edits: list[Edit],
    sections: list[_Section] | Callable[[], list[_Section]],
) -> dict[str, Any] | None:
    """What ``new`` reads as with tomllib, found by reading only the lines ``edits`` changed in
    ``base`` (which reads as ``base_data``; ``sections`` are its sections, or what makes them when
    first needed), or None when this cannot be shown (the caller then reads ``new`` whole).

    Each changed span, widened to whole lines, must start where the lexer is clean and both its
    old and its new lines must read alone. The old lines may only hold top-level keys defined
    nowhere else (no header outside them names one, and the file's value is exactly theirs),
    the new lines only top-level keys the rest of the file does not have. Lines that hold a
    header sit where a following key line cannot join their table (only blank and comment lines
    until the next header), and outside the preamble hold no key before their first header.
    Then the whole text reads as ``base_data`` without the old keys, with the new ones.

    ``base`` was read whole, so the lexer is clean at its end: lines added there (Codex's new
    provider table) need neither its sections nor a walk from the header above; lines of the
    preamble need only where the first header is. A 4 MB config.toml's header scan was a fifth
    of ``gwconf apply codex`` (issue 15)."""
    import bisect

    known = sections if isinstance(sections, list) else None

    def every() -> list[_Section]:
        nonlocal known
        if known is None:
            known = sections() if callable(sections) else sections
        return known

    known_starts: list[int] | None = None

    def starts_of_every() -> list[int]:
        """Where each section starts, in order (listed once, for the spans' lookups)."""
        nonlocal known_starts
        if known_starts is None:
            known_starts = [s.start for s in every()]
        return known_starts

    spans: list[list[int]] = []
    for old_start, old_end, new_start, new_end in changed_regions(edits):
        line = base.rfind("\n", 0, old_start) + 1
        stop = old_end
        if 0 < stop < len(base) and base[stop - 1] != "\n":
            newline = base.find("\n", stop)
            stop = len(base) if newline < 0 else newline + 1
        span = [line, stop, new_start - (old_start - line), new_end + (stop - old_end)]
        # lines added above or below lines that stay (a trimmed edit may begin inside them): the
        # lines that stay are left out, so they are read where they are, as they were
        size = stop - line
        if size and span[3] - span[2] > size:
            if new.startswith(base[line:stop], span[3] - size):
                span[1], span[3] = line, span[3] - size
            elif new.startswith(base[line:stop], span[2]):
                span[0], span[2] = stop, span[2] + size
        if spans and span[0] <= spans[-1][1]:
            spans[-1][1], spans[-1][3] = span[1], span[3]
        else:
            spans.append(span)
    if not spans:
        return None
    done_old = done_new = 0  # the lines between the spans: the same in both texts
    for old_start, old_end, new_start, new_end in spans:
        # whole lines in both texts: new text that ends without a line break runs on into the
        # line after it (``x = 1 #`` put above ``b = 2`` comments it out), and new text after a
        # last line without one continues that line
        if any(
            0 < at < len(text) and text[at - 1] != "\n"
            for text, at in ((base, old_start), (base, old_end), (new, new_start), (new, new_end))
        ) or (old_start == len(base) and base and base[-1] != "\n"):
            return None
        if old_start - done_old != new_start - done_new or not same_run(
            base, done_old, new, done_new, old_start - done_old
        ):
            return None
        done_old, done_new = old_end, new_end
    if len(base) - done_old != len(new) - done_new or not same_run(
        base, done_old, new, done_new, len(base) - done_old
    ):
        return None
    if known is not None:
        first_header = known[1].start if len(known) > 1 else len(base)
    else:
        first_header = _first_header(base)
    size = len(base)
    data = dict(base_data)
    added: list[tuple[dict[str, Any], set[str], str, int, set[str]]] = []
    header_reach = -1  # where the table of a header a span adds or removes can reach in ``base``
    for old_start, old_end, new_start, new_end in spans:
        if old_start <= header_reach:
            return None  # lines added under a header another span added or removed: their table
        if old_start < first_header:
            home_start = 0
        elif old_start in (first_header, size):
            home_start = old_start  # a header's start, or the end of a text that reads whole: clean
        else:
            starts = starts_of_every()
            home_start = starts[bisect.bisect_right(starts, old_start) - 1]
        if not _clean_at(base, home_start, old_start):
            return None
        old_text, new_text = base[old_start:old_end], new[new_start:new_end]
        old_read, new_read = _strict_read(old_text), _strict_read(new_text)
        if old_read is None or new_read is None:
            return None
        old_data, new_data = old_read, new_read
        old_parts, new_parts = _sections(old_text), _sections(new_text)
        if old_start > first_header and any(
            row.kind == "other" for parts in (old_parts, new_parts) for row in parts[0].rows
        ):
            # keys before a header here belong to the table above: only the values of its keys
            # changed in place can be shown (``gwconf use`` moving a provider's base_url)
            section = every()[bisect.bisect_right(starts_of_every(), old_start) - 1]
            if not _replaced_in_table(data, section, old_end, old_read, new_read, old_parts, new_parts):
                return None
            continue
        if len(old_parts) > 1 or len(new_parts) > 1:
            if old_end == size:
                next_header = size
            else:
                starts = starts_of_every()
                following = bisect.bisect_left(starts, old_end, 1)  # the first header from there on
                next_header = starts[following] if following < len(starts) else size
            if not _only_notes(base, old_end, next_header):
                return None
            header_reach = next_header
        for key, value in old_data.items():
            if key not in data or not _same(data[key], value):
                return None
            # a header elsewhere naming the key: only a table's can be (a scalar or an array the
            # preamble defines cannot be extended by a header in a file that reads; tables from
            # the lines of a header may be split around other headers)
            if (isinstance(value, dict) or old_end > first_header) and any(
                s.header and not old_start <= s.start < old_end and s.path[0] == key for s in every()
            ):
                return None
            del data[key]
        declared = {part.path[0] for part in new_parts if len(part.path) == 1}  # a [key] of its own
        # [[key]] elements (and their sub-tables) only: appended to that array of tables
        elements = {
            key
            for key in new_data
            if key not in old_data
            and (family := [part for part in new_parts[1:] if part.path[0] == key])
            and family[0].aot
            and family[0].path == (key,)
        }
        added.append((new_data, declared, new_text[: new_parts[0].end], old_start, elements))
    preamble: dict[str, Any] | None = None
    for new_data, declared, new_preamble, at, elements in added:
        for key, value in new_data.items():
            if key not in data:
                data[key] = value
                continue
            if (
                key in elements
                and isinstance(value, list)
                and isinstance(data[key], list)
                and any(s.aot and s.path == (key,) for s in every())
                and all(s.start < at for s in every() if s.header and s.path[0] == key)
            ):
                # elia's [[models]]: new elements after every header of that array in the file (a
                # [key.sub] below them would join the last new one), which holds an array of
                # tables (a [[key]] header; a static array cannot be extended)
                data[key] = [*data[key], *value]
                continue
            if key in declared:
                return None  # [key] again: a table is declared once
            # [model_providers.gwconf] beside [model_providers.openai]: a new sub-table of a table
            # that only headers make (not inline, not dotted keys of the preamble), none of whose
            # sub-keys it redefines
            if (
                not (isinstance(value, dict) and isinstance(data[key], dict))
                or value.keys() & data[key].keys()
            ):
                return None
            if preamble is None:
                preamble = _strict_read(base[:first_header])
                if preamble is None:
                    return None
            if key in preamble or _defines(new_preamble, key) is not False:
                return None  # (``a.b = 2`` above ``[a]`` makes the table twice: only headers may add)
            data[key] = {**data[key], **value}
    return data


def _replaced_in_table(
    data: dict[str, Any],
    section: _Section,
    old_end: int,
    old_read: dict[str, Any],
    new_read: dict[str, Any],
    old_parts: list[_Section],
    new_parts: list[_Section],
) -> bool:
    """Lines of key lines changed inside the section of one ``[table]`` (not an array of
    tables'), neither old nor new lines holding a header: when they define the same keys in the
    same order and each old value is the whole of that key's value in the table (so no line
    elsewhere defines a part of it, with a dotted key or a header), the table reads as before
    with the new values. ``data`` (the caller's copy at the top) gets them, each table on the
    way copied. False when this cannot be shown."""
    if len(old_parts) != 1 or len(new_parts) != 1 or not section.header or section.aot:
        return False
    if old_end > section.end or not old_read or list(old_read) != list(new_read):
        return False
    nodes = [data]
    for key in section.path:
        child = nodes[-1].get(key)
        if type(child) is not dict:
            return False
        nodes.append(child)
    table = nodes[-1]
    if any(key not in table or not _same(table[key], value) for key, value in old_read.items()):
        return False
    value: dict[str, Any] = {**table, **new_read}  # the same keys: each keeps its place
    for depth in range(len(section.path) - 1, -1, -1):
        container = nodes[depth] if depth == 0 else dict(nodes[depth])
        container[section.path[depth]] = value
        value = container
    return True


def _defines(text: str, key: str) -> bool | None:
    """Does ``text`` (lines before a header) define top-level ``key``? None: it does not read."""
    if not text.strip():
        return False
    data = _strict_read(text)
    return None if data is None else key in data


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _inline_item(value: Any, old: Any = None) -> Any:
    """A tomlkit item for ``value`` that fits on the key's line (dicts become inline tables)."""
    import tomlkit
    from tomlkit.items import String, StringType

    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table.append(key, _inline_item(item))
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for item in value:
            array.append(_inline_item(item))
        return array
    if (
        isinstance(value, str)
        and isinstance(old, String)
        and old.type == StringType.SLL
        and not _NOT_LITERAL.search(value)
    ):
        return tomlkit.string(value, literal=True)
    return tomlkit.item(value)


def _table_item(value: dict[str, Any], implicit: bool = True) -> Any:
    """A header table: plain keys first, then sub-tables; implicit (no header line of its own)
    when it holds only tables, unless it is an array element, which always needs its header."""
    import tomlkit

    simple = {k: v for k, v in value.items() if not isinstance(v, dict) and not _is_table_list(v)}
    nested = {k: v for k, v in value.items() if k not in simple}
    table = tomlkit.table(is_super_table=implicit and bool(nested) and not simple)
    for key, item in simple.items():
        table.append(key, _inline_item(item))
    for key, item in nested.items():
        table.append(key, _table_item(item) if isinstance(item, dict) else _aot_item(item))
    return table


def _aot_item(value: list[dict[str, Any]]) -> Any:
    import tomlkit

    aot = tomlkit.aot()
    for element in value:
        aot.append(_table_item(element, implicit=False))
    return aot


def _render_chunk(path: tuple[str, ...], value: Any) -> str:
    """The text of a new table (or array of tables) at ``path``, as its own document: written
    by gwconf itself in tomlkit's layout (tests hold the two equal), so an edit that needs no
    tomlkit tree never imports tomlkit; tomlkit writes values gwconf's renderer does not."""
    own = _own_chunk(path, value)
    return own if own is not None else _tomlkit_chunk(path, value)


def _tomlkit_chunk(path: tuple[str, ...], value: Any) -> str:
    import tomlkit

    doc = tomlkit.document()
    container: Any = doc
    for part in path[:-1]:
        parent = tomlkit.table(is_super_table=True)
        container.append(part, parent)
        container = parent
    container.append(path[-1], _table_item(value) if isinstance(value, dict) else _aot_item(value))
    return str(doc.as_string())


_BARE_KEY = lazy(r"[A-Za-z0-9_-]+")


def _key_text(key: str) -> str:
    """A key as tomlkit writes it: bare when it can be, else a basic string."""
    return key if _BARE_KEY.fullmatch(key) else str(_render_scalar(key))


def _append_inline(table: Any, key: str, item: Any) -> None:
    """Add ``key`` to an inline table in its own spacing: tomlkit puts a new key after the blank
    before ``}`` (``{ a = 1, k = 2}``), so that blank is taken off and put back after it."""
    from tomlkit.items import Whitespace

    body = table._value.body
    tail = None
    if body and body[-1][0] is None and isinstance(body[-1][1], Whitespace) and "," not in body[-1][1].s:
        tail = body.pop()[1]
    if tail is not None and all(k is None for k, _ in body):  # `{  }`: `{ k = 1 }`
        body.clear()
        item.trivia.indent = " "
        tail = Whitespace(" ")
    table.append(key, item)
    if tail is not None:
        body.append((None, tail))


def _inline_text(value: Any) -> str | None:
    """A value on its key's line as tomlkit writes it (dicts become inline tables); None for
    kinds gwconf never writes (dates and times), which tomlkit then renders."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            text = _inline_text(item)
            if text is None:
                return None
            parts.append(f"{_key_text(key)} = {text}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        items = [_inline_text(item) for item in value]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    return _render_scalar(value)


def _value_text(value: Any) -> str:
    """A value as written after ``key = `` on a line of its own."""
    rendered = _inline_text(value)
    return rendered if rendered is not None else _inline_item(value).as_string()  # a date or time: tomlkit's


def _reads_as(spelling: str, value: Any) -> bool:
    """Whether tomllib reads ``spelling`` alone, as a value, as ``value`` (a restore's spelling)."""
    try:
        return _same(_loads(f"v = {spelling}\n").get("v", MISSING), value)
    except ValueError:
        return False


def _line_reads_as(line: str, key: str | int, value: Any) -> bool:
    """Whether tomllib reads ``line`` alone as ``key`` holding ``value`` and nothing else."""
    try:
        return _same(_loads(f"{line}\n"), {key: value})
    except ValueError:
        return False


def _own_chunk(path: tuple[str, ...], value: Any) -> str | None:
    """``_tomlkit_chunk``'s text without tomlkit: each table is its header (none for a table
    that holds only tables) and its plain keys, then its sub-tables; a blank line between tables
    except right under a bare ``[[element]]`` header, for its own sub-tables and next element."""
    blocks: list[tuple[tuple[str, ...], list[str]]] = []

    def table(at: tuple[str, ...], body: dict[str, Any], implicit: bool, element: bool) -> bool:
        simple = {k: v for k, v in body.items() if not isinstance(v, dict) and not _is_table_list(v)}
        lines = []
        if not (implicit and len(simple) < len(body) and not simple):
            name = ".".join(_key_text(part) for part in at)
            lines.append(f"[[{name}]]" if element else f"[{name}]")
        for key, item in simple.items():
            text = _inline_text(item)
            if text is None:
                return False
            lines.append(f"{_key_text(key)} = {text}")
        if lines:
            blocks.append((at, lines))
        for key, item in body.items():
            if key in simple:
                continue
            if isinstance(item, dict):
                if not table((*at, key), item, True, False):
                    return False
            else:
                for part in item:
                    if not table((*at, key), part, False, True):
                        return False
        return True

    elements = [(value, False)] if isinstance(value, dict) else [(part, True) for part in value]
    for body, element in elements:
        if not table(path, body, not element, element):
            return None
    text = ""
    for index, (at, lines) in enumerate(blocks):
        above_at, above = blocks[index - 1] if index else ((), [])
        if above and not (len(above) == 1 and above[0].startswith("[[") and at[: len(above_at)] == above_at):
            text += "\n"
        text += "\n".join(lines) + "\n"
    return text


def _get_plain(data: Any, path: KeyPath) -> Any:
    node = data
    for part in path:
        in_dict = isinstance(node, dict) and isinstance(part, str) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and -len(node) <= part < len(node)
        if not (in_dict or in_list):
            return MISSING
        node = node[part]
    return node


def _tk_remove(doc: Any, path: tuple[str | int, ...]) -> None:
    """Delete ``path`` from tomlkit's document."""
    holders = _holders(doc, path)
    if len(holders) == 1:
        # delete from the one table part that holds the key: through tomlkit's proxy for a
        # table split around other tables, an emptied part would lose its [header] line
        del holders[0][path[-1]]
    else:
        node: Any = doc
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]


def _holders(node: Any, path: tuple[str | int, ...]) -> list[Any]:
    """The tomlkit containers that directly hold ``path[-1]``, found through the parsed body
    (one per part when a table is split around other tables)."""
    from tomlkit.container import Container
    from tomlkit.items import AbstractTable

    if len(path) == 1:
        key = path[0]
        if isinstance(key, int):
            return [node] if isinstance(node, list) and -len(node) <= key < len(node) else []
        return [node] if hasattr(node, "keys") and key in node else []
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        return _holders(node[head], rest) if isinstance(node, list) and -len(node) <= head < len(node) else []
    if isinstance(node, Container):
        body = node.body
    elif isinstance(node, AbstractTable):
        body = node.value.body
    else:
        return []
    found: list[Any] = []
    for name, item in body:
        if name is not None and name.key == head:
            found += _holders(item, rest)
    return found


# -- the document ----------------------------------------------------------------------------------


class TomlDocument:
    """The text is the state: each edit produces a new text, read back before it is trusted.

    Edits are made optimistically: gwconf's own text-level way is taken without a parse, the data
    becoming what the edit intends; ``dump`` reads the final text back once and, if it differs
    anywhere, makes every edit again the careful way (each candidate read back before it is
    taken, tomlkit's way next). A dry run over Codex's config parsed it 8 times, now 2 (and the
    write gate's own read).
    """

    fmt = "toml"

    def __init__(self, text: str, source: str) -> None:
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = self._text = text
        self.edits: list[Edit] = []
        # new lines from tomlkit are bare LF; turn them into CRLF only in a pure-CRLF file
        self._crlf = self.eol == "\r\n" and not _BARE_LF.search(text)
        self._final = _final_newlines(text)
        self.source = source
        # (text, its sections, how many edits it had), latest last
        self._sections_memo: list[tuple[str, list[_Section], int]] = []
        self._preamble_memo: _Section | None = None
        # A file that strict TOML 1.0 reads (tomllib; Codex's Rust parser) must stay readable by
        # it, and tomllib then is the reader that judges every edit: it is also 20-50 times faster
        # than tomlkit, which is parsed only when an edit needs its items (most never do).
        strict = _strict_read(text)
        self._strict = strict is not None
        # the last text read back whole, its data and how many edits it had: a later text is read
        # back from the lines that changed since (``_local_read``) when that can be shown
        self._verified: tuple[str, dict[str, Any], int] | None = None
        if strict is None:
            tk_doc, data = _parse(text, source, unwrap=True)
            self._adopt(text, tk_doc, data, read_back=text)
        else:
            self._adopt(text, None, strict, read_back=text)
        self._origin = self._state()
        self._careful = False  # every candidate read back before it is taken
        self._unchecked = False  # the text holds optimistic edits not yet read back

    # -- reading -----------------------------------------------------------------------------

    def _adopt(
        self,
        text: str,
        tk_doc: Any,
        data: dict[str, Any] | None,
        edits: int | None = None,
        read_back: str | None = None,
    ) -> None:
        """Make ``text`` the state; its tomlkit document and plain data are computed on demand.

        A new text is recorded for the write gate as the one span it changed (tomlkit rebuilds
        the text, so that span is all the editor knows); a saved state (``edits``: how many
        edits it had) takes back the edits made since. ``read_back``: the text ``tk_doc`` and
        ``data`` were parsed from (None when the data is only what the edits intend)."""
        if edits is not None:
            del self.edits[edits:]
        elif text != self._text:
            self.edits.append(changed_edit(self._text, text))
        self._text = text
        self._tk_doc = tk_doc
        self._data = data
        self._read_back = read_back
        if self._strict and read_back is text and data is not None:
            self._verified = (text, data, len(self.edits))

    def _state(self) -> tuple[str, Any, dict[str, Any] | None, int, str | None]:
        return self._text, self._tk_doc, self._data, len(self.edits), self._read_back

    @property
    def _doc(self) -> Any:
        """tomlkit's document of the current text, parsed on first use."""
        if self._tk_doc is None:
            self._tk_doc = _parse(self._text, self.source)
        return self._tk_doc

    def data(self) -> dict[str, Any]:
        """Plain data, read once per text (callers never change it; a new edit makes a new one)."""
        if self._data is None:
            self._data = dict(self._doc.unwrap())
        return self._data

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        value = _get_plain(self.data(), tuple(path))
        return default if value is MISSING else value

    def dump(self) -> str:
        self._settle()
        return self._text

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def reads_as(self, intended: Any) -> bool:
        """True when the text as edited reads as ``intended``: ``dump`` has read it back (whole,
        or from its changed lines, ``_local_read``), and that data shares all the edits left
        alone with the loaded data, as ``intended`` does, so only the rest is compared (the
        gate's whole compare marshalled a 4 MB file's data twice). False: the gate rereads."""
        text = self.dump()
        return self._read_back is text and self._data is not None and same_shared(self._data, intended)

    def reread(self) -> Any:
        """What the text parses to from scratch, for the write gate's data check. ``dump`` has
        just read the final text back with the reader ``load`` would use (tomllib for a strict
        file, else tomlkit), so that parse is reused: a third parse of a 4 MB config.toml was
        a fifth of ``gwconf apply codex`` (issue 15). A text never read back is parsed again."""
        text = self.dump()
        if self._read_back is text:
            return self.data()
        return reread_from_scratch(self)

    def _settle(self) -> None:
        """Read the optimistic text back once; when it is not what the edits intend, start again
        from the original and make the same edits the careful way."""
        if not self._unchecked:
            return
        local = self._read_locally()
        if local is not None and _same_top(local, self.data()):
            self._adopt(self._text, None, local, read_back=self._text)
            self._unchecked = False
            return
        try:
            tk_doc, after = self._read_candidate(self._text)
            matches = _same(after, self.data())
        except _candidate_failures():  # the optimistic text does not even parse
            matches = False
        if matches:
            self._adopt(self._text, tk_doc, after, read_back=self._text)
            self._unchecked = False
            return
        self._redo_carefully()

    def _read_locally(self) -> dict[str, Any] | None:
        """The data of the text, read from the lines changed since the last text read back whole
        (a strict file only: tomllib is its reader); None when that cannot be shown."""
        if self._verified is None:
            return None
        base, base_data, count = self._verified
        if count > len(self.edits):
            return None
        return _local_read(
            base, base_data, self._text, self.edits[count:], lambda: self._sections_for(base, count)
        )

    def _redo_carefully(self) -> None:
        ops, self.ops = self.ops, []
        self._adopt(*self._origin)
        self._careful, self._unchecked = True, False
        for op in ops:
            if op.kind == "set":
                self._set_op(op.path, op.value)
            elif op.kind == "append":
                self._append_op(op.path, op.value)
            else:
                self._delete_op(op.path)

    def _retrying(self, edit: Callable[[], Any]) -> Any:
        """Run one public edit; if it cannot be made on the optimistic text, make the edits before
        it carefully and try once more (then a refusal is final)."""
        try:
            return edit()
        except (WriteRefused, ParseError):  # ParseError: tomlkit could not read an optimistic text
            if self._careful:
                raise
        self._redo_carefully()
        return edit()

    # -- editing -----------------------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        self._retrying(lambda: self._set_op(path, value))

    def delete(self, path: KeyPath) -> bool:
        return bool(self._retrying(lambda: self._delete_op(path)))

    def append(self, path: KeyPath, value: Any) -> int:
        return int(self._retrying(lambda: self._append_op(path, value)))

    def spelling(self, path: KeyPath) -> str | None:
        """A one-line scalar's text as written (``"o\\u0033"``, ``'o3'``); None for anything else
        (a multi-line string, an array, a key with no line of its own)."""
        path = self._check_path(path)
        if not path or not isinstance(path[-1], str):
            return None
        home = self._own_section(path[:-1])
        if home is None:
            return None
        found = _scalar_line(self._text, home, path[-1]) or _multi_line_value(self._text, home, path[-1])
        return None if found is None else self._text[found[1] : found[2]]

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        """``set``, a one-line scalar written as ``spelling`` where tomllib reads that text alone
        as ``value`` (a restore gives the user's escapes back; ``set`` writes tomlkit's spelling).
        Made again the careful way, it is a plain ``set``."""

        def edit() -> None:
            checked = self._check_path(path)
            key = checked[-1] if checked else None
            if isinstance(key, str) and self.get(checked) is not MISSING and _reads_as(spelling, value):

                def spelled() -> str | None:
                    home = self._own_section(checked[:-1])
                    found = None if home is None else _scalar_line(self._text, home, key)
                    return (
                        None if found is None else self._text[: found[1]] + spelling + self._text[found[2] :]
                    )

                op = Op("set", checked, copied(value))
                try:
                    with self._transaction([op]):
                        self._commit([op], [spelled])
                    return
                except WriteRefused:
                    pass  # not this way: set's
            self._set_op(path, value)

        self._retrying(edit)

    restoring_from = ignore_pristine

    def comment_above(self, path: KeyPath) -> str | None:
        checked = self._check_path(path)
        if not checked or not isinstance(checked[-1], str):
            return None
        home = self._own_section(checked[:-1])
        found = [] if home is None else list(_key_lines(self._text, home, checked[-1]))
        return comment_line_above(self._text, found[0][0].start, ("#",)) if len(found) == 1 else None

    def key_line(self, path: KeyPath) -> str | None:
        """The ``key = value`` line of a one-line scalar as written (``x=1  # why``): its spacing
        and its comment. A key gwconf takes out leaves with its whole line; put back as ``set``
        writes it, the line lost the user's comment (a real Codex config.toml's hand-typed
        ``model_context_window=1000000``, restored as ``model_context_window = 1000000``)."""
        path = self._check_path(path)
        if not path or not isinstance(path[-1], str):
            return None
        home = self._own_section(path[:-1])
        found = None if home is None else _scalar_line(self._text, home, path[-1])
        if found is None:
            return None
        row = found[0]
        return self._text[row.start : row.end].lstrip(" \t").rstrip("\r\n")

    def put_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None = None,
        line: str | None = None,
    ) -> None:
        """A missing ``key = value`` line of a table's own section, put back right before key
        ``following``: after the line of the key before that one (comments above ``following``
        stay with it), else right above it. Written as ``spelling`` where tomllib reads that text
        alone as ``value``, or as the whole ``line`` where tomllib reads it alone as the key
        holding ``value``. Anything else (no section of its own, ``following`` not a key line
        of it, a table, the key there already) is ``put_back``'s or ``set``'s; made again the
        careful way, it is a plain ``set``."""

        def edit() -> bool:
            checked = self._check_path(path)
            if not checked or not isinstance(checked[-1], str) or self.get(checked) is not MISSING:
                return False
            if isinstance(value, dict) or _is_table_list(value) or not self._is_header_like(checked[:-1]):
                return False
            _check_value(value, self.source)
            op = Op("set", checked, copied(value))
            try:
                with self._transaction([op]):
                    self._commit(
                        [op],
                        [lambda: self._text_key_before(checked, value, spelling, following, above, line)],
                    )
            except WriteRefused:
                return False  # not this way: put_back's or set's
            return True

        if not self._retrying(edit):
            put_before_as_put_back(self, path, value, spelling, following)

    def _text_key_before(
        self,
        path: tuple[str | int, ...],
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None,
        line: str | None = None,
    ) -> str | None:
        home = self._own_section(path[:-1])
        if home is None:
            return None
        found = list(_key_lines(self._text, home, following))
        if len(found) != 1:
            return None
        row = found[0][0]
        rendered = spelling if spelling is not None and _reads_as(spelling, value) else _value_text(value)
        next_line = self._text[row.start : row.end]
        indent = next_line[: len(next_line) - len(next_line.lstrip(" \t"))]
        rows = home.rows
        earlier = [r for r in rows if r.end <= row.start and r.kind == "other"]
        at = after_comment(self._text, earlier[-1].end, row.start, above) if earlier else row.start
        if at and self._text[at - 1] != "\n":
            return None
        if (
            line is not None
            and "\n" not in line
            and "\r" not in line
            and _line_reads_as(line, path[-1], value)
        ):
            new_line = f"{indent}{line}"
        else:
            new_line = self._eol_new(f"{indent}{_key_text(str(path[-1]))} = {rendered}")
        return self._text[:at] + new_line + self.eol + self._text[at:]

    def _set_op(self, path: KeyPath, value: Any) -> None:
        path = self._check_path(path)
        _check_value(value, self.source)
        current = self.get(path)
        if current is not MISSING and _same(current, value):
            return
        parent = self.get(path[:-1])
        if isinstance(parent, list) and path[-1] == len(parent):  # one past the end: an append
            self._append_op(path[:-1], value)
            return
        op = Op("set", path, copied(value))
        with self._transaction([op]):
            self._set(path, value)

    def _delete_op(self, path: KeyPath) -> bool:
        path = self._check_path(path)
        if self.get(path) is MISSING:
            return False
        before_ops = len(self.ops)
        saved = self._state()
        try:
            self.ops.extend(self._delete(path))
        except BaseException:
            self._adopt(*saved)
            del self.ops[before_ops:]
            raise
        return True

    def _append_op(self, path: KeyPath, value: Any) -> int:
        path = self._check_path(path)
        _check_value(value, self.source)
        current = self.get(path)
        if current is not MISSING and not isinstance(current, list):
            raise WriteRefused(f"{self.source}: {_show(path)} is not a list; cannot append to it.")
        index = 0 if current is MISSING else len(current)
        op = Op("append", path, copied(value))
        with self._transaction([op]):
            if current is MISSING:
                self._set(path, [value])
            else:
                self._append(path, value)
        return index

    # -- primitives --------------------------------------------------------------------------

    def _set(self, path: tuple[str | int, ...], value: Any) -> None:
        """Make ``path`` hold ``value``; each step is verified on its own."""
        current = self.get(path)
        if current is not MISSING and _same(current, value):
            return
        parent_path = path[:-1]
        parent = self.get(parent_path)
        if parent is MISSING:
            # create the missing tables as one nested value at the first missing key
            first = next(i for i in range(len(path)) if self.get(path[: i + 1]) is MISSING)
            if isinstance(path[first], int):
                raise WriteRefused(f"{self.source}: {_show(path)}: no element {path[first]} in that list.")
            nested: Any = value
            for part in reversed(path[first + 1 :]):
                if not isinstance(part, str):
                    raise WriteRefused(
                        f"{self.source}: {_show(path)}: no list at {_show(path[: first + 1])}."
                    )
                nested = {part: nested}
            self._set(path[: first + 1], nested)
            return
        if current is not MISSING:
            if isinstance(current, dict) and isinstance(value, dict):
                # edit a table key by key, so its comments and layout stay
                self._delete_keys(path, [k for k in current if k not in value])
                if self.get(path) is MISSING:  # it was implicit and went away with its last key
                    self._set(path, value)
                    return
                for key, item in value.items():
                    self._set((*path, key), item)
                return
            becomes_table = (isinstance(value, dict) or _is_table_list(value)) and self._is_header_like(
                parent_path
            )
            if self._is_header_table(path) or (becomes_table and not isinstance(current, (dict, list))):
                self._delete(path)  # a [table] becomes a plain value, or a plain value a [table]
                self._set(path, value)
                return
            self._commit(
                [Op("set", path, value)],
                [lambda: self._text_replace_value(path, value), lambda: self._tk_set(path, value)],
            )
            return
        if isinstance(parent, list) and not isinstance(path[-1], str):
            raise WriteRefused(f"{self.source}: {_show(path)}: no such element in that list.")
        if not isinstance(parent, dict):
            raise WriteRefused(
                f"{self.source}{self._line_of(parent_path)}: {_show(parent_path)} is {_kind_of(parent)}, "
                f"not a table; gwconf cannot set {_show(path)}.",
                "Change or remove that value by hand, then run again.",
            )
        if not isinstance(path[-1], str):
            raise WriteRefused(f"{self.source}: {_show(path)}: a table has named keys, not positions.")
        candidates: list[Callable[[], str | None]] = []
        if self._is_header_like(parent_path):
            if not (isinstance(value, dict) or _is_table_list(value)):
                candidates.append(lambda: self._text_new_key(path, value))
            else:
                candidates.append(lambda: self._text_new_table(path, value))
        candidates.append(lambda: self._tk_set(path, value))
        self._commit([Op("set", path, value)], candidates)

    def _delete(self, path: tuple[str | int, ...]) -> list[Op]:
        candidates: list[Callable[[], str | None]] = []
        if _names_only(path):
            names = path
            candidates.append(lambda: _remove_sections(self._text, names, self._all_sections()))
        elif isinstance(path[-1], int) and _names_only(path[:-1]) and self._is_aot(path[:-1]):
            family = _element_family(self._all_sections(), path[:-1], path[-1])
            if family is not None:  # (tomlkit takes the comments after the element with it)
                element = family
                candidates.append(lambda: _cut_sections(self._text, element))
        candidates.append(lambda: self._text_delete_key(path))
        candidates.append(lambda: self._tk_delete(path))
        return self._commit([Op("delete", path)], candidates, prune=True)

    def _delete_keys(self, path: tuple[str | int, ...], keys: list[str]) -> None:
        """Delete ``keys`` from the table at ``path`` as deleting them in turn does, in one text
        read back once: in turn, each key was a tomlkit parse and a read-back of the whole file
        (a 400-key table set to 2 keys: 7.4 s). When that text does not read back as intended,
        they are deleted in turn after all, each step read back."""
        if len(keys) > 1:
            ops = [Op("delete", (*path, key)) for key in keys]
            try:
                self._commit(ops, [lambda: self._text_without_keys(path, keys)], prune=True)
                return
            except WriteRefused:
                pass
        for key in keys:
            self._delete((*path, key))

    def _append(self, path: tuple[str | int, ...], value: Any) -> None:
        if self._is_aot(path) and not isinstance(value, dict):
            current = self.get(path)  # [[tables]] hold tables only: make it an inline array
            self._delete(path)
            self._set(path, [*current, value])
            return
        candidates: list[Callable[[], str | None]] = []
        if self._is_aot(path) and isinstance(value, dict) and _names_only(path):
            chunk_path = path
            candidates.append(
                lambda: _insert_chunk(
                    self._text,
                    self._eol_new(_render_chunk(chunk_path, [value])),
                    chunk_path,
                    self.eol,
                    self._all_sections(),
                )
            )
        candidates.append(lambda: self._tk_append(path, value))
        self._commit([Op("append", path, value)], candidates)

    # -- candidates --------------------------------------------------------------------------

    def _text_new_table(self, path: tuple[str | int, ...], value: Any) -> str | None:
        """A ``[header]`` chunk next to its relatives; under an ``[[aot]]`` element, right after
        that element's sections (a ``[aot.sub]`` header belongs to the element above it)."""
        if _names_only(path):
            chunk = self._eol_new(_render_chunk(path, value))
            if path[0] not in self.data():  # no header starts with it: no relative, the end it is
                return _insert_after(self._text, chunk, None, self.eol)
            return _insert_chunk(self._text, chunk, path, self.eol, self._all_sections())
        positions = [(k, part) for k, part in enumerate(path) if isinstance(part, int)]
        k, index = positions[0]
        if len(positions) > 1 or k == len(path) - 1:
            return None
        family = _element_family(self._all_sections(), path[:k], index)
        if family is None:
            return None
        names = tuple(part for part in path if isinstance(part, str))  # the path without its one index
        chunk = self._eol_new(_render_chunk(names, value))
        return _insert_after(self._text, chunk, family[-1], self.eol)

    def _line_of(self, path: tuple[str | int, ...]) -> str:
        """``:line:column`` in the file as the user has it of the value at ``path``, when it is a
        ``key = value`` of a section of its own; "" otherwise."""
        if not path or not isinstance(path[-1], str):
            return ""
        home = self._own_section(path[:-1])
        key = path[-1]
        found = (
            None
            if home is None
            else _scalar_line(self._text, home, key) or _multi_line_value(self._text, home, key)
        )
        return "" if found is None else line_in(self.original, self.edits, found[1])

    def _own_section(self, table: tuple[str | int, ...]) -> _Section | None:
        """The section that holds the keys of the table at ``table`` (the preamble for the top);
        None when it has none of its own (implicit, dotted, inline) or it is ambiguous."""
        return self._preamble() if not table else _home_section(self._all_sections(), table)

    def _text_new_key(self, path: tuple[str | int, ...], value: Any) -> str | None:
        """A ``key = value`` line in the parent's own section (a ``[table]``, an ``[[array]]``
        element or the top of the file); None when the parent has no section of its own."""
        parent, key = path[:-1], path[-1]
        home = self._own_section(parent)
        if home is None:
            return None
        line = f"{_key_text(str(key))} = {_value_text(value)}"
        return _insert_key_line(self._text, home, self._eol_new(line), self.eol)

    def _text_replace_value(self, path: tuple[str | int, ...], value: Any) -> str | None:
        """A scalar replaced on its own line, without building tomlkit's tree."""
        key = path[-1]
        if not isinstance(key, str):
            return None
        parent = path[:-1]
        home = self._own_section(parent)
        return None if home is None else _replace_scalar(self._text, home, key, value)

    def _text_delete_key(self, path: tuple[str | int, ...]) -> str | None:
        """A scalar's ``key = value`` line cut out of its table's own section, without building
        tomlkit's tree; None where tomlkit has to (the key is no one-line scalar, or its table
        has no section of its own)."""
        key = path[-1]
        if not isinstance(key, str):
            return None
        parent = path[:-1]
        home = self._own_section(parent)
        return None if home is None else _remove_key_line(self._text, home, key)

    def _text_without_keys(self, path: tuple[str | int, ...], keys: list[str]) -> str:
        """The text after deleting each of ``keys`` in turn the way ``_delete`` first tries: a
        key that headers name (a sub-table) cut out by ``_remove_sections``, the others by
        tomlkit, a run of them in one parse of the text."""
        text, sections = self._text, self._all_sections()
        run: list[str] = []  # keys to delete with tomlkit, not yet deleted
        for key in keys:
            full = (*path, key)
            if run and _names_only(full) and _tables_under(sections, full):
                # the keys before a sub-table go first, as in turn: the blank line a cut table
                # takes with it depends on the line above its header
                new = self._tk_without(text, path, run)
                sections, text, run = _sections_since(text, sections, new), new, []
            cut = _remove_sections(text, full, sections) if _names_only(full) else None
            if cut is None:
                run.append(key)
                continue
            new = self._normalize(cut)
            sections, text = _sections_since(text, sections, new), new
        return self._tk_without(text, path, run) if run else text

    def _tk_set(self, path: tuple[str | int, ...], value: Any) -> str:
        import tomlkit
        from tomlkit.items import AoT, Array, InlineTable, Table

        doc = tomlkit.parse(self._tk_text())
        node: Any = doc
        for part in path[:-1]:
            if isinstance(part, str) and part not in node:
                node[part] = tomlkit.inline_table() if isinstance(node, InlineTable) else tomlkit.table()
            node = node[part]
        key = path[-1]
        old = node[key] if (isinstance(key, str) and key in node) else None
        inline = (
            isinstance(node, (InlineTable, Array))
            or (old is not None and not isinstance(old, (Table, AoT)))
            or not (isinstance(value, dict) or _is_table_list(value))
        )
        if inline:
            item = _inline_item(value, old)
        elif isinstance(value, dict):
            item = _table_item(value)
        else:
            item = _aot_item(value)
        if isinstance(node, (Array, AoT)) and isinstance(key, int) and key == len(node):
            node.append(item)
        elif isinstance(node, InlineTable) and old is None and isinstance(key, str):
            _append_inline(node, key, item)
        else:
            node[key] = item
        return str(doc.as_string())

    def _tk_delete(self, path: tuple[str | int, ...]) -> str:
        import tomlkit

        doc = tomlkit.parse(self._tk_text())
        _tk_remove(doc, path)
        return str(doc.as_string())

    def _tk_without(self, text: str, path: tuple[str | int, ...], keys: list[str]) -> str:
        """``text`` without ``keys`` of the table at ``path``, deleted in turn in one tomlkit
        document: a deleted item leaves no text, so that is what a parse per key gave."""
        import tomlkit

        doc = tomlkit.parse(self._tk_text(text))
        for key in keys:
            _tk_remove(doc, (*path, key))
        return self._normalize(str(doc.as_string()))

    def _tk_append(self, path: tuple[str | int, ...], value: Any) -> str | None:
        import tomlkit
        from tomlkit.items import AoT

        doc = tomlkit.parse(self._tk_text())
        node: Any = doc
        for part in path:
            node = node[part]
        if isinstance(node, AoT):
            if not isinstance(value, dict):
                return None
            node.append(_table_item(value))
        else:
            node.append(_inline_item(value))
        return str(doc.as_string())

    # -- verification --------------------------------------------------------------------------

    def _commit(
        self, ops: list[Op], candidates: list[Callable[[], str | None]], prune: bool = False
    ) -> list[Op]:
        """Take the first candidate text that re-parses to the intended data; returns its ops.

        ``prune``: a delete that empties an implicit table (one with no header of its own, like
        ``model_providers`` above ``[model_providers.gwconf]``) removes that table too; the extra
        delete is recorded so ``replay`` agrees.
        """
        before = self.data()
        for make in candidates:
            try:
                text = make()
                if text is None:  # this way does not apply here
                    continue
                text = self._normalize(text)
                if not (self._careful or prune):  # optimistic: read back once, by dump()
                    self._adopt(text, None, replay(before, ops))
                    self._unchecked = True
                    return ops
                tk_doc, after = self._read_candidate(text)
            except _candidate_failures():  # a candidate that does not apply or parse is not taken
                continue
            for attempt in self._op_variants(ops, before, after) if prune else [ops]:
                if _same(after, replay(before, attempt)):
                    self._adopt(text, tk_doc, after, read_back=text)
                    self._unchecked = False  # read back whole: the edits before it too
                    return attempt
        raise WriteRefused(
            f"{self.source}: gwconf could not make this edit ({_describe(ops[0])}) so that the file reads "
            "back as intended; nothing was written.",
            "Make the change by hand, or report the file (keys removed) as a gwconf bug.",
        )

    def _read_candidate(self, text: str) -> tuple[Any, dict[str, Any]]:
        """(tomlkit document or None, plain data) of a candidate text; raises when it does not parse.

        A strict file's candidates are read with tomllib alone: a text tomlkit accepts (or misreads)
        but a strict parser rejects is never taken, and tomlkit is parsed later only if needed."""
        if self._strict:
            return None, _loads(text)  # tomllib's data; its error where it refuses the text
        import tomlkit

        doc = tomlkit.parse(text)
        return doc, dict(doc.unwrap())

    @staticmethod
    def _op_variants(ops: list[Op], before: Any, after: Any) -> list[list[Op]]:
        variants = [ops]
        path = ops[0].path
        for k in range(1, len(path)):
            ancestor = path[:k]
            if _get_plain(before, ancestor) is not MISSING and _get_plain(after, ancestor) is MISSING:
                variants.append([*ops, Op("delete", ancestor)])
                break
        return variants

    def _transaction(self, ops: list[Op]) -> _Transaction:
        return _Transaction(self, ops)

    def _normalize(self, text: str) -> str:
        """Bare LF from tomlkit -> CRLF in a CRLF file; the original final-newline state."""
        if self._crlf:
            text = _BARE_LF.sub("\r\n", text)
        if self._final is None:
            return text
        body, final = _split_final(text)
        return text if final is None else body + self._final

    def _tk_text(self, text: str | None = None) -> str:
        """The text (the current one by default) for tomlkit to edit, with a final newline: at
        the end of a file without one, tomlkit glues a new key onto a ``[[header]]`` line (the
        final-newline state is restored afterwards)."""
        text = self._text if text is None else text
        if text and not text.endswith("\n"):
            return text + self.eol
        return text

    def _eol_new(self, text: str) -> str:
        return text.replace("\n", self.eol) if self.eol != "\n" else text

    # -- helpers -------------------------------------------------------------------------------

    def _check_path(self, path: KeyPath) -> tuple[str | int, ...]:
        path = tuple(path)
        if not path:
            raise WriteRefused(f"{self.source}: a TOML file is a table; name a key to change.")
        for part in path:
            if not isinstance(part, (str, int)) or isinstance(part, bool):
                raise WriteRefused(f"{self.source}: bad key {part!r} in {_show(path)}.")
        return path

    def _item(self, path: tuple[str | int, ...]) -> Any:
        node: Any = self._doc
        for part in path:
            node = node[part]
        return node

    def _kind(self, path: tuple[str | int, ...]) -> str | None:
        """What the header lines alone say ``path`` is, so most edits never build tomlkit's tree:
        "aot" (an ``[[array]]``), "table" (a ``[table]``, or one implied by a header below it:
        headers never pass through inline tables), "value" (no header reaches it and the data
        holds no table there), or None when only tomlkit can tell (inline tables, dotted keys,
        paths through array elements)."""
        if any(not isinstance(part, str) for part in path):
            return self._kind_in_element(path)
        if path and isinstance(path[0], str) and not isinstance(self.data().get(path[0]), (dict, list)):
            # every header makes its first key a table or an array of tables: none reaches here
            # (Codex's top-level keys asked a 4 MB file's 33k headers each, issue 15)
            return None if isinstance(self.get(path), dict) else "value"
        return self._kind_from_headers(path)

    def _kind_from_headers(self, path: tuple[str | int, ...]) -> str | None:
        """``_kind`` of a path of names, from every header line."""
        size = len(path)
        reached = False
        first = path[0]
        for section in self._header_sections():
            if section.path[0] != first:  # most of a big file's: no slice made for them
                continue
            if section.path[:size] == path:
                if section.aot and len(section.path) == size:
                    return "aot"
                reached = True
            elif section.aot and path[: len(section.path)] == section.path:
                return None  # under an [[array]]: its elements are tomlkit's to tell apart
        if reached:
            return "table"
        return None if isinstance(self.get(path), dict) else "value"

    def _kind_in_element(self, path: tuple[str | int, ...]) -> str | None:
        """``_kind`` of ``(*aot, index, key)``, a key of one ``[[aot]]`` element: "value" when no
        header line reaches that key in any element and the data holds no table there, else None.
        elia's and gptme's ``[[models]]`` entries are edited key by key: without this, each key
        built tomlkit's tree of the whole file (about half of ``gwconf use``, issue 15)."""
        if len(path) < 3:
            return None
        aot, index, key = path[:-2], path[-2], path[-1]
        if not isinstance(key, str) or not isinstance(index, int) or isinstance(index, bool) or index < 0:
            return None
        if self._kind(aot) != "aot":  # only an array written as [[headers]]: never inline
            return None
        size = len(aot)
        for section in self._header_sections():
            if len(section.path) > size and section.path[:size] == aot and section.path[size] == key:
                return None  # a [aot.key] or [[aot.key]] header: tomlkit tells which element it is in
        value = self.get(path)
        if isinstance(value, dict) or _is_table_list(value):
            return None  # a dotted-key table or an inline one: tomlkit tells them apart
        return "value"

    def _all_sections(self) -> list[_Section]:
        """The current text's sections (the preamble first), computed once per text."""
        return self._sections_for(self._text, len(self.edits))

    def _sections_for(self, text: str, count: int) -> list[_Section]:
        """``_sections(text)`` (the text after ``count`` edits), kept for the last few texts; a
        text's are found from a known one's and the spans that changed (``_sections_since``):
        Codex's keys are set one by one, and a 4 MB file was scanned whole again for each (issue 15);
        a small file too, line by line in Python (a third of the dry run's TOML time)."""
        for known, sections, _ in self._sections_memo:
            if known is text:
                return sections
        if self._sections_memo:
            sections = self._sections_from_memo(text, count)
        else:
            sections = _sections(text)
        # the first text's (the original's: the write gate's read-back starts from it) and the
        # last two
        memo = self._sections_memo
        self._sections_memo = [*memo[:1], *memo[1:][-1:], (text, sections, count)]
        return sections

    def _sections_from_memo(self, text: str, count: int) -> list[_Section]:
        """``text``'s sections from the latest known text before it, one changed span at a time.

        The edits made since split the change into disjoint spans (a preamble key and a table at
        the end: as one span, that was the whole file scanned again). Each step is the text with
        the spans so far made (the new text up to the end of one, the old text after it), whose
        sections ``_sections_since`` finds from the step before; what the edits say is only a
        guide: each step is correct for the texts it is given, and the last must be ``text``."""
        old, sections, n = max(
            (m for m in self._sections_memo if m[2] <= count),
            key=lambda m: m[2],
            default=self._sections_memo[-1],
        )
        regions = changed_regions(self.edits[n:count]) if n <= count else []
        if not regions:
            return _sections_since(old, sections, text)
        last_old, last_new = regions[-1][1], regions[-1][3]
        if len(old) - last_old != len(text) - last_new or not same_run(
            old, last_old, text, last_new, len(old) - last_old
        ):
            return _sections_since(old, sections, text)
        step = old
        for _, old_end, _, new_end in regions[:-1]:
            after = text[:new_end] + old[old_end:]
            sections, step = _sections_since(step, sections, after), after
        return _sections_since(step, sections, text)

    def _preamble(self) -> _Section:
        """The current text's first section, the keys above every header: found by reading up
        to the first header alone, unless the text's sections are known already."""
        for known, sections, _ in self._sections_memo:
            if known is self._text:
                return sections[0]
        text = self._text
        if self._preamble_memo is None or self._preamble_memo.text is not text:
            self._preamble_memo = _Section((), False, False, text, 0, _first_header(text))
        return self._preamble_memo

    def _header_sections(self) -> list[_Section]:
        return self._all_sections()[1:]

    def _is_header_table(self, path: tuple[str | int, ...]) -> bool:
        kind = self._kind(path)
        if kind is not None:
            return kind in ("aot", "table")
        from tomlkit.items import AoT, InlineTable

        node = self._item(path)
        return isinstance(node, AoT) or (hasattr(node, "keys") and not isinstance(node, InlineTable))

    def _is_aot(self, path: tuple[str | int, ...]) -> bool:
        kind = self._kind(path)
        if kind is not None:
            return kind == "aot"
        from tomlkit.items import AoT

        try:
            return isinstance(self._item(path), AoT)
        except (KeyError, IndexError, TypeError):
            return False

    def _is_header_like(self, path: tuple[str | int, ...]) -> bool:
        """The document itself or a table that is not inline (new tables may go under it)."""
        if not path:
            return True
        kind = self._kind(path)
        if kind is not None:
            return kind == "table"
        from tomlkit.items import InlineTable

        try:
            node = self._item(path)
        except (KeyError, IndexError, TypeError):
            return False
        return not isinstance(node, InlineTable) and hasattr(node, "keys")


class _Transaction:
    """Roll the text back if any step of a public edit fails, and check the whole edit at the end."""

    def __init__(self, doc: TomlDocument, ops: list[Op]) -> None:
        self.doc = doc
        self.ops = ops
        self.saved = doc._state()
        self.before = doc.data()

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        if exc_type is None and not _same(self.doc.data(), replay(self.before, self.ops)):
            exc = WriteRefused(
                f"{self.doc.source}: gwconf's edit ({_describe(self.ops[0])}) reads back differently than "
                "intended; nothing was written.",
                "This is a gwconf bug: please report it with the file (keys removed).",
            )
            self.doc._adopt(*self.saved)
            raise exc
        if exc_type is not None:
            self.doc._adopt(*self.saved)
            return False
        self.doc.ops.extend(self.ops)
        return False


def _candidate_failures() -> tuple[type[BaseException], ...]:
    """What making or reading back a candidate text is expected to raise: tomllib's and tomlkit's
    parse errors (ValueError), tomlkit's other refusals (a key already present or missing, a
    value it cannot convert), a file nested past the parsers' recursion, and gwconf's own
    refusal to render a value. Anything else is a bug in a candidate and propagates: caught
    broadly, it quietly became the slower tomlkit output (issue 16)."""
    from tomlkit.exceptions import TOMLKitError

    return (ValueError, TOMLKitError, RecursionError, WriteRefused)


def _strict_read(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)``, None where tomllib refuses it."""
    try:
        return _loads(text)
    except RecursionError:  # tomlkit's parse then says what is wrong
        return None
    except ValueError as exc:
        import tomllib

        if isinstance(exc, tomllib.TOMLDecodeError):
            return None
        raise


def _loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``: a file of plain lines through ``plaintoml``, which returns
    tomllib's data for it (values and key order; ``tests/test_listing_paths.py`` holds every
    answer to tomllib's over generated files, ``tests/formats/test_toml.py`` the editor's reads
    and its write gate) and None for anything else, which tomllib reads. tomllib is pure Python:
    its import was 8 ms (``datetime``, ``string``, its patterns) and its read about twice
    ``plaintoml``'s (2.3 against 1.1 ms for a 6 KB config.toml, 1.5 against 0.55 s for 4 MB)."""
    from gwconf import plaintoml

    with paused_gc():  # a fifth of a big file's read, collections finding no garbage
        data = plaintoml.read(text)
        if data is not None:
            return data
        import tomllib

        return tomllib.loads(text)


def _final_newlines(text: str) -> str | None:
    return _split_final(text)[1]


def _split_final(text: str) -> tuple[str, str | None]:
    """Split off the line endings and blank lines after the last content (None: no content)."""
    # the content's end, found from the last 4 KB: not a copy of a whole big text per candidate
    start = max(0, len(text) - 4096)
    tail = text[start:].rstrip(" \t\r\n")
    end = start + len(tail) if tail or not start else len(text.rstrip(" \t\r\n"))
    if not end:
        return text, None
    rest = text[end:]
    cut = min((i for i in (rest.find("\r"), rest.find("\n")) if i >= 0), default=len(rest))
    return text[: end + cut], rest[cut:]


def _show(path: KeyPath) -> str:
    return ".".join(str(p) for p in path) or "(the whole file)"


def _describe(op: Op) -> str:
    return f"{op.kind} {_show(op.path)}"
