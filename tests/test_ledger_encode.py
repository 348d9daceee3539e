"""The ledger's fast encoder writes exactly what ``json.dumps(indent=2)`` writes (issue 15)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf.formats import MISSING
from gwconf.ledger import encode, value_hash

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


@settings(max_examples=300, deadline=None)
@given(values | st.dates() | st.tuples(st.integers(), st.text(max_size=4)))
def test_value_hash_is_the_sha256_of_sorted_json(value: object) -> None:
    """The ledger's key hashes (written by earlier releases too) stay what they were: the encoder
    made once gives ``json.dumps``'s text, non-JSON values (a TOML date) by ``str``."""
    import hashlib

    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    assert value_hash(value) == hashlib.sha256(text.encode()).hexdigest()
    assert value_hash(MISSING) == hashlib.sha256(b"\x00missing").hexdigest()


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
