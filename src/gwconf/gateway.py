"""The four wire protocols, one small request each, classified into a fixed set of verdicts.

verify and doctor never trust a client's own error text (Claude Code retries a 401 for minutes,
Codex five times, seen in runs): they send the smallest real request themselves, with the
address, key, header and model the client would use, and say what came back (spec 4.1, 5.3,
5.6, 7).

Rules kept here, in one place:
- the key goes only to the URL being probed: never to a vendor's official host (spec 5.3; the
  fault is reported instead) and never through a redirect (a redirect is reported, not followed);
- httpx is imported inside ``_send`` only (it costs ~200 ms at start-up, measured), with
  ``trust_env=False`` so no proxy, netrc or environment setting reroutes the request; what a
  certificate is checked against is ``tls_trust``'s (the public authorities, the system's store
  and those the environment names);
- every body shown is trimmed and passed through ``secrets.redact`` with the key.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any
from urllib.parse import quote, urlsplit

from gwconf import __version__, secrets, urls
from gwconf.errors import ClientError, ExitCode
from gwconf.lazyre import lazy
from gwconf.records import field, record

# verdict -> (label for people, exit code). A fixed set: scripts may rely on these names.
VERDICTS: dict[str, tuple[str, int]] = {
    "ok": ("ok", ExitCode.OK),
    "key_rejected": ("key rejected", ExitCode.KEY_REJECTED),
    "forbidden": ("forbidden", ExitCode.GATEWAY_FAILED),
    "base_wrong": ("base address wrong", ExitCode.GATEWAY_FAILED),
    "model_unavailable": ("model not available", ExitCode.GATEWAY_FAILED),
    "route_failed": ("the gateway's route for the model failed", ExitCode.GATEWAY_FAILED),
    "rate_limited": ("rate limited", ExitCode.GATEWAY_FAILED),
    "gateway_error": ("gateway error", ExitCode.GATEWAY_FAILED),
    "unreachable": ("unreachable", ExitCode.GATEWAY_FAILED),
    "timeout": ("timeout", ExitCode.GATEWAY_FAILED),
    "malformed": ("malformed success", ExitCode.GATEWAY_FAILED),
}

WIRE_LABELS = {
    "chat": "chat completions",
    "responses": "Responses API",
    "messages": "Anthropic messages",
    "gemini": "Gemini generateContent",
}

PROMPT = "Reply with the single word: ok"
ANTHROPIC_VERSION = "2023-06-01"
MAX_BODY = 1 << 20  # read at most 1 MiB of any answer
REPLY_CHARS = 200
BODY_LINES = 5
BODY_LINE_CHARS = 200

KEY_REJECTED_REMEDY = (
    "The gateway itself rejects this key: use the gateway's base address with a correct key; "
    "create a new key in the gateway's console, or check that it was copied whole (no characters "
    "missing, no `sk-` stripped)."
)
NO_DB_REMEDY = (
    "This LiteLLM proxy has no key database, so it accepts only its master key: ask its operator for "
    "a key that works here (or to connect its database); a new key of your own cannot help."
)
ROUTE_REMEDY = "Tell the gateway's operator, or pick another model"
# a LiteLLM-style router answering 429 because every deployment of the model failed and rests
# what a gateway may add to the name of the model asked for: a date, a version, "latest"
_MODEL_VERSION = lazy(r"[-@:](\d{4}-?\d{2}-?\d{2}|\d{6,8}|v\d+(\.\d+)*|latest|\d{3,4})")
_COOLDOWN_WORDS = lazy(r"no deployments available|cooldown|cooling down", re.IGNORECASE)
_MODEL_CODES = (
    "model_not_found", "model_not_available", "model_not_supported", "invalid_model",
    "deploymentnotfound",  # Azure OpenAI: no deployment of that name
)  # fmt: skip
# codes (any case) that say the key itself is not accepted, whatever the status: an answer of 400
# or 403 with one of these is the spec's 401 invalid_api_key in another gateway's dialect
# (Gemini: 400 INVALID_ARGUMENT with details[].reason API_KEY_INVALID)
_KEY_CODES = frozenset(
    {"invalid_api_key", "incorrect_api_key", "invalid_key", "api_key_invalid", "invalid_authentication",
     "authentication_error", "unauthenticated", "key_invalid"}
)  # fmt: skip
# a 400 or 403 whose message says the key itself is wrong ("Invalid API key provided", with no
# code): key_rejected, as a 401 (a 403 was told "the key is valid but not allowed")
_KEY_WORDS = lazy(
    r"\b(invalid|incorrect|wrong|unknown|bad|expired|revoked|disabled|missing)\W+(api[ _-]?)?(key|token)\b"
    r"|\b(api[ _-]?key|token)\W+(is\W+)?(invalid|incorrect|expired|revoked|not valid|not found)\b",
    re.IGNORECASE,
)
# a 404 that says the path itself is unknown (OpenAI's and one-api's "Invalid URL (POST
# /v1/responses)", OpenAI's older "Unknown request URL"): the gateway has no such endpoint, where a
# LiteLLM 404 (NotFoundError from the model's upstream) is the model's route
_NO_ROUTE_WORDS = lazy(
    r"Invalid URL \((?:GET|POST) |Unknown request URL|\bno route (?:for|matches)\b", re.IGNORECASE
)
# what a quota or balance that is used up is called (one-api's 403 "该令牌额度已用尽": this key's
# quota is spent; 余额: balance)
_QUOTA_WORDS = lazy(r"quota|balance|credits|额度|余额", re.IGNORECASE)
_QUOTA_CODES = frozenset(
    {"insufficient_quota", "rate_limit_error", "resource_exhausted", "rate_limit_exceeded"}
)
# one-api / new-api: no channel of this key's group serves the model ("无可用渠道")
_CHANNEL_WORDS = lazy(r"无可用渠道|no available channel", re.IGNORECASE)
# a web server in front of the gateway telling plain http from https
_PLAIN_TO_TLS = lazy(
    r"plain HTTP request was sent to HTTPS port|sent an HTTP request to an HTTPS server|"
    r"speaking plain HTTP to an SSL-enabled server",
    re.IGNORECASE,
)
_MODEL_WORDS = lazy(
    r"model.*(not[ _]found|does not exist|not exist|not available|unavailable|not supported|unknown|"
    r"no available|not allowed|invalid)|(unknown|invalid|unsupported) model|no such model|^model: ",
    re.IGNORECASE | re.DOTALL,
)


@record
class Request:
    """Exactly what will be sent: the URL, the headers (the key among them) and the JSON body."""

    wire: str
    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    key: str
    model: str
    auth_header: str

    def public_headers(self) -> dict[str, str]:
        """The headers with the key masked, for display."""
        return {k: secrets.redact(v, [self.key]) for k, v in self.headers.items()}


@record
class Probe:
    """One request and its verdict. ``sent`` is False when gwconf refused to send the key."""

    wire: str
    url: str
    key_mask: str
    model: str | None
    verdict: str
    sent: bool = True
    status: int | None = None
    latency_ms: int | None = None
    reply: str | None = None
    body: list[str] = field(default_factory=list)  # first lines of the body on failure, key masked
    error_code: str | None = None  # the gateway's error code (invalid_api_key...)
    listed: list[str] | None = None  # the models GET /models listed with the same key, when asked
    envelope: bool = field(default=False, repr=False)  # the body was an API's error object
    detail: str = ""  # what the verdict means here
    remedy: str | None = None
    auth_header: str = "bearer"
    first_byte_ms: int | None = None  # time until the answer's headers arrived
    answered_model: str | None = None  # the model the reply names (``model``, Gemini's ``modelVersion``)

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    @property
    def substituted(self) -> bool:
        """The reply names another model than the one asked for (a warning, not a failure):
        the same name with a date or version suffix, or a ``provider/`` prefix, is the same model."""
        return bool(self.model and self.answered_model) and not same_model(
            self.model or "", self.answered_model or ""
        )

    @property
    def label(self) -> str:
        return VERDICTS[self.verdict][0]

    @property
    def exit_code(self) -> int:
        return VERDICTS[self.verdict][1]

    def to_json(self) -> dict[str, Any]:
        return {
            "wire": self.wire,
            "method": "POST",
            "url": self.url,
            "key": self.key_mask,
            "auth_header": self.auth_header,
            "model": self.model,
            "sent": self.sent,
            "status": self.status,
            "latency_ms": self.latency_ms,
            "first_byte_ms": self.first_byte_ms,
            "total_ms": self.latency_ms,
            "answered_model": self.answered_model,
            "model_substituted": self.substituted,
            "verdict": self.verdict,
            "verdict_label": self.label,
            "error_code": self.error_code,
            "reply": self.reply,
            "body": self.body,
            "detail": self.detail,
            "remedy": self.remedy,
            "listed_models": self.listed,
        }


# -- building the request ----------------------------------------------------------------------


def endpoint(wire: str, base_url: str, model: str, base_form: str = "v1") -> str:
    """The URL a client of this wire builds from its base address (in the client's own form).

    The base is used as the client would use it: a doubled or missing ``/v1`` stays visible.
    """
    base = base_url.rstrip("/")
    if wire == "chat":
        return base if base_form == "chat_endpoint" else base + "/chat/completions"
    if wire == "responses":
        return base + "/responses"
    if wire == "messages":
        return base + "/v1/messages"
    if wire == "gemini":
        name = model[len("models/") :] if model.startswith("models/") else model
        return f"{base}/v1beta/models/{quote(name, safe='')}:generateContent"
    raise ValueError(f"unknown wire {wire!r}")


def build(
    wire: str, base_url: str, key: str, model: str, *, auth_header: str = "bearer", base_form: str = "v1"
) -> Request:
    """The smallest real request of ``wire`` (spec 2.1 for chat; the vendors' shapes for the rest)."""
    if wire == "gemini" and auth_header == "bearer":
        auth_header = "x-goog-api-key"  # what Gemini-style clients send
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"gwconf/{__version__} (verify)",
    }
    if auth_header == "x-api-key":
        headers["x-api-key"] = key
    elif auth_header == "x-goog-api-key":
        headers["x-goog-api-key"] = key
    else:
        auth_header = "bearer"
        headers["Authorization"] = f"Bearer {key}"
    message = {"role": "user", "content": PROMPT}
    if wire == "chat":
        body: dict[str, Any] = {"model": model, "messages": [message]}
    elif wire == "responses":
        body = {"model": model, "input": PROMPT}
    elif wire == "messages":
        headers["anthropic-version"] = ANTHROPIC_VERSION
        body = {"model": model, "max_tokens": 16, "messages": [message]}
    elif wire == "gemini":
        body = {"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]}
    else:
        raise ValueError(f"unknown wire {wire!r}")
    url = endpoint(wire, base_url, model, base_form)
    return Request(wire, url, headers, body, key, model, auth_header)


def unusable_key(key: str) -> str | None:
    """Why no HTTP header can carry ``key`` as it is, if it cannot (then nothing is sent)."""
    if key != key.strip():
        return "has leading or trailing whitespace or a line break"
    if any(not (0x21 <= ord(ch) <= 0x7E) for ch in key):
        return "contains a space, a line break or a non-ASCII character"
    return None


# -- sending -----------------------------------------------------------------------------------


def probe(
    wire: str,
    base_url: str,
    key: str,
    model: str,
    *,
    auth_header: str = "bearer",
    base_form: str = "v1",
    timeout: float = 30.0,
    key_origin: str = "",
) -> Probe:
    """Send one request of ``wire`` and classify the answer.

    Raises ``ClientError`` when the key cannot be put in a header at all. Refuses (``sent`` False,
    verdict ``base_wrong``) when the host is a vendor's official address: a gateway key is not
    theirs (spec 5.3), and it must not leave for a host that is not the gateway.
    """
    where = f" (from {key_origin})" if key_origin else ""
    problem = unusable_key(key)
    if problem:
        raise ClientError(
            f"the key{where} {problem}: no client can send it as it is ({secrets.mask(key)}).",
            "Put the key in again without the extra characters (gwconf apply CLIENT writes it cleanly).",
        )
    request = build(wire, base_url, key, model, auth_header=auth_header, base_form=base_form)
    result = Probe(
        wire=wire,
        url=request.url,
        key_mask=secrets.mask(key),
        model=model,
        verdict="ok",
        auth_header=request.auth_header,
    )
    parts = urlsplit(request.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        result.sent = False
        result.verdict = "base_wrong"
        result.detail = f"{request.url} is not an http(s) address; nothing was sent."
        return result
    if urls.is_vendor_host(parts.hostname):
        result.sent = False
        result.verdict = "base_wrong"
        result.detail = (
            f"{parts.hostname} is a vendor's official address, not the gateway: it does not know a "
            "gateway key and answers 401 invalid_api_key. gwconf did not send the key there."
        )
        result.remedy = "Point the client at the gateway's address (gwconf apply CLIENT)."
        return result
    result = _send(request, result, timeout)
    if _worth_a_second_look(result):
        second_look(request, result, timeout)
    return result


class Deadline:
    """``--timeout`` as a deadline for the whole exchange: connect, headers and body.

    httpx's timeouts are per socket operation, so a gateway dripping one byte every half second
    never trips them (``verify --timeout 1`` waited for the whole drip, up to days). A timer shuts
    the request's socket when the deadline passes, which ends any blocked read at once; the
    caller then reports ``timeout`` (``expired``). The socket comes from httpcore's documented
    ``trace`` extension (``connection.connect_tcp.complete`` / ``start_tls.complete``)."""

    def __init__(self, seconds: float) -> None:
        import threading

        self.seconds = seconds
        self.expired = False
        self._lock = threading.Lock()
        self._streams: list[Any] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            with self._lock:
                self._streams.append(info.get("return_value"))
                if self.expired:
                    self._shut()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            self._shut()

    def _shut(self) -> None:
        import socket

        for stream in self._streams:
            sock = stream.get_extra_info("socket") if stream is not None else None
            try:
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def _send(request: Request, result: Probe, timeout: float) -> Probe:
    import httpx  # lazily: only the commands that send requests pay for it

    started = time.monotonic()
    deadline = Deadline(timeout)
    try:
        client = httpx.Client(
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(timeout),
            verify=tls_trust(request.url),
            headers=ACCEPTED_ENCODINGS,
        )
        with (
            deadline,
            client,
            client.stream(
                "POST",
                request.url,
                headers=request.headers,
                json=request.body,
                extensions={"trace": deadline.trace},
            ) as response,
        ):
            result.first_byte_ms = _ms(started)
            phase = "reading the answer"
            raw, undecodable = read_body(response, MAX_BODY, deadline)
            status = response.status_code
            content_type = response.headers.get("content-type", "")
            location = response.headers.get("location")
        if deadline.expired:
            return _timed_out(result, started, timeout, phase)
    except httpx.TimeoutException as exc:
        phase = "connecting" if isinstance(exc, httpx.ConnectTimeout) else "waiting for the answer"
        return _timed_out(result, started, timeout, phase)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        result.verdict = "base_wrong"
        result.sent = False
        result.detail = f"the address cannot be used: {exc}"
        return result
    except httpx.HTTPError as exc:
        if deadline.expired:  # the deadline shut the socket: not the server's doing
            return _timed_out(result, started, timeout, "waiting for the answer")
        result.latency_ms = _ms(started)
        if isinstance(exc, httpx.RemoteProtocolError):
            result.verdict = "gateway_error"
            result.detail = f"the server broke the HTTP exchange ({_reason(exc)})."
        elif isinstance(exc, (httpx.ReadError, httpx.WriteError)):  # connected: then cut off
            result.verdict = "gateway_error"
            result.detail = (
                f"the server accepted the connection, then closed it before answering ({_reason(exc)}). "
                "Not a key fault: the gateway, or something in front of it, dropped the request."
            )
        else:
            result.verdict = "unreachable"
            result.detail = _network_detail(exc, urlsplit(request.url).hostname or "")
            if _is_certificate_failure(exc):
                result.remedy = PRIVATE_CA_REMEDY
            elif request.url.startswith("https:") and "wrong_version_number" in str(exc).lower():
                # a TLS hello answered in plain http (the newcomer sweep: the error alone named
                # no way out)
                result.remedy = "The server on that port speaks plain http: write the address with http://."
            result.remedy = _with_proxy_note(result.remedy)
        return result
    result.latency_ms = _ms(started)
    result.status = status
    if undecodable is not None and 200 <= status < 300:
        result.verdict = "gateway_error"
        result.detail = f"HTTP {status}, but the answer could not be decoded ({undecodable})."
        return result
    classify(result, bytes(raw), content_type, location, request.key)
    if undecodable is not None:
        result.detail += f" (Its body could not be decoded: {undecodable}.)"
    return result


# the encodings ``read_body`` undoes, asked for by name: httpx would add brotli's and zstd's
# wherever those libraries happen to be installed
ACCEPTED_ENCODINGS = {"Accept-Encoding": "gzip, deflate"}


def read_body(response: Any, limit: int, deadline: Deadline) -> tuple[bytes, str | None]:
    """The answer's body, its ``Content-Encoding`` undone, cut at ``limit`` bytes; and why it
    could not be unpacked (None when it could). Read packed, at most ``limit`` bytes of it, and
    each layer unpacked to at most ``limit``: httpx unpacks each piece whole as it comes, and a
    7 KB answer packed twice over (``gzip, gzip``) grew to 4 GB in one piece, past every limit
    and the deadline, until gwconf ran out of memory (found with a hostile test gateway)."""
    import zlib

    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    packed = bytearray()
    try:
        for chunk in response.iter_raw():
            packed += chunk
            if len(packed) >= limit or deadline.expired:
                break
    except Exception:
        if not packed:
            raise
        # cut off after some of the body (the deadline, a reset): the status and what came are
        # the answer's; the caller tells a deadline apart
    body = bytes(packed[:limit])
    for coding in reversed(codings):  # the last one applied comes off first
        if coding in ("gzip", "x-gzip"):
            wrappings = [zlib.MAX_WBITS | 16]
        elif coding == "deflate":  # zlib's wrapping, or (as some servers send it) raw deflate
            wrappings = [zlib.MAX_WBITS, -zlib.MAX_WBITS]
        else:
            return body, f"{coding}: an encoding gwconf did not ask for"
        for n, wbits in enumerate(wrappings, 1):
            try:
                body = zlib.decompressobj(wbits).decompress(body, limit)
                break
            except zlib.error as exc:
                if n == len(wrappings):
                    return b"", f"{coding}: {exc}"
    return body, None


def _timed_out(result: Probe, started: float, timeout: float, phase: str) -> Probe:
    result.latency_ms = _ms(started)
    result.verdict = "timeout"
    result.detail = f"no answer within {timeout:g} s ({phase})."
    result.remedy = "Try again with a longer --timeout; if it persists, the gateway is overloaded or down."
    if phase == "connecting" and result.url.startswith("https:"):  # a TLS hello to a plain port hangs
        result.remedy += " If the server on that port speaks plain http, write the address with http://."
    if phase == "connecting":
        result.remedy = _with_proxy_note(result.remedy)
    return result


_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


def _with_proxy_note(remedy: str | None) -> str | None:
    """``remedy``, and, when a proxy variable is set, that verify went direct: a network that
    allows no direct connection fails verify where a client that takes the proxy may get
    through, and "unreachable" alone read as the gateway being down. verify never takes the
    proxy (``trust_env=False``): it hands the key to no host the user did not name."""
    import os

    named = next((n for n in _PROXY_VARIABLES if os.environ.get(n)), None)
    if named is None:
        return remedy
    note = (
        f"${named} is set, and verify connects directly, never through a proxy; on a network "
        "that allows no direct connection the clients that take the proxy may still get through."
    )
    return f"{remedy} {note}" if remedy else note


# the variables that name certificate authorities a user's tools trust beyond the public ones
# (a company's own, a TLS-inspecting proxy's): OpenSSL's (and Python's, curl's), requests', Node's
CA_VARIABLES = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
)
PRIVATE_CA_REMEDY = (
    "If the gateway's certificate comes from a private authority (a company's, or a proxy that "
    "inspects TLS), name that authority's certificate file in NODE_EXTRA_CA_CERTS (what Node "
    "clients read) or SSL_CERT_FILE: gwconf trusts those, the system's store and the public "
    "authorities."
)
_TRUST: dict[tuple[str, ...], Any] = {}  # the context built for each set of those variables' values


def tls_trust(url: str) -> Any:
    """What httpx verifies ``url``'s certificate with: False for plain http (no TLS; building a
    context costs ~40 ms), else an SSL context trusting the public authorities (certifi, httpx's
    own default), the system's store, and each certificate file or folder the environment names
    (``CA_VARIABLES``). With certifi alone, a gateway behind a company's own authority failed
    verify's TLS handshake while the clients, which the user had pointed at that authority (or
    which read the system's store: Codex), reached it. Read from the process's environment:
    OpenSSL reads SSL_CERT_FILE and SSL_CERT_DIR from there too."""
    if not url.startswith("https:"):
        return False
    import os

    named = tuple(os.environ.get(name, "") for name in CA_VARIABLES)
    context = _TRUST.get(named)
    if context is None:
        import ssl

        try:  # httpx's own default (it depends on certifi)
            import certifi

            context = ssl.create_default_context(cafile=certifi.where())
        except ImportError:
            context = ssl.create_default_context()
        context.load_default_certs()  # the system's store (OpenSSL's paths, or SSL_CERT_FILE/_DIR)
        for name, value in zip(CA_VARIABLES, named, strict=True):
            if not value:
                continue
            try:
                if name == "SSL_CERT_DIR":
                    context.load_verify_locations(capath=value)
                else:
                    context.load_verify_locations(cafile=value)
            except (OSError, ValueError, ssl.SSLError):  # a missing or unreadable file: its tools fail too
                continue
        _TRUST[named] = context
    return context


def _is_certificate_failure(exc: BaseException) -> bool:
    reason = _reason(exc).lower()
    return "certificate" in reason and ("verify" in reason or "issuer" in reason or "self-signed" in reason)


def _ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))


