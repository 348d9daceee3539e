"""The write gate's comparison (formats._same): its marshal fast path never changes a verdict."""

from __future__ import annotations

import datetime
import math
from typing import Any

import pytest

from gwconf.formats import MISSING, _equal, _same, checked_edit, load, verify_edit

CASES: list[tuple[Any, Any, bool]] = [
    ({"a": [1, "x", None, 2.5]}, {"a": [1, "x", None, 2.5]}, True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # key order differs: marshal differs, _equal decides
    ({"a": 1}, {"a": True}, False),  # `true` where 1 was meant
    ({"a": [0]}, {"a": [False]}, False),
    ({"a": 1}, {"a": 1.0}, True),  # as before: only bool is told apart from numbers here
    ({"a": 0.0}, {"a": -0.0}, True),
    ({"a": math.nan}, {"a": float("nan")}, True),  # TOML's nan, read twice
    ({"d": datetime.date(2026, 1, 2)}, {"d": datetime.date(2026, 1, 2)}, True),  # marshal cannot
    ({"d": datetime.date(2026, 1, 2)}, {"d": datetime.date(2026, 1, 3)}, False),
    ({"a": "x"}, {"a": "y"}, False),
    ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 2, 3]}}, False),
    (None, {}, True),
    (MISSING, {}, True),
    ({}, None, True),
]


@pytest.mark.parametrize(("a", "b", "same"), CASES)
def test_same_agrees_with_the_slow_comparison(a: Any, b: Any, same: bool) -> None:
    assert _same(a, b) is same
    assert _same(b, a) is same
    if a not in (None, MISSING) and b not in (None, MISSING):
        assert _equal(a, b) is same


def test_shared_values_compare_equal_to_fresh_ones() -> None:
    """replay shares what an edit did not touch; marshal without back-references ignores sharing."""
    shared = ["x", {"k": "v"}]
    assert _same({"a": shared, "b": shared}, {"a": ["x", {"k": "v"}], "b": ["x", {"k": "v"}]})


def test_checked_edit_returns_the_data_the_text_reads_back_as() -> None:
    text = '{\n  // c\n  "a": {"b": 1},\n  "l": [1, 2],\n}\n'
    original = load("jsonc", text, "f")
    doc = load("jsonc", text, "f")
    doc.set(("a", "c"), "new")
    out, data = checked_edit("jsonc", original, doc)
    assert out == verify_edit("jsonc", original, doc) == doc.dump()
    assert data == load("jsonc", out, "f").data() == {"a": {"b": 1, "c": "new"}, "l": [1, 2]}
    assert original.data() == {"a": {"b": 1}, "l": [1, 2]}  # not changed by the check


def test_a_big_mapping_is_compared_block_by_block_to_its_last_entry() -> None:
    big = {f"k{i}": [i, {"v": str(i)}] for i in range(10_000)}
    assert _same(big, {k: [v[0], dict(v[1])] for k, v in big.items()})
    assert not _same(big, {**big, "k9999": [9999, {"v": True}]})  # the last block differs
    assert not _same({**big, "k0": [1]}, {**big, "k0": [True]})  # `true` where 1 was meant
    assert not _same(big, {**big, "extra": 1})
    renamed = dict(big)
    renamed["k9998x"] = renamed.pop("k9998")
    assert not _same(big, renamed)
    reordered = dict(reversed(big.items()))  # marshal differs; _equal decides: same mapping
    assert _same(big, reordered)


# -- the editors' "nothing to change" check (formats._base.same_value), one rule for all three ------

NO_OP_CASES = [
    ("json", '{"a": 1}\n', 1, False),
    ("json", '{"a": 1}\n', 1.0, True),  # 1.0 is other text than 1: setting it must write
    ("json", '{"a": 1}\n', True, True),
    ("yaml", "a: 1\n", 1, False),
    ("yaml", "a: 1\n", True, True),
    ("yaml", "a: .nan\n", math.nan, False),  # NaN read back equals NaN: nothing to write
    ("toml", "a = 1\n", 1, False),
    ("toml", "a = 1\n", 1.0, True),
    ("toml", "a = nan\n", math.nan, False),
]


@pytest.mark.parametrize(("fmt", "text", "value", "writes"), NO_OP_CASES)
def test_setting_the_same_value_writes_nothing_in_every_editor(
    fmt: str, text: str, value: Any, writes: bool
) -> None:
    doc = load(fmt, text, f"x.{fmt}")
    doc.set(("a",), value)
    assert (doc.dump() != text) is writes
