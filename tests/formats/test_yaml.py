"""The YAML editor splices at node positions: untouched bytes stay, every edit reads back as intended."""

from __future__ import annotations

import difflib
import json
import math
import string
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gwconf.formats.yaml as yaml_format
from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, Op, replay, verify_edit
from gwconf.formats.yaml import MAX_DEPTH, MAX_EXPANDED, YamlDocument, load

SRC = "~/.continue/config.yaml"

CONTINUE = """\
# Continue configuration (https://docs.continue.dev/reference)
name: Local Assistant   # shown in the model picker
version: 1.0.0
schema: v1

x-shared: &shared
  provider: openai
  apiBase: 'https://old.example.com/v1'

models:
  - name: GPT-4o
    provider: openai
    model: gpt-4o
    apiKey: ${{ secrets.OPENAI_API_KEY }}
    roles: [chat, edit]
    defaultCompletionOptions: { temperature: 0.2 }
  - name: Local
    <<: *shared
    model: llama3
    apiBase: 'http://localhost:11434/v1'
    systemMessage: |
      You are a helpful assistant.
      Be brief.

    # apiKey: not-needed

context:
  - provider: code
  - provider: docs
    params: { nRetrieve: 30 }
nulls: ~
"""

AIDER = """\
##########################################################
# Sample .aider.conf.yml
# Place in your home dir, or at the root of your git repo.
##########################################################

#############
# Main model:

## Specify the model to use for the main chat
model: gpt-4o

########################
# API Keys and settings:

## Specify the OpenAI API key
#openai-api-key: xxx

## Specify the api base url
#openai-api-base: xxx

## Enable/disable auto commit of LLM changes (default: True)
auto-commits: false
#dirty-commits: true
"""

LLM = """\
# Extra OpenAI-compatible models for llm
- model_id: "local-llama"
  model_name: "llama3"
  api_base: "http://localhost:11434/v1"
- model_id: "gw-model"
  model_name: "my-model"
  api_base: "https://gw.example.com/v1"
  api_key_name: "gwconf"
"""

INDENTLESS = """\
servers:
- name: one
  url: http://one
- name: two
  url: http://two
tags:
- a
- b
"""

INDENT4 = """\
models:
    -   name: first
        roles:
        - chat
        options:
            temperature: 0.5
other:
    key: value
"""

FIXTURES = {
    "continue": CONTINUE,
    "aider": AIDER,
    "llm": LLM,
    "indentless": INDENTLESS,
    "indent4": INDENT4,
}


def edit(text: str, *ops: Any) -> str:
    """Apply ``ops`` (callables taking the document) and pass the result through the write gate."""
    original = load(text, SRC)
    doc = load(text, SRC)
    for op in ops:
        op(doc)
    return verify_edit("yaml", original, doc)


