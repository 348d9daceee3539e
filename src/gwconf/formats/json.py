"""Strict JSON, JSONC and JSON5: our own token-level editor.

No package on PyPI edits JSONC without losing comments, accepting broken files or needing Node.js
at runtime (jsonc-edit, json5, json-five, commentjson were run), so this module does it in three steps:

1. Mask: comments and trailing commas become same-length blanks, so the masked text is strict JSON
   with the same offsets as the file. ``json`` validates it at C speed and its error offsets are
   positions in the user's file. Strict files try the plain text first and need no mask.
2. Walk: follow the key path on the masked text with ``scanstring`` and the C ``scan_once``, which
   skips sibling values without a Python loop. Nothing builds a token list of the whole file.
3. Splice: replace a value's span, or add/remove whole lines in the file's own indentation, line
   ending and trailing-comma style. Everything else in the file comes back byte for byte.

The text and its mask are spliced together, so later edits walk the mask without masking again.

JSON5 (OpenClaw's ``openclaw.json``) adds unquoted keys, single-quoted strings and more escapes,
which a same-length blank cannot turn into JSON. Its mask is the strict JSON spelling of each
token, and the editor's text gets ``_PAD`` characters (never in a file; ``dump`` drops them)
wherever that spelling is longer, so text and mask keep sharing offsets: ``name`` is held as
``\x01name\x01`` against ``"name"``. Only the mask step differs (``_prepare5``, a Python loop
over the tokens JSON does not have; the rest goes by in long runs); walking and splicing are
the JSONC code. New keys are written quoted, which JSON5 also reads.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import marshal
import operator
from collections.abc import Callable, Iterator, Sequence
from json.decoder import JSONDecodeError

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats._base import (
    MISSING,
    Edit,
    KeyPath,
    Op,
    after_comment,
    changed_regions,
    comment_line_above,
    copied,
    detect_eol,
    ignore_pristine,
    lazy,
    line_col,
    line_in,
    paused_gc,
    put_before_as_put_back,
    same_run,
    same_value,
    total,
    trimmed_edit,
)

TYPE_CHECKING = False  # typing, copy and array are imported where used (issue 15: a listing
if TYPE_CHECKING:  # that loads this editor paid for all of typing)
    import array
    from typing import Any

    _Scan = Callable[[str, int], tuple[Any, int]]  # (value, end) of the JSON value at an offset
    _Child = tuple[Any, int, int, int]

__all__ = ["JsonDocument", "load"]

# Unrolled block comment: it cannot run past the first "*/", so it stays linear (a lazy one: 62 s/MB).
_BLOCK = r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/"
_BLOCK_RE = lazy(_BLOCK)
# For _mask: skip (possessively, in C) everything that is not a comment, a
# trailing comma or a sign of a broken file, then capture it: group 1 a span to blank (comment or
# trailing comma), group 2 a "/*" that never ends or a "{", "[", ":" or "," followed by a comma.
# Every position either is skipped or matches, so no match is retried from a later start: linear.
_BLOCK_P = r"/\*[^*]*+\*++(?:[^/*][^*]*+\*++)*+/"
_GAP_P = rf"(?:[ \t\r\n]++|//[^\r\n]*+|{_BLOCK_P})*+"
_LINE_COMMENT_P = r"//[^\r\n]*+"  # a lone "\r" ends it too, as in VS Code's jsonc-parser (and _classify)
_MASK_RE = lazy(
    r'(?:[^"/,{\[:]++'
    r'|"[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+"?'
    r"|/(?![/*])"
    r"|,(?![ \t\r\n]*+[}\],/])"  # the usual comma, decided without the comment lookahead
    rf"|,(?!{_GAP_P}[}}\],])"
    r"|[{\[:](?![ \t\r\n]*+[,/])"
    rf"|[{{\[:](?!{_GAP_P},)"
    r")*+"
    rf"(?:({_LINE_COMMENT_P}|{_BLOCK_P}|,(?={_GAP_P}[}}\]]))|(/\*|[{{\[:,])|\Z)"
)
_LEAD_COMMA = lazy(rf"(?:[ \t\r\n]++|{_LINE_COMMENT_P}|{_BLOCK_P})*+,")
# The reference scanner (_find_masks): what may start a comment or be a trailing comma, decided
# outside strings only.
# The "/" alone is matched: "/*a*//*b*/" holds a "//" that would hide the second comment's "/*".
_CANDIDATE = lazy(r"/(?=[/*])|,(?=[ \t\r\n]*[}\]/])")
# Text without an unfinished string, used with endpos = a candidate: it stops at the opening
# quote of a string that covers the candidate. Strings cannot cross a line in JSON. Nothing
# follows the repeat, so it never backtracks far: linear.
_OUTSIDE = total(r'[^"]*(?:"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"[^"]*)*')
_STRING = lazy(r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"?')  # tolerant: ends at a newline if unclosed
_GAP = total(rf"(?:[ \t\r\n]+|//[^\r\n]*|{_BLOCK})*")  # whitespace and comments
_LINE_REST = total(rf"(?:[ \t]+|//[^\r\n]*|{_BLOCK})*")  # the same, up to the end of a line
_WS = total(r"[ \t\r\n]*")
_LINE_BREAK = lazy(r"[\r\n]")
_COLON = lazy(r"[ \t\r\n]*:[ \t\r\n]*")
_COMMA = lazy(r"[ \t\r\n]*,[ \t\r\n]*")
_INDENT = total(r"[ \t]*")
# a line's indent before a key (\x01: an unquoted JSON5 key): the text's first line, then every
# other one found by its line break (a literal to scan for: ``^`` with re.M tries every position,
# 7x slower over a 16 KB file)
_FIRST_INDENT = lazy(r'([ \t]+)["\x01]')
_MEMBER_INDENT = lazy(r'\n([ \t]+)["\x01]')
_TOKEN = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|-?Infinity|NaN')

_TRAIL = "\x00"  # marks a generated trailing comma: "," in the text, " " in the mask
_MAX_DEPTH = 500  # reported when json's C scanner runs out of stack


class _Blanks(dict[int, str]):
    """Runs of spaces by length: most masked spans repeat a few lengths."""

    def __missing__(self, length: int) -> str:
        blank = self[length] = " " * length
        return blank


_BLANKS = _Blanks()


class _BadConstant(Exception):
    pass


_DUPLICATES = [False]  # set by _pairs_to_dict: the last decode met a key twice in one object


def _pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The last of two equal keys wins, as in every reader the clients use (JSON.parse,
    jsonc-parser, Python's json, Go's encoding/json); the editor is told the file has some."""
    result = dict(pairs)
    if len(result) != len(pairs):
        _DUPLICATES[0] = True
    return result


def _bad_constant(name: str) -> Any:
    raise _BadConstant(name)


# json's string scanner (C when available), the one its decoder runs on keys; typeshed omits it
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _scanner(decoder: json.JSONDecoder) -> _Scan:
    """The decoder's value scanner (json's C scanner, the one ``decode`` runs)."""
    scan: _Scan = decoder.scan_once  # type: ignore[attr-defined]  # set in __init__; typeshed omits it
    return scan


_DATA = json.JSONDecoder(object_pairs_hook=_pairs_to_dict, parse_constant=_bad_constant)
_PLAIN = json.JSONDecoder()  # for text already validated
_SKIP = json.JSONDecoder(object_pairs_hook=len)  # skips siblings without keeping their dicts
_DATA_SCAN, _PLAIN_SCAN, _SKIP_SCAN = _scanner(_DATA), _scanner(_PLAIN), _scanner(_SKIP)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# A text this long keeps its mask as the spans it blanks (moved by each splice, the mask made
# again when read: no two masks of a 16 MB file alive at once); a shorter one keeps its mask
# whole, as JSON5 does, and splices it beside the text: a few microseconds a splice, where
# moving the spans and blanking them again took 50-150 us for a 16 KB settings.json (issue 15).
_SPANS_ABOVE = 1 << 20  # characters


def load(text: str, source: str, *, fmt: str = "json") -> JsonDocument:
    """Parse ``text`` (no BOM) as strict ``json``, ``jsonc`` or ``json5``; raises ``ParseError`` naming ``source``."""
    if fmt not in ("json", "jsonc", "json5"):
        raise ValueError(f"not a JSON format: {fmt}")
    blanks: _Spans | None = None
    with paused_gc():
        if fmt == "json5":
            _DUPLICATES[0] = False
            text, masked, trailing, data = _prepare5(text, source)
        else:
            if len(text) > _SPANS_ABOVE:
                import array

                blanks = (array.array("q"), array.array("q"))
            masked, trailing, data = _prepare(text, source, strict=fmt == "json", blanks=blanks)
    doc = JsonDocument(text, source, fmt, masked, trailing, data, blanks)
    doc._dups = _DUPLICATES[0]
    return doc


def load_part(
    text: str, source: str, *, fmt: str, eol: str, unit: str, trailing: bool, dups: bool
) -> JsonDocument:
    """``load`` of a stand-in for part of a bigger file (``json_windows``): the line ending, the
    indent unit (``unit_of`` the file's start), the trailing-comma style and "a key twice
    somewhere" are the whole file's, which the part alone may not show, and which decide how
    the editor writes and searches."""
    doc = load(text, source, fmt=fmt)
    doc.eol = eol
    doc._unit_cache = unit
    doc._trailing = doc._trailing or trailing
    doc._dups = doc._dups or dups
    return doc


def unit_of(head: str) -> str:
    """The indent unit the editor finds in a text that starts with ``head`` (it reads the first
    64K characters only)."""
    return _detect_unit(head)


_OUTER_PAIRS: list[Any] = [None]  # set by _pairs_checked: the pairs of the object decoded last


def _pairs_checked(pairs: list[tuple[str, Any]]) -> None:
    """``_pairs_to_dict``'s check, its dict dropped: an object read for its keys only."""
    _pairs_to_dict(pairs)
    _OUTER_PAIRS[0] = pairs


_CHECK = json.JSONDecoder(object_pairs_hook=_pairs_checked, parse_constant=_bad_constant)


def window_facts(text: str, source: str, *, fmt: str) -> tuple[list[str], bool, bool]:
    """(its top-level keys, whether it writes trailing commas, whether an object in it holds a key
    twice) of a text holding one object, checked as ``load`` checks it, without keeping its data (``json_windows`` reads a big file's windows so: a window
    can be one member of megabytes, Claude Code's ``projects``). Raises ``ParseError`` for anything
    ``load`` refuses, and for a text that is no object."""
    _OUTER_PAIRS[0] = None
    with paused_gc():
        _, trailing, outer = _prepare(text, source, strict=fmt == "json", decoder=_CHECK)
    pairs, _OUTER_PAIRS[0] = _OUTER_PAIRS[0], None
    if outer is not None or pairs is None:  # an object reads as None (and its pairs are kept)
        raise ParseError(source, "expected an object at the top")
    return [key for key, _ in pairs], trailing, _DUPLICATES[0]


# ---------------------------------------------------------------------------------------------
# Masking and validation


def _classify(text: str, c: int, prev: str) -> tuple[int, int]:
    """At ``c`` (outside strings) a ``//``, ``/*`` or ``,``: (end of the span to blank, or -2 for
    a comma that stays, or -1 for a comment that never ends; where scanning goes on). ``prev`` is
    the last significant character before ``c``: a trailing comma must follow a value, so
    ``{,}`` stays invalid."""
    if text[c] == ",":
        after = _GAP.match(text, c + 1).end()
        trailing = after < len(text) and text[after] in "}]" and prev != "" and prev not in "{[,:"
        return (c + 1 if trailing else -2), c + 1
    if text[c + 1] == "/":  # to the first "\r" or "\n": jsonc-parser ends it at either
        end = _LINE_BREAK.search(text, c)
        stop = len(text) if end is None else end.start()
        return stop, stop
    match = _BLOCK_RE.match(text, c)
    return (-1, len(text)) if match is None else (match.end(), match.end())


def _significant(text: str, c: int, floor: int, prev: str) -> str:
    """The last non-blank character in [floor, c), else ``prev``. Only the blanks right before
    ``c`` are walked, and no later call walks them again."""
    j = c - 1
    while j >= floor and text[j] in " \t\r\n":
        j -= 1
    return text[j] if j >= floor else prev


