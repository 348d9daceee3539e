"""The JSON / JSONC editor: surgical edits, exact errors, and a property test over random layouts.

Fixtures are hand-written copies of real files (shared/reference/formats.md 4.1): VS Code settings
(tabs, comments, trailing commas), Claude settings (strict JSON, 2 spaces), an opencode-style file
whose last member carries a comment and no comma.
"""

from __future__ import annotations

import array
import contextlib
import itertools
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, Op, checked_edit, replay, verify_edit
from gwconf.formats import json as jsonfmt
from gwconf.formats._base import changed_edit
from gwconf.formats.json import load

VSCODE = """\
// VS Code user settings
{
\t"editor.fontSize": 14, // the size I like
\t/* a block
\t   comment over two lines */
\t"http.proxy": "https://a//b",
\t"tricky": "quote \\" backslash \\\\ /* not a comment */ // nor this",
\t"emoji": "😀 中文 ключ",
\t"big": 1.0e10,
\t"files.exclude": {
\t\t"**/.git": true,
\t\t"**/node_modules": true,
\t},
\t"list": [1, 2, 3,],
\t"port": 8080, // last one, trailing comma
}
"""

VSCODE_DATA = {
    "editor.fontSize": 14,
    "http.proxy": "https://a//b",
    "tricky": 'quote " backslash \\ /* not a comment */ // nor this',
    "emoji": "😀 中文 ключ",
    "big": 1.0e10,
    "files.exclude": {"**/.git": True, "**/node_modules": True},
    "list": [1, 2, 3],
    "port": 8080,
}

CLAUDE = """\
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "env": {
    "ANTHROPIC_BASE_URL": "https://api.anthropic.com",
    "DISABLE_TELEMETRY": "1"
  },
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm run test:*)"
    ],
    "deny": []
  },
  "model": "sonnet"
}
"""

OPENCODE = """\
{
  "$schema": "https://opencode.ai/config.json",
  // the local server
  "server": {
    "host": "localhost",
    "port": 8080 // no comma here
  }
}
"""


def edited(text: str, fmt: str, *ops: tuple[Any, ...]) -> str:
    """Apply (method, *args) ops, check the write gate, return the text."""
    original = load(text, "f.json", fmt=fmt)
    doc = load(text, "f.json", fmt=fmt)
    for name, *args in ops:
        getattr(doc, name)(*args)
    return verify_edit(fmt, original, doc)


def roundtrip(text: str, fmt: str, path: tuple[Any, ...], value: Any) -> None:
    """Insert then delete of the same key gives back the original bytes."""
    doc = load(text, "f.json", fmt=fmt)
    created = next(path[:i] for i in range(1, len(path) + 1) if doc.get(path[:i]) is MISSING)
    doc.set(path, value)
    assert doc.dump() != text
    assert doc.delete(created)
    assert doc.dump() == text


# -- reading ------------------------------------------------------------------------------------


def test_vscode_settings_parse_with_comments_trailing_commas_and_tricky_strings() -> None:
    doc = load(VSCODE, "settings.json", fmt="jsonc")
    assert doc.data() == VSCODE_DATA
    assert doc.get(("tricky",)) == VSCODE_DATA["tricky"]
    assert doc.get(("files.exclude", "**/.git")) is True
    assert doc.get(("list", 1)) == 2
    assert doc.get(("list", -1)) == 3
    assert doc.get(("list", 3)) is MISSING
    assert doc.get(("missing", "deeper"), "default") == "default"
    assert doc.get(("port", "through-a-number")) is MISSING
    assert doc.get(()) == VSCODE_DATA
    assert doc.eol == "\n"
    assert doc.ops == []


def test_claude_settings_parse_strict() -> None:
    doc = load(CLAUDE, "settings.json")
    assert doc.data() == json.loads(CLAUDE)
    assert doc.get(("permissions", "allow", 0)) == "Bash(npm run lint)"


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "\r\n"])
@pytest.mark.parametrize("fmt", ["json", "jsonc"])
def test_empty_document_is_an_empty_object(text: str, fmt: str) -> None:
    doc = load(text, "f.json", fmt=fmt)
    assert doc.data() == {}
    assert doc.get(("a",)) is MISSING
    assert doc.delete(("a",)) is False
    assert doc.ops == []


# -- set ----------------------------------------------------------------------------------------


def test_set_existing_value_replaces_exactly_its_span() -> None:
    out = edited(VSCODE, "jsonc", ("set", ("editor.fontSize",), 15))
    assert out == VSCODE.replace('"editor.fontSize": 14,', '"editor.fontSize": 15,')
    out = edited(VSCODE, "jsonc", ("set", ("http.proxy",), "https://gw.example.com/v1"))
    assert out == VSCODE.replace('"https://a//b"', '"https://gw.example.com/v1"')
    out = edited(CLAUDE, "json", ("set", ("env", "ANTHROPIC_BASE_URL"), "https://gw.example.com"))
    assert out == CLAUDE.replace("https://api.anthropic.com", "https://gw.example.com")


def test_set_existing_scalar_to_object_renders_in_the_file_indent() -> None:
    out = edited(VSCODE, "jsonc", ("set", ("port",), {"a": 1, "b": [True, None]}))
    expected = VSCODE.replace(
        '"port": 8080,',
        '"port": {\n\t\t"a": 1,\n\t\t"b": [\n\t\t\ttrue,\n\t\t\tnull,\n\t\t],\n\t},',
    )
    assert out == expected


def test_nested_insert_creates_parents_in_tabs_with_trailing_commas() -> None:
    out = edited(VSCODE, "jsonc", ("set", ("provider", "gwconf", "options", "baseURL"), "https://gw/v1"))
    expected = VSCODE.replace(
        '\t"port": 8080, // last one, trailing comma\n',
        '\t"port": 8080, // last one, trailing comma\n'
        '\t"provider": {\n'
        '\t\t"gwconf": {\n'
        '\t\t\t"options": {\n'
        '\t\t\t\t"baseURL": "https://gw/v1",\n'
        "\t\t\t},\n"
        "\t\t},\n"
        "\t},\n",
    )
    assert out == expected


def test_insert_into_strict_file_stays_strict() -> None:
    out = edited(CLAUDE, "json", ("set", ("env", "ANTHROPIC_AUTH_TOKEN"), "sk-XXXX"))
    expected = CLAUDE.replace(
        '"DISABLE_TELEMETRY": "1"\n',
        '"DISABLE_TELEMETRY": "1",\n    "ANTHROPIC_AUTH_TOKEN": "sk-XXXX"\n',
    )
    assert out == expected
    json.loads(out)  # no comment, no trailing comma
    out = edited(CLAUDE, "json", ("set", ("hooks", "x"), {"y": [1]}))
    assert out.endswith(
        '  "model": "sonnet",\n  "hooks": {\n    "x": {\n      "y": [\n        1\n      ]\n    }\n  }\n}\n'
    )
    json.loads(out)


def test_insert_after_a_last_member_keeps_its_comment_in_place() -> None:
    out = edited(OPENCODE, "jsonc", ("set", ("server", "tls"), True))
    assert out == OPENCODE.replace(
        '"port": 8080 // no comma here\n', '"port": 8080, // no comma here\n    "tls": true\n'
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', '{"a": 1, "k": [1, {"x": null}]}'),
        ('{"a":1}', '{"a":1,"k":[1,{"x":null}]}'),
        ('{ "a": 1, "b": 2 }', '{ "a": 1, "b": 2, "k": [1, {"x": null}] }'),
        ('{"a": 1,}', '{"a": 1, "k": [1, {"x": null}],}'),
        ('{"a": 1 /* c */}', '{"a": 1, "k": [1, {"x": null}] /* c */}'),
    ],
)
def test_single_line_object_gets_an_inline_insert(text: str, expected: str) -> None:
    fmt = "jsonc" if "/*" in text or ",}" in text else "json"
    assert edited(text, fmt, ("set", ("k",), [1, {"x": None}])) == expected
    roundtrip(text, fmt, ("k",), [1, {"x": None}])


def test_empty_object_expands() -> None:
    text = '{\n  "env": {},\n  "b": 1\n}\n'
    out = edited(text, "json", ("set", ("env", "KEY"), "v"))
    assert out == '{\n  "env": {\n    "KEY": "v"\n  },\n  "b": 1\n}\n'
    roundtrip(text, "json", ("env", "KEY"), "v")


def test_empty_object_in_a_one_line_object_gets_an_inline_insert() -> None:
    assert edited('{"env": {}, "b": []}', "json", ("set", ("env", "K"), {"x": 1})) == (
        '{"env": {"K": {"x": 1}}, "b": []}'
    )
    assert (
        edited('{"env": {}, "b": []}', "json", ("append", ("b",), {"x": 1})) == '{"env": {}, "b": [{"x": 1}]}'
    )
    assert edited("{}", "json", ("set", ("a",), 1)) == '{\n  "a": 1\n}'


def test_empty_object_with_a_comment_inside_keeps_the_comment() -> None:
    text = '{\n\t"env": {\n\t\t// nothing yet\n\t},\n}\n'
    out = edited(text, "jsonc", ("set", ("env", "KEY"), "v"))
    assert out == '{\n\t"env": {\n\t\t// nothing yet\n\t\t"KEY": "v",\n\t},\n}\n'


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
@pytest.mark.parametrize(("text", "eol"), [("", "\n"), ("  \n", "\n"), ("\r\n", "\r\n")])
def test_first_set_on_an_empty_document_creates_the_object(fmt: str, text: str, eol: str) -> None:
    out = edited(text, fmt, ("set", ("provider", "url"), "https://gw"))
    assert out == '{\n  "provider": {\n    "url": "https://gw"\n  }\n}\n'.replace("\n", eol)


def test_first_set_on_a_comment_only_jsonc_file_keeps_the_comment() -> None:
    assert edited("// my settings\n", "jsonc", ("set", ("a",), 1)) == '// my settings\n{\n  "a": 1\n}\n'


def test_indent_unit_is_detected() -> None:
    four = '{\n    "a": {\n        "b": 1\n    }\n}\n'
    assert edited(four, "json", ("set", ("a", "c", "d"), 2)) == (
        '{\n    "a": {\n        "b": 1,\n        "c": {\n            "d": 2\n        }\n    }\n}\n'
    )


def test_set_equal_value_is_a_no_op() -> None:
    doc = load(VSCODE, "f", fmt="jsonc")
    doc.set(("editor.fontSize",), 14)
    doc.set(("files.exclude",), {"**/node_modules": True, "**/.git": True})  # order does not matter
    doc.set(("big",), 1.0e10)
    assert doc.ops == []
    assert doc.dump() is VSCODE


def test_set_tells_int_float_and_bool_apart() -> None:
    doc = load('{"a": 1, "b": 1}', "f")
    doc.set(("a",), True)
    doc.set(("b",), 1.0)
    assert doc.dump() == '{"a": true, "b": 1.0}'
    assert doc.ops == [Op("set", ("a",), True), Op("set", ("b",), 1.0)]


