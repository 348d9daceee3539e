"""Shared pieces of tier-3 clients: apps gwconf cannot configure through files, only describe.

Their modules keep ``files``/``render``/``read`` trivial and put everything in ``steps(target,
show_key)``: numbered UI steps with the exact values to paste, the key masked unless ``show_key``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from gwconf import secrets, urls
from gwconf.clients._base import ConfigFile, Finding, Reading, Target
from gwconf.formats import Document
from gwconf.paths import Env

LOCAL_SUFFIXES = (".local", ".lan", ".internal", ".home", ".localhost", ".corp")
RESTART = "Nothing to restart: the app uses the new provider as soon as you save it in its settings."


def key(target: Target, show_key: bool) -> str:
    return target.api_key if show_key else secrets.mask(target.api_key)


def model(target: Target) -> str:
    return target.model or "<your model>"


def not_public_https(url: str) -> str | None:
    """Why the vendor's servers could not reach ``url`` (Cursor and Warp call it from their cloud)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "https":
        return "it is not https"
    if host == "localhost" or host.endswith(LOCAL_SUFFIXES) or "." not in host:
        return f"{host} is a local name"
    address = urls.ip_literal(host)
    if address is None:
        return None
    if address.is_private or address.is_loopback or address.is_link_local:
        return f"{host} is a private address"
    return None


def public_warning(app: str, url: str) -> list[str]:
    problem = not_public_https(url)
    if problem is None:
        return []
    return [
        f"Warning: {app} sends requests from its own servers, so the address must be public HTTPS; "
        f"{url} will fail ({problem}). Use a public HTTPS address of the gateway."
    ]


def files(env: Env) -> list[ConfigFile]:
    return []


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    return []


def read(name: str) -> Reading:
    return Reading(
        findings=[
            Finding(
                "info",
                "provider",
                f"{name} keeps its settings where gwconf cannot read them: check them in the app.",
            )
        ]
    )