def diff(before: str, after: str) -> list[str]:
    """Changed lines only (no headers)."""
    return [
        line
        for line in difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.fixture(params=["c", "python"])
def any_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with libyaml's parser and with PyYAML's pure-Python fallback."""
    if request.param == "python":
        monkeypatch.setattr(yaml_format, "LOADER", yaml.SafeLoader)
    return str(request.param)


# -- reading ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_data_is_what_safe_load_reads(name: str, any_loader: str) -> None:
    text = FIXTURES[name]
    doc = load(text, SRC)
    assert doc.data() == yaml.safe_load(text)
    assert doc.dump() == text
    assert doc.ops == []


@pytest.mark.parametrize(
    "text", ["", "\n\n", "# only a comment\n", "# no newline", "---\n", "--- # c\n...\n"]
)
def test_empty_documents_read_as_an_empty_mapping(text: str) -> None:
    doc = load(text, SRC)
    assert doc.data() == {}
    assert doc.get(("a",)) is MISSING


def test_get_follows_paths_merges_and_defaults() -> None:
    doc = load(CONTINUE, SRC)
    assert doc.get(("models", 0, "roles")) == ["chat", "edit"]
    assert doc.get(("models", -1, "provider")) == "openai"  # from the << merge
    assert doc.get(("models", 1, "systemMessage")) == "You are a helpful assistant.\nBe brief.\n"
    assert doc.get(("nulls",)) is None
    assert doc.get(("models", 5), "dflt") == "dflt"
    assert doc.get(("name", "x")) is MISSING
    assert doc.get(("models", "x")) is MISSING
    got = doc.get(("models",))
    got.clear()  # a copy: the document is not affected
    assert len(doc.get(("models",))) == 2


def test_data_is_read_once_per_text_and_an_edit_never_changes_what_was_handed_out() -> None:
    # like the other editors: clients call data() again and again, and a fresh construct of a
    # 6 KB file per call was most of a YAML client's plan; get() still hands out copies of parts
    doc = load("a: {b: 1}\n", SRC)
    data = doc.data()
    assert doc.data() is data
    doc.get(("a",))["b"] = 99
    assert data == {"a": {"b": 1}}
    doc.set(("a", "b"), 2)
    assert data == {"a": {"b": 1}} and doc.data() == {"a": {"b": 2}}


def test_is_reachable_through_the_format_registry() -> None:
    from gwconf import formats

    doc = formats.load("yaml", "a: 1\n", SRC)
    assert isinstance(doc, YamlDocument)
    assert doc.source == SRC and doc.eol == "\n"


# -- setting scalars ---------------------------------------------------------------------------


def test_set_keeps_single_quotes_and_changes_one_line(any_loader: str) -> None:
    out = edit(CONTINUE, lambda d: d.set(("models", 1, "apiBase"), "https://gw.example.com/v1"))
    assert diff(CONTINUE, out) == [
        "-    apiBase: 'http://localhost:11434/v1'\n",
        "+    apiBase: 'https://gw.example.com/v1'\n",
    ]


def test_set_keeps_double_quotes() -> None:
    out = edit(LLM, lambda d: d.set((1, "api_base"), "https://gw2.example.com/v1"))
    assert diff(LLM, out) == [
        '-  api_base: "https://gw.example.com/v1"\n',
        '+  api_base: "https://gw2.example.com/v1"\n',
    ]


def test_set_quotes_yes_and_keeps_comment_and_alignment() -> None:
    out = edit(CONTINUE, lambda d: d.set(("name",), "yes"))
    assert diff(CONTINUE, out) == [
        "-name: Local Assistant   # shown in the model picker\n",
        '+name: "yes"   # shown in the model picker\n',
    ]
    assert yaml.safe_load(out)["name"] == "yes"


def test_single_quoted_value_that_cannot_stay_single_quoted_becomes_double() -> None:
    out = edit(CONTINUE, lambda d: d.set(("models", 1, "apiBase"), "line1\nline2"))
    assert '    apiBase: "line1\\nline2"\n' in out


def test_set_number_over_quoted_string_writes_plain_number() -> None:
    out = edit("port: '8080'  # c\n", lambda d: d.set(("port",), 8081))
    assert out == "port: 8081  # c\n"


def test_set_is_type_exact_and_equal_set_is_a_no_op() -> None:
    doc = load("a: 1\nb: {x: 1, y: 2}\n", SRC)
    doc.set(("a",), 1)
    doc.set(("b",), {"y": 2, "x": 1})
    assert doc.ops == [] and doc.dump() == "a: 1\nb: {x: 1, y: 2}\n"
    doc.set(("a",), True)  # True == 1 in Python, but not in the file
    doc.set(("a",), True)
    assert doc.dump() == "a: true\nb: {x: 1, y: 2}\n"
    assert doc.ops == [Op("set", ("a",), True)]
    doc.set(("a",), 1.0)
    assert doc.dump().startswith("a: 1.0\n")


def test_set_inside_flow_collections_keeps_their_spacing() -> None:
    out = edit(
        CONTINUE,
        lambda d: d.set(("context", 1, "params", "nRetrieve"), 50),
        lambda d: d.set(("models", 0, "roles", 1), "apply"),
    )
    assert diff(CONTINUE, out) == [
        "-    roles: [chat, edit]\n",
        "+    roles: [chat, apply]\n",
        "-    params: { nRetrieve: 30 }\n",
        "+    params: { nRetrieve: 50 }\n",
    ]


def test_flow_strings_are_quoted_for_flow_context() -> None:
    out = edit(
        "roles: [chat, edit]\n", lambda d: d.set(("roles", 0), "a, b"), lambda d: d.set(("roles", 1), "x:y")
    )
    assert out == 'roles: ["a, b", "x:y"]\n'


def test_set_over_block_scalar_keeps_the_next_lines() -> None:
    out = edit(CONTINUE, lambda d: d.set(("models", 1, "systemMessage"), "Be terse."))
    assert diff(CONTINUE, out) == [
        "-    systemMessage: |\n",
        "-      You are a helpful assistant.\n",
        "-      Be brief.\n",
        "+    systemMessage: Be terse.\n",
    ]


def test_set_empty_values_gets_a_separating_space() -> None:
    assert edit("a:\nb: 1\n", lambda d: d.set(("a",), "x")) == "a: x\nb: 1\n"
    assert edit("a:   # c\n", lambda d: d.set(("a",), 2)) == "a: 2   # c\n"
    assert edit("- x\n-\n", lambda d: d.set((1,), "z")) == "- x\n- z\n"
    assert edit("{a, b: 1}\n", lambda d: d.set(("a",), 2)) == "{a: 2, b: 1}\n"


def test_tab_separators_are_kept() -> None:
    # libyaml accepts tabs after ':'; the pure-Python parser does not
    out = edit("a:\tone\t# c\nb:\t2\n", lambda d: d.set(("a",), "two"))
    assert out == "a:\ttwo\t# c\nb:\t2\n"


SCALARS = [
    (None, "null"),
    (True, "true"),
    (False, "false"),
    (-7, "-7"),
    (10**20, "100000000000000000000"),
    (1.5, "1.5"),
    (1e20, "1.0e+20"),
    (1.5e-07, "1.5e-07"),
    (float("inf"), ".inf"),
    (float("-inf"), "-.inf"),
]


def test_scalars_are_written_so_yaml_11_reads_them_back() -> None:
    for value, text in SCALARS:
        out = edit("k: old\n", lambda d, v=value: d.set(("k",), v))
        assert out == f"k: {text}\n"
        assert yaml.safe_load(out)["k"] == value


def test_nan_is_written_as_nan() -> None:
    doc = load("k: 1\n", SRC)
    doc.set(("k",), float("nan"))
    assert doc.dump() == "k: .nan\n" and math.isnan(yaml.safe_load(doc.dump())["k"])


# -- quoting of new strings ----------------------------------------------------------------------

AMBIGUOUS = [
    "yes", "no", "on", "off", "Yes", "OFF", "y", "n", "true", "False", "null", "Null", "~", "",
    "12:30", "0755", "0o17", "0x1F", "0b101", "1_000", "1.10", "1e5", "+1", "-1", ".5", ".inf", "-.Inf", ".nan",
    "2001-12-14", "<<", "=", "a: b", "a:", "a #b", " lead", "trail ", "\tlead", "-x", "- x", "-", "?x", ":x",
    ",x", "[x", "]x", "{x", "}x", "#x", "&x", "*x", "!x", "|x", ">x", "'x", '"x', "%x", "@x", "`x", "---", "...",
    "a\nb", "a\tb", "nel\x85x", "ls\u2028x", "bom\ufeff", "bell\x07", "del\x7f",
]  # fmt: skip

PLAIN = [
    "back\\slash\\",
    "openai",
    "gpt-4o",
    "https://gw.example.com/v1",
    "sk-abc123",
    "hello world",
    "1.0.0",
    "it's",
    "a#b",
    "é😀",
]


def test_ambiguous_strings_are_double_quoted_and_read_back() -> None:
    for value in AMBIGUOUS:
        out = edit("k: plain\n", lambda d, v=value: d.set(("k",), v))
        assert out.startswith('k: "'), out
        assert yaml.safe_load(out) == {"k": value}, out


def test_safe_strings_stay_plain() -> None:
    for value in PLAIN:
        assert edit("k: x\n", lambda d, v=value: d.set(("k",), v)) == f"k: {value}\n"


TRICKY = [
    "sk-a'b\"c\nd",
    "C:\\path\\to",
    "tab\there",
    "ünïcödé 漢字 😀",
    "  both  ",
    "x\r\ny",
    "\x00\x1f",
    "''",
    '""',
]


@pytest.mark.parametrize("old", ["plain", "'single'", '"double"', "|\n  block\n"])
def test_tricky_strings_round_trip_in_every_old_style(old: str) -> None:
    text = f"k: {old}\nnext: 1\n"
    for value in TRICKY:
        out = edit(text, lambda d, v=value: d.set(("k",), v))
        assert yaml.safe_load(out) == {"k": value, "next": 1}, out
        assert out.endswith("\nnext: 1\n")


def test_tricky_keys_round_trip() -> None:
    for key in [*TRICKY, "yes", "1", "null", "a: b"]:
        out = edit("a: 1\n", lambda d, k=key: d.set((k,), "v"), lambda d, k=key: d.set(("m", k), [k]))
        assert yaml.safe_load(out) == {"a": 1, key: "v", "m": {key: [key]}}, out


# -- new keys ----------------------------------------------------------------------------------


def test_new_top_level_key_in_a_mostly_comment_file(any_loader: str) -> None:
    out = edit(AIDER, lambda d: d.set(("openai-api-base",), "https://gw.example.com/v1"))
    assert diff(AIDER, out) == ["+openai-api-base: https://gw.example.com/v1\n"]
    assert out.endswith(
        "auto-commits: false\nopenai-api-base: https://gw.example.com/v1\n#dirty-commits: true\n"
    )


def test_new_key_in_a_file_with_only_comments_goes_at_the_end() -> None:
    text = "# model: gpt-4o\n#openai-api-base: xxx\n"
    assert edit(text, lambda d: d.set(("model",), "openai/my-model")) == text + "model: openai/my-model\n"


def test_new_key_after_a_block_scalar_leaves_blank_line_and_comment_below() -> None:
    out = edit(CONTINUE, lambda d: d.set(("models", 1, "timeout"), 30))
    assert "      Be brief.\n    timeout: 30\n\n    # apiKey: not-needed\n" in out
    assert diff(CONTINUE, out) == ["+    timeout: 30\n"]


def test_new_key_after_a_flow_mapping_value() -> None:
    out = edit(CONTINUE, lambda d: d.set(("models", 0, "apiBase"), "https://gw.example.com/v1"))
    assert (
        "    defaultCompletionOptions: { temperature: 0.2 }\n    apiBase: https://gw.example.com/v1\n" in out
    )
    assert len(diff(CONTINUE, out)) == 1


def test_new_nested_mappings_use_the_files_indentation() -> None:
    out = edit(INDENT4, lambda d: d.set(("other", "new", "deep"), 1))
    assert out.endswith("other:\n    key: value\n    new:\n        deep: 1\n")
    out = edit(CONTINUE, lambda d: d.set(("gateway", "url"), "https://gw"))
    assert out.endswith("nulls: ~\ngateway:\n  url: https://gw\n")


def test_new_key_under_a_dash_aligns_with_the_first_key() -> None:
    assert edit("- a: 1\n", lambda d: d.set((0, "b"), 2)) == "- a: 1\n  b: 2\n"
    assert edit("-   a: 1\n", lambda d: d.set((0, "b"), 2)) == "-   a: 1\n    b: 2\n"


def test_new_key_in_flow_mappings() -> None:
    assert edit("a: {}\n", lambda d: d.set(("a", "b"), 1)) == "a: {b: 1}\n"
    assert edit("a: { x: 1 }\n", lambda d: d.set(("a", "z"), [1, "on"])) == 'a: { x: 1, z: [1, "on"] }\n'


def test_setting_under_a_null_value_makes_it_a_mapping() -> None:
    # replay() cannot set below None, so this one is checked against safe_load directly
    doc = load("a:   # c\nb: 1\n", SRC)
    doc.set(("a", "x"), 1)
    assert doc.dump() == "a:   # c\n  x: 1\nb: 1\n"


def test_file_without_final_newline_gets_new_lines_properly() -> None:
    out = edit("a: 1\nb: 2", lambda d: d.set(("c",), 3))
    assert out == "a: 1\nb: 2\nc: 3"
    out = edit("a: 1  # c", lambda d: d.set(("b",), {"x": 1}), lambda d: d.set(("a",), {"z": 2}))
    assert out == "a:  # c\n  z: 2\nb:\n  x: 1"


def test_crlf_stays_pure_crlf(any_loader: str) -> None:
    text = CONTINUE.replace("\n", "\r\n")
    out = edit(
        text,
        lambda d: d.set(("models", 1, "apiBase"), "https://gw/v1"),
        lambda d: d.set(("gateway", "models"), ["a", {"b": "c"}]),
        lambda d: d.append(("models",), {"name": "gw", "provider": "openai"}),
        lambda d: d.set(("models", 1, "systemMessage"), {"x": 1}),
        lambda d: d.delete(("context", 0)),
    )
    assert out.count("\n") == out.count("\r\n")
    assert "\r\r" not in out


# -- append --------------------------------------------------------------------------------------


def test_append_a_model_to_continue(any_loader: str) -> None:
    doc = load(CONTINUE, SRC)
    item = {"name": "gw", "provider": "openai", "model": "my-model", "apiBase": "https://gw.example.com/v1"}
    assert doc.append(("models",), item) == 2
    out = verify_edit("yaml", load(CONTINUE, SRC), doc)
    assert diff(CONTINUE, out) == [
        "+  - name: gw\n",
        "+    provider: openai\n",
        "+    model: my-model\n",
        "+    apiBase: https://gw.example.com/v1\n",
    ]
    assert "    # apiKey: not-needed\n  - name: gw\n" not in out  # the model goes after Local's own lines
    assert "      Be brief.\n  - name: gw\n" in out


def test_append_to_indentless_and_4_space_sequences() -> None:
    out = edit(INDENTLESS, lambda d: d.append(("servers",), {"name": "three", "url": "http://3"}))
    assert "  url: http://two\n- name: three\n  url: http://3\ntags:\n" in out
    out = edit(INDENTLESS, lambda d: d.append(("tags",), "c"))
    assert out.endswith("- a\n- b\n- c\n")
    out = edit(INDENT4, lambda d: d.append(("models",), {"name": "second"}))
    assert "            temperature: 0.5\n    -   name: second\nother:\n" in out
    out = edit(INDENT4, lambda d: d.append(("models", 0, "roles"), "edit"))
    assert "        roles:\n        - chat\n        - edit\n        options:\n" in out


def test_append_to_llm_top_level_list() -> None:
    item = {"model_id": "new", "model_name": "m", "api_base": "https://gw/v1", "api_key_name": "gwconf"}
    out = edit(LLM, lambda d: d.append((), item))
    assert (
        out == LLM + "- model_id: new\n  model_name: m\n  api_base: https://gw/v1\n  api_key_name: gwconf\n"
    )


def test_append_to_flow_lists() -> None:
    out = edit(CONTINUE, lambda d: d.append(("models", 0, "roles"), "apply"))
    assert diff(CONTINUE, out) == ["-    roles: [chat, edit]\n", "+    roles: [chat, edit, apply]\n"]
    assert edit("a: []\n", lambda d: d.append(("a",), {"q": "r s"})) == "a: [{q: r s}]\n"


def test_append_creates_a_missing_list() -> None:
    out = edit(AIDER, lambda d: d.append(("read",), "CONVENTIONS.md"))
    assert "auto-commits: false\nread:\n  - CONVENTIONS.md\n#dirty-commits" in out
    doc = load("", SRC)
    assert doc.append((), {"model_id": "x"}) == 0
    assert doc.dump() == "- model_id: x\n"


def test_append_to_a_null_value_makes_a_list() -> None:
    # replay() cannot append to None, so this one is checked against safe_load directly
    doc = load("models:  # none yet\nname: x\n", SRC)
    doc.append(("models",), {"name": "gw"})
    assert doc.dump() == "models:  # none yet\n  - name: gw\nname: x\n"


def test_append_refuses_a_non_list() -> None:
    with pytest.raises(WriteRefused, match="not a list"):
        load(CONTINUE, SRC).append(("name",), "x")


# -- replacing across kinds ---------------------------------------------------------------------


def test_scalar_becomes_collection_and_back() -> None:
    assert edit("k: x  # c\nz: 1\n", lambda d: d.set(("k",), {"a": 1})) == "k:  # c\n  a: 1\nz: 1\n"
    assert edit("k:\n  a: 1\n  b: 2\nz: 1\n", lambda d: d.set(("k",), "s")) == "k: s\nz: 1\n"
    assert edit("k:\n  a: 1\n", lambda d: d.set(("k",), ["z"])) == "k:\n  - z\n"
    assert edit("k:\n- a\n- b\n", lambda d: d.set(("k",), {"z": 1})) == "k:\n  z: 1\n"
    assert edit("k:\n- a\n- b\n", lambda d: d.set(("k",), ["c"])) == "k:\n- c\n"
    assert edit("- x\n- y\n", lambda d: d.set((1,), {"z": 1, "w": 2})) == "- x\n- z: 1\n  w: 2\n"
    assert edit("- a: 1\n  b: 2\n- y\n", lambda d: d.set((0,), 5)) == "- 5\n- y\n"
    assert edit("k: |\n  text\nz: 1\n", lambda d: d.set(("k",), [1])) == "k:\n  - 1\nz: 1\n"
    assert edit("k: [a, b]\n", lambda d: d.set(("k",), {"x": [1]})) == "k: {x: [1]}\n"


def test_mapping_over_mapping_changes_key_by_key() -> None:
    text = "m:\n  # keep me\n  a: 1  # and me\n  b: 2\n  c: 3\n"
    out = edit(text, lambda d: d.set(("m",), {"a": 1, "c": 4, "d": 5}))
    assert out == "m:\n  # keep me\n  a: 1  # and me\n  c: 4\n  d: 5\n"


# -- delete ------------------------------------------------------------------------------------


def test_delete_key_keeps_surrounding_comments(any_loader: str) -> None:
    out = edit(AIDER, lambda d: d.delete(("model",)))
    assert diff(AIDER, out) == ["-model: gpt-4o\n"]
    out = edit(CONTINUE, lambda d: d.delete(("models", 1, "systemMessage")))
    assert diff(CONTINUE, out) == [
        "-    systemMessage: |\n",
        "-      You are a helpful assistant.\n",
        "-      Be brief.\n",
    ]


def test_delete_list_items() -> None:
    out = edit(CONTINUE, lambda d: d.delete(("models", 0)))
    assert "models:\n  - name: Local\n" in out and "defaultCompletionOptions" not in out
    out = edit(LLM, lambda d: d.delete((0,)))
    assert out == "# Extra OpenAI-compatible models for llm\n" + LLM.split("\n", 4)[4]
    assert edit("- - a\n  - b\n", lambda d: d.delete((0, 0))) == "- - b\n"


def test_delete_first_key_on_a_dash_line_moves_the_next_one_up() -> None:
    assert edit("- a: 1\n  b: 2\n", lambda d: d.delete((0, "a"))) == "- b: 2\n"


def test_deleting_the_last_entry_leaves_an_empty_collection() -> None:
    assert edit("- a: 1\n", lambda d: d.delete((0, "a"))) == "- {}\n"
    assert edit("x:\n  - a\n", lambda d: d.delete(("x", 0))) == "x: []\n"
    assert edit("x:\n  y: 1\nz: 2\n", lambda d: d.delete(("x", "y"))) == "x: {}\nz: 2\n"
    assert edit("- 1\n", lambda d: d.delete((0,))) == "[]\n"
    assert edit("# c\na: 1\n# d\n", lambda d: d.delete(("a",))) == "# c\n# d\n"


@pytest.mark.parametrize(
    "text, path, expected",
    [
        ("{a: 1, b: 2, c: 3}\n", ("a",), "{b: 2, c: 3}\n"),
        ("{a: 1, b: 2, c: 3}\n", ("b",), "{a: 1, c: 3}\n"),
        ("{a: 1, b: 2, c: 3}\n", ("c",), "{a: 1, b: 2}\n"),
        ("k: { a: 1 }\n", ("k", "a"), "k: {  }\n"),
        ("k: [x, y, z]\n", ("k", 1), "k: [x, z]\n"),
        ("k: [x, y, z]\n", ("k", 2), "k: [x, y]\n"),
        ("k: [x]\n", ("k", 0), "k: []\n"),
    ],
)
def test_delete_in_flow_collections(text: str, path: tuple[Any, ...], expected: str) -> None:
    assert edit(text, lambda d: d.delete(path)) == expected


def test_delete_missing_records_nothing() -> None:
    doc = load(CONTINUE, SRC)
    assert doc.delete(("nope",)) is False
    assert doc.delete(("models", 7)) is False
    assert doc.delete(("name", "x")) is False
    assert doc.ops == [] and doc.dump() == CONTINUE


LAYOUTS = {
    **FIXTURES,
    "crlf": CONTINUE.replace("\n", "\r\n"),
    "crlf-no-final-newline": "a: 1\r\nb:\r\n  c: 2",
    "no-final-newline": "a: 1\nb: [1, 2]",
    "comment-last-no-newline": "a: 1\n# end",
    "empty": "",
    "comment-only": "# nothing here\n",
    "comment-only-no-newline": "# nothing",
    "explicit-document": "--- # start\n",
    "flow-root": "{a: 1}\n",
    "empty-flow": "{}\n",
    "seq-item-single-key": "- a: 1\n",
    "block-scalar-keep": "a: |+\n  text\n\n\n",
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_insert_then_delete_gives_back_the_original_bytes(name: str, any_loader: str) -> None:
    text = LAYOUTS[name]
    if any_loader == "python" and "\t" in text:
        pytest.skip("the pure-Python parser rejects tabs after ':'")
    data = yaml.safe_load(text) or {}
    paths: list[tuple[Any, ...]] = [()]
    if isinstance(data, list):
        paths = [(0,)]
    if isinstance(data, dict):
        paths += [
            (k,) for k, v in data.items() if isinstance(v, dict) and k != "x-shared"
        ]  # &shared is refused
    for parent in paths:
        for value in ["v", {"x": {"y": [1, "yes"]}}, [{"a": 1}]]:
            doc = load(text, SRC)
            doc.set((*parent, "gwconf-new"), value)
            assert doc.dump() != text
            verify_edit("yaml", load(text, SRC), doc)
            assert doc.delete((*parent, "gwconf-new")) is True
            assert doc.dump() == text, (parent, value)
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, list) and value and not isinstance(value[0], list):
                doc = load(text, SRC)  # (no anchored lists in these layouts)
                index = doc.append((key,), {"name": "gw", "provider": "openai"})
                doc.delete((key, index))
                assert doc.dump() == text


# -- anchors, aliases and merge keys -------------------------------------------------------------

ANCHORS = """\
base: &base
  provider: openai
  apiBase: https://old/v1
single: &one 1
models:
  - <<: *base
    name: a
  - *base
other: *one
"""


def test_editing_inside_an_anchored_or_aliased_node_is_refused() -> None:
    for path in [("base", "provider"), ("models", 1, "provider")]:
        with pytest.raises(WriteRefused, match="alias"):
            load(ANCHORS, SRC).set(path, "x")
    with pytest.raises(WriteRefused, match="anchor"):
        load(ANCHORS, SRC).set(("single",), 2)
    with pytest.raises(WriteRefused, match="anchor"):
        load(ANCHORS, SRC).delete(("base",))
    with pytest.raises(WriteRefused):
        load(ANCHORS, SRC).append(("models", 1, "extra"), "x")


def test_edits_elsewhere_leave_anchors_alone() -> None:
    out = edit(ANCHORS, lambda d: d.set(("models", 0, "name"), "b"), lambda d: d.set(("other",), 2))
    assert diff(ANCHORS, out) == ["-    name: a\n", "+    name: b\n", "-other: *one\n", "+other: 2\n"]
    out = edit(ANCHORS, lambda d: d.delete(("models", 1)))
    assert "  - *base\n" not in out and "base: &base\n" in out


def test_merge_keys_can_be_overridden_but_not_deleted() -> None:
    out = edit(ANCHORS, lambda d: d.set(("models", 0, "apiBase"), "https://gw/v1"))
    assert "    name: a\n    apiBase: https://gw/v1\n" in out
    with pytest.raises(WriteRefused, match="merge"):
        load(ANCHORS, SRC).delete(("models", 0, "provider"))
    with pytest.raises(WriteRefused, match="merge"):
        load(out, SRC).delete(("models", 0, "apiBase"))  # the merged one would show through


def test_unreferenced_anchors_are_just_text() -> None:
    assert edit("a: &x 1\nb: 2\n", lambda d: d.set(("a",), 3)) == "a: 3\nb: 2\n"


def test_a_refusal_halfway_leaves_text_and_ops_as_they_were() -> None:
    text = "m:\n  a: 1\n  b: &x {c: 1}\nn: *x\n"
    doc = load(text, SRC)
    with pytest.raises(WriteRefused, match="anchor &x"):
        doc.set(("m",), {"a": 2})  # a: 2 is spliced first, then deleting b is refused
    assert doc.dump() == text and doc.ops == []
    assert doc.get(("m", "a")) == 1


def test_explicit_keys() -> None:
    text = "? x\n: 2\n? |\n  long key\n: 3\ny: 4\n"
    assert edit(text, lambda d: d.delete(("long key\n",))) == "? x\n: 2\ny: 4\n"
    assert edit(text, lambda d: d.set(("z",), 1)) == text + "z: 1\n"
    assert edit(text, lambda d: d.set(("x",), {"k": 1})) == "? x\n:\n  k: 1\n? |\n  long key\n: 3\ny: 4\n"


def test_whole_document_set() -> None:
    doc = load("# llm models\n", SRC)
    doc.set((), [{"model_id": "m", "api_base": "https://gw/v1"}])
    assert doc.dump() == "# llm models\n- model_id: m\n  api_base: https://gw/v1\n"
    with pytest.raises(WriteRefused, match="mapping or a list at the top level"):
        load("a: 1\n", SRC).set((), "text")
    out = edit(LLM, lambda d: d.set((), [{"model_id": "only"}]))
    assert out == "# Extra OpenAI-compatible models for llm\n- model_id: only\n"


# -- errors ------------------------------------------------------------------------------------


def test_duplicate_keys_are_refused(any_loader: str) -> None:
    with pytest.raises(ParseError, match="duplicate key 'model'") as info:
        load("model: a\nother: 1\nmodel: b\n", SRC)
    assert (info.value.line, info.value.column) == (3, 1)
    with pytest.raises(ParseError, match="duplicate key"):
        load("- {a: 1, b: 2, a: 3}\n", SRC)
    with pytest.raises(ParseError, match="duplicate key True"):
        load("yes: 1\ntrue: 2\n", SRC)


@pytest.mark.parametrize(
    ("text", "key", "first", "line", "column"),
    [
        ("a:\na: 1\n", "'a'", 1, 2, 1),  # the first one's data is None
        ("x: 1\nb:\n  c: 1\n  d: {e: 1}\n  c:\n", "'c'", 3, 5, 3),
        ("1: a\n2: b\n1: c\n", "1", 1, 3, 1),
        ("on: a\n1: b\n", "1", 1, 2, 1),  # True and 1: one key to a dict, as to PyYAML's
        (".nan: 1\n.nan: 2\n", "nan", 1, 2, 1),  # PyYAML's one NaN object
        ("a: !custom x\nb: 1\nb: 2\n", "'b'", 2, 3, 1),  # after the data stopped being built
        ("a: 1\nb: !!int x\na: 2\n", "'a'", 1, 3, 1),  # met while building, found after
        ("a: 1\nb: !!int x\nc: 1\nc: 2\n", "'c'", 3, 4, 1),
        ("a: {b: 1, c: [2], b: 3}\n", "'b'", 1, 1, 19),
        # a key written as an alias is named where the alias stands, not at its anchor
        ("k: 1\nx: &v k\n*v : 2\n", "'k'", 1, 3, 1),
        ("x: &v k\n*v : 1\nk: 2\n", "'k'", 2, 3, 1),
        ("x: &v k\ny:\n  *v : 1\n  z: 0\n  *v : 2\n", "'k'", 3, 5, 3),
    ],
)
@pytest.mark.parametrize("build", [True, False])
def test_duplicate_keys_name_the_first_one_with_and_without_the_data(
    text: str, key: str, first: int, line: int, column: int, build: bool, any_loader: str
) -> None:
    """While the data is built, the mapping's data dict is also the record of the keys met
    (``_composer``'s frames), else a dict of key offsets: the same duplicates are found either
    way, and the message names the first key's line."""
    with pytest.raises(ParseError) as info:
        yaml_format._compose(text, SRC, build=build)
    assert info.value.reason == (
        f"duplicate key {key} (first at line {first}); gwconf refuses to edit a mapping with duplicate keys"
    )
    assert (info.value.line, info.value.column) == (line, column)


def test_multi_document_files_are_refused(any_loader: str) -> None:
    with pytest.raises(ParseError, match="gwconf edits single-document YAML only") as info:
        load("a: 1\n---\nb: 2\n", SRC)
    assert info.value.line == 2


def test_top_level_that_is_not_a_mapping() -> None:
    with pytest.raises(WriteRefused, match="the top level is a list, not a mapping"):
        load(LLM, SRC).set(("model",), "x")
    with pytest.raises(WriteRefused, match="the top level is a string"):
        load("just text\n", SRC).set(("model",), "x")
    with pytest.raises(WriteRefused, match=r"models\[0\].name is a string"):
        load(CONTINUE, SRC).set(("models", 0, "name", "x"), 1)
    with pytest.raises(WriteRefused, match="has 2 items"):
        load(CONTINUE, SRC).set(("models", 2, "name"), "x")
    with pytest.raises(WriteRefused, match="does not exist"):
        load(CONTINUE, SRC).set(("missing", 0), "x")


@pytest.mark.parametrize(
    "text, line, column, words",
    [
        ("a: [1,\n", 2, 1, "flow"),
        ("a: 1\n b: 2\n", 2, 3, "mapping values are not allowed"),
        ("a: 'unterminated\n", 2, 1, "quoted scalar"),
        ("a: b\n\tc: d\n", 2, 1, "tab"),
        ("a: *nope\n", 1, 4, "undefined alias"),
        ("a: &x 1\nb: &x 2\n", 2, 4, "duplicate anchor"),
        ("a: ok\nb: \x07\n", 2, 4, "#x0007"),
        ("a: !Ref x\n", 1, 4, "constructor for the tag '!Ref'"),
        ("a: &x [1, *x]\n", 1, 11, "recursive"),
    ],
)
def test_parse_errors_name_line_and_column(
    text: str, line: int, column: int, words: str, any_loader: str
) -> None:
    with pytest.raises(ParseError) as info:
        load(text, SRC)
    error = info.value
    assert (error.source, error.line, error.column) == (SRC, line, column)
    assert words in error.reason.replace("'\\t'", "tab")
    assert "<unicode string>" not in str(error)
    assert str(error).startswith(f"{SRC}:{line}:{column}: ")


@pytest.mark.parametrize(
    "text, likely",
    [
        ("a: b\n\tc: d\n", "a tab in the indentation (YAML indents with spaces)"),
        ("a:\n\tb: 1\n", "a tab in the indentation (YAML indents with spaces)"),
        ("key: value: other\n", "a ': ' YAML did not expect: a value holding ': ' needs quotes"),
        ("a: 1\n  b: 2\n", "or the line is indented too deep"),
        ("a: 'unterminated\n", "a quote that never closes"),
        ('a: "unterminated\n', "a quote that never closes"),
        ("a: 1\nb\nc: 2\n", "a line among keys that has no ':' after a name"),
        ("a:\n  b: 1\n c: 2\n", "a line indented differently from the keys around it"),
        ("a: - x\n", "a '- ' item where a value was expected"),
    ],
)
def test_the_commonest_mistakes_are_named_before_pyyamls_words(
    text: str, likely: str, any_loader: str
) -> None:
    """Both readers (libyaml's words differ from the Python reader's) lead with what a person most
    likely wrote; PyYAML's own message follows, for searching."""
    with pytest.raises(ParseError) as info:
        load(text, SRC)
    assert likely in info.value.reason.split("; PyYAML says: ")[0]
    assert "; PyYAML says: " in info.value.reason


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 10_000, 100_000])
def test_deep_nesting_is_a_parse_error(depth: int) -> None:
    with pytest.raises(ParseError, match="nesting deeper"):
        load("[" * depth + "]" * depth, SRC)
    if depth <= 10_000:
        with pytest.raises(ParseError, match="nesting deeper"):
            load("".join(" " * i + "a:\n" for i in range(depth)), SRC)


