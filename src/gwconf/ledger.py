"""What gwconf wrote, so ``restore`` can give back exactly what was there before.

Per client, per file: whether gwconf created it, the pristine backup taken at first touch, the
hash of the bytes gwconf last wrote, and per managed key path the value before gwconf (inline
when harmless, else a reference to the backup that holds it) and a hash of the value gwconf
wrote. The ledger never holds a key in full (issue 8's secrets audit).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gwconf.fileio import read_snapshot, write_private
from gwconf.formats import MISSING
from gwconf.paths import Env
from gwconf.secrets import KEY_PATTERN

_SENSITIVE_NAME = re.compile(r"key|token|secret|password|auth", re.IGNORECASE)


def value_hash(value: Any) -> str:
    """A stable hash of a plain value (MISSING hashes as its own marker)."""
    if value is MISSING:
        payload = "\x00missing"
    else:
        payload = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    import hashlib  # here, not at start: OpenSSL's start-up costs 3-5 ms

    return hashlib.sha256(payload.encode()).hexdigest()


def leaf_hashes(value: dict[str, Any]) -> dict[str, str]:
    """Hashes of every leaf of a mapping gwconf created, keyed by the JSON of its path inside it."""
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

    A mapping gwconf created also counts as its own when the client only re-stamped fields it
    owns (``restamped``, e.g. Cline's ``updatedAt``) or added empty containers to it.
    """
    if value_hash(current) == key["after_hash"]:
        return True
    written = key.get("after_leaves")
    if not written or not isinstance(current, dict):
        return False
    empty = {value_hash({}), value_hash([])}
    now = leaf_hashes(current)
    for path, digest in {**written, **now}.items():
        name = json.loads(path)[-1] if json.loads(path) else None
        if name in restamped:
            continue
        if path in written and now.get(path) != digest:
            return False
        if path not in written and digest not in empty:
            return False
    return True


def is_sensitive(path: tuple[Any, ...], value: Any, secret_file: bool = False) -> bool:
    """Could this value hold a key? Then the ledger stores only its hash or a reference.

    In a file that holds a key (``ConfigFile.secret``) every text value could be one: llm's
    ``keys.json`` stores it under the provider's name, which no pattern recognises."""
    if value is MISSING or value is None or isinstance(value, bool | int | float):
        return False
    if secret_file:
        return True
    text = json.dumps(value, ensure_ascii=False, default=str)
    if KEY_PATTERN.search(text):
        return True
    if isinstance(value, dict | list):
        return bool(_SENSITIVE_NAME.search(text))
    return any(isinstance(p, str) and _SENSITIVE_NAME.search(p) for p in path)


@dataclass
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


class Ledger:
    """The JSON ledger in gwconf's state folder (0600)."""

    VERSION = 1

    def __init__(self, env: Env) -> None:
        self.env = env
        self.path = env.state_dir / "ledger.json"
        self.data: dict[str, Any] = {"version": self.VERSION, "clients": {}}
        snap = read_snapshot(self.path)
        if snap.data:
            try:
                loaded = json.loads(snap.data)
            except (ValueError, RecursionError):
                loaded = None
            if _well_formed(loaded):
                self.data = loaded
            else:  # a damaged ledger is kept aside, never silently dropped
                self.path.rename(self.path.with_suffix(f".damaged-{int(time.time())}"))

    def save(self) -> None:
        write_private(self.path, (json.dumps(self.data, indent=2, ensure_ascii=False) + "\n").encode())

    def clients(self) -> list[str]:
        return sorted(self.data["clients"])

    def client(self, client_id: str) -> dict[str, Any] | None:
        return self.data["clients"].get(client_id)

    def files(self, client_id: str) -> dict[str, Any]:
        entry = self.client(client_id)
        return entry["files"] if entry else {}

    def record_apply(
        self,
        client_id: str,
        profile: str,
        target: Path,
        *,
        display: str,
        fmt: str,
        created: bool,
        written_sha256: str | None,
        keys: list[KeyRecord],
        after_data: Any,
        secret: bool = False,
    ) -> None:
        """Merge one write into the ledger, keeping each key's value from before gwconf's first touch."""
        from gwconf.formats import get_plain

        entry = self.data["clients"].setdefault(client_id, {"files": {}})
        entry["profile"] = profile
        entry["applied_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        files = entry.setdefault("files", {})
        record = files.get(str(target))
        if record is None:
            record = {"display": display, "format": fmt, "created": created, "keys": []}
            files[str(target)] = record
        record["written_sha256"] = written_sha256
        owned = [tuple(k["path"]) for k in record["keys"]]
        for key in keys:
            if any(key.path[: len(p)] == p for p in owned):
                continue  # already owned (itself or a parent gwconf created): keep its "before"
            record["keys"].append(key.to_json())
            owned.append(key.path)
        for item in record["keys"]:  # what gwconf wrote now, for drift and restore checks
            value = get_plain(after_data, tuple(item["path"]))
            item["after_hash"] = value_hash(value)
            if item.get("before_missing") and isinstance(value, dict):
                item["after_leaves"] = leaf_hashes(value)  # so a re-stamped field does not hide the rest
            else:
                item.pop("after_leaves", None)
            if is_sensitive(tuple(item["path"]), value, secret) or value is MISSING:
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
