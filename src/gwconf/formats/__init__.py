"""All formats behind one interface: ``load(fmt, text, source) -> Document``.

Editors are imported lazily (tomlkit and PyYAML cost tens of milliseconds each), so a command
only pays for the formats of the files it touches. ``verify_edit`` is the write gate of
formats.md 1.1: parse the result and compare its data with the intended data.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats._base import MISSING, Document, KeyPath, Op, detect_eol

__all__ = [
    "FORMATS",
    "MISSING",
    "Document",
    "KeyPath",
    "Op",
    "decode",
    "detect_eol",
    "encode",
    "get_plain",
    "load",
    "replay",
    "verify_edit",
]

BOM = "\ufeff"

# format name -> module under gwconf.formats that defines ``load(text, source) -> Document``
FORMATS: dict[str, str] = {
    "toml": "toml",
    "json": "json",  # strict JSON: stays strict
    "jsonc": "json",  # JSON with comments and trailing commas
    "yaml": "yaml",
    "dotenv": "dotenv",
    "shellrc": "shellrc",  # one marked block in a POSIX shell rc file
    "fish": "shellrc",
    "powershell": "shellrc",
    "text": "text",  # a whole file holding one value (llm's default_model.txt)
}


def load(fmt: str, text: str, source: str) -> Document:
    """Parse ``text`` (no BOM) as ``fmt``; raises ``ParseError`` naming ``source``."""
    module = importlib.import_module(f"gwconf.formats.{FORMATS[fmt]}")
    return module.load(text, source, fmt=fmt)


def decode(raw: bytes, source: str) -> tuple[str, bool]:
    """Bytes -> (text without BOM, had_bom). Invalid UTF-8 is a parse error with its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ParseError(source, "not valid UTF-8 text", line, column) from None
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def encode(text: str, had_bom: bool) -> bytes:
    return ((BOM if had_bom else "") + text).encode("utf-8")


def replay(data: Any, ops: list[Op]) -> Any:
    """Apply ``ops`` to a deep copy of plain ``data``: what the edited file must read back as."""
    result = copy.deepcopy(data) if data is not None else {}
    for op in ops:
        if op.kind == "set":
            result = _set_plain(result, op.path, copy.deepcopy(op.value))
        elif op.kind == "delete":
            if not op.path:
                result = None
            else:
                _delete_plain(result, op.path)
        elif op.kind == "append":
            container = get_plain(result, op.path)
            if isinstance(container, list):
                container.append(copy.deepcopy(op.value))
            else:  # missing, or an empty document at the root: the list starts here
                result = _set_plain(result, op.path, [copy.deepcopy(op.value)])
        else:  # pragma: no cover - editors only record the three kinds
            raise ValueError(op.kind)
    return result


def get_plain(data: Any, path: KeyPath) -> Any:
    """The value at ``path`` in plain data, or MISSING."""
    node = data
    for part in path:
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and -len(node) <= part < len(node)
        ):
            node = node[part]
        else:
            return MISSING
    return node


def _set_plain(data: Any, path: KeyPath, value: Any) -> Any:
    """Set ``path`` in plain data, creating parents; a null parent becomes a mapping (``a:`` then ``a.b``)."""
    if not path:
        return value
    if data is None:
        data = {}
    node = data
    for part in path[:-1]:
        if isinstance(node, dict) and node.get(part) is None:
            node[part] = {}
        node = node[part]
    node[path[-1]] = value
    return data


def _delete_plain(data: Any, path: KeyPath) -> None:
    parent = get_plain(data, path[:-1])
    if isinstance(parent, dict):
        parent.pop(path[-1], None)
    elif isinstance(parent, list) and isinstance(path[-1], int) and path[-1] < len(parent):
        del parent[path[-1]]


def verify_edit(fmt: str, original: Document | None, edited: Document) -> str:
    """Re-parse the edited text and compare it with the intended data; returns the text.

    ``original`` is the document as loaded before any edit (``None`` for a new file).
    Raises ``WriteRefused`` when the editor produced something that reads back differently:
    the file is then left alone.
    """
    text = edited.dump()
    before = original.data() if original is not None else None
    intended = replay(before, edited.ops)
    try:
        reparsed = load(fmt, text, edited.source).data()
    except ParseError as exc:
        raise WriteRefused(
            f"{edited.source}: gwconf's edit would not parse ({exc.reason}); nothing was written.",
            "This is a gwconf bug: please report it with the file (keys removed).",
        ) from None
    if not _same(reparsed, intended):
        raise WriteRefused(
            f"{edited.source}: gwconf's edit reads back differently than intended; nothing was written.",
            "This is a gwconf bug: please report it with the file (keys removed).",
        )
    return text


def _same(a: Any, b: Any) -> bool:
    """Equality that treats an empty document and ``{}`` alike, and NaN as equal to NaN."""
    if a in (None, MISSING) and b == {}:
        return True
    if b in (None, MISSING) and a == {}:
        return True
    return _equal(a, b)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # TOML's nan, read twice
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):  # `true` written where `1` was meant is a different value
        return type(a) is type(b) and a == b
    return bool(a == b)