def _find_masks(text: str) -> Iterator[tuple[int, int]]:
    """Yield the spans of comments and trailing commas in order; an unterminated block comment
    ends the scan with (start, -1). A regex finds candidates, and for each one whether a string
    covers it, without possessive quantifiers. ``_mask`` uses one regex; this scanner is its
    reference in the tests, and finds the first comment in a strict JSON file that does not parse."""
    pos = 0  # everything before pos is classified
    done, prev = 0, ""  # end of the last comment or comma, last significant character before it
    outside, string, find = _OUTSIDE.match, _STRING.match, text.find
    for cand in _CANDIDATE.finditer(text):
        c = cand.start()
        if c < pos:
            continue
        if find('"', pos, c) >= 0:  # is c inside a string?
            while True:
                end = outside(text, pos, c).end()
                if end == c:
                    break
                quoted = string(text, end)
                assert quoted is not None  # outside() stops only at a quote, where a string starts
                pos = quoted.end()
                if pos > c:
                    break
            if pos > c:
                continue
        prev = _significant(text, c, done, prev)
        end, pos = _classify(text, c, prev)
        if end != -2:
            yield c, end
        if end == -1:
            return
        if text[c] == ",":
            prev = ","
        done = pos


def block_comment_at(text: str) -> tuple[int, int] | None:
    """Line and column of the first ``/* */`` comment outside strings, else None: for a client
    that reads JSON with only ``//`` comments (and trailing commas) stripped, as pi does."""
    if "/*" not in text:
        return None
    for start, _ in _find_masks(text):
        if text.startswith("/*", start):
            return line_col(text, start)
    return None


# a comma, blanks, then "}", "]" or a comment: what any trailing comma is followed by (one in a
# string matches too, and a comment may lead on to a value; ``_find_masks`` then decides),
# searched in C first; linear (a comment's end looked for after each comma was quadratic)
_MAY_TRAIL = lazy(r",\s*+(?:[}\]]|/[/*])")


def strict_json_problem(text: str) -> tuple[int, int, str] | None:
    """Where a file read as ``JSON.parse(stripJsonComments(text))`` fails though gwconf's JSONC
    reader takes it: a byte-order mark, or the first trailing comma (line, column, what); None
    when it has neither (Gemini CLI reads settings.json so: the shapes sweep found both made it
    refuse to start while status said all was well)."""
    if text.startswith("\ufeff"):
        return 1, 1, "a byte-order mark"
    if not _MAY_TRAIL.search(text):  # no comma before a closer, blanks and comments between
        return None
    for start, _ in _find_masks(text):
        if text.startswith(",", start):
            return (*line_col(text, start), "a trailing comma")
    return None


_Spans = tuple["array.array[int]", "array.array[int]"]  # (starts, ends) of disjoint spans, in order


def _mask(text: str, like: str | None = None, blanks: _Spans | None = None) -> tuple[Any, bool, int]:
    """(masked text, any trailing comma blanked, start of an unterminated comment or -1).

    One regex finds every comment and trailing comma (in C, strings skipped whole); the loop only
    joins the text between them with blanks of their length. The masked text is built in pieces
    of a few thousand spans, each appended in place, so a big file costs its mask and a few
    kilobytes, not a second copy or a list of slices.

    With ``like``, each piece is compared with ``like`` instead of kept: the result is ``like``
    itself if it is the text's mask, else None (an unterminated comment is reported as usual).
    ``blanks`` (empty arrays) get the spans blanked: the mask is the text with them blanked."""
    out = ""
    done = 0  # with ``like``: how much of it the pieces so far matched
    pieces: list[str] = []
    add, spaces = pieces.append, _BLANKS
    pos = count = 0
    trailing = False
    # After a "{", "[", ":" or "," followed by a comma the file is invalid: no comma after that
    # counts as trailing, so json reports the first error where a plain reading would.
    broken = _LEAD_COMMA.match(text) is not None
    if blanks is not None:
        add_start, add_end = blanks[0].append, blanks[1].append
    for match in _MASK_RE.finditer(text):
        start, end = match.span(1)
        if start < 0:
            start = match.start(2)
            if start < 0:  # the end of the text
                break
            if text.startswith("/*", start):
                return text, trailing, start
            broken = True
            continue
        if text[start] == ",":
            if broken:
                continue
            trailing = True
        add(text[pos:start])
        add(spaces[end - start])
        pos = end
        if blanks is not None:
            add_start(start)
            add_end(end)
        count += 1
        if count == 4096:
            if like is None:
                out += "".join(pieces)  # grows ``out`` in place: it holds the only reference
            else:
                piece = "".join(pieces)
                if not like.startswith(piece, done):
                    return None, False, -1  # the caller masks the text whole
                done += len(piece)
            pieces.clear()
            count = 0
    if like is not None:
        add(text[pos:])
        piece = "".join(pieces)
        same = like.startswith(piece, done) and done + len(piece) == len(like)
        return (like, trailing, -1) if same else (None, trailing, -1)
    if not pos:
        return text, trailing, -1
    add(text[pos:])
    out += "".join(pieces)
    return out, trailing, -1


def _mask_spans(text: str, spans: Iterator[tuple[int, int]]) -> tuple[str, bool, int]:
    """``_mask`` from ``_find_masks``'s spans: the reference in the tests."""
    pieces: list[str] = []
    trailing = False
    pos = 0
    for start, end in spans:
        if end < 0:
            return text, trailing, start
        if text[start] == ",":
            trailing = True
        pieces += (text[pos:start], _BLANKS[end - start])
        pos = end
    if not pos:
        return text, trailing, -1
    pieces.append(text[pos:])
    return "".join(pieces), trailing, -1


def _blanked(text: str, starts: Sequence[int], ends: Sequence[int]) -> str:
    """``text`` with the spans blanked: a mask from its spans (``JsonDocument._masked``). Built
    in pieces of a few thousand spans, each appended in place, as ``_mask`` builds it."""
    if not starts:
        return text
    out = ""
    pieces: list[str] = []
    add = pieces.append
    pos = 0
    for count, (start, end) in enumerate(zip(starts, ends, strict=True), 1):
        add(text[pos:start])
        add(_BLANKS[end - start])
        pos = end
        if not count % 4096:
            out += "".join(pieces)  # grows ``out`` in place: it holds the only reference
            pieces.clear()
    add(text[pos:])
    out += "".join(pieces)
    return out


_SPACES = lazy(" +")
_PLAIN_PATH_PART = lazy(r"[A-Za-z_$][\w$-]*")  # shown bare in a path, else quoted


def _blank_runs(piece: str, masked_piece: str) -> list[tuple[int, int]] | None:
    """The spans of ``piece`` its mask blanks, or None if the mask is not ``piece`` with some
    spans blanked (then the document keeps its mask whole)."""
    if masked_piece == piece:
        return []
    if len(masked_piece) != len(piece):
        return None
    runs = [m.span() for m in _SPACES.finditer(masked_piece) if piece[m.start() : m.end()] != m.group()]
    starts, ends = zip(*runs, strict=True) if runs else ((), ())
    return runs if _blanked(piece, starts, ends) == masked_piece else None


def _moved_blanks(blanks: _Spans, start: int, end: int, length: int, runs: list[tuple[int, int]]) -> _Spans:
    """The blanked spans after [start, end) became a piece of ``length`` characters whose own
    blanked spans are ``runs``: those before it stay, those after it move by the change in
    length, one that overlaps it keeps its parts outside."""
    import bisect

    starts, ends = blanks
    delta = length - (end - start)
    i = bisect.bisect_right(ends, start)  # spans [0, i) end at or before the splice
    j = max(i, bisect.bisect_left(starts, end))  # spans [j, ...) start at or after its end
    new_starts, new_ends = starts[:i], ends[:i]
    after: list[tuple[int, int]] = []
    for k in range(i, j):  # spans the splice overlaps: their parts outside it stay blank
        lo, hi = starts[k], ends[k]
        if lo < start:
            new_starts.append(lo)
            new_ends.append(start)
        if hi > end:
            after.append((end + delta, hi + delta))
    for lo, hi in runs:
        new_starts.append(start + lo)
        new_ends.append(start + hi)
    for lo, hi in after:
        new_starts.append(lo)
        new_ends.append(hi)
    if delta:
        new_starts.extend([n + delta for n in starts[j:]])
        new_ends.extend([n + delta for n in ends[j:]])
    else:
        new_starts.extend(starts[j:])
        new_ends.extend(ends[j:])
    return new_starts, new_ends


def _is_blank(text: str) -> bool:
    return _WS.match(text).end() == len(text)


def _prepare(
    text: str,
    source: str,
    *,
    strict: bool,
    like: str | None = None,
    blanks: _Spans | None = None,
    decoder: json.JSONDecoder = _DATA,
) -> tuple[str, bool, Any]:
    """(masked text, uses trailing commas, data); raises ParseError. ``decoder``: what reads the
    masked text (``window_facts``' keeps no data).

    The data is kept whatever the size: validating with it costs a tenth more than without,
    and almost every caller reads it next (plan.load_file), which cost a second decode.
    ``like``: a mask that may be the text's; it is returned if masking the text gives the
    same, and no second mask is built. ``blanks``: as ``_mask`` fills them (not with ``like``)."""
    if strict:
        if _is_blank(text):
            return text, False, {}
        try:
            return text, False, _validate(text, text, source, decoder)
        except JSONDecodeError as exc:
            first = next(_find_masks(text), (-1, -1))[0]
            if 0 <= first <= exc.pos:
                what = "trailing commas are" if text[first] == "," else "comments are"
                raise ParseError(
                    source, f"{what} not allowed in this file (plain JSON)", *line_col(text, first)
                ) from None
            raise ParseError(source, _explained(exc, text), *line_col(text, exc.pos)) from None
    masked, trailing, unterminated = _mask(text, like) if like is not None else _mask(text, blanks=blanks)
    if masked is None:  # not ``like``: mask it whole
        masked, trailing, unterminated = _mask(text)
    if unterminated >= 0:
        raise ParseError(source, "unterminated /* comment", *line_col(text, unterminated))
    if _is_blank(masked):
        return masked, False, {}
    try:
        return masked, trailing, _validate(masked, text, source, decoder)
    except JSONDecodeError as exc:
        raise ParseError(source, _explained(exc, text), *line_col(text, exc.pos)) from None


_NO_KEY = "Expecting property name enclosed in double quotes"
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _explained(exc: JSONDecodeError, text: str) -> str:
    """json's message for what it met, in the words of what a person most likely wrote there: a
    multi-line value pasted into a string said "Invalid control character at"."""
    msg, char = exc.msg, text[exc.pos : exc.pos + 1]
    if msg == "Invalid control character at" and char:
        code = f"{ord(char):04x}"
        escape = _ESCAPES.get(char) or "\\u" + code
        name = (
            "a line break" if char in "\r\n" else "a tab" if char == "\t" else "character U+" + code.upper()
        )
        return f"{name} inside a string: JSON writes it as {escape}"
    if msg in (_NO_KEY, "Expecting value") and char == "'":
        return f"a {'key' if msg == _NO_KEY else 'string'} in single quotes: JSON needs double quotes"
    if msg == _NO_KEY and char and (char.isalpha() or char in "_$"):
        return "a key without quotes: JSON needs double quotes around it"
    if msg == _NO_KEY and char == ",":
        return "a comma with no entry before it (two commas in a row?)"
    if not char and msg in ("Expecting value", _NO_KEY):
        return "the file ends before the JSON value does (a closing '}' or ']' missing?)"
    if msg == "Expecting value" and char in ",}]":
        return "a value is missing here (a comma too many, or a key with nothing after its ':'?)"
    return _SAID.get(msg, msg)


# json's messages that mean one thing wherever they stop
_SAID = {
    "Expecting ':' delimiter": "expected ':' after the key",
    "Expecting ',' delimiter": "expected ',' here: is a comma missing between two entries?",
    "Extra data": "more text after the end of the JSON value (one '}' too many?)",
    "Unterminated string starting at": "a string whose closing quote is missing",
}


# ---------------------------------------------------------------------------------------------
# JSON5: the mask is each token's JSON spelling; the text is padded to its length


_PAD = "\x01"
# Runs JSON5 shares with JSON (blanks, brackets, colons, plain strings, JSON numbers, keywords,
# commas no closing bracket or comment follows), else one token that needs a look.
_J5 = lazy(
    r"(?P<run>(?:[ \t\r\n{}\[\]:]+"
    r'|"[^"\\\r\n\x01]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\r\n\x01]*)*"'
    r"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.$])"
    r"|(?:true|false|null)(?![\w$])(?![ \t\r\n]*:)"
    r"|,(?![ \t\r\n]*[}\]/]))+)"
    rf"|(?P<comment>//[^\r\n]*|{_BLOCK}|/\*)"
    r"|(?P<string>[\"'])"
    r"|(?P<number>[-+]?\.?\d(?:[\w.]|(?<=[eE])[-+])*)"
    r"|(?P<word>(?:[^\W\d]|\$)[\w$]*)"
    r"|(?P<comma>,)"
    r"|(?P<space>[\v\f\xa0\ufeff\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000])"
    r"|(?P<other>[\s\S])"
)
_J5_CHUNK = lazy(r"[^\"'\\\r\n]+|\\(?:\r\n|[\s\S])|[\s\S]")
_HEX4 = lazy(r"[0-9a-fA-F]{4}")
_HEX2 = lazy(r"[0-9a-fA-F]{2}")
_J5_ESCAPES = {"v": "\\u000b", "0": "\\u0000", "'": "\\u0027"}


