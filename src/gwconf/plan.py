"""Plan first, then write: the only place client files are changed.

``plan_apply`` and ``plan_restore`` compute ``FileChange``s (bytes before and after) without
touching anything. ``execute`` then takes gwconf's lock, checks every file is still what was
read (compare-and-swap), takes the backups, writes one journal for all the clients it is given,
replaces the files atomically (a client's files land whole or are rolled back), updates the
ledger once and removes the journal. A run killed half-way is repaired by the next one
(``repair``), for all those clients at once.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from gwconf import formats, records
from gwconf.clients._base import ClientAdapter, ConfigFile, Target
from gwconf.errors import GwconfError, WriteRefused
from gwconf.fileio import (
    BOM,
    TEMP_SUFFIX,
    Snapshot,
    atomic_write,
    check_unchanged,
    check_writable,
    deferred_dir_syncs,
    exclusive_lock,
    fsync_dir,
    keep_by_link,
    make_private,
    named,
    named_like,
    read_plain,
    read_snapshot,
    remove_file,
    sha256,
    write_failure,
    write_private,
)
from gwconf.formats import MISSING, Document, get_plain
from gwconf.formats._base import common_length, no_spelling
from gwconf.ledger import (
    FileWrite,
    KeyRecord,
    Ledger,
    is_sensitive,
    settle_nested,
    value_hash,
    written_by_gwconf,
)
from gwconf.paths import Env, display
from gwconf.records import field

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

BACKUPS_KEPT = 10
# + a number: a big file's new bytes, which the journal points to (``_pending_copies``)
PENDING_COPY = "journal.pending-"
_PENDING_REF = "\x00pending-backup"


@records.record
class FileChange:
    """One file's bytes before and after. ``after`` None means: remove the file."""

    client_id: str
    file: ConfigFile
    display: str
    snapshot: Snapshot
    after: bytes | None
    after_data: Any = None
    before_data: Any = MISSING  # what the bytes before read as, when the plan parsed them
    restoring: bool = False
    restore_mode: int | None = None  # restore: the mode the file had before gwconf
    # restore, with ``restore_mode``: the backup that is the file from before gwconf, whose ACL and
    # SELinux label go back with the mode (a key made gwconf drop the ACL)
    restore_access: Path | None = None
    holds_key: bool = False  # the new bytes hold the profile's key (whatever the client declares)
    record: dict[str, Any] | None = None  # restore: the ledger's record of this file
    # an edit's ops and whether the file is secret: its key records are worked out from them
    # when a write asks (a dry run shows none, and their hashes brought hashlib's OpenSSL start)
    edit: tuple[list[formats.Op], bool] | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def _keys(self) -> tuple[list[KeyRecord], list[tuple[Any, ...]]]:
        if self.edit is None:
            return [], []
        ops, secret = self.edit
        return key_records(self.before_data, self.after_data, ops, secret=secret)

    @property
    def key_records(self) -> list[KeyRecord]:
        """The managed keys the edit wrote (the write fills in their backup's name)."""
        return self._keys[0]

    @property
    def parents(self) -> list[tuple[Any, ...]]:
        """The containers the edit created."""
        return self._keys[1]

    @property
    def secret(self) -> bool:
        """Written 0600 and kept out of the ledger in clear: declared so, or holding the key now
        (Codex's config.toml gets the key when auth.json keeps a ChatGPT login)."""
        return self.file.secret or self.holds_key

    @property
    def changed(self) -> bool:
        return self.after != self.snapshot.data

    @property
    def creates(self) -> bool:
        return not self.snapshot.exists and self.after is not None

    @property
    def removes(self) -> bool:
        return self.snapshot.exists and self.after is None

    def diff(self) -> str:
        """The unified diff, made when shown (difflib is imported there: most commands show none)."""
        lines = text_diff(
            _text(self.snapshot.data),
            _text(self.after),
            "/dev/null" if not self.snapshot.exists else f"a/{self.display}",
            "/dev/null" if self.after is None else f"b/{self.display}",
        )
        out = []
        for line in lines:
            line = line.replace("\r\n", "\n")
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


_CONTEXT = 3  # difflib's default: the lines shown around each change
# what ``str.splitlines`` ends a line at besides "\n" (``text_diff`` splits the whole texts then)
_OTHER_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def text_diff(old: str, new: str, fromfile: str, tofile: str) -> list[str]:
    """``unified_diff`` of the two texts' lines (``splitlines(keepends=True)``), the same lines,
    from a window of each: from ``_CONTEXT`` lines before the line of the first difference to
    ``_CONTEXT`` lines after the last one. Outside it the two texts are the same characters from
    a line's start on, so those lines are the same in both and only shift the hunks' numbers.

    Splitting both whole texts into lines, then comparing them line by line, took a 4.7 MB
    file's diff 34 ms (3.4 ms now; issue 15); the window is found by comparing text in C. A
    text holding a line break other than "\n" (CRLF, a lone CR, U+2028, ...) is split whole:
    the lines before the window are counted by their "\n"s only. tests/test_diff_trim.py holds
    it to ``unified_diff`` on the whole texts."""
    if any(char in old or char in new for char in _OTHER_BREAKS):
        return unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile, tofile)
    limit = min(len(old), len(new))
    first = common_length(old, 0, new, 0, limit, forward=True)  # where they first differ
    if first == len(old) == len(new):
        return []
    same_end = common_length(old, len(old), new, len(new), limit - first, forward=False)
    start = old.rfind("\n", 0, first) + 1  # the line of the first difference, the same in both
    for _ in range(_CONTEXT):
        if start == 0:
            break
        start = old.rfind("\n", 0, start - 1) + 1
    # where the windows may end: where the common end starts, if a line starts there in both
    # texts, else right after the common end's first "\n" (the lines after it are the same in both)
    end_old, end_new = len(old) - same_end, len(new) - same_end
    if not (end_old == 0 or old[end_old - 1] == "\n") or not (end_new == 0 or new[end_new - 1] == "\n"):
        line = old.find("\n", end_old)
        if line < 0:  # the common end holds no line's start: the windows run to the ends
            end_old, end_new = len(old), len(new)
        else:
            end_new += line + 1 - end_old
            end_old = line + 1
    for _ in range(_CONTEXT):
        if end_old == len(old):
            break
        line = old.find("\n", end_old)
        step = (len(old) if line < 0 else line + 1) - end_old
        end_old += step
        end_new += step
    return unified_diff(
        old[start:end_old].splitlines(keepends=True),
        new[start:end_new].splitlines(keepends=True),
        fromfile,
        tofile,
        old.count("\n", 0, start),
    )


def unified_diff(old: list[str], new: list[str], fromfile: str, tofile: str, skipped: int = 0) -> list[str]:
    """``difflib.unified_diff``'s output for difflib's opcodes of the lines between the two
    texts' common start and end, those runs kept as they are (equal, their line numbers the
    whole files').

    An edit changes a few lines of a file; difflib compared all of them, and the diffs were 5% of
    ``gwconf apply --all --dry-run`` (issue 15). Only the changed middle goes to difflib: with
    the context lines given to it too, where lines repeat it could align them otherwise and make
    a longer diff than on the whole files. A property test holds the result to a valid patch
    that marks no line of the common start or end, and to difflib's own where no line repeats
    (where lines repeat neither is always the shorter: difflib takes the longest block first).
    ``skipped``: lines before ``old`` and ``new``, the same in both (``text_diff``'s window),
    counted in the hunks' line numbers."""
    import difflib

    head, tail = _common_ends(old, new)
    opcodes: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    middle = difflib.SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail])
    for op, i1, i2, j1, j2 in middle.get_opcodes():
        code = (str(op), i1 + head, i2 + head, j1 + head, j2 + head)
        if op == "equal" and opcodes and opcodes[-1][0] == "equal":  # one run, as difflib has it
            code = ("equal", opcodes[-1][1], code[2], opcodes[-1][3], code[4])
            opcodes.pop()
        opcodes.append(code)
    if tail:
        code = ("equal", len(old) - tail, len(old), len(new) - tail, len(new))
        if opcodes and opcodes[-1][0] == "equal":
            code = ("equal", opcodes[-1][1], len(old), opcodes[-1][3], len(new))
            opcodes.pop()
        opcodes.append(code)
    matcher = _Opcodes(opcodes)
    lines: list[str] = []
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        if not lines:
            lines += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old_range, new_range = (
            _range(first[1] + skipped, last[2] + skipped),
            _range(first[3] + skipped, last[4] + skipped),
        )
        lines.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in old[i1:i2]]
                continue
            lines += ["-" + line for line in old[i1:i2]]
            lines += ["+" + line for line in new[j1:j2]]
    return lines


def _common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many lines the two files share at the start, and then at the end. Each pair is
    compared in C (``map`` and ``compress``): the Python loops over the lines of each file were
    2-3M instructions of a dry run's 53 diffs."""
    import itertools
    import operator

    limit = min(len(old), len(new))
    head = next(itertools.compress(itertools.count(), map(operator.ne, old, new)), limit)
    rest = limit - head
    tail = next(
        itertools.compress(
            itertools.count(), map(operator.ne, itertools.islice(reversed(old), rest), reversed(new))
        ),
        rest,
    )
    return head, tail


class _Opcodes:
    """Given opcodes, grouped into hunks by ``difflib.SequenceMatcher.get_grouped_opcodes``."""

    def __init__(self, opcodes: list[tuple[str, int, int, int, int]]) -> None:
        self.opcodes = opcodes

    def get_opcodes(self) -> list[tuple[str, int, int, int, int]]:
        return self.opcodes

    def get_grouped_opcodes(self, n: int) -> Iterable[list[tuple[str, int, int, int, int]]]:
        import difflib

        return difflib.SequenceMatcher.get_grouped_opcodes(self, n)  # type: ignore[arg-type]


