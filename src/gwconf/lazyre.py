"""Regular expressions compiled on first use, and ``re`` itself imported on first use.

Python's ``re`` compiles in Python: about 0.4-1M instructions a pattern, where a listing's whole
budget is 150M (issue 15). gwconf's modules name their patterns at import and most commands use
few of them, so each is a ``LazyPattern`` that compiles when first used.

A pattern's first use skips even that compile when ``gwconf._regex_code`` holds its compiled
form for this interpreter: scripts/gen-regex-code stores what ``re``'s compiler makes of every
pattern gwconf names (the SRE code, its groups and flags), and ``_sre.compile``, C, builds the
pattern from it in microseconds. The table is used only on the interpreter it was made by
(cache tag, exact version: a patch release may mend the compiler; SRE magic number, code size
and byte order), ``_sre`` checks the code it is given, and anything else compiles as before.

With every pattern built that way, ``re`` is needed only for what ``_sre`` hands back to it (a
replacement template, ``re.escape``...). Importing it, and the ``enum`` it brings, is 25M
instructions alone (``status`` on a home with every client applied: 333M with it, 315M
without), paid only because ``pathlib`` and ``json`` import it and ``json`` and
``urllib.parse`` compile patterns at their import (issue 15). ``DeferredRe`` stands
in for it (the console entry puts it in ``sys.modules``): those modules' patterns become lazy
ones whose code the table also stores, and any other use of ``re`` loads the real module.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine (no stubs): a built-in module
import sys

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    import re
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
        compiled = precompiled(self.pattern, flags) or real_re().compile(self.pattern, flags)
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


_table: dict[tuple[Any, int], tuple[Any, ...]] | None = None  # (pattern: str or bytes, flags)


def precompiled(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any] | None:
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
        compiled: re.Pattern[Any] = _sre.compile(
            pattern, final_flags, words, groups, dict(groupindex), indexgroup
        )
    except (RuntimeError, TypeError, ValueError):  # code or arguments this ``_sre`` refuses
        return None
    return compiled


def _load_table() -> dict[tuple[Any, int], tuple[Any, ...]]:
    from gwconf._regex_code import BUILT_FOR, CODES

    here = (sys.implementation.cache_tag, sys.hexversion, _sre.MAGIC, _sre.CODESIZE, sys.byteorder)
    return CODES if here == BUILT_FOR else {}


# the standard-library modules that compile patterns at their import, checked to use them only by
# their methods (never handed to ``re``'s functions, nor tested with ``isinstance``): while ``re``
# is deferred, ``re.compile`` called from them gives a ``LazyPattern``. Any other caller gets a
# real pattern (from the real module).
LAZY_COMPILERS = ("json.decoder", "json.encoder", "json.scanner", "urllib.parse", "difflib")

# ``re``'s flags, by their names: a flag read while ``re`` is deferred costs no import
_FLAGS = {
    "A": 256, "ASCII": 256, "DEBUG": 128, "I": 2, "IGNORECASE": 2, "L": 4, "LOCALE": 4,
    "M": 8, "MULTILINE": 8, "NOFLAG": 0, "S": 16, "DOTALL": 16, "U": 32, "UNICODE": 32,
    "X": 64, "VERBOSE": 64,
}  # fmt: skip


class DeferredModule(type(sys)):  # type: ignore[misc]  # types.ModuleType, without importing types
    """A module in ``sys.modules`` that imports the real one on first use of any attribute. A bare
    ``import name`` binds this and loads nothing; ``from name import x``, ``name.x`` and anything
    reading ``__file__`` load the real module, whose names are then copied here, so a reference
    taken before (``urllib.parse``'s ``ipaddress``) sees the same functions and classes.
    ``__path__`` is no attribute: it is no package (``from name import x`` asks before ``x``)."""

    def __getattr__(self, attribute: str) -> Any:
        if attribute == "__path__":
            raise AttributeError(attribute)
        return getattr(self.load(), attribute)

    def load(self) -> Any:
        """The real module, imported now (or as another thread imported it), its names copied here."""
        import importlib

        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)
        return real


class DeferredRe(DeferredModule):
    """``re`` until something needs the real one: its flags (as integers) and ``compile`` for
    ``LAZY_COMPILERS`` answer without it; anything else loads it (``DeferredModule``), whose
    ``compile`` then answers instead of this one."""

    def __init__(self) -> None:
        super().__init__("re")
        self.__dict__.update(_FLAGS)

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__")
        if isinstance(pattern, (str, bytes)) and caller in LAZY_COMPILERS:
            return LazyPattern(pattern, int(flags))  # type: ignore[arg-type]  # bytes (json's) too
        return self.load().compile(pattern, flags)


def defer_re() -> None:
    """Put ``DeferredRe`` in ``sys.modules`` when nothing has imported ``re`` yet (the console
    entry's first step: an installer's script may import it before gwconf runs)."""
    if "re" not in sys.modules:
        sys.modules["re"] = DeferredRe()


def real_re() -> Any:
    """The real ``re``, imported now if ``DeferredRe`` stood in for it."""
    module = sys.modules.get("re")
    if isinstance(module, DeferredRe):
        return module.load()
    import re as real

    return real