def _utf16_escape(char: str) -> str:
    """``\\uXXXX`` (two of them beyond the BMP): never shorter than the 2-character escape."""
    units = char.encode("utf-16-be")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def _j5_string(text: str, start: int, source: str) -> tuple[int, str, str]:
    """The string opening at ``start``: (end, padded text, JSON mask), the last two of equal length."""
    quote = text[start]
    out, mask = [quote], ['"']
    for chunk in _J5_CHUNK.finditer(text, start + 1):
        piece, pos = chunk.group(), chunk.end()
        if piece == quote:
            out.append(piece)
            mask.append('"')
            return pos, "".join(out), "".join(mask)
        if piece in ("\r", "\n"):
            break
        if piece[0] != "\\":
            spelled = '\\"' if piece == '"' else piece
        elif piece[1] in '\\"/bfnrt' or (piece[1] == "u" and _HEX4.match(text, pos)):
            spelled = piece  # JSON's own escape (a \\u's four digits follow as a plain chunk)
        elif piece[1] == "x" and _HEX2.match(text, pos):
            spelled = "\\u00"  # \\xAB: its two digits follow
        elif piece[1] in "v'" or (piece[1] == "0" and not text[pos : pos + 1].isdigit()):
            spelled = _J5_ESCAPES[piece[1]]
        elif piece[1] in "\r\n\u2028\u2029xu" or piece[1].isdigit():
            raise ParseError(
                source,
                f"the escape {piece!r} in a string: gwconf cannot edit this JSON5 file safely",
                *line_col(text, chunk.start()),
            )
        else:
            spelled = _utf16_escape(piece[1])  # "\\a" is "a"
        out.append(piece + _PAD * (len(spelled) - len(piece)))
        mask.append(spelled)
    raise ParseError(source, "unterminated string", *line_col(text, start))


def _prepare5(text: str, source: str) -> tuple[str, str, bool, Any]:
    """(padded text, mask, uses trailing commas, data) of a JSON5 file; raises ParseError."""
    bad = text.find(_PAD)
    if bad >= 0:
        raise ParseError(source, "a control character (U+0001) is not valid JSON5", *line_col(text, bad))
    out: list[str] = []
    mask: list[str] = []
    pos = 0  # text[pos:] is not in ``out`` / ``mask`` yet
    trailing = False
    prev = ""  # the last significant character before the token
    scan, at = _J5.match, 0
    while at < len(text):
        match = scan(text, at)
        assert match is not None  # the last alternative takes any one character
        kind, start, end = match.lastgroup, at, match.end()
        at = end
        if kind == "run":
            prev = _significant(text, end, start, prev)
            continue
        if kind == "comment":
            if end - start == 2 and text[start + 1] == "*":  # a whole /* */ is at least 4 long
                raise ParseError(source, "unterminated /* comment", *line_col(text, start))
            piece = _BLANKS[end - start]
        elif kind == "comma":
            after = _GAP.match(text, end).end()
            if after < len(text) and text[after] in "}]" and prev not in ("", "{", "[", ",", ":"):
                piece, trailing = " ", True
            else:
                piece = ","
            prev = ","
        elif kind == "string":
            at, padded, piece = _j5_string(text, start, source)
            out += (text[pos:start], padded)
            mask += (text[pos:start], piece)
            pos, prev = at, '"'
            continue
        elif kind == "word":
            after = _GAP.match(text, end).end()
            if text.startswith(":", after):  # an unquoted key
                word = text[start:end]
                out += (text[pos:start], _PAD, word, _PAD)
                mask += (text[pos:start], '"', word, '"')
                pos, prev = end, '"'
                continue
            piece, prev = text[start:end], text[end - 1]  # a value: true, or invalid
        elif kind == "number":
            number = text[start:end]
            if len(number) > 12:  # an unquoted value starting with a digit may be a key: not quoted
                number = number[:4] + "…"
            raise ParseError(
                source,
                f"the number {number} is JSON5 only (hex, a leading + or a bare dot): "
                "gwconf edits JSON5 files whose numbers are plain JSON",
                *line_col(text, start),
            )
        elif kind == "space":
            piece = " "
        else:
            piece, prev = text[start:end], text[start]
        out += (text[pos:start], text[start:end])
        mask += (text[pos:start], piece)
        pos = end
    if pos == 0:
        padded = masked = text
    else:
        out.append(text[pos:])
        mask.append(text[pos:])
        padded, masked = "".join(out), "".join(mask)
    if _is_blank(masked):
        return padded, masked, False, {}
    try:
        return padded, masked, trailing, _validate(masked, padded, source)
    except JSONDecodeError as exc:
        raise ParseError(source, _explained(exc, padded), *line_col(padded, exc.pos)) from None


_MEMBER_BLOCK = 4096  # members of a big top-level object compared at a time


def _object_is(masked: str, intended: dict[str, Any]) -> bool:
    """Whether ``_DATA.decode(masked)`` would be a top-level object exactly like ``intended``.

    The object is read as json's C decoder reads it (the same string and value scanners, the
    same whitespace, no trailing comma, nothing after it) one member at a time, and compared in
    blocks of members by their marshal bytes, so neither the whole data nor its bytes exist at
    once. A duplicate top-level key cannot match: ``intended``'s keys are unique."""
    ws, colon, scan = _WS.match, _COLON.match, _DATA_SCAN
    keys, values = list(intended), list(intended.values())
    got_keys: list[str] = []
    got_values: list[Any] = []
    done = 0

    def block_matches() -> bool:
        upto = done + len(got_keys)
        return marshal.dumps(got_keys, 2) == marshal.dumps(keys[done:upto], 2) and marshal.dumps(
            got_values, 2
        ) == marshal.dumps(values[done:upto], 2)

    pos = ws(masked).end()
    if not masked.startswith("{", pos):
        return False
    pos = ws(masked, pos + 1).end()
    while True:
        if not masked.startswith('"', pos):
            return False  # an empty object, or not a key: intended has many
        key, pos = scanstring(masked, pos + 1)
        sep = colon(masked, pos)
        if sep is None:
            return False
        value, pos = scan(masked, sep.end())
        got_keys.append(key)
        got_values.append(value)
        if len(got_keys) == _MEMBER_BLOCK:
            if not block_matches():
                return False
            done += _MEMBER_BLOCK
            got_keys.clear()
            got_values.clear()
        pos = ws(masked, pos).end()
        if masked.startswith(",", pos):
            pos = ws(masked, pos + 1).end()
        elif masked.startswith("}", pos):
            break
        else:
            return False
    return block_matches() and done + len(got_keys) == len(keys) and ws(masked, pos + 1).end() == len(masked)


# ---------------------------------------------------------------------------------------------
# Reading an edited text back from the top-level members that changed


class _Base:
    """What the write gate's window read needs of the text as loaded: its data and where its
    top-level members start (``starts``, in order, from member ``first`` on; ``close``: the
    closing brace, or -1 when the members after the last in ``starts`` were never walked).
    Taken at the first splice from the walk the editor made on the mask read at load (forwards
    from the first member, or back from the closing brace), before that mask is replaced.
    ``end``: the closing brace found from the end of that mask (the last character that is not
    blank), whether or not the members before it were walked; -1 if there is none."""

    __slots__ = ("close", "data", "end", "first", "starts")

    def __init__(
        self, data: dict[str, Any], starts: Sequence[int], close: int, first: int = 0, end: int = -1
    ) -> None:
        self.data = data
        self.starts = starts  # of the members numbered ``first`` on
        self.close = close
        self.first = first
        self.end = close if close >= 0 else end


_WINDOW_DEPTH = 200  # deeper new values: the whole read decides (json's C scanner recurses)


def _mask_window(text: str, start: int, stop: int) -> str | None:
    """The mask of ``text[start:stop]`` as masking the whole text gives it, or None when that
    cannot be shown from the window: the scan starts at ``start`` (a token start, where masking
    the whole text is between tokens) and sees one character past ``stop`` (one that is neither
    blank nor ``/``, so every lookahead that reaches it stops there, as in the whole text); no
    comment may run past ``stop``, and no ``/*`` may be left open or comma misplaced (the whole
    read decides those)."""
    pieces: list[str] = []
    pos = start
    for match in _MASK_RE.finditer(text, start, stop + 1):
        begin, end = match.span(1)
        if begin < 0:
            if match.start(2) >= 0:
                return None
            break
        if end > stop:
            return None
        pieces += (text[pos:begin], _BLANKS[end - begin])
        pos = end
    pieces.append(text[pos:stop])
    return "".join(pieces)


def _window_members(window: str, last: bool) -> list[tuple[str, Any]] | None:
    """The members a masked window of whole top-level members holds, read as json's decoder
    reads them inside the object: ``key: value`` pairs, each followed by a comma, except that
    the window before the closing brace (``last``) ends without one. None if it is not that."""
    ws, colon, scan = _WS.match, _COLON.match, _DATA_SCAN
    pairs: list[tuple[str, Any]] = []
    pos = 0
    size = len(window)
    while pos < size:
        if window[pos] != '"':
            return None
        key, pos = scanstring(window, pos + 1)
        sep = colon(window, pos)
        if sep is None:
            return None
        value, pos = scan(window, sep.end())
        pairs.append((key, value))
        pos = ws(window, pos).end()
        if pos == size:
            return pairs if last else None
        if window[pos] != ",":
            return None
        pos = ws(window, pos + 1).end()
        if pos == size and last:
            return None  # the whole mask blanks a comma before "}": not this reading
    return pairs if not last or pairs else None


def _depth(values: list[Any]) -> int:
    """How deeply the containers in ``values`` nest (iteratively: they may nest deeply)."""
    deepest = 0
    stack = [(v, 1) for v in values if isinstance(v, (dict, list))]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > _WINDOW_DEPTH:
            break
        items = value.values() if isinstance(value, dict) else value
        stack += [(v, depth + 1) for v in items if isinstance(v, (dict, list))]
    return deepest


def _read_window(base: str, top: _Base, new: str, edits: list[Edit], strict: bool) -> _Spliced | None:
    """What ``new`` (``base`` with ``edits`` made; ``base`` read as the object ``top.data``
    with no key twice) reads as (``_Spliced``), shown from the run of whole top-level members
    that holds every change; None when it cannot be shown that way.

    The window runs from the start of the last member that starts before the first change to
    the start of the first member that starts at or after the end of the changes (or to the
    closing brace). The text before it and after it is unchanged, and its first character too,
    a ``"`` (neither blank nor ``/``): masking the whole text blanks the same comments and
    commas before it, and, the window's own mask shown to end where a token ends
    (``_mask_window``), after it. So the whole text is the same object with those members
    replaced by the ones the window holds (``_window_members``), joined as json's decoder joins
    them: a key that is also outside the window keeps its first place and takes the last
    value, as the whole read does."""
    if type(top.data) is not dict:
        return None
    regions = changed_regions(edits)
    if not regions:
        return None
    old_start, old_end, new_start, new_end = regions[0][0], regions[-1][1], regions[0][2], regions[-1][3]
    delta = len(new) - len(base)
    if (
        old_start != new_start
        or old_end + delta != new_end
        or not same_run(base, 0, new, 0, old_start)
        or not same_run(base, old_end, new, new_end, len(base) - old_end)
    ):
        return None
    import bisect

    starts = top.starts
    i = bisect.bisect_left(starts, old_start) - 1  # the last member starting before the change
    if i < 0:
        return None
    j = bisect.bisect_left(starts, old_end, i + 1)
    last = j == len(starts)
    if not last:
        stop = starts[j]
    elif top.close >= old_end:
        stop = top.close
    elif top.end >= old_end:
        # the members after the last one walked were never walked: the window runs on to the
        # closing brace and holds every member from the ``i``th on
        stop = top.end
        j = len(top.data) - top.first
    else:
        return None
    start = starts[i]
    if stop - start > len(base) // 2 + 4096:
        return None  # most of the file: the whole read costs the same
    window = new[start : stop + delta] if strict else _mask_window(new, start, stop + delta)
    if window is None:
        return None
    saved = _DUPLICATES[0]
    _DUPLICATES[0] = False
    try:
        with paused_gc():
            pairs = _window_members(window, last)
        twice = _DUPLICATES[0]  # a key twice in an object inside the window
    except (JSONDecodeError, StopIteration, _BadConstant, RecursionError, ValueError):
        return None
    finally:
        _DUPLICATES[0] = saved
    if pairs is None or twice or len({key for key, _ in pairs}) != len(pairs):
        return None  # (a key twice: the whole read refuses it, see ``reread``)
    if _depth([v for _, v in pairs]) > _WINDOW_DEPTH:
        return None
    first = top.first
    if len(top.data) < first + len(starts) or (top.close >= 0 and len(top.data) != first + len(starts)):
        return None
    return _Spliced(top.data, first + i, first + j, dict(pairs))


