"""Plan first, then write: the only place client files are changed.

``plan_apply`` and ``plan_restore`` compute ``FileChange``s (bytes before and after) without
touching anything. ``execute`` then takes gwconf's lock, checks every file is still what was
read (compare-and-swap), takes the backups, writes a journal, replaces the files atomically
(a change over several files lands whole or is rolled back), updates the ledger and removes the
journal. A run killed half-way is repaired by the next one (``repair``).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gwconf import formats
from gwconf.clients._base import ClientAdapter, ConfigFile, Target
from gwconf.errors import GwconfError, WriteRefused
from gwconf.fileio import (
    TEMP_SUFFIX,
    Snapshot,
    atomic_write,
    check_unchanged,
    check_writable,
    exclusive_lock,
    read_snapshot,
    remove_file,
    sha256,
    write_private,
)
from gwconf.formats import MISSING, Document, get_plain
from gwconf.ledger import KeyRecord, Ledger, is_sensitive, value_hash, written_by_gwconf
from gwconf.paths import Env, display

BACKUPS_KEPT = 10
_PENDING_REF = "\x00pending-backup"


@dataclass
class FileChange:
    """One file's bytes before and after. ``after`` None means: remove the file."""

    client_id: str
    file: ConfigFile
    display: str
    snapshot: Snapshot
    after: bytes | None
    key_records: list[KeyRecord] = field(default_factory=list)
    after_data: Any = None
    restoring: bool = False
    restore_mode: int | None = None  # restore of the pristine bytes: the mode they had
    holds_key: bool = False  # the new bytes hold the profile's key (whatever the client declares)

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
        old = _text(self.snapshot.data)
        new = _text(self.after)
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile="/dev/null" if not self.snapshot.exists else f"a/{self.display}",
            tofile="/dev/null" if self.after is None else f"b/{self.display}",
        )
        out = []
        for line in lines:
            line = line.replace("\r\n", "\n")
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")


@dataclass
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


@dataclass
class Loaded:
    file: ConfigFile
    display: str
    snapshot: Snapshot
    had_bom: bool
    doc: Document
    data: Any  # plain data before any edit


def load_file(file: ConfigFile, env: Env) -> Loaded:
    shown = display(file.path, env)
    snap = read_snapshot(file.path, shown)
    text, had_bom = formats.decode(snap.data or b"", shown)
    if not text and file.format in _DEFERRED_FORMATS:
        return Loaded(file, shown, snap, had_bom, _EmptyDocument(file.format, shown), {})
    doc = formats.load(file.format, text, shown)
    # No copy: every editor hands out data it never changes afterwards (a fresh value, or a cached
    # one that an edit replaces; tests/test_plan_snapshot.py). A deep copy cost as much as parsing.
    return Loaded(file, shown, snap, had_bom, doc, doc.data())


# Formats whose editor imports a library that costs tens of milliseconds (tomlkit, PyYAML).
_DEFERRED_FORMATS = frozenset({"toml", "yaml"})


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

    def __getattr__(self, name: str) -> Any:  # anything else an editor offers: load it
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._real(), name)


def load_client(client: ClientAdapter, env: Env) -> dict[str, Loaded]:
    return {f.role: load_file(f, env) for f in client.files(env)}


def docs_of(loaded: dict[str, Loaded]) -> dict[str, Document]:
    return {role: item.doc for role, item in loaded.items()}


# -- apply ----------------------------------------------------------------------------------------


def plan_apply(client: ClientAdapter, profile: Any, env: Env, *, model: str | None = None) -> ClientPlan:
    target = client.target(profile, env)
    if model:
        target.model = model
    plan = ClientPlan(client=client, target=target, notes=list(target.notes))
    if client.tier == 3:
        plan.steps = client.steps(target, show_key=False)
        return plan
    loaded = load_client(client, env)
    plan.read = [(item.snapshot, item.display) for item in loaded.values()]
    plan.notes += client.render(docs_of(loaded), target, env)
    for item in loaded.values():
        change = _change_from_edit(client.id, item, target.api_key)
        if change is not None:
            plan.changes.append(change)
    return plan