def test_ops_are_recorded_only_for_changes_with_normalised_paths() -> None:
    doc = load(CLAUDE, "f")
    doc.set(("model",), "sonnet")
    assert doc.delete(("nope",)) is False
    assert doc.delete(("env", "nope", "deeper")) is False
    doc.set(("permissions", "allow", -1), "Bash(ls)")
    assert doc.append(("permissions", "deny"), "Read(.env)") == 0
    assert doc.delete(("env", "DISABLE_TELEMETRY")) is True
    assert doc.ops == [
        Op("set", ("permissions", "allow", 1), "Bash(ls)"),
        Op("append", ("permissions", "deny"), "Read(.env)"),
        Op("delete", ("env", "DISABLE_TELEMETRY")),
    ]
    verify_edit("json", load(CLAUDE, "f"), doc)


def test_data_reflects_edits() -> None:
    doc = load(CLAUDE, "f")
    assert doc.data()["model"] == "sonnet"
    doc.set(("model",), "opus")
    assert doc.data()["model"] == "opus"
    doc.delete(("model",))
    assert "model" not in doc.data()
    assert doc.get(("model",)) is MISSING


def test_op_values_are_copies() -> None:
    value = {"a": [1]}
    doc = load("{}", "f")
    doc.set(("x",), value)
    value["a"].append(2)
    assert doc.ops[0].value == {"a": [1]}
    assert doc.data() == {"x": {"a": [1]}}


# -- delete -------------------------------------------------------------------------------------


def test_delete_first_middle_last_in_jsonc_with_trailing_commas() -> None:
    first = edited(VSCODE, "jsonc", ("delete", ("editor.fontSize",)))
    assert first == VSCODE.replace('\t"editor.fontSize": 14, // the size I like\n', "")
    middle = edited(VSCODE, "jsonc", ("delete", ("files.exclude",)))
    assert middle == VSCODE.replace(
        '\t"files.exclude": {\n\t\t"**/.git": true,\n\t\t"**/node_modules": true,\n\t},\n', ""
    )
    last = edited(VSCODE, "jsonc", ("delete", ("port",)))
    assert last == VSCODE.replace('\t"port": 8080, // last one, trailing comma\n', "")
    nested_last = edited(VSCODE, "jsonc", ("delete", ("files.exclude", "**/node_modules")))
    assert nested_last == VSCODE.replace('\t\t"**/node_modules": true,\n', "")


def test_delete_first_middle_last_in_strict_json() -> None:
    assert edited(CLAUDE, "json", ("delete", ("$schema",))) == CLAUDE.replace(
        '  "$schema": "https://json.schemastore.org/claude-code-settings.json",\n', ""
    )
    assert edited(CLAUDE, "json", ("delete", ("env",))) == CLAUDE.replace(
        '  "env": {\n    "ANTHROPIC_BASE_URL": "https://api.anthropic.com",\n    "DISABLE_TELEMETRY": "1"\n  },\n',
        "",
    )
    last = edited(CLAUDE, "json", ("delete", ("model",)))
    assert last == CLAUDE.replace('  },\n  "model": "sonnet"\n', "  }\n")
    json.loads(last)
    only = edited(
        CLAUDE, "json", ("delete", ("env", "ANTHROPIC_BASE_URL")), ("delete", ("env", "DISABLE_TELEMETRY"))
    )
    assert '"env": {},' in only


def test_delete_last_member_keeps_the_comment_of_the_previous_line() -> None:
    text = '{\n  "a": 1, // about a\n  "b": 2\n}\n'
    assert edited(text, "jsonc", ("delete", ("b",))) == '{\n  "a": 1 // about a\n}\n'


def test_delete_keeps_a_comment_block_above_the_member() -> None:
    text = '{\n  "a": 1,\n  // about b\n  "b": 2, // same line\n  "c": 3\n}\n'
    assert edited(text, "jsonc", ("delete", ("b",))) == '{\n  "a": 1,\n  // about b\n  "c": 3\n}\n'


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ('{"a": 1, "b": 2, "c": 3}', ("b",), '{"a": 1, "c": 3}'),
        ('{"a": 1, "b": 2, "c": 3}', ("a",), '{"b": 2, "c": 3}'),
        ('{"a": 1, "b": 2, "c": 3}', ("c",), '{"a": 1, "b": 2}'),
        ('{"a": 1}', ("a",), "{}"),
        ("[1, 2, 3]", (0,), "[2, 3]"),
        ("[1, 2, 3]", (2,), "[1, 2]"),
        ("[1, 2, 3]", (-2,), "[1, 3]"),
        ('{"a": 1,\n "b": 2}', ("a",), '{\n "b": 2}'),
        ('{\n  "a": 1,\n  "b": 2 }', ("b",), '{\n  "a": 1 }'),
    ],
)
def test_delete_inline_members(text: str, path: tuple[Any, ...], expected: str) -> None:
    assert edited(text, "json", ("delete", path)) == expected


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ('{\n  "a": 1, "b": 2,\n  "c": 3\n}', ("b",), '{\n  "a": 1,\n  "c": 3\n}'),
        ('{\n  "a": 1, "b": 2\n}', ("a",), '{\n  "b": 2\n}'),
        ('{\n  "a": 1, "b": 2\n}', ("b",), '{\n  "a": 1\n}'),
    ],
)
def test_delete_members_sharing_a_line_in_a_multi_line_object(
    text: str, path: tuple[Any, ...], expected: str
) -> None:
    assert edited(text, "json", ("delete", path)) == expected


def test_insert_when_the_closing_brace_follows_the_last_member() -> None:
    text = '{\n  "a": 1 }'
    assert edited(text, "json", ("set", ("b",), 2)) == '{\n  "a": 1,\n  "b": 2 }'
    roundtrip(text, "json", ("b",), 2)
    text = '{\n  "a": 1, }'
    assert edited(text, "jsonc", ("set", ("b",), 2)) == '{\n  "a": 1,\n  "b": 2, }'
    roundtrip(text, "jsonc", ("b",), 2)


def test_top_level_array() -> None:
    doc = load("[1, 2]\n", "f")
    assert doc.append((), 3) == 2
    assert doc.dump() == "[1, 2, 3]\n"
    with pytest.raises(ParseError, match="expected an object at the top"):
        doc.append(("k",), 1)
    with pytest.raises(ParseError, match="expected an array at the top"):
        load("{}", "f").set((0,), 1)
    with pytest.raises(WriteRefused, match="cannot append to an empty file"):
        load("", "f").append((), 1)


def test_set_the_whole_document() -> None:
    assert edited('{"b": 2}\n', "json", ("set", (), {"a": 1})) == '{\n  "a": 1\n}\n'
    assert edited("", "json", ("set", (), {"a": 1})) == '{\n  "a": 1\n}\n'
    doc = load('{"b": 2}', "f")
    doc.set((), {"b": 2})
    assert doc.ops == []


def test_delete_refuses_the_whole_document() -> None:
    with pytest.raises(ValueError):
        load("{}", "f").delete(())


# -- arrays -------------------------------------------------------------------------------------


def test_arrays_by_index() -> None:
    out = edited(CLAUDE, "json", ("set", ("permissions", "allow", 0), "Bash(make)"))
    assert out == CLAUDE.replace("Bash(npm run lint)", "Bash(make)")
    out = edited(CLAUDE, "json", ("delete", ("permissions", "allow", 1)))
    assert out == CLAUDE.replace(
        '"Bash(npm run lint)",\n      "Bash(npm run test:*)"', '"Bash(npm run lint)"'
    )
    out = edited(CLAUDE, "json", ("delete", ("permissions", "allow", 0)))
    assert out == CLAUDE.replace('      "Bash(npm run lint)",\n', "")
    out = edited(VSCODE, "jsonc", ("set", ("list", 1), {"x": 1}))
    assert '"list": [1, {"x": 1}, 3,],' in out


def test_append() -> None:
    doc = load(CLAUDE, "f")
    assert doc.append(("permissions", "allow"), "Bash(ls)") == 2
    assert doc.append(("permissions", "deny"), "Read(.env)") == 0
    assert doc.append(("permissions", "ask"), {"tool": "x"}) == 0
    out = verify_edit("json", load(CLAUDE, "f"), doc)
    assert '"Bash(npm run test:*)",\n      "Bash(ls)"\n    ],' in out
    assert '"deny": ["Read(.env)"],' in out
    assert out.endswith(
        '"deny": ["Read(.env)"],\n    "ask": [\n      {\n        "tool": "x"\n      }\n    ]\n  },\n  "model": "sonnet"\n}\n'
    )
    assert edited(VSCODE, "jsonc", ("append", ("list",), 4)).count('"list": [1, 2, 3, 4,],') == 1
    doc = load(VSCODE, "f", fmt="jsonc")
    doc.append(("list",), 4)
    doc.delete(("list", 3))
    assert doc.dump() == VSCODE


def test_append_to_a_non_array_is_refused() -> None:
    with pytest.raises(
        WriteRefused, match=r"f\.json:14:12: cannot append to model: model is a string, not an array"
    ):
        load(CLAUDE, "f.json").append(("model",), "x")


# -- roundtrips ---------------------------------------------------------------------------------

CRLF = CLAUDE.replace("\n", "\r\n")
TABS_NO_TRAILING = '{\n\t"a": {\n\t\t"b": 1 /* why */\n\t},\n\t"c": [\n\t\t1\n\t] // end\n}'


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (VSCODE, "jsonc"),
        (CLAUDE, "json"),
        (CRLF, "json"),
        (VSCODE.replace("\n", "\r\n"), "jsonc"),
        (OPENCODE, "jsonc"),
        (TABS_NO_TRAILING, "jsonc"),
        ('{"a": 1}', "json"),
        ('{"a": {"b": [1, 2]}}', "json"),
        ('{\n  "a": {}\n}', "json"),
        ('{"a": {}, "b": []}', "json"),
    ],
)
def test_insert_then_delete_gives_back_the_original_bytes(text: str, fmt: str) -> None:
    data = load(text, "f", fmt=fmt).data()
    for key, value in data.items():
        if isinstance(value, dict):
            roundtrip(text, fmt, (key, "gwconf-new"), {"x": [1, "y"]})
        if isinstance(value, list):
            doc = load(text, "f", fmt=fmt)
            index = doc.append((key,), {"m": 1})
            assert doc.delete((key, index))
            assert doc.dump() == text
    roundtrip(text, fmt, ("gwconf-new",), "v")
    roundtrip(text, fmt, ("gwconf-new", "deep", "er"), [1])


def test_crlf_files_get_no_bare_lf() -> None:
    doc = load(CRLF, "f")
    assert doc.eol == "\r\n"
    doc.set(("env", "NEW"), {"nested": [1, 2]})
    doc.set(("gwconf", "a", "b"), "c")
    doc.append(("permissions", "allow"), "x")
    doc.set(("model",), {"name": "x"})
    doc.delete(("$schema",))
    out = verify_edit("json", load(CRLF, "f"), doc)
    assert out.count("\n") == out.count("\r\n")


# -- errors -------------------------------------------------------------------------------------


def parse_error(text: str, fmt: str = "json") -> ParseError:
    with pytest.raises(ParseError) as info:
        load(text, "cfg.json", fmt=fmt)
    return info.value


