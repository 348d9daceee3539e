"""Key hygiene: masks and redaction. A full key is never printed or logged."""

from __future__ import annotations

import re

KEY_PATTERN = re.compile(r"sk-[A-Za-z0-9_\-]{6,}")


def mask(key: str | None) -> str:
    """``sk-…last4``: enough to tell keys apart, useless to an attacker."""
    if not key:
        return "(none)"
    key = key.strip()
    tail = key[-4:] if len(key) >= 12 else ""
    prefix = "sk-" if key.startswith("sk-") else ""
    return f"{prefix}…{tail}" if tail else f"{prefix}…"


def redact(text: str, keys: list[str] | tuple[str, ...] = ()) -> str:
    """Replace known keys and anything key-shaped in ``text`` by their masks."""
    for key in sorted({k for k in keys if k and len(k) >= 4}, key=len, reverse=True):
        text = text.replace(key, mask(key))
    return KEY_PATTERN.sub(lambda m: mask(m.group(0)), text)


def key_problems(key: str) -> list[str]:
    """Spec 5.2 / 5.4: the usual ways a pasted key is wrong."""
    problems: list[str] = []
    if key != key.strip():
        problems.append("has leading or trailing whitespace (copied with characters extra?)")
    if any(ch in key for ch in "\r\n\t"):
        problems.append("contains a line break or tab")
    elif " " in key.strip():
        problems.append("contains a space")
    if any(ch in key for ch in "\"'`"):
        problems.append("contains quotes (copied with characters extra?)")
    if not key.strip().startswith("sk-"):
        problems.append("does not start with `sk-` (gateway keys do)")
    return problems
