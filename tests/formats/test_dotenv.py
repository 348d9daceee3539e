""".env editor: read as python-dotenv / npm dotenv read; one value token changes, everything else
stays; what gwconf writes reads the same in both libraries and in a shell."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, load, replay, verify_edit
from gwconf.formats.dotenv import DotenvDocument, quote

ENV = """\
# Gemini CLI
export OPENAI_API_KEY='sk-old'   # old key
PLAIN=value # inline comment
  SPACED = "double quoted"
DUP=1
DUP=2
EMPTY=
MULTI='line one
line two'
ESCAPED="a \\"q\\" \\\\ \\n b"
HASH=a#b
"""


def edited(text: str, *ops: tuple) -> tuple[DotenvDocument, str]:
    doc = load("dotenv", text, ".env")
    for name, *args in ops:
        getattr(doc, name)(*args)
    return doc, verify_edit("dotenv", load("dotenv", text, ".env"), doc)


def bash_reads(tmp_path: Path, text: str, names: list[str]) -> dict[str, str]:
    """What `set -a; source FILE` gives each name (a NUL separates the values)."""
    path = tmp_path / "test.env"
    path.write_bytes(text.encode())
    script = 'set -a; source "$1"; shift; for n in "$@"; do printf "%s\\0" "${!n}"; done'
    out = subprocess.run(
        ["bash", "-c", script, "bash", str(path), *names],
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.stderr == b""
    return dict(zip(names, out.stdout.decode().split("\0")[:-1], strict=True))


def test_reading_follows_python_dotenv() -> None:
    doc = load("dotenv", ENV, ".env")
    assert doc.dump() == ENV
    assert doc.data() == {
        "OPENAI_API_KEY": "sk-old",
        "PLAIN": "value",
        "SPACED": "double quoted",
        "DUP": "2",
        "EMPTY": "",
        "MULTI": "line one\nline two",
        "ESCAPED": 'a "q" \\ \n b',
        "HASH": "a#b",
    }
    assert doc.get(("DUP",)) == "2" and doc.get(("NOPE",)) is MISSING and doc.get((), None) == doc.data()


def test_set_replaces_only_the_value_token() -> None:
    _, text = edited(
        ENV,
        ("set", ("OPENAI_API_KEY",), "sk-new"),
        ("set", ("PLAIN",), "v2"),
        ("set", ("SPACED",), "still double"),
    )
    assert "export OPENAI_API_KEY='sk-new'   # old key\n" in text
    assert "PLAIN=v2 # inline comment\n" in text
    assert '  SPACED = "still double"\n' in text
    assert len([a for a, b in zip(ENV.splitlines(), text.splitlines(), strict=True) if a != b]) == 3


def test_quote_style_changes_only_when_the_value_does_not_fit() -> None:
    _, text = edited(ENV, ("set", ("PLAIN",), "two words"), ("set", ("SPACED",), "costs $5"))
    assert "PLAIN='two words' # inline comment\n" in text
    assert "  SPACED = 'costs $5'\n" in text  # no `\$` needed in single quotes


def test_an_empty_value_with_a_comment_gets_its_value_before_the_comment(tmp_path: Path) -> None:
    """python-dotenv reads `A=  # c` as "# c" (its comment needs a blank before it, and the blanks
    after `=` are skipped); npm dotenv reads it as empty, and keeps the comment."""
    original = "A=  # set me\nB=#not a comment\nC='x'# glued\n"
    assert load("dotenv", original, ".env").data() == {"A": "# set me", "B": "#not a comment", "C": "x"}
    assert load("dotenv-npm", original, ".env").data() == {"A": "", "B": "", "C": "x"}
    _, text = edited(original, *[("set", (n,), "v") for n in "ABC"])
    assert text == "A=v\nB=v\nC='v' # glued\n"
    assert bash_reads(tmp_path, text, list("ABC")) == dict.fromkeys("ABC", "v")
    doc = load("dotenv-npm", original, ".env")
    for name in "ABC":
        doc.set((name,), "v")
    text = verify_edit("dotenv-npm", load("dotenv-npm", original, ".env"), doc)
    assert text == "A=v  # set me\nB=v #not a comment\nC='v' # glued\n"
    assert bash_reads(tmp_path, text, list("ABC")) == dict.fromkeys("ABC", "v")


def test_duplicates_set_edits_the_winner_and_delete_removes_all() -> None:
    _, text = edited(ENV, ("set", ("DUP",), "3"))
    assert "DUP=1\nDUP=3\n" in text
    doc, text = edited(ENV, ("delete", ("DUP",)))
    assert "DUP" not in text and doc.delete(("DUP",)) is False


def test_deleting_a_name_set_many_times_cuts_every_copy_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each copy's lines go and nothing else: comments, blank lines, a bare ``export`` of the name
    (it sets nothing) and CRLF stay. The file is parsed once for all copies, not once per copy
    (an 80 KB file setting the name 2000 times took 25 s)."""
    copies = (
        "export OPENAI_API_KEY='sk-{i}'  # old\r\n",
        'OPENAI_API_KEY="multi\r\nline {i}"\r\n',
        "OPENAI_API_KEY={i}\r\n",
    )
    original = "".join(f"# key {i}\r\n{copies[i % 3].format(i=i)}OTHER_{i}=x\r\n\r\n" for i in range(60))
    original += "export OPENAI_API_KEY\r\nOPENAI_API_KEY=last"
    expected = "".join(f"# key {i}\r\nOTHER_{i}=x\r\n\r\n" for i in range(60)) + "export OPENAI_API_KEY\r\n"
    parse = DotenvDocument._parse
    parses: list[str] = []
    monkeypatch.setattr(DotenvDocument, "_parse", lambda doc, text: parses.append(text) or parse(doc, text))
    doc = load("dotenv", original, ".env")
    assert doc.delete(("OPENAI_API_KEY",)) and len(parses) == 2  # the load's and the delete's
    assert verify_edit("dotenv", load("dotenv", original, ".env"), doc) == expected


