"""``.env`` files, read as the client's own library reads them and edited one value at a time.

Each client's ``.env`` is read by one library, and they disagree (issue 23, issue 18 item 5):

- ``dotenv``: python-dotenv 1.2 (mini-swe-agent, aider, Open WebUI; also the nearest reading for
  the Go and Rust readers of fabric and aichat). Any key without ``=`` or blanks (``MY-VAR=1``),
  a bare ``export A`` (no value: the variable is not set), single quotes that decode ``\\\\`` and
  ``\\'``, double quotes that decode ``\\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v``, a bare value up to a
  blank-preceded ``#``. What it cannot read (``A="x" y``) it skips with a warning: gwconf refuses
  the file, naming the line. Its ``${VAR}`` interpolation is not applied (it depends on the
  environment the client starts in); gwconf never writes a value holding ``${...}``.
- ``dotenv-npm``: npm ``dotenv`` 16-17 (checked in the installed bundles: Gemini CLI 0.61.0 has
  17.1.0, Continue's cn 1.5.47 calls 16.x's ``parse`` on each ``.env``, Qwen Code 0.24.4 carries
  the same expression; LibreChat, AnythingLLM and LobeChat depend on it). One regular expression over the text with CRLF made LF: keys of
  ``[\\w.-]``, ``=`` or ``: ``, quotes (``'`` ``"`` `````) that may span lines and only double quotes
  decode ``\\n`` and ``\\r``; what does not match is skipped, as the library skips it.

Both libraries keep the last of two equal names, read the file with universal newlines, and are
matched here line for line (ported from their source; tests/formats/test_differential.py compares
with the real libraries). An edit replaces only the value token of the binding that counts, so
``export``, spacing, inline comments and line endings stay.

gwconf writes only values that npm dotenv, python-dotenv and a POSIX shell (``set -a; . FILE``)
all read back as the same string: bare when plainly safe, else single quotes, else (the value
holds ``'``) double quotes without ``\\ " $ ```. A value with no such form is refused.
"""

from __future__ import annotations

import bisect
import re

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats._base import (
    Edit,
    KeyPath,
    NamedValues,
    Op,
    detect_eol,
    eol_added_to_last_line,
    lazy,
    never_reads_as,
    no_comment_above,
    no_key_line,
    put_before_as_put_back,
    reread_from_scratch,
    total,
    trimmed_edit,
)
from gwconf.records import record

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["NAME_RE", "DotenvDocument", "load", "quote"]  # fmt "dotenv" or "dotenv-npm"