def _change_from_edit(client_id: str, item: Loaded, key: str | None = None) -> FileChange | None:
    if not item.doc.ops:
        return None
    # after_data: what the text was just checked to read back as; no third parse of the file
    text, after_data = formats.checked_edit(item.file.format, _original(item), item.doc)
    if not item.snapshot.exists and not text.strip():
        return None
    after = formats.encode(text, item.had_bom)
    holds_key = bool(key) and key.encode() in after
    return FileChange(
        client_id=client_id,
        file=item.file,
        display=item.display,
        snapshot=item.snapshot,
        after=after,
        key_records=key_records(item.data, after_data, item.doc.ops, secret=item.file.secret or holds_key),
        holds_key=holds_key,
        after_data=after_data,
    )


class _Frozen:
    """The document as it was before edits, for verify_edit's replay."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def data(self) -> Any:
        return self._data


def _original(item: Loaded) -> Any:
    return _Frozen(item.data)


def key_records(before: Any, after: Any, ops: list[formats.Op], *, secret: bool = False) -> list[KeyRecord]:
    """The managed key paths an edit touched, each with its value before (for restore)."""
    paths: list[tuple[Any, ...]] = []
    for op in ops:
        path = op.path
        if op.kind == "append":
            old = get_plain(before, path)
            new = get_plain(after, path)
            start = len(old) if isinstance(old, list) else 0
            if old is MISSING:
                paths.append(_first_missing(before, path))
                continue
            for index in range(start, len(new) if isinstance(new, list) else 0):
                paths.append((*path, index))
            continue
        paths.append(_first_missing(before, path))
    records: list[KeyRecord] = []
    seen: list[tuple[Any, ...]] = []
    for path in paths:
        if any(path[: len(p)] == p for p in seen):
            continue
        seen = [p for p in seen if p[: len(path)] != path] + [path]
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
    return records


def _first_missing(before: Any, path: tuple[Any, ...]) -> tuple[Any, ...]:
    for length in range(1, len(path) + 1):
        if get_plain(before, path[:length]) is MISSING:
            return path[:length]
    return path


# -- restore --------------------------------------------------------------------------------------


def plan_restore(client: ClientAdapter, env: Env, ledger: Ledger) -> ClientPlan:
    """Put back what was there before gwconf, key by key (design.md section 3)."""
    plan = ClientPlan(client=client)
    for target_path, record in ledger.files(client.id).items():
        file = _file_for(client, env, Path(target_path), record)
        item = load_file(file, env)
        backups = BackupStore(env, client.id, item.snapshot.target)
        if record.get("written_sha256") and item.snapshot.digest == record["written_sha256"]:
            pristine = backups.pristine()
            if pristine is not None:  # untouched since gwconf wrote it: the original bytes, exactly
                after = None if pristine is MISSING else pristine
                plan.changes.append(
                    FileChange(
                        client.id,
                        file,
                        item.display,
                        item.snapshot,
                        after,
                        restoring=True,
                        restore_mode=backups.pristine_mode(),
                    )
                )
                continue
        for key in reversed(record["keys"]):
            _restore_key(item, key, backups, plan, client.restamped)
        if item.doc.ops:
            text = formats.verify_edit(file.format, _original(item), item.doc)
            after_bytes: bytes | None = formats.encode(text, item.had_bom)
            if record.get("created") and not text.strip():
                after_bytes = None
            plan.changes.append(
                FileChange(client.id, file, item.display, item.snapshot, after_bytes, restoring=True)
            )
        elif record.get("created") and item.snapshot.exists and not _text(item.snapshot.data).strip():
            plan.changes.append(
                FileChange(client.id, file, item.display, item.snapshot, None, restoring=True)
            )
    return plan


def _file_for(client: ClientAdapter, env: Env, target: Path, record: dict[str, Any]) -> ConfigFile:
    for file in client.files(env):
        if read_snapshot(file.path).target == target or file.path == target:
            return file
    return ConfigFile(role="recorded", path=target, format=record.get("format", "text"))


def _restore_key(
    item: Loaded, key: dict[str, Any], backups: BackupStore, plan: ClientPlan, restamped: tuple[str, ...] = ()
) -> None:
    path = tuple(key["path"])
    current = get_plain(item.data, path)
    shown_path = ".".join(str(p) for p in path)
    if not written_by_gwconf(key, current, restamped):
        before = _before_value(key, backups, item)
        if before is not _UNKNOWN and value_hash(current) == value_hash(before):
            return  # already as it was
        plan.left_alone.append(
            f"{item.display}: {shown_path} was changed since gwconf wrote it; left as it is"
        )
        return
    before = _before_value(key, backups, item)
    if before is _UNKNOWN:
        plan.left_alone.append(f"{item.display}: {shown_path}: its earlier value is no longer in the backups")
        return
    if before is MISSING:
        item.doc.delete(path)
    else:
        item.doc.set(path, before)


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
    """``<state>/backups/<client>/<file>-<hash>/``: ``pristine`` (or ``pristine.missing``) + timestamped."""

    def __init__(self, env: Env, client_id: str, target: Path) -> None:
        import hashlib

        digest = hashlib.sha256(str(target).encode()).hexdigest()[:10]
        self.folder = env.backups_dir / client_id / f"{target.name.lstrip('.') or 'file'}-{digest}"

    @classmethod
    def at(cls, folder: Path) -> BackupStore:
        store = cls.__new__(cls)
        store.folder = folder
        return store

    def pristine(self) -> Any:
        """The bytes before gwconf first touched the file, MISSING if it did not exist, None if unknown."""
        if (self.folder / "pristine.missing").exists():
            return MISSING
        path = self.folder / "pristine"
        return path.read_bytes() if path.exists() else None

    def take_pristine(self, snapshot: Snapshot, *, owned: bool = True) -> None:
        """The bytes before gwconf's first write. ``owned`` False (the ledger does not record the
        file): a copy found here is from a run that never committed (killed, or a client wrote
        meanwhile) and may be older than the file; it is kept aside and a fresh one taken."""
        if self.pristine() is not None:
            if owned:
                return
            self.retire_pristine()
        if snapshot.data is None:
            write_private(self.folder / "pristine.missing", b"")
        else:  # the mode first: "pristine" is what marks the copy as taken, a crash between leaves none
            write_private(self.folder / "pristine.mode", f"{snapshot.mode or 0o644:o}\n".encode())
            write_private(self.folder / "pristine", snapshot.data)

    def pristine_mode(self) -> int | None:
        """The file's mode before gwconf first wrote it (gwconf makes files that hold a key 0600)."""
        path = self.folder / "pristine.mode"
        try:
            return int(path.read_text().strip(), 8)
        except (OSError, ValueError):
            return None

    def retire_pristine(self) -> None:
        """After a full restore the next apply takes a fresh pristine copy; the old one is kept aside."""
        stamp = _stamp()
        for name in ("pristine", "pristine.missing", "pristine.mode"):
            path = self.folder / name
            if path.exists():
                os.replace(path, self.folder / f"{stamp}-{name}.old")

    def take(self, snapshot: Snapshot) -> str | None:
        if snapshot.data is None:
            return None
        name = f"{_stamp()}.bak"
        write_private(self.folder / name, snapshot.data)
        return name

    def read(self, name: str) -> bytes | None:
        path = self.folder / name
        return path.read_bytes() if path.is_file() else None

    def rotate(self, keep_refs: set[str]) -> None:
        if not self.folder.is_dir():
            return
        stamped = sorted(p for p in self.folder.glob("*.bak") if p.name not in keep_refs)
        for old in stamped[:-BACKUPS_KEPT]:
            old.unlink(missing_ok=True)


