"""TOML editor: surgical edits, byte-exact undo, and refusal instead of corruption."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, Op, load, replay, verify_edit
from gwconf.formats._base import changed_edit
from gwconf.formats.toml import TomlDocument

CODEX = """\
# Codex configuration
model = "gpt-5"   # the model
model_provider = "openai"
approval_policy = 'on-request'
sandbox . mode = "workspace-write"
tools.web_search = true

[model_providers.openai]
name = "OpenAI"
base_url = "https://api.openai.com/v1"  # local
\t# tab-indented comment
http_headers = { "X-Org" = "acme", X-Team = 'ml' }

# docs MCP server
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

  [profiles.fast]
  model = "gpt-5-mini"
  effort = 'low'

[[servers]]
name = "a"

[[servers]]
name = "b"

[model_providers.late]
name = "Late"
prompt = '''
multi-line 'literal'
'''
doc = \"\"\"
basic \\
  continued\"\"\"
emoji = "🚀 ünïcödé"
mask = 0xFF
when = 1979-05-27T07:32:00Z
big = +inf
"""

GWCONF_PROVIDER = {"name": "gwconf", "base_url": "http://127.0.0.1:8080/v1", "env_key": "GWCONF_API_KEY"}


def edited(text: str, *ops: tuple) -> tuple[TomlDocument, str]:
    """Apply ops, pass the write gate, return the document and the text that would be written."""
    doc = load("toml", text, "config.toml")
    for name, *args in ops:
        getattr(doc, name)(*args)
    return doc, verify_edit("toml", load("toml", text, "config.toml"), doc)


def changed_lines(before: str, after: str) -> list[str]:
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    return [line for line in new if line not in old] + [line for line in old if line not in new]


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


# -- reading ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [lambda t: t, crlf, lambda t: t.replace("\n", "\r\n", 5)])
def test_load_and_dump_is_byte_identical(variant) -> None:
    text = variant(CODEX)
    doc = load("toml", text, "config.toml")
    assert doc.dump() == text
    assert doc.get(("model_providers", "openai", "http_headers", "X-Team")) == "ml"
    assert doc.get(("sandbox", "mode")) == "workspace-write"
    assert doc.get(("servers", 1, "name")) == "b"
    assert doc.get(("nope",)) is MISSING
    assert doc.get(("nope",), 7) == 7
    assert doc.data()["model_providers"]["late"]["mask"] == 255


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("a = 1\nb = [1,\n", 3, 1, "end of the file"),
        ("a = 1\na = 2\n", 2, 6, 'Key "a" already exists'),
        ("[t]\nx = 1\n[t]\n", 3, 3, 'Key "t" already exists'),
        ("[a]\nb.c = 1\n[a.b]\nd = 2\n", 3, 5, "Cannot declare ('a', 'b') twice"),
        ("a = \n", 1, 5, "value"),
    ],
)
def test_parse_errors_name_the_file_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        load("toml", text, "~/.codex/config.toml")
    assert info.value.line == line
    assert info.value.column == column
    assert words in info.value.reason
    assert str(info.value).startswith(f"~/.codex/config.toml:{line}:{column}: ")
    assert "\\x00" not in str(info.value)  # tomlkit's own message for an open array is useless


@pytest.mark.parametrize(
    ("text", "likely"),
    [
        ("model = gpt-5\n", 'a string without quotes (TOML quotes strings: model = "gpt-5")'),
        ("api_key = sk-abcdef0123456789\n", "a string without quotes"),
        ('cwd = "C:\\Users\\me"\n', "a backslash in a double-quoted string starts an escape"),
        ('cwd = "C:\\q"\n', "write a Windows path in single quotes"),
        ('model = "gpt-5\n', "a quote that never closes on its line"),
        ('model_provider: "x"\n', "a ':' where TOML writes '=' (key = value)"),
    ],
)
def test_the_commonest_mistakes_are_named_before_tomllibs_words(text: str, likely: str) -> None:
    """What a person most likely wrote, then tomllib's own words; nothing of the line is repeated
    (an unquoted value may be a key)."""
    with pytest.raises(ParseError) as info:
        load("toml", text, "~/.codex/config.toml")
    assert likely in info.value.reason.split("; tomllib says: ")[0]
    assert "; tomllib says: " in info.value.reason and "abcdef0123456789" not in str(info.value)


@pytest.mark.parametrize(
    "text", ["x = trueish\n", "x = true\ny = [1,\n", "a = 1\na = 2\n", "x = nan\ny = %\n"]
)
def test_other_errors_keep_the_readers_words(text: str) -> None:
    with pytest.raises(ParseError) as info:
        load("toml", text, "~/.codex/config.toml")
    assert "says:" not in info.value.reason


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '# c\nmodel = "x"\nmodel_providers = "oops"\n',
            "~/.codex/config.toml:3:19: model_providers is a string, not a table; "
            "gwconf cannot set model_providers.gwconf.",
        ),
        (
            "[model_providers]\ngwconf = 5\n",
            "~/.codex/config.toml:2:10: model_providers.gwconf is a number, not a table; "
            "gwconf cannot set model_providers.gwconf.name.",
        ),
        (
            "model_providers.gwconf = [1]\n",
            "~/.codex/config.toml: model_providers.gwconf is an array, not a table; "
            "gwconf cannot set model_providers.gwconf.name.",
        ),
    ],
)
def test_a_key_under_a_value_that_is_no_table_is_refused_at_its_line(text: str, message: str) -> None:
    doc = load("toml", text, "~/.codex/config.toml")
    doc.set(("first",), {"a": 1})  # a new table: where it goes, the line is still the file's
    with pytest.raises(WriteRefused) as info:
        doc.set(("model_providers", "gwconf", "name"), "x")
    assert info.value.message == message


# -- setting values ---------------------------------------------------------------------------------


def test_set_existing_value_changes_one_line_and_keeps_comment_and_alignment() -> None:
    _, text = edited(CODEX, ("set", ("model_providers", "openai", "base_url"), "http://gw/v1"))
    assert changed_lines(CODEX, text) == [
        'base_url = "http://gw/v1"  # local\n',
        'base_url = "https://api.openai.com/v1"  # local\n',
    ]


def test_literal_strings_stay_literal_when_they_can() -> None:
    _, text = edited(
        CODEX, ("set", ("approval_policy",), "never"), ("set", ("profiles", "fast", "effort"), "it's")
    )
    assert "approval_policy = 'never'\n" in text
    assert '  effort = "it\'s"\n' in text  # a literal string cannot hold a quote


def test_scalars_are_replaced_on_their_own_line_without_building_tomlkits_tree() -> None:
    text = '''"model" = 'old'   # quoted key, literal value
count = 5 # how many
[t]
note = """
count = 99
"""
count = 1
'''
    doc = load("toml", text, "config.toml")
    doc.set(("model",), "new")
    doc.set(("count",), 7)
    doc.set(("t", "count"), 2)  # the line inside the string above is not the key
    assert doc.dump() == text.replace("'old'", "'new'").replace("5 #", "7 #").replace(
        "count = 1", "count = 2"
    )
    assert doc._tk_doc is None  # a strict file's scalar edits never parse it with tomlkit
    assert verify_edit("toml", load("toml", text, "config.toml"), doc) == doc.dump()


def test_a_value_tomllib_cannot_judge_alone_still_goes_through_tomlkit() -> None:
    # TOML 1.1 (inline tables over lines) is not strict TOML 1.0: tomlkit reads and edits it
    text = "t = {\n  a = 1,\n}\nmodel = 'x'\n"
    _, out = edited(text, ("set", ("model",), "y"), ("set", ("t", "a"), 2))
    assert "model = 'y'" in out and "a = 2" in out


def test_equal_set_is_a_no_op_but_type_matters() -> None:
    doc, text = edited(
        CODEX, ("set", ("model",), "gpt-5"), ("set", ("model_providers", "late", "big"), float("inf"))
    )
    assert doc.ops == [] and text == CODEX
    doc, text = edited("n = 1\n", ("set", ("n",), 1.0), ("set", ("n",), 1.0))
    assert text == "n = 1.0\n" and len(doc.ops) == 1
    doc, text = edited("flag = 1\n", ("set", ("flag",), True))
    assert text == "flag = true\n"


def test_new_key_goes_after_the_last_key_of_its_table_not_under_the_next_tables_comment() -> None:
    _, text = edited(CODEX, ("set", ("model_providers", "openai", "wire_api"), "responses"))
    assert (
        'http_headers = { "X-Org" = "acme", X-Team = \'ml\' }\nwire_api = "responses"\n\n# docs MCP' in text
    )
    _, text = edited(CODEX, ("set", ("profiles", "fast", "n"), 1))
    assert "  effort = 'low'\n  n = 1\n\n[[servers]]" in text  # in the table's own indentation


def test_new_top_level_scalar_goes_before_the_first_table() -> None:
    _, text = edited(CODEX, ("set", ("model_reasoning_effort",), "high"))
    assert 'tools.web_search = true\nmodel_reasoning_effort = "high"\n\n[model_providers.openai]' in text


def test_new_table_goes_next_to_its_relatives_with_blank_lines_around() -> None:
    _, text = edited(CODEX, ("set", ("model_providers", "gwconf"), GWCONF_PROVIDER))
    assert text.endswith(
        'big = +inf\n\n[model_providers.gwconf]\nname = "gwconf"\n' + text.split('gwconf"\n', 2)[-1]
    )
    assert text.index("[model_providers.late]") < text.index("[model_providers.gwconf]")
    siblings = '[model_providers.openai]\nname = "x"\n\n# about other\n[other]\ny = 2\n'
    _, text = edited(siblings, ("set", ("model_providers", "gw"), {"name": "gw"}))
    assert (
        text
        == '[model_providers.openai]\nname = "x"\n\n[model_providers.gw]\nname = "gw"\n\n# about other\n[other]\ny = 2\n'
    )
    _, text = edited(CODEX, ("set", ("brand_new", "deep", "key"), 1))
    assert text == CODEX + "\n[brand_new.deep]\nkey = 1\n"


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_table_added_at_the_end_goes_above_the_blank_lines_that_end_the_file(eol: str) -> None:
    """A real elia config.toml ends in three blank lines. The new ``[[models]]`` element went below
    them, and the final-newline state put three more under it; once the user added a table
    after it, restore took out the element and one blank line: two stayed for good."""
    user = '[[models]]\nname = "ollama/llama3.3:latest"\n\n\n\n'.replace("\n", eol)
    entry = {"id": "gwconf", "name": "openai/m"}
    _, applied = edited(user, ("append", ("models",), entry))
    assert (
        applied
        == user[: -3 * len(eol)]
        + eol
        + '[[models]]\nid = "gwconf"\nname = "openai/m"\n'.replace("\n", eol)
        + 3 * eol
    )
    _, applied = edited(user, ("set", ("providers", "gw"), {"url": "u"}))  # a table, no relative
    assert applied.startswith(user[: -3 * len(eol)] + eol + "[providers.gw]")
    assert applied.endswith('url = "u"' + 4 * eol)
    added = user + eol + "[user_added]" + eol + "x = 1" + eol  # after the element, set apart
    with_entry = edited(user, ("append", ("models",), entry))[1] + eol + "[user_added]" + eol + "x = 1" + eol
    _, restored = edited(with_entry, ("delete", ("models", 1)))
    assert restored == added


def test_a_table_taken_out_leaves_the_users_line_of_spaces_above_it() -> None:
    """A real kimi-code config.toml has a line holding one space between two tables. A table
    put after the first went below that line with an empty line of its own under it; taking it
    out took the line of spaces, not the empty line the insert had added."""
    user = '[providers.kimi-code]\ntype = "kimi"\n \n[models.kimi-code]\nmodel = "k"\n'
    _, applied = edited(user, ("set", ("providers", "gwconf"), {"type": "openai"}))
    assert applied == user.replace(" \n[models", ' \n[providers.gwconf]\ntype = "openai"\n\n[models')
    _, restored = edited(applied, ("delete", ("providers", "gwconf")))
    assert restored == user


def test_nested_dicts_become_sub_tables_but_inline_under_inline_tables() -> None:
    value = {"command": "uvx", "env": {"TOKEN": "x"}}
    _, text = edited(CODEX, ("set", ("mcp_servers", "gw"), value))
    assert '[mcp_servers.gw]\ncommand = "uvx"\n\n[mcp_servers.gw.env]\nTOKEN = "x"\n' in text
    _, text = edited(CODEX, ("set", ("model_providers", "openai", "http_headers", "X-Extra"), {"a": 1}))
    assert "X-Team = 'ml', X-Extra = {a = 1} }" in text  # the blank before "}" kept
    _, text = edited("a = { b = 1 }\n", ("set", ("a", "c", "d"), "e"))  # missing parents inside inline
    assert load("toml", text, "x").data() == {"a": {"b": 1, "c": {"d": "e"}}}


def test_setting_a_table_edits_it_key_by_key_keeping_its_comments() -> None:
    text = '[gw]\n# the address\nbase_url = "old"  # note\nstale = 1\n'
    _, out = edited(text, ("set", ("gw",), {"base_url": "new", "name": "n"}))
    assert out == '[gw]\n# the address\nbase_url = "new"  # note\nname = "n"\n'


def test_type_changes_between_tables_and_values() -> None:
    _, text = edited("a = 1\n\n[t]\nx = 1\n", ("set", ("t",), "flat"))
    assert text == 'a = 1\nt = "flat"\n'
    _, text = edited("a = 1\nt = 'flat'\n", ("set", ("t",), {"x": 1}))
    assert text == "a = 1\n\n[t]\nx = 1\n"


def test_crlf_files_get_crlf_lines_and_mixed_files_stay_as_they_are() -> None:
    _, text = edited(
        crlf(CODEX), ("set", ("model_providers", "gwconf"), GWCONF_PROVIDER), ("set", ("zz",), 1)
    )
    assert not re.search(r"(?<!\r)\n", text)
    mixed = "a = 1\r\nb = 2\r\nc = 3\n"
    _, text = edited(mixed, ("set", ("b",), 5))
    assert text == "a = 1\r\nb = 5\r\nc = 3\n"


def test_toml_1_1_files_that_tomllib_rejects_can_still_be_edited() -> None:
    text = 't = { b = 1, }  # TOML 1.1 trailing comma\nesc = "\\e"\n'
    _, out = edited(text, ("set", ("c",), 2), ("set", ("t", "b"), 5))
    assert load("toml", out, "x").data() == {"t": {"b": 5}, "esc": "\x1b", "c": 2}
    assert out.startswith("t = { b = 5, }  # TOML 1.1 trailing comma\n")


def test_refusals() -> None:
    doc = load("toml", CODEX, "config.toml")
    for bad in [lambda: doc.set((), {}), lambda: doc.set(("k",), None), lambda: doc.set(("k",), {1: 2})]:
        with pytest.raises(WriteRefused):
            bad()
    with pytest.raises(WriteRefused):
        doc.set(("model", "sub"), 1)  # model is a string
    with pytest.raises(WriteRefused):
        doc.append(("model",), 1)
    assert doc.ops == [] and doc.dump() == CODEX


# -- lists -----------------------------------------------------------------------------------------


def test_append_to_arrays_and_arrays_of_tables() -> None:
    doc, text = edited(
        CODEX,
        ("append", ("mcp_servers", "docs", "args"), "--port"),
        ("append", ("servers",), {"name": "c"}),
        ("append", ("trusted",), "/src"),
    )
    assert 'args = ["-y", "docs-mcp", "--port"]' in text
    assert '[[servers]]\nname = "b"\n\n[[servers]]\nname = "c"\n\n[model_providers.late]' in text
    assert 'trusted = ["/src"]\n' in text
    assert load("toml", text, "x").get(("servers", 2)) == {"name": "c"}
    assert doc.append(("trusted",), "/more") == 1


def test_new_key_in_an_array_element_stays_above_the_next_tables_comment() -> None:
    text = "[[srv]]\nb = 1\n# about q\n[q]\na = 1\n"
    _, out = edited(text, ("set", ("srv", 0, "a"), 0))
    assert out == "[[srv]]\nb = 1\na = 0\n# about q\n[q]\na = 1\n"  # tomlkit puts it under the comment
    _, out = edited(out, ("set", ("srv",), 0))
    assert out == "srv = 0\n# about q\n[q]\na = 1\n"


def test_deleting_an_array_element_keeps_every_comment_line() -> None:
    """restore takes out elia's [[models]] entry gwconf appended; a note the user wrote under it
    (or inside it) is theirs. tomlkit took the lines after the element with it."""
    text = (
        '[[models]]\nname = "a"\n\n[[models]]\nid = "gw"\n# mine, inside\nname = "gw"\n'
        "[models.extra]\nx = 1\n# my note at the end\n"
    )
    _, out = edited(text, ("delete", ("models", 1)))
    assert out == '[[models]]\nname = "a"\n# mine, inside\n# my note at the end\n'
    _, out = edited(text + '\n[[models]]\nname = "c"\n', ("delete", ("models", -2)))
    assert out == ('[[models]]\nname = "a"\n# mine, inside\n# my note at the end\n\n[[models]]\nname = "c"\n')


def test_sub_tables_of_array_elements_go_right_after_their_element() -> None:
    text = "[[srv]]\nn = 1\n[srv.env]\nA = 1\n\n[[srv]]\nn = 2\n# about x\n[x]\n"
    _, out = edited(
        text,
        ("set", ("srv", 0, "env", "B"), 2),
        ("set", ("srv", 0, "more"), {"q": 1}),
        ("set", ("srv", 1, "env"), {"C": 3}),
        ("set", ("srv", -1, "z"), 0),
    )
    assert out == (
        "[[srv]]\nn = 1\n[srv.env]\nA = 1\nB = 2\n\n[srv.more]\nq = 1\n\n"
        "[[srv]]\nn = 2\nz = 0\n\n[srv.env]\nC = 3\n\n# about x\n[x]\n"
    )


def test_keys_of_array_elements_are_replaced_without_building_tomlkits_tree() -> None:
    """elia's and gptme's [[models]] entries, edited key by key as upsert_table does."""
    text = (
        "# my models\n[[models]]\nid = 'mine'  # keep\nname = \"a\"\n\n"
        '[[models]]\nid = "gwconf"\nname = "old"   # aligned\napi_base = "https://x/v1"\n'
    )
    # in a fresh interpreter: no key of an element is a table here, the header lines say so
    probe = (
        "import sys\nfrom gwconf.formats import load, verify_edit\n"
        f"text = {text!r}\n"
        "doc = load('toml', text, 'config.toml')\n"
        "doc.set(('models', 1, 'name'), 'new')\n"
        "doc.set(('models', 1, 'api_base'), 'https://y/v1')\n"
        "doc.set(('default_model',), 'gwconf')\n"
        "out = verify_edit('toml', load('toml', text, 'config.toml'), doc)\n"
        "print('tomlkit' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.stdout == "False\n", result.stderr
    _, out = edited(
        text,
        ("set", ("models", 1, "name"), "new"),
        ("set", ("models", 1, "api_base"), "https://y/v1"),
        ("set", ("default_model",), "gwconf"),
    )
    assert out == 'default_model = "gwconf"\n' + text.replace('"old"   #', '"new"   #').replace(
        "https://x/v1", "https://y/v1"
    )


@pytest.mark.parametrize(
    ("text", "path", "value", "expected"),
    [
        # a header under the element reaches the key: a [table] becomes a plain value
        ("[[m]]\nid = 1\n[m.opt]\nx = 1\n", ("m", 0, "opt"), "flat", {"m": [{"id": 1, "opt": "flat"}]}),
        # a dotted-key table inside the element: not a header table
        ("[[m]]\nid = 1\nopt.x = 1\n", ("m", 0, "opt"), "flat", {"m": [{"id": 1, "opt": "flat"}]}),
        # an inline table inside the element
        ("[[m]]\nid = 1\nopt = {x = 1}\n", ("m", 0, "opt"), {"x": 2}, {"m": [{"id": 1, "opt": {"x": 2}}]}),
        # an inline array of tables: no [[headers]] to go by
        ("m = [{id = 1}]\n", ("m", 0, "id"), 2, {"m": [{"id": 2}]}),
    ],
)
def test_keys_of_array_elements_the_headers_cannot_tell_go_through_tomlkit(
    text: str, path: tuple, value: object, expected: dict
) -> None:
    import tomllib

    _, out = edited(text, ("set", path, value))
    assert tomllib.loads(out) == expected


# -- deleting --------------------------------------------------------------------------------------


def test_delete_a_key_and_a_missing_key() -> None:
    doc, text = edited(CODEX, ("delete", ("model_providers", "openai", "base_url")))
    assert changed_lines(CODEX, text) == ['base_url = "https://api.openai.com/v1"  # local\n']
    assert doc.delete(("nope", "deeper")) is False


def test_delete_a_table_keeps_the_comments_of_other_tables() -> None:
    text = "[a]\nx = 1\n\n# about b\n[b]\ny = 2\n\n# about c\n[c]\nz = 3\n"
    _, out = edited(text, ("delete", ("b",)))
    # the comment of [c] stays on [c]; the one above the removed header is kept, detached
    assert out == "[a]\nx = 1\n\n# about b\n\n# about c\n[c]\nz = 3\n"
    _, out = edited(text, ("delete", ("a",)))
    assert out == "# about b\n[b]\ny = 2\n\n# about c\n[c]\nz = 3\n"


def test_delete_a_table_with_its_sub_tables_out_of_order() -> None:
    text = "[a]\nx = 1\n\n[b]\ny = 1\n\n[a.c]\nz = 1\n"
    _, out = edited(text, ("delete", ("a",)))
    assert out == "[b]\ny = 1\n"


def test_deleting_a_family_of_tables_keeps_free_standing_comments_between_them() -> None:
    text = "a = 1\n[model_providers.gw]\n\n# note"
    _, out = edited(text, ("set", ("model_providers", "gwconf", "name"), 0), ("set", ("model_providers",), 0))
    assert out == "a = 1\nmodel_providers = 0\n\n# note"
    _, out = edited("[t]\nx = 1\n\n# about sub\n[t.sub]\ny = 2\n", ("delete", ("t",)))
    assert out == "# about sub\n"


def test_deleting_the_last_table_under_an_implicit_parent_removes_the_parent_too() -> None:
    doc, _ = edited(CODEX, ("delete", ("mcp_servers", "docs")))
    assert "mcp_servers" not in doc.data()
    assert [op.path for op in doc.ops] == [("mcp_servers", "docs"), ("mcp_servers",)]


_MANY_KEYS = "".join(f'k{i} = "value {i}"\n' for i in range(500))


@pytest.mark.parametrize("ending", ["lf", "crlf"])
def test_deleting_a_table_with_many_keys_sub_tables_and_comments_leaves_exactly_the_rest(ending: str) -> None:
    text = (
        '# top\nmodel = "m"\n\n# about gwconf\n[model_providers.gwconf]\nname = "gw"\n'
        + _MANY_KEYS
        + "# right under the keys\n\n# free-standing\n\n"
        + '[model_providers.gwconf.headers]\nx = "1"\n  # inside\ny = """\n\n"""\n\n'
        + "[[model_providers.gwconf.list]]\na = 1\n\n[other]\na = 1\n\n"
        + "[model_providers.gwconf.late]  # after another table\nz.w = 1\n"
    )
    want = '# top\nmodel = "m"\n\n# about gwconf\n# right under the keys\n\n# free-standing\n  # inside\n\n[other]\na = 1\n'
    if ending == "crlf":
        text, want = crlf(text), crlf(want)
    _, out = edited(text, ("delete", ("model_providers", "gwconf")))
    assert out == want


@pytest.mark.parametrize(
    ("text", "path", "want"),
    [
        # first in the file: the blank line under it goes
        ("[t]\n" + _MANY_KEYS + "\n[t.sub]\ns = 1\n\n[u]\nb = 1\n", ("t",), "[u]\nb = 1\n"),
        # last in the file, without a final newline
        ("a = 1\n\n[t]\n" + _MANY_KEYS.rstrip("\n"), ("t",), "a = 1"),
        # a comment above it stays, set apart from the next header
        ("a = 1\n# about t\n[t]\n" + _MANY_KEYS + "[u]\nb = 1\n", ("t",), "a = 1\n# about t\n\n[u]\nb = 1\n"),
        # split in two places, a comment between its keys
        (
            "[t]\n"
            + _MANY_KEYS
            + "  # between\nx = 1\n\n[u]\nb = 1\n\n[t.sub]\n"
            + _MANY_KEYS
            + "\n[v]\nc = 1\n",
            ("t",),
            "  # between\n\n[u]\nb = 1\n\n[v]\nc = 1\n",
        ),
    ],
)
@pytest.mark.parametrize("ending", ["lf", "crlf"])
def test_deleting_a_table_with_many_keys_at_the_edges_of_the_file(
    text: str, path: tuple, want: str, ending: str
) -> None:
    if ending == "crlf":
        text, want = crlf(text), crlf(want)
    _, out = edited(text, ("delete", path))
    assert out == want


# -- undo gives back the original bytes ---------------------------------------------------------

LAYOUTS = {
    "codex": 'model = "gpt-5"  # the model\nmodel_provider = "openai"\n\n# docs\n[mcp_servers.docs]\ncommand = "x"\n',
    "no provider key": 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "x"\n',
    "provider sibling": 'model = "m"\n\n[model_providers.openai]\nname = "x"\n\n# about other\n[other]\ny = 2\n',
    "only tables": "[t]\nx = 1\n",
    "comment first": "# hello\n\n[t]\nx = 1\n",
    "comment on table": "# hello\n[t]\nx = 1\n",
    "scalars only": "a = 1\n",
    "empty": "",
    "trailing blank": "a = 1\n\n[t]\nx = 1\n\n",
    "dotted providers": 'model_providers.gw.name = "GW"\nmodel_providers.gw.base_url = "u"\n\n[other]\nx = 1\n',
    "the full fixture": CODEX,
}


def _gwconf_apply(doc: TomlDocument) -> None:
    doc.set(("model_provider",), "gwconf")
    doc.set(("model_providers", "gwconf"), GWCONF_PROVIDER)


def _gwconf_remove(doc: TomlDocument, old_provider: object) -> None:
    doc.delete(("model_providers", "gwconf"))
    if old_provider is MISSING:
        doc.delete(("model_provider",))
    else:
        doc.set(("model_provider",), old_provider)


@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("ending", ["lf", "crlf", "no final newline"])
def test_apply_then_remove_gives_back_the_original_bytes(name: str, ending: str) -> None:
    original = LAYOUTS[name]
    if ending == "crlf":
        original = crlf(original)
    elif ending == "no final newline":
        original = original.rstrip("\n")
    old = load("toml", original, "config.toml").get(("model_provider",))
    # one session
    doc = load("toml", original, "config.toml")
    _gwconf_apply(doc)
    applied = verify_edit("toml", load("toml", original, "config.toml"), doc)
    _gwconf_remove(doc, old)
    assert verify_edit("toml", load("toml", original, "config.toml"), doc) == original
    # and across processes: remove from the file as written, as `gwconf remove` does later
    later = load("toml", applied, "config.toml")
    _gwconf_remove(later, old)
    assert verify_edit("toml", load("toml", applied, "config.toml"), later) == original
    if ending == "crlf" and original:
        assert not re.search(r"(?<!\r)\n", applied)
    if ending == "no final newline" and original:
        assert not applied.endswith("\n")


@pytest.mark.parametrize("variant", [lambda t: t, crlf, lambda t: t.rstrip("\n")])
def test_adding_then_removing_single_keys_gives_back_the_original_bytes(variant) -> None:
    original = variant(CODEX)
    paths = [
        ("model_providers", "openai", "wire_api"),
        ("profiles", "fast", "n"),
        ("zz",),
        ("servers", 1, "x"),
    ]
    _, applied = edited(original, *[("set", path, "v") for path in paths])
    later = load("toml", applied, "config.toml")
    for path in paths:
        later.delete(path)
    assert verify_edit("toml", load("toml", applied, "config.toml"), later) == original


# -- the dotted-key super-table corruption of tomlkit (shared/reference/formats.md 2.1) ----------

DOTTED = 'model_providers.gw.name = "GW"\nmodel_providers.gw.base_url = "u"\n\n[other]\nx = 1\n'


def test_a_table_under_dotted_keys_is_added_without_corruption() -> None:
    _, text = edited(DOTTED, ("set", ("model_providers", "new"), {"name": "New"}))
    assert load("toml", text, "x").data()["model_providers"] == {
        "gw": {"name": "GW", "base_url": "u"},
        "new": {"name": "New"},
    }


def test_plain_tomlkit_would_corrupt_that_file_and_gwconf_refuses_instead(monkeypatch) -> None:
    # take away gwconf's own placement: what is left is tomlkit's, which moves base_url into the
    # new table (it would read back as model_providers.new.model_providers.gw.base_url)
    monkeypatch.setattr(TomlDocument, "_text_new_table", lambda self, path, value: None)
    doc = load("toml", DOTTED, "config.toml")
    with pytest.raises(WriteRefused):  # at once, or when the optimistic text is read back
        doc.set(("model_providers", "new"), {"name": "New"})
        doc.dump()
    assert doc.dump() == DOTTED and doc.ops == []


def test_an_optimistic_edit_that_reads_back_wrong_is_made_again_the_careful_way(monkeypatch) -> None:
    # gwconf's text-level way is taken without a parse; fault: it puts the new key at the end of
    # the file, inside [other]. dump() reads the text back, sees it, and makes every edit again,
    # each read back before it is taken: the text-level way is refused, tomlkit's is taken.
    monkeypatch.setattr(TomlDocument, "_text_new_key", lambda self, path, value: self._text + 'model = "m"\n')
    doc = load("toml", DOTTED, "config.toml")
    doc.set(("model",), "m")
    doc.set(("other", "x"), 2)
    text = doc.dump()
    assert load("toml", text, "x").data() == {
        "model": "m",
        "model_providers": {"gw": {"name": "GW", "base_url": "u"}},
        "other": {"x": 2},
    }
    assert [op.path for op in doc.ops] == [("model",), ("other", "x")]
    assert verify_edit("toml", load("toml", DOTTED, "config.toml"), doc) == text


def toml_reads(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """The length of each text tomllib parses from here on, in order."""
    import tomllib

    reads: list[int] = []
    real_loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: reads.append(len(text)) or real_loads(text))
    return reads


def test_a_run_of_edits_reads_the_file_back_once(monkeypatch) -> None:

    reads = toml_reads(monkeypatch)
    doc = load("toml", CODEX, "config.toml")
    doc.set(("model",), "my-model")
    doc.set(("model_provider",), "gwconf")
    doc.set(("model_providers", "gwconf"), GWCONF_PROVIDER)
    doc.set(("profiles", "fast", "model"), "my-model")
    assert len(reads) == 1  # the load; the edits are not read back one by one
    doc.dump()
    # read back once, for all of them, from the lines they changed alone (a value changed in
    # place in [profiles.fast] too): never the whole file again
    assert reads[1:] and all(n < len(CODEX) for n in reads[1:])
    assert sum(reads[1:]) < len(CODEX)
    assert load("toml", doc.dump(), "x").data()["model_providers"]["gwconf"] == GWCONF_PROVIDER


def test_the_write_gate_refuses_a_corrupted_text() -> None:
    import tomlkit

    doc = load("toml", DOTTED, "config.toml")
    raw = tomlkit.parse(DOTTED)
    raw["model_providers"]["new"] = {"name": "New"}  # what tomlkit alone writes
    doc._text = raw.as_string()
    doc.edits.append(changed_edit(DOTTED, doc._text))  # recorded: the data check alone decides
    doc.ops.append(
        __import__("gwconf.formats", fromlist=["Op"]).Op("set", ("model_providers", "new"), {"name": "New"})
    )
    with pytest.raises(WriteRefused, match="reads back differently"):
        verify_edit("toml", load("toml", DOTTED, "config.toml"), doc)


# -- property: random files, random edits ------------------------------------------------------

_VALUES = st.one_of(
    st.integers(-5, 99),
    st.booleans(),
    st.text(st.sampled_from("ab'\" \\#é\n"), max_size=5),
    st.lists(st.integers(0, 9), max_size=3),
)
_SCALAR_TEXT = st.sampled_from(
    [
        "1",
        '"s"',
        "'lit'",
        "true",
        "[1, 2]",
        "{ k = 'v', n = 2 }",
        '"a # b"',
        "-0.5",
        '"""\n[x]\n# y\n"""',
        "[\n  1, # c\n  2,\n]",
    ]
)
_SPACING = st.sampled_from([" = ", "=", "   =  ", "\t= "])
_COMMENT = st.sampled_from(["", "  # trailing", " #x"])
_FILLER = st.lists(st.sampled_from(["", "# note", "   # indented note", "\t"]), max_size=2)
_TABLES = {  # path -> header line
    ("t",): "[t]",
    ("t", "sub"): "[ t . sub ]",
    ("model_providers", "gw"): "[model_providers.gw]",
    ("u",): "[u]",
    ("q.x",): '["q.x"]',
    ("srv",): "[[srv]]",
}
_KEYS = ["a", "b", "base_url"]