@pytest.mark.parametrize(
    ("text", "fmt", "line", "column", "message"),
    [
        ('{"a" 1}', "json", 1, 6, "expected ':' after the key"),
        (
            '{\n  "a": 1\n  "b": 2\n}',
            "json",
            3,
            3,
            "expected ',' here: is a comma missing between two entries?",
        ),
        (
            '{\n\t// c\n\t"a": 1 "b"\n}',
            "jsonc",
            3,
            9,
            "expected ',' here: is a comma missing between two entries?",
        ),
        (
            '{\n  // a comment\n  "a": 1\n}',
            "json",
            2,
            3,
            "comments are not allowed in this file (plain JSON)",
        ),
        ('{"a": 1 /* c */}', "json", 1, 9, "comments are not allowed in this file (plain JSON)"),
        ('{"a": [1,\n 2,\n]}', "json", 2, 3, "trailing commas are not allowed in this file (plain JSON)"),
        ('{"a": 1, /* never closed', "jsonc", 1, 10, "unterminated /* comment"),
        ('{"a": 1, /* never closed', "json", 1, 10, "comments are not allowed in this file (plain JSON)"),
        ('{"a": "x}', "jsonc", 1, 7, "a string whose closing quote is missing"),
        ('{"a": NaN}', "json", 1, 7, "NaN is not valid JSON"),
        ('{"a": -Infinity}', "jsonc", 1, 7, "-Infinity is not valid JSON"),
        ('{"a": 1} x', "json", 1, 10, "more text after the end of the JSON value (one '}' too many?)"),
        ('{"a": "tab\there"}', "json", 1, 11, "a tab inside a string: JSON writes it as \\t"),
        (
            '{\n  "p": "pasted\nlines"\n}',
            "json",
            2,
            15,
            "a line break inside a string: JSON writes it as \\n",
        ),
        ('{"a": "\x01"}', "jsonc", 1, 8, "character U+0001 inside a string: JSON writes it as \\u0001"),
        ("{'a': 1}", "json", 1, 2, "a key in single quotes: JSON needs double quotes"),
        ("{\"a\": 'x'}", "jsonc", 1, 7, "a string in single quotes: JSON needs double quotes"),
        ("{\n  model: 1\n}", "json", 2, 3, "a key without quotes: JSON needs double quotes around it"),
        (
            '{\n  "a": 1,\n',
            "jsonc",
            3,
            1,
            "the file ends before the JSON value does (a closing '}' or ']' missing?)",
        ),
        ('{"a": ', "json", 1, 7, "the file ends before the JSON value does (a closing '}' or ']' missing?)"),
        (
            '{"a": ,}',
            "jsonc",
            1,
            7,
            "a value is missing here (a comma too many, or a key with nothing after its ':'?)",
        ),
        ('{"a": 1,, "b": 2}', "jsonc", 1, 9, "a comma with no entry before it (two commas in a row?)"),
        ('{"a" 1}', "jsonc", 1, 6, "expected ':' after the key"),
        ("{,}", "jsonc", 1, 2, "a comma with no entry before it (two commas in a row?)"),
    ],
)
def test_parse_errors_have_exact_line_and_column(
    text: str, fmt: str, line: int, column: int, message: str
) -> None:
    error = parse_error(text, fmt)
    assert (error.line, error.column, error.reason) == (line, column, message)
    assert str(error).startswith(f"cfg.json:{line}:{column}: {message}")


@pytest.mark.parametrize(
    ("text", "fmt", "path", "value", "expected"),
    [
        ('{"a": 1, "a": 2}', "json", ("a",), 3, '{"a": 1, "a": 3}'),
        (
            '{\n\t"x": {"a": 1},\n\t"y": {\n\t\t"a": 1, // c\n\t\t"a": 2,\n\t},\n}',
            "jsonc",
            ("y", "a"),
            3,
            '{\n\t"x": {"a": 1},\n\t"y": {\n\t\t"a": 1, // c\n\t\t"a": 3,\n\t},\n}',
        ),
        (
            '[{"k": {"ключ": 1, "b": {}, "ключ": 2}}]',
            "json",
            (0, "k", "ключ"),
            "v",
            '[{"k": {"ключ": 1, "b": {}, "ключ": "v"}}]',
        ),
        (  # the parent itself twice: the path goes through the last one
            '{\n  "env": {"A": "1"},\n  "env": {"A": "2"}\n}\n',
            "json",
            ("env", "B"),
            "b",
            '{\n  "env": {"A": "1"},\n  "env": {"A": "2", "B": "b"}\n}\n',
        ),
    ],
)
def test_duplicate_keys_read_and_edit_the_last_one(
    text: str, fmt: str, path: tuple, value: Any, expected: str
) -> None:
    """Every reader the clients use (JSON.parse, jsonc-parser, Python's json, Go) keeps the last
    of two equal keys: gwconf reads the same, edits that one and leaves the other untouched."""
    original = jsonfmt.load(text, "f.json", fmt=fmt)
    assert original.data() == json.loads(jsonfmt._mask(text)[0])  # what Python's json keeps
    doc = jsonfmt.load(text, "f.json", fmt=fmt)
    doc.set(path, value)
    assert doc.dump() == expected
    assert verify_edit(fmt, original, doc) == expected
    assert any("the last one counts; gwconf edited that one" in note for note in doc.notes), doc.notes


def test_duplicate_keys_are_read_as_the_last_one() -> None:
    text = '{"a": 1, "b": {"c": 1, "c": [2]}, "a": {"x": true}}'
    doc = jsonfmt.load(text, "f.json", fmt="json")
    assert doc.data() == json.loads(text) == {"a": {"x": True}, "b": {"c": [2]}}
    assert doc.get(("a", "x")) is True and doc.get(("b", "c", 0)) == 2
    assert doc.notes == []  # reading says nothing


def test_deleting_a_duplicate_key_removes_every_occurrence() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}\n'
    original = jsonfmt.load(text, "f.json", fmt="jsonc")
    doc = jsonfmt.load(text, "f.json", fmt="jsonc")
    assert doc.delete(("a",))
    assert doc.dump() == '{\n  "b": 2\n}\n'
    assert verify_edit("jsonc", original, doc) == doc.dump()
    assert doc.notes == [
        "f.json: duplicate key a at lines 2 and 4: gwconf removed every one of them, so that no reader "
        "still sees the key"
    ]


def test_an_unchanged_duplicate_key_says_nothing() -> None:
    doc = jsonfmt.load('{"a": 1, "a": 2}', "f.json", fmt="json")
    doc.set(("a",), 2)
    assert doc.ops == [] and doc.notes == []


def test_duplicate_keys_in_big_files_are_read_too() -> None:
    body = ",\n".join(f'  "k{i}": {{"v": [{i}, "x"]}}' for i in range(20000))
    text = "{\n" + body + ',\n  "k7": 1\n}\n'
    assert len(text) > 1 << 18  # big files once took another path (validated without their data)
    original = jsonfmt.load(text, "f.json", fmt="json")
    assert original.get(("k7",)) == 1
    doc = jsonfmt.load(text, "f.json", fmt="json")
    doc.set(("k7",), 2)
    assert doc.dump() == text.replace('"k7": 1', '"k7": 2')
    assert verify_edit("json", original, doc) == doc.dump()


def test_every_line_of_a_key_set_many_times_over_is_noted() -> None:
    """The lines are counted once, from one start to the next: over a comment that breaks a
    line, a blank line, CRLF and LF, and a nested key of the same name (not the one edited)."""
    text = '{\r\n  "a": 1, /* two\r\n lines */ "a": 2,\r\n\r\n  "b": {"a": 0},\n  "a": 3\r\n}'
    doc = jsonfmt.load(text, "f.json", fmt="jsonc")
    doc.set(("a",), 4)
    assert doc.dump() == text.replace('"a": 3', '"a": 4')
    assert doc.notes == [
        "f.json: duplicate key a at lines 2, 3 and 6: the last one counts; gwconf edited that one (line 6)"
    ]


@pytest.mark.parametrize(
    ("text", "fmt", "path", "expected", "lines"),
    [
        (
            '{\n  "a": 1,\n  "a": 2,\n  "b": 3,\n  "a": 4\n}\n',
            "jsonc",
            ("a",),
            '{\n  "b": 3\n}\n',
            "2, 3 and 5",
        ),
        (
            '{\r\n\t"a": 1, // one\r\n\t// about the second\r\n\t"a": 2,\r\n\t"b": 3,\r\n\t"a": 4, /* four */\r\n}\r\n',
            "jsonc",
            ("a",),
            '{\r\n\t// about the second\r\n\t"b": 3,\r\n}\r\n',
            "2, 4 and 6",
        ),
        ('{"a": 1, "b": 2, "a": 3, "a": 4,}', "jsonc", ("a",), '{"b": 2,}', "1, 1 and 1"),
        ('{"a": 1, /* x */ "a": 2}', "jsonc", ("a",), "{}", "1 and 1"),
        (  # the object holding the key twice is itself the last of two
            '{\n  "x": {\n    "k": 1,\n    "k": {"k": 2, "k": 3},\n    "y": 0,\n    "k": 4,\n  },\n'
            '  "x": {"k": 5, "k": 6}\n}\n',
            "jsonc",
            ("x", "k"),
            '{\n  "x": {\n    "k": 1,\n    "k": {"k": 2, "k": 3},\n    "y": 0,\n    "k": 4,\n  },\n  "x": {}\n}\n',
            "8 and 8",
        ),
        (
            '{\n  "a": 1, "a": 2,\n  "b": 3,\n  "a": 4, "c": 5\n}\n',
            "json",
            ("a",),
            '{\n  "b": 3,\n  "c": 5\n}\n',
            "2, 2 and 4",
        ),
        (
            "{\n  a: 1,\n  'a': 2,\n  b: 3,\n  \"a\": 4,\n}\n",
            "json5",
            ("a",),
            "{\n  b: 3,\n}\n",
            "2, 3 and 5",
        ),
    ],
)
def test_a_key_many_times_over_is_deleted_everywhere(
    text: str, fmt: str, path: tuple[str, ...], expected: str, lines: str
) -> None:
    """Every copy goes, each cut as deleting it alone would cut it (the last first), in one
    splice of the text: the bytes are the ones the removals one at a time gave."""
    original = jsonfmt.load(text, "f.json", fmt=fmt)
    doc = jsonfmt.load(text, "f.json", fmt=fmt)
    assert doc.delete(path)
    assert doc.dump() == expected
    assert verify_edit(fmt, original, doc) == expected
    assert doc.notes[-1] == (
        f"f.json: duplicate key {'.'.join(path)} at lines {lines}: gwconf removed every one of them, "
        "so that no reader still sees the key"
    )


def test_deleting_an_array_item_in_a_file_with_a_key_twice_deletes_that_item_only() -> None:
    """Only an object's key can be there twice: an index is removed once (a file with a key
    twice anywhere once lost every item from that index on, and the write gate refused it)."""
    text = '{"a": 1, "a": 2, "list": [1, 2, 3, 4]}\n'
    for index, expected in ((1, "[1, 3, 4]"), (-1, "[1, 2, 3]")):
        assert edited(text, "jsonc", ("delete", ("list", index))) == text.replace("[1, 2, 3, 4]", expected)