@pytest.mark.parametrize(
    ("lines", "where"), [(14, None), (15, (1, 1)), (16, (16, 6)), (40, (16, 6)), (5_000, (17, 6))]
)
def test_aliases_that_read_as_too_many_values_are_a_parse_error(lines: int, where: tuple | None) -> None:
    """``a1: &a1 [*a0, *a0]`` and so on doubles per line: 30 lines are a billion values for
    everything that walks the data as a tree (the write gate, the ledger). The place named is
    the first value past the limit, children first: with 15 lines the whole document
    (131,068 values), from 16 on a15 (2**17 - 1); 5,000 lines have more characters than
    ``MAX_EXPANDED`` (150,550), which is the limit then, first passed by a16. 14 lines load."""
    text = "a0: &a0 [x, y]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, lines))
    if where is None:
        data = load(text, SRC).data()
        assert data["a13"][0] is data["a12"] and len(data) == 14
        return
    limit = max(MAX_EXPANDED, len(text))
    with pytest.raises(ParseError, match=f"aliases make this value more than {limit:,} values") as caught:
        load(text, SRC)
    assert (caught.value.line, caught.value.column) == where
    assert MAX_EXPANDED == 100_000


def test_aliases_used_many_times_within_the_limit_load_and_edit() -> None:
    """Shared values are counted whole for each alias, each node once: 2,000 uses of a
    20-value anchor (40,000 values read whole) and a merge key on each of 2,000 services load,
    edit and read back as PyYAML reads them."""
    anchor = "base: &base {" + ", ".join(f"k{i}: {i}" for i in range(9)) + "}\n"
    text = anchor + "".join(f"s{i}:\n  <<: *base\n  own: {i}\n  again: *base\n" for i in range(2_000))
    doc = load(text, SRC)
    assert doc.data() == yaml.safe_load(text)
    doc.set(("s5", "own"), "x")
    assert yaml.safe_load(doc.dump())["s5"] == {
        **{f"k{i}": i for i in range(9)},
        "own": "x",
        "again": yaml.safe_load(anchor)["base"],
    }