def _reason(exc: BaseException) -> str:
    """The innermost cause's message: httpx wraps socket and TLS errors."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return str(exc) or type(exc).__name__


def _network_detail(exc: BaseException, host: str) -> str:
    reason = _reason(exc)
    low = reason.lower()
    if any(
        w in low for w in ("name or service not known", "nodename nor servname", "getaddrinfo", "no address")
    ):
        return f"the host name {host} cannot be resolved (DNS): check the address for typos. ({reason})"
    if "refused" in low:
        return f"{host} refused the connection: nothing listens on that port. ({reason})"
    if "certificate" in low or "ssl" in low or "tls" in low:
        return f"the TLS handshake with {host} failed: {reason}"
    return f"could not connect to {host}: {reason}"


# -- the gateway's fault or the user's: one GET /models with the same key -----------------------


def _worth_a_second_look(result: Probe) -> bool:
    """A 401, a 404 that is an API's error answer, or "model not available": maybe the key and the
    address are fine and only the gateway's route for this model failed (its upstream refused the
    gateway's own credential, or is gone). A bare 404 page (nothing answers there) is not asked about."""
    if not result.sent or result.status is None:
        return False
    if result.verdict == "key_rejected" and result.remedy != NO_DB_REMEDY:  # 401, or its code elsewhere
        return True
    if result.verdict == "model_unavailable":
        return True
    return result.status == 404 and result.verdict == "base_wrong" and result.envelope


