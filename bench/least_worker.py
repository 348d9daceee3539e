"""The least program: what reading, editing and writing the dry run's files costs, gwconf aside.

``least_worker.py plan LIST`` reads each file named in ``LIST`` (one path a line), parses it with
the fastest reader this interpreter has for its format (``json``'s C decoder, after two regexes
take out the comments and trailing commas of a JSONC file the strict decoder refused; libyaml's
``CSafeLoader``; ``tomllib``; ``KEY=value`` lines split), inserts one line in its middle (a blank
one in JSON, a comment elsewhere; at its end where the middle is inside a block scalar), parses
the result again and compares the two, and writes a unified hunk of the change (to the null
device: a file's lines are never shown, a key among them).
``least_worker.py write LIST STATE`` does the same, then, for each file, keeps a copy of the
original in ``STATE`` (a new file, fsynced), writes the new bytes to a temp file in the file's
folder (fsynced) and renames it over the file; each folder is fsynced once at the end, and one
ledger of what was written is saved the same way.

That is the part of ``gwconf apply --all [--dry-run]`` no design can leave out: one parse and one
re-parse of every file (the write gate the house rules ask for), a diff, a durable write with a
backup. What it leaves out is everything gwconf promises on top: which keys each client needs and
their values (a provider switched, a custom provider entry), edits at the value's own span that
keep comments, order and quoting, the key masked in every printed line, the checks before a write
(changed since read, writable, symlinks, owner, mode), the lock, the journal that finishes or
undoes a killed run, the records a restore needs, per-file backup history. It imports nothing
of gwconf and only what its formats need; PyYAML's patterns compile on first use, as gwconf
imports them (a plain ``import yaml`` compiles 40 of them: 3 floors of start-up here).

bench/least.py times it beside the floor and the two gwconf commands (``--only least``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib

_compile = re.compile


class _Deferred:
    """A pattern compiled on its first use (PyYAML compiles its resolver's patterns at import)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> object:
        if self._compiled is None:
            self._compiled = _compile(*self._args)
        return getattr(self._compiled, name)


def _compile_later(pattern: object, flags: int = 0) -> object:
    return _Deferred(pattern, flags) if isinstance(pattern, str) else _compile(pattern, flags)  # type: ignore[arg-type]


re.compile = _compile_later  # type: ignore[assignment]
try:
    import yaml
finally:
    re.compile = _compile

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STRING = r'("(?:[^"\\\n]|\\.)*")'  # one character a turn: no nested repeat to backtrack through
_COMMENT = re.compile(_STRING + r"|//[^\n]*|/\*.*?\*/", re.S)
_TRAILING_COMMA = re.compile(_STRING + r"|,(?=\s*[\]}])")
_JSON = (".json", ".jsonc")


def parse(path: str, text: str) -> object:
    if path.endswith(_JSON):
        try:
            return json.loads(text)
        except ValueError:
            return json.loads(_TRAILING_COMMA.sub(r"\1", _COMMENT.sub(r"\1", text)))
    if path.endswith((".yaml", ".yml")):
        return yaml.load(text, Loader=_LOADER)  # the C safe loader
    if path.endswith(".toml"):
        return tomllib.loads(text)
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def edited(path: str, text: str, *, middle: bool = True) -> tuple[str, str]:
    """``text`` with one line inserted in its middle (or at its end), and the unified hunk of it."""
    at = text.find("\n", len(text) // 2) + 1 if middle else len(text)
    if at and not text[:at].endswith("\n"):  # a last line without its line break
        text, at = text + "\n", at + 1
    line = "\n" if path.endswith(_JSON) else "# gateway\n"
    number = text.count("\n", 0, at)
    context = text[:at].splitlines(keepends=True)[-3:]
    start = number - len(context) + 1
    hunk = (
        f"--- {path}\n+++ {path}\n@@ -{start},{len(context)} +{start},{len(context) + 1} @@\n"
        + "".join(" " + c for c in context)
        + "+"
        + line
    )
    return text[:at] + line + text[at:], hunk


def edit(path: str, text: str, before: object) -> tuple[str, str]:
    """``edited`` in the middle, or at the end where the middle is inside a block scalar or a
    multi-line string; checked by parsing the result again (the write gate)."""
    for middle in (True, False):
        after, hunk = edited(path, text, middle=middle)
        try:
            if parse(path, after) == before:
                return after, hunk
        except (ValueError, yaml.YAMLError):
            pass
    raise SystemExit(f"{path}: the edit changed the data")


def _write_new(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace(path: str, data: bytes, mode: int) -> None:
    temp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.least-tmp")
    _write_new(temp, data, mode)
    os.rename(temp, path)


def _fsync_folder(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    mode = argv[0]
    with open(argv[1], encoding="utf-8") as handle:
        paths = handle.read().split("\n")
    state = argv[2] if mode == "write" else None
    if state is not None:
        os.makedirs(state, exist_ok=True)
    hunks: list[str] = []
    ledger: dict[str, int] = {}
    folders: set[str] = set()
    unread = 0
    for number, path in enumerate(p for p in paths if p):
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
            text = raw.decode("utf-8")
            before = parse(path, text)
        except (OSError, ValueError, yaml.YAMLError):  # gone, a folder, JSON5: gwconf reads those
            unread += 1
            continue
        after, hunk = edit(path, text, before)
        hunks.append(hunk)
        if state is not None:
            file_mode = os.stat(path).st_mode & 0o7777
            _write_new(os.path.join(state, str(number)), raw, 0o600)
            _replace(path, after.encode("utf-8"), file_mode)
            ledger[path] = number
            folders.add(os.path.dirname(path))
    if state is not None:
        for folder in sorted(folders | {state}):
            _fsync_folder(folder)
        _replace(os.path.join(state, "ledger.json"), json.dumps(ledger).encode(), 0o600)
    # the hunks are written where no one reads them: the program pays for writing them, as the
    # dry run pays for printing its diffs, and never shows a file's lines (a key among them)
    with open(os.devnull, "w", encoding="utf-8") as shown:
        shown.write("".join(hunks))
    sys.stdout.write(f"{len(hunks)} files edited, {unread} not read\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