def test_deleting_two_bindings_on_one_line_cuts_the_line_once() -> None:
    """npm dotenv starts a binding after U+2028 too, so two can share a line (and its span); the
    line is cut once (cutting it twice took the line after it, and the gate refused)."""
    original = "A='1'\u2028A=2\nB=3\n"
    doc = load("dotenv-npm", original, ".env")
    assert doc.data() == {"A": "2", "B": "3"} and doc.delete(("A",))
    assert verify_edit("dotenv-npm", load("dotenv-npm", original, ".env"), doc) == "B=3\n"


def test_new_keys_are_appended_with_the_files_line_ending() -> None:
    _, text = edited("A=1\r\nB=2\r\n", ("set", ("NEW",), "x y"))
    assert text == "A=1\r\nB=2\r\nNEW='x y'\r\n"
    _, text = edited("A=1", ("set", ("NEW",), "x"))
    assert text == "A=1\nNEW=x\n"


def test_equal_set_is_a_no_op() -> None:
    doc, text = edited(ENV, ("set", ("PLAIN",), "value"), ("set", ("MULTI",), "line one\nline two"))
    assert doc.ops == [] and text == ENV


@pytest.mark.parametrize("original", ["A=1\n", "A=1", "A=1\r\n# c\r\n", "", "# only a comment"])
def test_add_then_delete_gives_back_the_original_bytes(original: str) -> None:
    doc, _ = edited(original, ("set", ("GWCONF_KEY",), "sk-1"), ("set", ("OTHER",), "it's"))
    doc.delete(("GWCONF_KEY",))
    doc.delete(("OTHER",))
    assert verify_edit("dotenv", load("dotenv", original, ".env"), doc) == original


def test_a_cut_that_takes_the_given_line_ending_leaves_nothing_to_give_back() -> None:
    """The file's last line had no line ending; gwconf gave it one to append a name, then the
    delete of that last line cut it too. Deleting the appended name then gave back one character
    too many: the LF of the CRLF before (``A=v\r``)."""
    original = "A=v\r\nB='multi\nline'"
    _, text = edited(original, ("set", ("NEW",), "x"), ("delete", ("B",)), ("delete", ("NEW",)))
    assert text == "A=v\r\n"


def test_a_value_filled_in_before_the_given_line_ending_moves_it() -> None:
    """``A=`` had no line ending; gwconf gave it one to append a name, then set A: the value
    went in right before that line ending, which moved on with it. Setting A back and deleting
    the name gave back ``A=`` plus a newline (a hypothesis run found it)."""
    for original in ("A=", "A=\r\nB=1\r\nC=", "A=''"):
        doc, _ = edited(original, ("set", ("NEW",), "x"), ("set", ("C" if "C=" in original else "A",), "v"))
        doc.set(("C" if "C=" in original else "A",), "")
        doc.delete(("NEW",))
        assert verify_edit("dotenv", load("dotenv", original, ".env"), doc) == original, original


