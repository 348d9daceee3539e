"""A big JSON(C) file edited through a stand-in of its windows (``formats.json_windows``) gives
exactly the bytes, answers and errors the whole-text editor gives (issue 15's memory row).

The property test cuts generated files into windows of a few bytes, so every member is a window
and every edit meets window boundaries: the stand-in then holds few of them, is made again as
reads and edits reach further, and must still write what editing the whole text writes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gwconf.errors import GwconfError
from gwconf.formats import MISSING, Frozen, checked_edit, json_windows
from gwconf.formats import json as json_editor
from tests.formats.test_differential import KEYS, JsoncGen
from tests.formats.test_json import paths as every_path

NEW_KEYS = ["fresh", "a.b", "é", "[lang]"]


def _document(rng: random.Random, fmt: str) -> tuple[str, dict[str, Any]]:
    """A top-level object of many members, one a line, in a random layout (JSONC: comments,
    blank lines, trailing comma, duplicate keys)."""
    gen = JsoncGen(rng)
    gen.eol = rng.choice(["\n", "\n", "\r\n"])
    if fmt == "json":
        gen.trailing = gen.dups = False
        gen.comment = lambda inline: ""  # type: ignore[method-assign]
        gen.gap = lambda: ""  # type: ignore[method-assign]
    data: dict[str, Any] = {}
    lines = []
    eol, unit = gen.eol, gen.unit
    for _ in range(rng.randrange(2, 14)):
        key = rng.choice(KEYS)
        value = gen.value(1)
        if key in data and fmt == "json":
            continue
        data[key] = value
        if fmt == "jsonc" and rng.random() < 0.2:
            lines.append(unit + "// " + rng.choice(["note", "ключ", '"quoted", with a comma']) + eol)
        if fmt == "jsonc" and rng.random() < 0.1:
            lines.append(eol)
        tail = " // why" if fmt == "jsonc" and rng.random() < 0.15 else ""
        lines.append([unit + gen.string(key) + ": " + gen.render(value, unit, 1), tail])
    members = [line for line in lines if isinstance(line, list)]
    out = ("// settings" + eol if fmt == "jsonc" and rng.random() < 0.5 else "") + "{" + eol
    for line in lines:
        if isinstance(line, str):
            out += line
            continue
        last = line is members[-1]
        out += line[0] + ("" if last and not gen.trailing else ",") + line[1] + eol
    return out + "}" + (eol if rng.random() < 0.8 else ""), data


def _ops(rng: random.Random, data: dict[str, Any]) -> list[tuple[str, tuple[Any, ...]]]:
    paths = every_path(data)[1:]  # not the top itself
    values = [1, "x", {"provider": "gwconf", "model": "m"}, [1, 2], None, "ü😀"]
    ops: list[tuple[str, tuple[Any, ...]]] = []
    for _ in range(rng.randrange(1, 6)):
        kind = rng.choice(["set", "set", "set", "delete", "append", "get", "put_before"])
        path = rng.choice(paths) if paths and rng.random() < 0.7 else ()
        if not path or rng.random() < 0.3:
            path = (*path, rng.choice(NEW_KEYS + KEYS))
        if kind == "set":
            ops.append(("set", (path, rng.choice(values))))
        elif kind == "delete":
            ops.append(("delete", (path,)))
        elif kind == "append":
            ops.append(("append", (path, rng.choice(values))))
        elif kind == "get":
            ops.append(("get", (path, MISSING)))
        else:
            following = rng.choice(list(data))
            ops.append(("put_before", ((rng.choice(NEW_KEYS),), "back", None, following)))
    return ops


def _outcome(doc: Any, name: str, args: tuple[Any, ...]) -> Any:
    try:
        return ("ok", getattr(doc, name)(*args))
    except (GwconfError, ValueError, TypeError) as exc:
        return ("raised", type(exc).__name__, str(exc))


def _gated(doc: Any, before: Any, fmt: str) -> Any:
    try:
        return ("ok", checked_edit(fmt, Frozen(before), doc))
    except GwconfError as exc:
        return ("refused", str(exc))


@given(st.integers(0, 2**32), st.sampled_from(["json", "jsonc"]), st.sampled_from([1, 24, 80, 400]))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_windowed_edit_writes_what_the_whole_text_editor_writes(seed: int, fmt: str, window: int) -> None:
    rng = random.Random(seed)
    text, data = _document(rng, fmt)
    bom = b"\xef\xbb\xbf" if rng.random() < 0.2 else b""  # stays first, outside every window
    raw = bom + text.encode("utf-8")
    windowed = json_windows.load(raw, "settings.json", fmt, window=window)
    whole = json_editor.load(text, "settings.json", fmt=fmt)
    whole_before = whole.data()  # (an editor never changes data it handed out)
    if windowed is None:  # one window, or a quote in a comment above the first member
        assert fmt == "jsonc" or window > 1 or len(data) < 2
        event("edited whole")
        return
    for name, args in _ops(rng, data):
        assert _outcome(windowed, name, args) == _outcome(whole, name, args), (name, args)
    if not whole.ops:
        assert not windowed.ops
        return
    windowed.settle()
    gated = _gated(windowed, windowed.loaded_data(), fmt)
    assert gated[0] == _gated(whole, whole_before, fmt)[0]
    held = "some windows" if len(windowed._cuts) - 1 > len(windowed._chosen) else "every window"
    event(f"gate: {gated[0]}, the stand-in held {held}")
    if gated[0] == "ok":
        assert windowed.whole_bytes() == bom + whole.dump().encode("utf-8")
    assert windowed.data() == whole.data()
    assert windowed.dump() == whole.dump()  # every window reached now: the stand-in is the file


def _big(members: int, unit: str = "  ", eol: str = "\n") -> str:
    lines = [f'{unit}"key.{n}": {{"value": {n}, "name": "名前 {n}"}},{eol}' for n in range(members)]
    return "{" + eol + "".join(lines) + f'{unit}"last": true{eol}}}{eol}'


def test_a_read_brings_in_only_the_windows_of_its_key() -> None:
    raw = _big(2000).encode()
    doc = json_windows.load(raw, "s", "jsonc", window=4096)
    assert doc is not None
    windows = len(doc._cuts) - 1
    assert windows > 10
    assert doc.get(("key.1000", "value")) == 1000
    assert len(doc._chosen) == 3  # the first, the one holding "key.1000", the last
    doc.set(("key.1500", "value"), -1)
    assert len(doc._chosen) == 4
    assert len(doc.original) < len(raw) // 3
    doc.settle()
    after = doc.whole_bytes()
    assert after == raw.replace(b'"key.1500": {"value": 1500', b'"key.1500": {"value": -1')


def test_a_member_bigger_than_a_window_is_a_window_of_its_own() -> None:
    """~/.claude.json's megabytes of ``projects`` sit among small members: a read of the member
    before it, or after it, leaves it out of the stand-in."""
    history = ",\n".join(f'    "p{n}": {{"display": "fix bug {n} in 日本"}}' for n in range(3000))
    text = '{\n  "numStartups": 3,\n  "hasCompletedOnboarding": true,\n  "projects": {\n' + history
    text += '\n  },\n  "userID": "u",\n  "theme": "dark"\n}\n'
    raw = text.encode()
    doc = json_windows.load(raw, "s", "json", window=4096)
    assert doc is not None
    starts = [raw[cut : cut + 12] for cut in doc._cuts[1:-1]]
    assert b'  "projects"' in starts and b'  "userID": ' in starts
    assert doc.get(("hasCompletedOnboarding",)) is True
    doc.set(("hasCompletedOnboarding",), False)
    assert doc.get(("userID",)) == "u"
    assert "projects" not in doc.original
    doc.settle()
    assert doc.whole_bytes() == raw.replace(
        b'"hasCompletedOnboarding": true', b'"hasCompletedOnboarding": false'
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": 1, "b": 2, "c": 3}' * 1 + "\n", id="one line"),
        pytest.param(_big(300).replace('"key.150": {', '"key.150" {'), id="a colon missing"),
        pytest.param(
            _big(300).replace('"key.150": {"value": 150, "name": "名前 150"},', '"key.150": 1'),
            id="a comma missing",
        ),
        pytest.param(_big(300).replace('"key.150"', '"\\u0000gwconf-window"'), id="the probe's own key"),
        pytest.param("[\n" + _big(300)[1:-2] + "]\n", id="an array"),
        pytest.param(_big(300).replace('"key.150": {', '/* "key.150": {'), id="a comment that never ends"),
    ],
)
def test_what_windows_cannot_show_is_edited_whole(text: str) -> None:
    """Any window that does not read alone (a syntax error, a cut that is no member boundary)
    sends the file to the whole-text editor, which reports an error with its line."""
    assert json_windows.load(text.encode(), "s", "jsonc", window=512) is None


def test_an_edit_across_a_window_left_out_takes_the_whole_text() -> None:
    """A key put back before the first member of a window that is not beside the one before it
    in the stand-in: the bytes cannot be placed in the file, so the stand-in becomes the file."""
    raw = _big(400).encode()
    doc = json_windows.load(raw, "s", "jsonc", window=1024)
    assert doc is not None
    second = doc._raw[doc._cuts[5] :].split(b'"', 2)[1].decode()
    doc.put_before(("inserted",), 1, None, second)
    chosen = len(doc._chosen)
    doc.settle()
    assert len(doc._chosen) in (chosen, len(doc._cuts) - 1)
    whole = json_editor.load(raw.decode(), "s", fmt="jsonc")
    whole.put_before(("inserted",), 1, None, second)
    assert doc.whole_bytes() == whole.dump().encode()
