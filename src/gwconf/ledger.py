"""What gwconf wrote, so ``restore`` can give back exactly what was there before.

Per client, per file: whether gwconf created it, the pristine backup taken at first touch, the
hash of the bytes gwconf last wrote, and per managed key path the value before gwconf (inline
when harmless, else a reference to the backup that holds it) and a hash of the value gwconf
wrote. The ledger never holds a key in full (issue 8's secrets audit).
"""

from __future__ import annotations

import marshal
import re
import time
from functools import cache
from pathlib import Path

from gwconf import records
from gwconf.fileio import fsync_dir, read_snapshot, sha256, write_private
from gwconf.formats import MISSING, lazy
from gwconf.paths import Env
from gwconf.secrets import KEY_PATTERN

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_SENSITIVE_NAME = lazy(r"key|token|secret|password|auth", re.IGNORECASE)  # listings never need it


def value_hash(value: Any) -> str:
    """A stable hash of a plain value (MISSING hashes as its own marker)."""
    if value is MISSING:
        payload = "\x00missing"
    else:
        payload = _hash_encoder().encode(value)
    return str(sha256(payload.encode()))


@cache
def _hash_encoder() -> Any:
    """What ``json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)`` encodes with,
    made once: json.dumps makes a new encoder for each call with options, and an apply hashes
    every value it writes (1,000 calls for ``apply --all``, some 200 for a listing)."""
    import json

    return json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


def leaf_hashes(value: dict[str, Any]) -> dict[str, str]:
    """Hashes of every leaf of a mapping gwconf created, keyed by the JSON of its path inside it."""
    import json

    leaves: dict[str, str] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict) and node:
            for key, child in node.items():
                walk(child, (*path, str(key)))
        else:
            leaves[json.dumps(list(path))] = value_hash(node)

    walk(value, ())
    return leaves


def written_by_gwconf(key: dict[str, Any], current: Any, restamped: tuple[str, ...] = ()) -> bool:
    """Is ``current`` still what gwconf wrote at this managed key?

    A mapping gwconf wrote also counts as its own when the client only re-stamped fields it owns
    (``restamped``, e.g. Cline's ``updatedAt``) or added empty containers to it. Every leaf gwconf
    wrote must still hold the value gwconf wrote: a value the user changed inside gwconf's own
    entry is the user's (issue 18 item 8: the old check compared each such leaf with itself).
    """
    if value_hash(current) == key["after_hash"]:
        return True
    if key["path"] and key["path"][-1] in restamped and current is not MISSING:
        return True  # a field the client itself re-stamps in gwconf's entry
    written = key.get("after_leaves")
    if not written or not isinstance(current, dict):
        return False
    return not changed_leaves(written, current, restamped) and not added_leaves(written, current)


def _leaf_name(path: str) -> Any:
    import json

    parts = json.loads(path)
    return parts[-1] if parts else None


def changed_leaves(written: dict[str, str], current: Any, restamped: tuple[str, ...] = ()) -> list[str]:
    """The leaves gwconf wrote inside a mapping that no longer hold what it wrote (changed or
    removed; re-stamped fields excepted), each as the JSON of its path inside the mapping."""
    now = leaf_hashes(current) if isinstance(current, dict) else {}
    return [p for p, digest in written.items() if _leaf_name(p) not in restamped and now.get(p) != digest]


def added_leaves(written: dict[str, str], current: Any) -> list[str]:
    """Leaves inside a mapping gwconf wrote that it did not write (empty containers do not count)."""
    now = leaf_hashes(current) if isinstance(current, dict) else {}
    empty = {value_hash({}), value_hash([])}
    return [path for path, digest in now.items() if path not in written and digest not in empty]


def is_sensitive(path: tuple[Any, ...], value: Any, secret_file: bool = False) -> bool:
    """Could this value hold a key? Then the ledger stores only its hash or a reference.

    In a file that holds a key (``ConfigFile.secret``) every text value could be one: llm's
    ``keys.json`` stores it under the provider's name, which no pattern recognises."""
    if value is MISSING or value is None or isinstance(value, bool | int | float):
        return False
    if secret_file:
        return True
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    if KEY_PATTERN.search(text):
        return True
    if isinstance(value, dict | list):
        return bool(_SENSITIVE_NAME.search(text))
    return any(isinstance(p, str) and _SENSITIVE_NAME.search(p) for p in path)


