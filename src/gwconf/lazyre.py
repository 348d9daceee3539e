"""Regular expressions compiled on first use.

Python's ``re`` compiles in Python: about 0.4-1M instructions a pattern, where a listing's whole
budget is 150M (issue 15). gwconf's modules name their patterns at import and most commands use
few of them, so each is a ``LazyPattern`` that compiles when first used. This module imports
``re`` alone: ``profile list`` uses it without the formats package.

A pattern's first use skips even that compile when ``gwconf._regex_code`` holds its compiled
form for this interpreter: scripts/gen-regex-code stores what ``re``'s compiler makes of every
pattern gwconf names (the SRE code, its groups and flags), and ``_sre.compile``, C, builds the
pattern from it in microseconds. The table is used only on the interpreter it was made by
(cache tag, exact version: a patch release may mend the compiler; SRE magic number, code size
and byte order), ``_sre`` checks the code it is given, and anything else compiles as before.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine (no stubs): already imported by re
import re

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, made on first use."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]  # it answers as one


class LazyPattern:
    """A compiled pattern made on first use. The first attribute looked up compiles the pattern and
    keeps its methods as this object's own attributes, so later calls cost what a compiled
    pattern's do. ``is_compiled`` says whether that happened: a caller with a cheaper test for "no
    match possible" skips it once the pattern exists (``secrets.redact``)."""

    _METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")
    is_compiled = False  # this object's own True once compiled

    def __init__(self, pattern: str, flags: int = 0, *, total: bool = False) -> None:
        self.pattern = pattern
        self._args = (flags, total)

    def compiled(self) -> re.Pattern[str]:
        flags, must_match = self._args
        compiled = precompiled(self.pattern, flags) or re.compile(self.pattern, flags)
        if must_match and compiled.match("") is None:
            raise ValueError(f"{self.pattern!r} can fail to match, so it is not total")
        for name in self._METHODS:
            self.__dict__[name] = getattr(compiled, name)
        self.is_compiled = True
        return compiled

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and friends: a plain object's answers
            raise AttributeError(name)
        return getattr(self.compiled(), name)


_table: dict[tuple[str, int], tuple[Any, ...]] | None = None


def precompiled(pattern: str, flags: int = 0) -> re.Pattern[str] | None:
    """``re.compile(pattern, flags)`` built from ``gwconf._regex_code``'s stored code, or None when
    the table has no entry for it (or was made by another interpreter)."""
    global _table
    table = _table
    if table is None:
        table = _table = _load_table()
    entry = table.get((pattern, flags))
    if entry is None:
        return None
    final_flags, code, groups, groupindex, indexgroup = entry
    try:
        words = list(memoryview(bytes.fromhex(code)).cast("I"))
        compiled: re.Pattern[str] = _sre.compile(
            pattern, final_flags, words, groups, dict(groupindex), indexgroup
        )
    except (RuntimeError, TypeError, ValueError):  # code or arguments this ``_sre`` refuses
        return None
    return compiled


def _load_table() -> dict[tuple[str, int], tuple[Any, ...]]:
    import sys

    from gwconf._regex_code import BUILT_FOR, CODES

    here = (sys.implementation.cache_tag, sys.hexversion, _sre.MAGIC, _sre.CODESIZE, sys.byteorder)
    return CODES if here == BUILT_FOR else {}
