"""Profiles: the saved format, key sources, validation, masking."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from gwconf import secrets
from gwconf.errors import ParseError, ProfileError
from gwconf.paths import Env
from gwconf.profiles import Profile, ProfileStore, parse_profile

REPO = Path(__file__).resolve().parents[1]


def test_example_profile_parses() -> None:
    text = (REPO / "profiles" / "example.toml").read_text()
    profile = parse_profile(text, "example.toml", "example")
    assert profile.base_url == "https://gw.example.com/v1"
    assert profile.model == "my-model"
    assert profile.key and profile.key.startswith("sk-")
    assert profile.model_for("codex") == "my-model"
    assert profile.anthropic_root() == ("https://gw.example.com", True)


def test_store_round_trip_and_modes() -> None:
    env = Env.current()
    store = ProfileStore(env)
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m", key="sk-abcdefgh12345678")
    )
    path = store.path_for("work")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    loaded = store.load("work")
    assert (loaded.base_url, loaded.model, loaded.key) == (
        "https://gw.example.com/v1",
        "m",
        "sk-abcdefgh12345678",
    )
    assert store.names() == ["work"]
    assert store.active() is None
    store.set_active("work")
    assert store.load(None).name == "work"
    store.rename("work", "job")
    assert store.names() == ["job"] and store.active() == "job"
    store.remove("job")
    assert store.names() == [] and store.active() is None


def test_key_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GW_KEY", "sk-from-env-000000")
    env = Env.current()
    assert Profile("a", "https://g/v1", key_env="GW_KEY").resolve_key(env) == "sk-from-env-000000"
    assert (
        Profile("a", "https://g/v1", key_cmd="printf sk-from-cmd-1111").resolve_key(env) == "sk-from-cmd-1111"
    )
    assert (
        Profile("a", "https://g/v1", key_cmd="echo sk-piped-2222 | tr -d x").resolve_key(env)
        == "sk-piped-2222"
    )
    with pytest.raises(ProfileError, match=r"\$MISSING_VAR"):
        Profile("a", "https://g/v1", key_env="MISSING_VAR").resolve_key(env)
    with pytest.raises(ProfileError, match="exited 3"):
        Profile("a", "https://g/v1", key_cmd="sh -c 'exit 3'").resolve_key(env)
    with pytest.raises(ProfileError, match="no key"):
        Profile("a", "https://g/v1").resolve_key(env)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('model = "m"\n', "base_url is missing"),
        ('base_url = "https://g/v1"\nkey = "sk-a"\nkey_env = "X"\n', "only one"),
        ('base_url = "https://g/v1"\nsurprise = 1\n', "unknown field"),
        ('base_url = "https://g/v1"\nkey_env = "1BAD"\n', "not a valid variable"),
        ('base_url = "ftp://g"\n', "not an http"),
        ('base_url = "https://g/v1"\nmodel = 3\n', "must be a string"),
        ('base_url = "https://g/v1"\n[models]\ncodex = 1\n', "map client ids"),
    ],
)
def test_invalid_profiles(text: str, match: str) -> None:
    with pytest.raises(ProfileError, match=match):
        parse_profile(text, "p.toml", "p")


def test_malformed_profile_names_line() -> None:
    with pytest.raises(ParseError) as info:
        parse_profile('base_url = "https://g/v1"\nmodel = \n', "p.toml", "p")
    assert info.value.line == 2
    assert str(info.value).startswith("p.toml:2")


@pytest.mark.parametrize("name", ["../x", "a/b", "a\x00b", "", "-x", "x" * 65, "a\nb", ".hidden"])
def test_hostile_names_refused(name: str) -> None:
    with pytest.raises(ProfileError):
        ProfileStore(Env.current()).path_for(name)


def test_mask_and_redact() -> None:
    key = "sk-abcdefghijklmnopWXYZ"
    assert secrets.mask(key) == "sk-…WXYZ"
    assert secrets.mask("short") == "…"
    assert secrets.mask(None) == "(none)"
    assert key not in secrets.redact(f"key={key} again {key}", [key])
    assert "sk-…WXYZ" in secrets.redact(f"key={key}")


def test_key_problems() -> None:
    assert secrets.key_problems("sk-good123") == []
    assert any("whitespace" in p for p in secrets.key_problems(" sk-good123"))
    assert any("line break" in p for p in secrets.key_problems("sk-good\n123"))
    assert any("quotes" in p for p in secrets.key_problems('"sk-good123"'))
    assert any("sk-" in p for p in secrets.key_problems("abc123"))


# -- what tomllib made of each saved profile's text (profiles.ParsedTexts, issue 15) -------------


def _parsed_file(store: ProfileStore) -> Path:
    return store.env.state_dir / "profiles.parsed"


def test_a_profile_edited_by_hand_is_read_as_it_is_now_never_from_the_parsed_texts() -> None:
    store = ProfileStore(Env.current())
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m1", key="sk-abcdefgh12345678")
    )
    assert store.load("work").model == "m1"
    path = store.path_for("work")
    path.write_bytes(path.read_bytes().replace(b'"m1"', b'"m2"').replace(b"\n", b"\r\n"))  # CRLF too
    assert ProfileStore(Env.current()).load("work").model == "m2"
    store.save(Profile(name="spare", base_url="https://gw.example.com/v1"))  # gwconf writes: m2 kept
    assert "m2" in json_values(_parsed_file(store))
    assert ProfileStore(Env.current()).load("work").model == "m2"
    path.write_text('base_url = "https://gw.example.com/v1"\nmodel = \n')
    with pytest.raises(ParseError):  # a broken edit is reported, not served from before
        ProfileStore(Env.current()).load("work")


def test_the_parsed_texts_hold_no_key_and_give_each_profile_its_own() -> None:
    store = ProfileStore(Env.current())
    old_key, new_key, other_key = "sk-old-0123456789abcd", "sk-new-0123456789abcd", "sk-other-0123456789ab"
    store.save(Profile(name="work", base_url="https://gw.example.com/v1", model="m", key=old_key))
    store.save(Profile(name="spare", base_url="https://gw2.example.com/v1", key=other_key))
    kept = _parsed_file(store)
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert b"sk-" not in kept.read_bytes() and b"gw2.example.com" in kept.read_bytes()
    parsed = ProfileStore(Env.current()).parsed
    for name, key in (("work", old_key), ("spare", other_key)):
        text = store.path_for(name).read_text()
        assert parsed.get(text) == tomllib.loads(text)
        assert parsed.get(text)["key"] == key
    # the key replaced by hand, in the same form: the same entry, with the key read from the text
    work = store.path_for("work")
    work.write_text(work.read_text().replace(old_key, new_key))
    assert parsed.get(work.read_text()) == tomllib.loads(work.read_text())
    assert ProfileStore(Env.current()).load("work").key == new_key
    # anything between the two ends that is not a plain key makes it another text, parsed anew
    for odd in ('sk-x" \nmodel = "evil', "sk-\\u0041", "sk x", ""):
        assert parsed.get(work.read_text().replace(new_key, odd)) is None
    store.remove("spare")
    assert b"gw2.example.com" not in kept.read_bytes()
    store.rename("work", "job")
    store.remove("job")
    assert not kept.exists()


@pytest.mark.parametrize(
    "text",
    [
        'base_url = "https://g.example.com/v1"\nkey = "sk-\\u0041bcdefgh12345678"\n',  # escaped
        "base_url = \"https://g.example.com/v1\"\nkey = 'sk-abcdefgh12345678'\n",  # a literal string
        'base_url = "https://g.example.com/v1"  # sk-abcdefgh12345678\nkey = "sk-abcdefgh12345678"\n',
        'key_cmd = """\nkey = "sk-abcdefgh12345678"\n"""\nbase_url = "https://g.example.com/v1"\n',
    ],
)
def test_a_key_written_any_other_way_leaves_its_text_unkept(text: str) -> None:
    """Kept only where the key stands alone as ``key = "…"``, appears nowhere else, and a probe
    key in its place parses to the same profile: else the text is parsed every time."""
    store = ProfileStore(Env.current())
    parsed = store.parsed
    parsed.put(text, tomllib.loads(text))
    assert parsed.get(text) is None
    assert not parsed.added


def test_damaged_parsed_texts_are_ignored_and_replaced() -> None:
    store = ProfileStore(Env.current())
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m", key="sk-abcdefgh12345678")
    )
    kept = _parsed_file(store)
    for damage in (b"{garbage", b"[1, 2]", b'{"x": 1}', b"\xff\xfe"):
        kept.write_bytes(damage)
        assert ProfileStore(Env.current()).load("work").model == "m"
    store.save(Profile(name="spare", base_url="https://gw.example.com/v1", model="s"))
    assert "m" in json_values(kept) and "s" in json_values(kept)


def test_parsed_texts_are_taken_as_plain_data_only() -> None:
    """The file is ``marshal``'s bytes: anything in it but entries of plain data (code, tuples,
    bytes, sets; an entry whose data is not JSON's kinds) counts as not kept, and the profile is
    parsed from its text."""
    import marshal

    store = ProfileStore(Env.current())
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m", key="sk-abcdefgh12345678")
    )
    kept = _parsed_file(store)
    (entry,) = marshal.loads(kept.read_bytes())
    odd_values = [compile("1", "x", "eval"), (1, 2), b"m", {1}, float("nan")]
    for odd in odd_values:
        kept.write_bytes(marshal.dumps([{**entry, "data": {**entry["data"], "model": odd}}]))
        fresh = ProfileStore(Env.current())
        assert fresh.parsed.entries == []
        assert fresh.load("work").model == "m"
    kept.write_bytes(marshal.dumps(compile("print('ran')", "x", "exec")))
    assert ProfileStore(Env.current()).load("work").model == "m"


def test_a_home_from_an_earlier_release_is_served_by_its_json_file_until_the_next_write(gwconf) -> None:
    """The JSON file earlier releases wrote stands in until gwconf writes the new one: a listing
    neither parses the profile again nor writes anything."""
    import json
    import marshal

    store = ProfileStore(Env.current())
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m1", key="sk-abcdefgh12345678")
    )
    store.set_active("work")
    kept = _parsed_file(store)
    legacy = kept.with_name("profiles.parsed.json")
    legacy.write_text(json.dumps(marshal.loads(kept.read_bytes())))
    kept.unlink()
    served = ProfileStore(Env.current()).parsed
    assert served.get(store.path_for("work").read_text()) == tomllib.loads(store.path_for("work").read_text())
    assert "m1" in gwconf("profile", "list").output
    assert legacy.exists() and not kept.exists()  # a listing writes nothing
    legacy.write_text("[{garbage")
    assert ProfileStore(Env.current()).parsed.entries == []  # damaged: parsed each time, as before
    assert ProfileStore(Env.current()).load("work").model == "m1"


def test_the_json_file_of_earlier_releases_goes_at_the_next_write() -> None:
    store = ProfileStore(Env.current())
    legacy = store.env.state_dir / "profiles.parsed.json"
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text('[{"text": "base_url = \\"https://old.example.com/v1\\"\\n", "data": {}}]')
    store.save(Profile(name="work", base_url="https://gw.example.com/v1", model="m"))
    assert not legacy.exists() and _parsed_file(store).exists()
    assert ProfileStore(Env.current()).load("work").base_url == "https://gw.example.com/v1"


def test_reading_profiles_never_writes_the_parsed_texts(gwconf) -> None:
    """A dry run or a listing writes nothing, even when a profile was edited by hand since."""
    store = ProfileStore(Env.current())
    store.save(
        Profile(name="work", base_url="https://gw.example.com/v1", model="m1", key="sk-abcdefgh12345678")
    )
    store.set_active("work")
    kept = _parsed_file(store)
    before = kept.read_bytes(), kept.stat().st_mtime_ns
    path = store.path_for("work")
    path.write_text(path.read_text().replace('"m1"', '"m2"'))
    for command in (("profile", "list"), ("status",), ("apply", "codex", "--dry-run"), ("current",)):
        result = gwconf(*command)
        assert result.exit_code == 0, result
    assert "m2" in gwconf("profile", "list").output
    assert (kept.read_bytes(), kept.stat().st_mtime_ns) == before


def json_values(path: Path) -> str:
    import json
    import marshal

    return json.dumps([entry["data"] for entry in marshal.loads(path.read_bytes())])


def test_a_profile_file_outside_the_store_is_parsed_each_time_and_never_kept(tmp_path: Path) -> None:
    elsewhere = tmp_path / "team.toml"
    elsewhere.write_text('base_url = "https://gw.example.com/v1"\nkey = "sk-team-0123456789abcd"\n')
    store = ProfileStore(Env.current())
    assert store.load(str(elsewhere)).key == "sk-team-0123456789abcd"
    assert not _parsed_file(store).exists() or "sk-team" not in _parsed_file(store).read_text()