@st.composite
def toml_files(draw) -> tuple[str, list[tuple[str, tuple]]]:
    """A valid file and, per line, the key path it belongs to (None for blanks and comments)."""
    lines: list[tuple[str, tuple | None]] = []

    def fill(owner: tuple) -> None:
        for filler in draw(_FILLER):
            lines.append((filler, (*owner, "[]") if filler.strip() else None))

    def keys(owner: tuple) -> None:
        for key in draw(st.lists(st.sampled_from(_KEYS), unique=True, max_size=3)):
            fill(owner)
            lines.append((f"{key}{draw(_SPACING)}{draw(_SCALAR_TEXT)}{draw(_COMMENT)}", (*owner, key)))

    fill(())
    keys(())
    if draw(st.booleans()):
        lines.append(("tools . web = true", ("tools", "web")))
    for table in draw(st.lists(st.sampled_from(sorted(_TABLES)), unique=True, max_size=3)):
        fill(())
        lines.append((draw(st.sampled_from(["", "  "])) + _TABLES[table] + draw(_COMMENT), (*table, "[]")))
        keys((*table, 0) if table == ("srv",) else table)
    fill(())
    _own_comments(lines)
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(line.replace("\n", eol) for line, _ in lines)
    if lines and draw(st.booleans()):
        text += eol
    return text, lines


