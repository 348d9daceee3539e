"""Reading and writing files without ever losing one (an own recipe: atomicwrites replaces a symlink).

``atomic_write`` follows symlinks to their target (the link stays), writes a temp file in the
target's folder, keeps mode and owner, fsyncs file and folder, and replaces with ``os.replace``.
``Snapshot`` records what was read so a write can refuse when the file changed underneath.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from gwconf.errors import ConcurrentChange, GwconfError, ParseError, WriteRefused
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from hashlib import _Hash
    from io import FileIO
    from typing import Any

MAX_FILE_BYTES = 64 * 1024 * 1024  # a config file larger than this is refused, not read
TEMP_SUFFIX = ".gwconf-tmp"  # atomic_write's temp files: a killed run's are removed by plan.repair


_BIG = 1 << 20  # bytes from which a file's bytes are hashed once and compared without a copy
_last_hashed: tuple[bytes, str] | None = None
# the digests of the last values hashed below _BIG, by the value's id, with the value itself (kept
# alive, its id is its own): a write hashes a file's new bytes for the staged ledger and again
# for the journal, 10M of ``gwconf use``'s 873M instructions (issue 15)
_recent: dict[int, tuple[bytes, str]] = {}
_RECENT_BYTES = 8 << 20  # what the values kept there may hold together
_recent_size = 0


def sha256(data: bytes | None) -> str | None:
    """The hex SHA-256 of ``data``: by CPython's own SHA-256 below 1 KiB, by hashlib's OpenSSL
    from there. Loading OpenSSL costs 11.6M instructions and 3-5 ms, and ``status`` and
    ``clients`` hash only the ledger's small values (198 of them, 7 KB on the benchmark's applied
    home). CPython's SHA-256 is several times slower a byte, though: at 16 KiB, ``apply``, ``use``
    and ``restore`` (which hash every file they write, 1.3 MB there) took 17-23M instructions
    more. Below 1 KiB they hash the same values and few files (issue 15, measured both ways).

    The last big value's digest is kept with the value itself (bytes never change, so the same
    object has the same digest): a write hashed a big file's new bytes for the journal and again
    for the ledger, and its old bytes (``Snapshot.digest``) at each look (8 ms a 16 MB hash).
    Smaller ``bytes`` are kept the same way in ``_recent``, up to 8 MB of them."""
    global _last_hashed, _recent_size
    if data is None:
        return None
    if len(data) < _SMALL:
        small = _small_sha256()
        if small is not None:
            return small(data).hexdigest()
    last = _last_hashed if len(data) >= _BIG else _recent.get(id(data))
    if last is not None and last[0] is data:
        return last[1]
    import hashlib  # here, not at start: OpenSSL's start-up costs 3-5 ms

    digest = hashlib.sha256(data).hexdigest()
    if len(data) >= _BIG:
        _last_hashed = (data, digest)
    elif type(data) is bytes:  # (never changes: the same object, the same digest)
        while _recent and _recent_size + len(data) > _RECENT_BYTES:
            _recent_size -= len(_recent.pop(next(iter(_recent)))[0])  # the oldest first
        _recent[id(data)] = (data, digest)
        _recent_size += len(data)
    return digest


_SMALL = 1 << 10  # bytes below which CPython's own SHA-256 hashes (no OpenSSL to load)


@functools.cache
def _small_sha256() -> Callable[[bytes], _Hash] | None:
    """CPython's own SHA-256 constructor (``_sha2`` from 3.12, ``_sha256`` before), or None on
    an interpreter built without it (then hashlib, as for large data)."""
    # the module of this version only: a failed import searches every folder on sys.path
    try:
        return __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256").sha256  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        return None


def resolve(path: Path, known: os.stat_result | None = None) -> Path:
    """The file a path really names: symlinks followed (a dangling link resolves to its target).

    ``known``: the path's ``lstat``, when the caller has it. Within ``one_view`` each folder is
    resolved once: ``os.path.realpath`` looks at every part of a path, and ``apply --all`` asked
    for 172 files' real paths (961 ``lstat`` calls, each a few microseconds here)."""
    try:
        if _real_folders is not None and os.name == "posix":
            return Path(_real_path(os.fspath(path), known))
        return Path(os.path.realpath(path, strict=False))
    except OSError as exc:  # symlink loop on some Pythons
        raise GwconfError(f"{path}: cannot resolve ({exc.strerror or exc}).", "Fix the symlink.") from None


# while ``one_view`` is in effect (None: each call looks afresh): folder -> its real path, and
# key -> what ``viewed`` computed
_real_folders: dict[str, str] | None = None
_viewed: dict[object, Any] | None = None


@contextlib.contextmanager
def one_view() -> Iterator[None]:
    """Within it, each folder's real path is worked out once, and so is each ``viewed`` value
    (``/proc``'s processes, the model cache): one command's steps share one look, as they would
    if they looked at the same moment. Outside it (tests that make a link or start an app between
    two calls) every call looks afresh."""
    global _real_folders, _viewed
    if _real_folders is not None:  # nested: the outer view stands
        yield
        return
    _real_folders, _viewed = {}, {}
    try:
        yield
    finally:
        _real_folders = _viewed = None


# a dry run of several clients (``planned_view``): each file as the plans before it would leave
# it, real path -> (bytes or None for removed, mode); None outside one
_planned: dict[Path, tuple[bytes | None, int | None]] | None = None


