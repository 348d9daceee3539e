"""``gwconf.records`` behaves as ``dataclasses`` does for every feature gwconf uses: each case
runs the same class body through both and compares what an instance does."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

from gwconf import records

IMPLEMENTATIONS = {
    "dataclasses": (dataclasses.dataclass, dataclasses.field, dataclasses.replace, dataclasses.fields),
    "records": (records.record, records.field, records.replace, records.fields),
}


def make(kind: str) -> dict[str, Any]:
    """The same classes, built by one implementation."""
    decorate, field, _, _ = IMPLEMENTATIONS[kind]

    @decorate
    class Plain:
        name: str
        count: int = 0
        tags: list[str] = field(default_factory=list)
        note: str | None = field(default=None, repr=False)
        cache: Any = field(default=None, repr=False, compare=False)

    @decorate(frozen=True)
    class Frozen:
        path: str
        mode: int | None = None

    @decorate
    class Child(Plain):
        extra: str = "x"

    @decorate
    class Posted:
        raw: str
        cooked: str = ""

        def __post_init__(self) -> None:
            self.cooked = self.raw.upper()

    @decorate(eq=False)
    class ByIdentity:
        value: int

    return {"Plain": Plain, "Frozen": Frozen, "Child": Child, "Posted": Posted, "ByIdentity": ByIdentity}


BOTH = pytest.mark.parametrize("kind", list(IMPLEMENTATIONS))


def observe(kind: str) -> dict[str, Any]:
    """What the classes do, as plain data, with class names taken out of reprs."""
    c = make(kind)
    _, _, replace, fields = IMPLEMENTATIONS[kind]
    plain = c["Plain"]("a", 2)
    other = c["Plain"]("a", 2)
    seen: dict[str, Any] = {
        "repr": repr(plain).split("(", 1)[1],
        "eq": plain == other,
        "eq other cache": plain == c["Plain"]("a", 2, cache=object()),
        "ne": plain != c["Plain"]("b"),
        "eq other type": plain == ("a", 2),
        "factory fresh": plain.tags is not other.tags,
        "class default": c["Plain"].count,
        "factory not on class": hasattr(c["Plain"], "tags"),
        "positional": repr(c["Plain"]("n", 1, ["t"], "note")).split("(", 1)[1],
        "fields": [f.name for f in fields(c["Child"])],
        "child": repr(c["Child"]("c", extra="y")).split("(", 1)[1],
        "replace": repr(replace(plain, count=5)).split("(", 1)[1],
        "replace keeps original": plain.count,
        "post_init": c["Posted"]("abc").cooked,
        "post_init on replace": replace(c["Posted"]("abc"), raw="z").cooked,
        "identity eq": c["ByIdentity"](1) == c["ByIdentity"](1),
        "identity hashable": isinstance(hash(c["ByIdentity"](1)), int),
    }
    try:
        hash(plain)
        seen["plain hashable"] = True
    except TypeError:
        seen["plain hashable"] = False
    frozen = c["Frozen"]("p", 1)
    seen["frozen hash equal"] = hash(frozen) == hash(c["Frozen"]("p", 1))
    seen["frozen in set"] = len({frozen, c["Frozen"]("p", 1), c["Frozen"]("q")})
    for attempt in ("assign", "delete"):
        try:
            if attempt == "assign":
                frozen.path = "q"  # type: ignore[misc]
            else:
                del frozen.path  # type: ignore[misc]
            seen[attempt] = "allowed"
        except AttributeError as error:
            seen[attempt] = type(error).__mro__[1].__name__  # FrozenInstanceError's base
    frozen.__dict__["_cache"] = 1  # what fileio's Snapshot-like callers may do: not a field
    seen["frozen value"] = frozen.path
    try:
        c["Plain"]()
        seen["missing argument"] = "accepted"
    except TypeError:
        seen["missing argument"] = "TypeError"
    try:
        c["Plain"]("a", nope=1)
        seen["unknown argument"] = "accepted"
    except TypeError:
        seen["unknown argument"] = "TypeError"
    return seen


def test_records_behave_as_dataclasses_for_every_feature_gwconf_uses() -> None:
    assert observe("records") == observe("dataclasses")


@BOTH
def test_a_field_without_a_default_after_one_with_is_refused(kind: str) -> None:
    decorate = IMPLEMENTATIONS[kind][0]
    with pytest.raises(TypeError):

        @decorate
        class Broken:
            a: int = 0
            b: int  # type: ignore[misc]


def test_records_do_not_import_dataclasses_or_inspect() -> None:
    """The point of the module: defining records never brings dataclasses' imports (issue 15)."""
    code = "import sys, gwconf.records, gwconf.paths, gwconf.fileio; print('dataclasses' in sys.modules, 'inspect' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_no_gwconf_module_uses_dataclasses() -> None:
    """One record implementation in the source: a dataclass anywhere would bring inspect back."""
    from pathlib import Path

    import gwconf

    root = Path(gwconf.__file__).parent
    using = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "records.py"
        and ("from dataclasses" in p.read_text() or "import dataclasses" in p.read_text())
    ]
    assert using == []


@BOTH
def test_the_first_instance_may_be_a_wrong_call_or_a_subclass_s(kind: str) -> None:
    """records compiles ``__init__`` when the first instance is made: that call may fail, or be
    a subclass's, and the class behaves the same afterwards."""
    c = make(kind)
    with pytest.raises(TypeError):
        c["Plain"]()
    child = c["Child"]("c", 1)
    plain = c["Plain"]("p", 2, ["t"])
    assert (child.name, child.count, child.extra, plain.tags) == ("c", 1, "x", ["t"])
    with pytest.raises(TypeError):
        c["Frozen"](1, 2, 3)
    assert c["Frozen"]("p") == c["Frozen"]("p", None)


@pytest.mark.parametrize("compile_after", [0, 3, 10_000])
def test_the_shared_init_and_the_compiled_one_agree(
    compile_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class's first ``COMPILE_AFTER`` instances bind their arguments in the shared
    ``__init__``, the rest in the compiled one: each way alone, and the hand-over between them
    (3), behave as dataclasses do."""
    monkeypatch.setattr(records, "COMPILE_AFTER", compile_after)
    assert observe("records") == observe("dataclasses")
    c = make("records")
    plain = c["Plain"]
    for _ in range(5):
        made = [
            plain("a"),
            plain("a", 1, ["t"], "n", 2),
            plain(name="b", tags=records.MISSING),
            plain("c", cache=3, count=4),
        ]
        assert [(p.name, p.count, p.tags, p.note, p.cache) for p in made] == [
            ("a", 0, [], None, None),
            ("a", 1, ["t"], "n", 2),
            ("b", 0, [], None, None),
            ("c", 4, [], None, 3),
        ]
        assert made[0].tags is not made[2].tags
        assert list(vars(made[1])) == ["name", "count", "tags", "note", "cache"]
        wrongs: list[tuple[Any, ...]] = [(), ("a", 1, [], None, None, "extra")]
        for wrong in wrongs:
            with pytest.raises(TypeError):
                plain(*wrong)
        with pytest.raises(TypeError):
            plain("a", name="b")
        with pytest.raises(TypeError):
            plain("a", nope=1)
    frozen = c["Frozen"]("p", mode=1)
    assert (frozen.path, frozen.mode, list(vars(frozen))) == ("p", 1, ["path", "mode"])
    assert c["Posted"](raw="x").cooked == "X"