def _own_comments(lines: list[tuple[str, tuple | None]]) -> None:
    """Which table a comment goes with when that table is removed: comments right under its last
    key do; the ones after a blank line, or right above the next header, go with the next table
    (they stay when only the table above them is removed)."""
    section: tuple = ()
    index = 0
    while index < len(lines):
        line, owner = lines[index]
        if owner is not None and not line.lstrip().startswith("#"):
            if owner[-1:] == ("[]",):
                section = owner[:-1]
            index += 1
            continue
        end = index
        while end < len(lines) and (lines[end][1] is None or lines[end][0].lstrip().startswith("#")):
            end += 1
        run = lines[index:end]
        if end < len(lines) and lines[end][1][-1:] != ("[]",):
            first_free = len(run)  # between two keys: inside the table
        else:
            first_free = next((i for i, (text, _) in enumerate(run) if not text.strip()), len(run))
            if first_free == len(run) and end < len(lines):
                first_free = 0  # right above the next header
        following = lines[end][1][:-1] if end < len(lines) else ()
        for i, (text, _) in enumerate(run):
            if text.strip():
                lines[index + i] = (text, (*section, "[]") if i < first_free else (*following, "[]"))
        index = end


_PATHS = [
    ("a",),
    ("new",),
    ("t",),
    ("t", "a"),
    ("t", "new"),
    ("t", "sub"),
    ("t", "sub", "b"),
    ("model_providers",),
    ("model_providers", "gw", "base_url"),
    ("model_providers", "gwconf"),
    ("model_providers", "gwconf", "name"),
    ("u",),
    ("u", "a", "k"),
    ("tools", "web"),
    ("tools", "new"),
    ("t", "arr"),
    ("u", "b"),
    ("srv",),
    ("srv", 0, "a"),
    ("q.x",),
    ("q.x", "a"),
]
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["set", "set", "delete", "append"]),
        st.sampled_from(_PATHS),
        st.one_of(_VALUES, st.dictionaries(st.sampled_from(["name", "a", "q"]), _VALUES, max_size=2)),
    ),
    max_size=4,
)