class _Spliced:
    """An object read as ``data`` with its members ``i`` to ``j`` replaced by ``members``, as
    json's decoder joins them (a key also outside the window keeps its first place and takes
    the last value), compared without building it: a big object's copy was the write gate's
    peak memory."""

    __slots__ = ("data", "i", "j", "members")

    def __init__(self, data: dict[str, Any], i: int, j: int, members: dict[str, Any]) -> None:
        self.data, self.i, self.j, self.members = data, i, j, members

    def whole(self) -> dict[str, Any]:
        items = list(self.data.items())
        now = dict(items[: self.i])
        now.update(self.members)
        now.update(items[self.j :])
        return now

    def same(self, other: Any) -> bool:
        """``formats._same(self.whole(), other)``: the same keys, each value equal (bools
        apart from numbers, NaN equal to NaN); values that are one object are equal. False when
        a key of the window is outside it too (the text holds it twice): the whole read decides."""
        import itertools

        from gwconf.formats import _equal, _same

        data, i, j, members = self.data, self.i, self.j, self.members
        if type(other) is not dict:
            return _same(self.whole(), other)
        if any(key in data for key in members.keys() - list(itertools.islice(data, i, j))):
            return False  # a key outside the window too: twice in the text; the whole read decides
        tail = len(data) - j
        size = i + len(members) + tail
        if len(other) != size:
            return False
        kept = ((0, i, 0), (j, len(data), size - tail))  # (from, to) in data; where in other
        if all(
            all(map(operator.eq, itertools.islice(data, lo, hi), itertools.islice(other, at, None)))
            for lo, hi, at in kept
        ):
            # the usual order (what ``replay`` makes of a copy of the data): compared in place,
            # not looked up (120,000 lookups in a big dict were 60 ms of cache misses). Each
            # pass touches every value (its reference count), so the usual case, every value
            # the very object it was, takes one pass; any other is compared below
            if all(
                all(
                    map(
                        operator.is_,
                        itertools.islice(data.values(), lo, hi),
                        itertools.islice(other.values(), at, at + hi - lo),
                    )
                )
                for lo, hi, at in kept
            ):
                return all(key in other and _equal(value, other[key]) for key, value in members.items())
            for lo, hi, at in kept:
                ours = list(itertools.islice(data.values(), lo, hi))
                theirs = list(itertools.islice(other.values(), at, at + hi - lo))
                for n in itertools.compress(range(hi - lo), map(operator.is_not, ours, theirs)):
                    if not _equal(ours[n], theirs[n]):
                        return False
        else:
            keys, values = list(data), list(data.values())
            for lo, hi, _ in kept:
                theirs = list(map(other.get, keys[lo:hi], itertools.repeat(MISSING)))
                ours = values[lo:hi]
                for n in itertools.compress(range(hi - lo), map(operator.is_not, ours, theirs)):
                    if theirs[n] is MISSING or not _equal(ours[n], theirs[n]):
                        return False
        return all(key in other and _equal(value, other[key]) for key, value in members.items())


def _validate(masked: str, text: str, source: str, decoder: json.JSONDecoder = _DATA) -> Any:
    """Check the whole masked text at C speed and return its data (what ``decoder`` makes of it)."""
    _DUPLICATES[0] = False
    try:
        return decoder.decode(masked)
    except (_BadConstant, RecursionError):
        found = _structure_problem(masked)
        if found is None:  # pragma: no cover - the C scanner and our scan disagree
            raise ParseError(source, "nested too deeply to edit safely") from None
        pos, message = found
        raise ParseError(source, message, *line_col(text, pos)) from None


def _structure_problem(masked: str) -> tuple[int, str] | None:
    """Locate what json's hooks refused (only on the error path): NaN or Infinity, or nesting
    deeper than ``_MAX_DEPTH``. Iterative, so deep files cannot crash it."""
    depth = 0
    for token in _TOKEN.finditer(masked):
        pos = token.start()
        char = masked[pos]
        if char in "{[":
            depth += 1
            if depth > _MAX_DEPTH:
                return pos, f"nested more than {_MAX_DEPTH} levels deep; gwconf cannot edit it safely"
        elif char in "}]":
            depth = max(depth - 1, 0)
        elif char not in '",:':
            return pos, f"{token.group()} is not valid JSON"
    return None


# ---------------------------------------------------------------------------------------------
# Values and paths


def _check_path(path: KeyPath) -> KeyPath:
    path = tuple(path)
    for part in path:
        if isinstance(part, bool) or not isinstance(part, (str, int)):
            raise TypeError(f"key path parts are str keys or int indices, not {part!r}")
    return path


def _check_value(value: Any) -> None:
    """Refuse what JSON cannot hold instead of letting json.dumps quietly convert it."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"JSON cannot hold {value!r}")
        return
    if isinstance(value, list):
        for item in value:
            _check_value(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys are strings, not {key!r}")
            _check_value(item)
        return
    raise TypeError(f"not a JSON value: {value!r}")


def _show_path(path: KeyPath) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_PATH_PART.fullmatch(part):
            out += ("." if out else "") + part
        else:
            out += f"[{_dumps(part)}]"
    return out or "the top level"


def _kind(masked: str, pos: int) -> str:
    char = masked[pos]
    return {"{": "an object", "[": "an array", '"': "a string", "t": "true", "f": "false", "n": "null"}.get(
        char, "a number"
    )


def _nest(keys: KeyPath, value: Any) -> Any:
    for key in reversed(keys):
        value = {key: value}
    return value


def _render(value: Any, indent: str, unit: str, eol: str, trailing: bool) -> str:
    """Multi-line JSON in the file's style; ``_TRAIL`` marks trailing commas (JSONC only)."""
    if isinstance(value, dict) and value:
        inner = indent + unit
        parts = [f"{inner}{_dumps(k)}: {_render(v, inner, unit, eol, trailing)}" for k, v in value.items()]
        brackets = "{}"
    elif isinstance(value, list) and value:
        inner = indent + unit
        parts = [inner + _render(v, inner, unit, eol, trailing) for v in value]
        brackets = "[]"
    else:
        return _dumps(value)
    tail = _TRAIL if trailing else ""
    return brackets[0] + eol + ("," + eol).join(parts) + tail + eol + indent + brackets[1]


def _compact(value: Any, item_sep: str, key_sep: str) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(item_sep, key_sep))


def _reads_as(spelling: str, value: Any) -> bool:
    """Whether ``json`` reads ``spelling`` alone as ``value`` (a restore's spelling)."""
    try:
        return same_value(_PLAIN.decode(spelling), value)
    except ValueError:
        return False


def _marked(piece: str) -> tuple[str, str]:
    """(text, mask) of generated JSON: trailing-comma marks become "," and " "."""
    if _TRAIL not in piece:
        return piece, piece
    return piece.replace(_TRAIL, ","), piece.replace(_TRAIL, " ")


def _spliced(text: str, start: int, end: int, piece: str) -> str:
    """``text[:start] + piece + text[end:]``, built with no copy of the text besides the result.

    A slice of a big text is a copy of it, and so is every ``+`` (``+=`` grows a string in
    place only once CPython has specialised the line, which a one-off splice never is).
    ``str.replace`` writes its result straight from the text: the replaced span is widened to
    the right until its first occurrence in the text is the one at ``start``."""
    if start == len(text):
        return text + piece
    if len(text) <= _SPANS_ABOVE:  # a small text: its slices cost less than finding a unique span
        return "".join((text[:start], piece, text[end:]))
    for width in (64, 4096, 1 << 20):
        stop = max(end, min(len(text), start + width))
        old = text[start:stop]
        if text.find(old) == start:
            return text.replace(old, piece + text[end:stop], 1)
        if stop == len(text):
            break
    return "".join((text[:start], piece, text[end:]))


_BACK_LIMIT = 1 << 16  # characters a backward scan covers before the forward walk takes over
_BACK_MEMBERS = 8  # last members of a big object searched for a key it has, before walking it
_SCALAR_CHARS = frozenset("-+.0123456789eEtruefalsn")


def _blank_back(masked: str, end: int, floor: int) -> int:
    """Just past the last character before ``end`` (not before ``floor``) that is not blank."""
    while end > floor and masked[end - 1] in " \t\r\n":
        end -= 1
    return end


def _string_back(masked: str, close: int, floor: int) -> int:
    """The opening quote of the string whose closing quote is at ``close``; -1 past ``floor``."""
    at = close
    while True:
        at = masked.rfind('"', floor, at)
        if at <= floor:
            return -1
        run = at
        while run > floor and masked[run - 1] == "\\":
            run -= 1
        if run <= floor:
            return -1
        if (at - run) % 2 == 0:
            return at


def _value_back(masked: str, end: int, floor: int) -> int:
    """Where the value ending just before ``end`` starts, in a valid mask; -1 if not found after
    ``floor`` and within ``_BACK_LIMIT`` characters."""
    floor = max(floor, end - _BACK_LIMIT)
    at = end - 1
    char = masked[at]
    if char == '"':
        return _string_back(masked, at, floor)
    if char in "}]":
        depth = 0
        while at > floor:
            char = masked[at]
            if char == '"':
                at = _string_back(masked, at, floor)
                if at < 0:
                    return -1
            elif char in "}]":
                depth += 1
            elif char in "{[":
                depth -= 1
                if not depth:
                    return at
            at -= 1
        return -1
    while at > floor and masked[at - 1] in _SCALAR_CHARS:
        at -= 1
    return at if at > floor else -1


def _member_back(masked: str, end: int, container: int, key: str) -> _Child | None:
    """The member ``key: value`` whose value ends just before ``end``, found backwards, then
    read forwards as ``_scan_children`` reads it: None unless both readings agree."""
    value = _value_back(masked, end, container)
    if value < 0:
        return None
    colon = _blank_back(masked, value, container)
    if masked[colon - 1] != ":":
        return None
    quote = _blank_back(masked, colon - 1, container) - 1
    if masked[quote] != '"':
        return None
    start = _string_back(masked, quote, container)
    if start < 0:
        return None
    try:
        got, after = scanstring(masked, start + 1)
        sep = _COLON.match(masked, after)
        if got != key or sep is None or sep.end() != value or _SKIP_SCAN(masked, value)[1] != end:
            return None
    except (ValueError, StopIteration):
        return None
    return key, start, value, end


def _only_comma(text: str, start: int, end: int) -> bool:
    """Nothing but blanks and one comma in [start, end): no comment would be lost."""
    match = _COMMA.match(text, start)
    return match is not None and match.end() == end


_SAME_LINE_GAP = total(rf"(?:[ \t]+|{_BLOCK})*")  # blanks and /* */ comments on one line
_BLANKS_COMMA = total(r"[ \t\r\n]*,?[ \t\r\n]*")


def _member_claim(text: str, prev: _Child | None, child: _Child) -> tuple[int, int]:
    """What deleting ``child`` may remove, from its parsed position alone (the write gate's claim;
    ``_remove`` decides the cut, this only bounds it): the member itself; the blanks before it on
    its own line; back to the previous value when only blanks and a comma lie between, or when
    it shares that value's line (``[1, /* c */ 2]``: the comment goes with the 2); after it,
    blanks, comments and a comma on its line, and the line break when it had the line to itself.
    Never a comment on another line: that one is the user's note about something else."""
    start, end = child[1], child[3]
    line = _line_start(text, start)
    own_line = _INDENT.match(text, line).end() == start
    lo = line if own_line else _last_non_blank(text, line, start)
    if prev is not None and (
        _BLANKS_COMMA.match(text, prev[3]).end() >= lo  # only blanks and a comma between
        or (not own_line and text.find("\n", prev[3], start) < 0)  # on one line with the one before
    ):
        lo = prev[3]
    hi = _SAME_LINE_GAP.match(text, end).end()
    if text.startswith(",", hi):
        hi = _SAME_LINE_GAP.match(text, hi + 1).end()
    if own_line:
        hi = _LINE_REST.match(text, hi).end()
        hi += 2 if text.startswith("\r\n", hi) else 1 if text.startswith(("\n", "\r"), hi) else 0
    return lo, hi


