"""Files in the shapes real users' files take (issue 23 part 3), through the real command path.

The fixtures under tests/fixtures/real_shapes/ are written for this project, modelled on what
public dotfiles repositories show (none is a copy of anyone's file): a Codex config with many
comments in several languages, the user's own providers and profiles; a large tab-indented
Claude Code settings.json whose env already points at another gateway; a Zed settings.json with
hundreds of comment lines, trailing commas and Zed's own fields inside ``default_model``; Aider's
fully commented sample; a Continue config with a ``%YAML 1.1`` directive, block scalars and
``${{ secrets.X }}``; opencode's ``.jsonc`` with ``{env:X}``; Crush with ``$VAR`` values; and files
with CRLF, without a final newline, at mode 0600 (chezmoi), a config that is a symlink into a
dotfiles folder, and one whose folder is (GNU stow links a whole folder no other package shares).

Each goes through apply, re-apply, restore (byte-exact, with the mode and the link), and through
apply, a hand edit, apply with another model, restore (the ownership rules of
tests/test_ownership.py: the user's edit and comment stay, gwconf's keys go).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gwconf import formats
from gwconf.formats import get_plain
from tests.conftest import TEST_KEY

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "real_shapes"


@dataclass(frozen=True)
class Shape:
    client: str
    path: str  # the file the client reads, relative to HOME
    fmt: str
    edit: tuple[str, str]  # the user's hand edit: this text becomes that
    comment: str | None = None  # a comment line the user appends at the end
    mode: int = 0o644
    source: str | None = None  # the fixture file, when ``path`` is a symlink to it (dotfiles)
    folder_link: bool = False  # ``path``'s folder, not the file, links to ``source``'s (stow's folding)
    fixture: str | None = None  # another shape's fixture folder, when this one reuses its file


SHAPES = {
    "codex-commented": Shape(
        "codex",
        ".codex/config.toml",
        "toml",
        ('sandbox_mode = "workspace-write"', 'sandbox_mode = "read-only"'),
        "# 自分のメモ: a note I appended after gwconf's table\n",
    ),
    "codex-crlf-no-final-newline": Shape(
        "codex", ".codex/config.toml", "toml", ("notifications = true", "notifications = false")
    ),
    "claude-code-large": Shape(
        "claude-code", ".claude/settings.json", "json", ('"cleanupPeriodDays": 90', '"cleanupPeriodDays": 30')
    ),
    "claude-code-chezmoi-0600": Shape(
        "claude-code", ".claude/settings.json", "json", ('"model": "sonnet"', '"model": "opus"'), mode=0o600
    ),
    "zed-jsonc": Shape(
        "zed",
        ".config/zed/settings.json",
        "jsonc",
        ('"vim_mode": true', '"vim_mode": false'),
        "// mine, at the end\n",
    ),
    "zed-symlinked-dotfiles": Shape(
        "zed",
        ".config/zed/settings.json",
        "jsonc",
        ('"theme": "One Dark"', '"theme": "One Light"'),
        source="dotfiles/zed/settings.json",
    ),
    "zed-stow-folded-folder": Shape(  # GNU stow links the whole folder when no other package shares it
        "zed",
        ".config/zed/settings.json",
        "jsonc",
        ('"theme": "One Dark"', '"theme": "One Light"'),
        source="dotfiles/zed/.config/zed/settings.json",
        folder_link=True,
        fixture="zed-symlinked-dotfiles",
    ),
    "aider-sample": Shape("aider", ".aider.conf.yml", "yaml", ("dark-mode: true", "dark-mode: false")),
    "continue-yaml11": Shape(
        "continue",
        ".continue/config.yaml",
        "yaml",
        ("name: My Assistant", "name: Renamed"),
        "# a note I added\n",
    ),
    "opencode-jsonc": Shape(
        "opencode",
        ".config/opencode/opencode.jsonc",
        "jsonc",
        ('"theme": "tokyonight"', '"theme": "gruvbox"'),
    ),
    "crush-vars": Shape("crush", ".config/crush/crush.json", "json", ('"debug": false', '"debug": true')),
    "gemini-no-final-newline": Shape(
        "gemini-cli", ".gemini/settings.json", "jsonc", ('"vimMode": true', '"vimMode": false')
    ),
}


def _place(home: Path, name: str) -> tuple[Path, bytes]:
    """Copy the fixture into HOME; returns the file the client reads and its original bytes."""
    shape = SHAPES[name]
    fixture = FIXTURES / shape.fixture if shape.fixture else FIXTURES / name
    source = fixture / (SHAPES[shape.fixture].source or "" if shape.fixture else shape.source or shape.path)
    path = home / shape.path
    if shape.folder_link:
        assert shape.source
        real = home / shape.source
        real.parent.mkdir(parents=True)
        shutil.copyfile(source, real)
        os.chmod(real, shape.mode)
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.symlink_to(real.parent, target_is_directory=True)
        return path, source.read_bytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape.source:
        real = home / shape.source
        real.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, real)
        os.chmod(real, shape.mode)
        path.symlink_to(real)
    else:
        shutil.copyfile(source, path)
        os.chmod(path, shape.mode)
    return path, source.read_bytes()


def _data(fmt: str, raw: bytes) -> Any:
    text, _ = formats.decode(raw, "f")
    return formats.load(fmt, text, "f").data()


def _comment_lines(text: str, fmt: str) -> list[str]:
    marks = ("//", "/*") if fmt.startswith("json") else ("#",)
    return [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip().startswith(marks)]


def _in_order(wanted: list[str], text: str, fmt: str) -> list[str]:
    """The wanted comment lines that are not in ``text`` (in the same order)."""
    remaining = iter(_comment_lines(text, fmt))
    return [line for line in wanted if not any(line == other for other in remaining)]


def _leaves(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(data, dict) and data:
        return [leaf for key, value in data.items() for leaf in _leaves(value, (*prefix, key))]
    return [(prefix, data)]


def _managed(home: Path, client: str) -> list[tuple[Any, ...]]:
    """The key paths gwconf's ledger says it wrote for the client (in any of its files)."""
    ledger = json.loads((home.parent / "gwconf" / "state" / "ledger.json").read_text())
    files = ledger["clients"][client]["files"]
    return [tuple(key["path"]) for record in files.values() for key in record["keys"]]


