"""``redact`` looks for credential shapes, long runs and secret-ish names only in a text that
holds what any match needs (issue 15: the patterns then never compile for most output). Each
such test must never say no where its pattern matches: a no there would print a key."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gwconf import secrets

# pieces of the shapes, runs of their characters and of look-alikes, and everything around them
PIECES = st.sampled_from(
    ["sk-", "AIza", "gh", "p_", "o_", "github_pat_", "xox", "b-", "eyJ", ".", "-", "_", "/", "+", "=", " ",
     "\n", "\t", "\u3000", "é", "٣", "key", "TOKEN", "Pass", "aUtH", "credential", "PAT", "İ", ":", '"']
)  # fmt: skip
RUNS = st.text(alphabet="abcdefABCDEF0123456789xyzXYZ+/_-", min_size=1, max_size=40)
TEXT = st.lists(st.one_of(PIECES, RUNS, st.text(max_size=5)), max_size=12).map("".join)


@settings(max_examples=600)
@given(TEXT)
def test_a_text_said_to_hold_no_shape_matches_none(text: str) -> None:
    if not secrets._may_hold_shape(text):
        assert re.search(secrets._SHAPES, text) is None


@settings(max_examples=600)
@given(TEXT)
def test_a_text_said_to_hold_no_run_matches_neither_run_pattern(text: str) -> None:
    if secrets._long_runs(text) == []:  # no run either pattern could match in
        assert re.search(secrets._HEX, text) is None
        assert re.search(secrets._B64, text) is None


def _long_runs_by_str(text: str) -> list[str] | None:
    """``_long_runs`` as it was, with ``str.translate`` and ``str.split``: the byte tables must
    give the same runs, and the same None, for every text."""
    if len(text) < 32:
        return []
    if not text.isascii():
        return None if max(map(len, text.translate(secrets._RUN_BREAKS).split()), default=0) >= 32 else []
    found = []
    for word in text.translate(secrets._RUN_BREAKS_BUT_DOT).split():
        if len(word) >= 32:
            first, *after_dots = word.split(".")
            if len(first) >= 32:
                found.append(first)
            found += [run for run in after_dots if len(run) >= 32 and "+" in run]
    return found


@settings(max_examples=1500)
@given(
    st.one_of(
        TEXT,
        st.text(),
        st.lists(st.sampled_from(["\u3000", "\u2028", "\x85", "\xa0", "é"]) | RUNS).map("".join),
    )
)
@example("x" * 31 + "\u3000" + "y" * 31)  # a space outside ASCII splits a run
@example("x" * 31 + "é")  # a character outside ASCII lengthens one
@example("\x1c" + "a" * 40)  # ASCII's separators str.split splits at: spaces after the table
@example("ab." + "c" * 33 + ".+" + "d" * 32)
def test_long_runs_by_byte_tables_are_the_str_ones(text: str) -> None:
    assert secrets._long_runs(text) == _long_runs_by_str(text)


@settings(max_examples=1500)
@given(TEXT)
@example(".é" + "0123456789abcdef" * 2)  # a hex run after a character outside ASCII, after a "."
@example("x.ab+" + "0123456789abcdef" * 2)  # _HEX after a "+" inside a run after a "."
@example("=" + "0123456789abcdef" * 2)  # _HEX looks behind for no "="
@example(" Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv==")
@example("~/.config/Code - Insiders/User/chatLanguageModels.json")  # a _B64 match it leaves
@example(".Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv")
@example(" Ab1Cd2EfGhIjKlMnOpQrStUvWxYzabcd")  # two digits: masked
def test_a_run_pattern_said_to_change_nothing_changes_nothing(text: str) -> None:
    """``redact`` runs _HEX only where ``_may_hold_hex`` says yes and _B64 where
    ``_may_mask_b64`` does (on the text _HEX left): a no must leave the text as the pattern would."""
    hexed = re.sub(secrets._HEX, lambda m: secrets.mask(m.group()), text)
    if not secrets._may_hold_hex(secrets._long_runs(text)):
        assert hexed == text
    if not secrets._may_mask_b64(secrets._long_runs(hexed)):
        assert re.sub(secrets._B64, secrets._b64, hexed) == hexed


@settings(max_examples=600)
@given(TEXT)
def test_a_text_said_to_hold_no_hint_word_matches_no_hint(text: str) -> None:
    lowered = text.lower()
    if not secrets._may_hint(lowered):
        assert re.search(secrets._HINT, lowered) is None
    assert all(secrets._may_hint(word) for word in secrets._HINT_WORDS)


@settings(max_examples=600)
@given(TEXT)
@example("codex  1  no  -  ~/.codex/config.toml, ~/.codex/auth.json\n")  # one line, a hint word
@example("export API_KEY=abcdef123456")
@example("x\nexport API_KEY=abcdef123456\n")
@example("Key: sk-abcdef123456\n\n")
def test_redact_is_what_every_pattern_applied_gives(text: str) -> None:
    """The old body: each pattern over the whole text, every line with a hint word named."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text.translate(secrets._ASCII_LOWER)
    pieces, done = [], 0
    for hint in re.finditer(secrets._HINT, lowered):
        if hint.start() < done:
            continue
        start = text.rfind("\n", 0, hint.start()) + 1
        end = text.find("\n", hint.start())
        end = len(text) if end < 0 else end + 1
        pieces += [text[done:start], secrets._named_values(text[start:end])]
        done = end
    expected = "".join([*pieces, text[done:]])
    expected = re.sub(secrets._SHAPES, lambda m: secrets.mask(m.group()), expected)
    expected = re.sub(secrets._HEX, lambda m: secrets.mask(m.group()), expected)
    expected = re.sub(secrets._B64, secrets._b64, expected)
    assert secrets.redact(text) == expected


def test_each_shape_and_run_is_still_masked() -> None:
    for key in [
        "sk-abcdef123456",
        "AIza" + "x" * 35,
        "ghp_" + "a" * 24,
        "github_pat_" + "b" * 24,
        "xoxb-12345678",
        "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK",
        "0123456789abcdef" * 2,
        "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv",
    ]:
        assert key not in secrets.redact(f"value {key} here")
    assert (
        secrets.redact("nothing to see: ~/.config/app/settings.json")
        == "nothing to see: ~/.config/app/settings.json"
    )


@settings(max_examples=600)
@given(
    st.one_of(st.text(), RUNS.map(lambda run: "sk-" + run), st.text(alphabet='sk-"\\\x7f\x1fé ', max_size=12))
)
def test_a_key_json_would_escape_gets_its_json_spellings(key: str) -> None:
    """``encodings`` skips json for a key JSON spells as it is: the forms are json's either way."""
    import json

    forms = secrets.encodings(key)
    for spelled in (json.dumps(key, ensure_ascii=False)[1:-1], json.dumps(key)[1:-1]):
        assert spelled in forms or len(spelled) < 4


def test_a_lazy_pattern_says_when_it_is_compiled() -> None:
    """``secrets.redact`` skips its no-match prefilter once a pattern exists: the flag must turn
    on with the first use, whichever attribute it was, and only then."""
    from gwconf.lazyre import LazyPattern

    for first_use in ("sub", "search", "finditer", "pattern_flags"):
        pattern = LazyPattern(r"sk-\w+")
        assert not pattern.is_compiled
        if first_use == "pattern_flags":
            assert pattern.flags & 32  # re.UNICODE: an attribute of the compiled pattern
        else:
            getattr(pattern, first_use)
        assert pattern.is_compiled
        assert pattern.sub("x", "a sk-123 b") == "a x b"
