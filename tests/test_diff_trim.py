"""The dry run's diff is made on the changed middle of a file only (``plan.unified_diff``).

Where lines repeat, a change has several diffs and difflib's choice depends on the lines it is
given, so the test holds the trimmed diff to what a diff must be: applied to the old file as
``patch`` would, it gives the new one, with difflib's hunk shape (three lines of context), and
it marks no line of the files' common start or end. Where no line repeats it is difflib's own."""

from __future__ import annotations

import difflib
import re

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gwconf.plan import unified_diff

REPEATED = st.sampled_from(["{\n", "}\n", '  "a": 1,\n', '  "b": [\n', "\n", "# note\n", "x = 2\n", "end"])
DISTINCT = st.integers(0, 10**6).map(lambda n: f"line {n}\n")


@st.composite
def edited(draw: st.DrawFn, lines: st.SearchStrategy[str]) -> tuple[list[str], list[str]]:
    """A file of up to 400 lines and the file after a few edits: lines replaced, inserted or
    removed, near each other or far apart."""
    old = draw(st.lists(lines, max_size=400))
    new = list(old)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(new)))
        removed = draw(st.integers(0, min(3, len(new) - at)))
        new[at : at + removed] = draw(st.lists(lines, max_size=3))
    return old, new


def patched(old: list[str], diff: list[str]) -> list[str]:
    """``old`` with the diff's hunks applied, each checked against the lines it claims."""
    assert diff[:2] == ["--- a/f\n", "+++ b/f\n"] or not diff
    out: list[str] = []
    done = 0
    at = 2
    while at < len(diff):
        m = re.fullmatch(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n", diff[at])
        assert m, diff[at]
        start, length = int(m[1]), int(m[2] if m[2] is not None else 1)
        first = start - 1 if length else start
        out += old[done:first]
        at += 1
        taken = 0
        while at < len(diff) and not diff[at].startswith("@@ "):
            kind, line = diff[at][0], diff[at][1:]
            if kind in " -":
                assert old[first + taken] == line, (first + taken, line)
                taken += 1
            if kind in " +":
                out.append(line)
            at += 1
        assert taken == length
        done = first + taken
    return out + old[done:]


@settings(max_examples=300, deadline=None)
@given(edited(REPEATED))
@example(
    (
        ["}\n", '  "a": 1,\n', '  "a": 1,\n', '  "a": 1,\n', "{\n", "{\n"],
        ["}\n", '  "a": 1,\n', "}\n", '  "a": 1,\n', '  "a": 1,\n', "{\n", "{\n"],
    )
)
def test_the_trimmed_diff_turns_the_old_file_into_the_new(case: tuple[list[str], list[str]]) -> None:
    """A valid patch that marks no line of the two files' common start or end. (It is not always
    as short as difflib's on the whole files: difflib's longest-block-first choice is not the
    shortest diff, and on the middle alone it can choose otherwise, shorter or longer, for
    example ``}}{{`` to ``}{a{}``. Giving difflib the context lines too, as before, let it align
    a repeated line into them: the example below was 3 changed lines against difflib's 1.)"""
    old, new = case
    diff = unified_diff(old, new, "a/f", "b/f")
    assert patched(old, diff) == new
    whole = list(difflib.unified_diff(old, new, "a/f", "b/f"))
    assert bool(diff) == bool(whole)
    limit = min(len(old), len(new))
    head = next((i for i in range(limit) if old[i] != new[i]), limit)
    tail = next((i for i in range(limit - head) if old[-1 - i] != new[-1 - i]), limit - head)
    assert sum(1 for line in diff[2:] if line[0] == "-") <= len(old) - head - tail
    assert sum(1 for line in diff[2:] if line[0] == "+") <= len(new) - head - tail


@settings(max_examples=300, deadline=None)
@given(edited(DISTINCT))
def test_with_distinct_lines_the_trimmed_diff_is_difflibs(case: tuple[list[str], list[str]]) -> None:
    old, new = case
    assume(len(set(old)) == len(old) and len(set(new)) == len(new))  # random numbers can repeat
    assert unified_diff(old, new, "a/f", "b/f") == list(difflib.unified_diff(old, new, "a/f", "b/f"))


def test_hunk_numbers_count_from_the_whole_file() -> None:
    old = [f"line {i}\n" for i in range(100)]
    new = [*old[:50], "changed\n", *old[51:]]
    lines = unified_diff(old, new, "a/f", "b/f")
    assert lines[2] == "@@ -48,7 +48,7 @@\n"
    assert patched(old, lines) == new
    added = unified_diff(old, [*old[:70], "new\n", *old[70:]], "a/f", "b/f")
    assert added[2] == "@@ -68,6 +68,7 @@\n"
    assert unified_diff(old, [*old, "tail\n"], "a/f", "b/f")[2] == "@@ -98,3 +98,4 @@\n"


def _trimmed_by_loops(old: list[str], new: list[str]) -> tuple[int, int]:
    """The common start and end as ``unified_diff`` found them with Python loops."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


@settings(max_examples=400, deadline=None)
@given(
    edited(REPEATED)
    | edited(DISTINCT)
    | st.tuples(st.lists(REPEATED, max_size=8), st.lists(REPEATED, max_size=8))
)
@example((["a\n", "b\n"], ["a\n", "b\n"]))  # the same file: all start, no end
@example((["a\n", "a\n"], ["a\n", "a\n", "a\n"]))  # one line more of a repeated line
@example(([], ["x\n"]))
def test_the_common_start_and_end_are_the_ones_the_loops_found(case: tuple[list[str], list[str]]) -> None:
    """``unified_diff`` finds the lines the two files share at the start and the end in C: the
    split the line-by-line loops gave (so difflib gets the same middle), and the diff applies."""
    from gwconf import plan

    old, new = case
    assert plan._common_ends(old, new) == _trimmed_by_loops(old, new)
    assert patched(old, unified_diff(old, new, "a/f", "b/f")) == new


# pieces of text: lines that repeat, a line with no "\n" yet, and the line breaks other than "\n"
# that ``str.splitlines`` also ends a line at (a text holding one is split whole)
PIECES = st.sampled_from(
    ['  "a": 1,\n', "{\n", "}\n", "\n", "x = 2\n", "a", "b c", "é", "\r\n", "\r", "\u2028"]
)
PLAIN_PIECES = st.sampled_from(['  "a": 1,\n', "{\n", "}\n", "\n", "x = 2\n", "a", "b c", "é"])


@st.composite
def edited_texts(draw: st.DrawFn, pieces: st.SearchStrategy[str]) -> tuple[str, str]:
    """A text and the text after a few edits of its characters, near each other or far apart,
    inside a line or across lines."""
    old = "".join(draw(st.lists(pieces, max_size=300)))
    new = old
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(new)))
        removed = draw(st.integers(0, min(12, len(new) - at)))
        new = new[:at] + "".join(draw(st.lists(pieces, max_size=3))) + new[at + removed :]
    return old, new


@settings(max_examples=500, deadline=None)
@given(edited_texts(PLAIN_PIECES) | edited_texts(PIECES))
@example(("a\nb\n", "a\nb\nc\n"))  # the old text starts the new one
@example(("b\n", "a\nb\n"))  # the old text ends the new one
@example(("x\nx\n", "x\nx\nx\n"))  # a repeated line more: its start and end overlap
@example(("a\nb", "a\nc"))  # no final line break
@example(("", "a\n"))
@example(("a\n", ""))
def test_the_windowed_diff_is_the_diff_of_the_whole_texts(case: tuple[str, str]) -> None:
    """``text_diff`` splits only a window around the changes: its diff is, line for line, the
    one ``unified_diff`` makes of the two whole texts' lines, hunk numbers included."""
    from gwconf.plan import text_diff

    old, new = case
    whole = unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), "a/f", "b/f")
    assert text_diff(old, new, "a/f", "b/f") == whole


def test_the_first_and_last_difference_are_found_across_strides() -> None:
    """The texts are compared in chunks of 4,096 characters and more (``common_length``, which
    the editors' trimmed edits use too): differences at a chunk's first and last character, and
    in the middle of a text of many chunks."""
    from gwconf import plan
    from gwconf.formats._base import common_length

    base = "".join(f"line {n}\n" for n in range(3000))  # 29 KB
    size = len(base)
    for at in (0, 1, 4095, 4096, 4097, 8191, 15000, size - 1):
        changed = base[:at] + "#" + base[at + 1 :]
        assert common_length(base, 0, changed, 0, size, forward=True) == at
        assert common_length(base, size, changed, size, size, forward=False) == size - at - 1
        assert plan.text_diff(base, changed, "a/f", "b/f") == unified_diff(
            base.splitlines(keepends=True), changed.splitlines(keepends=True), "a/f", "b/f"
        )
    assert common_length(base, 0, base, 0, size, forward=True) == size
    assert common_length(base, size, base, size, size, forward=False) == size
