"""Base-address forms, in one place (each client module says which form its client wants, and why).

The profile stores one canonical OpenAI-style base ending in ``/v1`` (spec 1, 9). Each client
gets the form it wants: ``/v1``; the root without ``/v1`` (Anthropic- and Gemini-style SDKs append
their own paths); ``/v1/`` with a trailing slash; the full chat endpoint; or host only.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from gwconf.errors import ProfileError
from gwconf.records import field, record

TYPE_CHECKING = False  # the annotations only: ``ipaddress`` is imported where an address is read
if TYPE_CHECKING:
    from ipaddress import IPv4Address, IPv6Address

# Each vendor's own address, where a client goes when nothing points it elsewhere (one place for all).
OFFICIAL_OPENAI_BASE = "https://api.openai.com/v1"
OFFICIAL_ANTHROPIC_BASE = "https://api.anthropic.com"
OFFICIAL_GEMINI_BASE = "https://generativelanguage.googleapis.com"

# Hosts whose keys are not the gateway's: sending a gateway key there is spec 5.3's fault.
VENDOR_HOSTS = (
    "api.openai.com",
    "chatgpt.com",
    "api.anthropic.com",
    "generativelanguage.googleapis.com",
    "aiplatform.googleapis.com",
    "dashscope.aliyuncs.com",
    "dashscope-intl.aliyuncs.com",
    "api.deepseek.com",
    "openrouter.ai",
    "api.mistral.ai",
    "api.groq.com",
    "api.x.ai",
)

_ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/responses", "/messages", "/models")


@record
class Normalized:
    url: str
    changes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def normalize_base_url(raw: str) -> Normalized:
    """Accept the forms users paste and return the canonical ``…/v1`` base, saying what changed."""
    text = raw.strip()
    result = Normalized(url="")
    if text != raw:
        result.changes.append("removed surrounding whitespace")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ProfileError(
            f"base address {raw!r} is not an http(s) URL.",
            "Use the gateway's address, e.g. https://gw.example.com/v1",
        )
    if not parts.hostname:
        raise ProfileError(f"base address {raw!r} has no host.", "Use e.g. https://gw.example.com/v1")
    if any(ch.isspace() for ch in text):
        raise ProfileError(
            f"base address {raw!r} contains spaces.", "Paste the address again, without spaces."
        )
    if parts.username or parts.password:
        raise ProfileError(
            "base address contains a user name or password (user:password@host).",
            "Remove the credentials from the address; put the key in the profile's key instead.",
        )
    if parts.query or parts.fragment:
        raise ProfileError(
            f"base address {raw!r} has a query or #fragment.",
            "Use only scheme, host and path, e.g. https://gw.example.com/v1",
        )
    host = parts.hostname
    try:
        host.encode("ascii")
    except UnicodeEncodeError:
        result.warnings.append(
            f"host {host!r} contains non-ASCII characters (a look-alike of another host?); check it carefully"
        )
    path = parts.path.rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            result.changes.append(f"removed the pasted endpoint {suffix!r}")
            break
    while path.endswith("/v1/v1"):
        path = path[: -len("/v1")]
        result.changes.append("removed a doubled /v1")
    if not path.endswith("/v1"):
        path = path + "/v1"
        result.changes.append("added /v1 (the gateway's base address ends in /v1)")
    elif parts.path.endswith("/"):
        result.changes.append("removed the trailing slash")
    netloc = parts.netloc.lower()
    result.url = urlunsplit((parts.scheme.lower(), netloc, path, "", ""))
    if parts.scheme == "http" and not is_loopback(host):
        result.warnings.append("plain http to a non-loopback host sends the key unencrypted; use https")
    if is_vendor_host(host):
        result.warnings.append(
            f"{host} is a vendor's official address, not a gateway: a gateway key is rejected there"
        )
    return result


def normalize_family_url(raw: str) -> str:
    """Anthropic-/Gemini-style roots: http(s), no query, no trailing slash."""
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProfileError(f"address {raw!r} is not an http(s) URL.", "Use e.g. https://gw.example.com")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ProfileError(
            f"address {raw!r} must hold only scheme, host and path.",
            "Remove any user:password@, ?query or #fragment; the key belongs in the profile, not the address.",
        )
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


def ip_literal(host: str | None) -> IPv4Address | IPv6Address | None:
    """``host`` as an IP address when it is one (brackets taken off), else None. A name never
    loads ``ipaddress``: every listing asks this of each client's address, and importing it was
    4.7M instructions of a ``status`` whose addresses are all names (issue 15)."""
    literal = (host or "").strip("[]")
    if not literal or (":" not in literal and literal.strip("0123456789.")):
        return None  # a name: an IPv4 address is digits and dots, an IPv6 one has a colon
    import ipaddress

    try:
        return ipaddress.ip_address(literal)
    except ValueError:
        return None


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    address = ip_literal(host)
    return address is not None and address.is_loopback


def is_vendor_host(host: str | None) -> bool:
    host = (host or "").lower()
    return any(host == v or host.endswith("." + v) for v in VENDOR_HOSTS)


def host_of(url: str | None) -> str | None:
    """The URL's host; None for no URL, and for a value that is not text (a reader asks this of
    what a client's file holds, before the adapter reports a list or a number there)."""
    if not url or not isinstance(url, str):
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def origin(url: str) -> str:
    """``host:port`` of an address, the port its scheme's when none is written: where a request
    goes (two addresses on one host but two ports are two servers)."""
    parts = urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme.lower(), 0)
    host = parts.hostname or ""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


# -- per-client forms --------------------------------------------------------------------------


def root(base_v1: str) -> str:
    """``https://gw/v1`` -> ``https://gw`` (what Anthropic- and Gemini-style SDKs want)."""
    return base_v1[: -len("/v1")] if base_v1.endswith("/v1") else base_v1


def with_slash(base_v1: str) -> str:
    return base_v1 + "/"


def chat_endpoint(base_v1: str) -> str:
    return base_v1 + "/chat/completions"


def host_only(base_v1: str) -> tuple[str, str]:
    """goose's built-in provider: ``OPENAI_HOST`` + ``OPENAI_BASE_PATH``."""
    parts = urlsplit(base_v1)
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")), (
        parts.path.lstrip("/") + "/chat/completions"
    )


def base_problems(url: str | None, expected_form: str) -> list[str]:
    """What is wrong with a client's base address, for doctor (a)."""
    if not url:
        return ["no base address is set (the client uses its vendor's official address)"]
    problems: list[str] = []
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if is_vendor_host(parts.hostname):
        problems.append(
            f"points at {parts.hostname}, a vendor's official address, which rejects a gateway key"
        )
    if "/v1/v1" in path:
        problems.append("/v1 is doubled (requests go to /v1/v1/...: 404)")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.endswith(suffix) and expected_form != "chat_endpoint":
            problems.append(f"ends in a pasted endpoint {suffix!r}")
    if expected_form == "v1" and not path.endswith("/v1") and not problems:
        problems.append("does not end in /v1")
    if expected_form == "root" and path.endswith("/v1"):
        problems.append("ends in /v1, but this client appends /v1 itself (requests go to /v1/v1/...)")
    return problems