def _stamp() -> str:
    now = time.time()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{int(now * 1e6) % 1_000_000:06d}Z"


# -- execute --------------------------------------------------------------------------------------


def execute(
    plans: list[ClientPlan], env: Env, ledger: Ledger | None = None, *, profile: str | None = None
) -> None:
    """Write every pending change: all files of one client land together or not at all."""
    with exclusive_lock(env.state_dir / "gwconf.lock"):
        repair(env)
        ledger = Ledger(env)  # re-read under the lock: another gwconf may have written meanwhile
        for plan in plans:
            pending = plan.pending
            if not pending:
                continue
            _write_client(plan, pending, env, ledger, profile)


def _write_client(
    plan: ClientPlan, pending: list[FileChange], env: Env, ledger: Ledger, profile: str | None
) -> None:
    for snapshot, shown in plan.read:  # the files left as they are too: the plan rests on them
        check_unchanged(snapshot, shown)
    for change in pending:
        check_unchanged(change.snapshot, change.display)
        check_writable(change.snapshot.target, change.display, change.snapshot.path)
    journal_entries = []
    for change in pending:
        backups = BackupStore(env, change.client_id, change.snapshot.target)
        if not change.restoring:
            owned = str(change.snapshot.target) in ledger.files(change.client_id)
            backups.take_pristine(change.snapshot, owned=owned)
        name = backups.take(change.snapshot)
        for key in change.key_records:
            if key.before_ref == _PENDING_REF:
                key.before_ref = name
        journal_entries.append(
            {
                "target": str(change.snapshot.target),
                "backup": str(backups.folder / name) if name else None,
                "new_sha256": sha256(change.after),
                "mode": change.snapshot.mode,
                "secret": change.secret,
                "restoring": change.restoring,
                "backups": str(backups.folder),
            }
        )
    journal = env.state_dir / "journal.json"
    write_private(journal, json.dumps({"client": plan.client.id, "files": journal_entries}).encode())
    done: list[FileChange] = []
    try:
        for change in pending:
            # compare-and-swap again at the last moment: a client may have written while gwconf
            # took its backups and journal
            unchanged = _still(change)
            if change.after is None:
                unchanged()
                remove_file(change.snapshot.target)
            else:
                if change.restore_mode is not None:  # the original bytes, with their original mode
                    atomic_write(
                        change.snapshot.target,
                        change.after,
                        mode=change.restore_mode,
                        secret=False,
                        before_replace=unchanged,
                    )
                else:
                    atomic_write(
                        change.snapshot.target,
                        change.after,
                        mode=change.snapshot.mode,
                        secret=change.secret,
                        before_replace=unchanged,
                    )
            done.append(change)
    except BaseException as exc:
        for change in reversed(done):
            _put_back(change.snapshot.target, change.snapshot.data, change.snapshot.mode, change.secret)
        remove_file(journal)
        if isinstance(exc, OSError):
            raise WriteRefused(
                f"could not write {change.display}: {exc.strerror or exc}; nothing was changed.",
                "Check the folder's permissions and free space.",
            ) from None
        raise
    for change in pending:
        if change.restoring:
            ledger.forget(change.client_id, str(change.snapshot.target))
        else:
            ledger.record_apply(
                change.client_id,
                profile or (plan.target.profile_name if plan.target else "?"),
                change.snapshot.target,
                display=change.display,
                fmt=change.file.format,
                created=change.creates,
                written_sha256=sha256(change.after),
                keys=change.key_records,
                after_data=change.after_data,
                secret=change.secret,
            )
    if all(c.restoring for c in pending):
        for target in list(ledger.files(plan.client.id)):
            ledger.forget(plan.client.id, target)
    ledger.save()  # the commit point: from here on, repair() finishes the run instead of undoing it
    for change in pending:
        backups = BackupStore(env, change.client_id, change.snapshot.target)
        if change.restoring:  # after the commit: a crash before it must find the pristine copy still there
            backups.retire_pristine()
        refs = {
            k.get("before_ref")
            for k in ledger.files(change.client_id).get(str(change.snapshot.target), {}).get("keys", [])
        }
        backups.rotate({r for r in refs if r})
    remove_file(journal)


