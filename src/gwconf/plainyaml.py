"""Plain YAML read without PyYAML, for the commands that only read (``status``, ``clients``).

Importing PyYAML was about 18 ms (11 modules) of a listing on a home with YAML files, and the
editor composes each file in Python besides (issue 15). A client's YAML file is mostly block
mappings and sequences of one-line scalars, with comments and the odd folded note. ``read``
takes exactly such a file and returns what PyYAML's ``safe_load`` (and so gwconf's YAML editor)
makes of it; for anything else, or anything it is not sure of, it returns None and the caller
reads the file with the editor as before.

Taken: block mappings whose keys are plain words or quoted without escapes, block sequences
(also at their key's indent), one-line plain scalars that YAML 1.1 reads as text, ``true``/
``false``-style booleans, ``null``/``~``/nothing, decimal integers, quoted scalars without
escapes or line breaks, and ``|``, ``|-``, ``>``, ``>-`` blocks of lines at one indent without
blank lines. Left to PyYAML: tabs, carriage returns, document markers, directives, anchors,
aliases, tags, flow collections, other numbers, dates, multi-line plain scalars, keys twice
(gwconf refuses them), anything else. A property test holds every answer to PyYAML's and the
editor's over generated files (``tests/test_listing_paths.py``).
"""

from __future__ import annotations

import re

from gwconf.lazyre import lazy

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    from typing import Any

_BOOLS = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_NULLS = frozenset(("~", "null", "Null", "NULL"))
# each word YAML 1.1 reads as a boolean or null, with what it reads as
_WORDS = {**_BOOLS, **dict.fromkeys(_NULLS)}
# the usual lines whole, in C: a key of word characters, then nothing (a block follows), a
# quoted scalar without escapes, a one-word plain one (no ":", no "#", no blank) or a block
# scalar's "|", ">", "|-" or ">-", then a comment at most; a sequence item of such a scalar
# likewise. Every other line takes the
# careful path, which reads these lines the same way with a call or more a step (5.2M
# instructions a read of a home's 6 KB client file, the most of a listing's YAML: issue 15)
_SCALAR_P = r"""(?:"([^"\\]*)"|'([^']*)'|([A-Za-z_/$~][^ :#]*))"""
_SIMPLE_ENTRY = lazy(rf"([A-Za-z_][A-Za-z0-9_-]*):(?: +(?:{_SCALAR_P}|([|>]-?)))?(?: +#.*)?")
_SIMPLE_ITEM = lazy(rf"- +{_SCALAR_P}(?: +#.*)?")
_WORD_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_/$")
_DIGITS = frozenset("0123456789")
_MAX_DEPTH = 40  # deeper documents go to the editor, which has its own limit


class _NotPlain(Exception):
    """The text holds something ``read`` leaves to PyYAML."""


def _allowed(text: str) -> bool:
    """Line feeds and characters Python calls printable: all of them YAML reads as printable too
    (no tab, carriage return, NEL, U+2028/U+2029, BOM or private-use character gets through)."""
    return text.replace("\n", "").isprintable()


