"""The compare-and-swap on a big file (issue 15): ``check_unchanged`` and the swap's own check
compare a file of a megabyte or more a chunk at a time instead of reading it whole again; they
must refuse exactly what reading it whole refuses, and a file that became something odd gets
``read_snapshot``'s own message. Real files in a temporary folder; the swap is raced by a
subprocess's audit hook at the rename, as a client writing at that moment would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gwconf.errors import ConcurrentChange, GwconfError
from gwconf.fileio import atomic_write, check_unchanged, read_snapshot, sha256

BIG = (b'{"k": "\xe6\x97\xa5\xe6\x9c\xac", "n": 12345}\n' * 60_000)[: 3 * (1 << 20) + 17]  # 3 MB and a bit


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "settings.json"
    path.write_bytes(BIG)
    return path


def test_an_unchanged_big_file_passes_and_any_change_is_refused(big: Path) -> None:
    snap = read_snapshot(big)
    check_unchanged(snap, "settings.json")  # the same bytes: no error
    changes = {
        "one byte in the last chunk": BIG[:-5] + b"X" + BIG[-4:],
        "one byte in the first chunk": b"[" + BIG[1:],
        "a byte more": BIG + b"\n",
        "a byte less": BIG[:-1],
        "empty": b"",
        "one byte past the first megabyte": BIG[: 1 << 20] + b"#" + BIG[(1 << 20) + 1 :],
    }
    for what, data in changes.items():
        big.write_bytes(data)
        with pytest.raises(ConcurrentChange, match="changed while gwconf was planning"):
            check_unchanged(snap, "settings.json")
        assert read_snapshot(big).data != snap.data, what  # the whole read agrees
    big.unlink()
    with pytest.raises(ConcurrentChange):
        check_unchanged(snap, "settings.json")


def test_a_big_file_that_became_a_folder_gets_read_snapshots_message(big: Path) -> None:
    snap = read_snapshot(big)
    big.unlink()
    big.mkdir()
    with pytest.raises(GwconfError, match="is a folder, not a file"):
        check_unchanged(snap, "settings.json")


def test_a_big_file_through_a_symlink_is_compared_at_its_target(big: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(big)
    snap = read_snapshot(link)
    check_unchanged(snap, "link.json")
    other = tmp_path / "other.json"
    other.write_bytes(BIG[:-1] + b"!")
    link.unlink()
    link.symlink_to(other)  # the link now names a file with other bytes of the same size
    with pytest.raises(ConcurrentChange):
        check_unchanged(snap, "link.json")


def test_a_big_write_lands_when_nothing_else_wrote(big: Path) -> None:
    snap = read_snapshot(big)
    new = BIG.replace(b"12345", b"54321", 1)
    atomic_write(big, new, mode=snap.mode, secret=False, expect=snap, shown="settings.json")
    assert big.read_bytes() == new
    assert sha256(new) == sha256(big.read_bytes())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_a_client_writing_a_big_file_at_the_rename_gets_its_bytes_back(big: Path) -> None:
    """The swap takes out the file it replaced and compares it, chunk by chunk, with what was
    read: a client's write at that moment (same size, one byte different) is put back."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from gwconf.errors import ConcurrentChange
        from gwconf.fileio import atomic_write, read_snapshot

        path = Path({str(big)!r})
        snap = read_snapshot(path)
        theirs = snap.data[:-2] + b"?\\n"
        done = []

        def hook(event, args):
            if event == "os.rename" and str(args[1]) == str(path) and not done:
                done.append(1)
                path.write_bytes(theirs)  # the client writes in place, just before the swap

        sys.addaudithook(hook)
        try:
            atomic_write(path, snap.data + b"{{}}", mode=snap.mode, secret=False, expect=snap, shown="s")
        except ConcurrentChange:
            assert path.read_bytes() == theirs, "the client's bytes were not put back"
            print("refused")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused"
    assert not list(big.parent.glob("*.gwconf-tmp"))


def test_the_digest_of_a_big_value_is_its_own() -> None:
    """The last big value's digest is kept with the value: another value, even of the same
    length and bytes, is hashed for itself."""
    a = bytes(BIG)
    b = BIG[:-1] + b"?"
    assert sha256(a) == sha256(a) != sha256(b)
    assert sha256(b"x" * (1 << 20)) == sha256(bytes(bytearray(b"x" * (1 << 20))))


@pytest.mark.parametrize("size", [0, 1, 63, 64, 1023, 1024, 1025, 4096, (1 << 20) + 1])
def test_every_size_gets_the_sha256_hashlib_gives(size: int) -> None:
    """Small values are hashed by CPython's own SHA-256 (no OpenSSL to load for a listing), the
    rest by OpenSSL's: the ledger's digests, written by either, must be the same."""
    import hashlib

    data = bytes((7 * i + size) % 256 for i in range(size))
    assert sha256(data) == hashlib.sha256(data).hexdigest()