def _range(start: int, stop: int) -> str:
    """A hunk's ``start,length`` as ``difflib.unified_diff`` writes it (``_format_range_unified``)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1  # an empty range names the line before it
    return f"{beginning},{length}"


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")


@records.record
class ClientPlan:
    client: ClientAdapter
    target: Target | None = None
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    steps: list[str] | None = None  # tier 3: what to click, nothing written
    left_alone: list[str] = field(default_factory=list)  # restore: keys the user changed since
    # every file the plan was made from, changed or not: a client's files are planned together
    # (Continue's config.yaml names the key its .env holds), so all must still be what was read
    read: list[tuple[Snapshot, str]] = field(default_factory=list)

    @property
    def pending(self) -> list[FileChange]:
        return [c for c in self.changes if c.changed]


# -- reading -------------------------------------------------------------------------------------


@records.record
class Loaded:
    file: ConfigFile
    display: str
    snapshot: Snapshot
    had_bom: bool
    doc: Document
    data: Any  # plain data before any edit


def load_file(file: ConfigFile, env: Env, *, read: Any = None, windowed: bool = False) -> Loaded:
    """``read(format, text, shown)``: what makes the document of a non-empty text instead of the
    format's editor (``operations.listing_file``: the listings' cheaper reads). ``windowed``: a
    big JSON(C) file may be edited through a stand-in of the parts the edit needs
    (``formats.json_windows``); its ``Loaded.data`` is then ``MISSING`` (see ``_data_before``)."""
    shown = display(file.path, env)
    return _parsed(file, shown, read_snapshot(file.path, shown), read, windowed)


def _parsed(file: ConfigFile, shown: str, snap: Snapshot, read: Any = None, windowed: bool = False) -> Loaded:
    """``load_file`` once the snapshot is read."""
    windows = _windowed(snap.data, shown, file.format) if windowed else None
    if windows is not None:
        return Loaded(file, shown, snap, (snap.data or b"").startswith(BOM.encode()), windows, MISSING)
    text, had_bom = formats.decode(snap.data or b"", shown)
    if not text and file.format in _DEFERRED_FORMATS:
        return Loaded(file, shown, snap, had_bom, _EmptyDocument(file.format, shown), {})
    doc = (read or formats.load)(file.format, text, shown)
    # No copy: every editor hands out data it never changes afterwards (a fresh value, or a cached
    # one that an edit replaces; tests/test_plan_snapshot.py). A deep copy cost as much as parsing.
    return Loaded(file, shown, snap, had_bom, doc, doc.data())


# bytes: a JSON(C) file this big is edited through formats.json_windows (smaller ones are as fast
# whole, and their copies are small)
_WINDOWED_ABOVE = 4 << 20


def _windowed(raw: bytes | None, shown: str, fmt: str) -> Document | None:
    """``raw`` as a ``json_windows`` document when it is a JSON(C) file over ``_WINDOWED_ABOVE``
    that windows can show, else None: read it whole."""
    if raw is None or fmt not in ("json", "jsonc") or len(raw) <= _WINDOWED_ABOVE:
        return None
    from gwconf.formats import json_windows

    return json_windows.load(raw, shown, fmt)


# Formats whose empty document is loaded only on its first edit: those whose editor imports a
# library that costs tens of milliseconds (tomlkit, PyYAML), and those whose editor reads an empty
# text as {} with "\n" line endings, as ``_EmptyDocument`` answers (JSON, .env, shell rc files):
# ``clients`` and ``status`` read every client's files, most of them missing (issue 15).
_DEFERRED_FORMATS = frozenset(
    {"toml", "yaml", "json", "jsonc", "json5", "dotenv", "dotenv-npm", "shellrc", "fish", "powershell"}
)


class _EmptyDocument:
    """A missing or empty file of a deferred format: reads answer from empty data, and the editor
    (with its library) is loaded only on the first edit. ``status``, ``clients`` and ``verify``
    read every client's files, most of which do not exist; they never pay for tomlkit or PyYAML."""

    def __init__(self, fmt: str, source: str) -> None:
        self._fmt = fmt
        self.source = source
        self._doc: Document | None = None

    def _real(self) -> Document:
        if self._doc is None:
            self._doc = formats.load(self._fmt, "", self.source)
        return self._doc

    @property
    def ops(self) -> list[formats.Op]:
        return self._doc.ops if self._doc is not None else []

    @property
    def eol(self) -> str:
        return self._doc.eol if self._doc is not None else "\n"

    def data(self) -> Any:
        return self._doc.data() if self._doc is not None else {}

    def get(self, path: formats.KeyPath, default: Any = MISSING) -> Any:
        if self._doc is not None:
            return self._doc.get(path, default)
        value = get_plain({}, tuple(path))
        return default if value is MISSING else value

    def set(self, path: formats.KeyPath, value: Any) -> None:
        self._real().set(path, value)

    def delete(self, path: formats.KeyPath) -> bool:
        if self._doc is None and tuple(path):
            return False  # nothing to remove from an empty file
        return self._real().delete(path)

    def append(self, path: formats.KeyPath, value: Any) -> int:
        return self._real().append(path, value)

    def dump(self) -> str:
        return self._doc.dump() if self._doc is not None else ""

    def restoring_from(self, pristine: Any) -> None:
        """An empty file holds nothing gwconf added: its editor is not loaded for this."""

    def __getattr__(self, name: str) -> Any:  # anything else an editor offers: load it
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._real(), name)


def load_client(
    client: ClientAdapter, env: Env, files: list[ConfigFile] | None = None, *, windowed: bool = False
) -> dict[str, Loaded]:
    """``files``: the client's ``files(env)`` when the caller has them already. ``windowed``: see
    ``load_file`` (apply's plans only: they read a document through its editor alone)."""
    return {
        f.role: load_file(f, env, windowed=windowed) for f in (client.files(env) if files is None else files)
    }


def docs_of(loaded: dict[str, Loaded]) -> dict[str, Document]:
    return {role: item.doc for role, item in loaded.items()}


# -- apply ----------------------------------------------------------------------------------------


def plan_apply(client: ClientAdapter, profile: Any, env: Env, *, model: str | None = None) -> ClientPlan:
    target = client.target(profile, env)
    if model:
        from gwconf.limits import resolve

        target.model = model
        target.limits = resolve(profile, model, env)
    plan = ClientPlan(client=client, target=target, notes=list(target.notes))
    if client.tier == 3:
        plan.steps = client.steps(target, show_key=False)
        return plan
    loaded = load_client(client, env, windowed=True)
    plan.read = [(item.snapshot, item.display) for item in loaded.values()]
    plan.notes += client.render(docs_of(loaded), target, env)
    for item in loaded.values():
        change = _change_from_edit(client.id, item, target.api_key)
        if change is not None:
            plan.changes.append(change)
        plan.notes += _editor_notes(item)
    return plan


def _editor_notes(item: Loaded) -> list[str]:
    """What an editor said about its edit (the JSON editor: which of two equal keys it edited)."""
    return list(getattr(item.doc, "notes", ())) if item.doc.ops else []


def _through_gate(item: Loaded) -> tuple[str, bytes, Any, Any]:
    """The edited document through the write gate (``formats.checked_edit``): its text, the bytes
    to write, the data the text was checked to read back as, and the data it was edited from. A
    windowed document's bytes are the file's own with its edited windows in place."""
    windowed = item.data is MISSING
    if windowed:
        item.doc.settle()  # type: ignore[attr-defined]  # a json_windows.WindowedJson
    before = _data_before(item)
    text, after_data = formats.checked_edit(item.file.format, formats.Frozen(before), item.doc)
    try:
        if windowed:
            after: bytes = item.doc.whole_bytes()  # type: ignore[attr-defined]  # its BOM kept
        else:
            after = formats.encode(text, item.had_bom)
    except UnicodeEncodeError as exc:  # a name from the file system that is no UTF-8
        raise _not_utf8(item.display, exc.object, exc.start) from None
    return text, after, after_data, before


def _not_utf8(shown: str, text: str, at: int) -> WriteRefused:
    """The refusal of a write whose new text holds a name that is no UTF-8: a folder named in a
    legacy encoding (``caf\xe9``), which Python holds as a lone surrogate. No UTF-8 file can hold
    it, and the client would read another name."""
    start = max(text.rfind(c, 0, at) for c in " \t\n\"'=") + 1
    ends = [i for i in (text.find(c, at) for c in " \t\n\"',") if i >= 0]
    name = os.fsencode(text[start : min(ends) if ends else len(text)])
    return WriteRefused(
        f"{shown}: gwconf would write the name {name.decode('ascii', 'backslashreplace')}, which is not "
        "UTF-8 (a folder named in another encoding), and the file is UTF-8 text the client could not "
        "read it back from; nothing was written.",
        "Rename that folder to UTF-8 (convmv -f latin1 -t utf8 -r --notest FOLDER), then run again.",
    )


def _change_from_edit(client_id: str, item: Loaded, key: str | None = None) -> FileChange | None:
    if not item.doc.ops:
        return None
    # after_data: what the text was just checked to read back as; no third parse of the file
    text, after, after_data, before = _through_gate(item)
    if not item.snapshot.exists and not text.strip():
        return None
    holds_key = bool(key and key.encode() in after)
    return FileChange(
        client_id=client_id,
        file=item.file,
        display=item.display,
        snapshot=item.snapshot,
        after=after,
        holds_key=holds_key,
        after_data=after_data,
        before_data=before,
        edit=(list(item.doc.ops), item.file.secret or holds_key),
    )


def _data_before(item: Loaded) -> Any:
    """The data the edit was made on: a windowed document's is its stand-in's (the members its
    edits and reads reached), as the write gate and the key records need it."""
    if item.data is MISSING:
        return item.doc.loaded_data()  # type: ignore[attr-defined]  # a json_windows.WindowedJson
    return item.data


def data_at(item: Loaded, paths: list[Any]) -> Any:
    """The data of ``item`` that holds ``paths``: all of it, or for a windowed document the
    members those paths start at (with the file's first and last), reached first."""
    if item.data is not MISSING:
        return item.data
    if any(not path for path in paths):
        return item.doc.data()
    for name in {path[0] for path in paths if path and isinstance(path[0], str)}:
        item.doc.get((name,))
    return item.doc.loaded_data()  # type: ignore[attr-defined]  # a json_windows.WindowedJson


