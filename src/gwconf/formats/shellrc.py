"""One block of environment variables that gwconf owns inside a shell start-up file.

The block sits between ``# >>> gwconf >>>`` and ``# <<< gwconf <<<`` (the conda convention) and
holds one assignment per variable plus a note saying how to remove it. Everything outside the
markers belongs to the user and is never parsed or touched, so ``data()`` is only the block's
variables. Formats (``fmt``):

- ``shellrc``: POSIX sh, bash and zsh: ``export NAME='value'`` (``'`` written as ``'\\''``).
- ``fish``: ``set -gx NAME 'value'`` (fish single quotes: ``\\`` and ``'`` escaped by backslash).
- ``powershell``: ``$env:NAME = 'value'`` (quote characters doubled).

Values are always single-quoted, so ``$(...)``, backticks and ``;`` stay text. A value with a
newline is written across lines inside the quotes; the block is read with a tokenizer, so such a
value cannot fake an end marker.
"""

from __future__ import annotations

from gwconf.errors import WriteRefused
from gwconf.formats._base import (
    MISSING,
    Edit,
    KeyPath,
    NamedValues,
    Op,
    changed_edit,
    detect_eol,
    eol_added_to_last_line,
    lazy,
    never_reads_as,
    no_comment_above,
    no_key_line,
    no_spelling,
    put_back_as_set,
    put_before_as_put_back,
    reread_from_scratch,
)
from gwconf.records import record

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BEGIN = "# >>> gwconf >>>"
END = "# <<< gwconf <<<"
# the shell client and Copilot CLI write this one block (restoring a client that wrote none of
# it says so and changes nothing); blocks of earlier gwconf name the shell client alone
NOTE = "# managed by gwconf: `gwconf restore shell copilot-cli` removes this block"
NOTES = (NOTE, "# managed by gwconf: `gwconf restore shell` removes this block")

