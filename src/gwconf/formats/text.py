"""A file that holds one value and nothing else (llm's ``default_model.txt``).

The only path is ``()``. The value is the content without its trailing line ending, so a file
written by ``echo gpt-4o > default_model.txt`` reads as ``"gpt-4o"``; an empty file reads as
``None`` (no value), which is what deleting the value leaves behind.
"""

from __future__ import annotations

from gwconf.errors import WriteRefused
from gwconf.formats._base import (
    MISSING,
    Edit,
    KeyPath,
    Op,
    changed_edit,
    detect_eol,
    ignore_pristine,
    never_reads_as,
    no_comment_above,
    no_key_line,
    no_spelling,
    put_back_as_set,
    put_before_as_put_back,
    reread_from_scratch,
)

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any


def load(text: str, source: str, *, fmt: str = "text") -> TextDocument:
    """Any text is valid: there is nothing to parse."""
    return TextDocument(text, source)


def _strip_eol(text: str) -> str:
    """Drop exactly one trailing line ending: a value may itself end in a newline."""
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


class TextDocument:
    """The whole file is the value at path ``()``."""

    fmt = "text"
    reads_as = never_reads_as
    spelling = no_spelling  # the whole file is the value
    put_back = put_back_as_set
    comment_above = no_comment_above
    key_line = no_key_line
    restoring_from = ignore_pristine
    put_before = put_before_as_put_back
    reread = reread_from_scratch

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []
        self._text = text

    def data(self) -> str | None:
        return _strip_eol(self._text) if self._text else None

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        value = self.data()
        if tuple(path) != () or value is None:
            return default
        return value

    def set(self, path: KeyPath, value: Any) -> None:
        self._check_path(path)
        if not isinstance(value, str):
            raise WriteRefused(f"{self.source}: holds one text value; cannot store {type(value).__name__}.")
        if value == self.data():
            return
        # keep the file's final line ending or its absence (llm writes the file without one); an
        # empty value or one ending in a newline needs it, or it would read back differently
        bare = self._text and not self._text.endswith("\n") and value and not value.endswith("\n")
        before, self._text = self._text, value + ("" if bare else self.eol)
        self.edits.append(changed_edit(before, self._text, (0, len(before))))  # the file is the value
        self.ops.append(Op("set", (), value))

    def delete(self, path: KeyPath) -> bool:
        self._check_path(path)
        if not self._text:
            return False
        self.edits.append(Edit(0, len(self._text), 0, 0, len(self._text)))
        self._text = ""
        self.ops.append(Op("delete", ()))
        return True

    def append(self, path: KeyPath, value: Any) -> int:
        raise WriteRefused(f"{self.source}: holds one text value, not a list.")

    def dump(self) -> str:
        return self._text

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def _check_path(self, path: KeyPath) -> None:
        if tuple(path) != ():
            raise WriteRefused(
                f"{self.source}: holds one value; there is no key {'.'.join(map(str, path))!r} in it."
            )