def read(text: str) -> Any:
    """``yaml.safe_load(text)`` for a plain file (see the module docstring), else None."""
    if not _allowed(text):
        return None
    try:
        return _Reader(text).document()
    except (_NotPlain, IndexError, ValueError, RecursionError):
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.raw = text.split("\n")
        self.at = 0  # the next raw line
        # the current content line: (indent, content) with the comment-only lines passed over
        self.indent = -1
        self.content = ""
        self._next()

    def _next(self) -> None:
        """Move to the next line holding content (not blank, not only a comment)."""
        raw, at = self.raw, self.at
        while at < len(raw):
            line = raw[at]
            at += 1
            content = line.lstrip(" ")
            if content and content[0] != "#":
                self.at = at
                self.indent = len(line) - len(content)
                self.content = content.rstrip(" ")
                return
        self.at = at
        self.indent = -1
        self.content = ""

    def document(self) -> Any:
        if self.indent != 0:
            raise _NotPlain  # empty, or starting indented
        content = self.content
        if content.startswith(("---", "...")) or content[0] == "%":
            raise _NotPlain
        for line in self.raw:
            if line.startswith(("---", "...")):
                raise _NotPlain
        value = self._block(0, 0)
        if self.indent != -1:
            raise _NotPlain
        return value

    def _block(self, indent: int, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise _NotPlain
        if self._is_item():
            return self._sequence(indent, depth)
        return self._mapping(indent, depth)

    def _is_item(self) -> bool:
        return self.content == "-" or self.content.startswith("- ")

    def _mapping(self, indent: int, depth: int) -> dict[str, Any]:
        found: dict[str, Any] = {}
        simple = _SIMPLE_ENTRY.fullmatch
        while self.indent == indent and not self._is_item():
            line = simple(self.content)
            if line is not None:
                key, double, single, word, block = line.groups()
                if key not in _WORDS:
                    if key in found:
                        raise _NotPlain
                    if word is not None:
                        found[key] = _WORDS.get(word, word)
                    elif double is not None or single is not None:
                        found[key] = single if double is None else double
                    elif block is not None:  # "|", ">", "|-" or ">-": its lines follow
                        found[key] = self._literal(block, indent)
                        continue
                    else:
                        found[key] = self._value("", indent, depth, in_mapping=True)
                        continue
                    self._next()
                    continue
            key, rest = self._entry(self.content)
            if key in found:
                raise _NotPlain  # the editor refuses a key twice
            found[key] = self._value(rest, indent, depth, in_mapping=True)
        if self.indent > indent:
            raise _NotPlain  # a line further in that no entry takes: a multi-line scalar
        return found

    def _sequence(self, indent: int, depth: int) -> list[Any]:
        items: list[Any] = []
        simple = _SIMPLE_ITEM.fullmatch
        while self.indent == indent and self._is_item():
            line = simple(self.content)
            if line is not None:
                double, single, word = line.groups()
                if word is not None:
                    items.append(_WORDS.get(word, word))
                else:
                    items.append(single if double is None else double)
                self._next()
                continue
            rest = self.content[1:].lstrip(" ")
            if rest and rest[0] != "#" and self._starts_entry(rest):
                # "- key: value": a mapping whose first entry stands where "key" does
                self.indent = indent + len(self.content) - len(rest)
                self.content = rest
                items.append(self._block(self.indent, depth + 1))
                continue
            items.append(self._value(rest, indent, depth, in_mapping=False))
        if self.indent > indent:
            raise _NotPlain
        return items

    def _starts_entry(self, content: str) -> bool:
        """Does ``content`` begin a mapping entry (``key: ...``)?"""
        if content[0] in "\"'":
            end = _quoted_end(content)
            return content[end : end + 1] == ":"
        if content[0] == "-" and (content == "-" or content.startswith("- ")):
            raise _NotPlain  # "- - x": nested sequences on one line
        plain = _cut_comment(content)
        return ": " in plain or plain.endswith(":")

    def _entry(self, content: str) -> tuple[str, str]:
        """(key, the text after ``key:``) of a mapping entry line."""
        if content[0] in "\"'":
            end = _quoted_end(content)
            key = _quoted(content[:end])
            if content[end : end + 1] != ":":
                raise _NotPlain
            rest = content[end + 1 :]
        else:
            plain = _cut_comment(content)
            colon = plain.find(": ")
            if colon < 0:
                if not plain.endswith(":"):
                    raise _NotPlain
                colon = len(plain) - 1
            key = plain[:colon]
            if key != key.rstrip(" ") or _plain_scalar(key) is not key:
                raise _NotPlain  # not a plain word that reads as text
            rest = content[colon + 1 :]
        if rest and rest[0] != " ":
            raise _NotPlain
        return key, rest.strip(" ")

    def _value(self, rest: str, indent: int, depth: int, *, in_mapping: bool) -> Any:
        """The value after ``key:`` or ``-`` (``rest``), then past it."""
        if not rest or rest[0] == "#":
            self._next()
            if self.indent > indent:
                return self._block(self.indent, depth + 1)
            if in_mapping and self.indent == indent and self._is_item():
                return self._sequence(indent, depth + 1)  # a sequence at its key's indent
            return None
        char = rest[0]
        if char in "\"'":
            end = _quoted_end(rest)
            after = rest[end:]
            if after and (after[0] != " " or after.lstrip(" ")[:1] not in ("", "#")):
                raise _NotPlain
            self._next()
            return _quoted(rest[:end])
        if char in "|>":
            return self._literal(rest, indent)
        if char == "[":
            value = _flow_sequence(rest)
            self._next()
            return value
        if char == "{":
            after = rest[2:]
            if not rest.startswith("{}") or (after and (after[0] != " " or after.lstrip(" ")[:1] != "#")):
                raise _NotPlain  # only the empty flow mapping is taken
            self._next()
            return {}
        value = _plain_scalar(_cut_comment(rest))
        self._next()
        return value

    def _literal(self, header: str, indent: int) -> str:
        """A ``|``, ``|-``, ``>`` or ``>-`` block: its lines, all at one indent, no blank line."""
        style, chomp = header[0], header[1:2]
        after = header[2:] if chomp == "-" else header[1:]
        if chomp not in ("", "-", " ") or (after.strip(" ") and not after.lstrip(" ").startswith("#")):
            raise _NotPlain
        if after and after[0] != " ":
            raise _NotPlain
        lines: list[str] = []
        block = -1
        while self.at < len(self.raw):
            line = self.raw[self.at]
            content = line.lstrip(" ")
            here = len(line) - len(content)
            if not content:
                if len(line) > indent:  # blanks past the key's indent: PyYAML may keep some
                    raise _NotPlain  # (">-", "  a:", "    " reads "a:\n  "), and decides
                # a blank line ends the block only when nothing of it follows: the lines after
                # it are looked at by index (a copy of the rest for each block was quadratic)
                after_blanks = self.at + 1
                while after_blanks < len(self.raw) and not self.raw[after_blanks].strip(" "):
                    if len(self.raw[after_blanks]) > indent:
                        raise _NotPlain  # (as above, after an empty line)
                    after_blanks += 1
                later = self.raw[after_blanks] if after_blanks < len(self.raw) else ""
                if len(later) - len(later.lstrip(" ")) > indent:
                    raise _NotPlain
                break
            if here <= indent:
                break
            if block < 0:
                block = here
            if here != block or line.endswith(" "):
                raise _NotPlain
            lines.append(content)
            self.at += 1
        if not lines or (chomp != "-" and self.at >= len(self.raw)):
            raise _NotPlain  # (clipped, the last line's break counts: none at the end of the text)
        self._next()
        text = (" " if style == ">" else "\n").join(lines)
        return text if chomp == "-" else text + "\n"


def _cut_comment(text: str) -> str:
    """A plain scalar's text: up to a `` #`` comment, trailing blanks off."""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).rstrip(" ")