HOSTILE = [
    "sk-plain",
    "",
    "two words",
    "it's",
    'say "hi"',
    "$HOME and $(id)",
    "`id` $(id)",
    "a\\b",  # a lone backslash: no reader decodes it
    "it's a\\d",
    "line1\nline2",
    "it's\nmulti",
    "trailing space ",
    " #not a comment",
    "semi;colon&amp|pipe",
    "ünïcödé 🚀",
    "tab\there",
]
# No spelling reads the same in npm dotenv, python-dotenv and a shell (issue 18 item 5).
UNWRITABLE = [
    'it\'s $HOME `id` \\ "q"',
    "it's $x",
    'it\'s "q"',
    "a\\b\\\\c\\n",  # python-dotenv decodes \\ and \n in either quote, npm and sh do not
    "${HOME}",  # python-dotenv interpolates it even in single quotes
    "cr\rhere",  # both libraries read a CR as a line break
    "ends in \\",
]


@pytest.mark.parametrize("fmt", ["dotenv", "dotenv-npm"])
def test_every_written_value_reads_back_through_both_readers_and_bash(tmp_path: Path, fmt: str) -> None:
    names = [f"V{i}" for i in range(len(HOSTILE))]
    doc = load(fmt, "# values\nexport KEEP=1\n", ".env")
    for name, value in zip(names, HOSTILE, strict=True):
        doc.set((name,), value)
    text = verify_edit(fmt, load(fmt, "# values\nexport KEEP=1\n", ".env"), doc)
    expected = {"KEEP": "1", **dict(zip(names, HOSTILE, strict=True))}
    assert load("dotenv", text, ".env").data() == load("dotenv-npm", text, ".env").data() == expected
    assert bash_reads(tmp_path, text, names) == dict(zip(names, HOSTILE, strict=True))


@pytest.mark.parametrize("fmt", ["dotenv", "dotenv-npm"])
@pytest.mark.parametrize("value", UNWRITABLE)
def test_a_value_without_a_common_spelling_is_refused(fmt: str, value: str) -> None:
    doc = load(fmt, "A='old'\n", ".env")
    with pytest.raises(WriteRefused, match=r"^\.env: A: this value has no spelling") as info:
        doc.set(("A",), value)
    assert "npm dotenv, python-dotenv and a shell" in str(info.value)
    assert doc.dump() == "A='old'\n" and doc.ops == []
    with pytest.raises(WriteRefused):
        doc.set(("NEW",), value)
    assert doc.dump() == "A='old'\n" and doc.ops == []


def test_replacing_values_in_every_quote_style_reads_back_in_bash(tmp_path: Path) -> None:
    original = "A=bare\nB='single'\nC=\"double\"\n"
    for value in HOSTILE:
        _, text = edited(original, *[("set", (n,), value) for n in "ABC"])
        assert bash_reads(tmp_path, text, list("ABC")) == dict.fromkeys("ABC", value), text
        assert load("dotenv-npm", text, ".env").data() == dict.fromkeys("ABC", value), text


def test_quoting_policy() -> None:
    assert quote("sk-1.2_x/y:z@w+v") == "sk-1.2_x/y:z@w+v"
    assert quote("") == "''"
    assert quote("a b") == "'a b'"
    assert quote("it's") == '"it\'s"'
    with pytest.raises(WriteRefused):
        quote("it's $x")  # bash wants `\$`, which npm dotenv keeps (issue 18 item 5)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("A=1\nnot an assignment\n", 2, 5),
        ("A=1\n  B='open\n", 2, 5),
        ('A="open\n\n', 1, 3),
        ("A='x'y\n", 1, 6),
        ('A="x" y\n', 1, 6),
        ("A=1\r\nB='x' y\r\n", 2, 6),
    ],
)
def test_what_python_dotenv_cannot_read_is_refused_with_position(text: str, line: int, column: int) -> None:
    """python-dotenv skips such a line with a warning; gwconf refuses the file, naming it."""
    with pytest.raises(ParseError) as info:
        load("dotenv", text, ".env")
    assert (info.value.line, info.value.column) == (line, column)
    assert "python-dotenv cannot read this line" in info.value.reason
    if "not an" not in text:  # npm dotenv skips that line; gwconf refuses it there too
        load("dotenv-npm", text, ".env")  # npm dotenv reads the rest as it reads it