def key_records(
    before: Any, after: Any, ops: list[formats.Op], *, secret: bool = False
) -> tuple[list[KeyRecord], list[tuple[Any, ...]]]:
    """The managed key paths an edit wrote, each with its value before (for restore), and the
    containers it created to hold them.

    Ownership is recorded at the level gwconf wrote (its own entry), never at a parent that
    happened to be missing: a provider the user later adds beside gwconf's in a mapping gwconf
    created stays the user's (issue 18 item 7). Created containers are removed by restore only
    once they are empty."""
    paths: list[tuple[Any, ...]] = []
    parents: list[tuple[Any, ...]] = []
    for op in ops:
        path = op.path
        if op.kind == "append":
            old = get_plain(before, path)
            new = get_plain(after, path)
            start = len(old) if isinstance(old, list) else 0
            paths += [(*path, index) for index in range(start, len(new) if isinstance(new, list) else 0)]
            container = path  # the list itself may be new
        else:
            if op.kind == "delete" and get_plain(before, path) is MISSING:
                continue
            paths.append(path)
            container = path[:-1]
        for length in range(1, len(container) + 1):
            if get_plain(before, container[:length]) is MISSING and container[:length] not in parents:
                parents.append(container[:length])
    seen: list[tuple[Any, ...]] = []
    for path in paths:
        if any(path[: len(p)] == p for p in seen):
            continue
        seen = [p for p in seen if p[: len(path)] != path] + [path]
    records: list[KeyRecord] = []
    for path in seen:
        old = get_plain(before, path)
        new = get_plain(after, path)
        sensitive_old = is_sensitive(path, old, secret)
        records.append(
            KeyRecord(
                path=path,
                before_missing=old is MISSING,
                before_inline=None if sensitive_old or old is MISSING else old,
                before_ref=_PENDING_REF if sensitive_old else None,
                after_hash=value_hash(new),
                after_inline=None if is_sensitive(path, new, secret) or new is MISSING else new,
            )
        )
    parents = [p for p in parents if not any(p[: len(k)] == k for k in seen)]
    return records, parents


# -- restore --------------------------------------------------------------------------------------


def plan_restore(client: ClientAdapter, env: Env, ledger: Ledger) -> ClientPlan:
    """Put back what was there before gwconf (design.md section 3).

    The pristine bytes only when nothing but gwconf has written the file since that copy was
    taken and the file is still gwconf's last write. In every other case key by key: each managed
    key goes back to its value before gwconf (or is removed where gwconf added it) unless the user
    changed that very key, and every other byte stays as the user left it (issue 13)."""
    plan = ClientPlan(client=client)
    for key, record in ledger.files(client.id).items():
        settle_nested(record)  # an older gwconf's record of an entry it removed
        file = _file_for(client, env, Path(key), record)
        shown = display(file.path, env)
        snap = read_snapshot(file.path, shown)
        plan.read.append((snap, shown))
        backups = backups_for(env, client.id, Path(key), record)
        written = record.get("written_sha256")
        if not snap.exists:
            if not record.get("created"):
                plan.notes.append(f"{shown} was removed since gwconf wrote it; left removed")
            continue
        if record.get("history") == "gwconf" and written and snap.digest == written:
            pristine = backups.pristine()
            if pristine is not None:  # nothing but gwconf wrote it since the copy: the original bytes
                # (not parsed: they are gwconf's own last write, and the copy goes back whole)
                after = None if pristine is MISSING else pristine
                mode, pristine_file = backups.pristine_mode(record), _dropped_access(record, backups)
                plan.changes.append(
                    _restoring(client.id, file, shown, snap, after, mode, record, pristine_file)
                )
                continue
        item = _parsed(file, shown, snap, windowed=True)  # a big JSON(C) file: the members reached
        spelled = _PristineSpellings(item, backups)
        item.doc.restoring_from(spelled.text)
        reported: list[tuple[Any, ...]] = []  # managed keys a note already speaks of
        data = data_at(item, [key["path"] for key in record["keys"]])
        for managed in reversed(rebased_keys(record["keys"], data)):
            notes = len(plan.left_alone)
            _restore_key(item, managed, backups, plan, client.restamped, spelled)
            if len(plan.left_alone) > notes:
                reported.append(tuple(managed["path"]))
        _note_kept_parents(item, _remove_empty_parents(item, record), reported, plan)
        after_bytes: bytes | None = item.snapshot.data
        if item.doc.ops:
            after_bytes = _through_gate(item)[1]
            plan.notes += _editor_notes(item)
        if record.get("created"):
            if _only_skeleton(_text(after_bytes)):
                after_bytes = None
            else:
                plan.notes.append(
                    f"kept {item.display}: gwconf created it, but it holds content that is not gwconf's; "
                    "gwconf's keys were taken out"
                )
        restore_mode = None
        if (
            after_bytes is not None
            and record.get("mode") is not None
            and item.snapshot.mode == record["mode"]
        ):
            restore_mode = backups.pristine_mode(record)  # the mode gwconf changed (0600 for a key), put back
        if restore_mode is not None and restore_mode & 0o077 and _holds_a_key_left_alone(reported):
            # a managed key left as it is (the user's own, set by hand since): still a key, so the
            # file stays private (it went back to 0644 holding it; found by the round's sweep)
            restore_mode = None
            plan.notes.append(f"kept {item.display} private (0600): it still holds a key left as it is")
        plan.changes.append(
            _restoring(
                client.id,
                item.file,
                item.display,
                item.snapshot,
                after_bytes,
                restore_mode,
                record,
                _dropped_access(record, backups),
            )
        )
    return plan


def _holds_a_key_left_alone(reported: list[tuple[Any, ...]]) -> bool:
    """Whether a managed key a restore left as it is holds a secret (its name says so)."""
    from gwconf.secrets import is_secret_name

    return any(path and isinstance(path[-1], str) and is_secret_name(path[-1]) for path in reported)


def plan_restore_from_backups(client: ClientAdapter, env: Env, ledger_state: str = "damaged") -> ClientPlan:
    """Restore without the ledger (it is damaged, or ``ledger_state`` "missing"): from the
    copies in the backup folders.

    A file that nothing but gwconf has written since its pristine copy, and that is still
    gwconf's last write, gets that copy back; any other is left as it is and named, with where
    its bytes from before gwconf are (the ledger that knew gwconf's keys is what is missing)."""
    plan = ClientPlan(client=client)
    wheres: list[Path] = []  # for each change, its pristine copy
    folder = env.backups_dir / client.id
    stores = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    for store in (BackupStore.at(p) for p in stores):
        meta = store.meta()
        pristine = store.pristine()
        if meta is None or pristine is None:
            continue
        path = Path(meta["path"])
        file = _file_for(client, env, path, meta)
        item = load_file(file, env)
        plan.read.append((item.snapshot, item.display))
        where = store.folder / ("pristine" if pristine is not MISSING else "pristine.missing")
        if meta.get("history") == "gwconf" and item.snapshot.digest == meta.get("written_sha256"):
            after = None if pristine is MISSING else pristine
            record = {"folders": meta.get("folders", [])}
            plan.changes.append(
                _restoring(
                    client.id,
                    item.file,
                    item.display,
                    item.snapshot,
                    after,
                    store.pristine_mode(meta),
                    record,
                    None,  # meta.json does not say whether gwconf's write left an ACL out
                )
            )
            wheres.append(where)
        elif item.snapshot.exists:
            plan.left_alone.append(
                f"{item.display}: changed since gwconf wrote it, and the {ledger_state} ledger held which keys "
                f"were gwconf's; left as it is (its bytes from before gwconf: {where})"
            )
    if plan.left_alone and plan.changes:
        # never half a client: Codex's auth.json back alone would send the user's own key to the
        # gateway its config.toml still names (issue 18 item 11)
        for change, where in zip(plan.changes, wheres, strict=True):
            if not change.changed:
                continue
            plan.left_alone.append(
                f"{change.display}: left as it is too, so that {client.name} is not left half restored "
                f"(its bytes from before gwconf: {where})"
            )
        plan.changes = []
    return plan


def clients_in_backups(env: Env) -> list[str]:
    """The clients whose backup folders say gwconf wrote their files (for a damaged or missing
    ledger): a folder's ``meta.json`` lives while its file is applied, and a restore retires it."""
    root = env.backups_dir
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and any(f.is_file() for f in p.glob("*/meta.json"))
    )


def _restoring(
    client_id: str,
    file: ConfigFile,
    shown: str,
    snapshot: Snapshot,
    after: bytes | None,
    mode: int | None,
    record: dict[str, Any],
    pristine: Path | None,
) -> FileChange:
    """A restore's change of one file: ``after`` (None: remove it), back in the mode it had and,
    with it, the ACL and label of ``pristine`` (the file from before gwconf), where it has them."""
    return FileChange(
        client_id,
        file,
        shown,
        snapshot,
        after,
        restoring=True,
        restore_mode=mode,
        record=record,
        restore_access=pristine if mode is not None else None,
    )


def _dropped_access(record: dict[str, Any], backups: BackupStore) -> Path | None:
    """The backup whose ACL restore gives back: gwconf's write left it out (the file held the
    key); one that kept it and lacks it now lost it by the user's hand, which stays."""
    return backups.folder / "pristine" if record.get("secret") else None


def _only_skeleton(text: str) -> bool:
    """What is left of a file gwconf created once its keys are out: nothing, or empty brackets."""
    return not text.strip(" \t\r\n{}[]")


def _file_for(
    client: ClientAdapter,
    env: Env,
    key: Path,
    record: dict[str, Any],
    files: list[ConfigFile] | None = None,
) -> ConfigFile:
    """The client's file a ledger record names: by the path the client reads, or (older ledgers)
    by the file's resolved target. ``files``: the client's ``files(env)``, when known already."""
    if files is None:
        files = client.files(env)
    for file in files:
        if file.path == key:
            return file
    for file in files:
        if read_snapshot(file.path).target == key:
            return file
    return ConfigFile(role="recorded", path=key, format=record.get("format", "text"))


def backups_for(env: Env, client_id: str, key: Path, record: dict[str, Any] | None) -> BackupStore:
    """The backup folder of a file: as recorded, else where an older ledger (keyed by the target,
    as ``key`` then is) or a first write puts it."""
    if record and record.get("backups"):
        return BackupStore.at(Path(record["backups"]))
    return BackupStore(env, client_id, key)


