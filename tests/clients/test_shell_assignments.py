"""shell: the assignments of gwconf's variables outside its block, found by one pattern a format.

``_outside_block`` warns when a start-up file sets a variable again after gwconf's block. It used
one pattern per variable, built at run time (three compiles a status, issue 15); one pattern a
format now captures the assigned names. The oracle is the per-variable pattern it replaced.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gwconf.clients import shell

NAMES = (*shell.MANAGED, "COPILOT_PROVIDER_BASE_URL")


def _per_variable(fmt: str, name: str) -> re.Pattern[str]:
    if fmt == "fish":
        return re.compile(rf"^[ \t]*set[ \t]+(?:-\S+[ \t]+)*{name}(?:\s|$)", re.M)  # one line
    if fmt == "powershell":
        return re.compile(rf"^\s*\$env:{name}\s*=|SetEnvironmentVariable\(\s*['\"]{name}['\"]", re.M | re.I)
    # a NAME= word wherever a command may start or go on (not only a line's start), comments left out
    return re.compile(rf"(?:^|[\s;&|(])(?:export\s+|declare\s+-x\s+|typeset\s+-x\s+)?{name}=", re.M)


def _searched(fmt: str, text: str) -> str:
    return shell._uncommented(text) if fmt == "shellrc" else text


PIECES = [
    "export ",
    "declare -x ",
    "typeset -x ",
    "set ",
    "set -gx ",
    "-x ",
    "--global ",
    "$env:",
    "$ENV:",
    "SetEnvironmentVariable(",
    "[Environment]::",
    "'",
    '"',
    " ",
    "\t",
    "\n",
    "\r\n",
    "#",
    "=",
    " = ",
    "echo ",
    "x",
    "_EXTRA",
    *NAMES,
    *(n.lower() for n in NAMES),
]
NAME_LIKE = st.sampled_from(
    ["OPENAI_API_KEY", "openai_api_key", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY_EXTRA", "x", "export"]
)
# a line shaped like an assignment in one of the three languages, or a near miss
LINE = st.tuples(
    st.sampled_from(["", "  ", "\t", "# "]),
    st.sampled_from(
        [
            "",
            "export ",
            "declare -x ",
            "typeset -x ",
            "set ",
            "set -gx ",
            "set -U -x ",
            "$env:",
            "$Env:",
            "[Environment]::SetEnvironmentVariable(",
            "SetEnvironmentVariable( '",
        ]
    ),
    st.sampled_from(["", "'", '"']),
    NAME_LIKE,
    st.sampled_from(["=", " = ", "'", '"', " ", "", "\t", "=x"]),
    st.sampled_from(["", "value", "'v', 'User')"]),
).map("".join)
TEXT = st.lists(
    st.one_of(LINE, st.lists(st.sampled_from(PIECES), max_size=6).map("".join)), max_size=8
).flatmap(lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda eol: eol.join(lines)))


@settings(max_examples=400, deadline=None)
@example(fmt="shellrc", text="a=1\n  declare -x OPENAI_API_KEY=1\r\ntypeset -x OPENAI_MODEL=m")
@example(fmt="fish", text="set -U -x OPENAI_API_KEY v\nset OPENAI_BASE_URL")
@example(fmt="fish", text="set \nset OPENAI_API_KEY = ")  # found by a random run: "set" alone
@example(fmt="powershell", text="$Env:openai_api_key = 1\nSetEnvironmentVariable( 'OPENAI_MODEL'")
@given(fmt=st.sampled_from(["shellrc", "fish", "powershell"]), text=TEXT)
def test_the_names_found_are_the_per_variable_patterns_matches(fmt: str, text: str) -> None:
    found = shell._assigned(fmt, text)
    fold = str.upper if fmt == "powershell" else str
    for name in NAMES:
        assert (fold(name) in found) == bool(_per_variable(fmt, name).search(_searched(fmt, text))), (
            name,
            text,
        )


def test_each_format_finds_its_own_spelling() -> None:
    assert shell._assigned(
        "shellrc", "x=1\n  export OPENAI_API_KEY=sk-1\ndeclare -x OPENAI_BASE_URL=u\n"
    ) == {
        "x",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    }
    assert shell._assigned("fish", "set -gx OPENAI_API_KEY sk-1\nset -U OPENAI_MODEL\n") == {
        "OPENAI_API_KEY",
        "OPENAI_MODEL",
    }
    assert shell._assigned(
        "powershell",
        "$Env:openai_api_key = 'k'\n[Environment]::SetEnvironmentVariable('OPENAI_BASE_URL', 'u')\n",
    ) == {"OPENAI_API_KEY", "OPENAI_BASE_URL"}


def test_an_assignment_anywhere_a_command_goes_counts_and_an_unset_too() -> None:
    """The shapes sweep: each of these lines below the block won over it in a real bash, and
    status and doctor reported the block's value."""
    for line in (
        'if [ -d "$HOME" ]; then export OPENAI_BASE_URL=https://u.example.com/v1; fi',
        '[ -d "$HOME" ] && export OPENAI_BASE_URL=https://u.example.com/v1',
        "export EDITOR=vim OPENAI_BASE_URL=https://u.example.com/v1",
        "OPENAI_BASE_URL=https://u.example.com/v1 ; export OPENAI_BASE_URL",
    ):
        assert "OPENAI_BASE_URL" in shell._assigned("shellrc", line), line
    assert shell._assigned("shellrc", "# export OPENAI_BASE_URL=old\necho x=1") == {"x"}
    assert shell._unset("shellrc", "unset OPENAI_BASE_URL OPENAI_API_KEY; ls") == {
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    }
    assert shell._unset("shellrc", "unset -f OPENAI_API_KEY\n# unset OPENAI_MODEL") == set()