def _blocked(data: dict, path: tuple) -> bool:
    """The op would set a key under a value that is not a table: not a valid request."""
    node = data
    for part in path[:-1]:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return True
        elif not isinstance(node, dict):
            return True
        elif part not in node:
            return isinstance(path[-1], int) or any(isinstance(p, int) for p in path)
        node = node[part]
    return not isinstance(node, (dict, list)) or (isinstance(node, list) and not isinstance(path[-1], int))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), _OPS)
def test_random_edits_read_back_as_intended_and_leave_other_lines_alone(file, ops) -> None:
    text, lines = file
    doc = load("toml", text, "random.toml")
    original_data = doc.data()
    touched: list[tuple] = []
    for kind, path, value in ops:
        if kind == "set" and not _blocked(doc.data(), path):
            doc.set(path, value)
            touched.append(path)
        elif kind == "delete":
            doc.delete(path)
            touched.append(path)
        elif kind == "append" and not _blocked(doc.data(), path) and isinstance(doc.get(path, []), list):
            doc.append(path, value)
            touched.append(path)
    out = verify_edit("toml", load("toml", text, "random.toml"), doc)
    assert load("toml", out, "x").data() == replay(original_data, doc.ops)
    if not doc.ops:
        assert out == text
    # every line that no edit touched is still there, in order (a header line is owned by a
    # ("table", "[]") path: editing a key of the table does not touch it; a key line holding an
    # inline table is touched by an edit inside it)
    kept = [
        part
        for line, owner in lines
        if owner
        and not any(owner[: len(p)] == p or (owner[-1] != "[]" and p[: len(owner)] == owner) for p in touched)
        for part in line.split("\n")
    ]
    remaining = iter(out.replace("\r\n", "\n").split("\n"))
    assert all(any(line == other for other in remaining) for line in kept), out
    # line endings: a pure CRLF file stays pure CRLF; the final-newline state is kept
    if "\r\n" in text and not re.search(r"(?<!\r)\n", text):
        assert not re.search(r"(?<!\r)\n", out)
    if text.strip() and out.strip():
        assert text.endswith("\n") == out.endswith("\n")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), st.data())
def test_a_key_line_cut_out_is_the_text_tomlkits_delete_gives(file, data) -> None:
    """Deleting a one-line scalar's key cuts its line out of the text, without tomlkit's tree:
    wherever that answers, the text is the one tomlkit's own delete writes, byte for byte."""
    text, lines = file
    keys = [owner for _, owner in lines if owner and owner[-1] != "[]"]
    assume(keys)
    path = data.draw(st.sampled_from(keys))
    doc = load("toml", text, "random.toml")
    cut = doc._text_delete_key(path)
    event("line cut out" if cut is not None else "left to tomlkit")
    if cut is None:
        return
    by_tomlkit = doc._normalize(doc._tk_delete(path))
    if cut.strip(" \t\r\n"):
        assert doc._normalize(cut) == by_tomlkit
    else:  # the key's line was all the content: the blanks stay as they were (tomlkit adds a line break)
        content = [line for line in text.splitlines(keepends=True) if line.strip()]
        assert len(content) == 1 and cut == text.replace(content[0], "", 1)
        assert not by_tomlkit.strip(" \t\r\n")


def test_deleting_scalar_keys_needs_no_tomlkit_tree() -> None:
    """Restore deletes the keys gwconf added one at a time: each is its line cut out (the comment
    after it with it), read back with tomllib, never a tomlkit parse of the whole file."""
    doc = load("toml", CODEX, "config.toml")
    assert doc.delete(("model_provider",))
    assert doc.delete(("model_providers", "openai", "base_url"))
    expected = CODEX.replace('model_provider = "openai"\n', "").replace(
        'base_url = "https://api.openai.com/v1"  # local\n', ""
    )
    assert doc.dump() == expected
    assert doc._tk_doc is None
    assert verify_edit("toml", load("toml", CODEX, "config.toml"), doc) == expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), _OPS, st.sampled_from(["right", "extra key", "other value"]))
def test_reads_as_says_yes_only_when_a_whole_read_agrees(file, ops, intent) -> None:
    """The write gate's shortcut (``reads_as``: the data ``dump`` read back, compared where it
    does not share the loaded data's parts) never vouches for a text a whole read disagrees with,
    wrong intentions included; and for gwconf's own edits it vouches."""
    from gwconf import formats

    text, _ = file
    doc = load("toml", text, "random.toml")
    original_data = doc.data()
    for kind, path, value in ops:
        if kind == "set" and not _blocked(doc.data(), path):
            doc.set(path, value)
        elif kind == "delete":
            doc.delete(path)
    intended = replay(original_data, doc.ops)
    if intent == "extra key":
        intended = replay(intended, [Op("set", ("gwconf_not_written",), 1)])
    elif intent == "other value" and doc.ops and doc.ops[-1].kind == "set":
        intended = replay(intended, [Op("set", doc.ops[-1].path, [doc.ops[-1].value, "other"])])
    whole = formats._same(load("toml", doc.dump(), "x").data(), intended)
    said = doc.reads_as(intended)
    assert not said or whole
    if intent == "right" and doc.ops:
        assert said


def test_a_file_with_nan_can_still_be_edited() -> None:
    """NaN never equals itself; the write gate must still see the edit as intended."""
    from gwconf import formats

    text = "limit = nan\n\n[t]\na = 1\n"
    doc = formats.load("toml", text, "t.toml")
    doc.set(("t", "b"), 2)
    assert formats.verify_edit("toml", formats.load("toml", text, "t.toml"), doc).endswith("b = 2\n")


# -- gwconf's own rendering of new keys and tables matches tomlkit's -----------------------------

_RENDER_KEYS = st.text(st.sampled_from("ab_-1 .\"'é\\\n\t"), max_size=4)
_RENDER_SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(st.sampled_from("ab '\"\\#é\n\t\x00\x7f\x1f🚀"), max_size=6),
)
_RENDER_INLINE = st.recursive(
    _RENDER_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_RENDER_KEYS, inner, max_size=3)),
    max_leaves=8,
)
_RENDER_TABLES = st.recursive(
    st.dictionaries(_RENDER_KEYS, _RENDER_INLINE, max_size=3),
    lambda inner: st.dictionaries(
        _RENDER_KEYS, st.one_of(inner, st.lists(inner, min_size=1, max_size=2), _RENDER_INLINE), max_size=3
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_RENDER_KEYS, min_size=1, max_size=3).map(tuple), _RENDER_TABLES, st.booleans())
def test_own_table_rendering_is_tomlkits(path: tuple[str, ...], table: dict, as_array: bool) -> None:
    from gwconf.formats.toml import _inline_item, _inline_text, _own_chunk, _tomlkit_chunk

    value = [table, table] if as_array else table
    assert _own_chunk(path, value) == _tomlkit_chunk(path, value)
    for item in table.values():
        if not isinstance(item, dict):
            assert _inline_text(item) == _inline_item(item).as_string()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.text(st.sampled_from("ab_-1 .\"'é\\#\t"), min_size=0, max_size=4), min_size=1, max_size=3),
    st.sampled_from(["bare", '"', "'"]),
    st.sampled_from(["[", "[["]),
    st.sampled_from(["", "  ", " # note", "\t#"]),
)
def test_header_lines_read_as_tomllib_reads_them(keys: list[str], quote: str, open_: str, tail: str) -> None:
    import tomllib

    from gwconf.formats.toml import _header_path

    parts = [key if quote == "bare" else f"{quote}{key}{quote}" for key in keys]
    line = f"{open_}{' . '.join(parts)}{']' * len(open_)}{tail}\n"
    try:
        node = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return  # not a header tomllib reads: nothing to agree on
    path = []
    while isinstance(node, dict) and len(node) == 1:
        key = next(iter(node))
        path.append(key)
        node = node[key]
        if isinstance(node, list):
            break
    assert _header_path(line) == (tuple(path), open_ == "[[")