_DUP_GAPS = [
    "",
    " ",
    "\n  ",
    "\r\n\t",
    " /* c */ ",
    "\n  // note\n  ",
    " // a, b\n",
    "\n\n  ",
    " /* a\n  b, } */\n  ",  # a comment over two lines, holding a comma and a brace
    "\r\n  // n\r\n  // m\r\n  ",
]
_DUP_VALUES = ["1", "12", '"s"', "true", "[1, 2]", "{}", '{"a": 1, "a": 2}']


@st.composite
def _dup_object(draw: st.DrawFn, depth: int = 0) -> str:
    """A JSONC object whose members repeat a few keys, with comments, blank lines, CRLF and a
    trailing comma anywhere between them."""
    count = draw(st.integers(0 if depth else 1, 8))
    gap = st.sampled_from(_DUP_GAPS)
    out = "{"
    for n in range(count):
        key = draw(st.sampled_from(["a", "a", "b"]))
        value = (
            draw(_dup_object(depth + 1))
            if depth < 1 and draw(st.booleans())
            else draw(st.sampled_from(_DUP_VALUES))
        )
        comma = "," if n < count - 1 or draw(st.booleans()) else ""
        out += draw(gap) + f'"{key}":{draw(st.sampled_from([" ", ""]))}{value}' + draw(gap) + comma
    return out + draw(gap) + "}"


def _deleted_one_at_a_time(doc: jsonfmt.JsonDocument, path: tuple[str, ...]) -> None:
    """Every copy of the key, removed as before ``_remove_every``: the last, then the one that
    is last now, walking the object again after each splice."""
    _, _, start, _, _ = doc._descend(path[:-1], "edit")
    found = doc._siblings(start, path[-1])
    while found is not None:
        doc._remove(start, *found)
        found = doc._siblings(start, path[-1])
    doc.ops.append(Op("delete", path))


@given(_dup_object(), st.sampled_from([("a",), ("b",), ("a", "a"), ("b", "a")]), st.booleans())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_deleting_every_copy_at_once_cuts_as_one_at_a_time(
    text: str, path: tuple[str, ...], spans: bool
) -> None:
    """``_remove_every``'s removals in small copies of the text, spliced once, against the
    removals made one at a time in the whole text: the same text, the same edits for the
    write gate, and children it remembers that a fresh walk finds; with the mask kept whole
    and kept as its blanked spans."""
    with _spans_kept() if spans else contextlib.nullcontext():
        doc = load(text, "f.json", fmt="jsonc")
        slow = load(text, "f.json", fmt="jsonc")
    original = load(text, "f.json", fmt="jsonc")
    if not isinstance(original.get(path[:-1]), dict) or original.get(path) is MISSING:
        return
    assert doc.delete(path)
    _deleted_one_at_a_time(slow, path)
    assert doc.dump() == slow.dump()
    assert doc.edits == slow.edits
    assert doc._masked == slow._masked
    _check_known(doc, True)
    assert _gate(original, doc) == _gate(original, slow)  # ('{"a": 1\n  ,}' is refused either way)


def _gate(original: jsonfmt.JsonDocument, doc: jsonfmt.JsonDocument) -> str:
    try:
        return verify_edit("jsonc", original, doc)
    except WriteRefused as refused:
        return f"refused: {refused}"


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deep_nesting_is_a_parse_error_not_a_crash(fmt: str, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    error = parse_error(opener * 10_000 + "1" + closer * 10_000, fmt)
    assert "nested more than" in error.reason
    assert error.line == 1


def test_top_level_must_be_an_object_to_set_a_key() -> None:
    doc = load('\n  ["a", "b"]\n', "cfg.json")
    assert doc.get(("a",)) is MISSING
    assert doc.get((0,)) == "a"
    with pytest.raises(ParseError) as info:
        doc.set(("a",), 1)
    assert (info.value.line, info.value.column, info.value.reason) == (2, 3, "expected an object at the top")
    with pytest.raises(ParseError, match="expected an object at the top"):
        load('"just a string"', "cfg.json").set(("a", "b"), 1)
    assert doc.ops == []


def test_set_through_a_non_object_is_refused_naming_the_file_and_path() -> None:
    doc = load(CLAUDE, "~/.claude/settings.json")
    with pytest.raises(WriteRefused) as info:
        doc.set(("model", "name"), "x")
    assert str(info.value) == (
        "~/.claude/settings.json:14:12: cannot set model.name: model is a string, not an object"
    )
    edited = load(CLAUDE, "~/.claude/settings.json")
    edited.set(("env", "ADDED"), "1")  # a line of gwconf's above it now: the line is still the file's
    assert edited.dump().splitlines()[14].startswith('  "model"')  # (line 15 of the text now)
    with pytest.raises(WriteRefused, match=r"^~/\.claude/settings\.json:14:12: cannot set model\.name"):
        edited.set(("model", "name"), "x")
    with pytest.raises(
        WriteRefused, match=r"cannot set permissions\.allow\.x: permissions\.allow is an array"
    ):
        doc.set(("permissions", "allow", "x"), 1)
    with pytest.raises(WriteRefused, match=r'cannot set env\["A.B"\]\[0\]: env\["A.B"\] is a number'):
        load('{"env": {"A.B": 1}}', "f").set(("env", "A.B", 0), 1)
    with pytest.raises(WriteRefused, match=r"index 5 is out of range \(permissions\.allow has 2 items\)"):
        doc.set(("permissions", "allow", 5), "x")
    with pytest.raises(WriteRefused, match="creates objects, not array items"):
        doc.set(("new", 0), "x")
    assert doc.ops == []
    assert doc.dump() is CLAUDE


@pytest.mark.parametrize("value", [(1, 2), {1: "a"}, {"a": {1, 2}}, object()])
def test_values_json_cannot_hold_are_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        load("{}", "f").set(("a",), value)


def test_nan_values_are_refused() -> None:
    with pytest.raises(ValueError):
        load("{}", "f").set(("a",), [float("nan")])


def test_bad_path_parts_are_refused() -> None:
    with pytest.raises(TypeError):
        load("{}", "f").get((True,))


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError):
        load("{}", "f", fmt="hjson")


# -- scanning stays linear ----------------------------------------------------------------------

PATHOLOGICAL = [
    "[" + "1, /* x */ " * 20_000 + "1]",
    "[" + "1, // x\n" * 20_000 + "1]",
    '{"a": "' + "//" * 50_000 + '", "b": "' + "/*" * 50_000 + '"}',
    "{/*" + "*" * 100_000 + "*/}",
    "{/*" + "a/*" * 50_000 + "*a/" * 50_000 + "*/}",
    "[" + '"\\"", ' * 20_000 + "1]",
]


@pytest.mark.parametrize("text", PATHOLOGICAL)
def test_long_comments_and_strings_scan_in_linear_time(text: str) -> None:
    """The lazy block-comment regex took 62 s on 1 MB (shared/reference/formats.md 4.3); these would hang."""
    assert load(text, "f", fmt="jsonc").data() == json.loads(jsonfmt._mask(text)[0])
    assert _outcome(jsonfmt._mask(text)) == _outcome(jsonfmt._mask_spans(text, jsonfmt._find_masks(text)))


def test_unterminated_comment_after_a_long_text_is_found() -> None:
    text = '{"a": 1, ' + '"k": "v", ' * 10_000 + "/*" + " x" * 100_000
    error = parse_error(text, "jsonc")
    assert error.reason == "unterminated /* comment"


@pytest.mark.parametrize("text", ["[/* a *//* b */ 1]", "[1 /*a*//*", "[1, //a\r,\n]"])
def test_comments_that_touch_are_read_alike(text: str) -> None:
    """Python 3.10's scanner once read "*//*" as a line comment and missed the second one."""
    assert _outcome(jsonfmt._mask(text)) == _outcome(jsonfmt._mask_spans(text, jsonfmt._find_masks(text)))


def _outcome(masked: tuple[str, bool, int]) -> tuple[Any, ...]:
    text, trailing, unterminated = masked
    if unterminated >= 0:
        return ("unterminated", unterminated)
    try:
        data = json.loads(text, object_pairs_hook=list)
    except json.JSONDecodeError as exc:
        return ("error", exc.pos, exc.msg)
    return ("ok", data, trailing)


@given(st.text(alphabet=list('ab1/*",\\\n\r }]{[: '), max_size=60))
@settings(max_examples=400, deadline=None)
def test_one_regex_masks_as_the_span_scanner_does(text: str) -> None:
    """_mask (one regex) reads every text as the reference scanner does: same data, same
    trailing commas, or the same first error at the same place."""
    fast = jsonfmt._mask(text)
    reference = jsonfmt._mask_spans(text, jsonfmt._find_masks(text))
    assert _outcome(fast) == _outcome(reference)
    assert len(fast[0]) == len(text)


@pytest.mark.parametrize(
    "text",
    ["[,]", "{ /* c */ , }", " ,]", '{"a":,}', "[1,,]", "[1, // c\n , ]", '{"a": [1,], "b": {,}}'],
)
def test_a_comma_after_an_opener_is_never_masked_as_trailing(text: str) -> None:
    with pytest.raises(ParseError):
        load(text, "f", fmt="jsonc")


# -- property test: random layouts, random edits -------------------------------------------------

KEYS = ["a", "b", "c", "url", "https://x//y", "/* k */", "ключ", "键", "😀", 'q"uote', "back\\slash", "k,}"]
STRINGS = st.text(alphabet=list('ab/*",\\}] \n\t😀中'), max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | STRINGS
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=10,
)
DOCUMENTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6)


