"""All formats behind one interface: ``load(fmt, text, source) -> Document``.

Editors are imported lazily (tomlkit and PyYAML cost tens of milliseconds each), so a command
only pays for the formats of the files it touches. ``checked_edit`` is the write gate:
every byte outside the edited spans is unchanged, and the result reads back as intended.
"""

from __future__ import annotations

import importlib
import marshal
import sys

from gwconf.errors import ParseError, WriteRefused
from gwconf.fileio import BOM
from gwconf.fileio import decode_text as decode
from gwconf.formats._base import (
    MISSING,
    Document,
    Edit,
    Frozen,
    KeyPath,
    LazyPattern,
    Op,
    Parsed,
    copied,
    detect_eol,
    keep_until_exit,
    lazy,
)

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "FORMATS",
    "MISSING",
    "Document",
    "Edit",
    "Frozen",
    "KeyPath",
    "Op",
    "Parsed",
    "check_bytes",
    "checked_edit",
    "decode",
    "detect_eol",
    "encode",
    "get_plain",
    "lazy",
    "load",
    "replay",
    "verify_edit",
]


# format name -> module under gwconf.formats that defines ``load(text, source) -> Document``
FORMATS: dict[str, str] = {
    "toml": "toml",
    "json": "json",  # strict JSON: stays strict
    "jsonc": "json",  # JSON with comments and trailing commas
    "json5": "json",  # JSON5 (OpenClaw): unquoted keys, single quotes; comments and commas kept
    "yaml": "yaml",
    "dotenv": "dotenv",  # read as python-dotenv reads it
    "dotenv-npm": "dotenv",  # read as npm dotenv reads it (Gemini CLI, Qwen Code, Continue, ...)
    "shellrc": "shellrc",  # one marked block in a POSIX shell rc file
    "fish": "shellrc",
    "powershell": "shellrc",
    "text": "text",  # a whole file holding one value (llm's default_model.txt)
}


def load(fmt: str, text: str, source: str) -> Document:
    """Parse ``text`` (no BOM) as ``fmt``; raises ``ParseError`` naming ``source``."""
    if FORMATS[fmt] == "yaml" and "yaml" not in sys.modules:
        _import_pyyaml()
    module = importlib.import_module(f"gwconf.formats.{FORMATS[fmt]}")
    doc: Document = module.load(text, source, fmt=fmt)  # each editor module's load returns one
    keep_until_exit(doc)
    return doc


def _import_pyyaml() -> None:
    """Import PyYAML with the patterns it compiles at import compiled on first use.

    Its pure-Python reader's ``NON_PRINTABLE``, a character class over all of Unicode, took 10 ms
    of every command that reads a YAML file (issue 15), though gwconf reads YAML through
    libyaml's parser, which never uses it; the resolvers' patterns (timestamps, floats, ints,
    booleans, nulls, merge and value keys) and the constructor's timestamp took 2-4 ms more,
    and a file's plain scalars need few of them (a timestamp's only for text that starts with a
    digit and is no number). While ``yaml`` is imported, ``re.compile`` hands back a
    ``LazyPattern`` for each text pattern; its first ``match`` or ``search`` compiles it."""
    import re

    real_compile = re.compile

    def compile_deferring(pattern: Any, flags: int = 0) -> Any:
        if isinstance(pattern, str):
            return LazyPattern(pattern, flags)
        return real_compile(pattern, flags)

    re.compile = compile_deferring
    try:
        import yaml  # noqa: F401
    finally:
        re.compile = real_compile


def encode(text: str, had_bom: bool) -> bytes:
    return ((BOM if had_bom else "") + text).encode("utf-8")