def _advance_char_by_char(line: str, ml: str | None, depth: int) -> tuple[str | None, int]:
    """The lexer step as first written, one character at a time: the reference for the fast one."""
    i, n = 0, len(line)
    while i < n:
        if ml is not None:
            if ml == '"""' and line[i] == "\\":
                i += 2
                continue
            if line.startswith(ml, i):
                i += 3
                extra = 0
                while i < n and line[i] == ml[0] and extra < 2:
                    i += 1
                    extra += 1
                ml = None
                continue
            i += 1
            continue
        c = line[i]
        if c == "#":
            break
        if c in "\"'":
            if line.startswith(c * 3, i):
                ml = c * 3
                i += 3
                continue
            j = i + 1
            while j < n and line[j] != c and line[j] != "\n":
                j += 2 if (c == '"' and line[j] == "\\") else 1
            i = j + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return ml, depth


@settings(max_examples=600, deadline=None)
@given(
    st.text(st.sampled_from("\"'#[]{}\\ a=\n"), max_size=24),
    st.sampled_from([None, '"""', "'''"]),
    st.integers(0, 2),
)
def test_the_lexer_step_jumps_but_agrees_with_reading_every_character(
    line: str, ml: str | None, depth: int
) -> None:
    from gwconf.formats.toml import _advance

    assert _advance(line, ml, depth) == _advance_char_by_char(line, ml, depth)


# -- the text-level fast path falls back only on the failures it expects (issue 16) ---------------


def test_a_fast_path_text_that_does_not_parse_falls_back_to_tomlkit(monkeypatch) -> None:
    # fault: the text-level way writes a key with no value. Optimistic: dump() reads it back, the
    # parse fails (a TOMLDecodeError), every edit is made again carefully, and tomlkit's text wins.
    monkeypatch.setattr(TomlDocument, "_text_new_key", lambda self, path, value: self._text + "model = \n")
    doc = load("toml", DOTTED, "config.toml")
    doc.set(("model",), "m")
    text = doc.dump()
    assert load("toml", text, "x").data()["model"] == "m"
    assert "model = \n" not in text
    assert verify_edit("toml", load("toml", DOTTED, "config.toml"), doc) == text


def test_a_bug_in_the_fast_path_is_not_swallowed(monkeypatch) -> None:
    """An exception no candidate is expected to raise is a bug: it must surface, not quietly turn
    into tomlkit's output (which once hid every fast-path bug behind a slower, correct file)."""

    def broken(self, path, value):
        raise AttributeError("a bug in the text-level way")

    monkeypatch.setattr(TomlDocument, "_text_new_key", broken)
    doc = load("toml", DOTTED, "config.toml")
    with pytest.raises(AttributeError, match="a bug in the text-level way"):
        doc.set(("model",), "m")


def test_the_write_gate_reuses_the_read_back_dump_made(monkeypatch) -> None:
    """Each file is parsed once per command where it can be (issue 15): dump() has read the final
    text back with tomllib, and the write gate's data check uses that read instead of a third."""

    reads = toml_reads(monkeypatch)
    doc = load("toml", CODEX, "config.toml")
    doc.set(("model",), "my-model")
    doc.set(("model_providers", "gwconf"), GWCONF_PROVIDER)
    text = verify_edit("toml", load("toml", CODEX, "config.toml"), doc)
    # this load and the original's; the result is read back from the lines it changed alone
    assert reads[:2] == [len(CODEX)] * 2 and all(n < len(CODEX) // 4 for n in reads[2:])
    assert load("toml", text, "x").data()["model"] == "my-model"


def test_a_text_changed_after_its_read_back_is_parsed_again() -> None:
    """The reuse holds only for the very text that was read back: anything else is parsed."""
    doc = load("toml", DOTTED, "config.toml")
    doc.set(("other", "x"), 2)
    doc.dump()
    broken = doc._text.replace("x = 2", "x = 3")
    doc.edits.append(changed_edit(doc._text, broken))
    doc._text = broken
    with pytest.raises(WriteRefused, match="reads back differently"):
        verify_edit("toml", load("toml", DOTTED, "config.toml"), doc)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'gw = { name = "gw", base_url = "http://x" }\n',
            'gw = { name = "gw", base_url = "http://x", k = "v" }\n',
        ),
        ('gw = {name = "gw"}\n', 'gw = {name = "gw", k = "v"}\n'),
        ("gw = {}\n", 'gw = {k = "v"}\n'),
        ("gw = {  }\n", 'gw = { k = "v" }\n'),
        ("gw = { a = { b = 1 } }  # mine\n", 'gw = { a = { b = 1 }, k = "v" }  # mine\n'),
    ],
)
def test_a_key_added_to_an_inline_table_keeps_its_spacing(before: str, after: str) -> None:
    """`{ a = 1 }` gains `, k = "v" }`, not `, k = "v"}` (issue 23)."""
    original = load("toml", before, "c.toml")
    doc = load("toml", before, "c.toml")
    doc.set(("gw", "k"), "v")
    assert verify_edit("toml", original, doc) == after


# -- the section scan: the fast skip over clean lines finds what the line-by-line scan found ------


def _reference_sections(text: str) -> list[tuple[tuple[str, ...], bool, bool, list[tuple[int, int, str]]]]:
    """The section scan as it was before its fast path: every line through ``_advance``."""
    from gwconf.formats.toml import _advance, _header_path

    sections: list[tuple[tuple[str, ...], bool, bool, list[tuple[int, int, str]]]] = [((), False, False, [])]
    ml, depth, pos = None, 0, 0
    while pos < len(text):
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline + 1
        line = text[pos:end]
        stripped = line.strip()
        if ml is not None:
            kind = "other"
            ml, depth = _advance(line, ml, depth)
        elif not stripped:
            kind = "blank"
        elif stripped.startswith("#"):
            kind = "comment" if depth == 0 else "other"
        elif stripped.startswith("[") and depth == 0:
            kind = "header"
            path, aot = _header_path(line)
            sections.append((path, aot, True, []))
        else:
            kind = "other"
            ml, depth = _advance(line, ml, depth)
        sections[-1][3].append((pos, end, kind))
        pos = end
    return sections


_SECTION_LINES = st.sampled_from(
    [
        "[a]",
        "  [b.c]  # note",
        "[[d]]",
        '["q.x" . y]',
        "k = 1",
        'k = "v [x]" # [c]',
        "k = 'a # b'",
        'k = "esc \\" [" ',
        "args = [",
        "args = [1, [2, {a = 3}]]",
        "  [1, 2],",
        "]",
        "  ]  # end",
        "env = { a = [1], b = { c = 2 } }",
        "x = [[[[1]]]]",
        "  # comment",
        "",
        "   ",
        's = """',
        "s = '''",
        '"""',
        "'''",
        'one = """inline"""',
        "k = 1\r",
        "#[not]",
        "{",
        "}",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SECTION_LINES, max_size=14), st.booleans())
def test_section_scan_matches_the_line_by_line_scan(lines: list[str], final_newline: bool) -> None:
    import gwconf.formats.toml as toml_format

    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    size, toml_format._FAST_SCAN = toml_format._FAST_SCAN, 0  # the fast way on small texts too
    try:
        _check_section_scan(text, toml_format._sections)
    finally:
        toml_format._FAST_SCAN = size


_HEADER_PART = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True),
    st.text(alphabet='ab ./"\\\t-', max_size=6).map(lambda t: '"' + t + '"'),
    st.text(alphabet='ab ."-', max_size=5).map(lambda t: "'" + t + "'"),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_HEADER_PART, min_size=1, max_size=4),
    st.sampled_from([".", " . "]),
    st.booleans(),
    st.sampled_from(["", "\n", "\r\n", "  # c\n"]),
)
def test_plain_headers_are_read_as_the_general_reader_reads_them(parts, dot, aot, end) -> None:
    import gwconf.formats.toml as toml_format

    line = ("[[" if aot else "[") + dot.join(parts) + ("]]" if aot else "]") + end
    try:
        want = toml_format._any_header_path(line)
    except Exception:
        return  # not a header either reader takes
    assert toml_format._header_path(line) == want


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_SECTION_LINES, max_size=12),
    st.lists(_SECTION_LINES, max_size=4),
    st.integers(0, 12),
    st.integers(0, 4),
    st.integers(0, 3),
    st.booleans(),
)
def test_sections_after_an_edit_are_found_from_the_last_texts(
    lines: list[str], added: list[str], at: int, removed: int, inside: int, fast: bool
) -> None:
    """``_sections_since`` (the scan again from the header before the changed span to the first
    old header after it) finds what a whole scan of the new text finds, for any change of lines
    or of characters inside a line, brackets and multi-line strings included."""
    import gwconf.formats.toml as toml_format

    old = "\n".join(lines) + "\n"
    at = min(at, len(lines))
    new = "\n".join(lines[:at] + added + lines[at + removed :]) + "\n"
    if inside and at < len(lines):  # or a change of characters inside line ``at``
        start = sum(len(line) + 1 for line in lines[:at]) + min(inside, len(lines[at]))
        new = old[:start] + "".join(added)[:3] + old[start + inside :]
    size, toml_format._FAST_SCAN = toml_format._FAST_SCAN, (-1 if fast else 1 << 62)
    try:
        try:
            before = toml_format._sections(old)
            want = toml_format._sections(new)
        except Exception:  # a "[" line that is no header: nothing to compare
            return
        got = toml_format._sections_since(old, before, new)
    finally:
        toml_format._FAST_SCAN = size

    def seen(sections: list[Any]) -> list[Any]:  # a kept section's text may be the older one
        return [
            (
                s.path,
                s.aot,
                s.header,
                s.start,
                s.end,
                s.text[s.start : s.end],
                [(r.start, r.end, r.kind) for r in s.rows],
            )
            for s in sections
        ]

    assert seen(got) == seen(want)
    assert all(s.text[s.start : s.end] == new[s.start : s.end] for s in got)


def _check_section_scan(text: str, _sections: Any) -> None:
    try:
        want = _reference_sections(text)
    except Exception as exc:  # a "[" line that is no header (tomlkit cannot read it): both fail alike
        with pytest.raises(type(exc)):
            _sections(text)
        return
    got = [(s.path, s.aot, s.header, [(r.start, r.end, r.kind) for r in s.rows]) for s in _sections(text)]
    assert got == want
    for section in _sections(text):
        rows = section.rows
        assert (section.start, section.end) == ((rows[0].start, rows[-1].end) if rows else (0, 0))


# -- the read-back from the changed lines alone agrees with tomllib on the whole text -------------

_LOCAL_LINES = st.sampled_from(
    [
        "a = 1",
        'b = "x [y]"',
        "a.b = 2",
        "c = { d = 1 }",
        "arr = [",
        "  1,",
        "  [2],",
        "]",
        "[t]",
        "[t.u]",
        "[[aot]]",
        "[aot.sub]",
        "[a]",
        "[a.b]",
        "[t.v]",
        "x = 'lit'",
        "# comment",
        "",
        's = """',
        "[x] inside",
        '"""',
        "[model_providers]",
        "[model_providers.openai]",
        "[model_providers.gwconf]",
        "model_providers.k = 1",
        'name = "n"',
        "[profiles.p]",
        'model = "m"',
        # values changed in place inside a table (``gwconf use``), and look-alikes
        "a = 2",
        'model = "n"',
        "a.c = 3",
        "a = { b = 1 }",
        "b = 1",
    ]
)