def test_deep_nesting_with_the_pure_python_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_format, "LOADER", yaml.SafeLoader)
    with pytest.raises(ParseError, match="nesting deeper"):
        load("[" * 3_000 + "]" * 3_000, SRC)  # its scanner is quadratic in flow depth


def test_values_gwconf_cannot_write() -> None:
    doc = load("a: 1\n", SRC)
    with pytest.raises(TypeError):
        doc.set(("a",), object())
    with pytest.raises(TypeError):
        doc.set(("a",), {("t",): 1})
    with pytest.raises(WriteRefused):
        doc.delete(())
    assert doc.ops == []


# -- property test -------------------------------------------------------------------------------

_SAFE_WORDS = ["openai", "gpt-4o", "https://gw.example.com/v1", "sk-abc123", "hello world", "chat", "1.0.0"]
_TRICKY_WORDS = [
    "yes",
    "on",
    "off",
    "12:30",
    "0755",
    "1.10",
    "null",
    "~",
    "",
    " lead",
    "a: b",
    "a #b",
    *TRICKY[:4],
]
_KEYS = ["name", "model", "apiBase", "roles", "x-y", "yes", "on", "1", "a b", "null", "k"]
_TEXT = st.text(st.sampled_from("abc xyz:#'\"\\\n\té漢😀-[]{},&*!|>%@`"), max_size=8)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.sampled_from([0.5, -2.25, 1e20, 3.0]),
    st.sampled_from(_SAFE_WORDS + _TRICKY_WORDS),
    _TEXT,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=3),
    ),
    max_leaves=6,
)
documents = st.dictionaries(st.sampled_from(_KEYS), values, min_size=1, max_size=5)


