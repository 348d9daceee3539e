"""``gwconf._regex_code`` holds what ``re`` compiles of each pattern gwconf names (issue 15).

``lazyre`` builds a pattern's first use from the stored SRE code with ``_sre.compile`` instead of
``re``'s compiler, which runs in Python. Held here: the module is what scripts/gen-regex-code
writes today, each entry builds a pattern equal to ``re.compile``'s (``Pattern.__eq__`` compares
the flags and the code), and a table this interpreter did not make, or code ``_sre`` refuses,
leaves the pattern to ``re`` as before.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from gwconf import _regex_code, lazyre
from gwconf.lazyre import LazyPattern
from tests.scripts import SCRIPTS, load_script

_HERE = load_script("gen-regex-code").built_for() == _regex_code.BUILT_FOR


def test_the_module_is_what_the_generator_writes_today() -> None:
    """In a fresh interpreter: the generator collects the patterns alive after gwconf's imports."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "gen-regex-code"), "--check"], capture_output=True, text=True
    )
    if not _HERE:  # the code is the interpreter's: another one writes another table
        pytest.skip(f"the table is {_regex_code.BUILT_FOR}'s")
    assert done.returncode == 0, done.stderr
    assert len(_regex_code.CODES) >= 100  # gwconf's patterns and PyYAML's resolvers


@pytest.mark.skipif(not _HERE, reason="the stored code is another interpreter's")
@pytest.mark.parametrize(("pattern", "flags"), sorted(_regex_code.CODES, key=repr))
def test_each_entry_builds_the_pattern_re_compiles(pattern: str, flags: int) -> None:
    built, compiled = lazyre.precompiled(pattern, flags), re.compile(pattern, flags)
    assert built is not None and built is not compiled
    assert built == compiled  # pattern text, flags and SRE code
    assert (built.groups, dict(built.groupindex)) == (compiled.groups, dict(compiled.groupindex))


@pytest.mark.skipif(not _HERE, reason="the stored code is another interpreter's")
def test_a_lazy_pattern_takes_its_table_entry_and_matches_as_compiled() -> None:
    pattern, flags = next(
        (p, f) for (p, f) in sorted(_regex_code.CODES, key=repr) if "(?P<" in p
    )  # one with named groups: the index must come along
    lazy = LazyPattern(pattern, flags)
    assert lazy.compiled() == re.compile(pattern, flags)
    assert lazy.compiled().groupindex == re.compile(pattern, flags).groupindex


def test_a_pattern_the_table_lacks_compiles_as_before() -> None:
    assert lazyre.precompiled(r"gwconf-(\d+)-not-stored") is None
    lazy = LazyPattern(r"gwconf-(\d+)-not-stored")
    assert lazy.match("gwconf-42-not-stored").group(1) == "42"


def test_another_interpreters_table_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, flags = next(iter(_regex_code.CODES))
    monkeypatch.setattr(_regex_code, "BUILT_FOR", ("cpython-39", 0x030912F0, 20171005, 4, "little"))
    monkeypatch.setattr(lazyre, "_table", None)
    assert lazyre.precompiled(pattern, flags) is None
    assert LazyPattern(pattern, flags).compiled() == re.compile(pattern, flags)


@pytest.mark.skipif(not _HERE, reason="the stored code is another interpreter's")
def test_code_sre_refuses_leaves_the_pattern_to_re(monkeypatch: pytest.MonkeyPatch) -> None:
    """A damaged entry (a table edited by hand, one word short): ``_sre`` checks the code and ``re`` compiles."""
    pattern, flags = sorted(_regex_code.CODES, key=repr)[0]
    final, code, groups, groupindex, indexgroup = _regex_code.CODES[pattern, flags]
    damaged = dict(_regex_code.CODES)
    damaged[pattern, flags] = (final, code[:-8], groups, groupindex, indexgroup)
    monkeypatch.setattr(lazyre, "_table", damaged)
    assert lazyre.precompiled(pattern, flags) is None
    assert LazyPattern(pattern, flags).compiled() == re.compile(pattern, flags)
