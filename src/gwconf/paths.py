"""Where things live. Core code takes an explicit ``Env`` instead of reading globals.

Client paths are fixed by each client (``~/.codex``, ``~/.claude``...). gwconf's own config and
state follow platformdirs' rules, placed by ``gwconf.dirs`` for this Env (not the process) and
without importing platformdirs (~45 ms). ``GWCONF_HOME`` moves config, state and backups into one
folder.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path

from gwconf.dirs import home_folder, own_folders
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

if sys.version_info < (3, 12) and os.name != "nt":
    from pathlib import PosixPath

    class _QuickPath(PosixPath):
        """A ``PosixPath`` whose ``/`` with one plain name skips pathlib's parsing.

        Python 3.11's ``path / "name"`` parses the name like a whole path (about 14,000
        instructions); ``status`` and ``clients`` do it about 500 times for the clients' files and
        the folders they look in (issue 15). A name with no "/" that is not "" or "." parses to
        itself alone, so the child is the parent's parts plus the name, and its text the
        parent's plus "/name" (pathlib's ``_make_child`` and ``_format_parsed_parts``, held to
        them by tests/test_quick_path.py). Anything else goes to pathlib. Each is made with its
        text (pathlib works it out on the first ``str``, which first raises and catches an
        AttributeError: a hundred times in ``clients``, for parents and stat calls). The paths
        pathlib makes from one (``parent``, ``with_name``...) are ``_QuickPath`` too; each
        equals, hashes and prints as the ``PosixPath`` of its text. 3.12 rewrote pathlib (its
        ``/`` no longer parses at once): there, ``HomePath`` is ``Path``.
        """

        __slots__ = ()

        @classmethod
        def _from_parts(cls, args: Any) -> _QuickPath:
            path: Any = super()._from_parts(args)  # type: ignore[misc]
            path._str = cls._format_parsed_parts(path._drv, path._root, path._parts) or "."  # type: ignore[attr-defined]
            return path  # type: ignore[no-any-return]

        @classmethod
        def _from_parsed_parts(cls, drv: str, root: str, parts: list[str]) -> _QuickPath:
            path: Any = super()._from_parsed_parts(drv, root, parts)  # type: ignore[misc]
            path._str = cls._format_parsed_parts(drv, root, parts) or "."  # type: ignore[attr-defined]
            return path  # type: ignore[no-any-return]

        def __truediv__(self, key: str | os.PathLike[str]) -> _QuickPath:
            if type(key) is not str or not key or key == "." or "/" in key:
                return super().__truediv__(key)
            parts = self._parts  # type: ignore[attr-defined]
            child = object.__new__(type(self))
            child._drv = drv = self._drv  # type: ignore[attr-defined]
            child._root = root = self._root  # type: ignore[attr-defined]
            child._parts = [*parts, sys.intern(key)]  # type: ignore[attr-defined]
            text = self._str  # type: ignore[attr-defined]
            if (drv or root) and len(parts) == 1:  # the parent is the root itself
                child._str = text + key  # type: ignore[attr-defined]
            elif parts:
                child._str = text + "/" + key  # type: ignore[attr-defined]
            else:  # the parent is "." (no parts)
                child._str = key  # type: ignore[attr-defined]
            return child

        def __repr__(self) -> str:
            return f"PosixPath({self.as_posix()!r})"

    HomePath: type[Path] = _QuickPath
else:
    HomePath = Path


@record(frozen=True)
class Env:
    """The world a command runs in: home folder, platform, environment variables, cwd.

    Never changed once made, so the folders derived from it are worked out once (``status``
    asks for them hundreds of times: every client's files and detection)."""

    home: Path
    platform: str  # "linux", "darwin" or "win32"
    environ: Mapping[str, str] = field(default_factory=dict)
    cwd: Path = field(default_factory=Path.cwd)

    @classmethod
    def current(cls) -> Env:
        environ = dict(os.environ)
        platform = _platform()
        given = environ.get("HOME")
        if not platform.startswith("win") and given is not None and not os.path.isabs(given):
            # HOME='' made the home "/" (files written to /.codex as root); a relative one was
            # recorded relative in the ledger, another folder's files for the next command
            from gwconf.errors import UsageError

            what = "empty" if not given else f"relative ({given})"
            raise UsageError(
                f"HOME is {what}: gwconf cannot tell where the clients' files are.",
                'Set HOME to your home folder\'s absolute path (export HOME="/home/you"), then run again.',
            )
        home = HomePath(home_folder(environ, platform))
        return cls(home=home, platform=platform, environ=environ, cwd=HomePath(working_folder(environ)))

    def get(self, name: str, default: str | None = None) -> str | None:
        value = self.environ.get(name)
        return value if value not in (None, "") else default

    def as_given(self, value: str) -> Path:
        """A folder or file a variable names, as a program that expands nothing takes it (Node's
        ``path.resolve``, Python's ``Path``): a relative value lies under the current folder, one
        that starts with ``~`` too. A shell expands an unquoted ``~`` before the program starts;
        a quoted one (``"~/x"``), or one in a .env file, reaches the program as it is."""
        path = HomePath(value)
        return path if path.is_absolute() else HomePath(self.cwd) / path

    @cached_property
    def literal_tildes(self) -> tuple[str, ...]:
        """The variables whose value starts with a literal ``~`` (see ``as_given``)."""
        return tuple(sorted(name for name, value in self.environ.items() if value.strip().startswith("~")))

    def expand(self, path: str) -> Path:
        """``~`` and ``$VARS`` against this Env (not the process)."""
        if path.startswith("~"):
            path = str(self.home) + path[1:]
        for name, value in self.environ.items():
            path = path.replace("${" + name + "}", value)
        return HomePath(path)

    # -- gwconf's own folders ------------------------------------------------------------------
    @cached_property
    def config_dir(self) -> Path:
        return HomePath(own_folders(self.environ, self.platform, str(self.home))[0])

    @cached_property
    def state_dir(self) -> Path:
        return HomePath(own_folders(self.environ, self.platform, str(self.home))[1])

    @cached_property
    def profiles_dir(self) -> Path:
        return self.config_dir / "profiles"

    @cached_property
    def backups_dir(self) -> Path:
        return self.state_dir / "backups"

    @cached_property
    def own_folder_prefixes(self) -> tuple[tuple[str, str], ...] | None:
        """(folder, folder + "/") for the config and state folders: ``in_gwconf_folders``
        compares strings instead of making a ``Path`` per client file (issue 15). None where
        only pathlib's rules answer: Windows (no case), a relative folder, POSIX's "//" root."""
        folders = [str(self.config_dir), str(self.state_dir)]
        if os.name == "nt" or not all(f.startswith("/") and not f.startswith("//") for f in folders):
            return None
        return tuple((f, f if f.endswith("/") else f + "/") for f in folders)

    # -- clients ---------------------------------------------------------------------------------
    @cached_property
    def shared_folders(self) -> frozenset[str]:
        """Folders many programs share (~, ~/.config, app data): a client's file there does not
        mean the client is installed; its own folder there does (``default_detect``)."""
        return frozenset(str(f) for f in (self.home, self.xdg_config_home, self.appdata, self.xdg_data_home))

    def which(self, program: str) -> str | None:
        """``shutil.which`` against this Env's PATH. Off Windows, its own loop (the same steps):
        ``status`` and ``clients`` look up every client's programs, and shutil's import brings the
        bz2/lzma/zlib extensions (~3 ms) that detection never uses (issue 15)."""
        path = self.environ.get("PATH", "")
        if sys.platform == "win32":
            import shutil

            return shutil.which(program, path=path)
        if os.path.dirname(program):
            return program if _executable(program) else None
        if not path:
            return None
        seen = set()
        for folder in path.split(os.pathsep):
            if folder not in seen:
                seen.add(folder)
                # os.path.join's answer for a name without "/"
                name = folder + program if not folder or folder.endswith("/") else folder + "/" + program
                if _executable(name):
                    return name
        return None

    @cached_property
    def xdg_config_home(self) -> Path:
        """``$XDG_CONFIG_HOME`` or ``~/.config`` (what Go/Node/Rust CLIs use on every OS but Windows)."""
        value = self.get("XDG_CONFIG_HOME")
        return HomePath(value) if value else self.home / ".config"

    @cached_property
    def xdg_data_home(self) -> Path:
        value = self.get("XDG_DATA_HOME")
        return HomePath(value) if value else self.home / ".local" / "share"

    @cached_property
    def appdata(self) -> Path:
        """Roaming app data: Windows ``%APPDATA%``, macOS ``~/Library/Application Support``, else XDG."""
        if self.platform == "win32":
            value = self.get("APPDATA")
            return HomePath(value) if value else self.home / "AppData" / "Roaming"
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        return self.xdg_config_home


def working_folder(environ: Mapping[str, str]) -> str:
    """The process's current folder; ``FolderGone`` (naming the shell's ``$PWD``) when the
    folder was removed or moved under the shell: each command once met that as an unexpected
    error with a crash log."""
    try:
        return os.getcwd()
    except OSError as exc:
        import errno

        from gwconf.errors import FolderGone

        shown = environ.get("PWD")
        named = shown if shown and os.path.isabs(shown) else None
        raise FolderGone(named, exc.strerror or str(exc), exc.errno == errno.ENOENT) from None


def _platform() -> str:
    if sys.platform.startswith("win"):
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def shell_word(shown: str) -> str:
    """``shown`` (a path, as ``display`` gives it or whole) as one word a POSIX shell (and
    PowerShell) reads back, for a command in a hint: ``~/'Library/Application Support/x.json'``,
    the ``~/`` left outside the quotes, where it still means the home folder."""
    import shlex  # here: only a hint with a command in it needs it

    if shown.startswith("~/") and len(shown) > 2:
        return "~/" + shlex.quote(shown[2:])
    return shlex.quote(shown)


def display(path: Path, env: Env) -> str:
    """``~/.codex/config.toml`` rather than the absolute path, for messages."""
    text, home = str(path), str(env.home)
    # strings, not pathlib's relative_to (a tenth of ``clients``, issue 15); pathlib for Windows'
    # case rules and POSIX's "//" root
    if os.name != "nt" and home.startswith("/") and not home.startswith("//") and not text.startswith("//"):
        if text.startswith(home):
            rest = text[len(home) :]
            if not rest:
                return "~/."
            if rest.startswith(os.sep):
                return "~/" + rest[1:]
            if home.endswith(os.sep):  # home is the root folder
                return "~/" + rest
        return text
    return _display_by_pathlib(path, env)


def _display_by_pathlib(path: Path, env: Env) -> str:
    """``display`` by pathlib's rules (the string shortcut is held to it: tests/test_listing_paths)."""
    try:
        return "~/" + str(path.relative_to(env.home)).replace(os.sep, "/")
    except ValueError:
        return str(path)


def _executable(path: str) -> bool:
    """What ``shutil.which`` accepts off Windows: an existing, executable file that is not a folder.

    shutil asks ``exists and access and not isdir``; ``access`` first is the same answer, and for
    a missing path (nearly every program ``clients`` looks for) it says no without the
    FileNotFoundError ``exists`` raises and catches inside (about 4,500 instructions)."""
    try:
        if not os.access(path, os.F_OK | os.X_OK):
            return False
    except ValueError:  # a NUL in the name: exists says no
        return False
    return os.path.exists(path) and not os.path.isdir(path)


_EFFECTIVE = os.access in os.supports_effective_ids


def exists(path: str) -> bool:
    """``os.path.exists(path)`` without the exception a missing path raises inside it.

    ``stat`` fails exactly when the path does not resolve for the process's effective ids, as
    ``access(F_OK)`` with them does; ``os.path.exists`` turns every failure into False, so the
    answer is the same, at a fifth of the instructions for a missing path (most of the paths
    ``status`` and ``clients`` look at: issue 15)."""
    if not _EFFECTIVE:
        return os.path.exists(path)
    try:
        return os.access(path, os.F_OK, effective_ids=True)
    except ValueError:  # a NUL in the name: os.path.exists says no
        return False


def is_dir(path: str) -> bool:
    """``os.path.isdir(path)``: a missing path is answered by ``exists``, without an exception."""
    return exists(path) and os.path.isdir(path)