def _quoted_end(text: str, start: int = 0) -> int:
    """Where the quoted scalar at ``start`` in ``text`` ends (after its closing quote). The start is
    given, not sliced off: a flow sequence of quoted items took a copy of the rest of its line
    for each item (quadratic in the line)."""
    quote = text[start]
    pos = start + 1
    while True:
        pos = text.index(quote, pos)  # ValueError: not closed on this line
        if quote == "'" and text[pos + 1 : pos + 2] == "'":
            pos += 2
            continue
        return pos + 1


def _quoted(token: str) -> str:
    inner = token[1:-1]
    if token[0] == '"':
        if "\\" in inner:
            raise _NotPlain
        return inner
    return inner.replace("''", "'")


def _plain_scalar(text: str) -> Any:
    """A one-line plain scalar as YAML 1.1 (PyYAML's resolver) reads it, or ``_NotPlain``."""
    if not text:
        return None
    if ": " in text or text.endswith(":") or " #" in text:
        raise _NotPlain
    first = text[0]
    if text in _BOOLS:
        return _BOOLS[text]
    if text in _NULLS:
        return None
    if first == "-" and (len(text) == 1 or text[1] == " "):
        raise _NotPlain  # a sequence entry where a scalar was expected
    if first in _DIGITS or first in "+-.":
        body = text[1:] if first in "+-" else text
        if body and _all_digits(body) and (body == "0" or body[0] != "0"):
            return int(text)
        return _number_like(text)
    if first == "~":
        return text  # only "~" itself is null
    if first not in _WORD_START:
        raise _NotPlain  # an indicator, or a character whose reading is not checked here
    return text


def _flow_sequence(text: str) -> list[Any]:
    """``[a, "b", 'c']`` on one line, then a comment at most: items quoted without escapes or
    plain words; anything else (nesting, mappings, an empty item) is left to PyYAML."""
    items: list[Any] = []
    pos = 1
    while True:
        while text[pos] == " ":
            pos += 1
        if text[pos] == "]" and not items:
            break
        if text[pos] in "\"'":
            end = _quoted_end(text, pos)
            items.append(_quoted(text[pos:end]))
        else:
            end = pos
            while text[end] not in ",]":
                end += 1
            word = text[pos:end].rstrip(" ")
            if not word or any(c in word for c in "[]{}#:?&*!|>'\"%@`"):
                raise _NotPlain
            items.append(_plain_scalar(word))
        pos = end
        while text[pos] == " ":
            pos += 1
        if text[pos] == "]":
            break
        if text[pos] != ",":
            raise _NotPlain
        pos += 1
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if text[pos] == "]":
            raise _NotPlain  # a trailing comma
    after = text[pos + 1 :]
    if after and (after[0] != " " or after.lstrip(" ")[:1] not in ("", "#")):
        raise _NotPlain
    return items


# PyYAML's implicit resolvers for plain scalars starting with a digit, a sign or a dot (YAML
# 1.1, ``yaml/resolver.py``), compiled only when such a scalar is met
_RESOLVERS = tuple(
    lazy(pattern, re.X)
    for pattern in (
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
            |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
            |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))$""",
        r"""^(?:[-+]?0b[0-1_]+
            |[-+]?0[0-7_]+
            |[-+]?(?:0|[1-9][0-9_]*)
            |[-+]?0x[0-9a-fA-F_]+
            |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
        r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
            |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
             (?:[Tt]|[ \t]+)[0-9][0-9]?
             :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
             (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    )
)


def _number_like(text: str) -> Any:
    """A plain scalar starting with a digit, sign or dot: a simple float as PyYAML makes it,
    text where none of PyYAML's number and date resolvers match, else ``_NotPlain``."""
    floats, ints, dates = _RESOLVERS
    if floats.match(text):
        if "_" in text or ":" in text or text[-1] in "fFN" or not _all_digits(text.lstrip("+-")[:1]):
            raise _NotPlain  # underscores, sexagesimal, .inf, .nan, ".5": PyYAML's own steps
        return float(text)
    if ints.match(text) or dates.match(text):
        raise _NotPlain
    return text


def _all_digits(text: str) -> bool:
    return all(c in _DIGITS for c in text)