@records.record
class KeyRecord:
    path: tuple[Any, ...]
    before_missing: bool
    before_inline: Any  # the value before gwconf, when not sensitive
    before_ref: str | None  # else: the backup file (name under the file's backup folder) that holds it
    after_hash: str
    after_inline: Any = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": list(self.path), "after_hash": self.after_hash}
        if self.before_missing:
            data["before_missing"] = True
        elif self.before_ref is not None:
            data["before_ref"] = self.before_ref
        else:
            data["before"] = self.before_inline
        if self.after_inline is not None:
            data["after"] = self.after_inline
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeyRecord:
        return cls(
            path=tuple(data["path"]),
            before_missing=bool(data.get("before_missing")),
            before_inline=data.get("before"),
            before_ref=data.get("before_ref"),
            after_hash=data["after_hash"],
            after_inline=data.get("after"),
        )


def _well_formed(data: Any) -> bool:
    """The shape every reader of the ledger relies on (a hand-edited or damaged one may differ)."""
    if not isinstance(data, dict) or not isinstance(data.get("clients"), dict):
        return False
    for entry in data["clients"].values():
        if not isinstance(entry, dict) or not isinstance(entry.get("files", {}), dict):
            return False
        for record in entry.get("files", {}).values():
            if not isinstance(record, dict) or not isinstance(record.get("keys", []), list):
                return False
            for key in record.get("keys", []):
                if not (isinstance(key, dict) and isinstance(key.get("path"), list) and "after_hash" in key):
                    return False
    return True


@records.record
class FileWrite:
    """What one committed write of a client file tells the ledger."""

    path: Path  # as the client names it: the ledger's key (a symlink stays a symlink, issue 18 item 10)
    target: Path  # where the bytes were written
    display: str
    fmt: str
    created: bool  # the file did not exist before this write
    before_sha256: str | None  # the bytes this write replaced
    written_sha256: str | None
    keys: list[KeyRecord]
    parents: list[tuple[Any, ...]]  # containers this write created to hold its keys
    folders: list[str]  # folders this write created
    after_data: Any
    secret: bool
    mode: int | None  # the mode gwconf left the file with
    backups: str  # the folder holding this file's backups
    pristine_mode: int | None = None  # the mode before gwconf, when this write took the pristine copy


def settle_nested(record: dict[str, Any]) -> None:
    """An entry's record beside earlier records of values inside it (a write changed whole an
    entry an earlier write had filled): the entry's "before" holds gwconf's own earlier values,
    which restore would put back. Composed in place (``_composed_before``) by ``record_apply``,
    and by restore for a ledger an older gwconf wrote (before 034185a). An entry is never recorded
    before the values inside it (they would be owned by it), so such a pair is always that case."""
    keys = record.get("keys")
    if not isinstance(keys, list) or len(keys) < 2:
        return
    parents = [tuple(p) for p in record.get("parents", [])]
    for index, outer in enumerate(keys):
        path = tuple(outer["path"])
        inner = [k for k in keys if k is not outer and _covers(path, tuple(k["path"]))]
        created = path in parents  # a container gwconf made: nothing was there before
        composed = _composed_before(outer, inner, created=created) if inner or created else None
        if composed is None:
            continue
        keys[index] = composed
        record["keys"] = keys = [k for k in keys if not any(k is i for i in inner)]
        record["parents"] = [list(p) for p in parents if p != path]
        return settle_nested(record)  # the list changed: look again (a rare repair, once per file)


