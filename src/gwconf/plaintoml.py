"""Plain TOML read without tomllib, for the commands that only read (``status``, ``clients``).

A client's ``config.toml`` is mostly lines of ``key = "text"``, numbers, booleans, one-line
arrays and inline tables under ``[table]`` and ``[[array]]`` headers. ``read`` takes exactly
such a file, line by line, and returns what ``tomllib.loads`` returns for it (the same values,
the same key order); for anything else, or anything it is not sure of, it returns None and the
caller reads the file with the TOML editor as before. tomllib is pure Python: its import was
8 ms and its read about 3 ms for each of a home's 6 KB TOML files (issue 15).

Left to tomllib (``None`` here): escapes and multi-line strings, arrays over several lines,
dotted keys, dates and times, ``inf``/``nan``, numbers with ``_``, hex, octal or binary digits,
a header that reaches into an array of tables or into a value, a key or table defined twice,
characters TOML forbids. What is taken is only what TOML 1.0 defines one way: a property test
(``tests/test_listing_paths.py``) holds every answer to tomllib's over generated files.
"""

from __future__ import annotations

from gwconf.lazyre import lazy

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    from typing import Any

# a bare key's characters, matched in C (a loop per character was a fifth of a 4 MB file's read)
_BARE_RUN = lazy(r"[A-Za-z0-9_-]*")
# the usual line whole, in C: a bare key, then "text" (no escape), 'text', true, false or a
# decimal integer, then a comment at most. Every other line takes the careful path, which reads
# these lines the same way with a call or more a character (the benchmark home's five files:
# 26.2M instructions a read, 22.3M with this)
_SIMPLE_LINE = lazy(
    r"([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
    r"""(?:"([^"\\]*)"|'([^']*)'|(true|false)|([+-]?(?:0|[1-9][0-9]*)))"""
    r"[ \t]*(?:#.*)?"
)
# the usual header whole: [a.b-c] or [[a.b]] of bare keys, then a comment at most
_SIMPLE_HEADER = lazy(
    r"\[(\[)?[ \t]*([A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*)[ \t]*\](\])?[ \t]*(?:#.*)?"
)
# a bare key given a one-line array of "text" items (no escape), or an inline table of keys
# (bare or quoted without escapes) given "text", 'text', true, false or a decimal integer:
# the lines of ``args = [...]`` and ``env = {...}`` a client's file holds (each took the careful
# path's calls a character: 2.1M of the 4.5M instructions of a home's 6 KB file)
_TEXT_P = r"""(?:"[^"\\]*"|'[^']*')"""
_PAIR_P = rf"(?:[A-Za-z0-9_-]+|{_TEXT_P})[ \t]*=[ \t]*(?:{_TEXT_P}|true|false|[+-]?(?:0|[1-9][0-9]*))"
_SIMPLE_ARRAY = lazy(
    r'([A-Za-z0-9_-]+)[ \t]*=[ \t]*\[[ \t]*(?:("[^"\\]*"(?:[ \t]*,[ \t]*"[^"\\]*")*)[ \t]*,?[ \t]*)?\]'
    r"[ \t]*(?:#.*)?"
)
_SIMPLE_INLINE = lazy(
    rf"([A-Za-z0-9_-]+)[ \t]*=[ \t]*\{{[ \t]*({_PAIR_P}(?:[ \t]*,[ \t]*{_PAIR_P})*)?[ \t]*\}}[ \t]*(?:#.*)?"
)
_ITEM = lazy(r'"([^"\\]*)"')
_PAIR = lazy(
    r"""(?:([A-Za-z0-9_-]+)|"([^"\\]*)"|'([^']*)')[ \t]*=[ \t]*"""
    r"""(?:"([^"\\]*)"|'([^']*)'|(true|false)|([+-]?[0-9]+))"""
)
_DIGITS = frozenset("0123456789")
# characters TOML refuses anywhere (comments included); "\r" only before "\n"; tab is allowed
_FORBIDDEN = frozenset(chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))
_ENDS = frozenset(" \t,]}#")  # what may follow a number or boolean


class _NotPlain(Exception):
    """The text holds something ``read`` leaves to tomllib."""