@settings(
    max_examples=800, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(
    st.lists(_LOCAL_LINES, max_size=10),
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 3), st.lists(_LOCAL_LINES, max_size=4)),
        min_size=1,
        max_size=3,
    ),
)
def test_reading_only_the_changed_lines_agrees_with_reading_everything(
    lines: list[str], changes: list[tuple[int, int, list[str]]]
) -> None:
    """Soundness of ``_local_read``: whenever it answers, tomllib reads the whole new text, and
    reads it as exactly that. Random edits include wrong ones (a key joining the table above,
    lines inside a multi-line string or array, a table declared twice): those must get None."""
    import tomllib

    from gwconf.formats._base import same_value
    from gwconf.formats.toml import _local_read, _sections

    base = "".join(line + "\n" for line in lines)
    try:
        base_data = tomllib.loads(base)
    except tomllib.TOMLDecodeError:
        return
    text, edits = base, []
    for at, width, new_lines in changes:
        rows = text.splitlines(keepends=True)
        at = min(at, len(rows))
        edited = "".join(rows[:at]) + "".join(line + "\n" for line in new_lines) + "".join(rows[at + width :])
        if edited != text:
            edits.append(changed_edit(text, edited))
        text = edited
    got = _local_read(base, base_data, text, edits, _sections(base))
    # given what makes the sections instead (the editor's way: most edits never need them), the
    # same answer
    lazy = _local_read(base, base_data, text, edits, lambda: _sections(base))
    assert (lazy is None) == (got is None) and (got is None or same_value(lazy, got))
    if got is None:
        return
    assert same_value(got, tomllib.loads(text)), (base, text)


@pytest.mark.parametrize(
    ("base", "new", "local"),
    [
        ('[t]\nmodel = "m"\nname = "n"\n[u]\na = 1\n', '[t]\nmodel = "x"\nname = "n"\n[u]\na = 1\n', True),
        ('[p.q]\nmodel = "m"\n\n[p.r]\nmodel = "m"\n', '[p.q]\nmodel = "m"\n\n[p.r]\nmodel = "y"\n', True),
        ("[t]\na = 1\nb = 2\n", "[t]\nb = 2\na = 1\n", False),  # the keys in another order
        ("[t]\na = 1\n", "[t]\nc = 1\n", False),  # another key
        ("[t]\na.b = 1\na.c = 2\n", "[t]\na.b = 5\na.c = 2\n", False),  # a part of a's value only
        ("[[t]]\na = 1\n[[t]]\na = 2\n", "[[t]]\na = 1\n[[t]]\na = 3\n", False),  # an array of tables
        ("[t]\na = 1\n[t.a2]\nb = 1\n", "[t]\na = 7\n[t.a2]\nb = 1\n", True),
    ],
)
def test_values_changed_inside_a_table_are_read_from_their_lines(base: str, new: str, local: bool) -> None:
    """``gwconf use`` changes a provider's base_url and model inside their tables: read back
    from the changed lines, as tomllib reads the whole text (keys in place), where the old
    lines held the whole of each key's value and the new ones the same keys; else whole."""
    import tomllib

    from gwconf.formats._base import same_value
    from gwconf.formats.toml import _local_read, _sections

    base_data = tomllib.loads(base)
    got = _local_read(base, base_data, new, [changed_edit(base, new)], _sections(base))
    assert (got is not None) == local
    if got is not None:
        assert same_value(got, tomllib.loads(new)) and list(got) == list(tomllib.loads(new))
    assert base_data == tomllib.loads(base)  # the loaded data is left as it was


@pytest.mark.parametrize(
    ("lines", "changes"),
    [
        ([""], [(0, 1, ["[t]"]), (1, 0, ["a = 1"])]),  # found by the property test above
        (["x = 1", "[u]", "b = 2"], [(0, 0, ["[t]"]), (2, 0, ["a = 1"])]),  # just above the next header
        (["x = 1", "[u]", "b = 2"], [(1, 1, []), (3, 0, ["a = 1"])]),  # a header removed: its keys move up
        (["[a]"], [(0, 0, ["a.b = 2"])]),  # a dotted key makes [a] a second time (property test)
        (["[model_providers]"], [(0, 0, ["model_providers.k = 1"])]),
    ],
)
def test_edits_the_changed_lines_alone_cannot_vouch_for_are_read_whole(lines, changes) -> None:
    """Two edits, one adding (or removing) a header and one adding a key line below it before the
    next header: the key belongs to that table, which the changed lines alone cannot show. A
    dotted key above a table's header declares the table twice. Either way: the whole read."""
    import tomllib

    from gwconf.formats._base import same_value
    from gwconf.formats.toml import _local_read, _sections

    base = "".join(line + "\n" for line in lines)
    text, edits = base, []
    for at, width, new_lines in changes:
        rows = text.splitlines(keepends=True)
        edited = "".join(rows[:at]) + "".join(line + "\n" for line in new_lines) + "".join(rows[at + width :])
        edits.append(changed_edit(text, edited))
        text = edited
    got = _local_read(base, tomllib.loads(base), text, edits, _sections(base))
    try:
        whole = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert got is None, (text, got)
        return
    assert got is None or same_value(got, whole), (text, got)


def test_a_new_table_is_read_back_from_its_own_lines(monkeypatch) -> None:
    """Codex's provider added to a big file: the whole file is parsed once (the load), not again."""
    import tomllib

    big = CODEX.replace("[model_providers.openai]", "[providers_elsewhere.openai]") + "".join(
        f'\n[profiles.p{i}]\nmodel = "m{i}"\n' for i in range(200)
    )
    reads = toml_reads(monkeypatch)
    doc = load("toml", big, "config.toml")
    doc.set(("model",), "my-model")
    doc.set(("model_provider",), "gwconf")
    doc.set(("model_providers", "gwconf"), GWCONF_PROVIDER)
    text = verify_edit("toml", load("toml", big, "config.toml"), doc)
    assert reads[0] == len(big) and all(n < len(big) // 10 for n in reads[2:])  # [1]: the 2nd load
    written = tomllib.loads(text)  # after the count: this read is the test's own
    assert written["model_providers"]["gwconf"] == GWCONF_PROVIDER and written["model"] == "my-model"


@pytest.mark.parametrize(
    ("base", "new"),
    [
        ("a = 1\n[t]\nx = 1\n", "a = 1\n[t]\nx = 1\nb = 2\n"),  # b joins [t], not the top level
        ("a = 1\nz = 3\n", "a = 1\n[p.q]\nk = 1\nz = 3\n"),  # z would join [p.q]
        ('s = """\nkeep\n"""\n', 's = """\nkeep\nb = 2\n"""\n'),  # inside a multi-line string
        ("arr = [\n  1,\n]\n", "arr = [\n  1,\nb = 2\n]\n"),  # inside a multi-line array
        ("[model_providers]\nx = 1\n", "[model_providers]\nx = 1\n[model_providers]\ny = 2\n"),
        ("[model_providers]\n", "[model_providers]\n[model_providers.gwconf]\n[model_providers.gwconf]\n"),
        ("mp.k = 1\n[t]\n", "mp.k = 1\n[t]\n[mp.gwconf]\nk = 2\n"),  # mp made by dotted keys
        ("a = 1\n", "a = 1\na = 2\n"),  # a key twice
    ],
)
def test_a_wrong_edit_is_never_read_back_from_its_lines_alone(base: str, new: str) -> None:
    """Edits the lines alone cannot vouch for go to the whole read back (where they fail or read
    differently): the write gate still sees what the file really says."""
    import tomllib

    from gwconf.formats.toml import _local_read, _sections

    assert _local_read(base, tomllib.loads(base), new, [changed_edit(base, new)], _sections(base)) is None


# -- shortcuts past the header scan agree with it ----------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.lists(_SECTION_LINES, max_size=14), st.booleans(), st.sampled_from([0, 5, 40, 1 << 16]))
def test_the_first_header_is_where_the_whole_scan_finds_it(
    lines: list[str], final_newline: bool, window: int
) -> None:
    """``_first_header`` (the preamble's end, read a window at a time) is the whole scan's."""
    import gwconf.formats.toml as toml_format

    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    # texts over ``window`` characters scanned fast, ``window`` characters at a time
    saved = toml_format._FAST_SCAN, toml_format._SCAN_WINDOW
    toml_format._FAST_SCAN = toml_format._SCAN_WINDOW = window
    try:
        try:
            sections = toml_format._sections(text)
        except Exception:  # a "[" line that is no header: nothing to compare
            return
        assert toml_format._first_header(text) == (sections[1].start if len(sections) > 1 else len(text))
    finally:
        toml_format._FAST_SCAN, toml_format._SCAN_WINDOW = saved


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), _OPS)
def test_what_the_data_says_of_headers_agrees_with_the_header_lines(file, ops) -> None:
    """The shortcuts that skip the header scan: a key whose first part the data holds as no table
    is reached by no header (``_kind``), a new table whose first key the data lacks has no
    relative and goes at the end (``_text_new_table``), and the preamble found by reading up to
    the first header is the scan's first section; before and after random edits."""
    from gwconf.formats.toml import _insert_after, _insert_chunk, _sections

    text, _ = file
    doc = load("toml", text, "random.toml")

    def check() -> None:
        doc.dump()  # settled: the data is what the text reads as
        now = doc._text
        first = _sections(now)[0]
        assert (doc._preamble().start, doc._preamble().end) == (first.start, first.end)
        for path in _PATHS:
            if not all(isinstance(p, str) for p in path):
                continue
            assert doc._kind(path) == doc._kind_from_headers(path), (now, path)
            if path[0] not in doc.data():
                chunk = "[x]\nk = 1\n"
                assert _insert_after(now, chunk, None, doc.eol) == _insert_chunk(
                    now, chunk, path, doc.eol, _sections(now)
                )

    check()
    for kind, path, value in ops:
        if kind == "set" and not _blocked(doc.data(), path):
            doc.set(path, value)
        elif kind == "delete":
            doc.delete(path)
        check()


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="a \t\r\n", max_size=40), st.integers(0, 5000), st.text(alphabet=" \t\r\n", max_size=30)
)
def test_the_final_newlines_are_found_from_the_tail_as_from_the_whole_text(
    head: str, pad: int, end: str
) -> None:
    """``_split_final`` reads the last 4 KB (a whole-text ``rstrip`` copied 4 MB per candidate)."""
    from gwconf.formats.toml import _split_final

    for text in (head + end, head + " " * pad + end, head + "x" * pad + end):
        stripped = text.rstrip(" \t\r\n")
        if not stripped:
            assert _split_final(text) == (text, None)
            continue
        rest = text[len(stripped) :]
        cut = min((i for i in (rest.find("\r"), rest.find("\n")) if i >= 0), default=len(rest))
        assert _split_final(text) == (text[: len(stripped) + cut], rest[cut:])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), _OPS)