@contextlib.contextmanager
def planned_view() -> Iterator[dict[Path, tuple[bytes | None, int | None]]]:
    """Within it, ``read_snapshot`` of a file in the mapping it yields reads the bytes put there,
    not the disk's. A real run of several clients plans a file two of them share again after the
    first one's write; a dry run plans each on what that write would have left."""
    global _planned
    outer, _planned = _planned, {}
    try:
        yield _planned
    finally:
        _planned = outer


def viewed(key: object, compute: Callable[[], Any]) -> Any:
    """``compute()``, once per ``one_view`` for ``key`` (at each call outside one): a file one
    command reads for each of its clients is read once. The value is shared: never change it."""
    if _viewed is None:
        return compute()
    if key not in _viewed:
        _viewed[key] = compute()
    return _viewed[key]


def forget_viewed(key: object) -> None:
    """After the command wrote what ``key`` was computed from."""
    if _viewed is not None:
        _viewed.pop(key, None)


def _real_path(path: str, known: os.stat_result | None = None) -> str:
    """``os.path.realpath(path)`` (POSIX, not strict) from its folder's real path, kept in
    ``_real_folders``: a part that is no symlink (nor "." or "..") joins its folder's real path,
    a symlink is resolved whole, as realpath resolves it."""
    assert _real_folders is not None
    folder, name = os.path.split(path)
    if not name or name in (".", "..") or not folder.startswith("/"):
        return os.path.realpath(path)
    if known is None:
        try:
            known = os.lstat(path)
        except OSError:  # missing, or not looked into: realpath joins it as it is
            known = None
    if known is not None and stat.S_ISLNK(known.st_mode):
        return os.path.realpath(path)
    real = _real_folders.get(folder)
    if real is None:
        real = _real_folders[folder] = _real_path(folder)
    return os.path.join(real, name)


@record(frozen=True)
class Snapshot:
    """What a file held when it was read: its bytes (None = did not exist) and identity."""

    path: Path  # as named by the client (may be a symlink)
    target: Path  # the real file
    data: bytes | None
    mode: int | None
    # the file's names (st_nlink) when read: a hard-linked dotfile has more than one, and the
    # rename that replaces it leaves its other names holding the old bytes
    links: int = field(default=1, compare=False)

    @property
    def exists(self) -> bool:
        return self.data is not None

    @property
    def digest(self) -> str | None:
        return sha256(self.data)


def read_snapshot(path: Path, display: str | None = None) -> Snapshot:
    """Read a whole file as bytes; a missing file reads as ``None``. Odd files are refused."""
    shown = display or str(path)
    try:
        seen: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:  # most client files (``status``, ``clients``): no link to check
        target = resolve(path)
        planned = _planned.get(target) if _planned else None
        return Snapshot(path, target, *planned) if planned else Snapshot(path, target, None, None)
    except OSError:
        seen = None  # the steps below name what is wrong
    target = resolve(path, seen)
    if _planned and target in _planned:  # a dry run, after a plan that changes this file
        return Snapshot(path, target, *_planned[target])
    if seen is not None and stat.S_ISLNK(seen.st_mode) and _is_loop(path):
        raise GwconfError(f"{shown}: is a symlink loop.", "Fix or remove the link, then run again.")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return Snapshot(path, target, None, None)
    except NotADirectoryError:
        raise GwconfError(
            f"{shown}: a parent of this path is a file, not a folder.",
            "Move that file aside, or fix the variable that moves this client's folder.",
        ) from None
    except PermissionError:
        raise GwconfError(
            f"{shown}: permission denied reading it.", "Check the file's owner and mode."
        ) from None
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise GwconfError(  # a folder on its way that links to itself (~/.codex -> ~/.codex)
            f"{shown}: its path goes through a symlink loop.", "Fix or remove the link, then run again."
        ) from None
    if stat.S_ISDIR(st.st_mode):
        raise GwconfError(f"{shown}: is a folder, not a file.", "Move it aside; gwconf expects a file here.")
    if not stat.S_ISREG(st.st_mode):
        raise GwconfError(f"{shown}: is not a regular file (FIFO, socket or device).", "Move it aside.")
    if st.st_size > MAX_FILE_BYTES:
        raise GwconfError(
            f"{shown}: is {st.st_size // (1024 * 1024)} MB; gwconf refuses config files over "
            f"{MAX_FILE_BYTES // (1024 * 1024)} MB.",
            "Check that this is really the client's configuration file.",
        )
    try:
        # unbuffered: a buffered reader asks isatty and tell of every file (two more system calls)
        with open(target, "rb", buffering=0) as handle:
            # sized by the stat above: read(n) would allocate all n bytes up front for every file
            data = _read_up_to(handle, st.st_size + 1)
            if len(data) > st.st_size:  # it grew since: read the rest, still within the limit
                data += _read_up_to(handle, MAX_FILE_BYTES + 1 - len(data))
                if len(data) > MAX_FILE_BYTES:
                    raise GwconfError(
                        f"{shown}: grew past {MAX_FILE_BYTES // (1024 * 1024)} MB while being read.",
                        "Check that this is really the client's configuration file.",
                    )
    except PermissionError:
        raise GwconfError(
            f"{shown}: permission denied reading it.", "Check the file's owner and mode."
        ) from None
    return Snapshot(path, target, data, stat.S_IMODE(st.st_mode), st.st_nlink)