def models_url_of(request: Request) -> str | None:
    """``GET …/models`` at the base address the request was built from (OpenAI-style, Bearer)."""
    url = request.url
    if request.wire == "gemini":
        root = url.split("/v1beta/models/", 1)[0]
        return root + "/v1/models" if root != url else None
    for suffix in ("/chat/completions", "/responses", "/messages"):
        if url.endswith(suffix):
            return url[: -len(suffix)] + "/models"
    return None


MADE_UP_KEY = "sk-gwconf-no-such-key-0000000000000000"  # no gateway issued it


def second_look(request: Request, result: Probe, timeout: float) -> None:
    """Ask ``GET {base}/models`` with the same key; a 200 list there means the gateway accepts the
    key at this address, so a 401 or 404 from the completion is the gateway's route for the model.

    Nothing here reads a gateway's wording but a 404's that names the path itself as unknown
    (``_NO_ROUTE_WORDS``): the status and the list's shape decide. A list that the gateway also
    gives without any key, or with a made-up one, says nothing about the key; the verdict stands.
    """
    from gwconf import models

    url = models_url_of(request)
    if url is None:
        return
    listed = models.list_at(url, request.key, min(timeout, 10.0))
    if listed is None or models.list_at(url, None, min(timeout, 10.0)) is not None:
        return
    # nor does one it gives any key at all (a proxy passing the list through unchecked: a 401
    # invalid_api_key became "the gateway accepts your key"; the hostile-gateway sweep)
    if models.list_at(url, MADE_UP_KEY, min(timeout, 10.0)) is not None:
        return
    result.listed = listed
    model = request.model
    shown = models.listing(model, listed)
    status = result.status
    if model not in listed:
        result.verdict = "model_unavailable"
        result.detail = (
            f"HTTP {status}: the gateway does not serve {model!r} to this key; GET {url} with the same "
            f"key answered 200 and lists {len(listed)} other model{'s' if len(listed) != 1 else ''}."
        )
        result.remedy = f"Pick a model the gateway serves: {shown}."
        return
    if (
        status == 404
        and result.verdict == "base_wrong"
        and request.wire in ("responses", "messages")
        and _NO_ROUTE_WORDS.search("\n".join(result.body or ()))
    ):
        # the model is listed and the key works: what is missing is this protocol's endpoint (a
        # gateway that speaks chat only answers "Invalid URL (POST /v1/responses)"), not the
        # model's route; "pick another model" sent users the wrong way (the hostile-gateway sweep)
        result.detail = (
            f"HTTP 404 from {request.url}, but GET {url} with the same key answered 200 and lists "
            f"{model!r}: the key and the address work, and this gateway does not serve "
            f"{'the ' if request.wire == 'responses' else ''}{WIRE_LABELS[request.wire]} there."
        )
        return
    result.verdict = "route_failed"
    result.detail = (
        f"HTTP {status} from the completion, but GET {url} with the same key answered 200 and lists "
        f"{model!r}: the gateway accepts your key; its route for model {model!r} failed."
    )
    result.remedy = f"{ROUTE_REMEDY}: {shown}."