@pytest.mark.parametrize(
    ("text", "python", "npm"),
    [
        ("MY-VAR=1\n", {"MY-VAR": "1"}, {"MY-VAR": "1"}),
        ("export A\nB=1\n", {"B": "1"}, {"B": "1"}),  # a bare export sets nothing
        ("A=1\nexport A\n", {}, {"A": "1"}),  # python-dotenv: the last A has no value
        ('A="x" y\n', None, {"A": '"x" y'}),
        ('A="\\t"\n', {"A": "\t"}, {"A": "\\t"}),
        ("A='a\\\\b'\n", {"A": "a\\b"}, {"A": "a\\\\b"}),
        ('A="a\\nb"\n', {"A": "a\nb"}, {"A": "a\nb"}),
        ("A: x\n", None, {"A": "x"}),
        ("a.b=1\n", {"a.b": "1"}, {"a.b": "1"}),
        ("'Q K'=1\n", {"Q K": "1"}, {}),
        ("A=\n'x'\n", {"A": ""}, {"A": "x"}),  # npm: the value may start on the next line
        ("A=1 # c\nB=2#c\n", {"A": "1", "B": "2#c"}, {"A": "1", "B": "2"}),
        ("A=`x`\n", {"A": "`x`"}, {"A": "x"}),
    ],
)
def test_each_library_is_read_its_own_way(text: str, python: dict | None, npm: dict) -> None:
    if python is None:
        with pytest.raises(ParseError):
            load("dotenv", text, ".env")
    else:
        assert load("dotenv", text, ".env").data() == python
    assert load("dotenv-npm", text, ".env").data() == npm


@pytest.mark.parametrize("fmt", ["dotenv", "dotenv-npm"])
def test_an_edit_in_a_file_the_library_reads_its_own_way(fmt: str) -> None:
    text = "MY-VAR=1\r\nexport A\r\nB=\"\\t\" # tab\r\nC='a\\\\b'\r\n"
    original = load(fmt, text, ".env")
    doc = load(fmt, text, ".env")
    doc.set(("B",), "sk-new")
    doc.set(("GW",), "x")
    out = verify_edit(fmt, original, doc)
    assert out == text.replace('"\\t"', '"sk-new"') + "GW=x\r\n"
    assert doc.data() == {**original.data(), "B": "sk-new", "GW": "x"}


def test_refusals() -> None:
    doc = load("dotenv", ENV, ".env")
    for bad in [
        lambda: doc.set(("A", "B"), "x"),
        lambda: doc.set(("A",), 1),
        lambda: doc.set(("NEW.DOTTED",), "x"),  # bash could not source it
        lambda: doc.set(("A",), "nul\x00"),
        lambda: doc.append(("A",), "x"),
    ]:
        with pytest.raises(WriteRefused):
            bad()
    assert doc.ops == [] and doc.dump() == ENV


# -- property: random files, random edits ------------------------------------------------------

_NAMES = ["A", "B", "KEY_1", "OPENAI_API_KEY"]
_TOKENS = st.sampled_from(["v", "", "'single q'", '"double \\" q"', "'multi\nline'", "x#y", "a b  "])
_VALUES = st.text(st.sampled_from("aZ9 '\"$`\\#\n\t=é"), max_size=8)


@st.composite
def env_files(draw) -> tuple[str, list[tuple[str, str | None]]]:
    lines: list[tuple[str, str | None]] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["var", "var", "comment", "blank"]))
        if kind == "var":
            name = draw(st.sampled_from(_NAMES))
            prefix = draw(st.sampled_from(["", "export ", "  "]))
            eq = draw(st.sampled_from(["=", " = ", "= "]))
            tail = draw(st.sampled_from(["", "  # note", " ", "#glued"]))
            lines.append((f"{prefix}{name}{eq}{draw(_TOKENS)}{tail}", name))
        else:
            lines.append(("# comment" if kind == "comment" else "", None))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(line for line, _ in lines)
    if lines and draw(st.booleans()):
        text += eol
    return text, lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env_files(), st.lists(st.tuples(st.booleans(), st.sampled_from([*_NAMES, "NEW"]), _VALUES), max_size=5)
)
def test_random_edits_read_back_as_intended_and_leave_other_lines_alone(file, ops) -> None:
    text, lines = file
    doc = load("dotenv", text, "random.env")
    original = doc.data()
    touched = set()
    for is_set, name, value in ops:
        if is_set:
            try:
                doc.set((name,), value)
            except WriteRefused:
                continue  # no spelling that every reader reads the same: nothing changed
        else:
            doc.delete((name,))
        touched.add(name)
    out = verify_edit("dotenv", load("dotenv", text, "random.env"), doc)
    assert load("dotenv", out, "x").data() == replay(original, doc.ops)
    kept = [part for line, owner in lines if owner not in touched for part in line.split("\n")]
    remaining = iter(out.replace("\r\n", "\n").split("\n"))
    assert all(any(line == other for other in remaining) for line in kept), out
    plain = "\n" not in text.replace("\r\n", "") and not any("\n" in value for _, _, value in ops)
    if "\r\n" in text and plain:
        assert not re.search(r"(?<!\r)\n", out)


