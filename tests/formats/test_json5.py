"""The JSON editor's JSON5 mode (OpenClaw's openclaw.json): JSON5's own syntax survives an edit."""

from __future__ import annotations

import pytest

from gwconf import formats
from gwconf.errors import ParseError
from gwconf.formats.json import load

OPENCLAW = """// ~/.openclaw/openclaw.json
{
  // the user's own provider, single quotes and all
  models: {
    mode: 'merge',
    providers: {
      local: { baseUrl: 'http://127.0.0.1:8080/v1', apiKey: "it's mine", note: 'say "hi"\\x41\\'', },
    },
  },
  agents: { defaults: { model: { primary: 'anthropic/claude-opus-4-6' } } },
  $ids: [1, 2.5, -3e2, true, null,],
  'quoted key': "v", /* block */
}
"""


def test_data_reads_every_json5_form() -> None:
    data = load(OPENCLAW, "f", fmt="json5").data()
    assert data["models"]["providers"]["local"] == {
        "baseUrl": "http://127.0.0.1:8080/v1",
        "apiKey": "it's mine",
        "note": 'say "hi"A\'',
    }
    assert data["$ids"] == [1, 2.5, -300.0, True, None]
    assert data["quoted key"] == "v"


def test_an_edit_and_its_undo_leave_every_other_byte() -> None:
    doc = load(OPENCLAW, "f", fmt="json5")
    doc.set(
        ("models", "providers", "gwconf"),
        {"baseUrl": "http://gw/v1", "apiKey": "sk-1", "models": [{"id": "m"}]},
    )
    doc.set(("agents", "defaults", "model", "primary"), "gwconf/m")
    text = formats.verify_edit("json5", load(OPENCLAW, "f", fmt="json5"), doc)
    assert "// the user's own provider, single quotes and all" in text
    assert "note: 'say \"hi\"\\x41\\''" in text  # unquoted key, single quotes, JSON5 escapes
    assert "primary: 'gwconf/m'" in text  # a single-quoted value keeps its quotes
    assert '"gwconf": {' in text and "$ids: [1, 2.5, -3e2, true, null,]," in text
    assert "\x01" not in text
    again = load(text, "f", fmt="json5")
    assert again.data()["models"]["providers"]["gwconf"]["apiKey"] == "sk-1"
    doc.delete(("models", "providers", "gwconf"))
    doc.set(("agents", "defaults", "model", "primary"), "anthropic/claude-opus-4-6")
    assert doc.dump() == OPENCLAW


def test_a_key_given_twice_reads_as_json5_reads_it_the_last_one_counts() -> None:
    """The json5 package (OpenClaw's reader) keeps the last of two equal keys, like JSON.parse."""
    doc = load("{\n  a: 1,\n  a: 2,\n}\n", "f", fmt="json5")
    assert doc.data() == {"a": 2}
    doc.set(("a",), 3)
    assert doc.dump() == "{\n  a: 1,\n  a: 3,\n}\n"


def test_a_new_entry_follows_the_files_trailing_commas() -> None:
    doc = load("{\n  a: 1,\n}\n", "f", fmt="json5")
    doc.set(("b",), {"c": [1]})
    assert doc.dump() == '{\n  a: 1,\n  "b": {\n    "c": [\n      1,\n    ],\n  },\n}\n'


def test_strings_with_json5_escapes_read_back_the_same() -> None:
    text = "{s: '\\v\\0\\a\\u00e9\\\\', t: \"\\x7e'\"}"
    doc = load(text, "f", fmt="json5")
    assert doc.data() == {"s": "\x0b\x00a\u00e9\\", "t": "~'"}
    doc.set(("u",), 1)
    assert (
        doc.dump().startswith(text[:-1])
        and load(doc.dump(), "f", fmt="json5").data()["s"] == "\x0b\x00a\u00e9\\"
    )


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("{\n  a: 0x1F,\n}", 2, "JSON5 only"),
        ("{\n  a: +1,\n}", 2, "JSON5 only"),
        ("{\n  a: 'x\\\ny',\n}", 2, "escape"),
        ("{\n  a: 'open\n}", 2, "unterminated string"),
        ("{\n  /* never closed\n}", 2, "unterminated /* comment"),
        ("{\n  a: b,\n}", 2, "Expecting value"),
        ("{\n  a: '\x01',\n}", 2, "U+0001"),
    ],
)
def test_what_it_cannot_edit_safely_is_refused_with_its_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        load(text, "openclaw.json", fmt="json5")
    assert caught.value.line == line and reason in str(caught.value)


def test_json5_syntax_stays_refused_by_jsonc() -> None:
    with pytest.raises(ParseError):
        load("{a: 1}", "f", fmt="jsonc")


def test_a_key_given_twice_reads_as_the_last_and_is_edited_there() -> None:
    doc = load("{\n  a: 1,\n  'a': 2,\n}\n", "f", fmt="json5")
    assert doc.data() == {"a": 2}
    doc.set(("a",), 3)
    assert doc.dump() == "{\n  a: 1,\n  'a': 3,\n}\n"


def test_put_back_gives_a_value_its_own_json5_spelling_back() -> None:
    """A restore puts a value back as the JSON5 file had it: single quotes, escapes, a trailing
    comma inside an array (they came back as json.dumps spells them)."""
    original = "{\n  // mine\n  Router: {\n    default: ['ollama,qwen3:8b',],\n    n: 1.50,\n    s: 'it\\'s',\n  },\n}\n"
    before = load(original, "c.json5", fmt="json5")
    paths = [("Router", "default"), ("Router", "n"), ("Router", "s")]
    assert [before.spelling(p) for p in paths] == ["['ollama,qwen3:8b',]", "1.50", "'it\\'s'"]
    changed = (
        '{\n  LOG: true,\n  // mine\n  Router: {\n    default: "gwconf,m",\n    n: 3,\n    s: "x",\n  },\n}\n'
    )
    doc = load(changed, "c.json5", fmt="json5")
    for path in paths:
        doc.put_back(path, before.get(path), before.spelling(path) or "")
    assert formats.verify_edit("json5", load(changed, "c.json5", fmt="json5"), doc) == original.replace(
        "{\n", "{\n  LOG: true,\n", 1
    )
    doc.put_back(("Router", "n"), 2, "'two'")  # not that value: set's spelling
    assert doc.get(("Router", "n")) == 2