def rebased_keys(keys: list[dict[str, Any]], data: Any) -> list[dict[str, Any]]:
    """Managed keys whose path runs through a list element gwconf wrote, moved to where that element
    is now: the user (or the client) may have inserted or removed entries before it since. The
    element is found again by what gwconf wrote in it, all of its keys at once, so a user's entry
    that happens to share one value (a provider type) is never taken for gwconf's."""
    moved: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    rebased = []
    for key in keys:
        path = tuple(key["path"])
        at = next((i for i, part in enumerate(path) if isinstance(part, int)), None)
        if at is None:
            rebased.append(key)
            continue
        prefix = path[: at + 1]
        if prefix not in moved:
            moved[prefix] = _element_now(keys, prefix, data)
        now = moved[prefix]
        rebased.append(key if now == prefix else {**key, "path": [*now, *path[at + 1 :]]})
    return rebased


def _element_now(keys: list[dict[str, Any]], prefix: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """Where the list element gwconf's keys under ``prefix`` recorded now is (``prefix`` itself when
    it still holds them, or when no other element holds more of them)."""
    group = [tuple(k["path"])[len(prefix) :] for k in keys if tuple(k["path"])[: len(prefix)] == prefix]
    hashes = [k["after_hash"] for k in keys if tuple(k["path"])[: len(prefix)] == prefix]
    container = get_plain(data, prefix[:-1])

    def held(element: Any) -> int:
        return sum(value_hash(get_plain(element, rest)) == h for rest, h in zip(group, hashes, strict=True))

    if not isinstance(container, list):
        return prefix
    index = prefix[-1]
    best, count = index, held(container[index]) if 0 <= index < len(container) else 0
    if count == len(group):
        return prefix
    for other, element in enumerate(container):
        found = held(element)
        if found > count:
            best, count = other, found
    return (*prefix[:-1], best)


class _PristineSpellings:
    """How the file before gwconf wrote a value, for ``put_back``, and where a key gwconf took
    out stood, for ``put_before``: its pristine copy is parsed on the first question, and only
    for an editor that keeps spellings (all but the shell block's and the plain text file's:
    gwconf wrote those values whole)."""

    def __init__(self, item: Loaded, backups: BackupStore) -> None:
        self._item = item
        self._backups = backups
        self._doc: Document | None = None
        self._windowed = False  # ``_doc`` is a big JSON(C) copy read through its windows
        self._text: Any = _UNKNOWN
        self._read = False

    def text(self) -> Any:
        """The pristine copy's text: MISSING where there was no file, None where it is not known
        (no copy, or not text)."""
        if self._text is _UNKNOWN:
            pristine = self._backups.pristine()
            self._text = pristine if pristine is None or pristine is MISSING else None
            if isinstance(pristine, bytes):
                with contextlib.suppress(GwconfError):
                    self._text = formats.decode(pristine, self._item.display)[0]
        return self._text

    def _pristine(self) -> Document | None:
        if not self._read:
            self._read = True
            if self._item.data is MISSING:  # the file is big: so, most likely, is its copy
                raw = self._backups.pristine()
                if isinstance(raw, bytes):
                    self._doc = _windowed(raw, self._item.display, self._item.file.format)
                    self._windowed = self._doc is not None
                    if self._windowed:
                        return self._doc
            text = self.text()
            if isinstance(text, str):
                try:
                    self._doc = formats.load(self._item.file.format, text, self._item.display)
                except GwconfError:
                    pass  # no spelling: the value goes back as ``set`` writes it
        return self._doc

    def __call__(self, path: tuple[Any, ...], value: Any) -> str | None:
        """The pristine copy's spelling of ``path`` when it holds exactly ``value`` there."""
        if getattr(type(self._item.doc), "spelling", no_spelling) is no_spelling:
            return None
        doc = self._pristine()
        if doc is None or value_hash(_value(doc, path, self._windowed)) != value_hash(value):
            return None
        return doc.spelling(path)

    def line(self, path: tuple[Any, ...]) -> str | None:
        """The pristine copy's whole line of ``path`` (its spacing, its comment): a key gwconf
        took out goes back as the user wrote it. Asked only where ``self(path, value)`` gave a
        spelling, which found the copy holding exactly that value there."""
        doc = self._pristine()
        return None if doc is None else doc.key_line(path)

    def comment_above(self, path: tuple[Any, ...]) -> str | None:
        """The comment line right above ``path``'s key in the pristine copy: it goes back under it."""
        doc = self._pristine()
        return None if doc is None else doc.comment_above(path)

    def following(self, path: tuple[Any, ...], now: Any) -> str | None:
        """The key that came after ``path``'s in its mapping in the pristine copy, the first of
        those the mapping holds ``now``: where a key gwconf took out goes back."""
        if not path or not isinstance(path[-1], str) or not isinstance(now, dict):
            return None
        if getattr(type(self._item.doc), "spelling", no_spelling) is no_spelling:
            return None  # (an editor that keeps no spellings places keys one way)
        doc = self._pristine()
        parent = _value(doc, path[:-1], self._windowed) if doc is not None else None
        if not isinstance(parent, dict) or path[-1] not in parent:
            return None
        keys = list(parent)
        return next((key for key in keys[keys.index(path[-1]) + 1 :] if key in now), None)


def _value(doc: Document, path: tuple[Any, ...], windowed: bool) -> Any:
    """The value at ``path`` in ``doc`` as edited so far (MISSING where there is none); from a
    windowed document's members, which ``get`` reaches, not from its whole data."""
    return doc.get(path) if windowed else get_plain(doc.data(), path)


def _restore_key(
    item: Loaded,
    key: dict[str, Any],
    backups: BackupStore,
    plan: ClientPlan,
    restamped: tuple[str, ...],
    spelled: _PristineSpellings,
) -> None:
    path = tuple(key["path"])
    windowed = item.data is MISSING
    current = _value(item.doc, path, windowed)
    shown_path = ".".join(str(p) for p in path)
    if not written_by_gwconf(key, current, restamped):
        before = _before_value(key, backups, item)
        if before is not _UNKNOWN and value_hash(current) == value_hash(before):
            return  # already as it was
        written = key.get("after_leaves")
        if written and key.get("before_missing") and isinstance(current, dict):
            _restore_inside(item, path, written, current, restamped, plan)
            return
        plan.left_alone.append(
            f"{item.display}: {shown_path} was changed since gwconf wrote it; left as it is"
        )
        return
    before = _before_value(key, backups, item)
    if before is _UNKNOWN:
        plan.left_alone.append(f"{item.display}: {shown_path}: its earlier value is no longer in the backups")
        return
    if before is MISSING:
        if current is not MISSING:
            item.doc.delete(path)
        return
    spelling = spelled(path, before)
    following = spelled.following(path, _value(item.doc, path[:-1], windowed)) if current is MISSING else None
    if following is not None:  # a key gwconf took out: back where it was, not at the end
        line = spelled.line(path) if spelling is not None else None
        item.doc.put_before(path, before, spelling, following, spelled.comment_above(path), line)
    elif spelling is None:
        item.doc.set(path, before)
    else:
        item.doc.put_back(path, before, spelling)  # the user's own quoting, not gwconf's


def _restore_inside(
    item: Loaded,
    path: tuple[Any, ...],
    written: dict[str, str],
    current: dict[str, Any],
    restamped: tuple[str, ...],
    plan: ClientPlan,
) -> None:
    """An entry gwconf created that the user has since added to or changed: gwconf's own leaves
    come out, the user's stay (and with them the entry)."""
    import json

    from gwconf.ledger import changed_leaves

    changed = set(changed_leaves(written, current, restamped))
    for leaf in sorted(written, key=lambda path: -len(json.loads(path))):
        inner = tuple(json.loads(leaf))
        value = get_plain(current, inner)
        if leaf in changed or value is MISSING:
            continue
        item.doc.delete((*path, *inner))  # still what gwconf wrote, or a field the client re-stamps
    _prune(item, path)
    where = ".".join(str(p) for p in path)
    kept = "your changes inside it" if changed else "what you added to it"
    plan.left_alone.append(f"{item.display}: {where}: gwconf's values taken out, {kept} kept")


def _is_empty_container(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_is_empty_container(v) for v in value.values())
    if isinstance(value, list):
        return all(_is_empty_container(v) for v in value)
    return False


def _prune(item: Loaded, path: tuple[Any, ...]) -> None:
    value = _value(item.doc, path, item.data is MISSING)
    if value is not MISSING and _is_empty_container(value):
        item.doc.delete(path)


def _note_kept_parents(
    item: Loaded, kept: list[tuple[Any, ...]], reported: list[tuple[Any, ...]], plan: ClientPlan
) -> None:
    """A container gwconf made that a restore leaves (``kept``: the user put something in it, an
    entry renamed) is said, the innermost one, unless a note speaks of a key in it or around it
    (``reported``) already: the provider block left in opencode.json was silent."""
    for parent in kept:
        if any(path[: len(parent)] == parent[: len(path)] for path in reported):
            continue
        where = ".".join(str(p) for p in parent)
        plan.left_alone.append(
            f"{item.display}: {where}: gwconf's values taken out, what you added to it kept"
        )
        reported.append(parent)


def _remove_empty_parents(item: Loaded, record: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Containers gwconf created to hold its keys go once nothing is left in them. Returns those
    that stay (something else is in them), the innermost first."""
    parents = sorted((tuple(p) for p in record.get("parents", [])), key=len, reverse=True)
    for parent in parents:
        _prune(item, parent)
    return [p for p in parents if _value(item.doc, p, item.data is MISSING) is not MISSING]


_UNKNOWN = object()


def _before_value(key: dict[str, Any], backups: BackupStore, item: Loaded) -> Any:
    if key.get("before_missing"):
        return MISSING
    if "before" in key:
        return key["before"]
    ref = key.get("before_ref")
    data = backups.read(ref) if ref else None
    if data is None:
        return _UNKNOWN
    text, _ = formats.decode(data, item.display)
    try:
        return get_plain(formats.load(item.file.format, text, item.display).data(), tuple(key["path"]))
    except GwconfError:
        return _UNKNOWN


# -- backups --------------------------------------------------------------------------------------


class BackupStore:
    """``<state>/backups/<client>/<file>-<hash>/``: ``pristine`` (or ``pristine.missing``), the
    timestamped ``*.bak`` copies, ``meta.json`` and the ``written-<history>-<sha256>`` name of
    gwconf's last write (``write_meta``)."""

    def __init__(self, env: Env, client_id: str, target: Path) -> None:
        digest = str(sha256(os.fsencode(target)))[:10]  # a name's bytes, as the file system holds them
        self._open(env.backups_dir / client_id / f"{target.name.lstrip('.') or 'file'}-{digest}")

    @classmethod
    def at(cls, folder: Path) -> BackupStore:
        store = cls.__new__(cls)
        store._open(folder)
        return store

    def _open(self, folder: Path) -> None:
        self.folder = folder
        self.linked: list[Path] = []  # copies that are the live file's second name until it is replaced
        self._read_meta: Any = _UNREAD

    def pristine(self) -> Any:
        """The bytes before gwconf first touched the file, MISSING if it did not exist, None if unknown."""
        if (self.folder / "pristine.missing").exists():
            return MISSING
        path = self.folder / "pristine"
        return read_plain(path) if path.exists() else None

    def take_pristine(self, snapshot: Snapshot, *, owned: bool = True) -> bool:
        """The bytes before gwconf's first write; True when this call copied them. ``owned`` False
        (the ledger does not record the file): a copy found here is from a run that never committed
        (killed, or a client wrote meanwhile) and may be older than the file; it is kept aside and a
        fresh one taken.

        The file's mode goes with the write's record (``pristine_mode``: the ledger's commit, then
        ``meta.json``), not into a file of its own: a copy whose run never committed is retaken,
        mode and all, so it needs none. A file written and fsynced for each first copy was a fifth
        of the files ``apply --all`` created (issue 15)."""
        if self.pristine() is not None:
            if owned:
                return False
            self.retire_pristine()
        if snapshot.data is None:
            write_private(self.folder / "pristine.missing", b"")
            return False
        self._keep(snapshot, "pristine")
        return True

    def _keep(self, snapshot: Snapshot, name: str) -> None:
        """``snapshot``'s bytes as ``name``: a second name for the file this write replaces where
        it can be (``fileio.keep_by_link``), else a copy."""
        path = self.folder / name
        if keep_by_link(snapshot, path):
            self.linked.append(path)
        else:
            write_private(path, snapshot.data or b"")

    def pristine_mode(self, record: dict[str, Any] | None) -> int | None:
        """The file's mode before gwconf first wrote it (gwconf makes files that hold a key 0600):
        from ``record`` (the ledger's record of the file, or its folder's ``meta.json``), else from
        the ``pristine.mode`` file that earlier gwconf wrote beside the copy."""
        mode = record.get("pristine_mode") if record is not None else None
        if type(mode) is int:
            return mode
        try:
            return int((self.folder / "pristine.mode").read_text().strip(), 8)
        except (OSError, ValueError):
            return None

    def write_meta(self, meta: dict[str, Any], listing: list[str] | None = None) -> None:
        """What this folder's copies belong to (client, the path the client reads, gwconf's last
        write), so restore can still find and judge them when the ledger is damaged.

        ``meta.json`` is written whole when the folder has none or its lasting part changes
        (client, path, format, the folders gwconf made, the mode from before gwconf): at the
        write that takes the pristine copy. After that only gwconf's last write changes (its hash,
        and whether anything else wrote the file before it), and it goes into a name beside it
        (``written-<history>-<sha256>``), renamed at each write. ``gwconf use`` wrote and fsynced
        a meta.json a file (issue 15).

        The name is not synced: lost in a crash, it leaves the name before it (or none), which
        never matches the file gwconf has replaced since. A restore over a damaged ledger then
        leaves that file as it is, never the other way round; meta.json itself is synced.
        ``listing``: the folder's names, when the caller has just read them (``listing()``)."""
        old = self._meta_json()
        names = self._written_names(listing)
        wanted = _written_name(meta)
        if wanted is None or not isinstance(old, dict) or _lasting(old) != _lasting(meta):
            self._write_whole_meta(meta, names)
            return
        if not names and _written_name(old) == wanted:
            return  # meta.json says it already
        stale = [name for name in names if name != wanted]
        if wanted not in names:
            if stale:
                os.replace(self.folder / stale.pop(), self.folder / wanted)
            else:  # a second name for meta.json (only names are read): no file to make
                try:
                    os.link(self.folder / "meta.json", self.folder / wanted)
                except OSError:  # no hard links here
                    os.close(os.open(self.folder / wanted, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        for name in stale:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.folder / name)

    def write_meta_first(self, meta: dict[str, Any]) -> bool:
        """``write_meta`` where it writes ``meta.json`` whole (a folder without one, or a lasting
        part changed): True when it did. Called for the write being made, with the folder's
        copies and before the commit, so the folder is synced once for both; the names of
        gwconf's later writes stay after the commit (``write_meta``).

        Until the commit it describes a write that may not land. A run killed before it is
        undone, and its pristine copy, not owned by the ledger, is retaken with this file at the
        next write (``take_pristine``); a restore over a damaged ledger reads a last write the
        file does not hold, and leaves the file as it is."""
        old = self._meta_json()
        if _written_name(meta) is not None and isinstance(old, dict) and _lasting(old) == _lasting(meta):
            return False
        self._write_whole_meta(meta, self._written_names())
        return True

    def _write_whole_meta(self, meta: dict[str, Any], names: list[str]) -> None:
        import json

        for name in names:  # first: a name left beside the new meta.json would overrule it
            remove_file(self.folder / name)
        self._read_meta = _UNREAD
        write_private(self.folder / "meta.json", json.dumps(meta, indent=1).encode())

    def _meta_json(self) -> Any:
        """``meta.json`` as it reads, None when it is missing or not JSON. Read once for the
        store's life (one command's write, under the lock) until this store writes or retires
        it: ``use`` read and parsed each folder's twice, before the commit and after."""
        if self._read_meta is _UNREAD:
            import json

            try:
                self._read_meta = json.loads((self.folder / "meta.json").read_bytes())
            except (OSError, ValueError, RecursionError):
                self._read_meta = None
        return self._read_meta

    def listing(self) -> list[str]:
        """The folder's names ([] when it cannot be read): read once for the clean-up after a
        commit, where rotating the copies and naming gwconf's last write each listed the folder
        (100 listings in ``gwconf use``; issue 15)."""
        try:
            return os.listdir(self.folder)
        except OSError:
            return []

    def _written_names(self, listing: list[str] | None = None) -> list[str]:
        return [
            name for name in (self.listing() if listing is None else listing) if name.startswith(_WRITTEN)
        ]

    def meta(self) -> dict[str, Any] | None:
        """``meta.json``, with gwconf's last write read from the name beside it when there is one
        (``write_meta`` keeps one at most); two or more tell nothing, and restore then leaves
        the file as it is."""
        data = self._meta_json()
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            return None
        data = dict(data)  # (the read is kept: its fields are not changed there)
        names = self._written_names()
        if names:
            for field in _WRITTEN_FIELDS:
                data.pop(field, None)
        parts = names[0].split("-", 2) if len(names) == 1 else []
        if len(parts) == 3:
            data["history"], data["written_sha256"] = parts[1], parts[2]
        return data

    def retire_pristine(self) -> None:
        """After a full restore the next apply takes a fresh pristine copy; the old one is kept aside,
        with the last ``BACKUPS_KEPT`` kept before it (the copies of originals that restores gave
        back, or of runs that never committed). Kept without end they grew by a set a file at
        every restore, and every writing command's sweep for stray temp files walks this folder:
        200 apply-and-restore cycles made ``apply --all`` 61% longer (31,000 files)."""
        stamp = _stamp()
        self._read_meta = _UNREAD
        for name in ("pristine", "pristine.missing", "pristine.mode", "meta.json"):
            path = self.folder / name
            if path.exists():
                os.replace(path, self.folder / f"{stamp}-{name}.old")
        for name in self._written_names():  # the write it named is undone
            remove_file(self.folder / name)
        retired = sorted(named_like(self.folder, suffix=".old"))
        stamps = sorted({path.name.partition("-")[0] for path in retired})
        gone = set(stamps[:-BACKUPS_KEPT])
        for path in retired:
            if path.name.partition("-")[0] in gone:
                path.unlink(missing_ok=True)

    def take(self, snapshot: Snapshot, *, same_as_pristine: bool = False) -> str | None:
        """A timestamped copy of the file's bytes now. ``same_as_pristine``: the pristine copy was
        just taken of these very bytes, so the copy is a second name for it (a hard link: no second
        write and fsync for each file of a first apply; issue 15). Backups are never written in
        place, only replaced or removed, so the two names cannot come to differ."""
        if snapshot.data is None:
            return None
        name = f"{_stamp()}.bak"
        if same_as_pristine:
            try:
                os.link(self.folder / "pristine", self.folder / name)
            except OSError:  # no hard links here (some network and FAT file systems): a copy
                pass
            else:
                fsync_dir(self.folder)  # the new name, with the folder's other changes at the barrier
                return name
        self._keep(snapshot, name)
        return name

    def read(self, name: str) -> bytes | None:
        path = self.folder / name
        return path.read_bytes() if path.is_file() else None

    def rotate(self, keep_refs: set[str], listing: list[str] | None = None) -> None:
        """The timestamped copies beyond the last ``BACKUPS_KEPT``, removed (but those the ledger's
        keys still refer to); ``listing`` as for ``write_meta``. Removes no other name."""
        names = self.listing() if listing is None else listing
        stamped = sorted(name for name in names if name.endswith(".bak") and name not in keep_refs)
        for old in stamped[:-BACKUPS_KEPT]:
            (self.folder / old).unlink(missing_ok=True)


_UNREAD = object()  # a BackupStore's meta.json not read yet
_WRITTEN = "written-"  # + history + "-" + the hash of gwconf's last write (``BackupStore.write_meta``)
_WRITTEN_FIELDS = ("history", "written_sha256")
_HEX = frozenset("0123456789abcdef")


def _written_name(meta: dict[str, Any]) -> str | None:
    """The name ``BackupStore.write_meta`` gives gwconf's last write in ``meta``, if it has one."""
    history, digest = meta.get("history"), meta.get("written_sha256")
    if (
        history in ("gwconf", "shared")
        and type(digest) is str
        and len(digest) == 64
        and _HEX.issuperset(digest)
    ):
        return f"{_WRITTEN}{history}-{digest}"
    return None


def _lasting(meta: dict[str, Any]) -> dict[str, Any]:
    """A backup folder's meta without gwconf's last write: what stays from the pristine copy on."""
    return {k: v for k, v in meta.items() if k not in _WRITTEN_FIELDS}


def _stamp() -> str:
    now = time.time()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{int(now * 1e6) % 1_000_000:06d}Z"


# -- execute --------------------------------------------------------------------------------------


def execute(
    plans: list[ClientPlan],
    env: Env,
    ledger: Ledger | None = None,
    *,
    profile: str | None = None,
    sweep: bool = True,
    failed: dict[str, GwconfError] | None = None,
) -> list[str]:
    """Write every pending change of ``plans`` as one transaction: one journal, one commit.

    All files of one client land together or not at all, and so do all clients of one call: a run
    killed half-way is undone (or finished) as a whole by the next run's ``repair``. A client
    that is refused (a file changed since it was read, a folder not writable) is left out with its
    files as they were, and the others are written. ``failed``: where a command writing many
    clients collects those refusals; without it the first one is raised once the others are
    committed. Returns notes for the user (a damaged ledger this write set aside).

    ``ledger``: the one a command passes to each call, refreshed here under the lock and left
    holding what this write committed. ``sweep=False``: this command has swept the state folder
    for stray temp files already (its first write did); see ``repair``.

    One transaction for many clients, not one each: each client's journal and ledger save was a
    third of ``gwconf use`` over 36 clients (issue 15)."""
    refused: dict[str, GwconfError] = {}
    with exclusive_lock(env.state_dir / "gwconf.lock"):
        repair(env, sweep=sweep)
        # re-read under the lock: another gwconf (or repair) may have written it meanwhile
        if ledger is None:
            ledger = Ledger(env)
        else:
            ledger.refresh()
        if ledger.damaged and any(not c.restoring for plan in plans for c in plan.pending):
            refuse_over_a_damaged_ledger(env, ledger.damaged)
        _write_clients([plan for plan in plans if plan.pending], env, ledger, profile, refused)
    if failed is not None:
        failed.update(refused)
    elif refused:
        raise next(iter(refused.values()))
    if ledger.set_aside_as is not None:
        return [f"the damaged ledger was set aside as {ledger.set_aside_as}; gwconf starts a new one"]
    return []


def refuse_over_a_damaged_ledger(env: Env, damaged: str) -> None:
    """Without the ledger gwconf cannot tell its own values from the user's in a file it wrote
    before: an apply would record gwconf's address and key as the user's "before", and restore
    would put them back. So while any client is in the backups, apply and use write nothing, not
    even a client never written: its save would set the damaged ledger aside, and with it the only
    sign that the others need a restore from the backups first. With no client in the backups
    nothing can be mistaken, and the write goes ahead (its save sets the damaged file aside)."""
    written = clients_in_backups(env)
    if written:
        raise WriteRefused(
            f"{damaged}, and gwconf wrote {', '.join(written)} before: without the ledger it cannot tell "
            "its own values from yours (a later restore would put the gateway's back), so it writes no "
            "client until those are restored; nothing was changed.",
            "Run `gwconf restore --all` first (it restores from the backups what it can, then sets the "
            f"damaged ledger aside), or `gwconf restore {' '.join(written)}`; or move the damaged file "
            "aside yourself (restore then cannot undo gwconf's earlier writes).",
        )


@records.record
class _Prepared:
    """One pending change with what its write needs: where its backups go, the backup just
    taken, and the folders the write will create."""

    change: FileChange
    backups: BackupStore
    backup_name: str | None
    folders: list[str]
    pristine_mode: int | None  # the file's mode, when this write took its pristine copy


def _write_clients(
    plans: list[ClientPlan], env: Env, ledger: Ledger, profile: str | None, refused: dict[str, GwconfError]
) -> None:
    """Check, back up, journal, replace, commit (the ledger's save), clean up."""
    ready = []
    for plan in plans:
        try:
            _check(plan)
        except GwconfError as exc:
            refused[plan.client.id] = exc
        else:
            ready.append(plan)
    if not ready:
        return

    journal = env.state_dir / "journal.json"
    with deferred_dir_syncs():  # the barrier: backups and journal on disk before any file is replaced
        prepared = {
            plan.client.id: [_prepare(change, env, ledger) for change in plan.pending] for plan in ready
        }
        copies = _pending_copies(ready, prepared, env)
        staged = _staged_ledger(ledger, ready, prepared, profile)
        metas = _first_metas(ready, prepared, staged)
        write_private(journal, _journal(ready, prepared, copies, staged))
    done = []
    try:
        # the second barrier: every rename durable before the commit, each folder fsynced once
        # (a client's two files in one folder, or two clients', took one fsync each)
        with deferred_dir_syncs():
            for plan in ready:
                try:
                    _replace_all(prepared[plan.client.id])
                except GwconfError as exc:  # this client's files are back as they were
                    refused[plan.client.id] = exc
                else:
                    done.append(plan)
            if done and len(done) < len(ready):
                # the journal names only what lands: its staged ledger is what decides, after a
                # kill, whether this run was committed (a refused client's files are as they were)
                staged = _staged_ledger(ledger, done, prepared, profile)
                write_private(journal, _journal(done, prepared, copies, staged))
    except BaseException:  # interrupted: every client replaced so far is put back as it was
        for plan in reversed(done):
            _put_back_all([item.change for item in prepared[plan.client.id]])
        _remove_journal(journal, copies)
        raise
    if not done:
        _remove_journal(journal, copies)
        return
    ledger.data = staged.data
    if not (ledger.damaged and all(change.restoring for plan in done for change in plan.pending)):
        ledger.save()  # the commit point: from here on, repair() finishes the run instead of undoing it
    # else a restore from the backups: the damaged ledger stays
    # until no client needs it (``operations.settle_damaged_ledger``). Repair reads a damaged
    # ledger as empty, which is what this restore staged: once every file is replaced, the run is
    # committed; killed before, it is undone (the pristine copies stay for the next restore)
    with deferred_dir_syncs():
        for plan in done:
            _after_commit(prepared[plan.client.id], ledger, metas)
        _remove_journal(journal, copies)


def _check(plan: ClientPlan) -> None:
    """Refuse, before anything is written, a client whose files changed since they were read or
    cannot be written."""
    checked = []
    for snapshot, shown in plan.read:  # the files left as they are too: the plan rests on them
        check_unchanged(snapshot, shown)
        checked.append(snapshot)
    for change in plan.pending:
        if not any(change.snapshot is snapshot for snapshot in checked):  # (read once, not twice)
            check_unchanged(change.snapshot, change.display)
        check_writable(change.snapshot.target, change.display, change.snapshot.path, plan.client.id)


def _remove_journal(journal: Path, copies: dict[int, str]) -> None:
    """The journal, then the copies of new bytes it names (not a glob of the folder: issue 15)."""
    remove_file(journal)
    for copy in copies.values():
        with contextlib.suppress(OSError):
            os.unlink(copy)


def change_backups(change: FileChange, env: Env, ledger: Ledger) -> tuple[BackupStore, dict[str, Any] | None]:
    """The backup folder of the file ``change`` writes, and the ledger's record of it (None for a
    file gwconf has not written)."""
    found = ledger.record_of(change.client_id, change.snapshot.path, change.snapshot.target)
    key, record = found if found is not None else (str(change.snapshot.path), None)
    return backups_for(env, change.client_id, Path(key), record), record


def _prepare(change: FileChange, env: Env, ledger: Ledger) -> _Prepared:
    backups, record = change_backups(change, env, ledger)
    fresh = False
    if not change.restoring:
        # a file the user removed since gwconf wrote it starts a new history: its copy is retaken
        fresh = backups.take_pristine(change.snapshot, owned=record is not None and change.snapshot.exists)
    pristine_mode = (change.snapshot.mode or 0o644) if fresh else None
    name = backups.take(change.snapshot, same_as_pristine=fresh)
    for managed in change.key_records:
        if managed.before_ref == _PENDING_REF:
            managed.before_ref = name
    folders: list[str] = []
    folder = change.snapshot.target.parent
    while not folder.exists() and folder.parent != folder:
        folders.append(str(folder))  # deepest first: the order restore removes them in
        folder = folder.parent
    return _Prepared(change, backups, name, folders, pristine_mode)


def _rebase_record(ledger: Ledger, change: FileChange) -> None:
    """Before a write is merged into the file's record: the record's keys inside list elements,
    moved to where those elements are in the bytes this write replaces (``rebased_keys``), so the
    merge keeps each key's value from before gwconf instead of taking gwconf's own as the user's."""
    found = ledger.record_of(change.client_id, change.snapshot.path, change.snapshot.target)
    if found is None or change.snapshot.data is None:
        return
    keys = found[1].get("keys", [])
    if not any(isinstance(part, int) for key in keys for part in key["path"]):
        return
    data = change.before_data  # parsed by the plan already: a big file is not read a third time
    # a big JSON file's plan read only the members it edits (formats.json_windows): a key under
    # another member is looked for in the whole file
    wanted = {key["path"][0] for key in keys if key["path"] and isinstance(key["path"][0], str)}
    if isinstance(data, dict) and not wanted <= data.keys():
        data = MISSING
    if data is MISSING:
        try:
            data = formats.load(change.file.format, _text(change.snapshot.data), change.display).data()
        except GwconfError:
            return
    found[1]["keys"] = rebased_keys(keys, data)


def _staged_ledger(
    ledger: Ledger, plans: list[ClientPlan], prepared: dict[str, list[_Prepared]], profile: str | None
) -> Ledger:
    """The ledger as it will be once these clients' files are written (kept in the journal, so a
    run killed half-way can be finished instead of leaving a client half written)."""
    touched = {plan.client.id for plan in plans}
    touched.update(item.change.client_id for plan in plans for item in prepared[plan.client.id])
    staged = ledger.copy(only=touched)
    for plan in plans:
        items = prepared[plan.client.id]
        for item in items:
            change = item.change
            if change.restoring:
                found = staged.record_of(change.client_id, change.snapshot.path, change.snapshot.target)
                if found is not None:
                    staged.forget(change.client_id, found[0])
                continue
            _rebase_record(staged, change)
            staged.record_apply(
                change.client_id,
                profile or (plan.target.profile_name if plan.target else "?"),
                FileWrite(
                    path=change.snapshot.path,
                    target=change.snapshot.target,
                    display=change.display,
                    fmt=change.file.format,
                    created=change.creates,
                    before_sha256=change.snapshot.digest,
                    written_sha256=sha256(change.after),
                    keys=change.key_records,
                    parents=change.parents,
                    folders=item.folders,
                    after_data=change.after_data,
                    secret=change.secret,
                    mode=_mode_after(change),
                    backups=str(item.backups.folder),
                    pristine_mode=item.pristine_mode,
                ),
            )
        if all(item.change.restoring for item in items):
            staged.forget(plan.client.id)
    return staged


def mode_written(change: FileChange) -> int | None:
    """The mode the write of ``change`` gives its file: the one from before gwconf that a restore
    puts back, else the one ``atomic_write`` works out."""
    return change.restore_mode if change.restore_mode is not None else _mode_after(change)


def _mode_after(change: FileChange) -> int | None:
    """The mode atomic_write leaves (as it computes it), so restore can tell whether it changed since."""
    if change.after is None:
        return None
    if change.snapshot.mode is None:
        if change.secret:
            return 0o600
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
    return (change.snapshot.mode & 0o600) if change.secret else change.snapshot.mode


# new bytes up to this size go inside the journal, bigger ones into a copy file of their own
_IN_JOURNAL = 256 * 1024


def _pending_copies(
    plans: list[ClientPlan], prepared: dict[str, list[_Prepared]], env: Env
) -> dict[int, str]:
    """The new bytes of every big file, by ``id`` of its change, so repair can finish the run if
    it must. A small file's go inside the journal instead (``_journal``): a copy file each, with
    its fsync, was a tenth of the durable write of ``gwconf use`` (issue 15)."""
    copies: dict[int, str] = {}
    for plan in plans:
        for item in prepared[plan.client.id]:
            if item.change.after is not None and len(item.change.after) > _IN_JOURNAL:
                copy = env.state_dir / f"{PENDING_COPY}{len(copies)}"
                write_private(copy, item.change.after)
                copies[id(item.change)] = str(copy)
    return copies


def _journal(
    plans: list[ClientPlan], prepared: dict[str, list[_Prepared]], copies: dict[int, str], staged: Ledger
) -> bytes:
    """The journal: one line of JSON (what ``repair`` needs, the staged ledger with it), then the
    new bytes of the files it holds one after another, each entry's ``new_at`` saying where its
    own start and how many there are (a big file's are in a copy of their own, ``new_copy``).

    The bytes went inside the JSON as text until the seventeenth round: escaping 340 KB of it
    was 18M of ``gwconf use``'s 873M instructions (issue 15). ``repair`` still reads a journal
    of that form: with no line break, all of it is the JSON line."""
    import json

    entries = []
    held: list[bytes] = []
    at = 0
    for plan in plans:
        for item in prepared[plan.client.id]:
            change = item.change
            new_at = None
            if change.after is not None and id(change) not in copies:
                new_at = [at, len(change.after)]
                held.append(change.after)
                at += len(change.after)
            entries.append(
                {
                    "client": plan.client.id,
                    "target": str(change.snapshot.target),
                    "backup": str(item.backups.folder / item.backup_name) if item.backup_name else None,
                    "new_sha256": sha256(change.after),
                    "old_sha256": change.snapshot.digest,
                    "new_copy": copies.get(id(change)),
                    "new_at": new_at,
                    "mode": change.snapshot.mode,
                    "new_mode": mode_written(change),
                    "secret": change.secret,
                    "restoring": change.restoring,
                    "backups": str(item.backups.folder),
                }
            )
    head = {"clients": [plan.client.id for plan in plans], "files": entries, "ledger": staged.data}
    return b"".join((json.dumps(head).encode(), b"\n", *held))


def _replace_all(prepared: list[_Prepared]) -> None:
    """Replace every file of one client; on any failure put back those already replaced."""
    done: list[FileChange] = []
    change = prepared[0].change
    try:
        for item in prepared:
            change = item.change
            if change.after is None:
                # compare-and-swap at the last moment: a client may have written meanwhile
                check_unchanged(change.snapshot, change.display)
                remove_file(change.snapshot.target)
                if change.snapshot.path != change.snapshot.target and change.snapshot.path.is_symlink():
                    # the user adopted the file gwconf created into a dotfiles folder: the link
                    # would dangle, and the client's path is as before gwconf only without it
                    change.snapshot.path.unlink()
            elif change.restore_mode is not None:  # the file's own mode from before gwconf, put back
                atomic_write(
                    change.snapshot.target,
                    change.after,
                    mode=change.restore_mode,
                    secret=False,
                    expect=change.snapshot,
                    shown=change.display,
                    access_from=change.restore_access,
                )
            else:
                atomic_write(
                    change.snapshot.target,
                    change.after,
                    mode=change.snapshot.mode,
                    secret=change.secret,
                    expect=change.snapshot,
                    shown=change.display,
                )
            done.append(change)
    except BaseException as exc:
        _put_back_all(done)
        if isinstance(exc, OSError):
            what, hint = write_failure(exc, change.snapshot.target, change.display, change.client_id)
            raise WriteRefused(f"{what}; nothing was changed.", hint) from None
        raise


def _put_back_all(changes: list[FileChange]) -> None:
    """Replaced files as they were, the last replaced first."""
    for change in reversed(changes):
        _put_back(change.snapshot.target, change.snapshot.data, change.snapshot.mode, change.secret)


def _first_metas(plans: list[ClientPlan], prepared: dict[str, list[_Prepared]], staged: Ledger) -> set[int]:
    """The ``meta.json`` each backup folder needs whole (``BackupStore.write_meta_first``), written
    from the staged ledger with the folder's copies: then the folder is synced once, at the
    barrier, not again after the commit (a folder each file of a first ``apply --all``: 53 of
    its 353 fsyncs, issue 15). Returns the ``id`` of each change whose meta was written."""
    written = set()
    for plan in plans:
        for item in prepared[plan.client.id]:
            change = item.change
            if change.restoring:
                continue
            found = staged.record_of(change.client_id, change.snapshot.path, change.snapshot.target)
            if found is not None and item.backups.write_meta_first(_meta(change.client_id, *found)):
                written.add(id(change))
    return written


def _after_commit(prepared: list[_Prepared], ledger: Ledger, metas: set[int] | None = None) -> None:
    """Clean-up that a crash may skip (repair redoes it): retire the pristine copy of a restored
    file, rotate the backups, and name
    gwconf's last write beside ``meta.json`` (``metas``: the changes whose ``meta.json`` the
    write wrote whole before its commit, already saying so)."""
    for item in prepared:
        change = item.change
        make_private(item.backups.linked)  # the file they were a second name of is replaced now
        if change.restoring:  # after the commit: a crash before it must find the pristine copy still there
            item.backups.retire_pristine()
        found = ledger.record_of(change.client_id, change.snapshot.path, change.snapshot.target)
        refs = {k.get("before_ref") for k in (found[1].get("keys", []) if found else [])}
        listing = item.backups.listing()  # (rotate removes only copies: write_meta reads other names)
        item.backups.rotate({r for r in refs if r}, listing)
        if found is not None and not change.restoring and (metas is None or id(change) not in metas):
            item.backups.write_meta(_meta(change.client_id, *found), listing)


def _meta(client_id: str, key: str, record: dict[str, Any]) -> dict[str, Any]:
    """A backup folder's ``meta.json``: enough of the ledger's record to restore without it."""
    return {
        "client": client_id,
        "path": key,
        "format": record.get("format"),
        "created": record.get("created"),
        "history": record.get("history"),
        "written_sha256": record.get("written_sha256"),
        "folders": record.get("folders", []),
        "pristine_mode": record.get("pristine_mode"),
    }


def _rewrite_metas(ledger: Ledger, entries: list[dict[str, Any]]) -> None:
    """The meta.json of a committed or finished run's backup folders: the killed run's clean-up
    after its commit may not have written them, and a damaged ledger's restore needs them."""
    folders = {e["backups"] for e in entries if isinstance(e.get("backups"), str) and not e.get("restoring")}
    for client_id in dict.fromkeys(entry["client"] for entry in entries):
        for key, record in ledger.files(client_id).items():
            if isinstance(record, dict) and record.get("backups") in folders:
                BackupStore.at(Path(record["backups"])).write_meta(_meta(client_id, key, record))


def remove_created_folders(folders: list[str]) -> None:
    """Once a restore is written: the folders gwconf created for the files it removed, the
    deepest first, each removed if it is empty. Once for the whole restore, not as each client's
    files go: a folder two clients' files shared (``~/.config``, recorded by the first clients an
    apply wrote, not by those written after it existed) is emptied only by the last of them,
    which may not have recorded it, and an empty ``~/.config`` was left behind."""
    for folder in sorted(set(folders), key=lambda name: (-len(Path(name).parts), name)):
        with contextlib.suppress(OSError):
            os.rmdir(folder)  # fails unless empty: what another program put there stays


def _remove_pending_copies(state_dir: Path) -> None:
    for copy in named_like(state_dir, PENDING_COPY):
        with contextlib.suppress(OSError):
            copy.unlink()


def _put_back(target: Path, data: bytes | None, mode: int | None, secret: bool) -> None:
    """The file as it was: its old bytes with their old mode (``secret`` only when the mode is unknown)."""
    if data is None:
        remove_file(target)
    else:
        atomic_write(target, data, mode=mode, secret=secret and mode is None)


def repair(env: Env, *, sweep: bool = True) -> list[str]:
    """Finish or undo a change a killed gwconf left half-done; returns what was done (call under the lock).

    The ledger's save is a run's commit point. Committed (the ledger is what the run staged): only
    the clean-up after the commit is redone. Not committed: every file the run replaced gets its
    old bytes back. But when another program changed one of them since gwconf wrote it, that file
    cannot go back, and a client must never be left half written (Codex's config.toml pointing at
    the gateway beside an auth.json holding the user's old key, issue 18 item 11): the run is
    finished instead, every file written and the ledger committed, so one restore undoes it all.
    A killed restore is always undone (the ledger still has every file: the next restore redoes it).
    Temp files of the killed run are removed either way.

    ``sweep=False`` skips the walk over the state folder for stray temp files unless a killed
    run's journal is found: a command writing many clients sweeps once, with its first client,
    not once per client (the walk grows with the backups kept; issue 15).
    """
    journal = env.state_dir / "journal.json"
    snap = read_snapshot(journal)
    if sweep or snap.data is not None:
        for folder, recursive in ((env.state_dir, True), (env.config_dir, False), (env.profiles_dir, False)):
            _remove_temp_files(folder, "", TEMP_SUFFIX, recursive=recursive)
    if snap.data is None:
        if sweep:  # copies a run killed after removing its journal left (the first client's sweep)
            _remove_pending_copies(env.state_dir)
        return []
    import json

    line, _, held = snap.data.partition(b"\n")  # the JSON line, then the new bytes (``_journal``)
    try:
        loaded = json.loads(line)
        entries = loaded["files"]
    except (ValueError, KeyError, TypeError, RecursionError):
        entries = None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("target"), str)
        and isinstance(e.get("backup") or "", str)
        and isinstance(e.get("new_sha256") or "", str)
        and isinstance(e.get("old_sha256") or "", str)
        and isinstance(e.get("new_copy") or "", str)
        and isinstance(e.get("new_text") or "", str)
        and _held_bytes(e, held)
        for e in entries
    ):
        remove_file(journal)
        _remove_pending_copies(env.state_dir)
        return ["removed a damaged journal"]
    for entry in entries:  # (a journal of one client, from before a run wrote many, names it once)
        entry["client"] = str(entry.get("client", loaded.get("client")))
    for entry in entries:
        target = Path(entry["target"])
        _remove_temp_files(target.parent, f".{target.name}.", TEMP_SUFFIX)
    staged = loaded.get("ledger")
    ledger = Ledger(env)
    restoring = all(e.get("restoring") for e in entries)
    if _committed(ledger, entries, staged) or (
        restoring
        and not ledger.damaged  # (a restore from the backups commits nothing there: see _write_client)
        and isinstance(staged, dict)
        and _without_version(ledger.data) == _without_version(staged)
    ):  # (a restore whose ledger was committed stays done, whatever a client wrote since)
        for entry in entries:
            if entry.get("restoring") and entry.get("backups"):
                BackupStore.at(Path(entry["backups"])).retire_pristine()
        _rewrite_metas(ledger, entries)
        _private_backups(entries)
        notes: list[str] = []
    elif isinstance(staged, dict) and not restoring and _changed_since(entries) and _can_finish(entries):
        # a killed restore is never finished around a file another program wrote: that file may
        # still be gwconf's (not yet restored), and finishing would put the others back and forget
        # the client, leaving Codex on the gateway with the user's own key. Undone instead, the
        # ledger still knows every file, and the restore that follows undoes them key by key.
        notes = _finish(entries, ledger, staged)
        _rewrite_metas(ledger, entries)
    else:
        notes = _undo(entries)
    remove_file(journal)
    _remove_pending_copies(env.state_dir)
    return notes


def _private_backups(entries: list[dict[str, Any]]) -> None:
    """A committed run's backups 0600, as its clean-up after the commit makes them: a backup kept
    as a second name of the file it replaced (``fileio.keep_by_link``) has the file's own mode
    until then. One that is still a name of the file as it is now is left alone (setting its
    mode would set the file's)."""
    for entry in entries:
        try:
            now = os.stat(entry["target"])
            live = (now.st_ino, now.st_dev)
        except OSError:
            live = None
        backups = entry.get("backups")
        copies = [
            entry.get("backup"),
            os.path.join(backups, "pristine") if isinstance(backups, str) else None,
        ]
        for copy in filter(None, copies):
            try:
                seen = os.stat(copy)
            except OSError:
                continue
            if (seen.st_ino, seen.st_dev) != live:
                make_private([Path(copy)])


def _without_version(data: Any) -> Any:
    return {k: v for k, v in data.items() if k != "version"} if isinstance(data, dict) else data


def _committed(ledger: Ledger, entries: list[dict[str, Any]], staged: Any) -> bool:
    if any(read_snapshot(Path(e["target"])).digest != e["new_sha256"] for e in entries):
        return False
    if staged is not None:
        return bool(_without_version(ledger.data) == _without_version(staged))
    # a journal from before the staged ledger: judged by the targets' recorded hashes
    recorded = {
        r.get("target", t): r.get("written_sha256")
        for c in ledger.clients()
        for t, r in ledger.files(c).items()
    }
    return all(
        (e["target"] not in recorded) if e.get("restoring") else recorded.get(e["target"]) == e["new_sha256"]
        for e in entries
    )


def _old_bytes(entry: dict[str, Any]) -> bytes | None:
    backup = entry.get("backup")
    return Path(backup).read_bytes() if backup else None  # no backup: the file did not exist


def _holds_old(entry: dict[str, Any], current: Snapshot) -> bool:
    """Whether ``current`` is the file as the killed run read it. By the journal's hash of those
    bytes: a backup kept as a second name of a file the run had not replaced yet
    (``keep_by_link``) shows what another program wrote into that file since, not what was read.
    A journal from before that hash: by the backup's bytes."""
    if "old_sha256" in entry:
        return bool(current.digest == entry["old_sha256"])
    return current.data == _old_bytes(entry)


def _changed_since(entries: list[dict[str, Any]]) -> bool:
    """Did another program write one of the run's files after gwconf replaced it?"""
    for entry in entries:
        backup = entry.get("backup")
        if backup and not Path(backup).is_file():
            continue
        current = read_snapshot(Path(entry["target"]))
        if current.digest != entry["new_sha256"] and not _holds_old(entry, current):
            return True
    return False


def _can_finish(entries: list[dict[str, Any]]) -> bool:
    return all(e.get("new_sha256") is None or _new_bytes(e) is not None for e in entries)


def _finish(entries: list[dict[str, Any]], ledger: Ledger, staged: dict[str, Any]) -> list[str]:
    notes = []
    for entry in entries:
        target = Path(entry["target"])
        current = read_snapshot(target)
        if current.digest == entry["new_sha256"]:
            continue
        if not _holds_old(entry, current):
            notes.append(
                f"{target}: changed by another program after an interrupted gwconf run; kept as it is, "
                f"and {entry['client']}'s other files were finished to match it"
            )
            continue
        if entry["new_sha256"] is None:
            remove_file(target)
        else:
            new_mode = entry.get("new_mode")
            atomic_write(target, _new_bytes(entry) or b"", mode=new_mode, secret=new_mode is None)
        notes.append(f"finished {target} as the interrupted gwconf run meant to write it")
    ledger.data = staged
    ledger.save()
    clients = list(dict.fromkeys(entry["client"] for entry in entries))
    notes.append(
        f"`gwconf restore {clients[0]}` undoes all of {clients[0]}'s files together"
        if len(clients) == 1
        else f"`gwconf restore {' '.join(clients)}` undoes each one's files together"
    )
    return notes


def _held_bytes(entry: dict[str, Any], held: bytes) -> bool:
    """Whether ``entry``'s ``new_at`` (if any) lies inside the bytes after the journal's JSON line;
    if so they are kept with the entry as ``new_bytes`` (in memory only) for ``_new_bytes``."""
    where = entry.pop("new_at", None)
    if where is None:
        return True
    if not (
        type(where) is list
        and len(where) == 2
        and all(type(n) is int and n >= 0 for n in where)
        and where[0] + where[1] <= len(held)
    ):
        return False
    entry["new_bytes"] = held[where[0] : where[0] + where[1]]
    return True


def _new_bytes(entry: dict[str, Any]) -> bytes | None:
    """What the journal says the run meant to write; None when its copy is gone or is not those
    bytes (held to their hash: then the run cannot be finished, only undone)."""
    text = entry.get("new_text")  # a journal from before the seventeenth round
    data = entry.get("new_bytes")
    try:
        if isinstance(data, bytes):
            pass
        elif isinstance(text, str):
            data = text.encode("utf-8", "surrogateescape")
        elif entry.get("new_copy"):
            data = Path(entry["new_copy"]).read_bytes()
        else:
            return None
    except (OSError, UnicodeError):
        return None
    return data if sha256(data) == entry["new_sha256"] else None


def _undo(entries: list[dict[str, Any]]) -> list[str]:
    notes = []
    for entry in entries:
        target = Path(entry["target"])
        backup = entry.get("backup")
        if backup and not Path(backup).is_file():
            notes.append(f"{target}: its backup {backup} is gone; left as it is")
            continue
        current = read_snapshot(target)
        if _holds_old(entry, current):
            continue
        old = _old_bytes(entry)
        if current.digest != entry["new_sha256"]:
            notes.append(
                f"{target}: changed by another program after an interrupted gwconf run; left as it is"
                + (f" (its earlier bytes: {backup})" if backup else "")
            )
            continue
        _put_back(target, old, entry.get("mode"), bool(entry.get("secret")))
        notes.append(f"put back {target} as it was before an interrupted gwconf run")
    return notes


def _remove_temp_files(folder: Path, prefix: str, suffix: str, *, recursive: bool = False) -> None:
    """Temp files a killed gwconf left (under the lock no other gwconf is writing one): named
    ``prefix`` + anything + ``suffix``."""
    try:
        found = (
            list(walk_matches(folder, prefix, suffix)) if recursive else named_like(folder, prefix, suffix)
        )
    except OSError:
        return
    for path in found:
        with contextlib.suppress(OSError):
            path.unlink()


def walk_matches(folder: Path, prefix: str, suffix: str) -> Iterator[Path]:
    """The files and folders at any depth under ``folder`` (dot-names too, symbolic links to
    folders not followed) named ``prefix`` + anything + ``suffix``, one at a time
    (``repair_interrupted`` stops at the first): ``folder.rglob(prefix + "*" + suffix)`` by
    os.walk. Every write runs this sweep over the state folder, which holds a backup folder per
    file, and pathlib's rglob cost ~4% of ``apply --all`` (issue 15)."""
    if not folder.is_dir():
        return
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            if named(name, prefix, suffix):
                yield Path(root, name)
