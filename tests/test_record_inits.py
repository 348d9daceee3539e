"""``gwconf._record_inits`` holds every record class's ``__init__``, as ``records`` would compile it.

``records`` takes a class's ``__init__`` code from that module (from the second class a process
compiles) instead of parsing its text (issue 15). Held here: the module is what
scripts/gen-record-inits writes today (every record class has its entry), each entry's code is
the code of the text it is filed under, and a class built from it behaves as one built by ``exec``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gwconf import records
from gwconf._record_inits import CODES
from tests.scripts import load_script


def test_the_module_is_what_the_generator_writes_today() -> None:
    generator = load_script("gen-record-inits")
    texts = generator.sources()
    assert len(texts) >= 40  # every record class gwconf defines, the clients' included
    assert any("self, role, path, format" in text for text in texts)  # clients/_base.ConfigFile
    assert generator.TARGET.read_text(encoding="utf-8") == generator.render(texts), (
        "src/gwconf/_record_inits.py is stale: run .venv/bin/python scripts/gen-record-inits"
    )


_SAME = (
    "co_code",
    "co_consts",
    "co_names",
    "co_varnames",
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_nlocals",
    "co_stacksize",
    "co_flags",
    "co_exceptiontable",
    "co_freevars",
    "co_cellvars",
)


@pytest.mark.parametrize("text", sorted(CODES))
def test_each_code_is_the_code_of_its_text(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled as ``records`` compiles a text it parses (its ``exec``, its compiler flags)."""
    monkeypatch.setattr(records, "_compiles", 0)  # the first class a process compiles is parsed
    names = {f"_d{n}": None for n in range(text.count("=_d") and 64)} | {"MISSING": records.MISSING}
    parsed, kept = records._compiled_init(text, names, ()).__code__, CODES[text]
    assert {a: getattr(kept, a) for a in _SAME} == {a: getattr(parsed, a) for a in _SAME}


def test_a_class_takes_its_init_from_the_module_and_behaves_as_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defaults, factories, frozen assignment and Python's own binding errors: the same for a
    class whose ``__init__`` came from the module as for the same class parsed."""

    def make() -> type:
        @records.record(frozen=True)
        class Kept:
            role: str
            path: Path
            format: str
            secret: bool = False
            strict: bool = False
            key_store: bool = False

        @records.record
        class Listed:
            url: str
            changes: list[str] = records.field(default_factory=list)
            warnings: list[str] = records.field(default_factory=list)

        return Kept, Listed

    for kind in make():
        assert records.init_source(kind) in CODES
    monkeypatch.setattr(records, "COMPILE_AFTER", 0)  # compile at the first instance
    monkeypatch.setattr(records, "_compiles", 1)  # as if a class had been compiled already
    kept, listed = make()
    a, first = kept("config", Path("/x"), "json", strict=True), listed("u")
    assert kept.__init__.__code__ is CODES[records.init_source(kept)]
    assert listed.__init__.__code__ is CODES[records.init_source(listed)]
    monkeypatch.setattr(records, "_compiled_init", _parsed)
    parsed_kept, parsed_listed = make()
    b = parsed_kept("config", Path("/x"), "json", strict=True)
    assert kept.__init__.__code__ is not parsed_kept.__init__.__code__
    assert (a.role, a.path, a.format, a.secret, a.strict) == (b.role, b.path, b.format, b.secret, b.strict)
    assert kept.__init__.__defaults__ == parsed_kept.__init__.__defaults__ == (False, False, False)
    with pytest.raises(AttributeError):
        a.role = "other"  # type: ignore[misc]
    second = listed("u", ["c"])
    assert (first.changes, first.warnings, second.changes) == ([], [], ["c"])
    assert first.changes is not listed("u").changes  # a fresh list each time
    for args, kwargs in [((), {}), (("a", "b", "c", "d"), {}), (("u",), {"url": "v"}), (("u",), {"x": 1})]:
        got = _error(listed, args, kwargs)
        assert got is not None and got == _error(parsed_listed, args, kwargs)


def _parsed(source: str, names: dict[str, Any], defaults: tuple[Any, ...]) -> Any:
    exec(source, names)
    return names["__init__"]


def _error(kind: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    try:
        kind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    return None