def _render_scalar(value: Any, draw: Any) -> str:
    if value is None:
        return draw(st.sampled_from(["null", "~", ""]))
    if isinstance(value, bool):
        return draw(st.sampled_from(["true", "True"] if value else ["false", "FALSE"]))
    if isinstance(value, (int, float)):
        return {1e20: "1.0e+20"}.get(value, repr(value))
    if value in _SAFE_WORDS and draw(st.booleans()):
        return value
    if "\n" not in value and "\t" not in value and draw(st.booleans()):
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def _render_key(key: str) -> str:
    return key if key in ("name", "model", "apiBase", "roles", "x-y", "a b", "k") else json.dumps(key)


def _flowable(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return all(v is None or isinstance(v, (bool, int)) or v in _SAFE_WORDS[:2] for v in items)


def _flow(value: Any) -> str:
    def one(v: Any) -> str:
        return "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)

    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render_key(k)}: {one(v)}" for k, v in value.items()) + "}"
    return "[ " + ", ".join(one(v) for v in value) + " ]"


def _render_map(data: dict[str, Any], col: int, draw: Any, first_inline: bool = False) -> list[str]:
    lines: list[str] = []
    pad = " " * col
    for i, (key, value) in enumerate(data.items()):
        if not (first_inline and i == 0):
            lines += draw(st.sampled_from([[], [], [""], [pad + "# a comment"], ["# column-0 comment"]]))
        comment = draw(st.sampled_from(["", "", "  # note", "\t# tab note"]))
        head = pad + _render_key(key) + ":"
        if not isinstance(value, (dict, list)) or not value:
            text = _render_scalar(value, draw) if not isinstance(value, (dict, list)) else str(value)
            text = "{}" if value == {} else "[]" if value == [] else text
            space = " " * draw(st.integers(1, 3)) if text else ""
            lines.append(head + space + text + comment)
        elif _flowable(value) and draw(st.booleans()):
            lines.append(head + " " + _flow(value) + comment)
        elif isinstance(value, dict):
            lines.append(head + comment)
            lines += _render_map(value, col + draw(st.sampled_from([2, 4])), draw)
        else:
            lines.append(head + comment)
            lines += _render_seq(value, col + draw(st.sampled_from([0, 2])), draw)
    return lines


def _render_seq(items: list[Any], col: int, draw: Any, first_inline: bool = False) -> list[str]:
    lines: list[str] = []
    pad = " " * col
    for i, item in enumerate(items):
        if not (first_inline and i == 0):
            lines += draw(st.sampled_from([[], [], [pad + "# item comment"]]))
        if not isinstance(item, (dict, list)) or not item:
            text = _render_scalar(item, draw) if not isinstance(item, (dict, list)) else str(item)
            lines.append((pad + "- " + text).rstrip(" ") if item != {} else pad + "- {}")
            continue
        if isinstance(item, dict):
            sub = _render_map(item, col + 2, draw, first_inline=True)
        else:
            sub = _render_seq(item, col + 2, draw, first_inline=True)
        lines += [pad + "- " + sub[0][col + 2 :], *sub[1:]]
    return lines


def _read(text: str) -> Any:
    """safe_load with libyaml when present (it accepts tabs after ':', as the editor's parser does)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out += _paths(value, (*prefix, i))
    return out


def _container_lines(text: str, path: tuple[Any, ...]) -> tuple[int, int]:
    """0-based line range of the deepest existing collection holding ``path``, from its key's line."""
    node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    best = (0, len(text.splitlines()) + 1)
    for part in path[:-1]:
        if isinstance(node, yaml.MappingNode):
            found = [
                (k, v)
                for k, v in node.value
                if _read(k.value if not k.style else json.dumps(k.value)) == part
            ]
            if not found:
                break
            first, node = found[0][0].start_mark.line, found[0][1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            first = node.start_mark.line
        else:
            break
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            best = (first, node.end_mark.line)
    return best


def _changed_old_lines(before: str, after: str) -> tuple[int, int] | None:
    old, new = before.splitlines(True), after.splitlines(True)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if head == len(old) == len(new):
        return None
    return head, len(old) - tail


@settings(
    max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data())
def test_random_edits_read_back_as_replayed_and_stay_local(data: st.DataObject) -> None:
    doc_data = data.draw(documents)
    text = "\n".join(["# generated", *_render_map(doc_data, 0, data.draw), ""])
    assert _read(text) == doc_data, text
    original = load(text, SRC)
    doc = load(text, SRC)

    for _ in range(data.draw(st.integers(1, 3))):
        before = doc.dump()
        current = _read(before) or {}
        paths = _paths(current)
        kind = data.draw(st.sampled_from(["set", "set-new", "delete", "delete-missing", "append"]))
        if kind == "set" and len(paths) > 1:
            path = data.draw(st.sampled_from(paths[1:]))
            doc.set(path, data.draw(values))
        elif kind == "delete" and len(paths) > 1:
            path = data.draw(st.sampled_from(paths[1:]))
            assert doc.delete(path) is True
        elif kind == "delete-missing":
            path = ("no-such-key",)
            ops = len(doc.ops)
            assert doc.delete(path) is False and len(doc.ops) == ops
        elif kind == "append" and any(isinstance(doc.get(p), list) for p in paths):
            path = data.draw(st.sampled_from([p for p in paths if isinstance(doc.get(p), list)]))
            doc.append(path, data.draw(values))
        else:
            mappings = [p for p in paths if isinstance(doc.get(p), dict)]
            parent = data.draw(st.sampled_from(mappings))
            path = (
                *parent,
                *data.draw(st.lists(st.sampled_from(["new", "n2", "yes"]), min_size=1, max_size=2)),
            )
            if doc.get(path[:-1]) not in (MISSING, None) and not isinstance(doc.get(path[:-1]), dict):
                continue
            if len(path) > len(parent) + 1 and doc.get(path[: len(parent) + 1]) is not MISSING:
                continue  # would set below an existing non-mapping value
            doc.set(path, data.draw(values))

        after = doc.dump()
        assert (_read(after) or {}) == (replay(original.data(), doc.ops) or {})
        verify_edit("yaml", original, doc)
        changed = _changed_old_lines(before, after)
        if changed is not None:
            first, last = _container_lines(before, path)
            assert first <= changed[0] and changed[1] <= last + 1, (before, after, path)

    # a new key inserted and deleted again leaves the bytes as they were
    final = doc.dump()
    mappings = [p for p in _paths(_read(final) or {}) if isinstance(doc.get(p), dict)]
    parent = data.draw(st.sampled_from(mappings)) if mappings else ()
    probe = load(final, SRC)
    probe.set((*parent, "gwconf-probe"), data.draw(values))
    assert probe.delete((*parent, "gwconf-probe")) is True
    assert probe.dump() == final


# -- the direct construction agrees with PyYAML's constructor ---------------------------------------

_CTOR_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(st.sampled_from("ab: #'\"\n-yes0.é"), max_size=6),
    st.dates(),
    st.datetimes(),
    st.binary(max_size=4),
)
_CTOR_DATA = st.recursive(
    _CTOR_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.text("abyn1", max_size=3), st.integers(0, 3), st.booleans()), inner, max_size=3
        ),
    ),
    max_leaves=10,
)
_HANDWRITTEN = [
    "base: &b {x: 1, y: [1, 2]}\nother: *b\nmerged:\n  <<: *b\n  z: 3\n",
    "a: !!str 123\nb: !!float 1\nc: !!set {x, y}\nd: !!omap [{k: 1}]\ne: !!binary aGk=\n",
    "? [complex, key]\n: value\n",
    "k: 0x1F\nl: 0o17\nm: 1_000\nn: .inf\no: -.Inf\np: 2001-12-14t21:59:43.10-05:00\nq: ~\nr: Yes\n",
    "list: &l [a, b]\nagain: *l\nmap: {*l : x}\n",
    "bad: !!int abc\n",
    "= : value key\n",
    "a: &x [1, {k: v}]\nb: *x\nc: [*x, &s str, *s]\n1: &n 2\n*n : three\n",
]


@pytest.mark.parametrize("first", sorted(set(string.printable) - set(" \t\n\r\x0b\x0c")))
def test_plain_scalars_get_pyyamls_tags(first: str) -> None:
    """The composer names a plain scalar a string without the resolver when no implicit resolver
    starts with its first character; every other text is resolved: the tags are PyYAML's."""
    for rest in ("", "1", "0", "rue", "ull", "o", "es", ".5", "1e3", "x y", "2001-12-14", "_000", "nf"):
        text = f"k: {first}{rest}\n"
        try:
            theirs = yaml.compose(text, Loader=yaml_format.LOADER)  # the same parser
        except yaml.YAMLError:
            continue
        ours = yaml_format._compose(text, "x.yaml", build=True).root
        assert ours is not None and ours.value[0][1].tag == theirs.value[0][1].tag, text


def test_data_built_while_composing_shares_what_aliases_share() -> None:
    tree = yaml_format._compose(_HANDWRITTEN[-1], "x.yaml", build=True)
    assert tree.built and tree.data == yaml.safe_load(_HANDWRITTEN[-1])
    assert tree.data["b"] is tree.data["a"] and tree.data["c"][0] is tree.data["a"]


def _typed(value: Any) -> Any:
    """The value with each leaf's type next to it: 1, 1.0 and True differ here."""
    if isinstance(value, dict):
        return {(type(k).__name__, k): _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _both_ways(text: str) -> tuple[Any, Any]:
    """(direct construction, PyYAML's constructor); the data built while composing is the
    direct construction's whenever it was built, and built whenever that one builds."""
    tree = yaml_format._compose(text, "x.yaml", build=True)
    try:
        direct = ("ok", _typed(yaml_format._construct_directly(tree.root)))
    except Exception as exc:  # left to PyYAML's constructor
        direct = ("left", type(exc).__name__)
    assert tree.built == (direct[0] == "ok")
    if tree.built:
        assert ("ok", _typed(tree.data)) == direct
    try:
        pyyaml = ("ok", _typed(yaml_format._Constructor().construct_document(tree.root)))
    except Exception as exc:
        pyyaml = ("error", type(exc).__name__)
    return direct, pyyaml


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CTOR_DATA, st.sampled_from([None, True, False]))
def test_direct_construction_is_pyyamls(data: Any, flow: bool | None) -> None:
    text = yaml.safe_dump({"root": data}, default_flow_style=flow, allow_unicode=True)
    direct, pyyaml = _both_ways(text)
    assert direct[0] == "ok"  # safe_dump writes nothing unusual
    assert direct == pyyaml


