"""The write gate checks bytes, not only data (issue 13, design.md section 5).

A data check alone passes an editor that drops a comment: the file still reads the same. The
gate (``formats.checked_edit``) also proves that every byte outside the spans the editor recorded
is the byte that was there, and that each span lies inside what its operation claimed from the
parsed node. These tests kill two mutations of the JSON editor deterministically: dropping the
comment above a member it deletes, and dropping the ``// comment`` after a value it replaces.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf import formats
from gwconf.errors import WriteRefused
from gwconf.formats import Edit, check_bytes, checked_edit

# -- the byte proof on its own ---------------------------------------------------------------------


def test_edits_that_account_for_every_change_pass() -> None:
    before = "one two three"
    after = "one 2 three!"
    check_bytes("f", before, after, [Edit(4, 7, 1, 4, 7), Edit(11, 11, 1, 11, 11, removes=False)])


def test_a_byte_changed_outside_every_edit_is_refused() -> None:
    with pytest.raises(WriteRefused, match="outside the spans it edits"):
        check_bytes("f", "one two three", "one 2 thre", [Edit(4, 7, 1, 4, 7)])


def test_a_byte_dropped_outside_the_edits_is_refused_by_length() -> None:
    with pytest.raises(WriteRefused, match="outside the spans it edits"):
        check_bytes("f", "a\n# note\nb\n", "a\nb\n", [])


def test_an_edit_outside_its_claim_is_refused() -> None:
    """The cut itself strayed: recorded, but beyond the node the operation named."""
    with pytest.raises(WriteRefused, match="outside the span it claimed"):
        check_bytes("f", "x = 1 # note\n", "x = 2\n", [Edit(4, 12, 1, 4, 5)])


def test_a_claimed_insertion_that_removes_is_refused() -> None:
    with pytest.raises(WriteRefused, match="outside the span it claimed"):
        check_bytes("f", "[1, 2] # n", "[1, 2, 3]", [Edit(6, 10, 3, 5, 10, removes=False)])


def test_offsets_move_with_each_edit() -> None:
    """Edits are recorded in order, each in the text as it was just before it."""
    before = "a b c d"
    after = "a XX c"
    # b -> XX (text becomes "a XX c d"), then " d" goes (offsets moved by one)
    check_bytes("f", before, after, [Edit(2, 3, 2, 2, 3), Edit(6, 8, 0, 6, 8)])
    with pytest.raises(WriteRefused):
        check_bytes("f", before, after, [Edit(2, 3, 2, 2, 3), Edit(5, 7, 0, 5, 7)])  # stale offsets


def test_a_big_text_is_compared_in_chunks() -> None:
    before = "x" * (3 << 20) + "tail"
    check_bytes("f", before, before[:-4] + "TAIL", [Edit(len(before) - 4, len(before), 4, 0, len(before))])
    broken = "x" * (2 << 20) + "y" + "x" * ((1 << 20) - 1) + "TAIL"
    with pytest.raises(WriteRefused, match="line 1"):
        check_bytes("f", before, broken, [Edit(len(before) - 4, len(before), 4, 0, len(before))])


@st.composite
def edited_texts(draw: st.DrawFn) -> tuple[str, list[Edit], str, list[int]]:
    """A text, edits made one after another anywhere in it (forward, backward, overlapping the
    last: the gate must not rely on an order), the result, and where each byte of the text now
    stands (-1: an edit took it)."""
    before = draw(st.text("ab\n", max_size=40))
    text, where = before, list(range(len(before)))
    edits = []
    for _ in range(draw(st.integers(0, 8))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 6)))
        piece = draw(st.text("xy\n", max_size=4))
        edits.append(Edit(start, end, len(piece), start, end, end > start))
        text, shift = text[:start] + piece + text[end:], len(piece) - (end - start)
        where = [-1 if start <= w < end else w + shift if w >= end else w for w in where]
    return before, edits, text, where


@settings(max_examples=400, deadline=None)
@given(edited_texts(), st.data())
def test_edits_in_any_order_pass_and_an_untouched_byte_changed_is_refused(
    case: tuple[str, list[Edit], str, list[int]], data: st.DataObject
) -> None:
    before, edits, after, where = case
    check_bytes("f", before, after, edits)
    kept = [w for w in where if w >= 0]
    if kept:
        at = data.draw(st.sampled_from(kept))
        line = after.count("\n", 0, at) + 1
        with pytest.raises(WriteRefused, match=rf"outside the spans it edits \(line {line} "):
            check_bytes("f", before, after[:at] + "z" + after[at + 1 :], edits)
        with pytest.raises(WriteRefused, match="outside the spans it edits"):
            check_bytes("f", before, after[:at] + after[at + 1 :], edits)


def _untouched_one_edit_at_a_time(size: int, edits: list[Edit]) -> list[tuple[int, int, int]]:
    """The runs as the gate once followed them: every run looked at again after each edit."""
    runs = [(0, 0, size)]
    for edit in edits:
        start, end, shift = edit.start, edit.end, edit.length - (edit.end - edit.start)
        moved = []
        for now, old, n in runs:
            if now + n <= start:
                moved.append((now, old, n))
            elif now >= end:
                moved.append((now + shift, old, n))
            else:
                if now < start:
                    moved.append((now, old, start - now))
                if now + n > end:
                    moved.append((end + shift, old + (end - now), now + n - end))
        runs = moved
    return [run for run in runs if run[2]]


@st.composite
def _edit_sequences(draw: st.DrawFn) -> tuple[int, list[Edit]]:
    """A text size and edits made one after the other, each within the text as it is then: in
    any order, in text order, or from the end back (a key removed many times, the last first)."""
    size = draw(st.integers(0, 40))
    order = draw(st.sampled_from(["any", "forwards", "backwards"]))
    edits, now, at = [], size, 0 if order == "forwards" else size
    for _ in range(draw(st.integers(0, 12))):
        if order == "forwards":
            start = draw(st.integers(min(at, now), now))
        elif order == "backwards":
            start = draw(st.integers(0, min(at, now)))
        else:
            start = draw(st.integers(0, now))
        end = draw(st.integers(start, min(now, start + 6)))
        length = draw(st.integers(0, 4))
        edits.append(Edit(start, end, length, start, end))
        now += length - (end - start)
        at = start + length if order == "forwards" else start
    return size, edits


@given(_edit_sequences())
@settings(max_examples=1000, deadline=None)
def test_the_runs_left_alone_are_followed_as_one_edit_at_a_time(case: tuple[int, list[Edit]]) -> None:
    """``_untouched`` keeps the runs on either side of the last edit instead of moving every
    one after each edit: the same runs, in order."""
    size, edits = case
    assert formats._untouched(size, edits) == _untouched_one_edit_at_a_time(size, edits)


# -- every editor records its spans, and the gate holds them ---------------------------------------

SAMPLES: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "jsonc": (
        '{\n  // about a\n  "a": 1, // after a\n  /* about k */\n  "k": 2,\n  "z": [1], // z\n}\n',
        [("set", ("a",), 5), ("delete", ("k",)), ("set", ("new",), {"x": 1}), ("delete", ("z",))],
    ),
    "json5": (
        "{\n  // c\n  a: 'x', // after a\n  k: 1,\n  \"z\": [1,],\n}\n",
        [("set", ("a",), "y"), ("delete", ("k",)), ("set", ("n",), {"x": 1})],
    ),
    "json": (
        '{\n  "a": 1,\n  "k": {"x": 1}\n}\n',
        [("set", ("a",), "s"), ("delete", ("k",)), ("set", ("n",), [1])],
    ),
    "toml": (
        '# top\nmodel = "a" # m\n\n[t]\nx = 1 # x\n',
        [("set", ("model",), "b"), ("set", ("t", "y"), 2), ("delete", ("t", "x"))],
    ),
    "yaml": (
        "# top\nmodel: a # m\nlist:\n  - 1 # one\n",
        [("set", ("model",), "b"), ("append", ("list",), 2)],
    ),
    "dotenv": ("# top\nA=1 # a\nB='x'\n", [("set", ("A",), "2"), ("delete", ("B",)), ("set", ("C",), "3")]),
    "dotenv-npm": (
        "# top\nA=1 # a\nB='x'\n",
        [("set", ("A",), "2"), ("delete", ("B",)), ("set", ("C",), "3")],
    ),
    "shellrc": ("# mine\nalias x=y\n", [("set", ("A",), "1"), ("set", ("B",), "2"), ("delete", ("A",))]),
    "fish": ("# mine\n", [("set", ("A",), "1")]),
    "powershell": ("# mine\n", [("set", ("A",), "1")]),
    "text": ("m\n", [("set", (), "n")]),
}


def _edited(fmt: str) -> tuple[Any, Any]:
    text, ops = SAMPLES[fmt]
    doc = formats.load(fmt, text, "f")
    for kind, *args in ops:
        getattr(doc, kind)(*args)
    return formats.load(fmt, text, "f"), doc


def test_every_format_has_a_sample() -> None:
    assert set(SAMPLES) == set(formats.FORMATS)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_every_editor_records_spans_that_account_for_its_text(fmt: str) -> None:
    original, doc = _edited(fmt)
    assert doc.original.replace("\x01", "") == SAMPLES[fmt][0]  # JSON5 pads unquoted keys inside
    assert doc.edits, "an editor that changed its text recorded no edit"
    text, _ = checked_edit(fmt, original, doc)
    assert text == doc.dump() != doc.original


DAMAGE = {  # a byte outside every edit, changed so that the data still agrees
    "jsonc": ("// about a", "//about a"),
    "json": ("{\n", "{ \n"),
    "json5": ("// c", "//c"),
    "toml": ("# top", "#top"),
    "yaml": ("# top", "#top"),
    "dotenv": ("# top", "#top"),
    "dotenv-npm": ("# top", "#top"),
    "shellrc": ("# mine", "#mine"),
    "fish": ("# mine", "#mine"),
    "powershell": ("# mine", "#mine"),
    "text": ("\n", "\r\n"),
}


class _Damaged:
    """An edited document whose text lost a byte on the way out: the fault an editor bug makes."""

    def __init__(self, doc: Any, text: str) -> None:
        self._doc, self._text = doc, text

    def dump(self) -> str:
        return self._text

    def gate_text(self) -> str:
        return self._text

    def __getattr__(self, name: str) -> Any:
        return getattr(self._doc, name)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_a_byte_changed_outside_the_spans_is_refused_even_when_the_data_agrees(fmt: str) -> None:
    original, doc = _edited(fmt)
    old, new = DAMAGE[fmt]
    text = doc.dump()
    assert old in text
    damaged = _Damaged(doc, text.replace(old, new, 1))
    with pytest.raises(WriteRefused, match="outside the spans it edits"):
        checked_edit(fmt, original, damaged)


# -- the two JSON mutations of issue 13 --------------------------------------------------------------

ABOVE = [
    '{\n  "a": 1,\n  // about k\n  "k": 2,\n  "c": 3\n}\n',  # in the middle
    '{\n  "a": 1,\n  // about k\n  "k": 2\n}\n',  # last, no trailing comma
    '{\n  "a": 1,\n  // about k\n  "k": 2,\n}\n',  # last, trailing comma
    '{\n  // about k\n  "k": 2,\n  "c": 3\n}\n',  # first
    '{\r\n  "a": 1,\r\n  /* about k */\r\n  "k": 2,\r\n  "c": 3\r\n}\r\n',  # CRLF, block comment
    '{\n  "a": 1, // about a\n  // about k\n  "k": 2\n}\n',  # comments on both lines
]


@pytest.mark.parametrize("text", ABOVE)
def test_deleting_a_member_keeps_the_comment_above_it_through_the_gate(text: str) -> None:
    original = formats.load("jsonc", text, "f")
    doc = formats.load("jsonc", text, "f")
    assert doc.delete(("k",))
    out, data = checked_edit("jsonc", original, doc)
    assert "about k" in out
    assert '"k"' not in out and "k" not in data
    note = "// about a" if "// about a" in text else None
    assert note is None or note in out


TRAILING = [
    '{\n  "model": "old", // the model I use\n  "b": 1\n}\n',
    '{\n  "model": "old" // the model I use\n}\n',
    '{\n  "model": "old", /* the model I use */ "b": 1\n}\n',
    '{\n\t"model": {"id": "old"}, // the model I use\n}\n',
    '{"model": "old"} // the model I use\n',
]


@pytest.mark.parametrize("text", TRAILING)
def test_replacing_a_value_keeps_the_comment_after_it_through_the_gate(text: str) -> None:
    original = formats.load("jsonc", text, "f")
    doc = formats.load("jsonc", text, "f")
    doc.set(("model",), "new")
    out, data = checked_edit("jsonc", original, doc)
    assert data["model"] == "new"
    old = '{"id": "old"}' if '{"id"' in text else '"old"'
    assert (
        out[out.index('"new"') + len('"new"') :] == text[text.index(old) + len(old) :]
    )  # the comment, byte for byte


def test_the_gate_refuses_a_delete_whose_cut_took_the_comment_above() -> None:
    """The same fault as the first mutation, made by hand on one document: the data agrees, the
    bytes do not, and the gate says so instead of writing."""
    text = ABOVE[0]
    original = formats.load("jsonc", text, "f")
    doc = formats.load("jsonc", text, "f")
    doc.delete(("k",))
    damaged = doc.dump().replace("  // about k\n", "")
    doc._text = doc._masked = damaged
    with pytest.raises(WriteRefused, match="outside the spans it edits"):
        checked_edit("jsonc", original, doc)


def test_the_gate_is_one_path_for_every_caller() -> None:
    """``verify_edit`` (restore, launch) and ``checked_edit`` (apply) are the same gate."""
    text = ABOVE[0]
    original = formats.load("jsonc", text, "f")
    doc = formats.load("jsonc", text, "f")
    doc.delete(("k",))
    doc._text = doc._masked = doc.dump().replace("  // about k\n", "")
    with pytest.raises(WriteRefused, match="outside the spans it edits"):
        formats.verify_edit("jsonc", original, doc)
