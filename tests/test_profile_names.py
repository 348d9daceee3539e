"""The profile name and key checks that listings make without ``re`` (issue 15) agree with the
patterns they stand for, and ``ProfileStore.names`` with the ``Path.glob`` it replaced."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gwconf import binding, profiles
from gwconf.paths import Env

# the characters the rules turn on, and a few that look like them (non-ASCII digits and letters)
TEXT = st.text(alphabet=st.sampled_from("aZ09._-~+/=:\n \t$é٣Ａ"), max_size=70)


@given(TEXT)
def test_valid_name_is_the_name_pattern(name: str) -> None:
    assert binding.valid_name(name) == bool(profiles.NAME_PATTERN.match(name))


@given(TEXT)
def test_the_key_characters_are_the_key_pattern(key: str) -> None:
    by_set = bool(key) and all(c in profiles._KEY_VALUE for c in key)
    assert by_set == bool(re.fullmatch(r"[A-Za-z0-9._~+/=:\-]+", key))


def test_the_lazy_patterns_are_the_module_s_attributes() -> None:
    assert profiles.KEY_ENV_PATTERN.match("GWCONF_KEY") and not profiles.KEY_ENV_PATTERN.match("1X")
    assert profiles.NAME_PATTERN is profiles.NAME_PATTERN


def test_names_lists_what_glob_listed(tmp_path: Path) -> None:
    env = Env(home=tmp_path, platform="linux", environ={"GWCONF_HOME": str(tmp_path / "g")}, cwd=tmp_path)
    store = profiles.ProfileStore(env)
    assert store.names() == []  # no folder yet
    folder = store.folder
    folder.mkdir(parents=True)
    for name in [
        "work.toml",
        "a.b.toml",
        ".toml",
        "..toml",
        "x..toml",
        ".hidden.toml",
        "UP.TOML",
        "no.toml.bak",
        "sp ace.toml",
        "é.toml",
        "n\nl.toml",
        "-x.toml",
        "toml",
        "w" * 64 + ".toml",
        "w" * 65 + ".toml",
    ]:
        (folder / name).write_text("")
    (folder / "dir.toml").mkdir()
    old = sorted(p.stem for p in folder.glob("*.toml") if profiles.NAME_PATTERN.match(p.stem))
    assert store.names() == old
    assert "work" in old and "dir" in old and "a.b" in old