class Renderer:
    """Writes a document in a random layout and records where every value sits."""

    def __init__(self, rnd: random.Random, jsonc: bool, eol: str, unit: str) -> None:
        self.rnd, self.jsonc, self.eol, self.unit = rnd, jsonc, eol, unit
        self.parts: list[str] = []
        self.pos = 0
        self.spans: dict[tuple[Any, ...], tuple[int, int, int]] = {}  # path -> (child start, start, end)

    def write(self, piece: str) -> None:
        self.parts.append(piece)
        self.pos += len(piece)

    def maybe(self, chance: float) -> bool:
        return self.jsonc and self.rnd.random() < chance

    def document(self, data: dict[str, Any]) -> str:
        if self.maybe(0.3):
            self.write('// header, with } and "quote"' + self.eol)
        self.value(data, (), "", self.rnd.random() < 0.85, self.pos)
        if self.rnd.random() < 0.8:
            self.write(self.eol)
        return "".join(self.parts)

    def value(
        self, value: Any, path: tuple[Any, ...], indent: str, multiline: bool, child_start: int
    ) -> None:
        start = self.pos
        if isinstance(value, (dict, list)) and value:
            if multiline and self.rnd.random() < 0.75:
                self.block(value, path, indent)
            else:
                self.inline(value, path)
        else:
            self.write(json.dumps(value, ensure_ascii=False))
        self.spans[path] = (child_start, start, self.pos)

    def items(self, value: dict[str, Any] | list[Any]) -> list[tuple[Any, Any]]:
        return list(value.items()) if isinstance(value, dict) else list(enumerate(value))

    def block(self, value: dict[str, Any] | list[Any], path: tuple[Any, ...], indent: str) -> None:
        inner = indent + self.unit
        self.write("{" if isinstance(value, dict) else "[")
        if self.maybe(0.1):
            self.write(" /* opens */")
        self.write(self.eol)
        items = self.items(value)
        trailing = self.maybe(0.5)
        for number, (key, item) in enumerate(items):
            if self.maybe(0.15):
                self.write(f"{inner}// about the next one, */ {{ [{self.eol}")
            self.write(inner)
            start = self.pos
            if isinstance(value, dict):
                self.write(json.dumps(key, ensure_ascii=False) + self.rnd.choice([": ", ":", " : "]))
            self.value(item, (*path, key), inner, True, start)
            if number < len(items) - 1 or trailing:
                self.write(",")
            if self.maybe(0.2):
                self.write(' // note, "quoted" } ]')
            elif self.maybe(0.1):
                self.write(f" /* two{self.eol}{inner}lines */")
            self.write(self.eol)
        if self.maybe(0.1):
            self.write(f"{inner}/* closing {self.eol}{inner} comment */{self.eol}")
        self.write(indent + ("}" if isinstance(value, dict) else "]"))

    def inline(self, value: dict[str, Any] | list[Any], path: tuple[Any, ...]) -> None:
        self.write("{" if isinstance(value, dict) else "[")
        pad = self.rnd.choice(["", " "])
        self.write(pad)
        items = self.items(value)
        for number, (key, item) in enumerate(items):
            start = self.pos
            if isinstance(value, dict):
                self.write(json.dumps(key, ensure_ascii=False) + self.rnd.choice([": ", ":"]))
            self.value(item, (*path, key), "", False, start)
            if number < len(items) - 1:
                self.write("," + self.rnd.choice(["", " "]))
                if self.maybe(0.2):
                    self.write("/* c, } */ ")
        if self.maybe(0.3):
            self.write(",")
        self.write(pad)
        self.write("}" if isinstance(value, dict) else "]")


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def lookup(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


LAYOUT = st.tuples(
    st.sampled_from(["json", "jsonc"]),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["\t", "  ", "    "]),
    st.integers(0, 2**32 - 1),  # layout seed: far cheaper than st.randoms(), which draws per call
)


def render(data: dict[str, Any], layout: tuple[Any, ...]) -> tuple[str, str, Renderer]:
    fmt, eol, unit, seed = layout
    renderer = Renderer(random.Random(seed), fmt == "jsonc", eol, unit)
    return renderer.document(data), fmt, renderer


@given(DOCUMENTS, LAYOUT)
@settings(max_examples=100, deadline=None)
def test_random_layouts_parse_to_their_data(data: dict[str, Any], layout: tuple[Any, ...]) -> None:
    text, fmt, _ = render(data, layout)
    doc = load(text, "f", fmt=fmt)
    assert doc.data() == data
    for path in paths(data):
        assert doc.get(path) == lookup(data, path)


@given(DOCUMENTS, LAYOUT, st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_edits_read_back_as_intended(
    data: dict[str, Any], layout: tuple[Any, ...], draw: st.DataObject
) -> None:
    """Random set/delete/append sequences: the result parses, reads back as replay() says, passes
    the write gate, keeps a strict file strict and a CRLF file free of bare LF."""
    text, fmt, _ = render(data, layout)
    original = load(text, "f", fmt=fmt)
    doc = load(text, "f", fmt=fmt)
    expected: Any = json.loads(json.dumps(data))
    for _ in range(draw.draw(st.integers(1, 4))):
        existing = paths(expected)[1:]
        objects = [p for p in paths(expected) if isinstance(lookup(expected, p), dict)]
        lists = [p for p in paths(expected) if isinstance(lookup(expected, p), list)]
        kind = draw.draw(st.sampled_from(["set", "new", "delete", "missing", "append"]))
        if kind == "set" and existing:
            doc.set(draw.draw(st.sampled_from(existing)), draw.draw(VALUES))
        elif kind == "new":
            parent = draw.draw(st.sampled_from(objects))
            tail = draw.draw(st.lists(st.sampled_from(["gw", "new", *KEYS]), min_size=1, max_size=3))
            if lookup(expected, parent).get(tail[0], {}) == {}:  # missing (or an empty object)
                doc.set((*parent, *tail), draw.draw(VALUES))
        elif kind == "delete" and existing:
            assert doc.delete(draw.draw(st.sampled_from(existing)))
        elif kind == "missing":
            parent = draw.draw(st.sampled_from(objects))
            if "absent" not in lookup(expected, parent):
                assert not doc.delete((*parent, "absent"))
        elif kind == "append" and lists:
            doc.append(draw.draw(st.sampled_from(lists)), draw.draw(VALUES))
        expected = replay(data, doc.ops)
    out = verify_edit(fmt, original, doc)
    assert load(out, "f", fmt=fmt).data() == expected
    assert doc.reread() == expected
    if fmt == "json":
        assert json.loads(out) == expected
    if "\r\n" in text:
        assert out.count("\n") == out.count("\r\n")


@given(DOCUMENTS, LAYOUT, st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_one_edit_touches_only_its_member_and_undoes_exactly(
    data: dict[str, Any], layout: tuple[Any, ...], draw: st.DataObject
) -> None:
    """Bytes outside the edited member (or the end of its container, for inserts) are unchanged;
    insert+delete gives back the original bytes; setting the old scalar back does too."""
    text, fmt, renderer = render(data, layout)
    spans = renderer.spans
    doc = load(text, "f", fmt=fmt)

    def unchanged_outside(low: int, high: int) -> None:
        out = doc.dump()
        assert out[:low] == text[:low]
        assert out[len(out) - (len(text) - high) :] == text[high:]
        assert load(out, "f", fmt=fmt).data() == replay(data, doc.ops)

    containers = [p for p in spans if isinstance(lookup(data, p), (dict, list))]
    parent = draw.draw(st.sampled_from(containers))
    value = lookup(data, parent)
    _, open_at, close_end = spans[parent]
    kids = [(*parent, key) for key in (value if isinstance(value, dict) else range(len(value)))]
    new = draw.draw(VALUES)
    action = draw.draw(st.sampled_from(["insert", "delete", "set"]))
    if action == "insert" or not kids:
        low = spans[kids[-1]][2] if kids else open_at + 1
        if isinstance(value, dict):
            path = (
                *parent,
                draw.draw(st.sampled_from(["gwconf", "new key", *KEYS]).filter(lambda k: k not in value)),
            )
            doc.set(path, new)
        else:
            path = (*parent, doc.append(parent, new))
        unchanged_outside(low, close_end - 1)
        assert doc.delete(path)
        assert doc.dump() == text
    elif action == "delete":
        index = draw.draw(st.integers(0, len(kids) - 1))
        low = spans[kids[index - 1]][2] if index else open_at + 1
        high = spans[kids[index + 1]][0] if index + 1 < len(kids) else close_end - 1
        assert doc.delete(kids[index])
        unchanged_outside(low, high)
    else:
        path = draw.draw(st.sampled_from(kids))
        _, start, end = spans[path]
        old = lookup(data, path)
        doc.set(path, new)
        unchanged_outside(start, end)
        doc.set(path, old)
        assert load(doc.dump(), "f", fmt=fmt).data() == data
        if not isinstance(old, (dict, list)):
            assert doc.dump() == text


# -- the write gate's re-read ---------------------------------------------------------------------


def test_reread_parses_the_text_itself_not_the_mask_the_edits_kept() -> None:
    """If an edit ever left the kept mask out of step with the text, the re-read still reads the
    text: the gate then refuses instead of trusting the editor."""
    text = '{\n  // c\n  "a": 1, /* x */\n  "b": [1, 2,],\n}\n'
    doc = load(text, "f", fmt="jsonc")
    doc.set(("c",), "new")
    expected = {"a": 1, "b": [1, 2], "c": "new"}
    assert doc.reread() == expected
    doc._masked = doc._masked.replace('"a": 1', '"a": 2')  # a mask that no longer fits the text
    assert doc.reread() == expected
    doc._text = doc._text.replace("/* x */", "/* x  ")  # the text no longer parses
    with pytest.raises(ParseError, match="unterminated"):
        doc.reread()


def test_reread_of_a_big_file_compares_its_mask_piece_by_piece() -> None:
    """Past the first few thousand comments the mask is compared in pieces; a difference late
    in the file is still found."""
    text = "{\n" + "".join(f'  "k{i}": [{i},], // c{i}\n' for i in range(10_000)) + "}\n"
    doc = load(text, "f", fmt="jsonc")
    doc.set(("k9999",), 0)
    assert doc.reread() == {**{f"k{i}": [i] for i in range(9_999)}, "k9999": 0}
    late = doc._masked.rindex('"k9998"')
    doc._masked = doc._masked[:late] + '"k9997"' + doc._masked[late + 7 :]
    assert doc.reread()["k9998"] == [9998]
    assert jsonfmt._mask(doc.dump(), doc._masked)[0] is None
    assert jsonfmt._mask(doc.dump(), jsonfmt._mask(doc.dump())[0])[0] is not None


@given(
    st.text(alphabet=list('ab"\n中'), max_size=300),
    st.integers(0, 300),
    st.integers(0, 300),
    st.text(alphabet=list("ab,\n"), max_size=8),
)
@settings(max_examples=300, deadline=None)
def test_splice_without_slicing_gives_the_same_text(text: str, start: int, length: int, piece: str) -> None:
    """_spliced widens the replaced span until str.replace finds it first at ``start`` (a text
    over ``_SPANS_ABOVE``: a smaller one is sliced)."""
    start = min(start, len(text))
    end = min(len(text), start + length)
    assert jsonfmt._spliced(text, start, end, piece) == text[:start] + piece + text[end:]
    with _spans_kept():
        assert jsonfmt._spliced(text, start, end, piece) == text[:start] + piece + text[end:]


def test_splice_in_a_text_that_repeats_itself() -> None:
    text = "ab" * 100_000
    for start, end in [(0, 0), (1, 3), (150_001, 150_001), (199_999, 200_000), (200_000, 200_000)]:
        with _spans_kept():
            assert jsonfmt._spliced(text, start, end, "X") == text[:start] + "X" + text[end:]


# -- the write gate's member-by-member check of a big object --------------------------------------


def _big_settings(count: int = 5000) -> str:
    lines = [f'  "k{i}": {{"n": {i}, "l": [1.5, "日本", null,],}}, // c{i}\n' for i in range(count)]
    return "{\n" + "".join(lines) + '  /* end */ "last": true,\n}\n'


def test_a_big_object_is_checked_member_by_member() -> None:
    text = _big_settings()
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("gwconf", "baseURL"), "http://127.0.0.1:8080/v1")
    doc.set(("k4999", "n"), 0)
    intended = replay(original.data(), doc.ops)
    assert doc.reads_as(intended)
    out, data = checked_edit("jsonc", original, doc)
    assert data == intended
    assert load(out, "f", fmt="jsonc").data() == intended


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["k4990"].update(n=True),  # `true` where 1 was meant, in the last block
        lambda d: d["k10"]["l"].__setitem__(0, 1),  # 1 where 1.5 was meant
        lambda d: d.pop("last"),
        lambda d: d.update(extra=1),
        lambda d: d.update(k0=d.pop("k0")),  # the same members in another order
    ],
)
def test_the_member_check_never_says_yes_to_other_data(change: Any) -> None:
    doc = load(_big_settings(), "f", fmt="jsonc")
    intended = json.loads(json.dumps(doc.data()))
    assert doc.reads_as(intended)
    change(intended)
    assert not doc.reads_as(intended)