def test_sections_found_from_known_texts_span_by_span_are_a_whole_scans(file, ops) -> None:
    """``_sections_from_memo``: the sections of an edited text, found from an earlier text's one
    changed span at a time (the edits between them as the guide), are what a whole scan finds;
    random edits, the original's sections asked for in between (as the write gate does)."""
    import gwconf.formats.toml as toml_format

    def seen(sections: list[Any]) -> list[Any]:
        return [
            (s.path, s.aot, s.header, s.start, s.end, [(r.start, r.end, r.kind) for r in s.rows])
            for s in sections
        ]

    text, _ = file
    size, toml_format._FAST_SCAN = toml_format._FAST_SCAN, 0  # the memo's way on small texts too
    try:
        doc = load("toml", text, "random.toml")
        doc._all_sections()
        for index, (kind, path, value) in enumerate(ops):
            if kind == "set" and not _blocked(doc.data(), path):
                doc.set(path, value)
            elif kind == "delete":
                doc.delete(path)
            if index % 2:
                assert seen(doc._sections_for(doc.original, 0)) == seen(toml_format._sections(doc.original))
            else:  # only the original's known: found over every edit's span since
                doc._sections_memo = doc._sections_memo[:1]
            now = doc._text
            assert seen(doc._all_sections()) == seen(toml_format._sections(now)), now
            assert all(s.text[s.start : s.end] == now[s.start : s.end] for s in doc._all_sections())
    finally:
        toml_format._FAST_SCAN = size


_AOT_LINES = st.sampled_from(
    [
        "[[m]]",
        "[[m]]",
        "id = 1",
        'name = "x"',
        "[m.sub]",
        "k = 2",
        "[[m.sub]]",
        "[t]",
        "a = 1",
        "[m]",
        "m = []",
        "",
        "# c",
    ]
)


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(
    st.lists(_AOT_LINES, max_size=12),
    st.integers(0, 12),
    st.lists(
        st.sampled_from(["[[m]]", "id = 9", "[m.sub]", "k = 3", "", "[[m.sub]]", "[t.u]"]),
        min_size=1,
        max_size=5,
    ),
)
def test_elements_added_to_an_array_of_tables_are_read_from_their_lines_only_where_they_end_it(
    lines: list[str], at: int, added: list[str]
) -> None:
    """``_local_read`` takes new ``[[m]]`` elements from their own lines only where they come after
    every header of ``m`` in a file whose ``m`` is an array of tables; anywhere else (between
    elements, above a ``[m.sub]`` that would join them, after a static ``m = []``) the answer it
    gives, if any, is still what tomllib reads from the whole text."""
    import tomllib

    from gwconf.formats._base import same_value
    from gwconf.formats.toml import _local_read, _sections

    base = "".join(line + "\n" for line in (["[[m]]", "id = 0"] if lines[:1] != ["m = []"] else []) + lines)
    try:
        base_data = tomllib.loads(base)
    except tomllib.TOMLDecodeError:
        return
    rows = base.splitlines(keepends=True)
    at = min(at, len(rows))
    text = "".join(rows[:at]) + "".join(line + "\n" for line in added) + "".join(rows[at:])
    got = _local_read(base, base_data, text, [changed_edit(base, text)], _sections(base))
    if got is not None:
        assert same_value(got, tomllib.loads(text)), (base, text)


def test_an_element_appended_to_an_array_of_tables_is_read_back_from_its_own_lines(monkeypatch) -> None:
    """elia's and gptme's entries appended to a big file: the load is its only whole read."""
    import tomllib

    big = (
        "".join(f'[[models]]\nid = "m{i}"\n\n[models.opts]\nk = {i}\n\n' for i in range(300))
        + "[other]\nx = 1\n"
    )
    reads = toml_reads(monkeypatch)
    doc = load("toml", big.replace("[other]\nx = 1\n", ""), "config.toml")
    doc.append(("models",), {"id": "gwconf", "name": "gw"})
    text = verify_edit("toml", load("toml", doc.original, "config.toml"), doc)
    assert all(n < len(big) // 10 for n in reads[2:])  # [0] the load, [1] the 2nd load
    assert tomllib.loads(text)["models"][-1] == {"id": "gwconf", "name": "gw"}


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(
    st.lists(_LOCAL_LINES, max_size=8),
    st.booleans(),
    st.lists(
        st.tuples(
            st.integers(0, 200),
            st.integers(0, 4),
            st.lists(st.sampled_from(["x = 1", " #", "\n", "[t]", "2", "b = 3", '"', "[[aot]]"]), max_size=4),
        ),
        min_size=1,
        max_size=2,
    ),
)
def test_changes_inside_lines_are_never_vouched_for_wrongly(
    lines: list[str], final_newline: bool, changes: list[tuple[int, int, list[str]]]
) -> None:
    """``_local_read`` on edits that start or end inside a line (text run on into the next line,
    a comment swallowing it, text after a last line without a line break): whatever it answers,
    tomllib reads the whole new text so."""
    import tomllib

    from gwconf.formats._base import same_value
    from gwconf.formats.toml import _local_read, _sections

    base = "\n".join(lines) + ("\n" if final_newline and lines else "")
    try:
        base_data = tomllib.loads(base)
    except tomllib.TOMLDecodeError:
        return
    text, edits = base, []
    for at, width, pieces in changes:
        at = min(at, len(text))
        edited = text[:at] + "".join(pieces) + text[at + width :]
        if edited != text:
            edits.append(changed_edit(text, edited))
        text = edited
    if not edits:
        return
    got = _local_read(base, base_data, text, edits, _sections(base))
    if got is None:
        return
    try:
        whole = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise AssertionError(("vouched for a text that does not read", base, text)) from None
    assert same_value(got, whole), (base, text)


@pytest.mark.parametrize(
    ("base", "new"),
    [
        ("a = 1\nb = 2\n", "a = 1\nx = 1 #b = 2\n"),  # the new line's comment takes the next line
        ("a = 1", "a = 1x = 2\n"),  # run on after a last line without a line break
    ],
)
def test_a_change_that_is_not_whole_lines_is_read_whole(base: str, new: str) -> None:
    """Found by reasoning, then the property test above: both read back locally as if they were
    whole lines, though tomllib reads the first without ``b`` and refuses the second."""
    import tomllib

    from gwconf.formats.toml import _local_read, _sections

    assert _local_read(base, tomllib.loads(base), new, [changed_edit(base, new)], _sections(base)) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_files(), _OPS)
def test_every_read_the_editor_and_its_gate_make_is_tomllibs(file, ops) -> None:
    """The editor, its write gate's whole and line-by-line read-backs and its candidates read TOML
    through ``_loads`` (``plaintoml`` for plain text, else tomllib): each of those reads, over
    random files and random edits, gives tomllib's data, key order included (marshal's bytes), or
    is refused where tomllib refuses the text."""
    import marshal
    import tomllib

    from gwconf.formats import toml as toml_format

    real = toml_format._loads
    seen: list[str] = []

    def checked(text: str) -> dict:
        seen.append(text)
        try:
            expected = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            with pytest.raises(ValueError):
                real(text)
            raise
        got = real(text)
        assert marshal.dumps(got) == marshal.dumps(expected), text
        return got

    toml_format._loads = checked  # type: ignore[assignment]
    try:
        text, _ = file
        doc = load("toml", text, "random.toml")
        for kind, path, value in ops:
            try:
                if kind == "set" and not _blocked(doc.data(), path):
                    doc.set(path, value)
                elif kind == "delete":
                    doc.delete(path)
            except WriteRefused:
                pass
        verify_edit("toml", load("toml", text, "random.toml"), doc)
    finally:
        toml_format._loads = real  # type: ignore[assignment]
    assert seen  # the reads went through _loads


# -- removing a table's lines in one pass --------------------------------------------------------


def _cut_line_by_line(text: str, path: tuple[str, ...], sections: list) -> str | None:
    """``_remove_sections`` as it was first written, each line cut out of the whole text in turn
    (a copy of the file per line): the reference the one-pass removal is held to."""
    from gwconf.formats.toml import _ends_blank, _last_line, _starts_blank

    matching = [section for section in sections[1:] if section.path[: len(path)] == path]
    if not matching:
        return None
    for section in reversed(matching):
        own = [row for row in section.rows if row.kind in ("header", "other")]
        for row in reversed(own[1:]):
            text = text[: row.start] + text[row.end :]
        start, stop = own[0].start, own[0].end
        before, after = text[:start], text[stop:]
        if before and _last_line(before).lstrip().startswith("#"):
            if after and not _starts_blank(after) and not after.lstrip(" \t").startswith("#"):
                after = ("\r\n" if before.endswith("\r\n") else "\n") + after
        elif (not before or _ends_blank(before)) and (
            not after or _starts_blank(after) or after.lstrip(" \t").startswith("#")
        ):
            if before and after.startswith(("\n", "\r\n")) and _last_line(before) not in ("", "\r"):
                after = after[after.find("\n") + 1 :]  # the insert's empty line, not the user's blanks
            elif before:
                before = before[: before[:-1].rfind("\n") + 1]
            elif _starts_blank(after):
                newline = after.find("\n")
                after = "" if newline < 0 else after[newline + 1 :]
        text = before + after
    return text


_REMOVAL_LINES = st.sampled_from(
    [
        "[a]",
        "[a.b]",
        "  [a.b]  # note",
        "[ a . b ]",
        "[[a.b]]",
        "[a.b.c]",
        "[b]",
        "[a.bx]",
        '["a".b]',
        "x = 1",
        "  z = 2  # c",
        "a.b.x = 3",
        "k = [",
        "]",
        's = """',
        '"""',
        "# comment",
        "  # indented",
        "\t# tab",
        "",
        "",
        "   ",
        "\t",
    ]
)
_REMOVAL_PATHS = st.sampled_from([("a",), ("a", "b"), ("a", "b", "c"), ("b",), ("t",), ("model_providers",)])


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.tuples(
            st.lists(st.tuples(_REMOVAL_LINES, st.sampled_from(["\n", "\r\n"])), max_size=24), st.just("")
        ),
        toml_files().map(lambda file: ([(file[0], "")], "")),
    ),
    st.sampled_from(["", "\ufeff"]),
    st.sampled_from(["keep", "no final newline", "trailing blanks"]),
    _REMOVAL_PATHS,
)
@example(([("# above", "\r\n"), ("[a]", "\r\n"), ("x = 1", "\r\n"), ("[b]", "\n")], ""), "", "keep", ("a",))
@example(([("[a]", "\n"), ("x = 1", "\n"), ("", "\r\n"), ("[b]", "\n")], ""), "", "keep", ("a",))
@example(  # a user's line of spaces above, the insert's empty line below: the empty one goes
    (
        [
            ("[b]", "\n"),
            ("y = 1", "\n"),
            ("   ", "\n"),
            ("[a]", "\n"),
            ("x = 1", "\n"),
            ("", "\n"),
            ("[c]", "\n"),
        ],
        "",
    ),
    "",
    "keep",
    ("a",),
)
def test_removing_a_table_in_one_pass_cuts_what_cutting_line_by_line_cut(lines, bom, end, path) -> None:
    from gwconf.formats.toml import _remove_sections, _sections

    text = bom + "".join(line + eol for line, eol in lines[0])
    if end == "no final newline":
        text = text.rstrip("\r\n")
    elif end == "trailing blanks":
        text = text.rstrip("\r\n") + "\n  "
    assert _remove_sections(text, path, _sections(text)) == _cut_line_by_line(text, path, _sections(text))


# -- setting a table over one with many keys ----------------------------------------------------


