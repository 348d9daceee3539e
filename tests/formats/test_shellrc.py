"""Shell rc block: gwconf's variables live between markers; nothing outside them moves."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, load, verify_edit
from gwconf.formats.shellrc import BEGIN, END, NOTE, NOTES, ShellBlockDocument

BASHRC = """\
# ~/.bashrc
export PATH="$HOME/bin:$PATH"
alias ll='ls -l'
# >>> conda initialize >>>
conda_stuff
# <<< conda initialize <<<
"""

HOSTILE = [
    "http://127.0.0.1:8080/v1",
    "",
    "it's",
    "'; rm -rf ~; echo '",
    "$(touch /tmp/gwconf-pwned) `id` ${HOME}",
    'a "double" \\ backslash \\\\ two',
    "line1\nline2\n",
    f"fake end\n{END}\nexport EVIL=1\n{BEGIN}\n",
    "semi; colon && and | pipe > redirect",
    "‘smart’ ’quotes‚ ‛",
    "ünïcödé 🚀 tab\t!",
]
FMTS = ["shellrc", "fish", "powershell"]


def edited(fmt: str, text: str, *ops: tuple) -> tuple[ShellBlockDocument, str]:
    doc = load(fmt, text, "rc")
    for name, *args in ops:
        getattr(doc, name)(*args)
    return doc, verify_edit(fmt, load(fmt, text, "rc"), doc)


def shell_reads(fmt: str, tmp_path: Path, text: str, names: list[str]) -> dict[str, str] | None:
    """What the real shell sees after sourcing the file; None when that shell is not installed."""
    path = tmp_path / "rc"
    path.write_bytes(text.encode())
    if fmt == "shellrc":
        script = 'source "$1"; shift; for n in "$@"; do printf "%s\\0" "${!n}"; done'
        cmd = ["bash", "-c", script, "bash", str(path), *names]
    elif fmt == "fish" and shutil.which("fish"):
        script = "source $argv[1]; for n in $argv[2..-1]; printf '%s\\0' $$n; end"
        cmd = ["fish", "-c", script, str(path), *names]
    elif fmt == "powershell" and shutil.which("pwsh"):
        script = (
            f". '{path}'; foreach ($n in $args) {{ [Console]::Out.Write((Get-Item env:$n).Value + [char]0) }}"
        )
        cmd = ["pwsh", "-NoProfile", "-Command", script, *names]
    else:
        return None
    out = subprocess.run(
        cmd, capture_output=True, check=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    )
    return dict(zip(names, out.stdout.decode().split("\0")[:-1], strict=True))


@pytest.mark.parametrize("fmt", FMTS)
def test_block_is_appended_after_one_blank_line_and_removed_exactly(fmt: str) -> None:
    doc, text = edited(
        fmt, BASHRC, ("set", ("OPENAI_BASE_URL",), "http://gw/v1"), ("set", ("OPENAI_API_KEY",), "sk-1")
    )
    line = {"shellrc": "export {}='{}'", "fish": "set -gx {} '{}'", "powershell": "$env:{} = '{}'"}[fmt]
    assert text == (
        BASHRC
        + f"\n{BEGIN}\n{NOTE}\n"
        + line.format("OPENAI_BASE_URL", "http://gw/v1")
        + "\n"
        + line.format("OPENAI_API_KEY", "sk-1")
        + f"\n{END}\n"
    )
    assert load(fmt, text, "rc").data() == {"OPENAI_BASE_URL": "http://gw/v1", "OPENAI_API_KEY": "sk-1"}
    doc.delete(("OPENAI_BASE_URL",))
    assert BEGIN in doc.dump()
    doc.delete(("OPENAI_API_KEY",))
    assert doc.dump() == BASHRC
    # and in a later process, from the file as written
    later, restored = edited(fmt, text, ("delete", ("OPENAI_BASE_URL",)), ("delete", ("OPENAI_API_KEY",)))
    assert restored == BASHRC and later.data() == {}


@pytest.mark.parametrize(
    "original", ["", "x=1", "x=1\n", "x=1\n\n", "a\r\nb\r\n", "# only\r\n# crlf"], ids=repr
)
def test_removing_the_last_variable_gives_back_the_original_bytes(original: str) -> None:
    doc, text = edited("shellrc", original, ("set", ("K",), "v"))
    if "\r\n" in original:
        assert text.count("\n") == text.count("\r\n") and text.endswith(f"{END}\r\n")
    doc.delete(("K",))
    assert verify_edit("shellrc", load("shellrc", original, "rc"), doc) == original


def test_text_outside_the_markers_is_not_data_and_never_touched() -> None:
    text = f"export OPENAI_API_KEY=mine\n\n{BEGIN}\n{NOTE}\nexport K='1'\n{END}\n# after\n"
    doc, out = edited("shellrc", text, ("set", ("K",), "2"), ("set", ("NEW",), "n"))
    assert doc.data() == {"K": "2", "NEW": "n"}
    assert (
        out
        == f"export OPENAI_API_KEY=mine\n\n{BEGIN}\n{NOTE}\nexport K='2'\nexport NEW='n'\n{END}\n# after\n"
    )
    doc.delete(("K",))
    doc.delete(("NEW",))
    assert doc.dump() == "export OPENAI_API_KEY=mine\n# after\n"  # the block and its blank line


@pytest.mark.parametrize("note", NOTES)
def test_the_note_names_both_clients_that_write_the_block_and_an_earlier_note_is_kept(note: str) -> None:
    """The block is the shell client's and Copilot CLI's: its note named only `gwconf restore shell`,
    which leaves Copilot CLI's lines (found over real dotfiles). A block of earlier gwconf keeps
    its note; a first variable still goes under it."""
    _, out = edited("shellrc", "# mine\n", ("set", ("K",), "1"))
    assert out == f"# mine\n\n{BEGIN}\n{NOTE}\nexport K='1'\n{END}\n"
    assert "`gwconf restore shell copilot-cli`" in NOTE
    _, out = edited("shellrc", f"{BEGIN}\n{note}\n{END}\n", ("set", ("K",), "1"))
    assert out == f"{BEGIN}\n{note}\nexport K='1'\n{END}\n"


def test_equal_set_is_a_no_op_and_missing_delete_is_false() -> None:
    text = f"{BEGIN}\n{NOTE}\nexport K='1'  # mine\n{END}\n"
    doc, out = edited("shellrc", text, ("set", ("K",), "1"))
    assert doc.ops == [] and out == text
    assert doc.delete(("NOPE",)) is False and doc.get(("NOPE",)) is MISSING and doc.get(("K",)) == "1"


@pytest.mark.parametrize("fmt", FMTS)
def test_hostile_values_stay_values(fmt: str, tmp_path: Path) -> None:
    names = [f"V{i}" for i in range(len(HOSTILE))]
    _, text = edited(fmt, BASHRC, *[("set", (n,), v) for n, v in zip(names, HOSTILE, strict=True)])
    expected = dict(zip(names, HOSTILE, strict=True))
    again = load(fmt, text, "rc")
    assert again.data() == expected
    assert text.startswith(BASHRC) and text.count(BEGIN) == 2  # one marker is inside a value
    seen = shell_reads(fmt, tmp_path, text, [*names, "EVIL"])
    if seen is not None:
        assert seen == {**expected, "EVIL": ""}
    assert not Path("/tmp/gwconf-pwned").exists()


def test_every_posix_line_is_one_single_quoted_word() -> None:
    _, text = edited("shellrc", "", ("set", ("K",), "it's $x"))
    assert "export K='it'\\''s $x'\n" in text
    _, text = edited("fish", "", ("set", ("K",), "it's \\"))
    assert "set -gx K 'it\\'s \\\\'\n" in text
    _, text = edited("powershell", "", ("set", ("K",), "it's ’"))
    assert "$env:K = 'it''s ’’'\n" in text


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (f"{BEGIN}\nexport A='1'\n{END}\n\n{BEGIN}\n{END}\n", 5, "second gwconf block"),
        (f"x\n{BEGIN}\nexport A='1'\n", 2, "no '# <<< gwconf <<<'"),
        (f"{END}\n", 1, "without"),
        (f"{BEGIN}\nexport A='open\n{END}\n", 2, "unterminated"),
        (f"{BEGIN}\nexport A=$(id)\n{END}\n", 2, "move this line"),
        (f"{BEGIN}\nalias x=y\n{END}\n", 2, "NAME=value"),
    ],
)
def test_malformed_blocks_are_parse_errors_with_line(text: str, line: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        load("shellrc", text, "~/.bashrc")
    assert info.value.line == line and words in info.value.reason


def test_refusals() -> None:
    doc = load("shellrc", BASHRC, "rc")
    for bad in [
        lambda: doc.set(("1BAD",), "x"),
        lambda: doc.set(("A-B",), "x"),
        lambda: doc.set(("A", "B"), "x"),
        lambda: doc.set(("A",), 1),
        lambda: doc.set(("A",), "nul\x00"),
        lambda: doc.append(("A",), "x"),
    ]:
        with pytest.raises(WriteRefused):
            bad()
    assert doc.ops == [] and doc.dump() == BASHRC


def test_delete_the_whole_block() -> None:
    doc, _ = edited("fish", "set -x A 1\n", ("set", ("K",), "v"))
    assert doc.delete(()) is True and doc.dump() == "set -x A 1\n" and doc.delete(()) is False