@pytest.mark.parametrize("text", _HANDWRITTEN)
def test_direct_construction_leaves_the_unusual_to_pyyaml(text: str) -> None:
    try:
        direct, pyyaml = _both_ways(text)
    except ParseError:
        return  # refused while composing (e.g. a list as a key): never constructed
    if direct[0] == "ok":
        assert direct == pyyaml
    if pyyaml[0] == "ok":
        assert _typed(load(text, "x.yaml").data()) == _typed(yaml.safe_load(text))
    else:
        with pytest.raises(ParseError):
            load(text, "x.yaml")


@pytest.mark.parametrize(
    ("before", "path", "after"),
    [
        ("a: |\n  line\n  \n", ("c",), "a: |\n  line\n  \nc: x\n"),
        ("m:\n  a: >-\n    line\n      \n", ("m", "c"), "m:\n  a: >-\n    line\n      \n  c: x\n"),
        ("m:\n  a: |+\n    line\n    \n\n", ("m", "c"), "m:\n  a: |+\n    line\n    \n\n  c: x\n"),
        ("l:\n- |\n  t\n   \n", ("l",), None),
    ],
)
def test_a_key_after_a_block_scalar_ending_in_an_indented_blank_line(
    before: str, path: tuple, after: str | None
) -> None:
    """The blank line with spaces belongs to the scalar (it may be its content): the new key goes
    after it instead of cutting it off (issue 23)."""
    original = load(before, "c.yaml")
    doc = load(before, "c.yaml")
    if after is None:
        doc.append(path, "x")
        assert verify_edit("yaml", original, doc) == before + "- x\n"
    else:
        doc.set((*path[:-1], path[-1]), "x")
        assert verify_edit("yaml", original, doc) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("k: # note\n  - a\n  - b\nz: 1\n", "k: scalar # note\nz: 1\n"),
        ("k:   # note\n- a\n", "k: scalar   # note\n"),
        ("k:  # note\r\n  a: 1\r\nz: 1\r\n", "k: scalar  # note\r\nz: 1\r\n"),
    ],
)
def test_a_list_turned_into_a_scalar_keeps_the_comment_on_its_key_line(before: str, after: str) -> None:
    original = load(before, "c.yaml")
    doc = load(before, "c.yaml")
    doc.set(("k",), "scalar")
    assert verify_edit("yaml", original, doc) == after


@pytest.mark.parametrize(
    ("before", "edit", "expected"),
    [  # found by tests/formats/test_differential.py against PyYAML
        ("a: >+\n  x\n  \nb: |-  # n\n  y\n  \n    \n", ("delete", "b"), {"a": "x\n\n"}),
        ("a: >+\n  x\n\nb: 1\n\n", ("delete", "b"), {"a": "x\n\n"}),
        ("a: >+\n  x\n  \nb: >+\n  y", ("delete", "b"), {"a": "x\n\n"}),
        ("a: |\n  x\nb: 1", ("delete", "b"), {"a": "x\n"}),
        ("a: |\n  line\n  end", ("set", "k"), {"a": "line\nend", "k": "v"}),
    ],
)
def test_edits_next_to_block_scalars_keep_their_line_breaks(before: str, edit: tuple, expected: Any) -> None:
    doc = load(before, "c.yaml")
    if edit[0] == "delete":
        doc.delete((edit[1],))
    else:
        doc.set((edit[1],), "v")
    assert yaml.safe_load(doc.dump()) == expected
    assert verify_edit("yaml", load(before, "c.yaml"), doc) == doc.dump()


# -- the write gate's read-back of a window of whole entries agrees with reading everything ------

_WINDOW_LINES = st.sampled_from(
    [
        "a: 1",
        "b:",
        "  c: 2",
        "  d: x",
        "models:",
        "  - name: m",
        "    v: 1",
        "  - name: n",
        "- item",
        "  - nested",
        "    k: v",
        "rules:",
        "- r",
        "key: |",
        "  block text",
        "    more",
        "key2: >-",
        "# comment",
        "  # indented comment",
        "",
        "e: [1, 2]",
        "f: {g: 1,",
        "  h: 2}",
        "i: 'q: x'",
        'j: "s',
        '  t"',
        "k: &x 1",
        "l: *x",
        "---",
        "...",
        "%YAML 1.1",
        "? complex",
        ": value",
        "- - x",
        "m: multi",
        "  line plain",
        "n: !!str 5",
        "<<: {z: 1}",
        "a: 2",
        "  - name: m",
        "\tc: 1",
        "o: !tag x",
    ]
)


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_WINDOW_LINES, min_size=1, max_size=9),
    st.lists(
        st.tuples(
            st.integers(0, 10),
            st.integers(0, 2),
            st.lists(_WINDOW_LINES, max_size=3),
            st.integers(0, 400),
            st.text(st.sampled_from(" :-#'\"x\n"), max_size=3),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_reading_a_window_back_agrees_with_reading_everything(
    lines: list[str], changes: list[tuple[int, int, list[str], int, str]]
) -> None:
    """Soundness of the write gate's window read (``_read_window``): whenever it answers, the
    whole text reads (duplicate keys and all refusals included) as exactly that. The random
    edits include wrong ones: a line that joins the entry above, a dedent, an unclosed quote or
    bracket, a document marker, a key that is already there."""
    from gwconf.formats import _same
    from gwconf.formats._base import changed_edit

    base = "".join(line + "\n" for line in lines)
    try:
        doc = load(base, "t")
    except ParseError:
        return
    if doc._loaded is None:
        return
    tree, data = doc._loaded
    text, edits = base, []
    for at, width, new_lines, where, chars in changes:
        rows = text.splitlines(keepends=True)
        at = min(at, len(rows))
        edited = "".join(rows[:at]) + "".join(line + "\n" for line in new_lines) + "".join(rows[at + width :])
        where = min(where, len(edited))
        edited = edited[:where] + chars + edited[where:]
        if edited != text:
            edits.append(changed_edit(text, edited))
        text = edited
    assert tree.root is not None
    try:
        got = yaml_format._read_window(base, tree.root, data, text, edits, "t")
    except (ParseError, WriteRefused, yaml_format._Unusual):
        return
    if got is MISSING:
        return
    assert _same(load(text, "t").data(), got), (base, text)


def test_an_edit_is_read_back_from_a_window_of_whole_entries(monkeypatch) -> None:
    """Continue's new model in a long list: the write gate reads the last entry and the new one,
    not the whole file again (issue 15); a wrong splice there is still caught."""
    models = "".join(
        f"  - name: model-{i}\n    provider: openai\n    model: m-{i}  # note\n" for i in range(300)
    )
    text = f"name: Local\nversion: 1.0.0\nmodels:\n{models}context:\n  - provider: code\n"
    composed: list[int] = []
    real = yaml_format._compose
    monkeypatch.setattr(
        yaml_format, "_compose", lambda t, s, build=False: composed.append(len(t)) or real(t, s, build)
    )
    doc = load(text, "config.yaml")
    doc.append(("models",), {"name": "gwconf", "provider": "openai", "apiBase": "http://127.0.0.1:8080/v1"})
    after = verify_edit("yaml", load(text, "config.yaml"), doc)
    assert composed[:2] == [len(text)] * 2 and all(n < 300 for n in composed[2:])
    assert yaml.safe_load(after)["models"][-1]["name"] == "gwconf"

    from gwconf.formats._base import changed_edit

    for spliced in (
        "  - name: gwconf\n    name: twice",
        "  - name: gwconf\n  bad: dedent",
        "  - name: other",
    ):
        wrong = load(text, "config.yaml")
        wrong.append(("models",), {"name": "gwconf"})
        bad = wrong._text.replace("  - name: gwconf", spliced)
        wrong.edits.append(changed_edit(wrong._text, bad))  # the bytes check passes: the data decides
        wrong._text = bad
        with pytest.raises(WriteRefused):
            verify_edit("yaml", load(text, "config.yaml"), wrong)


# -- the tree grafted from the last one and the changed window is the whole compose's ----------------


def _shape(node: Any) -> Any:
    """Everything the editor reads of a node: kind, tag, value, style and both offsets."""
    if node is None:
        return None
    if isinstance(node, yaml.ScalarNode):
        return ("scalar", node.tag, node.value, node.style, node.start_mark, node.end_mark)
    if isinstance(node, yaml.MappingNode):
        kids: list[Any] = [(_shape(k), _shape(v)) for k, v in node.value]
    else:
        kids = [_shape(v) for v in node.value]
    return (type(node).__name__, node.tag, node.flow_style, node.start_mark, node.end_mark, kids)


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data())
def test_a_tree_grafted_after_edits_is_what_composing_the_whole_text_gives(data: st.DataObject) -> None:
    """``_grafted``: after each random edit (values set over values, new keys and tables, deletes,
    appends, several splices between two reads of the tree), the tree made from the last one
    and the changed window alone equals a fresh compose of the whole text, offsets included;
    the tree as loaded (the write gate's) is left as it was."""
    doc_data = data.draw(documents)
    text = "\n".join(["# generated", *_render_map(doc_data, 0, data.draw), ""])
    if data.draw(st.booleans()):
        text = text.rstrip("\n")  # no final newline
    doc = load(text, SRC)
    loaded = _shape(doc._tree_now().root)
    for _ in range(data.draw(st.integers(1, 4))):
        current = _read(doc.dump()) or {}
        paths = _paths(current)
        kind = data.draw(st.sampled_from(["set", "set-new", "delete", "append"]))
        try:
            if kind == "set" and len(paths) > 1:
                doc.set(data.draw(st.sampled_from(paths[1:])), data.draw(values))
            elif kind == "delete" and len(paths) > 1:
                doc.delete(data.draw(st.sampled_from(paths[1:])))
            elif kind == "append" and any(isinstance(doc.get(p), list) for p in paths):
                doc.append(
                    data.draw(st.sampled_from([p for p in paths if isinstance(doc.get(p), list)])),
                    data.draw(values),
                )
            else:
                parent = data.draw(st.sampled_from([p for p in paths if isinstance(doc.get(p), dict)]))
                doc.set(
                    (*parent, data.draw(st.sampled_from(["new", "n2", "yes", "name"]))), data.draw(values)
                )
        except WriteRefused:
            continue
        got = doc._tree_now()
        want = yaml_format._compose(doc.dump(), SRC)
        assert _shape(got.root) == _shape(want.root), doc.dump()
        assert (got.aliases, got.referenced, got.ref_starts, got.anchored) == ({}, {}, [], False)
    if doc._loaded is not None:
        assert _shape(doc._loaded[0].root) == loaded


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    st.data(),
    st.lists(
        st.tuples(
            st.integers(0, 400),
            st.integers(0, 4),
            st.lists(
                st.sampled_from(["x: 1", " #", "\n", "  ", "- ", "k: [1", "]", "'", "b: 2\n", ":"]),
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=2,
    ),
)
def test_changes_inside_lines_are_never_read_or_grafted_wrongly(data: st.DataObject, changes: list) -> None:
    """The window read (``_read_window``, the write gate's) and the graft (``_grafted``) on edits
    that start or end inside a line (a comment swallowing the next line, text run on into it):
    whatever they answer is what reading or composing the whole new text gives."""
    from gwconf.formats._base import changed_edit

    doc_data = data.draw(documents)
    base = "\n".join(["# generated", *_render_map(doc_data, 0, data.draw), ""])
    tree = yaml_format._compose(base, SRC, build=True)
    if tree.anchored or not tree.built or tree.root is None:
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
    try:
        composed = yaml_format._compose(text, SRC)
    except (yaml.YAMLError, ParseError):
        composed = None
    try:  # (apart: a text can compose and still hold no data, a list as a key: `- []  :`)
        whole = _read(text)
    except (yaml.YAMLError, ParseError):
        whole = MISSING
    try:
        read = yaml_format._read_window(base, tree.root, tree.data, text, edits, SRC)
    except (ParseError, WriteRefused, yaml_format._Unusual, RecursionError):
        read = MISSING
    if read is not MISSING:
        assert whole is not MISSING and read == (whole or {}), (base, text)
    grafted = yaml_format._grafted(tree, base, text, edits, SRC)
    if grafted is not None:
        assert composed is not None and _shape(grafted.root) == _shape(composed.root), (base, text)


@pytest.mark.parametrize(
    ("base", "new"),
    [
        ("a: 1\nb: 2\n", "a: 1\nx: 1 #b: 2\n"),
        ("a:\n  k: 1\nb: 2\n", "a:\n  k: 1\n  z: 3 #b: 2\n"),
    ],
)
def test_a_window_that_runs_on_into_the_next_line_is_read_whole(base: str, new: str) -> None:
    """The new line's comment takes the line after the window: read alone, the window said the
    file still held ``b``. Found by reasoning, then the property test above."""
    from gwconf.formats._base import changed_edit

    tree = yaml_format._compose(base, SRC, build=True)
    assert tree.root is not None
    read = yaml_format._read_window(base, tree.root, tree.data, new, [changed_edit(base, new)], SRC)
    assert read is MISSING and "b" not in _read(new)


def test_a_text_that_composes_but_holds_no_data_is_grafted_as_composed() -> None:
    """`- []  :` makes a list a mapping key: the nodes compose, the data cannot be made. The graft
    answers with the nodes the whole compose gives (found by the property test above, whose
    first form took a failed read for a failed compose)."""
    from gwconf.formats._base import changed_edit

    base = "# generated\nx-y:\n  - false\n  - []\nz: 1\n"
    text = base.replace("  - []\n", "  - []  :\n")
    with pytest.raises(yaml.YAMLError):
        _read(text)
    tree = yaml_format._compose(base, SRC, build=True)
    grafted = yaml_format._grafted(tree, base, text, [changed_edit(base, text)], SRC)
    composed = yaml_format._compose(text, SRC)
    assert grafted is not None and _shape(grafted.root) == _shape(composed.root)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from([*" :#\"\\'\t\nab-", "\x7f", "\x85", "\u2028", "é"]), max_size=12))