@pytest.mark.parametrize(
    "bad",
    [
        lambda t: t.replace('  "k7":', '  "k6":'),  # a duplicate top-level key
        lambda t: t.replace('"n": 9,', '"n": 9, "n": 8,'),  # a duplicate key that wins, inside a member
        lambda t: t + "{}",  # something after the object
        lambda t: t.replace('"k3": {', '"k3" {'),
        lambda t: t.replace("/* end */", "/* end"),
    ],
)
def test_the_gate_refuses_an_edit_that_broke_a_big_file(bad: Any) -> None:
    """An editor bug that left the text invalid (simulated by changing the text behind the
    editor's back, recorded as an edit so that the byte check passes and the data check alone
    decides) is refused, whichever way the check goes."""
    text = _big_settings()
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("gwconf",), 1)
    intended = replay(original.data(), doc.ops)
    broken = bad(doc._text)
    doc.edits.append(changed_edit(doc._text, broken))
    doc._text = broken
    assert not doc.reads_as(intended)
    with pytest.raises(WriteRefused, match=r"would not parse|reads back differently"):
        checked_edit("jsonc", original, doc)


def test_a_big_strict_json_file_is_checked_member_by_member_too() -> None:
    text = json.dumps({f"k{i}": [i, {"v": "é"}] for i in range(5000)}, indent=2)
    original = load(text, "f", fmt="json")
    doc = load(text, "f", fmt="json")
    doc.set(("k1", 0), "x")
    intended = replay(original.data(), doc.ops)
    assert doc.reads_as(intended)
    assert checked_edit("json", original, doc)[0] == doc.dump()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  // note\r  "a": 1\n}\n', {"a": 1}),  # the member after the comment's lone CR counts
        ('{"a": 1 // one\r, "b": 2}', {"a": 1, "b": 2}),
        ('{"a": [1, // one\r2,]}', {"a": [1, 2]}),
    ],
)
def test_a_lone_cr_ends_a_line_comment_as_in_vs_code(text: str, expected: Any) -> None:
    """VS Code's jsonc-parser ends `//` at "\\r" as at "\\n": gwconf reads (and gates) the same."""
    assert jsonfmt.load(text, "f.json", fmt="jsonc").data() == expected
    assert jsonfmt._mask_spans(text, jsonfmt._find_masks(text))[0] == jsonfmt._mask(text)[0]


def test_a_lone_cr_in_a_comment_cannot_hide_a_broken_member() -> None:
    with pytest.raises(ParseError) as info:
        jsonfmt.load('{\n  "a": 1, // note\r  "b"\n}\n', "f.json", fmt="jsonc")
    assert info.value.reason == "expected ':' after the key"


# -- the write gate's window read: the top-level members that changed, read alone -----------------


def _based(text: str, fmt: str, walked: int | None = None) -> jsonfmt.JsonDocument:
    """A loaded document whose window base is taken as the first splice takes it: after a walk
    of the whole top-level object, or of its first ``walked`` members only (an edit of a member
    it found: the closing brace is then found from the end of the mask)."""
    doc = load(text, "f", fmt=fmt)
    if doc._top() >= 0 and doc._masked[doc._top()] == "{":
        if walked is None:
            list(doc._children(doc._top()))
            doc._take_base(len(text))
        else:
            list(itertools.islice(doc._children(doc._top()), walked))
            doc._take_base(0)
    return doc


def _same_json(a: Any, b: Any) -> bool:
    """Equal, key order, ints, floats and bools told apart."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


_MEMBERS = [
    '  "a": 1,',
    '  "n1": 1.5,',
    '  "n2": [1, "2", {"x": null}],',
    '  "n3": {"q": "w // not /* a comment"},',
    '  "n4": "日本", "n5": true,',
    '  "\\u0061b": "esc \\" q",',
]
_COMMENTS = ["  // only a comment, with } and ,", '  /* a block "q" */', '  "n6": [1, 2,], /* x */']
_WINDOW_LINES = st.sampled_from(_MEMBERS + _COMMENTS) | st.sampled_from(
    [
        '  "a": 2',
        '  "d": true, // c "q" }',
        "  /* open",
        '  */ "e": [],',
        '  "f": {',
        "  },",
        "  },,",
        "  ,",
        "}",
        "{",
        '  "g": NaN,',
        '  "h": 1.0, "h": 2,',
        '  "s": "unclosed,',
    ]
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_MEMBERS + _COMMENTS), min_size=3, max_size=9, unique=True),
    st.sampled_from(["json", "jsonc"]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.lists(
        st.tuples(
            st.integers(2, 12),
            st.integers(0, 2),
            st.lists(_WINDOW_LINES, max_size=3),
            st.integers(0, 300),
            st.just("") | st.just("") | st.text(st.sampled_from(' ":,{}[]/*\n1a\\'), max_size=3),
        ),
        min_size=1,
        max_size=3,
    ),
    st.none() | st.integers(0, 9),
    st.sampled_from(["", " ", "\n", "// } end\n", "/* } */ "]),
)
def test_reading_a_window_back_agrees_with_reading_everything(
    lines: list[str],
    fmt: str,
    eol: str,
    trailing: bool,
    changes: list[tuple[int, int, list[str], int, str]],
    walked: int | None,
    after: str,
) -> None:
    """Soundness of the write gate's window read (``_read_window``): whenever it answers, the
    whole text reads as exactly that (key order, number types and the last of two equal keys
    included), and its comparison with intended data agrees with the whole read's. The random
    edits of a settings-like file include wrong ones: unclosed comments and strings, stray
    commas and brackets, NaN, a key that is already outside the window, a change that reaches
    into the next member."""
    from gwconf.formats import _same

    if fmt == "json":
        lines = [line for line in lines if line not in _COMMENTS]
    if lines and not (fmt == "jsonc" and trailing):
        lines[-1] = lines[-1].rstrip(",")
    base = "{" + eol + "".join(line + eol for line in lines) + "}" + eol
    if fmt == "jsonc" or not after.strip():  # blanks or a comment after the closing brace
        base += after
    try:
        doc = _based(base, fmt, walked)
    except ParseError:
        return
    if doc._base is None:
        return
    data = doc.data()
    text, edits = base, []
    for at, width, new_lines, where, chars in changes:
        rows = text.splitlines(keepends=True)
        at = min(at, len(rows))
        new = "".join(line + eol for line in new_lines)
        edited = "".join(rows[:at]) + new + "".join(rows[at + width :])
        where = min(where, len(edited))
        edited = edited[:where] + chars + edited[where:]
        if edited != text:
            edits.append(changed_edit(text, edited))
        text = edited
    got = jsonfmt._read_window(base, doc._base, text, edits, fmt == "json")
    if got is None:
        return
    reread = load(text, "f", fmt=fmt)  # a ParseError here fails the test: it must not answer
    whole = reread.data()
    assert _same_json(got.whole(), whole), (base, text)
    changed = json.loads(json.dumps(whole))
    if changed:
        changed[next(iter(changed))] = [True]
    for intended in (whole, changed, data, {**changed, "gwconf": 1}, None):
        if reread._dups:  # a key twice (the base had none): never vouched for, the whole read refuses
            assert not got.same(intended), (base, text)
        else:
            assert got.same(intended) == _same(whole, intended)


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
@pytest.mark.parametrize("tail", ["}\n", "}\n// the end }\n", "} /* } */\n\n"])
def test_an_edit_of_a_member_then_a_new_last_one_is_read_from_the_window(fmt: str, tail: str) -> None:
    """A client sets a key it finds near the end (the walk stops there), then adds one at the end
    (after the members that walk never reached): the window runs on to the closing brace found
    from the end of the mask, and the gate answers from it what the whole read gives."""
    members = "".join(f'  "k{i}": {{"n": {i}, "url": "https://x/{i}"}},\n' for i in range(40))
    text = "{\n" + members + '  "theme": "dark"\n' + (tail if fmt == "jsonc" else "}\n")
    original = load(text, "f", fmt=fmt)
    doc = load(text, "f", fmt=fmt)
    doc.set(("k30", "n"), 0)
    assert doc._base is not None and doc._base.close < 0 < doc._base.end
    doc.set(("gwconf",), {"baseURL": "http://127.0.0.1:8080/v1"})
    intended = replay(original.data(), doc.ops)
    assert doc.reads_as(intended)  # (the whole re-read is not tried here: an object this small)
    assert not doc.reads_as({**intended, "theme": "light"})
    out, data = checked_edit(fmt, original, doc)
    assert data == load(out, "f", fmt=fmt).data() == intended
    assert list(data)[-2:] == ["theme", "gwconf"]


@given(DOCUMENTS, LAYOUT, st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_gate_answers_as_the_whole_read_after_random_edits(
    data: dict[str, Any], layout: tuple[Any, ...], draw: st.DataObject
) -> None:
    """The editor's own edits read back as intended, and wherever the window read answers, the
    gate says so from it; data that differs in one key is never accepted."""
    from gwconf.formats import _same

    text, fmt, _ = render(data, layout)
    doc = load(text, "f", fmt=fmt)
    for _ in range(draw.draw(st.integers(1, 3))):
        now = replay(data, doc.ops)
        objects = [p for p in paths(now) if isinstance(lookup(now, p), dict)]
        existing = paths(now)[1:]
        kind = draw.draw(st.sampled_from(["set", "new", "delete"]))
        if kind == "set" and existing:
            doc.set(draw.draw(st.sampled_from(existing)), draw.draw(VALUES))
        elif kind == "new":
            parent = draw.draw(st.sampled_from(objects))
            if "gw" not in lookup(now, parent):
                doc.set((*parent, "gw"), draw.draw(VALUES))
        elif kind == "delete" and existing:
            doc.delete(draw.draw(st.sampled_from(existing)))
    intended = replay(data, doc.ops)
    whole = load(doc.dump(), "f", fmt=fmt).data()
    assert _same(whole, intended)
    window = None
    if doc._base is not None and doc.edits:
        window = jsonfmt._read_window(doc.original, doc._base, doc._text, doc.edits, fmt == "json")
    assert doc.reads_as(intended) or window is None
    wrong = json.loads(json.dumps(intended))
    wrong["gw-extra"] = 1
    assert not doc.reads_as(wrong)


def test_an_edit_of_a_big_settings_file_is_read_back_from_its_window(monkeypatch: Any) -> None:
    """Zed's provider added at the end of a big settings.json: the gate masks and reads the last
    member and the new one, not the whole text again (issue 15)."""
    text = _big_settings()
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("language_models", "openai_compatible", "gwconf", "api_url"), "http://127.0.0.1:8080/v1")
    doc.set(("language_models", "openai_compatible", "gwconf", "available_models"), [{"name": "m"}])
    doc.set(("agent", "default_model"), {"provider": "gwconf", "model": "m"})
    masked: list[int] = []
    real = jsonfmt._mask
    monkeypatch.setattr(
        jsonfmt, "_mask", lambda t, like=None, **kw: masked.append(len(t)) or real(t, like, **kw)
    )
    read: list[int] = []
    real_window = jsonfmt._window_members
    monkeypatch.setattr(
        jsonfmt, "_window_members", lambda w, last: read.append(len(w)) or real_window(w, last)
    )
    out, data = checked_edit("jsonc", original, doc)
    assert masked == [] and len(read) == 1 and read[0] < 600
    assert data == load(out, "f", fmt="jsonc").data() == replay(original.data(), doc.ops)
    assert list(data)[-3:] == ["last", "language_models", "agent"]


@pytest.mark.parametrize(
    "bad",
    [
        lambda t: t.replace('"gwconf": 1', '"gwconf": 2'),  # another value
        lambda t: t.replace('"gwconf": 1', '"gwconf": 1, "k7": 0'),  # a key outside the window, again
        lambda t: t.replace('"gwconf": 1', '"gwconf": 1 /* open'),  # a comment that swallows the rest
        lambda t: t.replace('"gwconf": 1,\n}', '"gwconf": 1, // }'),  # the closing brace in a comment
        lambda t: t.replace('"gwconf": 1', '"gwconf": "1'),  # an unclosed string
        lambda t: t.replace('"gwconf": 1', '"gwconf": NaN'),
        lambda t: t.replace('"gwconf": 1', '"gwconf": 1,,'),
        lambda t: t.replace('"gwconf": 1', '"gwconf": 1}, "x": {'),  # brackets that still balance
        lambda t: t.replace('"last": true,', '"last": true'),  # the comma before the new member gone
        lambda t: t.replace('  /* end */ "last"', '  /* end "last"'),  # a change that starts earlier
    ],
)
def test_a_wrong_splice_in_the_window_is_refused(bad: Any) -> None:
    """Wrong splices near the window (simulated behind the editor's back and recorded as an edit,
    so the byte check passes and the data check alone decides) are refused as before."""
    text = _big_settings()
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("gwconf",), 1)
    intended = replay(original.data(), doc.ops)
    broken = bad(doc._text)
    assert broken != doc._text
    doc.edits.append(changed_edit(doc._text, broken))
    doc._text = broken
    assert not doc.reads_as(intended)
    with pytest.raises(WriteRefused, match=r"would not parse|reads back differently"):
        checked_edit("jsonc", original, doc)


@pytest.mark.parametrize("big", [True, False], ids=["window", "whole-read"])
def test_an_edit_that_puts_a_key_twice_is_refused_even_when_the_last_value_is_right(big: bool) -> None:
    """json keeps the last of a key twice, so a duplicate with the intended value read back as
    intended; a reader that keeps the first saw the old value. Where the file had no key twice,
    an edit that makes one is refused (simulated behind the editor's back, as above)."""
    text = _big_settings() if big else '{\n  "k7": 0,\n  "theme": "dark"\n}\n'
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("k7",), 1)
    intended = replay(original.data(), doc.ops)
    assert intended["k7"] == 1
    first = doc._text.index('"k7"')
    broken = doc._text[:first] + '"k7": 0, ' + doc._text[first:]  # the old value again, first
    doc.edits.append(changed_edit(doc._text, broken))
    doc._text = broken
    assert load(broken, "again", fmt="jsonc").data()["k7"] == 1  # read as json reads it: as intended
    with pytest.raises(WriteRefused, match=r"key in one object twice"):
        checked_edit("jsonc", original, doc)


