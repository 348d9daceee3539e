"""The ledger's fast encoder writes exactly what ``json.dumps(indent=2)`` writes (issue 15)."""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf.formats import MISSING
from gwconf.ledger import encode

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
ledgers = st.fixed_dictionaries(
    {"version": st.integers(0, 3), "clients": st.dictionaries(st.text(max_size=10), values, max_size=5)},
    optional={"note": values},
)


@settings(max_examples=300, deadline=None)
@given(ledgers)
def test_encode_is_json_dumps_indent_2(data: dict) -> None:
    expected = json.dumps(data, indent=2, ensure_ascii=False)
    assert encode(data) == expected
    assert encode(data) == expected  # again, from the kept entry texts


def test_a_real_ledger_round_trips(profile, gwconf, tmp_path) -> None:
    """After a real apply the file on disk is the indented JSON of what it holds."""
    (tmp_path / "home" / ".codex").mkdir(parents=True, exist_ok=True)
    result = gwconf("apply", "codex")
    assert result.exit_code == 0, result
    text = (tmp_path / "gwconf" / "state" / "ledger.json").read_text()
    data = json.loads(text)
    assert data["clients"]["codex"]["files"]
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_entries_equal_in_python_but_not_in_json_are_encoded_each_their_own_way() -> None:
    """``1 == True == 1.0`` and ``0.0 == -0.0`` in Python; the kept texts must not mix them up."""
    for values in ([1, True, 1.0], [0.0, -0.0], [{"a": 1, "b": 2}, {"b": 2, "a": 1}]):
        for value in values * 2:
            data = {"version": 2, "clients": {"c": {"files": {}, "x": value}}}
            assert encode(data) == json.dumps(data, indent=2, ensure_ascii=False)


def test_an_entry_encoded_again_is_taken_from_the_kept_texts_whoever_else_holds_its_parts() -> None:
    """The kept texts are found by content alone: marshal's later versions mark parts that
    something else also references, and then the same entry looked new (83 fresh encodes
    instead of 36 in one apply --all)."""
    from gwconf import ledger

    entry = json.loads('{"files": {"a": {"keys": [{"path": ["x"]}]}}, "profile": "p"}')
    encode({"version": 2, "clients": {"c": entry}})
    kept = len(ledger._ENTRY_TEXT)
    holder = entry["files"]["a"]  # another reference to a part of it
    encode({"version": 2, "clients": {"c": entry}})
    assert len(ledger._ENTRY_TEXT) == kept and holder


class _Text(str):
    pass


class _Number(int):
    pass


odd_scalars = (
    scalars
    | st.floats()  # NaN and the infinities: json's own spelling
    | st.sampled_from([-0.0, 1e300, 5e-324, 2**70, -(2**63)])
    | st.text(alphabet='\x00\x1f"\\\u2028é\ud800 a', max_size=6)  # escapes, a lone surrogate
    | st.builds(_Text, st.text(max_size=4))
    | st.builds(_Number, st.integers())
)
odd_keys = st.text(max_size=6) | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
odd_values = st.recursive(
    odd_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        | st.dictionaries(odd_keys, inner, max_size=3)
    ),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(odd_values, st.sampled_from(["", "  ", "    "]))
def test_dumps_indented_is_json_dumps_indent_2(value: object, start: str) -> None:
    """The ledger's indenting encoder writes what json's writes, whatever the value holds (what
    it does not write itself, json writes)."""
    from gwconf.ledger import dumps_indented

    assert dumps_indented(value, start) == json.dumps(value, indent=2, ensure_ascii=False).replace(
        "\n", "\n" + start
    )


def test_dumps_indented_fails_as_json_does() -> None:
    from gwconf.ledger import dumps_indented

    looped: list[object] = []
    looped.append(looped)
    for bad in ({"a": object()}, {(1, 2): 1}, looped):
        try:
            json.dumps(bad, indent=2, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            expected: type[Exception] = type(exc)
        try:
            dumps_indented(bad)
        except (TypeError, ValueError) as exc:
            assert type(exc) is expected
        else:
            raise AssertionError(f"{bad!r} was encoded")


@settings(max_examples=300, deadline=None)
@given(odd_values | st.builds(lambda v: {"p": PurePosixPath("/x"), "v": v}, odd_values))
def test_value_hash_is_the_hash_of_json_dumps_sorted(value: object) -> None:
    """``value_hash`` encodes with one kept encoder: the text (or error) json.dumps gives."""
    from gwconf.fileio import sha256
    from gwconf.ledger import value_hash

    try:
        expected = str(sha256(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode()))
    except (TypeError, UnicodeEncodeError) as exc:  # keys that cannot be sorted, a lone surrogate
        with pytest.raises(type(exc)):
            value_hash(value)
        return
    assert value_hash(value) == expected
    assert value_hash(MISSING) == hashlib.sha256(b"\x00missing").hexdigest()  # its own marker