# -- classifying the answer ---------------------------------------------------------------------


def classify(result: Probe, raw: bytes, content_type: str, location: str | None, key: str) -> Probe:
    """Turn status and body into a verdict the user can act on (spec 5.6, 7: key, address, model...)."""
    status = result.status or 0
    text = decoded(raw)
    html = _is_html(text, content_type)
    data = json_body(text)
    if 200 <= status < 300:
        return _succeeded(result, status, text, content_type, html, data, key)
    if 300 <= status < 400:
        where = f" to {location}" if location else ""
        if location and _to_https(result.url, location):  # a server redirecting plain http
            result.remedy = "The gateway redirects to https://: write its address with https://."
        return _fail(
            result, "base_wrong", text, key,
            f"HTTP {status}: redirected{where} (a login page?). API endpoints do not redirect; gwconf does "
            "not follow redirects, so the key went nowhere else.",
        )  # fmt: skip
    return _refused(result, status, f"HTTP {status}", text, html, data, key)


def _to_https(url: str, location: str) -> bool:
    """Whether ``location`` is ``url`` itself over https (a server sending plain http there)."""
    return (
        url.startswith("http://")
        and urlsplit(location).hostname == urlsplit(url).hostname
        and (location.startswith("https://"))
    )


def _succeeded(
    result: Probe, status: int, text: str, content_type: str, html: bool, data: Any, key: str
) -> Probe:
    """A 2xx answer: the reply, or the error it carries after all (a stream that broke off with an
    error event, a gateway that answers 200 with an error object: real ones do both)."""
    if html:
        return _fail(
            result, "base_wrong", text, key,
            "an HTML page came back instead of JSON: the address serves a web page (the gateway's "
            "console?), not the API. Is /v1 missing or in the wrong place?",
        )  # fmt: skip
    stream = _is_stream(text, content_type)
    broke = _stream_error(result.wire, text) if stream else None
    if broke is not None:
        event, got = broke
        after = f" after {len(got)} characters of reply" if got else ""
        return _refused(
            result, _implied_status(event), f"HTTP {status}, but the stream ended with an error{after}",
            text, False, event, key,
        )  # fmt: skip
    reply = read_reply(result.wire, text, content_type)
    if reply is None and not stream and carries_error(data):
        return _refused(
            result, _implied_status(data), f"HTTP {status}, but the body is an error", text, False, data, key
        )
    if reply is None and _reasoning_only(result.wire, text, data):
        result.reply = ""
        result.answered_model = reply_model(result.wire, text)
        result.detail = (
            "the gateway answered: the model's reasoning came back, but no text within the reply's token "
            "limit (a reasoning model). The key, the address and the model work."
        )
        return result
    if reply is None:
        return _fail(
            result, "malformed", text, key,
            f"HTTP {status}, but no reply text could be read from the answer ({_expected(result.wire)} missing).",
        )  # fmt: skip
    result.reply = _trim(secrets.redact(reply, [key]))
    result.answered_model = reply_model(result.wire, text)
    result.detail = (
        "the gateway answered with content."
        if reply.strip()
        else "the gateway answered, with an empty reply."
    )
    return result