def test_a_file_that_had_a_key_twice_can_still_be_edited() -> None:
    text = '{\n  "a": 1,\n  "a": 2,\n  "theme": "dark"\n}\n'
    original = load(text, "f", fmt="jsonc")
    doc = load(text, "f", fmt="jsonc")
    doc.set(("theme",), "light")
    out, data = checked_edit("jsonc", original, doc)
    assert data == {"a": 2, "theme": "light"} and out.count('"a"') == 2


def test_a_file_with_a_key_twice_is_read_back_whole() -> None:
    text = _big_settings().replace('  "k7":', '  "k6":')
    doc = load(text, "f", fmt="jsonc")
    doc.set(("gwconf",), 1)
    assert doc._base is None  # the members are not the data's items one for one
    original = load(text, "f", fmt="jsonc")
    assert not doc.reads_as(replay(original.data(), doc.ops))  # the member check refuses it too
    out, data = checked_edit("jsonc", original, doc)
    assert data == load(out, "f", fmt="jsonc").data() and data["gwconf"] == 1


# -- a new key in a big settings file: the last members are found back from the closing brace -----

_TAIL_VALUES = [
    "1",
    "-1.5e+3",
    "true",
    "null",
    "[]",
    "{}",
    '{"z": [1, [2, [3,],],]}',
    *(
        json.dumps(value, ensure_ascii=ascii)
        for value in ["}", "a\\", "\\\\", '\\"}\\', {"x": ["]", '\\"', {"y": "{["}]}, "日本 é"]
        for ascii in (True, False)
    ),
]
_TAIL_KEYS = [
    json.dumps(key, ensure_ascii=ascii)[1:-1]
    for key in ["last", 'k"q', "x\\", "日本"]
    for ascii in (True, False)
]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(_TAIL_KEYS),
            st.sampled_from(_TAIL_VALUES),
            st.sampled_from(["", ' /* } " */', ' // "']),
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda member: json.loads(f'"{member[0]}"'),
    ),
    st.sampled_from(["json", "jsonc"]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_the_last_members_found_backwards_are_the_ones_walked_forwards(
    members: list[tuple[str, str, str]], fmt: str, eol: str, trailing: bool
) -> None:
    lines = [f'  "k{i}": {i},' for i in range(3)]
    for number, (key, value, comment) in enumerate(members):
        if fmt == "json":
            value = value.replace(",]", "]")
        comma = "," if number < len(members) - 1 or (trailing and fmt == "jsonc") else ""
        lines.append(f'  "{key}": {value}{comma}{comment if fmt == "jsonc" else ""}')
    text = "{" + eol + eol.join(lines) + eol + "}" + eol
    doc = load(text, "f", fmt=fmt)
    back = doc._members_back(doc._top(), doc.data(), 8)
    walked = load(text, "f", fmt=fmt)
    assert back is not None
    found, close = back
    assert found == list(walked._children(walked._top()))[::-1][:8]
    assert doc._masked[close] == "}" and not doc._masked[close + 1 :].strip()


def test_a_new_key_in_a_big_settings_file_needs_no_walk_of_its_members(monkeypatch: Any) -> None:
    """The key is missing from the data as read, so the insert needs only the last members,
    found back from the end; the text is the one the walk forwards gives, and the write gate
    reads it back from the window (issue 15)."""
    text = _big_settings()
    walked = load(text, "f", fmt="jsonc")
    list(walked._children(walked._top()))  # a walk under way: the forward path
    walked.set(("gwconf", "baseURL"), "http://127.0.0.1:8080/v1")
    scans: list[int] = []
    real = jsonfmt.JsonDocument._scan_children
    monkeypatch.setattr(jsonfmt.JsonDocument, "_scan_children", lambda d, c: scans.append(c) or real(d, c))
    doc = load(text, "f", fmt="jsonc")
    doc.set(("gwconf", "baseURL"), "http://127.0.0.1:8080/v1")
    assert scans == [] and doc.dump() == walked.dump()
    assert doc._base is not None and doc._base.first == 5000 - 1
    out, data = checked_edit("jsonc", load(text, "f", fmt="jsonc"), doc)
    assert data == load(out, "f", fmt="jsonc").data() and data["gwconf"] == {
        "baseURL": "http://127.0.0.1:8080/v1"
    }


def test_zeds_edits_of_a_big_settings_file_never_walk_its_top_level_members(monkeypatch: Any) -> None:
    """Zed's render sets a key, reads one back and sets two more: after the first splice the
    keys the edits intend say what is there, and each key is found back from the end. The
    text is the one the walk forwards gives."""
    text = _big_settings()
    provider = ("language_models", "openai_compatible", "gwconf")

    def render(doc: jsonfmt.JsonDocument) -> list[Any]:
        doc.set((*provider, "api_url"), "http://127.0.0.1:8080/v1")
        got = [doc.get((*provider, "available_models"), None), doc.get(("agent", "default_model"), None)]
        doc.set((*provider, "available_models"), [{"name": "m", "max_tokens": 128000}])
        doc.set(("agent", "default_model"), {"provider": "gwconf", "model": "m"})
        got.append(doc.get((*provider, "api_url")))
        return got

    walked = load(text, "f", fmt="jsonc")
    list(walked._children(walked._top()))
    expected = render(walked)
    scanned: list[int] = []
    real = jsonfmt.JsonDocument._scan_children
    monkeypatch.setattr(jsonfmt.JsonDocument, "_scan_children", lambda d, c: scanned.append(c) or real(d, c))
    doc = load(text, "f", fmt="jsonc")
    assert render(doc) == expected == [None, None, "http://127.0.0.1:8080/v1"]
    assert doc.dump() == walked.dump() and doc._top() not in scanned
    out, data = checked_edit("jsonc", load(text, "f", fmt="jsonc"), doc)
    assert data == load(out, "f", fmt="jsonc").data() and list(data)[-2:] == ["language_models", "agent"]


# -- the children the editor knows follow its splices ----------------------------------------------


def _check_known(doc: jsonfmt.JsonDocument, finish: bool) -> None:
    """Every container the editor remembers is a container of the text now, and the children
    it knows of it are the ones a fresh walk of the mask finds, in order (all of them after
    ``finish``)."""
    for container in list(doc._known):
        assert doc._masked[container] in "{[", container
        fresh = list(jsonfmt._walk(doc._masked, container, None, 0))
        seen = doc._known[container][0]
        assert seen == fresh[: len(seen)], (container, doc._masked)
        if finish:
            assert list(doc._children(container)) == fresh
            assert doc._known[container][1] is True


@contextlib.contextmanager
def _spans_kept() -> Iterator[None]:
    """Documents loaded inside keep their mask as its blanked spans whatever their size (a file
    over ``_SPANS_ABOVE`` does; a smaller one keeps its mask whole)."""
    saved = jsonfmt._SPANS_ABOVE
    jsonfmt._SPANS_ABOVE = -1
    try:
        yield
    finally:
        jsonfmt._SPANS_ABOVE = saved


def test_a_small_file_keeps_its_mask_whole_and_a_big_one_its_spans() -> None:
    text = '{\n  // c\n  "a": 1,\n}\n'
    small = load(text, "f", fmt="jsonc")
    assert small._blanks is None and small._masked == '{\n      \n  "a": 1 \n}\n'
    with _spans_kept():
        spans = load(text, "f", fmt="jsonc")
    assert spans._blanks is not None
    for doc in (small, spans):
        doc.set(("b",), 2)
    assert small.dump() == spans.dump() and small._masked == spans._masked


@given(DOCUMENTS, LAYOUT, st.data())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_known_children_follow_the_splices(
    data: dict[str, Any], layout: tuple[Any, ...], draw: st.DataObject
) -> None:
    """The shortcut in ``_shift_known`` (children moved by a splice's length, walked again only
    where it overlaps) held to the slow path: after every edit of a random sequence, with reads
    between them that fill the cache at every depth, each remembered container agrees with a
    fresh walk, and the text and ops are those of a document that forgets everything before
    each operation."""
    text, fmt, _ = render(data, layout)
    with _spans_kept():
        doc = load(text, "f", fmt=fmt)
    slow = load(text, "f", fmt=fmt)
    slow._masked = slow._masked  # kept whole and spliced: the reference for the spans' mask
    expected: Any = json.loads(json.dumps(data))
    for _ in range(draw.draw(st.integers(1, 8))):
        every = paths(expected)
        existing = every[1:]
        objects = [p for p in every if isinstance(lookup(expected, p), dict)]
        lists = [p for p in every if isinstance(lookup(expected, p), list)]
        kind = draw.draw(st.sampled_from(["get", "get", "set", "new", "delete", "append"]))
        call: tuple[Any, ...] | None = None
        if kind == "get" and existing:
            path = draw.draw(st.sampled_from(existing))
            assert doc.get(path) == lookup(expected, path)
        elif kind == "set" and existing:
            call = ("set", draw.draw(st.sampled_from(existing)), draw.draw(VALUES))
        elif kind == "new":
            parent = draw.draw(st.sampled_from(objects))
            tail = draw.draw(st.lists(st.sampled_from(["gw", "new", *KEYS]), min_size=1, max_size=2))
            if lookup(expected, parent).get(tail[0], {}) == {}:
                call = ("set", (*parent, *tail), draw.draw(VALUES))
        elif kind == "delete" and existing:
            call = ("delete", draw.draw(st.sampled_from(existing)))
        elif kind == "append" and lists:
            call = ("append", draw.draw(st.sampled_from(lists)), draw.draw(VALUES))
        if call is not None:
            slow._known.clear()
            assert getattr(doc, call[0])(*call[1:]) == getattr(slow, call[0])(*call[1:])
            assert doc.dump() == slow.dump() and doc.ops == slow.ops
            assert doc._blanks is not None and doc._masked == slow._masked
        _check_known(doc, draw.draw(st.booleans()))
        expected = replay(data, doc.ops)
    assert doc.data() == expected


def test_known_children_are_walked_again_only_around_the_splice(monkeypatch: Any) -> None:
    """A key set in one of 80 projects: the others' members are moved, not walked again, and a
    number the splice could lengthen is read again (``"a": 1`` then ``2`` right after it)."""
    projects = ",\n".join(f'  "/p/{n}": {{"allowedTools": [], "n": {n}}}' for n in range(80))
    text = '{\n  "n": 1' + ",\n" + projects + "\n}\n"
    doc = load(text, "f", fmt="json")
    for n in range(80):
        doc.get((f"/p/{n}", "n"))
    walked: list[int] = []
    real = jsonfmt._walk

    def counting(masked: str, container: int, after: Any, index: int) -> Any:
        for child in real(masked, container, after, index):
            walked.append(container)
            yield child

    monkeypatch.setattr(jsonfmt, "_walk", counting)
    for n in (5, 40, 79):
        doc.set((f"/p/{n}", "gwconf"), True)
    assert len(walked) < 3 * 4, walked  # around each splice only: the project and its parent
    _check_known(doc, True)
    at = doc.dump().index("1,")
    doc._splice(at + 1, at + 1, "2", claim=(at + 1, at + 1), removes=False)  # 1 -> 12: it grows
    assert doc.get(("n",)) == 12
    _check_known(doc, True)


_SPAN_TEXT = st.text(st.sampled_from("ab ,/*\n日"), max_size=40)


@given(_SPAN_TEXT, st.data())
@settings(max_examples=500, deadline=None)
def test_moved_blank_spans_give_the_spliced_mask(text: str, draw: st.DataObject) -> None:
    """A mask kept as its blanked spans (``_moved_blanks``, ``_blanked``) is the mask spliced
    whole, for any spans and any splice, overlapping spans included; a masked piece that is not
    its piece blanked is refused (``_blank_runs``: the document then keeps its mask whole)."""
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(text)), max_size=8, unique=True)))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if a < b]
    starts = array.array("q", [a for a, _ in spans])
    ends = array.array("q", [b for _, b in spans])
    mask = jsonfmt._blanked(text, starts, ends)
    start = draw.draw(st.integers(0, len(text)))
    end = draw.draw(st.integers(start, len(text)))
    piece = draw.draw(_SPAN_TEXT)
    masked_piece = (
        "".join(" " if draw.draw(st.booleans()) else c for c in piece)
        if draw.draw(st.booleans())
        else draw.draw(_SPAN_TEXT)
    )
    runs = jsonfmt._blank_runs(piece, masked_piece)
    if runs is None:
        assert len(masked_piece) != len(piece) or any(
            m != " " and m != c for c, m in zip(piece, masked_piece, strict=True)
        )
        return
    moved = jsonfmt._moved_blanks((starts, ends), start, end, len(piece), runs)
    new_text = text[:start] + piece + text[end:]
    assert jsonfmt._blanked(new_text, *moved) == mask[:start] + masked_piece + mask[end:]
    assert all(a < b for a, b in zip(*moved, strict=True))
    assert all(b <= a for b, a in zip(moved[1], moved[0][1:], strict=False))  # disjoint, in order