NAME_RE = lazy(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # names a shell can export: the only ones gwconf adds
BARE_RE = lazy(r"[A-Za-z0-9_./:@+-]+\Z")
_DOUBLE_SPECIAL = lazy(r'["$`\r]')
_DOUBLE_ESCAPE = lazy(r"\\[\\'\"abfnrtv$`\n]")
_CRLF = lazy("\r\n")
_LINE = lazy(r"[^\n]+")
_COMMENT_AHEAD = lazy(r"[ \t]*#")

# -- python-dotenv 1.2 (dotenv/parser.py), on text with universal newlines -------------------------
_PY_MULTILINE_WS = total(r"\s*", re.M)
_PY_WS = total(r"[^\S\r\n]*")
_PY_EXPORT = total(r"(?:export[^\S\r\n]+)?")
_PY_SINGLE_KEY = lazy(r"'([^']+)'")
_PY_KEY = lazy(r"([^=\#\s]+)")
_PY_SINGLE = lazy(r"'((?:\\'|[^'])*)'")
_PY_DOUBLE = lazy(r'"((?:\\"|[^"])*)"')
_PY_UNQUOTED = total(r"([^\r\n]*)")
_PY_COMMENT = total(r"(?:[^\S\r\n]*#[^\r\n]*)?")
_PY_EOL = lazy(r"[^\S\r\n]*(?:\r\n|\n|\r|$)")
_PY_DOUBLE_ESCAPES = lazy(r"\\[\\'\"abfnrtv]")
_PY_SINGLE_ESCAPES = lazy(r"\\[\\']")
_PY_DECODE = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_PY_COMMENT_MARK = lazy(r"\s#")  # where a bare value's comment starts (see _py_bare_value)
_PY_INTERPOLATION = lazy(r"\$\{[^}]*\}")  # python-dotenv would expand it

# -- npm dotenv 17 (lib/main.js), JavaScript's classes spelled out --------------------------------
_JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_CHARS = _JS_WS.replace("\u2000-\u200a", "".join(map(chr, range(0x2000, 0x200B))))  # for str.strip
# \s and . as their classes compile cheaply: a class over characters past U+00FF in more than two
# runs is a 64K bitmap that re builds in Python (``[{_JS_WS}]`` seven times made the line pattern
# 3.6 ms to compile, in every command that reads such a file). JavaScript's \s is Python's \s
# without \x1c-\x1f and \x85, and with U+FEFF; tests/formats/test_dotenv.py holds both spellings
# to their classes over every code point.
_JS_S = r"(?:[^\S\x1c-\x1f\x85]|\ufeff)"
_JS_BOL = r"(?:\A|(?<=[\n\u2028\u2029]))"  # ^ with the m flag
_JS_EOL = r"(?=[\n\u2028\u2029]|\Z)"  # $ with the m flag
_JS_DOT = r"(?![\u2028\u2029])[^\n\r]"  # [^\n\r\u2028\u2029]
_NPM_LINE = lazy(
    rf"{_JS_BOL}{_JS_S}*(?P<export>export{_JS_S}+)?(?P<key>[A-Za-z0-9_.-]+)(?P<sep>{_JS_S}*={_JS_S}*?|:{_JS_S}+?)"
    rf"(?P<value>{_JS_S}*'(?:\\'|[^'])*'|{_JS_S}*\"(?:\\\"|[^\"])*\"|{_JS_S}*`(?:\\`|[^`])*`|[^#\r\n]+)?"
    rf"{_JS_S}*(?:#{_JS_DOT}*)?{_JS_EOL}"
)
_BARE_EXPORT = lazy(r"export\s+[^\s=]+(?:\s+[^\s=]+)*\Z")
_NPM_UNQUOTE = lazy(rf"{_JS_BOL}(['\"`])([\s\S]*)\1{_JS_EOL}")


def _inside_quotes(match: re.Match[str]) -> str:
    """``_NPM_UNQUOTE``'s replacement: a function, where the template ``"\\2"`` made ``_sre`` import
    ``re`` to parse it (``lazyre``: 25M instructions)."""
    return match.group(2)


def load(text: str, source: str, *, fmt: str = "dotenv") -> DotenvDocument:
    if fmt not in ("dotenv", "dotenv-npm"):
        raise ValueError(f"not a .env format: {fmt}")
    return DotenvDocument(text, source, fmt)


@record
class _Binding:
    """One ``NAME=value`` as the library reads it; offsets are in the file's own text."""

    name: str
    value: str | None  # None: python-dotenv's bare ``export A`` or ``A``, which sets nothing
    token: tuple[int, int]  # the value as written, quotes included (empty: where one goes)
    span: tuple[int, int]  # the whole lines it stands on, line ending included


def _py_bare_value(line: str) -> str:
    """python-dotenv's unquoted value, ``re.sub(r"\\s+#.*", "", line).rstrip()`` on the rest of
    one line: cut at the first ``#`` after whitespace (the whitespace before it goes with the
    rstrip). That pattern restarts at every blank of a run that no ``#`` follows and rescans the
    run: a value with 40,000 blanks in it took 2.2 s to read."""
    mark = _PY_COMMENT_MARK.search(line)
    return (line if mark is None else line[: mark.start()]).rstrip()


def _single_ok(value: str) -> bool:
    """'value' reads as value in npm dotenv, python-dotenv (which decodes \\\\ and \\') and sh."""
    return "'" not in value and "\r" not in value and "\\\\" not in value and not value.endswith("\\")


def _double_ok(value: str) -> bool:
    """A double-quoted value reads as value in all three: no ", $ or `, and a backslash only before a character
    that none of them decodes after it."""
    if _DOUBLE_SPECIAL.search(value) or value.endswith("\\"):
        return False
    return not _DOUBLE_ESCAPE.search(value)


def quote(value: str) -> str:
    """The token for ``value`` that npm dotenv, python-dotenv and a POSIX shell all read back as
    ``value``; WriteRefused when there is none."""
    if "\x00" in value:
        raise WriteRefused("a .env value cannot hold a NUL character.")
    if _PY_INTERPOLATION.search(value) is None:
        if BARE_RE.match(value):
            return value
        if _single_ok(value):
            return "'" + value + "'"
        if _double_ok(value):
            return '"' + value + '"'
    raise WriteRefused(
        "this value has no spelling in a .env file that npm dotenv, python-dotenv and a shell all read "
        "the same: it holds ' together with \", $, ` or a backslash (or ${...}, or a carriage return).",
        "Use a value without those characters (gateways use none of them in keys or model names).",
    )


def _requote(value: str, style: str) -> str:
    """Keep the old quote style when the value can be written in it without surprises."""
    if _PY_INTERPOLATION.search(value) is None and "\x00" not in value:
        if style == "'" and _single_ok(value):
            return "'" + value + "'"
        if style == '"' and _double_ok(value):
            return '"' + value + '"'
        if style == "" and (BARE_RE.match(value) or value == ""):  # "A=" stays "A=", not "A=''"
            return value
    return quote(value)


class DotenvDocument(NamedValues):
    reads_as = never_reads_as
    reread = reread_from_scratch

    def __init__(self, text: str, source: str, fmt: str = "dotenv") -> None:
        self.source = source
        self.fmt = fmt
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []  # for the write gate: every byte outside them is unchanged
        self._text = text
        self._eol_added_at = -1  # gwconf gave the last line its line ending here (to give it back)
        # what the file held before gwconf first wrote it, when a restore says (``restoring_from``)
        self._pristine: Callable[[], Any] | None = None
        self._bindings = self._parse(text)

    # -- reading -----------------------------------------------------------------------------

    def data(self) -> dict[str, str]:
        """NAME -> value as the library gives it: the last of equal names wins."""
        found: dict[str, str | None] = {}
        for binding in self._bindings:
            found[binding.name] = binding.value
        return {name: value for name, value in found.items() if value is not None}

    def _parse(self, text: str) -> list[_Binding]:
        # Both libraries read with universal newlines: CRLF and CR become LF. ``shift`` maps an
        # offset in that text back to the file (a CRLF is one character shorter there).
        if "\r" in text:
            norm = text.replace("\r\n", "\n")
            crlf = [m.start() - k for k, m in enumerate(_CRLF.finditer(text))]
            norm = norm.replace("\r", "\n")
        else:  # the usual file: the same offsets
            norm, crlf = text, []

        def shift(i: int) -> int:
            return i + bisect.bisect_left(crlf, i) if crlf else i

        if self.fmt == "dotenv-npm":
            found = self._parse_npm(norm, text, shift)
        else:
            found = self._parse_python(norm, text, shift)
        out = []
        for name, value, (t0, t1), head, last in found:
            start = norm.rfind("\n", 0, head) + 1
            stop = norm.find("\n", last)
            stop = len(norm) if stop < 0 else stop + 1
            out.append(_Binding(name, value, (shift(t0), shift(t1)), (shift(start), shift(stop))))
        return out

    def _parse_python(self, norm: str, text: str, shift: Any) -> list[tuple[Any, ...]]:
        """python-dotenv's parse_stream, keeping where each part is."""
        found: list[tuple[Any, ...]] = []
        pos = 0
        while pos < len(norm):
            pos = _PY_MULTILINE_WS.match(norm, pos).end()
            if pos >= len(norm):
                break
            head = pos
            pos = _PY_EXPORT.match(norm, pos).end()
            key_at = pos
            char = norm[pos : pos + 1]
            if char == "#":  # a comment line: no '=' after it, to its end and the line break
                end = norm.find("\n", pos)  # (what the steps below would find: norm holds no \r)
                pos = len(norm) if end < 0 else end + 1
                continue
            else:
                m = (_PY_SINGLE_KEY if char == "'" else _PY_KEY).match(norm, pos)
                if m is None:
                    raise self._unreadable(text, shift(key_at))
                key, pos = m.group(1), m.end()
            pos = _PY_WS.match(norm, pos).end()
            value: str | None = None
            token = (pos, pos)
            if norm[pos : pos + 1] == "=":
                pos = _PY_WS.match(norm, pos + 1).end()  # past the '=' and the blanks after it
                token = (pos, pos)
                char = norm[pos : pos + 1]
                if char in ("'", '"'):
                    m = (_PY_SINGLE if char == "'" else _PY_DOUBLE).match(norm, pos)
                    if m is None:
                        raise self._unreadable(text, shift(pos), "its quote never closes")
                    escapes = _PY_SINGLE_ESCAPES if char == "'" else _PY_DOUBLE_ESCAPES
                    value = escapes.sub(lambda e: _PY_DECODE[e.group()[1]], m.group(1))
                    token, pos = (pos, m.end()), m.end()
                elif char in ("", "\n", "\r"):
                    value = ""
                else:
                    part = _PY_UNQUOTED.match(norm, pos).group(1)
                    value = _py_bare_value(part)
                    token, pos = (pos, pos + len(value)), pos + len(part)
            pos = _PY_COMMENT.match(norm, pos).end()
            m = _PY_EOL.match(norm, pos)
            if m is None:
                raise self._unreadable(text, shift(pos), "unexpected text after the value (quote it?)")
            pos = m.end()
            if key is not None:
                found.append((key, value, token, head, token[1]))
        return found

    def _unreadable(self, text: str, at: int, why: str = "expected NAME=value") -> Exception:
        return self._error(text, at, f"{why}; python-dotenv cannot read this line (it skips it)")

    def _parse_npm(self, norm: str, text: str, shift: Any) -> list[tuple[Any, ...]]:
        """npm dotenv's parse(), keeping where each part is. A line it skips without a word that
        is neither a comment, a bare ``export A`` nor anything with ``=`` (``'Q K'=1``, which other
        readers take) is refused: the user meant something by it."""
        found: list[tuple[Any, ...]] = []
        done = 0
        for m in _NPM_LINE.finditer(norm):
            self._npm_skipped(norm[done : m.start()], done, text, shift)
            done = m.end()
            raw = m.group("value") or ""
            value = raw.strip(_JS_CHARS)  # String.prototype.trim
            quote_char = value[:1]
            value = _NPM_UNQUOTE.sub(_inside_quotes, value)
            if quote_char == '"':
                value = value.replace("\\n", "\n").replace("\\r", "\r")
            if m.group("value") is None:
                token = (m.end("sep"), m.end("sep"))
            else:
                lead = len(raw) - len(raw.lstrip(_JS_CHARS))
                body = raw.strip(_JS_CHARS)
                start = m.start("value") + (lead if body else 0)
                token = (start, start + len(body))
            head = m.start("export") if m.group("export") else m.start("key")
            found.append((m.group("key"), value, token, head, token[1]))
        self._npm_skipped(norm[done:], done, text, shift)
        return found

    def _npm_skipped(self, gap: str, at: int, text: str, shift: Any) -> None:
        for line in _LINE.finditer(gap):
            body = line.group().strip(_JS_CHARS)
            if body and not body.startswith("#") and "=" not in body and not _BARE_EXPORT.match(body):
                pos = at + line.start() + line.group().index(body[0])
                raise self._error(text, shift(pos), "expected NAME=value; npm dotenv skips this line")

    # -- editing -----------------------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        name = self._name(path)
        if not isinstance(value, str):
            raise WriteRefused(f"{self.source}: .env values are text; {name} got {value!r}.")
        if self.data().get(name) == value:
            return
        last = self._last(name)
        try:
            if last is not None and last.value is not None:  # edit the occurrence that wins
                start, end = last.token
                old = self._text[start:end]
                blanks = start
                while blanks > 0 and self._text[blanks - 1] in " \t":
                    blanks -= 1
                text = self._text
                if (
                    blanks < start
                    and blanks > 1
                    and text[blanks - 1] == "="
                    and text[blanks - 2] not in " \t"
                ):
                    start = blanks  # `A=  x` becomes `A=v`: a shell would run `v` with A empty
                token = _requote(value, old[:1] if old[:1] in ("'", '"') else "")
                if not token and _COMMENT_AHEAD.match(self._text, end):
                    token = "''"  # python-dotenv would read `A=  # note` as "# note"
                if self._text[end : end + 1] == "#":
                    token += " "  # a shell would read `A='v'# c` as `v#`
                self._splice(start, end, token, last.span)
            else:
                if not NAME_RE.match(name):
                    raise WriteRefused(f"{self.source}: {name!r} is not a name a shell can export.")
                line = f"{name}={quote(value)}{self.eol}"
                text = self._text
                given = bool(text) and not text.endswith(("\n", "\r"))
                if given:
                    line = self.eol + line
                self._splice(len(text), len(text), line)
                if given:
                    self._eol_added_at = len(text)
        except WriteRefused as exc:
            if exc.message.startswith(self.source):
                raise
            raise WriteRefused(f"{self.source}: {name}: {exc.message}", exc.hint) from None
        self.ops.append(Op("set", (name,), value))

    def spelling(self, path: KeyPath) -> str | None:
        """The token of the binding that counts, quotes included (None: the name is not set)."""
        last = self._last(self._name(path))
        if last is None or last.value is None:
            return None
        start, end = last.token
        return self._text[start:end]

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        """``set``, the token written as ``spelling`` where the file then reads as ``set`` would
        make it: a restore gives back ``A=${B}`` (which ``set`` refuses to write) and sgpt's
        ``A=$B`` (which ``set`` would quote, and sgpt reads its quotes as part of the value)."""
        name = self._name(path)
        last = self._last(name)
        if last is not None and last.value is not None:
            start, end = last.token
            if self._text[start:end] == spelling and last.value == value:
                return
            text = self._text[:start] + spelling + self._text[end:]
            try:
                same = DotenvDocument(text, self.source, self.fmt).data() == {**self.data(), name: value}
            except ParseError:
                same = False
            if same:
                self._splice(start, end, spelling, last.span)
                self.ops.append(Op("set", (name,), value))
                return
        self.set(path, value)  # no such line, or the spelling reads otherwise where it would stand

    comment_above = no_comment_above
    key_line = no_key_line
    put_before = put_before_as_put_back  # (a new key goes at its mapping's end)

    def restoring_from(self, pristine: Callable[[], Any]) -> None:
        self._pristine = pristine

    def _eol_was_added(self) -> bool:
        """Whether the text now ends with the line ending ``set`` gave the last line of a file
        that had none, in an earlier run (``_eol_added_at`` knows it within one). A restore took
        out the names gwconf added after it and left the line break (a real ``.sgptrc`` got a
        final newline)."""
        return eol_added_to_last_line(self._pristine, self._text, self.eol)

    def delete(self, path: KeyPath) -> bool:
        name = self._name(path)
        if name not in self.data():
            return False
        spans: list[tuple[int, int]] = []
        for binding in self._bindings:
            if binding.name == name and binding.value is not None:
                start, end = binding.span
                if spans and start < spans[-1][1]:  # npm: `A='1'\u2028A=2` share their line
                    before_start, before_end = spans.pop()
                    start, end = before_start, max(before_end, end)
                spans.append((start, end))
        at_end = bool(spans) and spans[-1][1] == len(self._text)
        self._splice_all([(start, end, "", (start, end)) for start, end in spans])
        if self._eol_added_at >= 0 and len(self._text) == self._eol_added_at + len(self.eol):
            self._splice(self._eol_added_at, len(self._text), "")  # give back the missing final newline
            self._eol_added_at = -1
        elif at_end and self._eol_was_added():  # the same, given in an earlier run
            self._splice(len(self._text) - len(self.eol), len(self._text), "")
        self.ops.append(Op("delete", (name,)))
        return True

    def append(self, path: KeyPath, value: Any) -> int:
        raise WriteRefused(f"{self.source}: .env values are text, not lists.")

    def dump(self) -> str:
        return self._text

    def _last(self, name: str) -> Any:
        return next((b for b in reversed(self._bindings) if b.name == name), None)

    def _splice(self, start: int, end: int, piece: str, claim: tuple[int, int] | None = None) -> None:
        """Replace ``[start, end)``; ``claim`` is the binding's lines this edit may change."""
        self._splice_all([(start, end, piece, claim or (start, end))])

    def _splice_all(self, changes: list[tuple[int, int, str, tuple[int, int]]]) -> None:
        """Make ``changes`` (``(start, end, piece, claim)``, in order, apart) with one copy of the text
        and one parse: a splice each copied and parsed the whole file once per change (deleting a
        name that an 80 KB file sets 2000 times took 25 s)."""
        text = self._text
        for start, end, piece, claim in reversed(changes):  # the last first: offsets before it hold
            self.edits.append(trimmed_edit(text, start, end, piece, claim, end > start))
            if start <= self._eol_added_at < end:  # the line ending gwconf gave went with the cut
                self._eol_added_at = -1
            elif start < self._eol_added_at or start == end == self._eol_added_at:
                # (a piece put in right at it, like a value filled into ``A=``, goes before it)
                self._eol_added_at += len(piece) - (end - start)
        parts: list[str] = []
        done = 0
        for start, end, piece, _ in changes:
            parts += (text[done:start], piece)
            done = end
        parts.append(text[done:])
        self._text = "".join(parts)
        self._bindings = self._parse(self._text)

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def _name(self, path: KeyPath) -> str:
        if len(path) != 1 or not isinstance(path[0], str) or not path[0]:
            raise WriteRefused(f"{self.source}: a .env file has flat names; got {path!r}.")
        return path[0]