def _refused(result: Probe, status: int, said: str, text: str, html: bool, data: Any, key: str) -> Probe:
    """An answer that is an error: ``status`` is the HTTP status, or the one a 2xx answer's error
    stands for (``said`` names what came back, for the detail)."""
    code, message = _error_of(data)
    kind = _error_type(data)
    if code is not None and code == str(status):  # a code that only repeats the status says nothing
        code = kind if kind != code else None
    result.error_code = code
    result.envelope = _has_envelope(data)
    codes = {c.lower() for c in (code, kind, *_error_reasons(data)) if c}
    named = f" with error code {code}" if code else ""
    if "no_db_connection" in codes:
        result.remedy = NO_DB_REMEDY
        return _fail(
            result, "key_rejected", text, key,
            f"{said} no_db_connection: the gateway (a LiteLLM proxy) has no key database, so it "
            "accepts no key but its master key.",
        )  # fmt: skip
    if (
        status == 401
        or codes & _KEY_CODES
        or (status in (400, 403) and message and _KEY_WORDS.search(message))
    ):
        result.remedy = KEY_REJECTED_REMEDY
        return _fail(
            result, "key_rejected", text, key, f"{said}{named}: the gateway does not accept this key."
        )
    if (
        codes & set(_MODEL_CODES)
        or (status in (400, 403, 404, 422) and message and _MODEL_WORDS.search(message))
        or (message and _CHANNEL_WORDS.search(message))
    ):
        result.remedy = "Pick a model the gateway serves (--model NAME, or the profile's model)."
        return _fail(
            result,
            "model_unavailable",
            text,
            key,
            f"{said}{named}: the gateway does not serve {result.model!r}.",
        )
    if status == 407:
        result.remedy = "Ask who runs the network for the proxy's settings, or use a network without it."
        return _fail(
            result, "gateway_error", text, key,
            f"{said}: a proxy between you and the gateway wants a login of its own; the request did not "
            "reach the gateway. Not a key or address fault.",
        )  # fmt: skip
    if status == 400 and _PLAIN_TO_TLS.search(text):
        result.remedy = "Write the base address with https:// (gwconf profile edit, then gwconf use)."
        return _fail(
            result, "base_wrong", text, key,
            f"{said}: the address says http://, but the server on that port speaks https://.",
        )  # fmt: skip
    if status == 403 and not (codes & _QUOTA_CODES or (message and _QUOTA_WORDS.search(message))):
        why = (
            "an HTML page: a firewall (WAF) or user-agent filter in front of the gateway"
            if html
            else "the key is valid but not allowed to do this (its group or scope)"
        )
        return _fail(result, "forbidden", text, key, f"{said}: {why}.")
    if status in (404, 405):
        return _fail(
            result, "base_wrong", text, key,
            f"{said}: nothing answers at {result.url}. The base address is wrong: /v1 missing or "
            "doubled, a pasted /chat/completions, or this gateway does not speak this protocol there.",
        )  # fmt: skip
    if status == 429 and (
        "all_deployments_in_cooldown" in codes or (message and _COOLDOWN_WORDS.search(message))
    ):
        result.remedy = f"{ROUTE_REMEDY}; it may answer again once the cooldown ends."
        return _fail(
            result, "route_failed", text, key,
            f"{said}: every deployment of {result.model!r} behind the gateway is resting after "
            "failures (cooldown): the model's upstream is failing, not the key's quota.",
        )  # fmt: skip
    if status in (402, 403, 429) or codes & _QUOTA_CODES:
        result.remedy = "Wait and retry, or check the key's quota and balance in the gateway's console."
        what = "too many requests or quota exhausted" if status == 429 else "quota or balance exhausted"
        return _fail(result, "rate_limited", text, key, f"{said}{named}: {what}. Not a key or address fault.")
    if status >= 500:
        return _fail(
            result, "gateway_error", text, key,
            f"{said}{named}: the gateway or the model behind it failed. Not a key or address fault; retry later.",
        )  # fmt: skip
    if html:
        return _fail(
            result, "base_wrong", text, key, f"{said} with an HTML page: the address is not the API."
        )
    return _fail(result, "gateway_error", text, key, f"{said}{named}: the gateway refused the request.")