def read(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for a plain file (see the module docstring), else None."""
    if not _FORBIDDEN.isdisjoint(text) or text.count("\r") != text.count("\r\n"):
        return None
    try:
        return _read(text)
    except (_NotPlain, IndexError, ValueError, RecursionError):
        return None


def _read(text: str) -> dict[str, Any]:
    root: dict[str, Any] = {}
    table = root
    made_by_headers: set[int] = set()  # tables a header made, on its way or as its own
    declared: set[int] = set()  # tables a [header] or [[header]] declared
    arrays: set[int] = set()  # lists [[header]] made
    simple_line = _SIMPLE_LINE.fullmatch
    for line in text.split("\n"):
        line = line.strip(" \t\r")
        if not line or line[0] == "#":
            continue
        simple = simple_line(line)
        if simple is not None:
            key, basic, literal, truth, integer = simple.groups()
            if key in table:
                raise _NotPlain
            # ``_simple_value``, spelled out: the most common line (a call a line was 8% of a read)
            if basic is not None:
                table[key] = basic
            elif literal is not None:
                table[key] = literal
            elif truth is not None:
                table[key] = truth == "true"
            else:
                table[key] = int(integer)
            continue
        if line[0] == "[":
            header = _SIMPLE_HEADER.fullmatch(line)
            if header is not None:
                opened, path, closed = header.groups()
                if (opened is None) != (closed is None):
                    raise _NotPlain
                many = opened is not None
                keys = [key.strip(" \t") for key in path.split(".")]
            else:
                many = line.startswith("[[")
                keys, end = _key_path(line, 2 if many else 1)
                if line[end : end + (2 if many else 1)] != ("]]" if many else "]"):
                    raise _NotPlain
                _rest_is_comment(line, end + (2 if many else 1))
            node = root
            for key in keys[:-1]:
                child = node.get(key)
                if child is None:
                    child = node[key] = {}
                    made_by_headers.add(id(child))
                elif type(child) is not dict or id(child) not in made_by_headers:
                    raise _NotPlain  # a value, an inline table or an array of tables
                node = child
            last = keys[-1]
            found = node.get(last)
            if many:
                if found is None:
                    found = node[last] = []
                    arrays.add(id(found))
                elif type(found) is not list or id(found) not in arrays:
                    raise _NotPlain
                table = {}
                found.append(table)
            else:
                if found is None:
                    found = node[last] = {}
                elif type(found) is not dict or id(found) not in made_by_headers or id(found) in declared:
                    raise _NotPlain
                table = found
            made_by_headers.add(id(table))
            declared.add(id(table))
            continue
        compound = _compound(line)
        if compound is not None:
            key, value = compound
            if key in table:
                raise _NotPlain
            table[key] = value
            continue
        key, pos = _key(line, 0)
        pos = _blanks(line, pos)
        if line[pos] != "=" or key in table:
            raise _NotPlain
        value, pos = _value(line, _blanks(line, pos + 1))
        _rest_is_comment(line, pos)
        table[key] = value
    return root


def _compound(line: str) -> tuple[str, Any] | None:
    """(key, value) of a ``key = [...]`` or ``key = {...}`` line of the usual kind (see
    ``_SIMPLE_ARRAY``), read in C; None for any other line."""
    array = _SIMPLE_ARRAY.fullmatch(line)
    if array is not None:
        key, items = array.groups()
        return key, [] if items is None else _ITEM.findall(items)
    inline = _SIMPLE_INLINE.fullmatch(line)
    if inline is None:
        return None
    key, pairs = inline.groups()
    table: dict[str, Any] = {}
    if pairs is not None:
        for pair in _PAIR.finditer(pairs):
            bare, basic_key, literal_key, *value = pair.groups()
            name = bare if bare is not None else basic_key if basic_key is not None else literal_key
            if name in table:
                raise _NotPlain
            table[name] = _simple_value(*value)
    return key, table


def _simple_value(basic: str | None, literal: str | None, truth: str | None, integer: str | None) -> Any:
    """The value ``_SIMPLE_LINE`` or ``_PAIR`` matched: "text", 'text', a boolean or an integer."""
    if basic is not None:
        return basic
    if literal is not None:
        return literal
    if truth is not None:
        return truth == "true"
    return int(integer)  # type: ignore[arg-type]  # the one group left


def _blanks(line: str, pos: int) -> int:
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    return pos


def _rest_is_comment(line: str, pos: int) -> None:
    pos = _blanks(line, pos)
    if pos < len(line) and line[pos] != "#":
        raise _NotPlain


def _key(line: str, pos: int) -> tuple[str, int]:
    """One key (bare, or quoted without escapes) at ``pos``, and where it ends."""
    char = line[pos]
    if char == '"' or char == "'":
        end = line.index(char, pos + 1)
        key = line[pos + 1 : end]
        if char == '"' and "\\" in key:
            raise _NotPlain
        return key, end + 1
    found = _BARE_RUN.match(line, pos)  # ('*': a match, perhaps empty)
    end = pos if found is None else found.end()
    if end == pos:
        raise _NotPlain
    return line[pos:end], end


def _key_path(line: str, pos: int) -> tuple[list[str], int]:
    """A header's dotted keys from ``pos`` (blanks around each), and where they end."""
    keys = []
    while True:
        key, pos = _key(line, _blanks(line, pos))
        keys.append(key)
        pos = _blanks(line, pos)
        if line[pos] != ".":
            return keys, pos
        pos += 1


def _value(line: str, pos: int) -> tuple[Any, int]:
    char = line[pos]
    if char == '"' or char == "'":
        if line.startswith(char * 3, pos):
            raise _NotPlain  # multi-line string
        end = line.index(char, pos + 1)
        value = line[pos + 1 : end]
        if char == '"' and "\\" in value:
            raise _NotPlain
        return value, end + 1
    if char == "[":
        items: list[Any] = []
        pos = _blanks(line, pos + 1)
        while line[pos] != "]":
            item, pos = _value(line, pos)
            items.append(item)
            pos = _blanks(line, pos)
            if line[pos] == ",":
                pos = _blanks(line, pos + 1)
            elif line[pos] != "]":
                raise _NotPlain
        return items, pos + 1
    if char == "{":
        inline: dict[str, Any] = {}
        pos = _blanks(line, pos + 1)
        if line[pos] == "}":
            return inline, pos + 1
        while True:
            key, pos = _key(line, pos)
            pos = _blanks(line, pos)
            if line[pos] != "=" or key in inline:
                raise _NotPlain
            inline[key], pos = _value(line, _blanks(line, pos + 1))
            pos = _blanks(line, pos)
            if line[pos] == "}":
                return inline, pos + 1
            if line[pos] != ",":
                raise _NotPlain
            pos = _blanks(line, pos + 1)
    for word, truth in (("true", True), ("false", False)):
        if line.startswith(word, pos):
            end = pos + len(word)
            if end < len(line) and line[end] not in _ENDS:
                raise _NotPlain
            return truth, end
    return _number(line, pos)


def _number(line: str, pos: int) -> tuple[int | float, int]:
    """A decimal integer or a float with digits on both sides of its point (TOML's own forms)."""
    end = pos + 1 if line[pos] in "+-" else pos
    digits = _run(line, end)
    if digits == end or (line[end] == "0" and digits - end > 1):
        raise _NotPlain  # no digits, or a leading zero
    is_float = False
    if digits < len(line) and line[digits] == ".":
        fraction = _run(line, digits + 1)
        if fraction == digits + 1:
            raise _NotPlain
        digits, is_float = fraction, True
    if digits < len(line) and line[digits] in "eE":
        start = digits + 1
        if start < len(line) and line[start] in "+-":
            start += 1
        exponent = _run(line, start)
        if exponent == start:
            raise _NotPlain
        digits, is_float = exponent, True
    if digits < len(line) and line[digits] not in _ENDS:
        raise _NotPlain  # an underscore, a date, hex: tomllib's
    token = line[pos:digits]
    return (float(token) if is_float else int(token)), digits


def _run(line: str, pos: int) -> int:
    while pos < len(line) and line[pos] in _DIGITS:
        pos += 1
    return pos
