"""``_BARE_NAME`` passes over the run of a "{name=" value that failed, up to the run's last "{":
every "{name=" before that fails too, and trying each read the rest of the run again, O(n²) in
the line ("{token=a" * n + " end": 16 s for 80 KB, reachable through a hostile file's diff).
Held here to the pattern as it was, kept as text: same matches, same masks, on generated lines
of names, "=" and ":", braces, brackets, quotes and separators.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gwconf import secrets

# _BARE_NAME without the pass over failed runs: the oracle. Made of the same parts, so what later
# rounds added to every name pattern (a YAML item's dash, a tag before the value, TOML's
# triple-quoted strings) is in both: hypothesis found "- - token={" matched by one only.
_OLD_BARE_NAME = re.compile(
    rf"(?P<pre>(?:^{secrets._ANSI}[-+ ]?[ \t]*{secrets._COMMENTED}(?:-[ \t]+)?{secrets._SHELL_SETS}|[{{,][ \t]*)"
    rf"{secrets._DOTTED}(?P<name>{secrets._NAME})[ \t]*[:=][ \t]*)"
    rf"(?P<val>{secrets._TAG}(?:{secrets._QUOTED_VALUE}|{secrets._BARE_VALUE}))",
    re.MULTILINE,
)
_BARE_NAME = next(pattern for pattern, _ in secrets._NAME_PATTERNS if pattern.pattern == secrets._BARE_NAME)

_PIECE = st.sampled_from(
    ["{", "{", "}", "[", "]", "(", "{token=", "{key =", "{x=", "token", "key", "apiKey", "API_KEY", "x", "=", "=", ":", " = ", ": ",
     "a", "ab", "sk-abcdef123456", "$X", "Bearer ", "Token ", "Basic", " ", "  ", "\t", ",", ";", "&",
     "#", '"', "'", "\\", "?", "\r", "\n", "\x0c", "\u3000", "- ", "+ ", "export ", "$env:", "\x1b[1m", "é"]
)  # fmt: skip
_LINE = st.lists(_PIECE, max_size=24).map("".join)
# the hostile shape and its kin: one value's run holding many "{name=" starts
_RUN = st.builds(
    lambda lead, piece, count, end: lead + piece * count + end,
    st.sampled_from(["", "+ opts: ", "x", "{token=", ", key: ", "{token=&"]),
    st.sampled_from(["{token=a", "{key=a", "{token=a&", "{token =a", "token=a{", "{token=Token a", "{x=a"]),
    st.integers(0, 6),
    st.sampled_from(
        [" end", "", " = b}", "{token= b}", "{token=Token b}", "}", "\r", " #", " & x", "{token"]
    ),
)


def _by_old_pattern(line: str) -> str:
    """``_named_values`` with the old ``_BARE_NAME`` in the new one's place."""
    for pattern, _needs in secrets._NAME_PATTERNS:
        line = (_OLD_BARE_NAME if pattern is _BARE_NAME else pattern).sub(secrets._mask_value, line)
    return line


@settings(max_examples=1500, deadline=None)
@given(text=st.one_of(_LINE, _RUN, st.lists(st.one_of(_LINE, _RUN), max_size=3).map("\n".join)))
@example(text="+ opts: " + "{token=a" * 5 + " end")
@example(text="{token=a{token=b}")  # the whole "a{token=b" is the value
@example(text="{token=a{token = b}")  # the last "{" names a value past the run
@example(text="{token=a{token= b}")
@example(text="{token=a{token=Token b}")
@example(text="{token=a{x=1{token=sk-abcdef123456")
@example(text="{token=a&b{token=a end")  # a value up to its "&"
@example(text="{token=&{token=a{token=b end")  # an "&" first only: the run fails
@example(text="x{token=a{token=b end\n{token=c}")
@example(text="{token=a{token=b\r\n")
@example(text="{token={token={token=abc}")
@example(text="- - token={")
def test_the_bare_name_pattern_matches_as_before(text: str) -> None:
    """The same matches with a name as the old pattern's (the new one's others pass over text
    and leave it), so the same masks, on lines and texts of several."""
    old = [(m.span(), m.groupdict()) for m in _OLD_BARE_NAME.finditer(text)]
    new = [(m.span(), m.groupdict()) for m in _BARE_NAME.finditer(text) if m.group("name") is not None]
    assert new == old
    assert _BARE_NAME.sub(secrets._mask_value, text) == _OLD_BARE_NAME.sub(secrets._mask_value, text)


@settings(max_examples=600, deadline=None)
@given(line=st.one_of(_LINE, _RUN).map(lambda line: line + "\n"))
@example(line="+ opts: {token=sk-abcdef123456{token=a end\n")
@example(line='{"apiKey": "sk-abc123456789", token: sk-abc{token=sk-abcdef123456}\n')
def test_redaction_masks_as_with_the_old_pattern(line: str) -> None:
    assert secrets._named_values(line) == _by_old_pattern(line)


def test_a_failed_run_is_passed_over_to_its_last_brace() -> None:
    """The hostile line's "{" starts but the last are not tried: one nameless match takes them
    (the old pattern tried each, and found nothing). The last is tried, and fails too."""
    count = 50
    line = "+ opts: " + "{token=a" * count + " end\n"
    first, last = line.index("{"), line.rindex("{")
    matches = list(_BARE_NAME.finditer(line))
    assert [(m.span(), m.group("name")) for m in matches] == [((first, last), None)]
    assert secrets._mask_value(matches[0]) == line[first:last]
    assert secrets.redact(line) == line
    ended = "x " + "{token=a" * count + "}\n"  # the first value is the whole run
    assert secrets.redact(ended) == "x {token=…en=a}\n"