def test_a_big_files_last_edit_makes_no_mask() -> None:
    """The write gate reads the edited text back from the text alone: after the splice the
    mask is let go (not two masks, or a mask and the new text, at once) and never made again;
    made when read, it is the mask spliced whole."""
    text = _big_settings()
    with _spans_kept():  # as a file over _SPANS_ABOVE is kept
        doc = load(text, "f", fmt="jsonc")
    whole = load(text, "f", fmt="jsonc")
    whole._masked = whole._masked
    for edited in (doc, whole):
        edited.set(("gwconf", "baseURL"), "http://127.0.0.1:8080/v1")
    out, data = checked_edit("jsonc", load(text, "f", fmt="jsonc"), doc)
    assert doc._mask_cache is None and out == whole.dump()
    assert doc._masked == whole._masked
    assert data == load(out, "f", fmt="jsonc").data()


def _unit_by_line_starts(text: str) -> str:
    """``_detect_unit`` as it was written: every line start tried with ``^`` and re.M."""
    smallest = 0
    for count, match in enumerate(re.finditer(r'^([ \t]+)["\x01]', text[: 1 << 16], re.M)):
        indent = match.group(1)
        if indent[0] == "\t":
            if not smallest:
                return "\t"
        elif "\t" not in indent and (not smallest or len(indent) < smallest):
            smallest = len(indent)
        if count > 200:
            break
    return " " * smallest if smallest else "  "


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([" ", "  ", "\t", "\n", "\r\n", '"', "\x01", "a", "{", ":"]), max_size=60).map(
        "".join
    )
)
def test_the_indent_unit_found_by_line_breaks_is_the_one_found_at_every_line_start(text: str) -> None:
    from gwconf.formats.json import _detect_unit

    assert _detect_unit(text) == _unit_by_line_starts(text)


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
def test_put_back_gives_a_scalar_its_own_spelling_back(fmt: str) -> None:
    """A restore puts a value back as the file had it (found over real dotfiles: ``\\/`` and
    ``\\uXXXX`` escapes came back as json.dumps spells the value)."""
    original = (
        '{\n  "url": "https:\\/\\/api.example\\/v1",\n  "name": "caf\\u00e9", "n": 1.50,\n  "t": true\n}\n'
    )
    before = load(original, "f", fmt=fmt)
    spellings = {key: before.spelling((key,)) for key in ("url", "name", "n", "t", "missing")}
    assert spellings == {
        "url": '"https:\\/\\/api.example\\/v1"',
        "name": '"caf\\u00e9"',
        "n": "1.50",
        "t": "true",
        "missing": None,
    }
    assert load('{"a": {"b": 1}}', "f", fmt=fmt).spelling(()) is None  # the top value
    doc = load(
        edited(original, fmt, ("set", ("url",), "x"), ("set", ("name",), "y"), ("set", ("n",), 2)),
        "f",
        fmt=fmt,
    )
    for key in ("url", "name", "n"):
        doc.put_back((key,), before.get((key,)), spellings[key] or "")
    assert doc.dump() == original
    assert doc.data() == before.data()


def test_put_back_gives_an_array_or_object_its_own_layout_back() -> None:
    """Found over a real Claude Code Router config.json: gwconf replaced ``Router.default``'s
    one-line array with its string; after a hand edit elsewhere, the key-by-key restore wrote the
    array over three lines, json.dumps's layout, not the file's."""
    original = '{\n  "Router": {\n    "default": ["ollama,qwen3:8b"],\n    "x": {"a": [1,2]}\n  }\n}\n'
    before = load(original, "f", fmt="json")
    assert [before.spelling(("Router", k)) for k in ("default", "x")] == [
        '["ollama,qwen3:8b"]',
        '{"a": [1,2]}',
    ]
    changed = '{\n  "LOG": true,\n  "Router": {\n    "default": "gwconf,m",\n    "x": "y"\n  }\n}\n'
    doc = load(changed, "f", fmt="json")
    for k in ("default", "x"):
        doc.put_back(("Router", k), before.get(("Router", k)), before.spelling(("Router", k)) or "")
    assert doc.dump() == original.replace("{\n", '{\n  "LOG": true,\n', 1)
    commented = load('{"a": [1, /* c */ 2]}', "f", fmt="jsonc")
    assert commented.spelling(("a",)) == "[1, /* c */ 2]"
    doc = load('{"a": "x"}', "f", fmt="jsonc")
    doc.put_back(("a",), [1, 2], "[1, /* c */ 2]")  # json cannot read that text alone: set's way
    assert doc.get(("a",)) == [1, 2] and "/*" not in doc.dump()


def test_put_back_sets_the_value_when_the_spelling_is_not_that_value() -> None:
    doc = load('{"a": "x", "b": 1}', "f", fmt="jsonc")
    doc.put_back(("a",), "y", '"z"')  # another value: the value counts
    doc.put_back(("b",), True, "1")  # 1 is not true to json
    doc.put_back(("c",), "new", '"n\\u0065w"')  # no such key: set's own member
    assert doc.data() == {"a": "y", "b": True, "c": "new"}
    assert doc.dump() == '{"a": "y", "b": true, "c": "new"}'


def test_a_member_added_after_every_other_went_keeps_the_files_indent() -> None:
    """The indent unit is the file's as loaded: a tab-indented file emptied by the edits before
    got its next member indented with two spaces, the editor's default."""
    text = '{\n\t"a": 1,\n\t"b": {\n\t\t"c": 2\n\t}\n}\n'
    after = edited(text, "jsonc", ("delete", ("a",)), ("delete", ("b",)), ("set", ("d",), {"e": 1}))
    assert after == '{\n\t"d": {\n\t\t"e": 1\n\t}\n}\n'
