"""gwconf's own modules imported from their up-to-date ``__pycache__`` files in a few steps.

A command imports 60 to 90 of gwconf's modules. For each, ``importlib`` asks three finders in
turn, builds the candidate file names of every loader suffix, stats them, builds the spec, then
reads, checks and unmarshals the bytecode, all in Python (issue 15). The file to load is known
from the package folder: ``BytecodeFinder`` answers first for ``gwconf.*`` and hands the import
system a spec whose loader reads the bytecode in one go. It only takes the case it can show is
the one ``importlib`` would take: a plain module or package in the package's one folder, with
timestamp-checked bytecode matching the source's mtime and size (what ``SourceLoader``
checks), under no optimisation flag and no pycache prefix. Anything else (no bytecode yet, a
stale or hash-checked one, an extension module, a namespace) is left to ``importlib``, which
then writes the bytecode as before. The console entry installs it (``gwconf.cli.main``);
in-process callers import as usual.
"""

from __future__ import annotations

# importlib's own machinery as the interpreter loaded it at start (``import importlib`` would
# bring the package and ``warnings`` into commands such as ``gwconf current`` that need neither)
import _frozen_importlib as _bootstrap
import _frozen_importlib_external as _bootstrap_external
import _imp
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType, ModuleType
    from typing import Any

_TAG = sys.implementation.cache_tag
_HEADER = _bootstrap_external.MAGIC_NUMBER + bytes(4)  # flags 0: checked by timestamp


def checked_code(source: str, cached: str) -> CodeType | None:
    """The code in ``cached`` when it is timestamp-checked bytecode of ``source`` as it is now
    (mtime and size, as ``SourceLoader`` checks them), named after ``source``; else None."""
    try:
        stat = os.stat(source)
        with open(cached, "rb") as file:
            data = file.read()
    except OSError:
        return None
    stamp = (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    size = (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    if len(data) < 16 or data[:8] != _HEADER or data[8:12] != stamp or data[12:16] != size:
        return None
    code: CodeType = marshal.loads(memoryview(data)[16:])  # damaged: importlib's reading's error
    # as importlib does: the code names the file where it is now, not where it was compiled
    _imp._fix_co_filename(code, source)  # type: ignore[attr-defined]
    return code


def usable() -> bool:
    """Whether bytecode is where and what ``checked_code`` expects: no ``-O``, no pycache prefix."""
    return not sys.flags.optimize and sys.pycache_prefix is None


class _Loader(_bootstrap_external.SourceFileLoader):
    """``SourceFileLoader`` with the code already read (``importlib.resources`` and tracebacks
    see the usual loader)."""

    def __init__(self, fullname: str, path: str, code: CodeType) -> None:
        super().__init__(fullname, path)
        self._code: CodeType | None = code

    def get_code(self, fullname: str) -> Any:
        code, self._code = self._code, None
        return code if code is not None else super().get_code(fullname)


# each package folder's file names, listed once (importlib's FileFinder keeps its listing too)
_listings: dict[str, frozenset[str]] = {}


class BytecodeFinder:
    """A meta path finder for ``gwconf``'s submodules (see the module docstring)."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: ModuleType | None = None) -> Any:
        if not name.startswith("gwconf.") or path is None or len(path) != 1:
            return None
        folder = path[0]
        if not isinstance(folder, str):
            return None
        listing = _listings.get(folder)
        if listing is None:
            try:
                listing = _listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                return None
        leaf = name.rpartition(".")[2]
        sep = os.sep
        if leaf in listing:  # a package folder (or something else: importlib decides)
            inner = f"{folder}{sep}{leaf}"
            source = f"{inner}{sep}__init__.py"
            cached = f"{inner}{sep}__pycache__{sep}__init__.{_TAG}.pyc"
            search: list[str] | None = [inner]
        elif f"{leaf}.py" in listing:
            source = f"{folder}{sep}{leaf}.py"
            cached = f"{folder}{sep}__pycache__{sep}{leaf}.{_TAG}.pyc"
            search = None
        else:
            return None
        if any(f"{leaf}{suffix}" in listing for suffix in _bootstrap_external.EXTENSION_SUFFIXES):
            return None  # an extension module would come first
        code = checked_code(source, cached)
        if code is None:
            return None
        spec = _bootstrap.ModuleSpec(
            name, _Loader(name, source, code), origin=source, is_package=search is not None
        )
        if search is not None:
            spec.submodule_search_locations = search
        spec.cached = cached
        spec.has_location = True
        return spec


def install() -> None:
    """Put ``BytecodeFinder`` first on ``sys.meta_path`` (once), when bytecode is usable."""
    if usable() and BytecodeFinder not in sys.meta_path:
        sys.meta_path.insert(0, BytecodeFinder)