class _KeyByKey(TomlDocument):
    """The editor as it was: a table's stale keys deleted in turn, each a tomlkit parse and a
    read-back of the whole file (a copy of the work per key): the reference the one-text deletion
    is held to."""

    def _delete_keys(self, path: tuple, keys: list[str]) -> None:
        for key in keys:
            self._delete((*path, key))


def _work(monkeypatch) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """How many times tomlkit parses a text and the editor reads one back, from here on."""
    import tomlkit

    from gwconf.formats import toml as toml_format

    counts = {"tomlkit": 0, "reads": 0}
    real_parse, real_loads = tomlkit.parse, toml_format._loads

    def parse(text: str) -> Any:
        counts["tomlkit"] += 1
        return real_parse(text)

    def loads(text: str) -> dict:
        counts["reads"] += 1
        return real_loads(text)

    monkeypatch.setattr(tomlkit, "parse", parse)
    monkeypatch.setattr(toml_format, "_loads", loads)
    return counts


_PROVIDER_KEYS = "".join(
    f'k{i} = "value {i}"  # note {i}\n' + ("\n# between\n" if i % 100 == 99 else "") for i in range(400)
)


@pytest.mark.parametrize("ending", ["lf", "crlf"])
def test_setting_a_table_with_many_keys_to_a_few_cuts_the_rest_in_one_pass(ending: str, monkeypatch) -> None:
    text = (
        '# top\nmodel = "m"\n\n# about gwconf\n[model_providers.gwconf]\nname = "old"  # the name\n'
        + _PROVIDER_KEYS
        + 'base_url = "u"\n# right under the keys\n\n'
        + '[model_providers.gwconf.headers]\nx = "1"\n\n'
        + "# about old\n[model_providers.gwconf.old]\ny = 2\n  # inside\n\n"
        + "[other]\na = 1\n"
    )
    want = (
        '# top\nmodel = "m"\n\n# about gwconf\n[model_providers.gwconf]\nname = "gw"  # the name\n'
        + "\n# between\n" * 4
        + 'base_url = "u"\nenv_key = "K"\n# right under the keys\n\n'
        + '[model_providers.gwconf.headers]\nx = "1"\n\n'
        + "# about old\n  # inside\n\n"
        + "[other]\na = 1\n"
    )
    if ending == "crlf":
        text, want = crlf(text), crlf(want)
    value = {"name": "gw", "base_url": "u", "headers": {"x": "1"}, "env_key": "K"}
    doc = load("toml", text, "config.toml")
    work = _work(monkeypatch)
    doc.set(("model_providers", "gwconf"), value)
    # the 400 keys and the sub-table in one text, read back once: not a parse and a read per key
    assert work == {"tomlkit": 1, "reads": 1}
    assert verify_edit("toml", load("toml", text, "config.toml"), doc) == want


@pytest.mark.parametrize(
    ("text", "path", "value", "want"),
    [
        # an inline table: tomlkit takes the keys and their commas out, the blanks stay
        ("t = { a = 1, b = 2, c = 3, d = 4 }  # inline\n", ("t",), {"c": 3}, "t = {   c = 3  }  # inline\n"),
        # dotted keys under a table
        ("[t]\nd.x = 1\nd.y = 2\ne.z = 3\nk = 1\n", ("t",), {"k": 1}, "[t]\nk = 1\n"),
        # a table split in two places: its keys in one, its sub-tables in the other
        (
            "[t]\na = 1\nb = 2\n\n[u]\nx = 1\n\n[t.s]\ny = 1\n\n[t.r]\nz = 1\n",
            ("t",),
            {"b": 2},
            "[t]\nb = 2\n\n[u]\nx = 1\n",
        ),
        # keys of an [[array]] element, a sub-table of it too (tomlkit's: with its blank line)
        (
            "[[srv]]\na = 1\nb = [\n  1, # one\n]\nc = 3\n[srv.sub]\nd = 1\n\n[[srv]]\na = 2\n",
            ("srv", 0),
            {"c": 3},
            "[[srv]]\nc = 3\n[[srv]]\na = 2\n",
        ),
        # every key of a table that only its sub-tables made: it goes, and comes back whole
        ("[t.a]\nx = 1\n\n[t.b]\ny = 1\n\n[u]\nz = 1\n", ("t",), {"n": 1}, "[u]\nz = 1\n\n[t]\nn = 1\n"),
        # a key between a blank line and a sub-table's header: cut before the sub-table is, as in
        # turn (the other way round, the blank line above the sub-table would stay)
        ("[t]\n\na = 1\n[t.s]\nx = 1\n\n[u]\ny = 1\n", ("t",), {"n": 1}, "[t]\nn = 1\n\n[u]\ny = 1\n"),
        # no final newline, a multi-line string last
        ('[t]\na = 1\nb = """\nx\n"""', ("t",), {"c": 1}, "[t]\nc = 1"),
    ],
)
@pytest.mark.parametrize("ending", ["lf", "crlf"])
def test_setting_a_table_cuts_its_stale_keys_as_cutting_them_one_by_one_did(
    text: str, path: tuple, value: dict, want: str, ending: str
) -> None:
    if ending == "crlf":
        text, want = crlf(text), crlf(want)
    _, out = edited(text, ("set", path, value))
    assert out == want
    reference = _KeyByKey(text, "config.toml")
    reference.set(path, value)
    assert reference.dump() == want


_TABLE_SOUP = st.sampled_from(
    [
        'k{i} = "v{i}"',
        "k{i}=1",
        "  k{i} = 2  # c{i}",
        "\tk{i} = 'lit'",
        '"q{i}" = 3',
        "'l{i}' = 4",
        "k{i} = [\n  1, # in\n  2,\n]",
        'k{i} = """\nml\n[x]\n"""',
        "k{i} = {{ a = 1, b = 'x' }}",
        "k{i} = {{ a = 1, }}",  # TOML 1.1: tomlkit reads the file back
        "d{i}.x = 1",
        "d{i}.y = 2 # dot",
        "k{i} = 1979-05-27",
        "",
        "# note",
        "  # indented",
        "\t",
        "[t.s{i}]",
        "[t.s{i}]  # header",
        "[[t.a{i}]]",
        "[t.s{i}.deep]",
        "[u{i}]",
        "# about\n[t.s{i}]",
    ]
)


@st.composite
def tables_set_anew(draw) -> tuple[str, tuple, dict]:
    """A file with a table ``t`` of many kinds of lines (or one of the editor's random files and
    one of its tables), and a new value for that table: some of its keys kept, as they are or
    changed, some new."""
    soup = draw(st.sampled_from([True, True, True, False]))
    if soup:
        lines = draw(st.lists(_TABLE_SOUP, min_size=2, max_size=24))
        body = "\n".join(line.format(i=i) for i, line in enumerate(lines))
        text = draw(st.sampled_from(["", 'model = "m"\n\n', "# above\n"])) + "[t]\n" + body + "\n"
        text += draw(st.sampled_from(["", "\n[other]\na = 1\n", "\n\n"]))
        text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
        if draw(st.booleans()):
            text = text.rstrip("\r\n")
    else:
        text, _ = draw(toml_files())
    try:
        data = load("toml", text, "x").data()
    except ParseError:
        assume(False)
    tables = _tables_in(data)
    assume(tables)
    path, table = tables[0] if soup else draw(st.sampled_from(tables))  # the soup's first: [t]
    value = {}
    for key in table:
        kept = draw(st.sampled_from(["drop", "drop", "keep", "change"]))
        if kept != "drop":
            value[key] = table[key] if kept == "keep" else draw(st.one_of(_VALUES, st.just({"n": 1})))
    for key in draw(st.lists(st.sampled_from(["name", "base_url", "s0", "new"]), max_size=2)):
        value.setdefault(key, draw(_VALUES))
    return text, path, value or {"name": "gw"}


def _tables_in(node: Any, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """Every table of the data (array elements too) with its path, the top excepted."""
    found = []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in children:
        if isinstance(child, dict):
            found.append(((*path, key), child))
        found += _tables_in(child, (*path, key))
    return found


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(tables_set_anew())
@example(("[t]\n\na = 1\n[t.s]\nx = 1\n\n[u]\ny = 1\n", ("t",), {"n": 1}))
@example(("[t]\r\nb = 1\r\n\r\na = 1\r\n[t.s]\r\nx = 1\r\n\r\n[u]\r\ny = 1", ("t",), {"n": 1}))
def test_setting_a_table_cuts_its_stale_keys_in_one_text_as_they_were_cut_one_by_one(case) -> None:
    """Stale keys deleted in one text read back once give the text that deleting them in turn
    gave, each step parsed and read back (``_KeyByKey``), or the same refusal."""
    text, path, value = case

    def outcome(kind: type[TomlDocument]) -> str:
        doc = kind(text, "x")
        try:
            doc.set(path, value)
        except WriteRefused:
            return "refused"
        return doc.dump()

    assert outcome(TomlDocument) == outcome(_KeyByKey)


def test_put_back_gives_a_one_line_scalar_its_own_spelling_back() -> None:
    """A restore puts a value back as the file had it (found over real dotfiles: ``"o\\u0033"``
    came back as tomlkit spells "o3"), a multi-line string too, over its lines."""
    original = (
        'model = "gpt\\u002d5"  # mine\nname = \'lit\'\nn = 0x1F\nlong = """o3"""\n'
        "lit = '''\nline one\nline two'''  # after\n"
        '[t]\nurl = "https://a\\u002eexample/v1"\n'
    )
    before = load("toml", original, "config.toml")
    paths = (("model",), ("name",), ("n",), ("long",), ("lit",), ("t", "url"))
    assert [before.spelling(p) for p in (*paths, ("t",))] == [
        '"gpt\\u002d5"',
        "'lit'",
        "0x1F",
        '"""o3"""',
        "'''\nline one\nline two'''",
        '"https://a\\u002eexample/v1"',
        None,
    ]
    changed = (
        'model = "x"  # mine\nname = \'y\'\nn = 1\nlong = "o4"\nlit = "z"  # after\n'
        '[t]\nurl = "https://gw.example/v1"\n'
    )
    doc = load("toml", changed, "config.toml")
    for path in paths:
        doc.put_back(path, before.get(path), before.spelling(path) or "")
    assert verify_edit("toml", load("toml", changed, "config.toml"), doc) == original
    doc.put_back(("name",), "other", "'not it'")  # not that value: set's spelling
    assert doc.get(("name",)) == "other"


@pytest.mark.parametrize(
    "text", ['a.b = "x"\n[a.c]\n[a.b]\n', 'a.b = "x"\n[a.c]\n[a.b]\nk = 1\n', "[x]\ny.z = 1\n[x.c]\n[x.y]\n"]
)
def test_a_table_over_a_dotted_keys_value_is_a_parse_error_with_its_line(text: str) -> None:
    """tomlkit parses these and raises ``KeyAlreadyPresent`` only when asked for the data: an
    "unexpected error" in ``status`` and ``apply`` instead of the file and the line."""
    with pytest.raises(ParseError) as raised:
        load("toml", text, "~/.codex/config.toml")
    assert raised.value.line == text.count("\n", 0, text.rindex("[")) + 1
    assert "already exists" in str(raised.value) or "twice" in str(raised.value)