def _last_non_blank(text: str, floor: int, pos: int) -> int:
    """Just past the last character before ``pos`` (not before ``floor``) that is not a space or tab."""
    while pos > floor and text[pos - 1] in " \t":
        pos -= 1
    return pos


def _comma_after(text: str, pos: int) -> int:
    """The comma that follows the value ending at ``pos`` (blanks and comments may come first)."""
    return _GAP.match(text, pos).end()


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    """Just past the newline ending the line at ``pos`` if only blanks and comments follow; else -1."""
    end = _LINE_REST.match(text, pos).end()
    if text.startswith("\r\n", end):
        return end + 2
    if end < len(text) and text[end] in "\r\n":
        return end + 1
    return -1


def _detect_unit(text: str) -> str:
    """Indent unit of the file: tab, or the smallest indent of a line starting with a key."""
    smallest = 0
    first = _FIRST_INDENT.match(text, 0, 1 << 16)
    found = _MEMBER_INDENT.finditer(text, 0, 1 << 16)
    for count, match in enumerate(found if first is None else itertools.chain((first,), found)):
        indent = match.group(1)
        if indent[0] == "\t":
            if not smallest:
                return "\t"
        elif "\t" not in indent and (not smallest or len(indent) < smallest):
            smallest = len(indent)
        if count > 200:
            break
    return " " * smallest if smallest else "  "


@contextlib.contextmanager
def _guard(source: str) -> Iterator[None]:
    """json's C scanner can still run out of stack on a value nested close to the limit."""
    try:
        with paused_gc():
            yield
    except RecursionError:
        raise ParseError(source, "nested too deeply to edit safely") from None


# A child of an object or array: (key or index, start of key or value, value start, value end).


def _walk(masked: str, container: int, after: _Child | None, index: int) -> Iterator[_Child]:
    """The children of the container at ``container`` in ``masked``: from its first, or from
    the one after ``after`` (numbered ``index``). The mask is the one given, whatever splices
    come later."""
    skip, colon, comma = _SKIP_SCAN, _COLON.match, _COMMA.match
    is_object = masked[container] == "{"
    if after is None:
        pos = _WS.match(masked, container + 1).end()
        if masked[pos] in "}]":
            return
    else:
        sep = comma(masked, after[3])  # none after the last one: trailing commas are masked
        if sep is None:
            return
        pos = sep.end()
    key: str | int
    while True:
        if is_object:
            key, end_key = scanstring(masked, pos + 1)
            sep = colon(masked, end_key)
            assert sep is not None  # the text parsed: a colon follows every key
            value = sep.end()
        else:
            key, value = index, pos
        end = skip(masked, value)[1]
        yield key, pos, value, end
        index += 1
        sep = comma(masked, end)
        if sep is None:
            return
        pos = sep.end()


def _shifted(children: Sequence[_Child], delta: int, renumber: int | None) -> list[_Child]:
    """``children`` moved by ``delta``; array elements numbered from ``renumber`` when given."""
    if renumber is None:
        return [(key, a + delta, b + delta, c + delta) for key, a, b, c in children]
    return [(renumber + n, a + delta, b + delta, c + delta) for n, (_, a, b, c) in enumerate(children)]


def _moved(child: _Child | None, delta: int) -> _Child | None:
    """``child`` (if any) moved by ``delta``."""
    return None if child is None else (child[0], child[1] + delta, child[2] + delta, child[3] + delta)


def _window_to_line_end(
    text: str, masked: str, start: int, cut: int, pieces: list[tuple[str, str]], next_char: int
) -> tuple[list[str], list[str], bool]:
    """The window ``_remove_every`` gives the removal of a member that is last now, the one after
    it having gone just before (``next_char`` says what follows it): the text from ``start`` to the
    member's end (``cut``), the pieces left so far up to the first line break past what the
    removal reads (the comma after the member, or the member itself when only blanks and comments
    follow it), then "}" standing in for the rest. After the last member come only blanks,
    comments, at most one comma and the closing brace, so the rest reads the same to ``_remove``.
    Each such window took in every comment the removals before had left between the member and
    the brace: quadratic for a key held thousands of times with a comment line after each copy
    (8,000 copies: 5.5 s). A line break is looked for in the mask, where none is inside a comment.

    Returns the text and mask pieces and whether "}" stands in; what is not taken stays in ``pieces``."""
    window, window_mask = [text[start:cut]], [masked[start:cut]]
    search = next_char + 1 if next_char >= 0 and pieces[-1][0][next_char] == "," else 0
    while pieces:
        piece, piece_mask = pieces.pop()
        line = piece_mask.find("\n", search) + 1
        search = 0
        if line and line < len(piece):
            pieces.append((piece[line:], piece_mask[line:]))
            piece, piece_mask = piece[:line], piece_mask[:line]
        window.append(piece)
        window_mask.append(piece_mask)
        if line and pieces:
            window.append("}")
            window_mask.append("}")
            return window, window_mask, True
    return window, window_mask, False  # the closing brace itself ends the window


_DIGITS = frozenset("0123456789")
_KEY_START, _VALUE_END = operator.itemgetter(1), operator.itemgetter(3)  # of a _Child


def _moved_walk(
    text: str, mask: Callable[[], str], container: int, seen: list[_Child], start: int, end: int, length: int
) -> list[Any] | None:
    """The ``_known`` entry of the container at ``container`` (opening before ``start``) after
    [start, end) became ``length`` characters in ``text`` (``mask()``: its mask): its children read
    before the splice are kept; those the splice may have changed are walked again in the new
    mask, until the walk meets, in the unchanged text after the splice, one that started there
    before: from it on, the old children are moved, not walked (the walk reads only the mask
    from a child's start on, and that is the same text moved). None: forget the container.

    A child is kept when the walk read none of the splice: its value ends before ``start``, or
    at it with a last character that ends it by itself (a number ends where a character that
    cannot continue it is seen: that one was read)."""
    from bisect import bisect_left

    delta = length - (end - start)
    tail = start + length  # from here on the new mask is the old one from ``end`` on, moved
    # the children's starts and ends both rise: searched, not walked (a splice near the end of a
    # big object stepped through every member before it, in Python)
    cut = bisect_left(seen, start, key=_VALUE_END)
    if cut < len(seen) and seen[cut][3] == start and text[start - 1] not in _DIGITS:
        cut += 1
    kept = seen[:cut]
    later = bisect_left(seen, end, cut, key=_KEY_START)
    if later == len(seen):  # nothing to meet again: walk on from the last one kept when asked
        return [kept, False]
    masked = mask()
    is_array = masked[container] == "["
    walk = _walk(masked, container, kept[-1] if kept else None, cut)
    try:
        for child in walk:
            pos = child[1]
            if pos >= tail:
                while later < len(seen) and seen[later][1] + delta < pos:
                    later += 1
                if later == len(seen):  # past every old child: go on walking when asked
                    kept.append(child)
                    return [kept, False]
                if seen[later][1] + delta == pos:
                    kept += _shifted(seen[later:], delta, len(kept) if is_array else None)
                    return [kept, False]
            kept.append(child)
    except Exception:  # a text no walk reads: forget it (the write gate reads the text itself)
        return None
    return [kept, True]