def test_the_scalar_checks_without_their_patterns_agree_with_them(text: str) -> None:
    """Printable ASCII skips the three patterns; every text still gets their answers."""
    y = yaml_format
    assert y._plain_bad(text) == bool(y._PLAIN_BAD.search(text))
    assert y._sq_bad(text) == bool(y._SQ_BAD.search(text))
    escaped = y._DQ_ESCAPE.sub(lambda m: y._DQ_NAMED.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
    assert y._double(text) == '"' + escaped + '"'


# -- one composer, two feeders: libyaml's parser calling it, and event objects -----------------

_C_PARSER = getattr(getattr(yaml, "_yaml", None), "CParser", None)


def _composed(text: str) -> Any:
    """Everything a compose gives the editor: the tree, its data and alias bookkeeping, or the error."""
    try:
        tree = yaml_format._compose(text, "x.yaml", build=True)
    except ParseError as exc:
        return ("error", exc.reason, exc.line, exc.column)
    data = _typed(tree.data) if tree.built else None
    paths: dict[int, tuple[int, ...]] = {}  # node id -> where it is: the bookkeeping is by id
    todo: list[tuple[Any, tuple[int, ...]]] = [(tree.root, ())]
    while todo:
        node, path = todo.pop()
        if node is None or id(node) in paths:
            continue
        paths[id(node)] = path
        if isinstance(node, yaml.MappingNode):
            todo += [(n, (*path, i, j)) for i, pair in enumerate(node.value) for j, n in enumerate(pair)]
        elif isinstance(node, yaml.SequenceNode):
            todo += [(n, (*path, i)) for i, n in enumerate(node.value)]
    aliases = sorted((paths[k], sorted(v.items(), key=repr)) for k, v in tree.aliases.items())
    referenced = sorted((paths[k], v) for k, v in tree.referenced.items())
    return (_shape(tree.root), data, tree.built, tree.anchored, sorted(tree.ref_starts), aliases, referenced)


_TUPLE_TEXTS = [
    *FIXTURES.values(),
    *_HANDWRITTEN,
    "&a k: !t 'v'\nn: &b 1\nm: *b\n",
    "a: \"x\\ty\"\nb: |\n  block\nc: >-\n  folded\nd: 'q''q'\n",
    "a: 1\na: 2\n",
    "a: *missing\n",
    "a: &x 1\nb: &x 2\n",
    "a: [1, 2\n",
    "--- 1\n--- 2\n",
    "",
    "just a scalar\n",
]
_CALLBACK_TEXTS = [
    "%YAML 1.1\n--- &r\nk: &a !t 'v'\nn: [1, *a]\n...\n",
    "a: &x {b: *x}\n",
    "? &k [1]\n: *k\n",
    "a: 1\n--- 2\n",
    "--- 1\n...\n--- [\n",
    "a: &x 1\nb: [*x, &y 2, *y]\nc: {*x : 3}\n",
    "a: !!int x\nb: 1\n",
    "a: !custom {b: 1}\nc: [1]\n",
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",
    "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n",
    "a: [1, b\n",
    "---\n",
    "# only a comment\n",
    "a:\n  - {b: c, b: d}\n",
    "a: 1\na: [2]\n",
    "a: {}\na: {b: 1}\n",
    "? {a: 1}\n: [x]\n",
    "x: &k k\n*k : [1]\n",
    "a: !!omap [b: 1]\nc: [!!set {d}]\n",
    "- [a, [b, {c: [d]}]]\n- &s {e: f}\n- *s\n",
]


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", [*_TUPLE_TEXTS, *_CALLBACK_TEXTS])
def test_the_parser_calling_the_composer_composes_what_the_event_loop_composes(text: str) -> None:
    """The composer driven by libyaml's parser (no event objects) gives what the same composer
    fed from libyaml's event objects gives (``_event_fields``), errors included (the same
    message at the same place)."""
    fast = _composed(text)
    assert yaml_format._CALLBACKS_OK[0] is True  # checked on this PyYAML: the callbacks were used
    assert _slowly_composed(text) == fast


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", [*_TUPLE_TEXTS, *_CALLBACK_TEXTS])
def test_the_pure_python_parser_feeds_the_composer_what_libyaml_gives_it(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyYAML's pure-Python parser (no callbacks: its event objects feed the composer) gives the
    same tree, data and bookkeeping, and gwconf's own errors; a syntax error at the same place
    (the two parsers word those differently)."""
    fast = _composed(text)
    assert yaml_format._CALLBACKS_OK[0] is True  # libyaml's parser called the composer
    monkeypatch.setattr(yaml_format, "LOADER", yaml.SafeLoader)
    assert yaml_format._callbacks_usable(yaml.SafeLoader(text)) is None
    slow = _composed(text)
    if fast[0] == "error" and slow[0] == "error" and fast[1] != slow[1]:
        assert "expected" in fast[1] and "expected" in slow[1]  # the parsers' own words
        fast, slow = fast[2:], slow[2:]
    assert slow == fast


def _slowly_composed(text: str) -> Any:
    """``_composed`` from libyaml's event objects, as when ``_callbacks_read_alike`` refuses it."""
    yaml_format._CALLBACKS_OK[0] = False
    try:
        return _composed(text)
    finally:
        yaml_format._CALLBACKS_OK[0] = None


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
@given(st.lists(_CTOR_DATA, min_size=1, max_size=3), st.sampled_from([None, True, False]))
@settings(max_examples=150, deadline=None)
def test_random_documents_compose_alike_by_callbacks_and_from_events(
    values: list[Any], flow: bool | None
) -> None:
    text = yaml.safe_dump({f"k{i}": v for i, v in enumerate(values)}, default_flow_style=flow)
    assert _slowly_composed(text) == _composed(text)


# pieces of YAML, right and wrong, for random texts: anchors, aliases (undefined, recursive,
# as keys), tags, duplicate keys, complex keys, flow and block, documents, odd scalars
_PIECES = [
    "a: 1",
    "a: 2",
    "b:",
    "- x",
    "- 1",
    "  - y",
    "  c: &r v",
    "d: *r",
    "*r: k",
    "&r",
    "*r",
    "e: !t 'q'",
    "f: !!str 1",
    "g: !!int x",
    "? [k]\n: v",
    "h: [1, *r, {i: j}]",
    "k: {x: y, x: z}",
    "l: |\n  block",
    "m: >-\n  fold",
    'n: "e\\tq"',
    "o: ~",
    "p: 2001-12-14",
    "q: 0x1f",
    "---",
    "...",
    "--- &d",
    "[",
    "]",
    "{",
    "}",
    ",",
    "- &s [1, 2]",
    "- *s",
    "t: &u {v: *u}",
    "  ",
    "#c",
    "w: .inf",
    "x: &y",
    "!t",
    "%YAML 1.1",
    "z: 'it''s'",
    "\ta: 1",
    "? a",
    ": b",
]


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
@given(st.lists(st.sampled_from(_PIECES), max_size=8), st.sampled_from(["\n", " ", "\n  "]))
@settings(max_examples=400, deadline=None)
def test_random_texts_compose_alike_by_callbacks_and_from_events(pieces: list[str], sep: str) -> None:
    """Random texts, most of them wrong: the same tree, data and bookkeeping, or the same error."""
    text = sep.join(pieces) + "\n"
    assert _slowly_composed(text) == _composed(text)


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
@given(
    st.text(alphabet=st.sampled_from([*"0123456789", *"0001_+-.:xXbeEoO ", "\u0663", "\u00b2"]), max_size=22)
)
@settings(max_examples=500, deadline=None)
def test_plain_numbers_get_the_tag_and_value_the_resolver_and_constructor_give(number: str) -> None:
    """The callbacks' own answer for a plain decimal int (no ``resolve``, no PyYAML constructor)
    is theirs: the same tag and value for every text of digits and the characters around them,
    as a key, a value and an item; and PyYAML's ``safe_load`` reads the same value."""
    text = f"a: {number}\n{number}: b\nc: [{number}, x]\n"
    fast = _composed(text)
    assert yaml_format._CALLBACKS_OK[0] is True
    assert _slowly_composed(text) == fast
    if number.isascii() and number.isdigit() and (number[0] != "0" or len(number) == 1):
        assert yaml.safe_load(text)["a"] == int(number)


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
def test_a_loader_with_its_own_digit_resolver_resolves_every_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decimal shortcut is PyYAML's resolvers' answer only: a loader that tries its own
    pattern first for digits gets that pattern's tag (through ``resolve``), not an int."""
    import re

    class Ports(yaml.CSafeLoader):  # type: ignore[misc,name-defined]
        pass

    Ports.yaml_implicit_resolvers = {
        k: ([("!port", re.compile(r"^[0-9]{4}$"))] if k.isdigit() else []) + list(v)
        for k, v in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    monkeypatch.setattr(yaml_format, "LOADER", Ports)
    tree = yaml_format._compose("a: 1001\nb: 12\n", "x.yaml", build=True)
    assert yaml_format._CALLBACKS_OK[0] is True
    assert tree.root is not None
    assert [v.tag for _, v in tree.root.value] == ["!port", "tag:yaml.org,2002:int"]


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
def test_pyyamls_event_classes_are_put_back_after_a_compose_and_after_an_error() -> None:
    import yaml.events

    names = yaml_format._EVENT_NAMES
    for text in ("a: [1, b]\n", "a: [1, b\n", "a: *x\n", "a: 1\na: 2\n", "--- 1\n--- 2\n"):
        try:
            yaml_format._compose(text, "x.yaml")
        except ParseError:
            pass
        assert all(getattr(yaml._yaml, n) is getattr(yaml.events, n) for n in names), text
    assert type(yaml.CSafeLoader("a: 1\n").get_event()) is yaml.events.StreamStartEvent
    assert yaml.safe_load("a: [x]\n") == {"a": ["x"]}


@pytest.mark.skipif(_C_PARSER is None, reason="PyYAML without libyaml")
def test_an_error_found_by_a_callback_names_its_line_and_stops_the_parser() -> None:
    """The first error wins and nothing after it is read: a second one further down (here a
    syntax error) is not what is reported."""
    with pytest.raises(ParseError) as caught:
        yaml_format._compose("a: 1\nb: *nope\nc: [\n", "x.yaml")
    assert (caught.value.line, caught.value.column) == (2, 4)
    assert "undefined alias *nope" in caught.value.reason
    assert yaml_format._CALLBACKS_OK[0] is True


def test_a_parser_whose_events_do_not_read_alike_keeps_its_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check behind the callbacks fails closed: a parser that would call a name with its
    fields in another order than ``_event_fields`` takes them from its objects is not given the
    callbacks, and then its event objects feed the composer: the same tree, or the same error."""
    if _C_PARSER is None:
        pytest.skip("PyYAML without libyaml")
    real = yaml_format._event_fields
    monkeypatch.setattr(yaml_format, "_event_fields", lambda event: real(event)[::-1])
    assert yaml_format._callbacks_read_alike(yaml._yaml) is False
    monkeypatch.setattr(yaml_format, "_event_fields", real)
    texts = ["a: &x [1]\nb: *x\n", "a: &x [1]\nb: *x\nc: {d: 1, d: 2}\n"]
    fast = [_composed(text) for text in texts]
    assert yaml_format._CALLBACKS_OK[0] is True
    monkeypatch.setattr(yaml_format, "_CALLBACKS_OK", [False])  # as the refused check leaves it
    assert yaml_format._callbacks_usable(yaml_format.LOADER("a: 1\n")) is None
    assert [_composed(text) for text in texts] == fast
    assert fast[1] == (
        "error",
        "duplicate key 'd' (first at line 3); gwconf refuses to edit a mapping with duplicate keys",
        3,
        11,
    )


@pytest.mark.parametrize("text", [t for t in _TUPLE_TEXTS if t.count("---") < 2 and "missing" not in t])
def test_nodes_hold_what_pyyamls_composer_puts_in_them(text: str, any_loader: str) -> None:
    """The composer sets each node's attributes itself (no ``__init__`` call): the same
    attributes PyYAML's own composer gives, offsets as plain ints."""
    try:
        theirs = yaml.compose(text, Loader=yaml_format.LOADER)
    except yaml.YAMLError:
        return
    try:
        ours = yaml_format._compose(text, "x.yaml").root
    except ParseError:
        return  # (keys twice, anchors defined twice: refused by gwconf, composed by PyYAML)
    todo = [(ours, theirs)]
    while todo:
        a, b = todo.pop()
        if a is None or b is None:
            assert a is b
            continue
        assert type(a) is type(b) and vars(a).keys() == vars(b).keys()
        assert (a.tag, a.start_mark, a.end_mark) == (b.tag, b.start_mark.index, b.end_mark.index)
        if isinstance(a, yaml.ScalarNode):
            assert (a.value, a.style) == (b.value, b.style or None)
        else:
            assert a.flow_style == bool(b.flow_style) and len(a.value) == len(b.value)
            pairs = a.value if isinstance(a, yaml.SequenceNode) else [x for kv in a.value for x in kv]
            theirs_pairs = b.value if isinstance(b, yaml.SequenceNode) else [x for kv in b.value for x in kv]
            todo += zip(pairs, theirs_pairs, strict=True)


def test_put_back_gives_a_scalar_its_own_spelling_back() -> None:
    """A restore puts a value back as the file had it: its quotes, escapes, tag and block style
    (they came back as gwconf's plain scalars: ``"gpt\\x2d5"`` as ``gpt-5``, ``>-`` folded)."""
    original = (
        "a: \"gpt\\x2d5\"  # c\nb: >-\n  folded\n  text\nc: !!str 5\nd: 'sq'\n"
        "e: {k: 'v'}\nf: [\"x\\u0020\"]\n"
    )
    before = load(original, SRC)
    paths = [("a",), ("b",), ("c",), ("d",), ("e", "k"), ("f", 0)]
    spellings = [before.spelling(p) for p in paths]
    assert spellings == ['"gpt\\x2d5"', ">-\n  folded\n  text", "!!str 5", "'sq'", "'v'", '"x\\u0020"']
    assert [before.spelling(p) for p in [("e",), (), ("missing",)]] == [None, None, None]
    changed = "a: gpt-4  # c\nb: x\nc: '6'\nd: y\ne: {k: w}\nf: [z]\n"
    doc = load(changed, SRC)
    for path, spelling in zip(paths, spellings, strict=True):
        doc.put_back(path, before.get(path), spelling or "")
    assert verify_edit("yaml", load(changed, SRC), doc) == original
    assert doc.data() == before.data()


@pytest.mark.parametrize(
    ("now", "spelling", "value", "expected"),
    [
        # the user's comment after gwconf's value would become block content: set's way
        ("b: x  # mine\n", ">-\n  folded", "folded", "b: folded  # mine\n"),
        # a keep scalar's trailing line breaks would grow by the line's own: set's way
        ("b: x\nc: 1\n", "|+\n  k\n\n", "k\n\n", 'b: "k\\n\\n"\nc: 1\n'),
        # not that value: the value counts
        ("b: x\n", "'other'", "v", "b: v\n"),
        # not a scalar now (the user made it a list): set's way
        ("b:\n  - x\n", "'v'", "v", "b: v\n"),
        # an anchor the file already defines: the spelling's would be a duplicate
        ("a: &n 1\nb: x\n", "&n v", "v", "a: &n 1\nb: v\n"),
    ],
)
def test_put_back_sets_the_value_where_the_spelling_would_read_otherwise(
    now: str, spelling: str, value: Any, expected: str
) -> None:
    doc = load(now, SRC)
    doc.put_back(("b",), value, spelling)
    assert doc.dump() == expected
    assert doc.data() == yaml.safe_load(expected)


def test_a_refusal_at_a_value_names_its_line_in_the_file_as_the_user_has_it() -> None:
    doc = load("# top\nfirst: 1\napis:\n  gwconf: 5\n", SRC)
    doc.set(("first",), {"b": {"c": [1, 2, 3]}})  # lines of gwconf's above it now
    assert doc.dump().splitlines()[3] != "  gwconf: 5"
    with pytest.raises(WriteRefused) as info:
        doc.set(("apis", "gwconf", "base-url"), "x")
    assert str(info.value).startswith(f"{SRC}:4:11: apis.gwconf is a scalar, not a mapping")
    with pytest.raises(WriteRefused) as info:
        load("apis:\n  - a\n", SRC).set(("apis", "x"), 1)
    assert str(info.value).startswith(f"{SRC}:2:3: apis is a list, not a mapping")