# -- property: python-dotenv's inline comment, cut without its backtracking pattern ---------------

_BARE_CHARS = " \t\v\f\x1c\x85\xa0\u2028\u3000#'\"`ax=\\"  # \s as re and str.strip know it, and the rest
_PY_INLINE_COMMENT = re.compile(r"\s+#.*")  # python-dotenv's parse_value, as gwconf ran it before


def _python_dotenv_cut(line: str) -> str:
    return _PY_INLINE_COMMENT.sub("", line).rstrip()


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(_BARE_CHARS), max_size=30))
def test_a_bare_values_comment_is_cut_where_python_dotenvs_pattern_cuts(line: str) -> None:
    """The parser hands ``_py_bare_value`` the rest of one line (no CR or LF: ``[^\\r\\n]*`` on
    text with universal newlines), so ``.sub`` matches at most once and runs to its end."""
    from gwconf.formats.dotenv import _py_bare_value

    assert _py_bare_value(line) == _python_dotenv_cut(line)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(st.sampled_from(_BARE_CHARS), max_size=12), min_size=1, max_size=5),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_bare_values_over_several_lines_read_as_python_dotenvs_pattern_reads_each(
    values: list[str], eol: str
) -> None:
    """Each line's value is cut on its own: a comment or a run of blanks never reaches the next
    line. A value that starts with a quote (after the blanks) is quoted, not bare: left out."""
    values = [v for v in values if v.lstrip()[:1] not in ("'", '"')]
    text = eol.join(f"K{i}={v}" for i, v in enumerate(values)) + eol
    expected = {f"K{i}": _python_dotenv_cut(v.lstrip()) for i, v in enumerate(values)}
    assert load("dotenv", text, ".env").data() == expected


def test_the_npm_patterns_classes_are_javascripts_over_every_code_point() -> None:
    """``_JS_S`` and ``_JS_DOT`` are spelled to compile cheaply; they match exactly the characters
    of JavaScript's ``\\s`` and ``.`` (the classes written out), on this Python's Unicode tables."""
    from gwconf.formats import dotenv

    space = re.compile(f"[{dotenv._JS_WS}]")
    dot = re.compile(r"[^\n\r\u2028\u2029]")
    cheap_space, cheap_dot = re.compile(dotenv._JS_S), re.compile(dotenv._JS_DOT)
    every = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in cheap_space.finditer(every)] == [m.start() for m in space.finditer(every)]
    assert [m.start() for m in cheap_dot.finditer(every)] == [m.start() for m in dot.finditer(every)]
    assert {c for c in every if space.match(c)} == set(dotenv._JS_CHARS)  # what trim() takes off


@pytest.mark.parametrize("fmt", ["dotenv", "dotenv-npm"])
def test_put_back_writes_the_users_own_spelling(fmt: str) -> None:
    """A restore's value goes back as the file before gwconf wrote it: ``${B}`` (no spelling that
    every reader agrees on: ``set`` refuses it) and ``$B`` (``set`` would quote it; sgpt keeps quotes)."""
    before = load(fmt, "A=${B} # mine\nC=$D\nE='x'\n", "f")
    assert [before.spelling((n,)) for n in ("A", "C", "E", "Z")] == ["${B}", "$D", "'x'", None]
    doc = load(fmt, "A=sk-gw # mine\nC=sk-gw\nE=other\n", "f")
    with pytest.raises(WriteRefused):
        doc.set(("A",), "${B}")
    for name in ("A", "C", "E"):
        doc.put_back((name,), before.get((name,)), before.spelling((name,)) or "")
    assert doc.dump() == "A=${B} # mine\nC=$D\nE='x'\n"
    assert verify_edit(fmt, load(fmt, "A=sk-gw # mine\nC=sk-gw\nE=other\n", "f"), doc) == doc.dump()


def test_put_back_sets_the_value_when_the_spelling_reads_otherwise_where_it_would_stand() -> None:
    doc = load("dotenv", "A=sk-gw\n", "f")
    doc.put_back(("A",), "x", "'y'")  # not a spelling of "x": the value is what counts
    assert doc.dump() == "A=x\n"
    doc.put_back(("B",), "z", "'z'")  # no such line: set's own line
    assert doc.data() == {"A": "x", "B": "z"}
    doc = load("dotenv", "A=sk-gw\n", "f")
    doc.put_back(("A",), "v", "'v")  # unclosed where it would stand: python-dotenv would not read it
    assert doc.dump() == "A=v\n"