def replay(data: Any, ops: list[Op]) -> Any:
    """``ops`` applied to plain ``data``: what the edited file must read back as.

    Only the containers along each op's path are copied; everything else is shared with ``data``
    (neither is changed afterwards: both are only compared). A whole deep copy cost as much as
    parsing the file, twice over for a 16 MB settings.json.
    """
    owned: set[int] = set()  # containers this replay made, safe to change in place

    def own(node: Any) -> Any:
        if id(node) in owned or not isinstance(node, (dict, list)):
            return node
        node = dict(node) if isinstance(node, dict) else list(node)
        owned.add(id(node))
        return node

    def fresh(value: Any) -> Any:
        value = copied(value)
        if isinstance(value, (dict, list)):
            owned.add(id(value))
        return value

    def parent_of(root: Any, path: KeyPath, create: bool) -> Any:
        """The container holding ``path[-1]``, copied down from ``root`` (itself owned)."""
        node = root
        for part in path[:-1]:
            if create and isinstance(node, dict) and node.get(part) is None:
                node[part] = fresh({})  # a null parent becomes a mapping (``a:`` then ``a.b``)
            child = own(node[part])
            node[part] = child
            node = child
        return node

    result = own(data) if data is not None else fresh({})
    for op in ops:
        if op.kind == "set":
            if not op.path:
                result = fresh(op.value)
                continue
            if result is None:
                result = fresh({})
            parent_of(result, op.path, create=True)[op.path[-1]] = fresh(op.value)
        elif op.kind == "delete":
            if not op.path:
                result = None
            elif get_plain(result, op.path[:-1]) is not MISSING:
                parent = parent_of(result, op.path, create=False)
                last = op.path[-1]
                if isinstance(parent, dict):
                    parent.pop(last, None)
                elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
                    del parent[last]
        elif op.kind == "append":
            container = get_plain(result, op.path)
            if isinstance(container, list):
                if op.path:
                    parent = parent_of(result, op.path, create=False)
                    parent[op.path[-1]] = own(container)
                    parent[op.path[-1]].append(fresh(op.value))
                else:
                    result = own(result)
                    result.append(fresh(op.value))
            else:  # missing, or an empty document at the root: the list starts here
                if not op.path:
                    result = fresh([op.value])
                else:
                    if result is None:
                        result = fresh({})
                    parent_of(result, op.path, create=True)[op.path[-1]] = fresh([op.value])
        else:  # pragma: no cover - editors only record the three kinds
            raise ValueError(op.kind)
    return result


def get_plain(data: Any, path: KeyPath) -> Any:
    """The value at ``path`` in plain data, or MISSING."""
    node = data
    for part in path:
        if isinstance(node, list):
            if not (isinstance(part, int) and -len(node) <= part < len(node)):
                return MISSING
            node = node[part]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return MISSING
    return node


def verify_edit(fmt: str, original: Parsed | None, edited: Document) -> str:
    """The write gate (``checked_edit``), for a caller that needs only the text."""
    return checked_edit(fmt, original, edited)[0]


_BUG_HINT = "This is a gwconf bug: please report it with the file (keys removed)."


def checked_edit(fmt: str, original: Parsed | None, edited: Document) -> tuple[str, Any]:
    """The write gate, the one path every edited text takes before it is written (design.md 5).

    Two proofs, or ``WriteRefused`` and the file is left alone:
    - bytes: every byte outside the spans the editor recorded (``edited.edits``) is the byte that
      was there, and each span lies inside what its operation claimed (``check_bytes``). A data
      check alone let an editor drop a comment;
    - data: the text, read again, is ``original``'s data with the edits replayed. The editor
      reads it (``reads_as``: the JSON editor compares a big object member by member without
      holding it whole; else ``reread``: a parse from scratch).

    ``original`` is the document as loaded before any edit (``None`` for a new file). Returns
    the text and the data it was checked to read as, which shares everything the edit did not
    touch with ``original``'s, so the ledger's key records need no third parse."""
    if edited.fmt != fmt:
        raise ValueError(f"{edited.source}: edited as {edited.fmt}, checked as {fmt}")
    text = edited.dump()
    check_bytes(edited.source, edited.original, edited.gate_text(), edited.edits)
    before = original.data() if original is not None else None
    intended = replay(before, edited.ops)
    try:
        if edited.reads_as(intended):
            return text, intended
        reparsed = edited.reread()
    except ParseError as exc:
        raise WriteRefused(
            f"{edited.source}: gwconf's edit would not parse ({exc.reason}); nothing was written.", _BUG_HINT
        ) from None
    if not _same(reparsed, intended):
        raise WriteRefused(
            f"{edited.source}: gwconf's edit reads back differently than intended; nothing was written.",
            _BUG_HINT,
        )
    return text, reparsed if intended is None else intended


_CHUNK = 1 << 20  # characters compared at a time: no copy of a whole big file