def _check_applied(home: Path, name: str, original: bytes, path: Path) -> None:
    """The result parses, every comment line and every value gwconf does not manage is kept."""
    shape = SHAPES[name]
    after = path.read_bytes()
    after_data = _data(shape.fmt, after)
    managed = _managed(home, shape.client)
    assert managed, "the ledger records no key"
    for leaf, value in _leaves(_data(shape.fmt, original)):
        if any(leaf[: len(m)] == m or m[: len(leaf)] == leaf for m in managed):
            continue
        assert get_plain(after_data, leaf) == value, f"{leaf} changed"
    missing = _in_order(_comment_lines(original.decode(), shape.fmt), after.decode(), shape.fmt)
    assert not missing, f"comment lines lost: {missing[:5]}"
    assert TEST_KEY.encode() not in after or stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_apply_reapply_restore_gives_back_the_bytes_and_the_mode(gwconf, home, profile, name) -> None:
    shape = SHAPES[name]
    path, original = _place(home, name)
    applied = gwconf("apply", shape.client)
    assert applied.exit_code == 0, applied
    _check_applied(home, name, original, path)
    once = path.read_bytes()
    again = gwconf("apply", shape.client)
    assert again.exit_code == 0, again
    assert path.read_bytes() == once, "re-apply changed bytes"
    restored = gwconf("restore", shape.client)
    assert restored.exit_code == 0, restored
    assert path.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == shape.mode
    if shape.source:
        link = path.parent if shape.folder_link else path
        assert link.is_symlink() and path.resolve() == (home / shape.source).resolve()
        assert not shape.folder_link or not path.is_symlink()  # the file itself stays a plain file


@pytest.mark.parametrize("between", ["another-model", "nothing"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_hand_edit_survives_another_model_and_restore(gwconf, home, profile, name, between) -> None:
    shape = SHAPES[name]
    path, original = _place(home, name)
    assert gwconf("apply", shape.client).exit_code == 0
    old, new = shape.edit
    text = path.read_bytes().decode()
    assert old in text
    text = text.replace(old, new) + (shape.comment or "")
    path.write_bytes(text.encode())
    if between == "another-model":
        other = gwconf("apply", shape.client, "--model", "model-b")
        assert other.exit_code == 0, other
    text = path.read_bytes().decode()
    assert new in text and (shape.comment or "") in text, "the hand edit was lost"
    assert between == "nothing" or any(
        b"model-b" in f.read_bytes() for f in home.rglob("*") if f.is_file()
    ), "another model not applied"
    _data(shape.fmt, path.read_bytes())  # parses
    restored = gwconf("restore", shape.client)
    assert restored.exit_code == 0, restored
    expected = original.decode().replace(old, new) + (shape.comment or "")
    assert path.read_bytes().decode() == expected, "restore changed more than gwconf's own keys"
    if shape.source:
        assert (path.parent if shape.folder_link else path).is_symlink()


@pytest.mark.parametrize(
    ("encoding", "named"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")],
)
def test_a_file_saved_as_utf16_is_named_left_alone_and_the_hint_says_how_to_save_utf8(
    gwconf, home, profile, encoding: str, named: str
) -> None:
    """PowerShell 5's ``>`` writes UTF-16 (with a byte order mark; ``-le`` and ``-be`` here have
    none, and ASCII that way is valid UTF-8 full of NULs): the error said "not valid UTF-8" at
    1:1, or a TOML error about a key."""
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    original = 'model = "gpt-5"  # mine\n'.encode(encoding)
    path.write_bytes(original)
    for args in (("apply", "codex", "--dry-run"), ("apply", "codex")):
        result = gwconf(*args)
        assert result.exit_code != 0, result
        assert f"~/.codex/config.toml: {named} text, not UTF-8" in result.stderr, result
        assert ("PowerShell 5's" in result.stderr) is (named == "UTF-16"), result
        read = {"utf-16-le": ", [Text.Encoding]::Unicode", "utf-16-be": ", [Text.Encoding]::BigEndianUnicode"}
        assert (
            '[IO.File]::WriteAllText("$HOME/.codex/config.toml", [IO.File]::ReadAllText('
            f'"$HOME/.codex/config.toml"{read.get(encoding, "")})).'
        ) in result.stderr, result
        assert path.read_bytes() == original
    path.write_bytes(original.decode(encoding).encode())  # what the hint does
    assert gwconf("apply", "codex").exit_code == 0
    assert b'model = "my-model"  # mine' in path.read_bytes()