def _implied_status(data: Any) -> int:
    """The HTTP status a 2xx answer's error stands for: its own numeric code where it gives one
    (one-api's ``{"code": 401, "msg": ...}``), else 502 (the gateway or its model failed); the
    codes themselves are read as for any error (``_refused``)."""
    error = data.get("error") if isinstance(data, dict) else None
    for holder in (error, data):
        value = holder.get("code") if isinstance(holder, dict) else None
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 400 <= value <= 599:
            return value
    return 502


def carries_error(data: Any) -> bool:
    """A body that is an error object, not a reply: ``{"error": ...}``, or a numeric error code
    with a message beside it (``{"code": 401, "msg": "invalid token"}``)."""
    if not isinstance(data, dict):
        return False
    if data.get("error"):
        return True
    return _implied_status(data) != 502 and isinstance(data.get("msg", data.get("message")), str)


def reply_model(wire: str, text: str) -> str | None:
    """The model a successful answer says it came from: ``model`` (chat, Responses, messages; in a
    stream, the first event naming one) or Gemini's ``modelVersion``."""
    field_name = "modelVersion" if wire == "gemini" else "model"
    data = json_body(text)
    for event in [data] if isinstance(data, dict) else _events(text):
        for holder in (
            event,
            event.get("response"),
            event.get("message"),
        ):  # Responses / messages streams nest it
            value = holder.get(field_name) if isinstance(holder, dict) else None
            if isinstance(value, str) and value.strip():
                return value.strip()[:200]
    return None