def check_bytes(source: str, before: str, after: str, edits: list[Edit]) -> None:
    """Prove ``after`` is ``before`` with exactly ``edits`` made: the old text minus the edited
    spans equals the new text minus their replacements, and each edit stays inside its claim.

    The untouched runs of ``before`` are followed through the edits as (where now, where
    before, length) (``_untouched``); each is then compared with ``after`` in chunks, at C speed."""
    size = len(before)
    for edit in edits:
        start, end = edit.start, edit.end
        if not (edit.lo <= start <= end <= edit.hi and end <= size) or (not edit.removes and end > start):
            _refuse_bytes(source, after, min(start, len(after)), "changes bytes outside the span it claimed")
        size += edit.length - (end - start)
    for now, old, n in _untouched(len(before), edits):
        for i in range(0, n, _CHUNK):
            k = min(_CHUNK, n - i)
            if not after.startswith(before[old + i : old + i + k], now + i):
                where = now + i
                while where < min(now + i + k, len(after)) and after[where] == before[old + where - now]:
                    where += 1
                _refuse_bytes(source, after, where, "changes bytes outside the spans it edits")
    if size != len(after):  # every kept byte in place, yet more or fewer of them: at the end
        _refuse_bytes(source, after, min(size, len(after)), "changes bytes outside the spans it edits")


def _untouched(size: int, edits: list[Edit]) -> list[tuple[int, int, int]]:
    """The runs of a text of ``size`` characters that ``edits`` (each within the text) left
    alone: (where now, where before, length), in order.

    The runs are held on either side of the last edit: those before it where they are, those
    after it by their distance from the end of the text, which an edit before them does not
    change. An edit moves across the runs between it and the last one only: edits made in
    text order, or the other way round (a key removed many times, the last copy first), cost
    one step a run, where moving every run after each edit cost runs times edits."""
    before: list[tuple[int, int, int]] = [(0, 0, size)] if size else []
    after: list[tuple[int, int, int]] = []  # (now - size, old, length), the nearest last
    for edit in edits:
        start, end = edit.start, edit.end
        while before and before[-1][0] + before[-1][2] > start:
            now, old, n = before.pop()
            after.append((now - size, old, n))
        while after and after[-1][0] + size < end:
            now, old, n = after.pop()
            now += size
            if now + n <= start:
                before.append((now, old, n))
                continue
            if now < start:
                before.append((now, old, start - now))
            if now + n > end:  # its rest keeps its distance from the end (and ends the loop)
                after.append((end - size, old + (end - now), now + n - end))
        size += edit.length - (end - start)
    return before + [(now + size, old, n) for now, old, n in reversed(after)]


def _refuse_bytes(source: str, text: str, pos: int, what: str) -> None:
    line = text.count("\n", 0, pos) + 1
    raise WriteRefused(
        f"{source}: gwconf's edit {what} (line {line} of the result); nothing was written.", _BUG_HINT
    )


def _same(a: Any, b: Any) -> bool:
    """Equality that treats an empty document and ``{}`` alike, and NaN as equal to NaN.

    Fast path: equal ``marshal`` bytes (version 2: no back-references, so sharing does not
    matter) mean equal values of equal types, found in C: on a 16 MB settings.json it takes a
    fifth of the time ``_equal`` does. Anything else (a difference, a value marshal cannot
    write such as a TOML date, a key order that differs) gets ``_equal``'s verdict."""
    if a in (None, MISSING) and b == {}:
        return True
    if b in (None, MISSING) and a == {}:
        return True
    try:
        if _marshal_same(a, b):
            return True
    except ValueError:  # unmarshallable, or nested too deeply for marshal
        pass
    return _equal(a, b)


_BLOCK = 4096  # entries of a big top-level mapping marshalled at a time


def _marshal_same(a: Any, b: Any) -> bool:
    """Equal marshal bytes. A big top-level mapping is compared in blocks of keys and of values,
    so the bytes of two whole files (and their growth by doubling) never exist at once."""
    if type(a) is not dict or type(b) is not dict or len(a) <= _BLOCK:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2)
    if len(a) != len(b):
        return False
    keys_a, keys_b, values_a, values_b = list(a), list(b), list(a.values()), list(b.values())
    for i in range(0, len(keys_a), _BLOCK):
        j = i + _BLOCK
        if marshal.dumps(keys_a[i:j], 2) != marshal.dumps(keys_b[i:j], 2):
            return False
        if marshal.dumps(values_a[i:j], 2) != marshal.dumps(values_b[i:j], 2):
            return False
    return True


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