def read_plain(path: Path | str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A file gwconf consults but never writes (a project's ``.env``, a pid file, an app's
    index, gwconf's own small state): only a regular file of at most ``limit`` bytes; anything
    else raises ``OSError``, which each such reader already takes as "not there". A FIFO at one
    of these paths hung ``status`` and ``clients`` for ever, and a link to ``/dev/zero`` (a
    cloned repository can hold one) was read until memory ran out (the round's sweep). Opened
    without blocking: a FIFO with no writer opens at once, and is then refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        with open(fd, "rb", buffering=0, closefd=False) as handle:
            # sized by the stat, as read_snapshot reads (a 16 MB backup in 1 MB pieces joined
            # one by one was a quadratic copy); a file that grew since is read on to the limit
            data = _read_up_to(handle, st.st_size + 1)
            if len(data) > st.st_size:
                data += _read_up_to(handle, limit + 1 - len(data))
        if len(data) > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        return data
    finally:
        os.close(fd)


def _read_up_to(handle: FileIO, size: int) -> bytes:
    """Up to ``size`` bytes from an unbuffered file, fewer only at its end: one read of a
    regular file may return less (a signal, a network file system), as a buffered read would not."""
    data = handle.read(size)
    while data and len(data) < size:
        more = handle.read(size - len(data))
        if not more:
            break
        data += more
    return data


BOM = "\ufeff"


def decode_text(raw: bytes, source: str) -> tuple[str, bool]:
    """Bytes -> (text without BOM, had_bom). Invalid UTF-8 is a parse error with its line; UTF-16
    and UTF-32 (which ASCII written two bytes a character passes for: a NUL is valid UTF-8) are
    named, with how to save the file as UTF-8.
    Here rather than in ``formats`` so a command that only reads profiles imports no editor."""
    if b"\x00" in raw[:64] or raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        wide = _wide_encoding(raw)
        if wide:
            name, without_mark = wide
            why = " (PowerShell 5's `>` and `Out-File` write it)" if name == "UTF-16" else ""
            spelled = '"' + ("$HOME" + source[1:] if source.startswith("~/") else source) + '"'
            read = f"{spelled}, [Text.Encoding]::{without_mark}" if without_mark else spelled
            raise ParseError(
                source,
                f"{name} text, not UTF-8{why}",
                hint="Save it as UTF-8 without a byte order mark, the encoding the clients read: in "
                "VS Code, 'Save with Encoding' > UTF-8; in PowerShell (whose `Set-Content -Encoding "
                f"utf8` adds a mark), [IO.File]::WriteAllText({spelled}, [IO.File]::ReadAllText("
                f"{read})). Then run again.",
            )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ParseError(source, "not valid UTF-8 text", line, column) from None
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def _wide_encoding(raw: bytes) -> tuple[str, str] | None:
    """(encoding, .NET's name for it where no byte order mark says it, else "") when ``raw`` is
    UTF-32 or UTF-16 with its mark, or ASCII written two bytes a character without one (every
    other byte zero); else None."""
    if raw[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        return "UTF-32", ""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "UTF-16", ""
    head = raw[:64]
    if len(head) >= 4 and not any(head[1::2]):
        return "UTF-16", "Unicode"  # little-endian
    if len(head) >= 4 and not any(head[0::2]):
        return "UTF-16", "BigEndianUnicode"
    return None


def _is_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def atomic_write(
    target: Path,
    data: bytes,
    *,
    mode: int | None,
    secret: bool,
    expect: Snapshot | None = None,
    shown: str = "",
    access_from: Path | None = None,
) -> None:
    """Replace ``target`` (already resolved) with ``data`` atomically.

    ``mode``: the existing file's mode to keep (None for a new file). A file holding a key ends
    up 0600 at most; a new non-secret file honours the umask. ``expect``: what the file must
    still hold (the compare-and-swap), checked at the last moment before the replace and, where
    the platform can swap two names atomically, once more on what the swap took out: a client
    that wrote in between gets its bytes back and the write is refused (``ConcurrentChange``).
    ``access_from``: where an ACL or SELinux label ``target`` lacks comes from (restore: the backup
    of the file from before gwconf, when a key made gwconf drop the ACL). The mode is set after
    the ACL: an ACL's mask is the mode's group bits, and the backup's own 0600 had narrowed it.
    """
    folder = target.parent
    if not os.path.isdir(folder):  # (pathlib's mkdir raises and catches FileExistsError for one that is)
        _make_dirs(folder, 0o700 if secret else 0o777)
    if mode is None and secret:
        new_mode = 0o600
    elif mode is None:  # (reading the umask takes two calls: it can only be read by setting it)
        umask = os.umask(0)
        os.umask(umask)
        new_mode = 0o666 & ~umask
    else:
        new_mode = (mode & 0o600) if secret else mode
    fd, tmp = _new_temp_file(folder, target.name)
    try:
        try:  # on the descriptor itself: a file object would ask fstat, isatty and tell first
            _write_all(fd, data)
            _keep_owner(fd, target)
            _keep_access(fd, target, secret, access_from)
            os.fchmod(fd, new_mode) if hasattr(os, "fchmod") else os.chmod(tmp, new_mode)
            os.fsync(fd)
        except OSError as exc:  # a descriptor's error names no file: the target is the one to name
            if exc.filename is None:
                raise OSError(exc.errno, exc.strerror, str(target)) from None
            raise
        finally:
            os.close(fd)
        if expect is None:
            _replace(tmp, target)
        else:
            check_unchanged(expect, shown)
            _swap_in(tmp, target, expect, shown)
        fsync_dir(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``: one write may take less (a signal, a full pipe, a big buffer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:  # (a regular file raises instead; never loop on nothing)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


_TEMP_FLAGS = (
    os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)  # fmt: skip
_temp_count = 0


def _new_temp_file(folder: Path, name: str) -> tuple[int, Path]:
    """A new 0600 file ``.<name>.<pid>-<n>.gwconf-tmp`` beside the target, opened for writing.

    What ``tempfile.mkstemp`` does, without its random names: ``O_EXCL`` (which also refuses a
    symlink planted at the name) makes a predictable name as safe, and mkstemp's random
    generator and imports were 7% of ``gwconf use`` (273 temp files; issue 15)."""
    global _temp_count
    while True:
        _temp_count += 1
        path = folder / f".{name}.{os.getpid()}-{_temp_count}{TEMP_SUFFIX}"
        try:
            return os.open(path, _TEMP_FLAGS, 0o600), path
        except FileExistsError:
            continue  # a killed run's leftover with this number: the next one


def _swap_in(tmp: Path, target: Path, expect: Snapshot, shown: str) -> None:
    """Replace ``target`` by ``tmp`` and prove that what was replaced is what ``expect`` holds.

    Linux: ``renameat2`` exchanges the two names in one step (or, for a file that must not
    exist yet, refuses to replace one), so the bytes taken out are exactly those replaced; if a
    client wrote them after the last check, they are swapped back. Elsewhere a plain replace:
    the window between the last check and the replace remains (docs/security.md)."""
    if expect.data is None:
        if _renameat2(tmp, target, _RENAME_NOREPLACE, shown) is None:
            _replace(tmp, target)
        return
    if _renameat2(tmp, target, _RENAME_EXCHANGE, shown) is None:
        _replace(tmp, target)
        return
    try:
        same = _holds(tmp, expect.data)
    except OSError:
        same = False
    if not same:  # a client wrote after the check: its bytes go back
        _renameat2(tmp, target, _RENAME_EXCHANGE, shown)
        tmp.unlink()
        raise _changed(shown)
    tmp.unlink()


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc: object = None  # None: not looked up yet; False: no renameat2 here


def _renameat2(src: Path, dst: Path, flags: int, shown: str) -> bool | None:
    """True when done; None when this system or file system cannot (the caller falls back)."""
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            import ctypes

            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _libc = libc if hasattr(libc, "renameat2") else False
            except OSError:
                _libc = False
    if not _libc:
        return None
    import ctypes

    sys.audit("os.rename", src, dst, -1, -1)  # what os.rename announces: audit hooks see every rename
    result = _libc.renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags)  # type: ignore[attr-defined]
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err == errno.EEXIST:
        raise _changed(shown)
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return None
    if err == errno.ENOENT and flags == _RENAME_EXCHANGE:  # the file was removed meanwhile
        raise _changed(shown)
    raise OSError(err, os.strerror(err), str(dst))


def _changed(shown: str) -> ConcurrentChange:
    return ConcurrentChange(
        f"{shown}: changed while gwconf was planning (another program, or a gwconf run at the same time, wrote it); nothing was written.",
        "Run the command again; if the client keeps rewriting it, quit the client first.",
    )


def _keep_owner(fd: int, target: Path) -> None:
    if not hasattr(os, "fchown"):
        return
    try:
        st = os.stat(target)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fchown(fd, st.st_uid, st.st_gid)


# The extended attributes that are permissions, as Emacs keeps them when it saves by writing a
# new file: a POSIX ACL (``setfacl``) and an SELinux label. The rename would leave them with the
# file it replaces; the others (user metadata, checksums of the old bytes) describe that file.
_ACCESS_ATTRIBUTES = ("system.posix_acl_access", "security.selinux")


def _keep_access(fd: int, target: Path, secret: bool, fallback: Path | None = None) -> None:
    """The replaced file's ACL and SELinux label on the new one (Linux, where ``os`` reads them;
    each as far as the process may set it); one the file lacks, ``fallback``'s where it has it. A
    file holding a key gets no ACL: one could grant others the read that its 0600 mode takes away."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(target)
    except OSError:  # a new file, or a file system without them
        names = []
    sources = {name: target for name in names if name in _ACCESS_ATTRIBUTES}
    if fallback is not None and len(sources) < len(_ACCESS_ATTRIBUTES):
        with contextlib.suppress(OSError):
            for name in os.listxattr(fallback):
                if name in _ACCESS_ATTRIBUTES:
                    sources.setdefault(name, fallback)
    for name, source in sources.items():
        if not (secret and name == "system.posix_acl_access"):
            with contextlib.suppress(OSError):
                os.setxattr(fd, name, os.getxattr(source, name))


def _replace(tmp: Path, target: Path) -> None:
    for attempt in range(10):
        try:
            os.replace(tmp, target)
            return
        except PermissionError:
            if os.name != "nt" or attempt == 9:
                raise
            time.sleep(0.05 * (attempt + 1))  # Windows: an editor or scanner holds the file


# folders whose entries changed inside ``deferred_dir_syncs``, each to be fsynced once on leaving it
_deferred: dict[str, None] | None = None


@contextlib.contextmanager
def deferred_dir_syncs() -> Iterator[None]:
    """One fsync per changed folder, on leaving, instead of one per file written or removed.

    A rename is durable once its folder is fsynced, and nothing needs it durable before the next
    barrier: a client's backups and journal must be on disk before its first file is replaced,
    not each before the next. Every file's own bytes are still fsynced before its rename, so the
    folder's fsync never exposes an empty file. ``gwconf use`` over 36 clients made 582 fsyncs,
    309 of them of folders (issue 15). Nested uses share the outermost barrier."""
    global _deferred
    if _deferred is not None:
        yield
        return
    _deferred = {}
    try:
        yield
    finally:
        folders, _deferred = _deferred, None
        for folder in folders:
            fsync_dir(Path(folder))


def fsync_dir(folder: Path) -> None:
    if _deferred is not None:
        _deferred[str(folder)] = None
        return
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def named_like(folder: Path, prefix: str = "", suffix: str = "") -> list[Path]:
    """The entries of ``folder`` whose names start with ``prefix`` and end with ``suffix``, dot-names
    too: ``folder.glob(prefix + "*" + suffix)`` without a pattern language. pathlib's glob compiles
    each pattern with ``re`` (deferred: ``lazyre``), and a ``[`` or ``*`` in a file's own name, put
    into the pattern, was read as a wildcard. [] when the folder cannot be read."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [folder / name for name in names if named(name, prefix, suffix)]


def named(name: str, prefix: str, suffix: str) -> bool:
    """Whether ``name`` is ``prefix`` + anything + ``suffix`` (the two may not overlap)."""
    return len(name) >= len(prefix) + len(suffix) and name.startswith(prefix) and name.endswith(suffix)


def remove_file(target: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target)
    fsync_dir(target.parent)


def check_unchanged(snapshot: Snapshot, shown: str) -> None:
    """Compare-and-swap: refuse when the file is not what was read (a client wrote meanwhile).
    A big file is compared a megabyte at a time (``_holds``) rather than read whole again: a
    16 MB settings.json was read into a new 16 MB object at each of the write's checks."""
    if snapshot.data is not None and len(snapshot.data) >= _BIG:
        same = _regular_file_holds(snapshot.path, snapshot.data)
        if same is not None:
            if not same:
                raise _changed(shown)
            return
    current = read_snapshot(snapshot.path, shown)  # (also what names an odd file's problem)
    if current.data != snapshot.data:
        raise _changed(shown)


def _regular_file_holds(path: Path, data: bytes) -> bool | None:
    """Whether the regular file ``path`` names holds exactly ``data``; None when it is not a
    regular file or cannot be read (``read_snapshot`` then says what is wrong)."""
    try:
        target = resolve(path)
        st = os.stat(target)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size != len(data):
            return False
        return _holds(target, data)
    except (OSError, GwconfError):
        return None


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file holds exactly ``data``, read and compared a megabyte at a time: no copy
    of a big file is made to compare it. Raises OSError when it cannot be read."""
    with open(path, "rb", buffering=0) as handle:
        return _fd_holds(handle.fileno(), data)


# Linux's FS_IOC_GETFLAGS and the marks it reads (``lsattr``): an immutable file (``chattr +i``)
# cannot be replaced or renamed, not even by root; an append-only one (``chattr +a``) neither
_GET_FLAGS = 0x80086601
_IMMUTABLE, _APPEND_ONLY = 0x10, 0x20


def _marks(path: Path) -> str:
    """The mark ``path`` carries, "+i" or "+a" (Linux ``chattr``, BSD and macOS ``chflags``), or ""."""
    if sys.platform.startswith("linux"):  # (first: every file a write or a preview checks asks)
        import fcntl

        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            value = int.from_bytes(fcntl.ioctl(fd, _GET_FLAGS, bytes(8))[:4], sys.byteorder)
        finally:
            os.close(fd)
        return "+i" if value & _IMMUTABLE else "+a" if value & _APPEND_ONLY else ""
    flags = getattr(os.stat(path, follow_symlinks=False), "st_flags", None)  # BSD, macOS
    if flags is None:
        return ""
    if flags & (stat.UF_IMMUTABLE | stat.SF_IMMUTABLE):
        return "+i"
    return "+a" if flags & (stat.UF_APPEND | stat.SF_APPEND) else ""


def _marked(path: Path, what: str, mark: str | None = None) -> tuple[str, str] | None:
    """(what is wrong, what to do) when ``path`` is marked immutable or append-only, else None.
    ``mark``: ``path``'s, when the caller has asked for it already."""
    mark = _mark_of(path) if mark is None else mark
    if not mark:
        return None
    kind = "immutable" if mark == "+i" else "append-only"
    cannot = "no file in it can be replaced" if os.path.isdir(path) else "it cannot be replaced"
    from gwconf.paths import shell_word  # (only here, on the way to an error)

    word = shell_word(str(path))
    if sys.platform.startswith("linux"):
        undo = f"chattr -{mark[1]} {word}"
    else:
        undo = f"chflags no{'uchg' if mark == '+i' else 'uappnd'} {word}"
    return (
        f"{what} is marked {kind} ({mark}), so {cannot}",
        f"If gwconf should edit it, remove the mark ({undo}; sudo if you set it so) and run again; "
        "put it back after, if you want it kept.",
    )


def _read_only_file_system(shown: str, client: str) -> tuple[str, str]:
    return (
        f"{shown}: is on a read-only file system",
        f"Remount it read-write, or start the client with the gateway without writing: gwconf run {client}.",
    )


def write_failure(exc: OSError, target: Path, shown: str, client: str = "CLIENT") -> tuple[str, str]:
    """(what went wrong, what to do) for a write of ``target`` that failed with ``exc``, asked
    only once it has: a file or folder marked immutable or append-only (``chattr +i``, used to
    keep an app from rewriting its settings) reads as an ordinary permission error, and the
    mode and owner, which gwconf checks first, say nothing of it."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EROFS:
        return _read_only_file_system(shown, client)
    if exc.errno in _SYSTEM_FAILURES:  # a full disk, a quota, a file size limit, a failing disk
        return f"could not write {shown}: {reason}", _SYSTEM_FAILURES[exc.errno]
    if exc.errno in (errno.EPERM, errno.EACCES):
        for what, path in ((shown, target), (f"{shown}'s folder", target.parent)):
            marked = _marked(path, what)
            if marked is not None:
                return marked
    return f"could not write {shown}: {reason}", "Check the folder's permissions and free space."


# what the system ran out of or refused, not gwconf's fault: errno -> what to do
_SYSTEM_FAILURES = {
    errno.ENOSPC: "Free some space on that disk, then run the command again.",
    errno.EDQUOT: "Your disk quota there is used up: free some space, then run the command again.",
    errno.EFBIG: (
        "A limit on file size stopped the write (the shell's ulimit -f, or the file system's "
        "own): raise it, then run the command again."
    ),
    errno.EROFS: (
        "That file system is mounted read-only: remount it read-write (for gwconf's own files, "
        "or set GWCONF_HOME to a writable folder), then run the command again."
    ),
    errno.EIO: "The disk reported an input/output error: check the disk before running again.",
}
# what a user (or an earlier ``sudo gwconf``, or a tool cleaning folders) can do to a path gwconf
# uses for its own state: shown with the path, not as a bug (the filesystem sweep found each one
# reported as "unexpected error ... please report it")
_PATH_FAILURES = {
    errno.EACCES: (
        "Check the owner and mode of that path and its folders (after a `sudo gwconf`, root owns "
        'them: sudo chown -R "$USER" on the folder), then run the command again.'
    ),
    errno.EPERM: (
        "The system does not allow it: check the owner, and an immutable flag (lsattr; chattr -i "
        "removes it), then run the command again."
    ),
    errno.EISDIR: "A folder stands where gwconf keeps a file: move it aside, then run the command again.",
    errno.ENOTDIR: (
        "A file stands where gwconf keeps a folder (a part of that path): move it aside, then run "
        "the command again."
    ),
    errno.ELOOP: "That path goes through a symbolic link loop: fix or remove the link, then run again.",
}


def system_failure(exc: BaseException) -> GwconfError | None:
    """The error to show for an ``OSError`` the system caused (a full disk, a quota, a file size
    limit, a read-only or failing disk) or a path in a state gwconf cannot use (permissions, a
    folder for a file, a link loop) that reached the command's top: it is no bug in gwconf,
    and was shown as one ("unexpected error ... please report it") when it struck gwconf's own
    state files (the journal, the ledger, a backup). None for anything else."""
    if isinstance(exc, OSError) and exc.errno in _PATH_FAILURES and exc.filename:
        reason = exc.strerror or os.strerror(exc.errno)
        where = exc.filename2 or exc.filename  # a rename's target is the path in the way
        return GwconfError(f"could not use {where}: {reason}.", _PATH_FAILURES[exc.errno])
    if not isinstance(exc, OSError) or exc.errno not in _SYSTEM_FAILURES:
        return None
    reason = exc.strerror or os.strerror(exc.errno)
    doing = "read or write" if exc.errno == errno.EIO else "write"  # the others fail writes only
    where = f"could not {doing} {exc.filename}" if exc.filename else f"a {doing} failed"
    return GwconfError(f"{where}: {reason}.", _SYSTEM_FAILURES[exc.errno])


_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def check_writable(target: Path, shown: str, path: Path | None = None, client: str = "CLIENT") -> None:
    """Refuse early, before any file of a change is replaced, when one cannot or should not be
    written. Modes and owners count even for root, who could write anyway. ``path``: the file as
    the client names it (a symlink to ``target``, maybe); ``client``: its id, for the hints."""
    if path is not None and os.path.islink(path) and not os.path.lexists(target):
        raise WriteRefused(
            f"{shown}: is a symlink to {target}, which does not exist.",
            "Create that file (or fix or remove the link), then run again.",
        )
    named = os.fspath(path or target)
    if f"{os.sep}~{os.sep}" in named:  # (a string search: this check runs for every file previewed)
        # a variable moving the client's folder held a quoted ~, which the client does not expand
        raise WriteRefused(
            f"{shown}: lies under a folder named `~` in {named[: named.index(f'{os.sep}~{os.sep}')]}, which is "
            "where the client reads it: a variable naming its folder starts with a literal `~` "
            "(quoted in the shell, or set in a .env file), and nothing expands it.",
            f"Set that variable with $HOME instead of ~ (gwconf status {client} names it), then run again.",
        )
    if "/nix/store/" in target.as_posix():
        # home-manager (or NixOS) links the file into the read-only store: "folder not writable"
        # sent Nix users to chmod a store path; the fix is in their Nix configuration
        raise WriteRefused(
            f"{shown}: is a link into the Nix store ({target}): home-manager or NixOS writes it, "
            "and gwconf cannot edit it.",
            f"Set these values in your Nix configuration instead (gwconf apply {client} --dry-run "
            f"shows them), or start the client with the gateway without writing: gwconf run {client}.",
        )
    # (os.path on strings: pathlib's objects were half of this check's 10 us, run for every file
    # a write changes and, since a dry run names the refusals too, every file it previews)
    probe = os.path.dirname(target)
    while True:
        try:
            folder_mode = os.stat(probe).st_mode
            break
        except OSError as exc:  # the nearest folder that exists (as pathlib's exists() judges it)
            parent = os.path.dirname(probe)
            if exc.errno not in _NOT_THERE or parent == probe:
                raise
            probe = parent
    if not os.access(probe, os.W_OK | os.X_OK) or not folder_mode & stat.S_IWUSR:
        marked = _marked(Path(probe), f"{shown}: its folder {probe}")  # access says no, whatever the mode
        if marked is not None:
            raise WriteRefused(f"{marked[0]}.", marked[1])
        raise WriteRefused(
            f"{shown}: its folder {probe} is not writable.", "Check the folder's owner and mode."
        )
    if probe == os.path.dirname(target):  # the write renames its temporary file in this folder
        _refuse_append_only(Path(probe), f"{shown}: its folder {probe}", folder=True)
    try:
        st = os.stat(target)
    except OSError:
        if _sudo_root():
            _refuse_root_in_a_users_folder(probe, shown)
        return
    if not st.st_mode & stat.S_IWUSR:  # honour a read-only file even when running as root
        raise WriteRefused(
            f"{shown}: is read-only.", "Make it writable (chmod u+w) if gwconf should edit it."
        )
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():  # root (sudo) must not edit a user's files
        raise WriteRefused(
            f"{shown}: belongs to {_user_name(st.st_uid)}, not to the user running gwconf.",
            "Run gwconf as the file's owner (not with sudo), or chown the file to yourself.",
        )
    if not os.access(target, os.W_OK):  # its mode and owner allow it: a mark, a read-only file system
        refused = _marked(target, shown)
        if refused is None and hasattr(os, "statvfs") and os.statvfs(target).f_flag & os.ST_RDONLY:
            refused = _read_only_file_system(shown, client)
        if refused is not None:
            raise WriteRefused(f"{refused[0]}.", refused[1])
    else:
        _refuse_append_only(target, shown)


def _refuse_append_only(path: Path, what: str, folder: bool = False) -> None:
    """Refuse a file or folder marked append-only (``chattr +a``), which ``os.access`` calls
    writable: such a file cannot be replaced, and no name in such a folder renamed or removed,
    so the write failed only at its rename, after a dry run had shown it as fine. (An immutable
    mark, ``+i``, access sees.) A folder is asked once per command (``viewed``)."""
    mark = viewed(("mark", str(path)), lambda: _mark_of(path)) if folder else _mark_of(path)
    if mark == "+a":
        refused = _marked(path, what, mark)
        if refused is not None:
            raise WriteRefused(f"{refused[0]}.", refused[1])


def _mark_of(path: Path) -> str:
    """``_marks``, "" when it cannot be asked (unreadable, another user's: a write finds out then)."""
    try:
        return _marks(path)
    except OSError:
        return ""


def _sudo_root() -> bool:
    """Running as root for a user (sudo, doas)? Anyone else creates files of their own, and root
    itself (a container's only user, whose files all are root's) writes as it asks."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    return bool(os.environ.get("SUDO_UID") or os.environ.get("DOAS_USER"))


def _refuse_root_in_a_users_folder(folder: str, shown: str, reader: str = "the client") -> None:
    """A user's root (``sudo gwconf``, with the user's HOME kept, as macOS's sudo keeps it; sudo
    and doas say whose in ``SUDO_UID`` and ``DOAS_USER``) must not create
    a file or folders in a user's folder: they would be root's (``~/.claude`` 0700, a new
    ``~/.config`` 0700 that every program of the user's reads), and the client, or gwconf itself,
    run as the user, could not read them any more. A client's file that exists is refused the same
    way, by its own owner. Asked only under ``_sudo_root``."""
    try:
        owner = os.stat(folder).st_uid
    except OSError:
        return
    if owner != 0:
        raise WriteRefused(
            f"{shown}: gwconf would create it in {folder}, which belongs to {_user_name(owner)}; "
            f"running as root, it would be root's, and {reader}, run as that user, could not read it.",
            "Run gwconf as that user (not with sudo).",
        )


def _refuse_root_creating(path: Path) -> None:
    """``_refuse_root_in_a_users_folder`` for one of gwconf's own files, when it does not exist yet."""
    if _sudo_root() and not os.path.lexists(path):
        _refuse_root_in_a_users_folder(str(path.parent), str(path), "gwconf")


def _user_name(uid: int) -> str:
    try:
        import pwd

        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def make_private_dirs(folder: Path) -> None:
    """``folder`` and its missing parents, each 0700 (``mkdir(parents=True)`` gives the parents the
    umask's 0755: ``backups/`` and ``backups/<client>/`` were world-readable)."""
    for created in _make_dirs(folder, 0o700, 0o700):
        with contextlib.suppress(OSError):
            os.chmod(created, 0o700)


def _make_dirs(folder: Path, mode: int, parents_mode: int = 0o777) -> list[Path]:
    """``folder`` (``mode``) and its missing parents (``parents_mode``), the top one first; returns
    those it made. Each new name is made durable in its parent (``fsync_dir``, deferred like a
    file's): a file's own fsync and its folder's do not write the folder's name, and a folder
    made for a first backup holds the only copy of the user's bytes."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    if missing and _sudo_root():
        _refuse_root_in_a_users_folder(str(folder), str(missing[-1]), "gwconf or the client")
    for created in reversed(missing):
        created.mkdir(mode=mode if created is missing[0] else parents_mode, exist_ok=True)
        fsync_dir(created.parent)
    return missing[::-1]


def keep_by_link(snapshot: Snapshot, copy: Path) -> bool:
    """Keep the bytes of ``snapshot``'s file, which this write is about to replace, under the new
    name ``copy`` (a backup) as a second name for the file itself: nothing is copied, written or
    renamed. True when it did; False leaves nothing behind, and the caller writes a copy.

    Only for a file of one name on this file system whose bytes are still those read: a file with
    other names (hard-linked dotfiles) would go on being edited through them, so it is copied.
    Once the write replaces the file (by rename), the backup is the only name left for the old
    bytes, which nothing writes again; until then it shares them with the live file, so the
    caller makes it private (0600) only after the replace (``make_private``). A run that is
    refused or killed before leaves a copy that no committed record names: the next write takes
    its own (``BackupStore.take_pristine``).

    The bytes are made durable with ``fdatasync``: for a file already on disk it writes nothing,
    where a copy's write and fsync forced a journal commit each (``apply --all``'s 53 first
    copies, ``use``'s 50 timestamped ones; issue 15). The new name is made durable by the
    folder's fsync at the caller's barrier."""
    data = snapshot.data
    if data is None or os.name != "posix":
        return False
    try:
        seen = os.lstat(snapshot.target)
        if not stat.S_ISREG(seen.st_mode) or seen.st_nlink != 1 or seen.st_size != len(data):
            return False
        private_folder(copy.parent)  # as ``write_private`` leaves it for a copy
        os.link(snapshot.target, copy, follow_symlinks=False)
    except OSError:  # another file system, no hard links there, a name taken: a copy
        return False
    try:
        fd = os.open(copy, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            now = os.fstat(fd)
            same = (now.st_ino, now.st_dev) == (seen.st_ino, seen.st_dev) and _fd_holds(fd, data)
            if same:
                getattr(os, "fdatasync", os.fsync)(fd)
        finally:
            os.close(fd)
    except OSError:
        same = False
    if not same:  # a client replaced or rewrote the file since it was read: a copy of what was read
        with contextlib.suppress(OSError):
            os.unlink(copy)
        return False
    fsync_dir(copy.parent)
    return True


def _fd_holds(fd: int, data: bytes) -> bool:
    """Whether the open file ``fd`` holds exactly ``data`` (read a megabyte at a time)."""
    done = 0
    while True:
        chunk = os.read(fd, _BIG)
        if not chunk:
            return done == len(data)
        if not data.startswith(chunk, done):
            return False
        done += len(chunk)


def make_private(paths: Iterable[Path]) -> None:
    """Backups kept by ``keep_by_link``, 0600 once the files they were the names of are replaced
    (before, the mode was the live file's own, and setting it would have set the user's)."""
    for path in paths:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)


def write_private(path: Path, data: bytes) -> None:
    """gwconf's own files (profiles, ledger, backups): folder 0700, file 0600, atomic. A folder
    that is 0700 already is not set again (``apply --all`` writes 160 of these files)."""
    private_folder(path.parent)
    _refuse_root_creating(path)
    atomic_write(path, data, mode=None, secret=True)


def private_folder(folder: Path) -> None:
    """``folder`` there and 0700 (made with its missing parents, or set), for gwconf's own files."""
    try:
        st: os.stat_result | None = os.stat(folder)
    except OSError:
        st = None
    if st is None:
        make_private_dirs(folder)
    elif stat.S_IMODE(st.st_mode) != 0o700:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)


# the locks this process holds, by path and thread: a nested ``exclusive_lock`` of one of them is
# already inside it (``flock`` on a second descriptor would wait for the first: for ever)
_HELD: dict[tuple[str, int], int] = {}


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Serialise gwconf against itself (clients ignore this lock; the compare-and-swap guards them).
    Re-entrant: a command that holds it for its whole run (``use``) calls the steps that take it
    on their own (the write, the repair) inside."""
    import threading

    held = (str(lock_path), threading.get_ident())
    if held in _HELD:
        _HELD[held] += 1
        try:
            yield
        finally:
            _HELD[held] -= 1
        return
    with _locked(lock_path, timeout):
        _HELD[held] = 1
        try:
            yield
        finally:
            del _HELD[held]


@contextlib.contextmanager
def _locked(lock_path: Path, timeout: float) -> Iterator[None]:
    make_private_dirs(lock_path.parent)
    _refuse_root_creating(lock_path)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:
        if not os.path.islink(lock_path):
            raise
        raise WriteRefused(  # a link into a folder that is gone (the filesystem sweep: a bug report)
            f"{lock_path}: is a link to {os.readlink(lock_path)}, which cannot be created.",
            "Remove the link (gwconf makes its lock file itself), then run the command again.",
        ) from None
    try:
        started = time.monotonic()
        deadline = started + timeout
        noted = False
        while True:
            try:
                _lock(fd)
                break
            except OSError:
                if not noted and time.monotonic() > started + 1.0:  # the wait was silent for 30 s
                    noted = True
                    import gwconf

                    if gwconf.wait_note is not None:
                        gwconf.wait_note(
                            f"waiting for another gwconf to finish (lock {lock_path}; up to {timeout:g} s)..."
                        )
                if time.monotonic() > deadline:
                    raise WriteRefused(
                        f"another gwconf is still running (lock {lock_path}).",
                        "Wait for it to finish, then run again.",
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined,unused-ignore]

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