def _still(change: FileChange) -> Any:
    return lambda: check_unchanged(change.snapshot, change.display)


def _put_back(target: Path, data: bytes | None, mode: int | None, secret: bool) -> None:
    """The file as it was: its old bytes with their old mode (``secret`` only when the mode is unknown)."""
    if data is None:
        remove_file(target)
    else:
        atomic_write(target, data, mode=mode, secret=secret and mode is None)


def repair(env: Env) -> list[str]:
    """Finish or undo a change a killed gwconf left half-done; returns what was done (call under the lock).

    The ledger's save is a run's commit point. Committed (every file is what the run wrote and the
    ledger says so): only the clean-up after the commit is redone. Not committed: every file the
    run replaced gets its old bytes back, unless another program changed it since (then it is left
    alone and reported). Temp files of the killed run are removed either way.
    """
    journal = env.state_dir / "journal.json"
    snap = read_snapshot(journal)
    for folder, recursive in ((env.state_dir, True), (env.config_dir, False), (env.profiles_dir, False)):
        _remove_temp_files(folder, "*" + TEMP_SUFFIX, recursive=recursive)
    if snap.data is None:
        return []
    try:
        entries = json.loads(snap.data)["files"]
    except (ValueError, KeyError, TypeError, RecursionError):
        entries = None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("target"), str)
        and isinstance(e.get("backup") or "", str)
        and isinstance(e.get("new_sha256") or "", str)
        for e in entries
    ):
        remove_file(journal)
        return ["removed a damaged journal"]
    for entry in entries:
        target = Path(entry["target"])
        _remove_temp_files(target.parent, f".{target.name}.*{TEMP_SUFFIX}")
    ledger = Ledger(env)
    recorded = {t: r.get("written_sha256") for c in ledger.clients() for t, r in ledger.files(c).items()}

    def committed(entry: dict[str, Any]) -> bool:
        if read_snapshot(Path(entry["target"])).digest != entry["new_sha256"]:
            return False
        if entry.get("restoring"):
            return entry["target"] not in recorded
        return recorded.get(entry["target"]) == entry["new_sha256"]

    if all(committed(e) for e in entries):
        for entry in entries:
            if entry.get("restoring") and entry.get("backups"):
                BackupStore.at(Path(entry["backups"])).retire_pristine()
        remove_file(journal)
        return []
    notes = []
    for entry in entries:
        target = Path(entry["target"])
        backup = entry.get("backup")
        if backup and not Path(backup).is_file():
            notes.append(f"{target}: its backup {backup} is gone; left as it is")
            continue
        old = Path(backup).read_bytes() if backup else None  # no backup: the file did not exist
        current = read_snapshot(target)
        if current.data == old:
            continue
        if current.digest != entry["new_sha256"]:
            notes.append(
                f"{target}: changed by another program after an interrupted gwconf run; left as it is"
                + (f" (its earlier bytes: {backup})" if backup else "")
            )
            continue
        _put_back(target, old, entry.get("mode"), bool(entry.get("secret")))
        notes.append(f"put back {target} as it was before an interrupted gwconf run")
    remove_file(journal)
    return notes


def _remove_temp_files(folder: Path, pattern: str, *, recursive: bool = False) -> None:
    """Temp files a killed gwconf left (under the lock no other gwconf is writing one)."""
    try:
        found = list(folder.rglob(pattern) if recursive else folder.glob(pattern))
    except OSError:
        return
    for path in found:
        with contextlib.suppress(OSError):
            path.unlink()
