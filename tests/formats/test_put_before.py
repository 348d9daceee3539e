"""``put_before``: a key gwconf took out goes back where the file had it (a restore after an edit).

Codex's ``forced_login_method`` and Claude Code's ``forceLoginMethod`` are taken out by apply;
a key-by-key restore (the user edited the file since) put them back at the end of their table or
object, a line of the user's file moved. Each case here (JSON, TOML, YAML) deletes a key from a real shape, puts it
back before the key that followed it, and gets the original text; every edit passes the write
gate (bytes and data). Where the editor cannot place it, the key goes where ``set`` puts it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gwconf import formats
from gwconf.formats import checked_edit

JSON_CASES = [
    ('{\n  "theme": "dark",\n  "forceLoginMethod": "claudeai",\n  "permissions": {\n    "allow": []\n  }\n}\n', "forceLoginMethod"),
    ('{\n  "a": 1, // one\n  "b": {"x": 1},\n  // about c\n  "c": 3\n}\n', "b"),
    ('{"a": 1, "b": 2, "c": 3}', "b"),
    ('{"a":1,"b":2,"c":3}', "b"),
    ('{ "a": 1, "b": 2 }', "a"),
    ('{\n  "a": 1,\n  "b": {\n    "x": [1,\n      2]\n  },\n  "c": 3,\n}\n', "b"),
    ('{\n\t"a": 1,\n\t"b": "caf\\u00e9",\n\t"c": 2\n}', "b"),
    ('{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n', "a"),
    # the user's own spacing and the comment on the member's line come back with it
    ('{\n  "theme": "dark",\n  "forceLoginMethod" :"claudeai", // set by the team\n  "b": 2\n}\n', "forceLoginMethod"),
    ('{\n  "a": 1,\n  "b":2 /* two */ , /* after */\n  "c": 3\n}\n', "b"),
    ('{\r\n  "a": 1, // one\r\n  "b": 2\r\n}\r\n', "a"),
    ('{\n  "models": {\n    "large": {\n      "model": "m",\n      "max_tokens": 8000,\n      "provider": "p"\n    }\n  }\n}\n', "max_tokens"),
]  # fmt: skip

TOML_CASES = [
    ('model = "o3"\nforced_login_method = "chatgpt"\napproval_policy = "never"\n\n[tui]\nnotifications = true\n', ("forced_login_method",)),
    ('# top\nmodel = "o3"  # mine\nmodel_context_window = 200_000\n# about the policy\napproval_policy = "never"\n', ("model_context_window",)),
    ('[tui]\nalpha = \'x\'\nbeta = [\n  1,\n  2,\n]\ngamma = true\ndelta = 1\n', ("tui", "gamma")),
    ('[tui]\nalpha = "\\u00e9"\nbeta = 1\n', ("tui", "alpha")),
    ('a = 1\r\nb = 2\r\nc = 3\r\n', ("b",)),
    # a real Codex config.toml's hand-typed line, and one with its own comment
    ('model = "gpt-5.4"\nmodel_context_window=1000000\nmodel_auto_compact_token_limit=900000\n', ("model_context_window",)),
    ('model = "o3"\nmodel_context_window   =  1_000_000   # gpt-5.4 allows 1M here\napproval_policy = "never"\n', ("model_context_window",)),
    ('[tui]\r\nalpha=true # on\r\nbeta = 1\r\n', ("tui", "alpha")),
    ('[p]\n  a = 1\n  b = """x\ny"""\n  c = 2\n', ("p", "b")),
]  # fmt: skip

YAML_CASES = [
    ("model: openai:gpt-4o\nclients:\n- type: openai-compatible\n  name: mygw\n  api_key: sk-x\n  api_base: https://a/v1\n  models:\n  - name: m\n", ("clients", 0, "api_key")),
    ("top:\n  a: 'q'   # note\n  b: \"x\"\n  c: 3\n", ("top", "b")),
    ("a: 1\r\nb: 2\r\nc: 3\r\n", ("b",)),
    ("a: 1\nkey:   v   # why this one\nb: 2\n", ("key",)),
    ("top:\n  a: 1\n  'quoted': \"x\"  # note\n  b: 2\n", ("top", "quoted")),
    ("a: 1\r\nb: 2 # two\r\nc: 3\r\n", ("b",)),
    ("a: 1\nb:\n  - 1\n  - 2\n# about c\nc: 3\n", ("b",)),
    ("a: |\n  text\n\n  more\nb: 2\nc: 3\n", ("b",)),
]  # fmt: skip


def _round_trip(fmt: str, text: str, path: tuple[str, ...]) -> str:
    """Delete ``path`` from ``text``, then put it back before the key that followed it (under the
    comment that stood right above it, as restore does from the pristine copy)."""
    loaded = formats.load(fmt, text, "f")
    value, spelling, above = loaded.get(path), loaded.spelling(path), loaded.comment_above(path)
    line = loaded.key_line(path)  # the whole line, as restore takes it from the pristine copy
    parent = loaded.get(path[:-1]) if path[:-1] else loaded.data()
    keys = list(parent)
    following = keys[keys.index(path[-1]) + 1]
    loaded.delete(path)
    cut = formats.load(fmt, loaded.dump(), "f")
    cut.put_before(path, value, spelling, following, above, line)
    return checked_edit(fmt, formats.load(fmt, loaded.dump(), "f"), cut)[0]


@pytest.mark.parametrize(("text", "key"), JSON_CASES)
def test_a_json_member_goes_back_where_it_was(text: str, key: str) -> None:
    path = ("models", "large", key) if key == "max_tokens" else (key,)
    assert _round_trip("jsonc", text, path) == text


@pytest.mark.parametrize(("text", "path"), TOML_CASES)
def test_a_toml_key_goes_back_where_it_was(text: str, path: tuple[str, ...]) -> None:
    assert _round_trip("toml", text, path) == text


@pytest.mark.parametrize(("text", "path"), YAML_CASES)
def test_a_yaml_key_goes_back_where_it_was(text: str, path: tuple[str | int, ...]) -> None:
    assert _round_trip("yaml", text, path) == text  # type: ignore[arg-type]


def test_a_yaml_key_after_a_dash_goes_where_set_puts_it() -> None:
    """``- api_key: x`` on the item's dash line: its line is not the key's own."""
    text = "- b: 2\n  c: 3\n"
    placed = formats.load("yaml", text, "f")
    placed.put_before((0, "a"), 1, "1", "b")
    assert placed.dump() == "- b: 2\n  c: 3\n  a: 1\n"


COMMENTED = [
    ("toml", 'model = "o3"\n# ChatGPT sign-in only\nforced_login_method = "chatgpt"\n# ask first\napproval_policy = "never"\n', ("forced_login_method",)),
    ("toml", 'model = "o3"\nforced_login_method = "chatgpt"\n# ask first\napproval_policy = "never"\n', ("forced_login_method",)),
    ("toml", "[t]\na = 1\n# same\nb = 2\n# same\nc = 3\n", ("t", "b")),
    ("jsonc", '{\n  "a": 1,\n  // about b\n  "b": 2,\n  /* about c */\n  "c": 3\n}\n', ("b",)),
    ("jsonc", '{\n  "a": 1,\n  "b": 2,\n  // about c\n  "c": 3\n}\n', ("b",)),
    ("yaml", "a: 1\n# one\n# about b\nb: 2\n# about c\nc: 3\n", ("b",)),
    ("yaml", "top:\n  a: 1\n  b: 2\n  # about c\n  c: 3\n", ("top", "b")),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "text", "path"), COMMENTED)
def test_a_key_goes_back_under_its_own_comment_not_the_next_keys(
    fmt: str, text: str, path: tuple[str, ...]
) -> None:
    """A delete leaves the comment above a key where it was, above the next key. Whose it was
    is in the pristine copy: the comment line right above the key there."""
    assert _round_trip(fmt, text, path) == text


def test_a_comment_between_two_members_stays_above_the_next() -> None:
    """Whose comment it was is not known: the member goes right after the one before it."""
    text = '{\n  "a": 1,\n  // about c\n  "c": 3\n}\n'
    doc = formats.load("jsonc", text, "f")
    doc.put_before(("b",), 2, None, "c")
    assert doc.dump() == '{\n  "a": 1,\n  "b": 2,\n  // about c\n  "c": 3\n}\n'


@pytest.mark.parametrize("fmt", ["jsonc", "toml", "yaml", "dotenv"])
def test_without_the_following_key_it_goes_where_set_puts_it(fmt: str) -> None:
    texts = {
        "jsonc": '{\n  "a": 1\n}\n',
        "toml": "a = 1\n",
        "yaml": "a: 1\n",
        "dotenv": "a=1\n",
    }
    placed = formats.load(fmt, texts[fmt], "f")
    placed.put_before(("b",), "x", None, "gone")
    plain = formats.load(fmt, texts[fmt], "f")
    plain.set(("b",), "x")
    assert placed.dump() == plain.dump()
    assert placed.ops == plain.ops


def test_a_spelling_that_is_not_the_value_is_not_written() -> None:
    doc = formats.load("jsonc", '{\n  "a": 1,\n  "c": 3\n}\n', "f")
    doc.put_before(("b",), "two", '"three"', "c")
    assert doc.data() == {"a": 1, "b": "two", "c": 3}
    assert list(doc.data()) == ["a", "b", "c"]


_KEYS = st.lists(st.sampled_from("abcdefgh"), min_size=2, max_size=6, unique=True)
_VALUES = st.one_of(
    st.integers(-5, 5), st.text("xyé ", max_size=3), st.booleans(), st.lists(st.integers(0, 3), max_size=2)
)


@settings(max_examples=150, deadline=None)
@given(
    keys=_KEYS,
    values=st.lists(_VALUES, min_size=6, max_size=6),
    which=st.integers(0, 4),
    style=st.integers(0, 2),
)
def test_any_member_but_the_last_goes_back_byte_for_byte(
    keys: list[str], values: list[Any], which: int, style: int
) -> None:
    which %= len(keys) - 1
    data = dict(zip(keys, values, strict=False))
    text = [json.dumps(data, indent=2), json.dumps(data), json.dumps(data, indent="\t")][style] + "\n"
    assert _round_trip("jsonc", text, (keys[which],)) == text


@settings(max_examples=150, deadline=None)
@given(
    keys=_KEYS,
    values=st.lists(
        st.one_of(st.integers(-5, 5), st.text("xy", max_size=3), st.booleans()), min_size=6, max_size=6
    ),
    which=st.integers(0, 4),
    table=st.booleans(),
    separators=st.lists(st.sampled_from([" = ", "=", "  =   "]), min_size=6, max_size=6),
    comments=st.lists(st.sampled_from(["", "  # why", " #x"]), min_size=6, max_size=6),
)
def test_any_toml_key_but_the_last_goes_back_byte_for_byte(
    keys: list[str],
    values: list[Any],
    which: int,
    table: bool,
    separators: list[str],
    comments: list[str],
) -> None:
    which %= len(keys) - 1
    lines = [
        f"{k}{sep}{json.dumps(v) if not isinstance(v, bool) else str(v).lower()}{note}"
        for k, v, sep, note in zip(keys, values, separators, comments, strict=False)
    ]
    text = ("[t]\n" if table else "") + "\n".join(lines) + "\n"
    path = ("t", keys[which]) if table else (keys[which],)
    assert _round_trip("toml", text, path) == text


@settings(max_examples=100, deadline=None)
@given(
    keys=_KEYS,
    values=st.lists(
        st.one_of(st.integers(-5, 5), st.sampled_from(["x", "'y z'", '"q"', "true", "~"])),
        min_size=6,
        max_size=6,
    ),
    which=st.integers(0, 4),
    nested=st.booleans(),
    separators=st.lists(st.sampled_from([": ", ":   "]), min_size=6, max_size=6),
    comments=st.lists(st.sampled_from(["", "  # why", " #x"]), min_size=6, max_size=6),
)
def test_any_yaml_key_but_the_last_goes_back_byte_for_byte(
    keys: list[str], values: list[Any], which: int, nested: bool, separators: list[str], comments: list[str]
) -> None:
    which %= len(keys) - 1
    pad = "  " if nested else ""
    lines = [
        f"{pad}{k}{sep}{v}{note}" for k, v, sep, note in zip(keys, values, separators, comments, strict=False)
    ]
    text = ("top:\n" if nested else "") + "\n".join(lines) + "\n"
    path = ("top", keys[which]) if nested else (keys[which],)
    assert _round_trip("yaml", text, path) == text