def same_model(asked: str, answered: str) -> bool:
    """``gpt-4o`` answered as ``gpt-4o-2024-08-06`` or ``openai/gpt-4o`` is the same model;
    ``gpt-4o`` answered as ``gpt-4o-mini`` or ``deepseek-chat`` is not."""

    def base(name: str) -> str:
        name = name.strip().lower().removeprefix("models/")
        return name.rsplit("/", 1)[-1]

    a, b = base(asked), base(answered)
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    rest = long[len(short) :]
    return long.startswith(short) and bool(_MODEL_VERSION.fullmatch(rest))


def _fail(result: Probe, verdict: str, text: str, key: str, detail: str) -> Probe:
    result.verdict = verdict
    result.detail = detail
    result.body = first_lines(text, key)
    return result


def _expected(wire: str) -> str:
    return {
        "chat": "choices[0].message.content",
        "responses": "output[].content[].text",
        "messages": "content[].text",
        "gemini": "candidates[0].content.parts[].text",
    }[wire]


def first_lines(text: str, key: str) -> list[str]:
    """The first lines of a body for diagnostics (spec 4.1 rule 3), each trimmed, any key masked."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()][:BODY_LINES]
    return [_trim(secrets.redact(line, [key]), BODY_LINE_CHARS) for line in lines]


def _trim(text: str, limit: int = REPLY_CHARS) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def _is_html(text: str, content_type: str) -> bool:
    if "html" in content_type.lower():
        return True
    head = text.lstrip()[:15].lower()
    return head.startswith(("<!doctype", "<html", "<head", "<body"))


def decoded(raw: bytes) -> str:
    """An answer's text: UTF-8, a byte-order mark before it dropped (Python's json and Node's fetch
    read JSON after one; a gateway that sent one got "malformed" from verify and init)."""
    return raw.decode("utf-8-sig", errors="replace")


def json_body(text: str) -> Any:
    """The body as JSON, or None (not JSON; or nested past the parser's depth, which a hostile
    gateway can send: ``[[[…]]]`` 100,000 deep was a RecursionError and a crash report)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _is_stream(text: str, content_type: str) -> bool:
    return "event-stream" in content_type.lower() or text.lstrip().startswith(("data:", "event:"))


def _events(text: str) -> list[dict[str, Any]]:
    """The JSON objects of an SSE answer's ``data:`` lines, in order."""
    found = []
    for line in text.splitlines():
        if line.startswith("data:"):
            event = json_body(line[len("data:") :].strip())
            if isinstance(event, dict):
                found.append(event)
    return found


def _stream_error(wire: str, text: str) -> tuple[dict[str, Any], str] | None:
    """The error a stream ended with (as an error object for ``_refused``) and the reply read
    before it; None for a stream without one. Gateways send a failure after the first deltas as an
    event: ``{"error": ...}`` (OpenAI-style, LiteLLM, OpenRouter), ``finish_reason: "error"``,
    Anthropic's ``error`` event, the Responses API's ``response.failed`` and ``error``."""
    for event in _events(text):
        error: Any = None
        if event.get("error"):
            error = event["error"]
        elif wire == "chat" and any(
            isinstance(choice, dict) and choice.get("finish_reason") == "error"
            for choice in _list(event.get("choices"))
        ):
            error = {"message": 'the stream\'s finish_reason was "error"'}
        elif wire == "responses" and event.get("type") == "response.failed":
            response = event.get("response")
            failed = response.get("error") if isinstance(response, dict) else None
            error = failed if isinstance(failed, dict) else {"message": "response.failed"}
        elif event.get("type") == "error":
            error = {key: event[key] for key in ("code", "message", "type") if key in event}
        if error is not None:
            return {"error": error if isinstance(error, (dict, str)) else str(error)}, _read_stream(
                wire, text
            ) or ""
    return None


