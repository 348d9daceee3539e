"""A real user's file, damaged the ways files get damaged, through apply and restore.

Each client's largest fixture is cut short, has a byte flipped, gets a stray quote, comma, tab,
dash, NUL or BOM, loses a line, has one twice, or one indented off. Whatever the damage, apply
either refuses and leaves every file of the client as it was, with an error that names the file
(never "unexpected error"), or it applies and restore gives the damaged bytes back byte for byte:
a file that reads is the user's file, however odd. Found by fuzzing the benchmark's home (400
files, no fault, but error messages in the readers' own words: fixed in the editors).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gwconf import registry
from gwconf.paths import Env

FIXTURES = Path(__file__).resolve().parent / "fixtures"

TOKENS = (
    "\x00", '"', "'", "{", "}", "[", "]", ":", ",", "#", "\n", "\t", "\\", "&", "*", "!", "|", ">",
    "- ", "=", "%", "\r", "\ufeff", "\U0001f600", "\r\n", "//", "/*", "<<: ", "~", "null", "0x",
    "1e999", "\u2028", "\x85",
)  # fmt: skip


def _fixture(client_id: str) -> Path | None:
    """The ``before`` tree of the client's largest fixture case that holds a file."""
    best: tuple[int, Path] | None = None
    for before in sorted((FIXTURES / client_id).glob("*/before")):
        size = sum(p.stat().st_size for p in before.rglob("*") if p.is_file() and p.name != ".keep")
        if size and (best is None or size > best[0]):
            best = (size, before)
    return best[1] if best else None


def _has_files(client_id: str) -> bool:
    """Link-only and server clients write none of the user's files: nothing to damage."""
    env = Env(home=Path("/nonexistent-home"), platform="linux", environ={}, cwd=Path("/"))
    return bool(registry.get(client_id).files(env))


CLIENTS = [c for c in registry.IDS if _fixture(c) is not None and _has_files(c)]


def _damage(text: str, raw: bytes, kind: int, where: float, token: str) -> bytes:
    if not text:
        return token.encode()
    i = int(where * (len(text) + 1)) % (len(text) + 1)
    if kind == 0:
        return text[:i].encode()
    if kind == 1:
        flipped = bytearray(raw)
        flipped[int(where * len(raw)) % len(raw)] ^= 1 << (i % 8)
        return bytes(flipped)
    if kind == 2:
        return (text[:i] + token + text[i:]).encode()
    lines = text.splitlines(True)
    j = int(where * len(lines)) % len(lines)
    if kind == 3:
        del lines[j]
    elif kind == 4:
        lines.insert(j, lines[j])
    else:
        stripped = lines[j].lstrip(" \t")
        lines[j] = lines[j][: len(lines[j]) - len(stripped)] + ("  ", "\t", " ")[i % 3] + stripped
    return "".join(lines).encode()


def _client_files(client_id: str) -> dict[Path, bytes]:
    client = registry.get(client_id)
    return {f.path: f.path.read_bytes() for f in client.files(Env.current()) if f.path.is_file()}


@pytest.mark.parametrize("client_id", CLIENTS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    damage=st.lists(
        st.tuples(st.integers(0, 5), st.floats(0, 1, exclude_max=True), st.sampled_from(TOKENS)),
        min_size=1,
        max_size=3,
    ),
    pick=st.integers(0, 7),
)
def test_a_damaged_file_is_refused_untouched_or_given_back_byte_for_byte(
    client_id: str, damage: list[tuple[int, float, str]], pick: int, gwconf, home: Path, profile
) -> None:
    before_tree = _fixture(client_id)
    assert before_tree is not None
    state = home.parent / "gwconf"
    kept = home.parent / "gwconf-with-profile"
    if not kept.exists():
        shutil.copytree(state, kept, symlinks=True)
    shutil.rmtree(home)
    shutil.copytree(before_tree, home, symlinks=True, ignore=shutil.ignore_patterns(".keep"))
    shutil.rmtree(state)
    shutil.copytree(kept, state, symlinks=True)

    files = sorted(_client_files(client_id))
    assert files, f"{client_id}: its fixture holds none of its files"
    target = files[pick % len(files)]
    raw = target.read_bytes()
    for kind, where, token in damage:
        raw = _damage(raw.decode("utf-8", "replace"), raw, kind, where, token)
    target.write_bytes(raw)
    before = _client_files(client_id)

    applied = gwconf("apply", client_id)
    assert "unexpected error" not in applied.stderr, applied
    event("refused" if applied.exit_code else "applied")
    if applied.exit_code != 0:
        assert _client_files(client_id) == before, f"a refused apply changed files: {applied}"
        assert "error:" in applied.stderr, applied
        return
    restored = gwconf("restore", client_id)
    assert restored.exit_code == 0, restored
    assert _client_files(client_id) == before, "restore did not give the damaged file back byte for byte"
