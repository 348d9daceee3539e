"""``replay`` copies only the containers along each op's path; it must still give exactly what a
whole deep copy would, and never change the data it was given (that data is the file's data
before the edit, kept by the plan and compared again later)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf.formats import MISSING, Op, get_plain, replay

_KEYS = st.sampled_from(["a", "b", "c"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text("xy", max_size=2))
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=12,
)
_PATHS = st.lists(st.one_of(_KEYS, st.integers(0, 3)), max_size=3).map(tuple)
_OPS = st.lists(
    st.one_of(
        st.builds(Op, st.just("set"), _PATHS, _DATA),
        st.builds(Op, st.just("delete"), _PATHS.filter(bool)),
        st.builds(Op, st.just("append"), _PATHS, _DATA),
    ),
    max_size=4,
)


def _whole_copy_replay(data: Any, ops: list[Op]) -> Any:
    """The reference: deep-copy everything, then edit in place (what replay did before)."""
    result = copy.deepcopy(data) if data is not None else {}
    for op in ops:
        if op.kind == "set":
            if not op.path:
                result = copy.deepcopy(op.value)
                continue
            if result is None:
                result = {}
            node = result
            for part in op.path[:-1]:
                if isinstance(node, dict) and node.get(part) is None:
                    node[part] = {}
                node = node[part]
            node[op.path[-1]] = copy.deepcopy(op.value)
        elif op.kind == "delete":
            parent = get_plain(result, op.path[:-1])
            last = op.path[-1]
            if isinstance(parent, dict):
                parent.pop(last, None)
            elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
                del parent[last]
        else:
            container = get_plain(result, op.path)
            if isinstance(container, list):
                container.append(copy.deepcopy(op.value))
            elif not op.path:
                result = [copy.deepcopy(op.value)]
            else:
                if result is None:
                    result = {}
                node = result
                for part in op.path[:-1]:
                    if isinstance(node, dict) and node.get(part) is None:
                        node[part] = {}
                    node = node[part]
                node[op.path[-1]] = [copy.deepcopy(op.value)]
    return result


def _outcome(function: Any, data: Any, ops: list[Op]) -> tuple[str, Any]:
    try:
        return "ok", function(data, ops)
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        return "error", type(exc).__name__


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_KEYS, _DATA, max_size=3), _OPS)
def test_replay_equals_a_whole_copy_and_leaves_its_input_alone(data: Any, ops: list[Op]) -> None:
    kept = copy.deepcopy(data)
    ops_kept = copy.deepcopy(ops)
    expected = _outcome(_whole_copy_replay, copy.deepcopy(data), ops)
    got = _outcome(replay, data, ops)
    assert data == kept and ops == ops_kept
    if expected[0] == "ok":
        assert got == expected
    else:  # an op through a scalar or past a list's end: an error either way
        assert got[0] == "error"


def test_a_replayed_result_shares_untouched_branches_but_never_edited_ones() -> None:
    data = {"big": {"x": [1, 2]}, "edited": {"k": 1}}
    result = replay(data, [Op("set", ("edited", "k"), 2), Op("append", ("big", "x"), 3)])
    assert result == {"big": {"x": [1, 2, 3]}, "edited": {"k": 2}}
    assert data == {"big": {"x": [1, 2]}, "edited": {"k": 1}}
    untouched = {"big": {"x": [1]}, "other": {"deep": [1]}}
    assert replay(untouched, [Op("set", ("big", "y"), 1)])["other"] is untouched["other"]
    assert get_plain(replay(None, [Op("delete", ("a",))]), ("a",)) is MISSING


_VALUES = st.recursive(
    st.one_of(_SCALARS, st.floats(allow_nan=True), st.binary(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3), st.tuples(inner, inner)
    ),
    max_leaves=12,
)


@given(_VALUES)
@settings(max_examples=300, deadline=None)
def test_copied_is_deepcopy_made_in_c(value: Any) -> None:
    """``copied`` (marshal) gives what ``copy.deepcopy`` gives: equal, of the same types all the
    way down (a bool stays a bool, a tuple a tuple), sharing no container with the value."""
    from gwconf.formats._base import copied

    made, expected = copied(value), copy.deepcopy(value)
    assert repr(made) == repr(expected)

    def containers(v: Any) -> list[int]:  # the mutable ones: a tuple may be shared, as by deepcopy
        if isinstance(v, dict):
            return [id(v), *(i for x in v.values() for i in containers(x))]
        inside = [i for x in v for i in containers(x)] if isinstance(v, (list, tuple)) else []
        return [id(v), *inside] if isinstance(v, list) else inside

    assert not set(containers(made)) & set(containers(value))


def test_copied_keeps_a_value_met_twice_one_value_and_copies_dates_and_subclasses() -> None:
    import datetime

    from gwconf.formats._base import copied

    shared = [1, 2]
    made = copied({"a": shared, "b": shared})
    assert made["a"] is made["b"] and made["a"] is not shared  # as deepcopy: one YAML alias, one value
    when = {"at": datetime.date(2026, 11, 29), "l": [1]}
    again = copied(when)
    assert again == when and again["l"] is not when["l"]  # marshal cannot write a date: deepcopy

    class Table(dict):  # a tomlkit container is a dict subclass
        pass

    table = Table(x=[1])
    kept = copied(table)
    assert type(kept) is Table and kept == table and kept["x"] is not table["x"]