def _reasoning_only(wire: str, text: str, data: Any) -> bool:
    """A 2xx answer holding only the model's reasoning: a reasoning model spent the reply's token
    limit thinking (Anthropic's ``thinking`` blocks within verify's ``max_tokens``, a chat
    ``reasoning_content`` with ``content: null``, Gemini's ``thought`` parts)."""
    events = [data] if isinstance(data, dict) else _events(text)
    for event in events:
        if wire == "chat":
            for choice in _list(event.get("choices")):
                said = (choice.get("message") or choice.get("delta")) if isinstance(choice, dict) else None
                if isinstance(said, dict) and any(
                    isinstance(said.get(k), str) and said[k] for k in ("reasoning_content", "reasoning")
                ):
                    return True
        elif wire == "messages":
            blocks = _list(event.get("content")) or [event.get("content_block"), event.get("delta")]
            if any(
                isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking", "thinking_delta")
                for b in blocks
            ):
                return True
        elif wire == "responses":
            items = _list(event.get("output")) or [event.get("item")]
            if any(isinstance(item, dict) and item.get("type") == "reasoning" for item in items):
                return True
        elif wire == "gemini":
            for candidate in _list(event.get("candidates")):
                content = candidate.get("content") if isinstance(candidate, dict) else None
                parts = _list(content.get("parts")) if isinstance(content, dict) else []
                if any(isinstance(p, dict) and p.get("thought") is True for p in parts):
                    return True
    return False


def _error_reasons(data: Any) -> list[str]:
    """Gemini's ``error.details[].reason`` (``API_KEY_INVALID`` under a 400 INVALID_ARGUMENT)."""
    error = data.get("error") if isinstance(data, dict) else None
    details = _list(error.get("details")) if isinstance(error, dict) else []
    return [d["reason"] for d in details if isinstance(d, dict) and isinstance(d.get("reason"), str)]


def _has_envelope(data: Any) -> bool:
    """An API's error answer (``{"error": ...}``, Anthropic's too), not a web server's own page."""
    return isinstance(data, dict) and "error" in data


def _error_type(data: Any) -> str | None:
    error = data.get("error") if isinstance(data, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None


def _error_of(data: Any) -> tuple[str | None, str | None]:
    """(code, message) from OpenAI-, Anthropic- or Gemini-shaped error bodies."""
    if not isinstance(data, dict):
        return None, None
    error = data.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        if not isinstance(code, str):
            code = error.get("status") if isinstance(error.get("status"), str) else error.get("type")
        message = error.get("message")
        return (code if isinstance(code, str) else None), (message if isinstance(message, str) else None)
    if isinstance(error, str):
        return None, error
    message = data.get("message", data.get("msg"))  # one-api: {"code": 401, "msg": "..."}
    return None, message if isinstance(message, str) else None


# -- reading the reply, per wire -------------------------------------------------------------------


def read_reply(wire: str, text: str, content_type: str = "") -> str | None:
    """The model's text from a success body (JSON, or an SSE stream from a gateway that always streams)."""
    if _is_stream(text, content_type):
        return _read_stream(wire, text)
    data = json_body(text)
    if not isinstance(data, dict):
        return None
    return _READERS[wire](data)


def _chat(data: dict[str, Any]) -> str | None:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


def _responses(data: dict[str, Any]) -> str | None:
    text = data.get("output_text")
    if isinstance(text, str):
        return text
    texts = [
        part["text"]
        for item in _list(data.get("output"))
        if isinstance(item, dict)
        for part in _list(item.get("content"))
        if isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("text"), str)
    ]
    return "".join(texts) if texts else None


def _messages(data: dict[str, Any]) -> str | None:
    texts = [
        block["text"]
        for block in _list(data.get("content"))
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "".join(texts) if texts else None


def _gemini(data: dict[str, Any]) -> str | None:
    candidates = _list(data.get("candidates"))
    if not candidates or not isinstance(candidates[0], dict):
        return None
    content = candidates[0].get("content")
    parts = _list(content.get("parts")) if isinstance(content, dict) else []
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "".join(texts) if texts else None


_READERS = {"chat": _chat, "responses": _responses, "messages": _messages, "gemini": _gemini}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _read_stream(wire: str, text: str) -> str | None:
    """Collect the text of an SSE answer: deltas, or the final event's full object."""
    pieces: list[str] = []
    final: str | None = None
    for event in _events(text):  # "[DONE]" and blank payloads are no JSON object
        if wire == "chat":
            for choice in _list(event.get("choices")):
                delta = choice.get("delta") if isinstance(choice, dict) else None
                if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                    pieces.append(delta["content"])
        elif wire == "responses":
            kind = event.get("type")
            if kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
                pieces.append(event["delta"])
            elif kind == "response.completed" and isinstance(event.get("response"), dict):
                final = _responses(event["response"])
        elif wire == "messages":
            delta = event.get("delta")
            if (
                event.get("type") == "content_block_delta"
                and isinstance(delta, dict)
                and isinstance(delta.get("text"), str)
            ):
                pieces.append(delta["text"])
        elif wire == "gemini":
            piece = _gemini(event)
            if piece is not None:
                pieces.append(piece)
    if final is not None:
        return final
    return "".join(pieces) if pieces else None


def overall_exit(codes: list[int]) -> int:
    """One exit code for several results: a key held back from an address nobody chose first, then
    a rejected key (the most specific), then any other gateway failure, then doctor's client fault,
    then expected errors."""
    for code in (
        ExitCode.UNTRUSTED_ADDRESS,  # a key nearly went where the user never chose: say that first
        ExitCode.KEY_REJECTED,
        ExitCode.GATEWAY_FAILED,
        ExitCode.CLIENT_CONFIG,
        ExitCode.ERROR,
    ):
        if int(code) in codes:
            return int(code)
    return next((c for c in codes if c), 0)
