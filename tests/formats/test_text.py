"""One-value text files (llm's default_model.txt)."""

from __future__ import annotations

import pytest

from gwconf.errors import WriteRefused
from gwconf.formats import MISSING, load, verify_edit
from gwconf.formats.text import TextDocument


def edited(text: str, *ops: tuple) -> tuple[TextDocument, str]:
    doc = load("text", text, "default_model.txt")
    for name, *args in ops:
        getattr(doc, name)(*args)
    return doc, verify_edit("text", load("text", text, "default_model.txt"), doc)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("gpt-4o\n", "gpt-4o"),
        ("gpt-4o", "gpt-4o"),
        ("gpt-4o\r\n", "gpt-4o"),
        ("", None),
        ("\n", ""),
        ("a\n\n", "a\n"),
    ],
)
def test_the_value_is_the_content_without_its_line_ending(text: str, value: str | None) -> None:
    doc = load("text", text, "default_model.txt")
    assert doc.data() == value and doc.dump() == text
    assert doc.get(()) == (MISSING if value is None else value)


@pytest.mark.parametrize(
    ("text", "written"), [("", "gw/m\n"), ("old\n", "gw/m\n"), ("old\r\n", "gw/m\r\n"), ("old", "gw/m")]
)
def test_set_writes_the_value_and_the_files_line_ending(text: str, written: str) -> None:
    doc, out = edited(text, ("set", (), "gw/m"))
    assert out == written and doc.ops[0].value == "gw/m"


def test_equal_set_is_a_no_op_and_delete_empties_the_file() -> None:
    doc, out = edited("gpt-4o\n", ("set", (), "gpt-4o"))
    assert doc.ops == [] and out == "gpt-4o\n"
    doc, out = edited("gpt-4o\n", ("delete", ()))
    assert out == "" and doc.data() is None and doc.delete(()) is False


def test_other_paths_and_non_text_are_refused() -> None:
    doc = load("text", "gpt-4o\n", "default_model.txt")
    assert doc.get(("model",), "d") == "d"
    for bad in [
        lambda: doc.set(("model",), "x"),
        lambda: doc.delete(("model",)),
        lambda: doc.set((), 5),
        lambda: doc.append((), "x"),
    ]:
        with pytest.raises(WriteRefused):
            bad()
    assert doc.ops == [] and doc.dump() == "gpt-4o\n"
