"""``.env`` files, edited line by line (formats.md 5.2).

python-dotenv's own ``set_key`` drops ``export``, inline comments and CRLF, rewrites every
duplicate and writes values bash cannot ``source``; so gwconf keeps each line as a prefix
(indent, ``export``, name, ``=`` with its spacing), a value token, a tail (blanks and an inline
comment) and its line ending, and replaces only the value token.

Reading follows bash and python-dotenv where they agree: single quotes are literal; double quotes
understand ``\\" \\\\ \\$ \\``` and ``\\n``; a bare value runs to the end of the line minus an inline
``#`` comment (one preceded by a blank) and trailing blanks. The last of duplicate names wins.

Values gwconf writes read back the same through this parser and through
``bash -c 'set -a; source FILE'``: bare when plainly safe, else single quotes, else (the value
holds ``'``) double quotes with ``\\ " $ ``` escaped. A newline is written literally inside the
quotes because bash does not decode ``\\n``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gwconf.errors import WriteRefused
from gwconf.formats._base import (
    Edit,
    KeyPath,
    NamedValues,
    Op,
    changed_edit,
    detect_eol,
    never_reads_as,
    reread_from_scratch,
)

_ASSIGN = re.compile(r"(?P<prefix>[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*)")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # names bash can export
BARE_RE = re.compile(r"[A-Za-z0-9_./:@+-]+\Z")
_TAIL = re.compile(r"[ \t]*(?:#[^\r\n]*)?")  # blanks and an inline comment after the value
_EOL = re.compile(r"\r?\n|\Z")
_DOUBLE_ESCAPES = {'"': '"', "\\": "\\", "$": "$", "`": "`", "n": "\n"}


def load(text: str, source: str, *, fmt: str = "dotenv") -> DotenvDocument:
    return DotenvDocument(text, source)


@dataclass
class _Line:
    """One logical line. ``name`` is None for blank and comment lines (all in ``prefix``)."""

    prefix: str
    name: str | None = None
    token: str = ""  # the value exactly as written, quotes included
    value: str = ""
    tail: str = ""  # blanks and inline comment after the value
    eol: str = ""
    added_eol: bool = False  # gwconf gave this (formerly last) line its line ending

    @property
    def style(self) -> str:
        return self.token[:1] if self.token[:1] in ("'", '"') else ""

    def text(self) -> str:
        return self.prefix + self.token + self.tail + self.eol


def quote(value: str) -> str:
    """The token for a new value: one that this parser and bash both read back as ``value``."""
    if BARE_RE.match(value):
        return value
    if "'" not in value:
        return "'" + value + "'"
    return '"' + re.sub(r'([\\"$`])', r"\\\1", value) + '"'


def _requote(value: str, style: str) -> str:
    """Keep the old quote style when the value can be written in it without surprises."""
    if style == "'" and "'" not in value:
        return "'" + value + "'"
    if style == '"' and not re.search(r'[\\"$`\n]', value):
        return '"' + value + '"'
    if style == "" and (BARE_RE.match(value) or value == ""):  # "A=" stays "A=", not "A=''"
        return value
    return quote(value)


class DotenvDocument(NamedValues):
    fmt = "dotenv"
    reads_as = never_reads_as
    reread = reread_from_scratch

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []
        self._lines = self._parse(text)

    # -- reading -----------------------------------------------------------------------------

    def _parse(self, text: str) -> list[_Line]:
        lines: list[_Line] = []
        pos = 0
        while pos < len(text):
            newline = text.find("\n", pos)
            end = len(text) if newline < 0 else newline + 1
            raw = text[pos:end]
            body = raw.rstrip("\r\n")
            if not body.strip() or body.lstrip().startswith("#"):
                lines.append(_Line(body, eol=raw[len(body) :]))
                pos = end
                continue
            m = _ASSIGN.match(text, pos)
            if not m or m.end() > pos + len(body):
                raise self._error(text, pos + len(body) - len(body.lstrip()), "expected NAME=value")
            line, pos = self._parse_value(text, m)
            lines.append(line)
        return lines

    def _parse_value(self, text: str, m: re.Match[str]) -> tuple[_Line, int]:
        start = m.end()
        first = text[start : start + 1]
        if first == "'":
            close = text.find("'", start + 1)
            if close < 0:
                raise self._error(text, start, "unterminated single-quoted value")
            value, after = text[start + 1 : close], close + 1
        elif first == '"':
            value, after = self._read_double(text, start)
        else:
            newline = text.find("\n", start)
            line_end = len(text) if newline < 0 else newline
            if line_end > start and text[line_end - 1] == "\r":
                line_end -= 1
            rest = text[start:line_end]
            if rest.startswith("#") and m.group("prefix").endswith((" ", "\t")):
                rest = ""  # `NAME= # note`: the comment starts the tail, the value is empty (bash)
            comment = re.search(r"[ \t]#", rest)
            token = (rest[: comment.start()] if comment else rest).rstrip(" \t")
            value, after = token, start + len(token)
        tail_m = _TAIL.match(text, after)
        assert tail_m is not None
        tail_end = tail_m.end()
        eol_m = _EOL.match(text, tail_end)
        if eol_m is None:
            raise self._error(text, tail_end, "unexpected text after the value (quote it?)")
        prefix, tail = m.group("prefix"), text[after:tail_end]
        if start == after:  # no value: blanks after `=` separate the comment, keep them there
            blanks = len(prefix) - len(prefix.rstrip(" \t"))
            prefix, tail = prefix[: len(prefix) - blanks], prefix[len(prefix) - blanks :] + tail
        line = _Line(prefix, m.group("name"), text[start:after], value, tail, eol_m.group(0))
        return line, eol_m.end()

    def _read_double(self, text: str, start: int) -> tuple[str, int]:
        parts: list[str] = []
        i = start + 1
        while i < len(text):
            c = text[i]
            if c == '"':
                return "".join(parts), i + 1
            if c == "\\" and i + 1 < len(text) and text[i + 1] in _DOUBLE_ESCAPES:
                parts.append(_DOUBLE_ESCAPES[text[i + 1]])
                i += 2
                continue
            parts.append(c)
            i += 1
        raise self._error(text, start, "unterminated double-quoted value")

    # -- editing -----------------------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        name = self._name(path)
        if not isinstance(value, str):
            raise WriteRefused(f"{self.source}: .env values are text; {name} got {value!r}.")
        if "\x00" in value:
            raise WriteRefused(f"{self.source}: {name} cannot hold a NUL character.")
        current = self.data()
        if current.get(name) == value:
            return
        last = next((line for line in reversed(self._lines) if line.name == name), None)
        before, claim = self.dump(), self._line_span(last)
        if last is not None:  # edit the occurrence that wins
            last.token = _requote(value, last.style)
            last.value = value
            if last.tail.startswith("#"):
                last.tail = " " + last.tail  # bash would read `A='v'# c` as `v#`
        else:
            if not NAME_RE.match(name):
                raise WriteRefused(f"{self.source}: {name!r} is not a name bash can export.")
            if self._lines and not self._lines[-1].eol:
                self._lines[-1].eol = self.eol
                self._lines[-1].added_eol = True
            self._lines.append(_Line(f"{name}=", name, quote(value), value, eol=self.eol))
        self.ops.append(Op("set", (name,), value))
        self.edits.append(changed_edit(before, self.dump(), claim))

    def delete(self, path: KeyPath) -> bool:
        name = self._name(path)
        if name not in self.data():
            return False
        was_last = self._lines[-1].name == name
        before = self.dump()
        self._lines = [line for line in self._lines if line.name != name]
        if was_last and self._lines and self._lines[-1].added_eol:
            self._lines[-1].eol = ""  # give back the missing final newline we had added
            self._lines[-1].added_eol = False
        self.ops.append(Op("delete", (name,)))
        self.edits.append(changed_edit(before, self.dump()))
        return True

    def _line_span(self, target: _Line | None) -> tuple[int, int] | None:
        """Where ``target``'s line is in the text: an edit of its value claims that line alone
        (without its line ending: a comment after the value stays on it)."""
        if target is None:
            return None
        pos = 0
        for line in self._lines:
            if line is target:
                return pos, pos + len(line.text()) - len(line.eol)
            pos += len(line.text())
        return None

    def append(self, path: KeyPath, value: Any) -> int:
        raise WriteRefused(f"{self.source}: .env values are text, not lists.")

    def dump(self) -> str:
        return "".join(line.text() for line in self._lines)

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def _name(self, path: KeyPath) -> str:
        if len(path) != 1 or not isinstance(path[0], str) or not path[0]:
            raise WriteRefused(f"{self.source}: a .env file has flat names; got {path!r}.")
        return path[0]