NAME_RE = lazy(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# PowerShell treats the typographic single quotes as quote characters too (a security classic).
PS_QUOTES = "'\u2018\u2019\u201a\u201b"
# POSIX characters that need no quoting at all in an existing value.
_POSIX_BARE = lazy(r"[A-Za-z0-9_./:@%+,=#-]")  # '#' inside a word is not a comment
_FISH_BARE = lazy(r"[A-Za-z0-9_./:@%+,=-]")
_FISH_FLAGS = lazy(r"(-gx|-xg|--global|--export|-g|-x)(?=[ \t])")
_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")


def load(text: str, source: str, *, fmt: str = "shellrc") -> ShellBlockDocument:
    return ShellBlockDocument(text, source, fmt)


def quote(fmt: str, value: str) -> str:
    """The value as one single-quoted word of the shell ``fmt``."""
    if fmt == "fish":
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if fmt == "powershell":
        return "'" + "".join(c + c if c in PS_QUOTES else c for c in value) + "'"
    return "'" + value.replace("'", "'\\''") + "'"


def assignment(fmt: str, name: str, value: str) -> str:
    if fmt == "fish":
        return f"set -gx {name} {quote(fmt, value)}"
    if fmt == "powershell":
        return f"$env:{name} = {quote(fmt, value)}"
    return f"export {name}={quote(fmt, value)}"


@record
class _Line:
    """A piece of the block: a variable assignment (``name`` set) or a comment/blank line."""

    text: str  # including its line ending
    name: str | None = None
    value: str = ""


class _Malformed(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class ShellBlockDocument(NamedValues):
    """The text is kept as head + block + tail; only the block is ever rebuilt."""

    reads_as = never_reads_as
    spelling = no_spelling  # gwconf writes every value of its block
    put_back = put_back_as_set
    comment_above = no_comment_above
    key_line = no_key_line
    put_before = put_before_as_put_back
    reread = reread_from_scratch

    def __init__(self, text: str, source: str, fmt: str) -> None:
        if fmt not in ("shellrc", "fish", "powershell"):
            raise ValueError(fmt)
        self.source = source
        self.fmt = fmt
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []
        self._original = text
        self._had_block = False
        self._head = text  # text before the begin marker line
        self._begin = ""  # the begin marker line as written
        self._lines: list[_Line] = []
        self._end = ""  # the end marker line as written
        self._tail = ""  # text after the end marker line
        # what the file held before gwconf first wrote it, when a restore says (``restoring_from``)
        self._pristine: Callable[[], Any] | None = None
        self._parse(text)

    # -- reading -----------------------------------------------------------------------------

    def _parse(self, text: str) -> None:
        starts = _line_starts(text)
        index = 0
        while index < len(starts):
            start = starts[index]
            line = _line_at(text, start)
            marker = line.strip()
            if marker == END:
                raise self._error(text, start, f"'{END}' without a '{BEGIN}' line above it")
            if marker == BEGIN:
                if self._had_block:
                    raise self._error(
                        text, start, "a second gwconf block; keep one (remove the other by hand)"
                    )
                block_start = start + len(line)
                lines, end_at = self._parse_block(text, block_start, start)
                self._had_block = True
                self._head = text[:start]
                self._begin = line
                self._lines = lines
                end_line = _line_at(text, end_at)
                self._end = end_line
                self._tail = text[end_at + len(end_line) :]
                index = _index_after(starts, end_at + len(end_line))
                continue
            index += 1

    def _parse_block(self, text: str, pos: int, begin_at: int) -> tuple[list[_Line], int]:
        """Read assignments from ``pos`` up to the end marker line; returns them and its offset."""
        lines: list[_Line] = []
        while True:
            if pos >= len(text):
                raise self._error(text, begin_at, f"the gwconf block has no '{END}' line")
            line = _line_at(text, pos)
            stripped = line.strip()
            if stripped == END:
                return lines, pos
            if stripped == BEGIN:
                raise self._error(text, pos, "a gwconf block inside the gwconf block")
            if not stripped or stripped.startswith("#"):
                lines.append(_Line(line))
                pos += len(line)
                continue
            try:
                name, value, end = _READERS[self.fmt](text, pos)
            except _Malformed as exc:
                raise self._error(text, exc.pos, exc.message) from None
            lines.append(_Line(text[pos:end], name, value))
            pos = end

    # -- editing -----------------------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        name = self._name(path)
        if not isinstance(value, str):
            raise WriteRefused(f"{self.source}: environment variables hold text; {name} got {value!r}.")
        if "\x00" in value:
            raise WriteRefused(f"{self.source}: {name} cannot hold a NUL character.")
        if self.data().get(name) == value and not self._duplicates(name):
            return
        before, block = self.dump(), self._block_span()
        self._set(name, value)
        self._note(before, block)

    def _set(self, name: str, value: str) -> None:
        if not self._begin:
            self._create_block()
        text = assignment(self.fmt, name, value)
        positions = [i for i, line in enumerate(self._lines) if line.name == name]
        if positions:
            last = self._lines[positions[-1]]
            self._lines[positions[-1]] = _Line(text + _eol_of(last.text, self.eol), name, value)
            for i in reversed(positions[:-1]):
                del self._lines[i]
        else:
            at = max((i + 1 for i, line in enumerate(self._lines) if line.name is not None), default=0)
            if at == 0:  # after the note line when there are no variables yet
                at = next((i + 1 for i, line in enumerate(self._lines) if line.text.strip() in NOTES), 0)
            self._lines.insert(at, _Line(text + self.eol, name, value))
        self.ops.append(Op("set", (name,), value))

    def delete(self, path: KeyPath) -> bool:
        before, block = self.dump(), self._block_span()
        if tuple(path) == ():
            if not self._begin:
                return False
            self._remove_block()
            self.ops.append(Op("delete", ()))
            self._note(before, None)
            return True
        name = self._name(path)
        if name not in self.data():
            return False
        self._lines = [line for line in self._lines if line.name != name]
        if not any(line.name is not None for line in self._lines):
            self._remove_block()
            block = None
        self.ops.append(Op("delete", (name,)))
        self._note(before, block)
        return True

    def _block_span(self) -> tuple[int, int] | None:
        """Where the marked block is in the text now (begin marker to end marker line), if any."""
        if not self._begin:
            return None
        start = len(self._head)
        return start, start + len(self._begin) + sum(len(line.text) for line in self._lines) + len(self._end)

    def _note(self, before: str, block: tuple[int, int] | None) -> None:
        """Record the edit for the write gate. Inside an existing block it claims only the block:
        nothing outside the markers may change. Adding or removing the block claims what it
        changed (the blank line and final newline that go with it)."""
        after = self.dump()
        if after != before:
            self.edits.append(changed_edit(before, after, block if self._begin else None))

    def append(self, path: KeyPath, value: Any) -> int:
        raise WriteRefused(f"{self.source}: environment variables are not lists.")

    def dump(self) -> str:
        if not self._begin:
            return self._head
        body = "".join(line.text for line in self._lines)
        return self._head + self._begin + body + self._end + self._tail

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def _duplicates(self, name: str) -> bool:
        return sum(line.name == name for line in self._lines) > 1

    def _name(self, path: KeyPath) -> str:
        if len(path) != 1 or not isinstance(path[0], str) or not NAME_RE.match(path[0]):
            shown = ".".join(map(str, path))
            raise WriteRefused(
                f"{self.source}: {shown!r} is not a variable name (letters, digits, '_', not starting "
                "with a digit)."
            )
        return path[0]

    def _create_block(self) -> None:
        """Append the block after one blank line; the text above it stays as it was."""
        head = self._original if not self._had_block else self._head
        if head and not head.endswith("\n"):
            head += self.eol
        if _blank_line_wanted(head):
            head += self.eol
        self._head = head
        self._begin = BEGIN + self.eol
        self._lines = [_Line(NOTE + self.eol)]
        self._end = END + self.eol
        self._tail = ""

    def restoring_from(self, pristine: Callable[[], Any]) -> None:
        self._pristine = pristine

    def _remove_block(self) -> None:
        """Drop the block and the blank line that separated it, where ``_create_block`` added it."""
        if not self._had_block:
            # Nothing outside the markers was ever changed: the file is back to its original bytes.
            self._head = self._original
        else:
            head = self._head
            if self._separator_added():
                for blank in ("\r\n", "\n"):
                    if head == blank or head.endswith("\n" + blank):
                        head = head[: -len(blank)]
                        break
            if not self._tail and self._eol_was_added(head):
                head = head[: -len(self.eol)]
            self._head = head + self._tail
        self._begin = self._end = self._tail = ""
        self._lines = []

    def _eol_was_added(self, head: str) -> bool:
        """Whether ``head`` (the file up to the block at its end) ends with the line ending
        ``_create_block`` gave a last line that had none. A restore in a later run took the block
        out and left the line break: a ``~/.bashrc`` without a final newline got one (found over
        real files)."""
        return eol_added_to_last_line(self._pristine, head, self.eol)

    def _separator_added(self) -> bool:
        """Whether ``_create_block`` put the blank line above the block: it adds one after a last
        line that is not blank, none to a file that already ends with a blank line, or to a file
        it created. Without the file before gwconf (no restore, or no copy) the blank line is
        taken as gwconf's. A user's own blank line at the end of their file was taken out with
        the block (found over real ~/.bashrc files)."""
        pristine = self._pristine() if self._pristine is not None else None
        if pristine is MISSING:
            return False
        if not isinstance(pristine, str):
            return True
        if pristine and not pristine.endswith("\n"):
            pristine += self.eol  # as ``_create_block`` ended it
        return _blank_line_wanted(pristine)


def _blank_line_wanted(head: str) -> bool:
    """Whether the block goes after a blank line of gwconf's: ``head`` (ending with a line break)
    has a last line that is not blank. The one rule ``_create_block`` adds it by and a restore
    takes it out by."""
    return bool(head) and bool(head.split("\n")[-2].strip())


# -- readers: text, offset of the assignment line -> (name, value, offset after its line) ---------


def _read_posix(text: str, pos: int) -> tuple[str, str, int]:
    i = _skip_blanks(text, pos)
    if text.startswith("export", i) and i + 6 < len(text) and text[i + 6] in " \t":
        i = _skip_blanks(text, i + 6)
    name, i = _read_name(text, i)
    if not text.startswith("=", i):
        raise _Malformed("expected NAME=value in the gwconf block", i)
    i += 1
    parts: list[str] = []
    while i < len(text) and text[i] not in " \t\r\n;":
        c = text[i]
        if c == "'":
            close = text.find("'", i + 1)
            if close < 0:
                raise _Malformed("unterminated single quote", i)
            parts.append(text[i + 1 : close])
            i = close + 1
        elif c == "\\":
            if i + 1 >= len(text):
                raise _Malformed("a backslash at the end of the file", i)
            if text[i + 1] != "\n":  # backslash-newline is a line continuation
                parts.append(text[i + 1])
            i += 2
        elif c == '"':
            value, i = _read_posix_double(text, i)
            parts.append(value)
        elif _POSIX_BARE.match(c):
            parts.append(c)
            i += 1
        else:
            raise _Malformed(f"gwconf does not write {c!r} unquoted; move this line out of the block", i)
    return name, "".join(parts), _finish_line(text, i)


def _read_posix_double(text: str, i: int) -> tuple[str, int]:
    parts: list[str] = []
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == '"':
            return "".join(parts), j + 1
        if c in "$`":
            raise _Malformed("expansions are not allowed in the gwconf block", j)
        if c == "\\" and j + 1 < len(text) and text[j + 1] in '$`"\\\n':
            if text[j + 1] != "\n":
                parts.append(text[j + 1])
            j += 2
            continue
        parts.append(c)
        j += 1
    raise _Malformed("unterminated double quote", i)


def _read_fish(text: str, pos: int) -> tuple[str, str, int]:
    i = _skip_blanks(text, pos)
    if not text.startswith("set", i) or i + 3 >= len(text) or text[i + 3] not in " \t":
        raise _Malformed("expected 'set -gx NAME value' in the gwconf block", i)
    i = _skip_blanks(text, i + 3)
    seen = ""
    while m := _FISH_FLAGS.match(text, i):
        seen += m.group(1)
        i = _skip_blanks(text, m.end())
    if not ("g" in seen and "x" in seen):
        raise _Malformed("expected 'set -gx NAME value' in the gwconf block", i)
    name, i = _read_name(text, i)
    if i >= len(text) or text[i] not in " \t":
        raise _Malformed("expected a value after the name", i)
    i = _skip_blanks(text, i)
    parts: list[str] = []
    while i < len(text) and text[i] not in " \t\r\n;#":
        c = text[i]
        if c == "'":
            j = i + 1
            while True:
                if j >= len(text):
                    raise _Malformed("unterminated single quote", i)
                if text[j] == "\\" and j + 1 < len(text) and text[j + 1] in "\\'":
                    parts.append(text[j + 1])
                    j += 2
                elif text[j] == "'":
                    break
                else:
                    parts.append(text[j])
                    j += 1
            i = j + 1
        elif c == "\\" and i + 1 < len(text) and text[i + 1] in "\\'\" ":
            parts.append(text[i + 1])
            i += 2
        elif _FISH_BARE.match(c):
            parts.append(c)
            i += 1
        else:
            raise _Malformed(f"gwconf does not write {c!r} unquoted; move this line out of the block", i)
    return name, "".join(parts), _finish_line(text, i)


def _read_powershell(text: str, pos: int) -> tuple[str, str, int]:
    i = _skip_blanks(text, pos)
    if text[i : i + 5].lower() != "$env:":
        raise _Malformed("expected $env:NAME = 'value' in the gwconf block", i)
    name, i = _read_name(text, i + 5)
    i = _skip_blanks(text, i)
    if not text.startswith("=", i):
        raise _Malformed("expected '=' after the name", i)
    i = _skip_blanks(text, i + 1)
    if i >= len(text) or text[i] not in PS_QUOTES:
        raise _Malformed("gwconf writes single-quoted values only; move this line out of the block", i)
    parts: list[str] = []
    j = i + 1
    while True:
        if j >= len(text):
            raise _Malformed("unterminated single quote", i)
        c = text[j]
        if c in PS_QUOTES:
            if j + 1 < len(text) and text[j + 1] in PS_QUOTES:
                parts.append(c)
                j += 2
                continue
            break
        parts.append(c)
        j += 1
    return name, "".join(parts), _finish_line(text, j + 1)


_READERS = {"shellrc": _read_posix, "fish": _read_fish, "powershell": _read_powershell}


def _read_name(text: str, i: int) -> tuple[str, int]:
    m = _NAME.match(text, i)
    if not m:
        raise _Malformed("expected a variable name", i)
    return m.group(0), m.end()


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _finish_line(text: str, i: int) -> int:
    """Allow trailing blanks and a comment after the value; return the offset after the line."""
    i = _skip_blanks(text, i)
    if i < len(text) and text[i] == "#":
        newline = text.find("\n", i)
        return len(text) if newline < 0 else newline + 1
    if text.startswith("\r\n", i):
        return i + 2
    if text.startswith("\n", i):
        return i + 1
    if i >= len(text):
        return i
    raise _Malformed("one assignment per line in the gwconf block", i)


def _line_starts(text: str) -> list[int]:
    starts = [0] if text else []
    at = text.find("\n")
    while 0 <= at < len(text) - 1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _line_at(text: str, start: int) -> str:
    newline = text.find("\n", start)
    return text[start:] if newline < 0 else text[start : newline + 1]


def _index_after(starts: list[int], offset: int) -> int:
    for index, start in enumerate(starts):
        if start >= offset:
            return index
    return len(starts)


def _eol_of(line: str, default: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return default
