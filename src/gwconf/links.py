"""Apps' own import links built from a profile: the shared encoding, decoding and opening.

Each client with an import link builds its payload in its own module (``import_link``: Cherry
Studio's ``cherrystudio://providers/api-keys?v=1&data=…`` and Chatbox's
``chatbox://provider/import?config=…``) and calls ``make``. The base64 is
made of letters and digits only (``encode``), so no app version's decoder can misread it. Either
app asks the user to confirm. The link carries the key, so callers print it only when asked to, and
``open_link`` hands it to the system's URL handler (``xdg-open``, ``open``, ``os.startfile``)
without a shell. Links coming in (CC Switch's) are ``ccswitch.py``: another job.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from gwconf import secrets
from gwconf.errors import GwconfError, UsageError
from gwconf.paths import Env
from gwconf.records import record

PROVIDER_ID = "gwconf"
PROVIDER_NAME = "gwconf gateway"


@record
class Link:
    client_id: str
    url: str  # holds the key: print only on request
    payload: dict[str, Any]

    def masked_payload(self) -> dict[str, Any]:
        masked: dict[str, Any] = secrets.redact_data(self.payload)
        return masked

    @property
    def scheme(self) -> str:
        return self.url.split(":", 1)[0]


# Characters escaped inside JSON strings. ">", "?", "~" and DEL are the only ASCII bytes that can turn
# into "+" or "/" in base64, which the apps' URL handlers treat differently from version to version
# (URLSearchParams reads "+" as a space; Cherry Studio swaps "+"/"/" for "_"/"-" and Node then reads
# those as base64url digits). Cherry Studio also rewrites "'" and drops "(" and ")" in what it decodes.
_ESCAPES = {ch: f"\\u{ord(ch):04x}" for ch in ">?~\x7f'()"}


def encode(payload: dict[str, Any]) -> str:
    """Base64 of the payload's JSON using only letters and digits: every decoder reads it the same.

    ASCII-only JSON (``\\u`` escapes) without the bytes above encodes to ``[A-Za-z0-9]`` only; trailing
    spaces (allowed after JSON) make the length a multiple of 3, so there is no ``=`` padding either.
    """
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True)
    for ch, escape in _ESCAPES.items():
        text = text.replace(ch, escape)  # these characters only occur inside strings in JSON
    text += " " * (-len(text) % 3)
    encoded = base64.b64encode(text.encode("ascii")).decode("ascii")
    if not encoded.isalnum():  # pragma: no cover - guaranteed by the escapes above
        raise GwconfError(
            "internal error: the import link would not be URL-safe.",
            "This is a gwconf bug: please report it.",
        )
    return encoded


def make(client_id: str, scheme: str, route: str, param: str, payload: dict[str, Any]) -> Link:
    """The link ``scheme://route?param=<encoded payload>`` (``route`` may carry fixed parameters)."""
    joiner = "&" if "?" in route else "?"
    return Link(client_id, f"{scheme}://{route}{joiner}{param}={encode(payload)}", payload)


def decode(url: str) -> tuple[str, dict[str, Any]]:
    """(scheme, payload) of a link ``make`` built: what the app will read from it."""
    parts = urlsplit(url)
    for _name, value in parse_qsl(parts.query, keep_blank_values=True):
        if len(value) > 8 and value.isalnum():
            return parts.scheme, json.loads(base64.b64decode(value + "=" * (-len(value) % 4)))
    raise UsageError(f"not a link gwconf makes: {parts.scheme}://", "Pass a link from: gwconf link APP")


def open_link(url: str, env: Env) -> str:
    """Hand ``url`` to the system's URL handler (no shell: the link is one argument). Returns its name."""
    if env.platform == "win32":
        try:
            os.startfile(url)  # type: ignore[attr-defined]  # Windows only
        except OSError as exc:
            raise GwconfError(
                f"Windows could not open the link ({exc.strerror or exc}).",
                "Is the app installed? Or print the link with --show-key and paste it into the app.",
            ) from None
        return "the Windows URL handler"
    opener = "open" if env.platform == "darwin" else "xdg-open"
    program = env.which(opener)
    if program is None:
        raise GwconfError(
            f"{opener} was not found, so gwconf cannot hand the link to the app.",
            "Print the link with --show-key and open it yourself.",
        )
    try:
        done = subprocess.run(
            [program, url],
            env=dict(env.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GwconfError(
            f"{opener} failed ({type(exc).__name__}).", "Print the link with --show-key."
        ) from None
    if done.returncode != 0:
        raise GwconfError(
            f"{opener} exited {done.returncode}: no app seems to handle {url.split(':', 1)[0]}:// links.",
            "Install the app (and start it once so it registers its links), or print the link with --show-key.",
        )
    return opener