class JsonDocument:
    """A JSON or JSONC file that edits itself in place (see the module docstring)."""

    # where an offset of the text as loaded is in the file: set on a stand-in for part of it
    place: Callable[[int], tuple[int, int]] | None = None

    def __init__(
        self,
        text: str,
        source: str,
        fmt: str,
        masked: str,
        trailing: bool,
        data: Any,
        blanks: _Spans | None = None,
    ) -> None:
        self.source = source
        self.fmt = fmt
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []
        self._text = text
        self._mask_cache: str | None = masked
        # the mask is the text with these spans blanked (JSON, JSONC): a splice moves them and
        # lets the mask go, made again when next read; None: the mask is kept whole (JSON5)
        self._blanks = blanks
        self._trailing = trailing  # the file writes trailing commas (JSONC only)
        self._data = data  # read at load; MISSING after an edit until asked for again
        self._unit_cache: str | None = None
        self._tail: tuple[str, int, int, _Child | None, _Child | None] | None = None
        # container offset -> [its children found so far, whether they are all of them]
        self._known: dict[int, list[Any]] = {}
        self._dups = False  # a key appears twice in one object somewhere: find the last one
        self.notes: list[str] = []  # what the user should hear about an edit (plan.py shows them)
        self._base: _Base | None = None  # the text as loaded, for the write gate (``_take_base``)
        # the last members found back from the closing brace: (mask, number of the first, starts, close)
        self._back: tuple[str, int, list[int], int] | None = None
        self._loaded: Any = MISSING  # the data as read at load, kept at the first splice
        self._top_cache: tuple[int, dict[str, Any]] | None = None  # (ops replayed, ``_top_now``)

    @property
    def _masked(self) -> str:
        """The mask of the text as edited: made from the text and the blanked spans when a
        splice has let it go. A big file's last edit makes no mask at all (the write gate reads
        the edited text back from the text alone), and no two masks or a mask and the new text
        are alive at once while it is spliced."""
        masked = self._mask_cache
        if masked is None:
            assert self._blanks is not None  # only a mask made from spans is let go
            masked = self._mask_cache = _blanked(self._text, *self._blanks)
        return masked

    @_masked.setter
    def _masked(self, masked: str) -> None:
        """A mask given whole (tests) is kept whole from then on."""
        self._mask_cache = masked
        self._blanks = None

    # -- reading --------------------------------------------------------------------------------

    def dump(self) -> str:
        if self.fmt == "json5" and _PAD in self._text:
            return self._text.replace(_PAD, "")
        return self._text

    def gate_text(self) -> str:
        """The text as edited: JSON5's unquoted keys still padded, as in ``original`` and ``edits``."""
        return self._text

    def data(self) -> Any:
        """The whole value (``{}`` for an empty file). Cached: callers must not mutate it."""
        if self._data is MISSING:
            with _guard(self.source):
                self._data = {} if self._top() < 0 else _PLAIN.decode(self._masked)
        return self._data

    def reread(self) -> Any:
        """What ``load(self.dump()).data()`` gives, for the write gate (``formats.checked_edit``).

        The text is masked again from scratch, but each piece is compared with the mask the
        edits kept instead of being kept itself: a big file is not held in three copies. Where
        they differ, the fresh mask is the one read. Validated and decoded in one pass."""
        with paused_gc():
            if self.fmt == "json5":
                return _prepare5(self.dump(), self.source)[3]
            _DUPLICATES[0] = False  # (a blank text is not decoded: no flag left from another file)
            _, _, data = _prepare(self._text, self.source, strict=self.fmt == "json", like=self._masked)
        if _DUPLICATES[0] and not self._dups:
            # json keeps the last of a key twice, so the data can match; another reader may keep
            # the first (the value the edit meant to replace). A file with none gets none.
            raise ParseError(self.source, "the edit put a key in one object twice")
        return data

    def reads_as(self, intended: Any) -> bool:
        """True if the text, parsed from scratch, is exactly ``intended``: the write gate's check
        (``formats.checked_edit``). First from the top-level members that changed alone
        (``_read_window``), compared as the whole re-read would be (``formats._same``); else,
        for a big top-level object, member by member, so the re-read data never exists whole
        (VS Code's settings.json is one flat object): the same keys in the same order, values
        equal in marshal's sense (types included). False means only "not shown this way": the
        caller then re-reads the whole file (``reread``) and compares as usual, and reports any
        parse error."""
        if self.fmt == "json5":
            return False
        if self._base is not None and self.edits:
            now = _read_window(self.original, self._base, self._text, self.edits, self.fmt == "json")
            if now is not None:
                return now.same(intended)
        if type(intended) is not dict or len(intended) <= _MEMBER_BLOCK:
            return False
        with paused_gc():
            if self.fmt == "json":
                masked: str | None = self._text
            else:
                masked, _, unterminated = _mask(self._text, self._masked)
                if unterminated >= 0:
                    return False
            if masked is None:
                return False
            try:
                return _object_is(masked, intended)
            except (JSONDecodeError, StopIteration, _BadConstant, RecursionError, ValueError):
                return False  # not valid JSON, or beyond marshal: the whole re-read decides

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        path = _check_path(path)
        if not path:
            return self.data()
        with _guard(self.source):
            depth, _, start, _, _ = self._descend(path)
            if depth < len(path) or start < 0:
                return default
            return _PLAIN_SCAN(self._masked, start)[0]

    # -- editing --------------------------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        path = _check_path(path)
        _check_value(value)
        with _guard(self.source):
            noted = len(self.notes)
            depth, child_start, start, _, done = self._descend(path, "set")
            if start >= 0 and depth == len(path):
                current, stop = _PLAIN_SCAN(self._masked, start)
                if same_value(current, value):
                    del self.notes[noted:]  # nothing edited: nothing to say
                    return
                self._replace(child_start, start, stop, value, claim=(start, stop))
            elif not path:
                self._create_top(value)
            else:
                self._create(path, depth, child_start, start, value, "set")
            self.ops.append(Op("set", done + path[depth:], copied(value)))

    def spelling(self, path: KeyPath) -> str | None:
        """A value's text as written (a string's quotes and escapes: ``"https:\\/\\/..."``,
        ``"caf\\u00e9"``, JSON5's ``'single'`` and ``0x1F``; an array or object with its own
        layout); None for the top value's object or array, or a missing path."""
        path = _check_path(path)
        with _guard(self.source):
            depth, _, start, end, _ = self._descend(path)
            if depth != len(path) or start < 0 or (end < 0 and self._masked[start] in "{["):
                return None
            if end < 0:  # the top value itself
                end = _PLAIN_SCAN(self._masked, start)[1]
            return self._text[start:end].replace(_PAD, "") if self.fmt == "json5" else self._text[start:end]

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        """``set``, the value written as ``spelling`` where that text alone is ``value`` to json
        (a restore gives the user's escapes and layout back: ``set`` writes json.dumps's
        spelling, and its own layout of an array or object)."""
        path = _check_path(path)
        piece: str | None = None
        masked_piece: str | None = None
        if self.fmt == "json5":  # its text padded to the mask's JSON, as the file's own is
            try:
                piece, masked_piece, _, alone = _prepare5(spelling, self.source)
            except (ValueError, ParseError):
                alone = MISSING
            spelled = same_value(alone, value)
        else:
            spelled = _reads_as(spelling, value)
        if not spelled:
            self.set(path, value)
            return
        with _guard(self.source):
            noted = len(self.notes)
            depth, _, start, end, done = self._descend(path, "set")
            if depth != len(path) or start < 0 or end < 0:
                del self.notes[noted:]  # (set says it again)
                self.set(path, value)
                return
            if self._text[start:end] == (spelling if piece is None else piece):
                del self.notes[noted:]  # nothing edited: nothing to say
                return
            self._splice(start, end, spelling if piece is None else piece, masked_piece, claim=(start, end))
            self.ops.append(Op("set", done, value))

    restoring_from = ignore_pristine

    def comment_above(self, path: KeyPath) -> str | None:
        path = _check_path(path)
        if not path or not isinstance(path[-1], str):
            return None
        with _guard(self.source):
            depth, _, start, _, _ = self._descend(path[:-1])
            if depth < len(path) - 1 or start < 0 or self._masked[start] != "{":
                return None
            found = self._siblings(start, path[-1])
            if found is None:
                return None
            key_at = found[1][1]
            line = _line_start(self._text, key_at)
            if _INDENT.match(self._text, line).end() != key_at:
                return None
            return comment_line_above(self._text, line, ("//", "/*", "*"))

    def key_line(self, path: KeyPath) -> str | None:
        """A member on a line of its own as written, from its key to the line's end (``"k" :1,
        // why``): its spacing, its comma and its comment. A member gwconf takes out leaves with
        its whole line; put back as ``set`` writes it, the user's comment on it was lost."""
        path = _check_path(path)
        if not path or not isinstance(path[-1], str) or self.fmt == "json5" or self._dups:
            return None
        with _guard(self.source):
            depth, key_start, start, end, _ = self._descend(path)
        if depth < len(path) or start < 0 or end < 0:
            return None
        text = self._text
        comma = _comma_after(text, end)  # a member put back before another one has its comma
        if text[_line_start(text, key_start) : key_start].strip(" \t") or not text.startswith(",", comma):
            return None
        line_end = _line_end(text, comma + 1)
        if line_end < 0 or "\n" in text[key_start : comma + 1]:
            return None
        return text[key_start:line_end].rstrip("\r\n")

    def put_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None = None,
        line: str | None = None,
    ) -> None:
        """The member ``path`` (missing) goes right before member ``following`` of its object:
        on a line of its own after the line of the member before it (comments above
        ``following`` stay with it), or inline before it in a one-line object. Written as
        ``spelling`` when that text alone is ``value``, else as ``set`` writes it. JSON5, a key
        written twice, a member already there or ``following`` gone: ``put_back``/``set``."""
        path = _check_path(path)
        _check_value(value)
        if not path or not isinstance(path[-1], str) or self.fmt == "json5" or self._dups:
            put_before_as_put_back(self, path, value, spelling, following)
            return
        body = spelling if spelling is not None and _reads_as(spelling, value) else None
        with _guard(self.source):
            depth, _, start, _, done = self._descend(path[:-1], "edit")
            placed = (
                depth == len(path) - 1
                and start >= 0
                and self._masked[start] == "{"
                and self._siblings(start, path[-1]) is None
                and self._place_before(
                    start, path[-1], following, value, body, above, self._own_line(line, path[-1], value)
                )
            )
        if not placed:
            put_before_as_put_back(self, path, value, spelling, following)
            return
        self.ops.append(Op("set", (*done, path[-1]), copied(value)))

    def _own_line(self, line: str | None, key: str, value: Any) -> str | None:
        """``line`` (``key_line`` of the file before gwconf) where it is ``key`` holding ``value``
        then a comma, and at most a comment: what ``_place_before`` may write as it is."""
        if line is None or "\n" in line or "\r" in line:
            return None
        sentinel = "\x00gwconf"
        try:
            data = load("{" + line + "\n" + _dumps(sentinel) + ": 0}", self.source, fmt=self.fmt).data()
        except (ParseError, ValueError):
            return None
        if list(data) != [key, sentinel] or not same_value(data[key], value):
            return None
        return line

    def _place_before(
        self,
        container: int,
        key: str,
        following: str,
        value: Any,
        body: str | None,
        above: str | None,
        own_line: str | None = None,
    ) -> bool:
        """``put_before``'s splice in the object at ``container``; False when ``following`` is
        not one of its members."""
        found = self._siblings(container, following)
        if found is None:
            return False
        prev, nxt, later = found
        text, eol = self._text, self.eol
        key_sep = ": " if text[nxt[2] - 1] in " \t" else ":"
        head = _dumps(key) + key_sep
        line_at = _line_start(text, nxt[1])
        low = prev[3] if prev is not None else container + 1
        if _INDENT.match(text, line_at).end() == nxt[1] and low < line_at:
            # its own line: after the line holding the member before it (its comma, a comment)
            anchor = _comma_after(text, prev[3]) + 1 if prev is not None else container + 1
            at = _line_end(text, anchor)
            if not 0 <= at <= line_at:
                at = line_at
            at = after_comment(text, at, line_at, above)
            indent = text[line_at : nxt[1]]
            if own_line is not None:  # the user's own line, comment and all
                self._splice(at, at, indent + own_line + eol, claim=(low, nxt[1]), removes=False)
                return True
            if body is None:
                body = _render(value, indent, self._unit(), eol, False)
            self._splice(at, at, indent + head + body + "," + eol, claim=(low, nxt[1]), removes=False)
            return True
        if body is None or "\n" in body:
            body = _compact(value, ", " if key_sep == ": " else ",", key_sep)
        # the blank after a comma, as the object writes it (after ``following``'s when it is the
        # first of a one-line object; spaced like its colon when it has no other member)
        if prev is not None or later is not None:
            gap = " " if text[(nxt if prev is not None else later)[1] - 1] in " \t" else ""  # type: ignore[index]
        else:
            gap = " " if key_sep == ": " else ""
        self._splice(nxt[1], nxt[1], head + body + "," + gap, claim=(low, nxt[1]), removes=False)
        return True

    def append(self, path: KeyPath, value: Any) -> int:
        path = _check_path(path)
        _check_value(value)
        with _guard(self.source):
            depth, child_start, start, _, done = self._descend(path, "append to")
            if depth == len(path) and start >= 0:
                if self._masked[start] != "[":
                    self._refuse(path, depth, start, "an array", "append to")
                index = self._insert(child_start, start, None, value)
            elif start < 0 and not path:
                raise WriteRefused(f"{self.source}: cannot append to an empty file")
            else:
                self._create(path, depth, child_start, start, [value], "append to")
                index = 0
            self.ops.append(Op("append", done + path[depth:], copied(value)))
            return index

    def delete(self, path: KeyPath) -> bool:
        path = _check_path(path)
        if not path:
            raise ValueError("cannot delete the whole document")
        with _guard(self.source):
            depth, _, start, _, done = self._descend(path[:-1], "edit")
            if depth < len(path) - 1 or start < 0:
                return False
            found = self._siblings(start, path[-1])
            if found is None:
                return False
            child = found[1]
            if self._dups and isinstance(path[-1], str):
                self._note_duplicate(start, (*done, path[-1]), "delete")
                self._remove_every(start, path[-1])  # removing only the last revives another
            else:
                self._remove(start, *found)
            self.ops.append(Op("delete", (*done, child[0])))
            return True

    # -- walking --------------------------------------------------------------------------------

    def _top(self) -> int:
        """Offset of the top-level value, -1 for an empty file (blanks and comments only)."""
        pos = _WS.match(self._masked).end()
        return pos if pos < len(self._masked) else -1

    def _children(self, container: int, index: int = 0) -> Iterator[_Child]:
        """Members (objects) or elements (arrays) of the container at ``container``, in order
        from the one numbered ``index`` (at most as many as are remembered), remembered for this
        document: reading a client's keys walked the same objects again and again (issue 15). A
        splice moves what it leaves alone (``_shift_known``); a walk that stopped early is taken
        up where it stopped, on the mask of the text then (what is remembered holds no mask: a
        splice lets it go). A walk under way when a splice is made goes on over the children
        from before it: callers finish one before they splice."""
        known = self._known.get(container)
        if known is None:
            known = self._known[container] = [[], False]
        seen = known[0]
        walk: Iterator[_Child] | None = None
        walked = -1  # the number of the child ``walk`` reads next
        while True:  # by index: two walks of one container may be under way at once
            if index == len(seen):
                if known[1]:
                    return
                if walk is None or walked != index:
                    walk = (
                        _walk(self._masked, container, seen[-1], index)
                        if seen
                        else self._scan_children(container)
                    )
                    walked = index
                child = next(walk, None)
                if child is None:
                    known[1] = True  # every child is in ``seen``
                    return
                seen.append(child)
                walked += 1
            yield seen[index]
            index += 1

    def _scan_children(self, container: int) -> Iterator[_Child]:
        """``_children`` from the text: sibling values are skipped by json's C scanner; the loop
        runs once per member."""
        return _walk(self._masked, container, None, 0)

    def _child(self, container: int, part: str | int) -> _Child | None:
        if isinstance(part, str) and container not in self._known and container == self._top():
            back = self._child_back(container, part)
            if back is not None:
                return back[0]
        if isinstance(part, int) and part < 0:
            children = list(self._children(container))
            return children[part] if -len(children) <= part else None
        prev = last = found = None
        known = self._known.get(container)
        seen: list[_Child] = known[0] if known is not None else []
        # those read before as a list (a generator's step each cost 10x), then the walk on
        unread = () if known is not None and known[1] else self._children(container, len(seen))
        for child in itertools.chain(seen, unread):
            if child[0] == part:
                if not self._dups:
                    return child
                found = child  # the last of equal keys is the one every reader keeps
            prev, last = last, child
        count = len(self._known[container][0])  # every child is known now
        if found is not None:
            return found
        # Missing: remember the end, so inserting the key does not walk the container again.
        self._tail = (self._masked, container, count, prev, last)
        return None

    def _top_now(self) -> dict[str, Any] | None:
        """The top-level object as the edits so far intend it (values shared with the data as
        read at load, the recorded ops replayed on it): which keys it has, in which order. None
        when that is not known (a key twice, JSON5, not an object, the whole document set)."""
        if self._dups or self.fmt == "json5":
            return None
        loaded = self._data if not self.edits else self._loaded
        if type(loaded) is not dict or any(not op.path for op in self.ops):
            return None
        if not self.ops:
            return loaded
        cached = self._top_cache
        if cached is None or cached[0] != len(self.ops):
            from gwconf.formats import replay

            now = replay(loaded, self.ops)
            if type(now) is not dict:
                return None
            cached = self._top_cache = (len(self.ops), now)
        return cached[1]

    def _child_back(self, container: int, part: str) -> tuple[_Child | None] | None:
        """``_child`` of the big top-level object (a settings.json) without walking its members:
        a key it lacks (the data as read and the edits since say so) needs only the last two
        members, for the insert (``_tail``); a key it has is looked for among the last few,
        where new keys go. Each member is found back from the closing brace and checked
        forwards against the keys it must have. None: the walk forwards decides."""
        loaded = self._data if not self.edits else self._loaded
        if type(loaded) is not dict or len(loaded) + len(self.ops) <= _MEMBER_BLOCK:
            return None  # small: each op adds at most one top-level key (no replay to see that)
        now = self._top_now()
        if now is None or len(now) <= _MEMBER_BLOCK:
            return None
        missing = part not in now
        back = self._members_back(container, now, 2 if missing else _BACK_MEMBERS)
        if back is None:
            return None
        found, close = back
        if not missing:
            return next(((c,) for c in found if c[0] == part), None)
        if len(found) < min(2, len(now)):
            return None
        if not self.edits:  # the mask read at load: the write gate's window starts here
            self._back = (self._masked, len(now) - len(found), [c[1] for c in reversed(found)], close)
        last = found[0] if found else None
        prev = found[1] if len(found) > 1 else None
        self._tail = (self._masked, container, len(now), prev, last)
        return (None,)

    def _members_back(
        self, container: int, keys: dict[str, Any], count: int
    ) -> tuple[list[_Child], int] | None:
        """Up to ``count`` last members of the top-level object at ``container``, last first,
        and where its closing brace is. They are found back from that brace (a valid mask reads
        backwards without doubt: outside strings there is no backslash, and a quote with an
        even run of backslashes before it ends a string), each checked forwards with json's
        scanners against the last of ``keys``. None if that is not shown within
        ``_BACK_LIMIT`` characters a member."""
        masked = self._masked
        close = len(masked) - 1
        while close > container and masked[close] in " \t\r\n":
            close -= 1
        if masked[close] != "}":
            return None
        names = reversed(keys)
        found: list[_Child] = []
        end = close
        for _ in range(count):
            end = _blank_back(masked, end, container)
            if end <= container + 1 or masked[end - 1] == "{":
                break
            key = next(names, None)
            child = None if key is None else _member_back(masked, end, container, key)
            if child is None:
                return None
            found.append(child)
            end = _blank_back(masked, child[1], container)
            if masked[end - 1] != ",":
                return (found, close) if end - 1 == container else None
            end -= 1
        return found, close

    def _last_children(self, container: int) -> tuple[int, _Child | None, _Child | None]:
        """(count, second-to-last, last) children of the container."""
        tail = self._tail
        if tail is not None and tail[0] is self._masked and tail[1] == container:
            return tail[2], tail[3], tail[4]
        known = self._known.get(container)
        if known is not None and known[1]:  # walked to the end already
            seen = known[0]
            return len(seen), seen[-2] if len(seen) > 1 else None, seen[-1] if seen else None
        count = 0
        prev = last = None
        for child in self._children(container):
            prev, last = last, child
            count += 1
        return count, prev, last

    def _siblings(
        self, container: int, part: str | int
    ) -> tuple[_Child | None, _Child, _Child | None] | None:
        """(previous, found, next) for ``part`` in the container, or None if absent."""
        masked = self._masked
        if masked[container] not in "{[" or (masked[container] == "{") != isinstance(part, str):
            return None
        children = self._children(container)
        if isinstance(part, int) and part < 0:
            listed = list(children)
            if part < -len(listed):
                return None
            part = len(listed) + part
            children = iter(listed)
        prev = None
        found: tuple[_Child | None, _Child, _Child | None] | None = None
        for child in children:
            if found is not None and found[2] is None:
                found = (found[0], found[1], child)
            if child[0] == part:
                if not self._dups:
                    return prev, child, next(children, None)
                found = (prev, child, None)  # the last of equal keys
            prev = child
        return found

    def _note_duplicate(self, container: int, path: KeyPath, verb: str) -> None:
        """Tell the user when the key gwconf edits is in the object twice (a pasted setting):
        readers keep the last, so gwconf edited that one and left the other as it was."""
        part = path[-1]
        starts = [c[1] for c in self._children(container) if c[0] == part]
        if len(starts) < 2:
            return
        lines: list[int] = []
        line, counted = 1, 0  # the line breaks are counted once, up to each start in turn
        for pos in starts:
            line += self._text.count("\n", counted, pos)
            counted = pos
            lines.append(line)
        where = ", ".join(str(n) for n in lines[:-1]) + f" and {lines[-1]}"
        if verb == "delete":
            note = "gwconf removed every one of them, so that no reader still sees the key"
        else:
            note = f"the last one counts; gwconf edited that one (line {lines[-1]})"
        note = f"{self.source}: duplicate key {_show_path(path)} at lines {where}: {note}"
        if note not in self.notes:
            self.notes.append(note)

    def _descend(self, path: KeyPath, verb: str = "") -> tuple[int, int, int, int, KeyPath]:
        """Follow ``path`` as far as it exists: (depth reached, key or element start, value start,
        value end, path done with indices made non-negative). At the top the starts are those of
        the top value (-1 for an empty file) and the end is -1."""
        masked = self._masked
        start = self._top()
        child_start, end = start, -1
        done: list[str | int] = []
        if start < 0:
            return 0, start, start, end, ()
        for depth, part in enumerate(path):
            char = masked[start]
            if char not in "{[" or (char == "{") != isinstance(part, str):
                return depth, child_start, start, end, tuple(done)
            child = self._child(start, part)
            if child is None:
                return depth, child_start, start, end, tuple(done)
            if self._dups and verb and isinstance(part, str):
                self._note_duplicate(start, path[: depth + 1], verb)
            done.append(child[0])
            _, child_start, start, end = child
        return len(path), child_start, start, end, tuple(done)

    def _refuse(self, path: KeyPath, depth: int, pos: int, wanted: str, verb: str) -> None:
        if depth == 0:
            raise ParseError(self.source, f"expected {wanted} at the top", *line_col(self._text, pos))
        raise WriteRefused(
            f"{self.source}{line_in(self.original, self.edits, pos, self.place)}: cannot {verb} {_show_path(path)}: "
            f"{_show_path(path[:depth])} is "
            f"{_kind(self._masked, pos)}, not {wanted}",
            "Change or remove that value by hand, then run again.",
        )

    # -- splicing -------------------------------------------------------------------------------

    def _unit(self) -> str:
        if self._unit_cache is None:  # the file's own, as loaded: not what edits left of it
            self._unit_cache = _detect_unit(self.original)
        return self._unit_cache

    def _splice(
        self,
        start: int,
        end: int,
        piece: str,
        masked_piece: str | None = None,
        *,
        claim: tuple[int, int],
        removes: bool = True,
        edits: list[Edit] | None = None,
    ) -> None:
        """Replace [start, end) in the text and the mask alike; the offsets stay shared. A mask
        made from blanked spans (JSON, JSONC) is let go and the spans moved; the mask is made
        again when it is next read (``_masked``). A mask kept whole (JSON5) is spliced, the new
        mask replacing the old one before the new text is built.

        ``claim`` is the region the operation may change, found from the node it edits, and
        ``removes`` False claims a pure insertion; the write gate holds the splice to them.
        ``edits``: the splice described as several edits (a comma here, a line there)."""
        if masked_piece is None:
            piece, masked_piece = _marked(piece)
        if not self.edits:
            self._loaded = self._data
            self._take_base(end)
        if edits is None:
            self.edits.append(trimmed_edit(self._text, start, end, piece, claim, removes))
        else:
            self.edits += edits
        self._tail = self._back = None  # they hold the old mask
        known, self._known = self._known, {}
        self._data = MISSING  # before the copies are made: the data may be all that holds it
        runs = None if self._blanks is None else _blank_runs(piece, masked_piece)
        if runs is None and self._blanks is not None:
            self._masked = self._masked  # the piece is not the text blanked: keep the mask whole
        if runs is not None:
            assert self._blanks is not None
            self._blanks = _moved_blanks(self._blanks, start, end, len(piece), runs)
            self._mask_cache = None  # gone before the new text is made; made again when read
            self._text = _spliced(self._text, start, end, piece)
        else:
            shared = self._masked is self._text and masked_piece == piece
            if not shared:
                self._masked = _spliced(self._masked, start, end, masked_piece)
            self._text = _spliced(self._text, start, end, piece)
            if shared:
                self._masked = self._text
        if known:
            self._known = self._shift_known(known, start, end, len(piece))

    def _shift_known(
        self, known: dict[int, list[Any]], start: int, end: int, length: int
    ) -> dict[int, list[Any]]:
        """What ``_known`` knows after [start, end) became ``length`` characters: a container
        after the splice moves with its children; one that opens before it keeps the children
        the splice left alone (``_moved_walk``); one that opened inside it is forgotten.
        ``test_known_children_follow_the_splices`` holds every entry to a fresh walk."""
        text = self._text
        delta = length - (end - start)
        moved: dict[int, list[Any]] = {}
        for container, (seen, whole) in known.items():
            if container >= end:
                moved[container + delta] = [_shifted(seen, delta, None), whole]
            elif container < start:
                entry = _moved_walk(text, lambda: self._masked, container, seen, start, end, length)
                if entry is not None:
                    moved[container] = entry
        return moved

    def _take_base(self, end: int) -> None:
        """Before the first splice replaces the mask read at load: keep the data as loaded and
        where the top-level members start (the walk the edit made, taken on past ``end``), for
        the write gate's window read (``_read_window``). Not for a file with a key twice."""
        top = self._top()
        data = self._data
        if self._dups or self.fmt == "json5" or type(data) is not dict or top < 0 or self._masked[top] != "{":
            return
        import array

        known = self._known.get(top)
        back = self._back
        if known is None:
            if back is not None and back[0] is self._masked:
                self._base = _Base(data, array.array("q", back[2]), back[3], back[1])
            return
        seen = known[0]
        rest = None if known[1] else _walk(self._masked, top, seen[-1] if seen else None, len(seen))
        close = -1
        while not seen or seen[-1][1] < end:
            child = None if rest is None else next(rest, None)
            if child is None:
                close = _WS.match(self._masked, seen[-1][3] if seen else top + 1).end()
                if not self._masked.startswith("}", close):
                    return
                break
            seen.append(child)
        end = -1
        if close < 0:  # the closing brace all the same: the mask's last character but blanks
            masked = self._masked
            end = len(masked) - 1
            while masked[end] in " \t\r\n":
                end -= 1
            if masked[end] != "}":  # pragma: no cover - the mask reads as an object
                end = -1
        # an array, not a list: the walk's int objects would keep its memory from being returned
        self._base = _Base(data, array.array("q", [child[1] for child in seen]), close, end=end)

    def _keep(
        self,
        start: int,
        end: int,
        keep_from: int,
        keep_to: int,
        claims: tuple[tuple[int, int], tuple[int, int]],
    ) -> None:
        """Remove [start, end) but keep [keep_from, keep_to) from inside it: two removals, each
        held to its own claim (``claims``, in the text before either)."""
        (lo1, hi1), (lo2, hi2) = claims
        gone = keep_from - start
        edits = [
            Edit(start, keep_from, 0, lo1, hi1),
            Edit(keep_to - gone, end - gone, 0, lo2 - gone, hi2 - gone),
        ]
        self._splice(
            start,
            end,
            self._text[keep_from:keep_to],
            self._masked[keep_from:keep_to],
            claim=(0, 0),
            edits=edits,
        )

    def _create_top(self, value: Any) -> None:
        text = self._text
        piece = _render(value, "", self._unit(), self.eol, False) + self.eol
        if _is_blank(text):  # nothing worth keeping
            self._splice(0, len(text), piece, claim=(0, len(text)))
        else:  # comments only: keep them above
            sep = "" if text.endswith(("\n", "\r")) else self.eol
            self._splice(len(text), len(text), sep + piece, claim=(len(text), len(text)), removes=False)

    def _create(self, path: KeyPath, depth: int, owner: int, pos: int, value: Any, verb: str) -> None:
        """Insert what is missing of ``path`` below the existing value at ``pos`` (-1: empty file),
        whose key (or element) starts at ``owner``."""
        part = path[depth]
        if pos >= 0 and isinstance(part, int):
            if self._masked[pos] != "[":
                self._refuse(path, depth, pos, "an array", verb)
            count = sum(1 for _ in self._children(pos))
            raise WriteRefused(
                f"{self.source}: cannot {verb} {_show_path(path)}: index {part} is out of range "
                f"({_show_path(path[:depth])} has {count} items)",
                "Use the index of an existing item, or append.",
            )
        if pos >= 0 and self._masked[pos] != "{":
            self._refuse(path, depth, pos, "an object", verb)
        if isinstance(part, int) or any(isinstance(p, int) for p in path[depth + 1 :]):
            raise WriteRefused(
                f"{self.source}: cannot {verb} {_show_path(path)}: gwconf creates objects, not array items",
                "Create the array first (append), then set inside it.",
            )
        if pos < 0:
            self._create_top(_nest(path, value))
        else:
            self._insert(owner, pos, part, _nest(path[depth + 1 :], value))

    def _replace(self, child_start: int, start: int, end: int, value: Any, claim: tuple[int, int]) -> None:
        """Set an existing value: exactly its span changes (``claim``: the value as parsed)."""
        text = self._text
        line = _line_start(text, child_start)
        if _INDENT.match(text, line).end() == child_start:
            piece = _render(value, text[line:child_start], self._unit(), self.eol, self._trailing)
        else:
            piece = _compact(value, ", ", ": ")
        if self.fmt == "json5" and isinstance(value, str) and text.startswith("'", start):
            inner = _dumps(value)[1:-1].replace('\\"', '"').replace("'", "\\'")  # its quotes stay
            _, padded, masked = _j5_string(f"'{inner}'", 0, self.source)
            self._splice(start, end, padded, masked, claim=claim)
            return
        text = ""  # the old text goes once the new one is made (a big file's third copy)
        self._splice(start, end, piece, claim=claim)

    def _insert(self, owner: int, container: int, key: str | None, value: Any) -> int:
        """Add a member (``key``) or an element (``key`` None) at the end of the container at
        ``container``, whose own key starts at ``owner``; returns the new index."""
        text, masked, eol = self._text, self._masked, self.eol
        count, prev, last = self._last_children(container)
        close = _WS.match(masked, last[3] if last else container + 1).end()
        base = text[_line_start(text, container) : _INDENT.match(text, _line_start(text, container)).end()]
        if last is None:
            self._insert_empty(owner, container, close, base, key, value)
            return 0
        key_sep = ": " if text[last[2] - 1] in " \t" else ":"
        head = "" if key is None else _dumps(key) + key_sep
        gap = _GAP.match(text, last[3]).end()
        comma = gap if text[gap] == "," else -1
        trailing = comma >= 0
        # The new entry goes after ``after``; the comma before it is written in the mask too: a
        # trailing comma (blank in the mask) now separates two members.
        at, after = (comma, comma + 1) if trailing else (last[3], last[3])

        def put(to: int, piece: str) -> None:
            """The entry goes in at ``to``, after a comma written at ``at`` (a trailing comma is
            there already): two pure insertions between the last value and the closing bracket."""
            nonlocal text, masked
            new_text, new_mask = _marked(piece)
            edits = [] if trailing else [Edit(at, at, 1, last[3], close, removes=False)]
            moved = 0 if trailing else 1
            edits.append(
                Edit(to + moved, to + moved, len(new_text), last[3] + moved, close + moved, removes=False)
            )
            new_text, new_mask = "," + text[after:to] + new_text, "," + masked[after:to] + new_mask
            text = masked = ""  # let _splice free the old mask before it builds the new text
            self._splice(at, to, new_text, new_mask, claim=(0, 0), edits=edits)

        if text.find("\n", container, close) < 0:  # one line: insert inline
            if prev is not None:
                item_sep = "," + (" " if text[last[1] - 1] in " \t" else "")
            else:
                item_sep = ", " if key is None or key_sep == ": " else ","
            put(
                after, item_sep[1:] + head + _compact(value, item_sep, key_sep) + (_TRAIL if trailing else "")
            )
            return count
        line = _line_start(text, last[1])
        own_line = _INDENT.match(text, line).end() == last[1]
        sibling = text[line : last[1]] if own_line else base + self._unit()
        unit = self._unit()
        if own_line and len(sibling) > len(base) and sibling.startswith(base):
            unit = sibling[len(base) :]
        entry = sibling + head + _render(value, sibling, unit, eol, trailing) + (_TRAIL if trailing else "")
        end = _line_end(text, after)
        if end >= 0:  # a new line after the last member's line (comments on it stay put)
            put(end, entry + eol)
        else:  # something else follows on that line, e.g. the closing brace
            put(after, eol + entry)
        return count

    def _insert_empty(
        self, owner: int, container: int, close: int, base: str, key: str | None, value: Any
    ) -> None:
        """``{}`` expands to lines when its key starts a line; inside a one-line object, and for
        a plain value in ``[]``, the entry goes inline: ``{"a": {"k": 1}}``, ``["x"]``."""
        text, eol = self._text, self.eol
        head = "" if key is None else _dumps(key) + ": "
        tail = _TRAIL if self._trailing else ""
        if _WS.match(text, container + 1).end() == close:  # only blanks inside
            own_line = _INDENT.match(text, _line_start(text, owner)).end() == owner
            blanks = (container + 1, close)  # only blanks inside: they may go
            if not own_line or (key is None and not (isinstance(value, (dict, list)) and value)):
                self._splice(container + 1, close, head + _compact(value, ", ", ": "), claim=blanks)
                return
            inner = base + self._unit()
            body = _render(value, inner, self._unit(), eol, self._trailing)
            self._splice(container + 1, close, eol + inner + head + body + tail + eol + base, claim=blanks)
            return
        inside = (container + 1, close)  # comments inside: the entry goes in, nothing goes
        line = _line_start(text, close)  # comments inside: keep them above the new entry
        if _INDENT.match(text, line).end() == close:
            inner = text[line:close] + self._unit()
            body = _render(value, inner, self._unit(), eol, self._trailing)
            self._splice(line, line, inner + head + body + tail + eol, claim=inside, removes=False)
        else:
            inner = base + self._unit()
            body = _render(value, inner, self._unit(), eol, self._trailing)
            self._splice(
                close, close, eol + inner + head + body + tail + eol + base, claim=inside, removes=False
            )

    def _remove_every(self, container: int, key: str) -> None:
        """Remove every member ``key`` of the object at ``container`` (readers keep the last:
        removing only that one would bring back another), the last first, each cut as ``_remove``
        cuts it alone, with one splice of the text: a splice a copy copied the whole text and
        walked the object again once a copy (a setting pasted many times over).

        Each removal is made by ``_remove`` in a small document holding only the text it reads:
        from the end of the member before (the opening brace for the first) to the first
        character of the member after (or of the closing brace); it looks back to the start of
        the member's line only when the member has the line to itself, which starts after that
        member's comma. The text before the window is as it was (the removals begin at ``cut``);
        after it come the pieces cut so far, then the text from ``reach`` on, moved by ``moved``."""
        children = list(self._children(container))
        found = [n for n, child in enumerate(children) if child[0] == key]
        if len(found) == 1:
            n = found[0]
            after = children[n + 1] if n + 1 < len(children) else None
            self._remove(container, children[n - 1] if n else None, children[n], after)
            return
        text, masked = self._text, self._masked
        close = _WS.match(masked, children[-1][3]).end()
        cut = reach = close + 1
        pieces: list[tuple[str, str]] = []  # the text and mask from ``cut`` on as edited, nearest last
        moved = 0
        following: _Child | None = None  # the member after the one removed, where it is now
        edits: list[Edit] = []
        # after a removal of the member that was last: in the piece it left (``pieces[-1]``), the
        # first character after the member before it that is no blank or comment, or -1 when
        # only blanks and comments follow up to the closing brace (None: not known)
        next_char: int | None = None
        for n in reversed(found):
            prev, child = children[n - 1] if n else None, children[n]
            if n + 1 == len(children):
                following = None
            elif children[n + 1][0] != key:  # else the next one went: the one after it follows
                following = children[n + 1]
            start = container if prev is None else prev[3]
            stop = (close + moved if following is None else following[1]) + 1
            stand_in = False  # the window ends at a line break, then "}" for the rest
            if next_char is not None and following is None and prev is not None and cut == child[3]:
                window, window_mask, stand_in = _window_to_line_end(
                    text, masked, start, cut, pieces, next_char
                )
            else:
                window, window_mask = [text[start : min(stop, cut)]], [masked[start : min(stop, cut)]]
                if stop < cut:
                    pieces.append((text[stop:cut], masked[stop:cut]))
                got = cut
                while got < stop and pieces:
                    piece, piece_mask = pieces.pop()
                    window.append(piece)
                    window_mask.append(piece_mask)
                    got += len(piece)
                if got < stop:  # the text no removal reached yet
                    window.append(text[got - moved : stop - moved])
                    window_mask.append(masked[got - moved : stop - moved])
                    reach = stop - moved
            part = JsonDocument(
                "".join(window), self.source, self.fmt, "".join(window_mask), self._trailing, MISSING
            )
            part._dups = True  # no write gate window to keep (``_take_base``)
            size = len(part._text)
            here = (child[0], child[1] - start, child[2] - start, child[3] - start)
            part._remove(container - start, _moved(prev, -start), here, _moved(following, -start))
            edits += [
                Edit(e.start + start, e.end + start, e.length, e.lo + start, e.hi + start, e.removes)
                for e in part.edits
            ]
            left, left_mask = part._text, part._masked
            if stand_in:  # (a removal cuts no further than the line break after the member)
                assert left.endswith("}") and left_mask.endswith("}")
                left, left_mask = left[:-1], left_mask[:-1]
            pieces.append((left, left_mask))
            next_char = None
            if following is None and prev is not None:
                gap = _GAP.match(left).end()
                next_char = gap if gap < len(left) else -1
            delta = len(part._text) - size  # the cuts end before the next member starts
            moved += delta
            following = _moved(following, delta)
            cut = start
        pieces.reverse()
        self._splice(
            cut,
            reach,
            "".join(piece for piece, _ in pieces),
            "".join(piece_mask for _, piece_mask in pieces),
            claim=(cut, reach),
            edits=edits,
        )

    def _remove(self, container: int, prev: _Child | None, child: _Child, following: _Child | None) -> None:
        """Delete a member with its whole line(s) when it has them to itself, else inline."""
        text = self._text
        claim = _member_claim(text, prev, child)
        start, end = child[1], child[3]
        gap = _GAP.match(text, end).end()
        comma = gap if text[gap] == "," else -1
        line = _line_start(text, start)
        own_line = _INDENT.match(text, line).end() == start
        line_end = _line_end(text, comma + 1 if comma >= 0 else end) if own_line else -1
        if line_end >= 0:
            cut_from, cut_to = line, line_end
        elif comma >= 0:
            cut_from, cut_to = start, comma + 1
            if following is not None and text[_INDENT.match(text, cut_to).end()] not in "\r\n":
                cut_to = _INDENT.match(text, cut_to).end()
            else:
                while cut_from > line and text[cut_from - 1] in " \t":
                    cut_from -= 1
                if cut_from == line and prev is not None and _only_comma(text, prev[3], start):
                    cut_from = text.find(",", prev[3], line) + 1  # join the lines back
        elif prev is not None and (text.find("\n", prev[3], start) < 0 or _only_comma(text, prev[3], start)):
            cut_from, cut_to = prev[3], end  # `, "k": 1`, or only blanks between them
        else:
            cut_from, cut_to = start, end
        if following is None and prev is not None:
            # It was last: without a trailing comma the comma before it goes too; with one, the
            # comma before it becomes the trailing comma (blank in the mask).
            sep = _GAP.match(text, prev[3]).end()
            if comma < 0:
                claims = ((prev[3], _comma_after(text, prev[3]) + 1), claim)
                self._keep(sep, max(cut_to, sep + 1), sep + 1, max(cut_from, sep + 1), claims)
            else:
                self._splice(
                    sep, cut_to, text[sep:cut_from], " " + self._masked[sep + 1 : cut_from], claim=claim
                )
        else:
            self._splice(cut_from, cut_to, "", claim=claim)
        if prev is None and following is None:  # now empty: {} rather than a lone blank line
            inside = _WS.match(self._text, container + 1).end()
            if inside > container + 1 and self._text[inside] in "}]":
                self._splice(container + 1, inside, "", claim=(container + 1, inside))