def _composed_before(
    item: dict[str, Any], inner: list[dict[str, Any]], *, created: bool
) -> dict[str, Any] | None:
    """``item`` (a record of an entry a write changes whole) with the value the entry had before
    gwconf's first write: none when gwconf created it (``created``), else the entry's value now
    with each of ``inner`` (earlier records inside it) put back to its own "before". None when
    that cannot be worked out inline (a secret kept in a backup file): the records stay as they are."""
    import copy

    composed = {k: v for k, v in item.items() if k not in ("before", "before_missing", "before_ref")}
    if created:
        return {**composed, "before_missing": True}
    if "before" not in item or any("before_ref" in k for k in inner):
        return None
    value = copy.deepcopy(item["before"])
    depth = len(item["path"])
    for record in inner:
        rest = tuple(record["path"])[depth:]
        if not rest:
            return None  # the entry itself was recorded: it is owned, never composed
        node = value
        for part in rest[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
        if record.get("before_missing"):
            node.pop(rest[-1], None)
        else:
            node[rest[-1]] = copy.deepcopy(record.get("before"))
    return {**composed, "before": value}


def _covers(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Is ``b`` the path ``a`` or inside it?"""
    return b[: len(a)] == a


# client entry, as marshal's bytes -> its indented text; see ``encode``
_ENTRY_TEXT: dict[bytes, str] = {}


def encode(data: dict[str, Any]) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False)``, byte for byte, faster.

    ``apply --all`` saves the ledger once per client (each save is that client's commit point),
    and with ``indent`` json uses its pure-Python encoder: re-encoding every client's entry on
    every save cost more CPU than any other part of the run (issue 15). An entry's indented text
    is kept by its ``marshal`` bytes, so only changed entries are encoded the slow way. marshal
    (C, a tenth of even the compact JSON encoder's time: 0.1 vs 1 ms for 36 clients' entries)
    round-trips values with their types and key order, so equal bytes mean equal JSON text.
    Version 0 writes no back-references: later versions mark objects by their reference count,
    so the same entry marshalled while another reference to a part of it existed would differ
    and miss.
    JSON text has no raw newline inside a string, so nesting an entry's text one level deeper is
    indenting each of its lines.
    """
    import json

    clients = data.get("clients")
    if not isinstance(clients, dict) or not clients:
        return dumps_indented(data)
    parts = []
    for key, value in data.items():
        if key == "clients":
            entries = ",\n".join(
                f"    {json.dumps(name, ensure_ascii=False)}: {_entry_text(entry)}"
                for name, entry in clients.items()
            )
            text = "{\n" + entries + "\n  }"
        else:
            text = dumps_indented(value, "  ")
        parts.append(f"  {json.dumps(key, ensure_ascii=False)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}"


def _entry_text(entry: Any) -> str:
    import json

    try:
        seen = marshal.dumps(entry, 0)  # version 0: no references, so the bytes are the content's alone
    except ValueError:  # not plain data (never in a ledger gwconf wrote): no cache
        return json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n    ")
    text = _ENTRY_TEXT.get(seen)
    if text is None:
        if len(_ENTRY_TEXT) > 512:
            _ENTRY_TEXT.clear()
        text = _ENTRY_TEXT[seen] = dumps_indented(entry, "    ")
    return text


class _NotPlain(Exception):
    """A value ``dumps_indented`` leaves to json (another type, a key json converts otherwise)."""


def dumps_indented(value: Any, start: str = "") -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` with each line after the first
    indented by ``start`` too, byte for byte, for plain data (dicts, lists, tuples, str, int,
    float, bool, None, keys str); anything else is json's own spelling (or error).

    json's indenting encoder is pure Python, a chain of generators per container: a first
    ``apply --all`` encodes 36 new ledger entries with it (``encode`` was 27M instructions of
    the command, 9M fewer this way; issue 15). Here each container is one join and each string
    json's C ``encode_basestring``."""
    from json.encoder import encode_basestring  # (C)

    try:
        return _indented(value, "\n" + start, encode_basestring)
    except (_NotPlain, RecursionError):
        import json

        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + start)


def _indented(value: Any, newline: str, quoted: Callable[[str], str]) -> str:
    """``value`` as ``dumps_indented`` writes it, ``newline`` the line break and indent before it
    (``quoted``: json's spelling of a string)."""
    kind = type(value)
    if kind is str:
        return quoted(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        parts = []
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            parts.append(f"{quoted(key)}: {_indented(item, inner, quoted)}")
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = newline + "  "
        items = [_indented(item, inner, quoted) for item in value]
        return "[" + inner + ("," + inner).join(items) + newline + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and value == value and value not in (_INF, -_INF):
        return float.__repr__(value)
    raise _NotPlain


_INF = float("inf")


class Ledger:
    """The JSON ledger in gwconf's state folder (0600).

    Per client, per file (keyed by the path the client reads): the pristine copy's validity
    (``history``: ``gwconf`` while nothing but gwconf has written the file since that copy was
    taken, ``shared`` once anything else has), the hash of gwconf's last write, the mode it left
    and the one from before gwconf (``pristine_mode``), the folders and containers it created,
    and per managed key the value before gwconf's first touch and a hash of what gwconf wrote
    last. Restore needs nothing more: the pristine bytes when the history is gwconf's alone and
    the file is still gwconf's last write; else key by key.

    A damaged ledger is never dropped silently: ``damaged`` says why, read-only commands leave it
    where it is, and it is set aside (``ledger.damaged-<time>.json``, kept for the user) only when
    nothing gwconf wrote still needs it: by ``restore --all``, by a restore that leaves no client in
    the backups, or by an apply when the backups name no client (``plan.execute`` refuses the rest,
    which would take gwconf's own values for the user's).
    """

    VERSION = 2

    def __init__(self, env: Env) -> None:
        self.env = env
        self.path = env.state_dir / "ledger.json"
        self.data: dict[str, Any] = {"version": self.VERSION, "clients": {}}
        self.damaged: str | None = None
        self.set_aside_as: Path | None = None  # where the damaged file went, once set aside
        self._bytes: bytes | None = None
        self._load()

    def _load(self) -> None:
        self.data = {"version": self.VERSION, "clients": {}}
        self.damaged = None
        snap = read_snapshot(self.path)
        self._bytes = snap.data  # what the file held when read (or what ``save`` wrote): see ``refresh``
        if snap.data == b"":  # gwconf never writes one: a file cut short (a crash, a full disk)
            # read as "gwconf wrote nothing", restore said so and left the key in every file
            self.damaged = f"{self.path} is damaged (empty: cut short?)"
        elif snap.data:
            import json

            try:
                loaded = json.loads(snap.data)
            except (ValueError, RecursionError):
                loaded = None
            if _well_formed(loaded):
                self.data = loaded
            else:
                self.damaged = f"{self.path} is damaged (not the JSON gwconf writes)"

    def set_aside(self) -> Path | None:
        """Move a damaged ledger out of the way (never overwritten, never deleted: the user may
        want what it held); gwconf then starts from an empty one. Returns where it went."""
        if not self.damaged:
            return None
        self.damaged = None
        if not self.path.exists():
            return None
        stamp = int(time.time())
        aside = self.path.with_name(f"ledger.damaged-{stamp}.json")
        number = 1
        while aside.exists():  # two in one second: an earlier one is never replaced
            number += 1
            aside = self.path.with_name(f"ledger.damaged-{stamp}-{number}.json")
        self.path.rename(aside)
        fsync_dir(self.path.parent)  # on disk before anything relies on the ledger being gone
        self.set_aside_as = aside
        return aside

    def refresh(self) -> None:
        """Read the file again, unless it holds exactly the bytes this ledger last read or wrote.

        A command that writes many clients re-reads the ledger under the lock before each one
        (another gwconf may have written it meanwhile): that was a parse of the whole ledger per
        client (issue 15). Equal bytes mean this ledger's data is the file's, as long as nothing
        changed ``data`` since without saving: ``plan.execute`` only reads it between its saves."""
        self.set_aside_as = None  # (a note for the write that set it aside, said once)
        if self.damaged is None and self._bytes is not None and read_snapshot(self.path).data == self._bytes:
            return
        self._load()

    def save(self) -> None:
        self.set_aside()  # kept aside, never overwritten
        self.data["version"] = self.VERSION
        # a path whose name is no UTF-8 (a legacy-encoded home) holds a lone surrogate: written as
        # its JSON escape ("\udce9"), which reads back as the same string
        text = (encode(self.data) + "\n").encode("utf-8", "backslashreplace")
        self._bytes = None  # a save that fails leaves data the file may not hold: read it again
        write_private(self.path, text)
        self._bytes = text

    def copy(self, only: set[str] | None = None) -> Ledger:
        """A ledger with the same records, to change without touching this one.

        ``only``: the clients the copy's owner will change. Their entries are copied deeply; the
        other clients' entries are shared, unchanged (copying all of them for each client made
        ``apply --all`` quadratic in the number of clients: 36 copies of the whole ledger)."""
        other = Ledger.__new__(Ledger)
        other.env, other.path, other.damaged = self.env, self.path, self.damaged
        other.set_aside_as = None
        other._bytes = None  # a copy to change: never taken for the file's data
        import json

        if only is None:
            other.data = json.loads(json.dumps(self.data))
            return other
        other.data = dict(self.data)
        clients = other.data["clients"] = dict(self.data["clients"])
        for client_id in only & clients.keys():
            clients[client_id] = json.loads(json.dumps(clients[client_id]))
        return other

    def clients(self) -> list[str]:
        return sorted(self.data["clients"])

    def client(self, client_id: str) -> dict[str, Any] | None:
        found = self.data["clients"].get(client_id)
        return found if isinstance(found, dict) else None

    def files(self, client_id: str) -> dict[str, Any]:
        entry = self.client(client_id)
        return entry["files"] if entry else {}

    def record_of(self, client_id: str, path: Path, target: Path | None = None) -> tuple[str, Any] | None:
        """The record of a file, by the path the client reads (or, from an older ledger, its target)."""
        files = self.files(client_id)
        for key in (str(path), str(target) if target is not None else None):
            if key is not None and key in files:
                return key, files[key]
        return None

    def record_apply(self, client_id: str, profile: str, write: FileWrite) -> None:
        """Merge one write into the ledger, keeping each key's value from before gwconf's first touch."""
        from gwconf.formats import get_plain

        entry = self.data["clients"].setdefault(client_id, {"files": {}})
        entry["profile"] = profile
        entry["applied_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        files = entry.setdefault("files", {})
        found = self.record_of(client_id, write.path, write.target)
        record = None
        if found is not None:
            files.pop(found[0])
            # a file that is gone (the user deleted it) starts a new history when gwconf writes it again
            record = None if write.created else found[1]
        if record is None:
            record = {"created": write.created, "history": "gwconf", "keys": [], "parents": [], "folders": []}
        elif record.get("written_sha256") != write.before_sha256:
            record["history"] = "shared"  # something else wrote the file between gwconf's writes
        files[str(write.path)] = record
        record.update(
            display=write.display,
            format=write.fmt,
            target=str(write.target),
            backups=write.backups,
            written_sha256=write.written_sha256,
            mode=write.mode,
        )
        if write.pristine_mode is not None:  # kept until the next fresh copy: restore puts it back
            record["pristine_mode"] = write.pristine_mode
        if write.secret:  # written without its ACL, which restore gives back (absent: it kept it)
            record["secret"] = True
        else:
            record.pop("secret", None)
        record["folders"] = record.get("folders", []) + [
            f for f in write.folders if f not in record.get("folders", [])
        ]
        owned = [tuple(k["path"]) for k in record["keys"]]
        parents = [tuple(p) for p in record.get("parents", [])]
        for parent in write.parents:
            if parent not in parents and not any(_covers(p, parent) for p in owned):
                parents.append(parent)
        record["parents"] = [list(p) for p in parents]
        touched = [key.path for key in write.keys]
        for key in write.keys:
            if any(_covers(p, key.path) for p in owned):
                continue  # already owned (itself or an entry gwconf wrote whole): keep its "before"
            record["keys"].append(key.to_json())
            owned.append(key.path)
        # an entry holding values an earlier write recorded (a model table gwconf made, now
        # removed): its "before" becomes the value before gwconf's first touch, not the earlier
        # write's own values, which restore would otherwise put back (an older ledger's too)
        settle_nested(record)
        for item in record["keys"]:  # what gwconf wrote now, for drift and restore checks
            path = tuple(item["path"])
            if not any(_covers(path, t) or _covers(t, path) for t in touched):
                continue  # not written this time: a value the user set since stays the user's
            value = get_plain(write.after_data, path)
            item["after_hash"] = value_hash(value)
            if isinstance(value, dict) and value:
                item["after_leaves"] = leaf_hashes(value)  # so a re-stamped field does not hide the rest
            else:
                item.pop("after_leaves", None)
            if is_sensitive(path, value, write.secret) or value is MISSING:
                item.pop("after", None)
            else:
                item["after"] = value

    def forget(self, client_id: str, target: str | None = None) -> None:
        if target is None:
            self.data["clients"].pop(client_id, None)
            return
        entry = self.client(client_id)
        if entry:
            entry["files"].pop(target, None)
            if not entry["files"]:
                self.data["clients"].pop(client_id, None)

    def profile_of(self, client_id: str) -> str | None:
        entry = self.client(client_id)
        return entry.get("profile") if entry else None
