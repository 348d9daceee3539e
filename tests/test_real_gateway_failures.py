"""How real gateways fail, in ways the spec-following test gateway never does (the sixteenth
round's sweep of LiteLLM's, OpenRouter's, one-api's, Gemini's, Azure's and their proxies'
answers): each shape gets the verdict that names its real cause.

A canned server on 127.0.0.1 gives one fixed answer (status, headers, body bytes) to every
request, or cuts the connection: what a real gateway in that state sent.
"""

from __future__ import annotations

import gzip
import json
import socket
import struct
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gwconf import gateway as gw
from tests.conftest import invoke

KEY = "sk-canned-0123456789abcdefWXYZ"


class Canned:
    """One answer for every request; ``reset`` cuts each connection once the request is read."""

    def __init__(
        self, status: int, body: bytes | str, headers: dict[str, str] | None = None, *, reset: bool = False
    ):
        self.status = status
        self.body = body.encode() if isinstance(body, str) else body
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.reset = reset
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                if canned.reset:  # RST, not FIN: the peer sees a reset connection
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    return
                self.send_response(canned.status)
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(canned.body)))
                self.end_headers()
                self.wfile.write(canned.body)

            do_POST = do_GET = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Canned:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _probe(answer: Canned, wire: str = "chat") -> gw.Probe:
    with answer:
        base = answer.url + "/v1" if wire in ("chat", "responses") else answer.url
        return gw.probe(wire, base, KEY, "gpt-4o", timeout=5)


def _sse(*events: Any, event_names: tuple[str | None, ...] = ()) -> str:
    lines = []
    for i, event in enumerate(events):
        name = event_names[i] if i < len(event_names) else None
        lines.append((f"event: {name}\n" if name else "") + f"data: {json.dumps(event)}\n\n")
    return "".join(lines)


SSE = {"Content-Type": "text/event-stream"}
DELTA = {"choices": [{"delta": {"content": "Hel"}, "finish_reason": None}]}
DEEP = '{"error": ' + "[" * 100_000 + "]" * 100_000 + "}"


# -- a stream that breaks off is no success --------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "body"),
    [
        # LiteLLM, OpenRouter: an error object after the first deltas
        (
            "chat",
            _sse(DELTA, {"error": {"message": "upstream overloaded", "code": 502}}) + "data: [DONE]\n\n",
        ),
        ("chat", _sse(DELTA, {"choices": [{"delta": {}, "finish_reason": "error"}]})),
        # Anthropic's error event after a text delta
        (
            "messages",
            _sse(
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                event_names=("content_block_delta", "error"),
            ),
        ),
        # the Responses API's response.failed after a delta
        (
            "responses",
            _sse(
                {"type": "response.output_text.delta", "delta": "Hel"},
                {
                    "type": "response.failed",
                    "response": {"error": {"code": "server_error", "message": "boom"}},
                },
            ),
        ),
        # only an error event
        ("chat", _sse({"error": {"message": "upstream timed out"}})),
    ],
)
def test_a_stream_ending_in_an_error_is_a_gateway_error(wire: str, body: str) -> None:
    result = _probe(Canned(200, body, SSE), wire)
    assert result.verdict == "gateway_error", result
    assert "the stream ended with an error" in result.detail
    assert result.reply is None and result.exit_code == 4


# -- a 2xx that carries an error, and a rejected key under another status ---------------------------


@pytest.mark.parametrize(
    ("status", "body", "verdict"),
    [
        (200, {"error": {"code": "invalid_api_key", "message": "Incorrect API key"}}, "key_rejected"),
        (200, {"code": 401, "msg": "invalid token"}, "key_rejected"),  # one-api
        (200, {"error": {"message": "upstream failed", "type": "server_error"}}, "gateway_error"),
        (200, {"error": {"message": "slow down", "code": "rate_limit_exceeded"}}, "rate_limited"),
        (403, {"error": {"code": "invalid_api_key", "message": "Invalid key"}}, "key_rejected"),
        # Gemini's own answer to a bad key
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
                    ],
                }
            },
            "key_rejected",
        ),
        # one-api: this key's quota is used up; no channel serves the model; Azure: no deployment
        (403, {"error": {"message": "该令牌额度已用尽", "type": "one_api_error"}}, "rate_limited"),
        (
            503,
            {"error": {"message": "当前分组 default 下对于模型 gpt-4o 无可用渠道", "type": "new_api_error"}},
            "model_unavailable",
        ),
        (
            404,
            {"error": {"code": "DeploymentNotFound", "message": "The API deployment does not exist."}},
            "model_unavailable",
        ),
    ],
)
def test_an_error_gets_the_verdict_its_code_names(status: int, body: Any, verdict: str) -> None:
    wire = "gemini" if "API_KEY_INVALID" in json.dumps(body) else "chat"
    result = _probe(Canned(status, json.dumps(body, ensure_ascii=False)), wire)
    assert result.verdict == verdict, result
    assert result.exit_code == (3 if verdict == "key_rejected" else 4)
    if verdict == "key_rejected":
        assert result.remedy == gw.KEY_REJECTED_REMEDY


def test_the_word_valid_is_not_said_of_a_key_the_gateway_calls_invalid() -> None:
    result = _probe(Canned(403, json.dumps({"error": {"code": "invalid_api_key", "message": "x"}})))
    assert "valid but" not in result.detail and "does not accept this key" in result.detail


# -- what a proxy or web server in front says -------------------------------------------------------


def test_a_proxy_wanting_its_own_login_is_named() -> None:
    page = "<html><body><h1>407 Proxy Authentication Required</h1></body></html>"
    result = _probe(
        Canned(407, page, {"Content-Type": "text/html", "Proxy-Authenticate": 'Basic realm="squid"'})
    )
    assert result.verdict == "gateway_error" and "proxy" in result.detail and result.remedy


def test_plain_http_to_an_https_port_says_use_https() -> None:
    page = (
        "<html><head><title>400 The plain HTTP request was sent to HTTPS port</title></head>"
        "<body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>"
    )
    result = _probe(Canned(400, page, {"Content-Type": "text/html"}))
    assert result.verdict == "base_wrong" and "https://" in result.detail, result


# -- bodies that cannot be read ---------------------------------------------------------------------


@pytest.mark.parametrize(("status", "verdict"), [(401, "key_rejected"), (200, "malformed")])
def test_a_body_nested_past_the_parsers_depth_is_unreadable_not_a_crash(status: int, verdict: str) -> None:
    result = _probe(Canned(status, DEEP))
    assert result.verdict == verdict, result


@pytest.mark.parametrize(("status", "verdict"), [(401, "key_rejected"), (200, "gateway_error")])
def test_a_body_that_does_not_decompress_keeps_its_status(status: int, verdict: str) -> None:
    broken = gzip.compress(b'{"error": {"code": "invalid_api_key"}}')[:12] + b"not gzip at all"
    result = _probe(Canned(status, broken, {"Content-Encoding": "gzip"}))
    assert (result.verdict, result.status) == (verdict, status), result
    assert "could not be decoded" in result.detail and "could not connect" not in result.detail


def test_a_connection_cut_after_the_request_is_not_called_unreachable() -> None:
    result = _probe(Canned(200, "", reset=True))
    assert result.verdict == "gateway_error", result
    assert "closed it before answering" in result.detail


# -- a reasoning model's reply within verify's token limit ------------------------------------------


@pytest.mark.parametrize(
    ("wire", "body"),
    [
        (
            "messages",
            {
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "thinking", "thinking": "The user wants", "signature": "abc"}],
                "stop_reason": "max_tokens",
            },
        ),
        (
            "chat",
            {
                "model": "deepseek-reasoner",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "reasoning_content": "Let me think",
                        },
                        "finish_reason": "length",
                    }
                ],
            },
        ),
    ],
)
def test_a_reply_of_reasoning_only_means_the_service_works(wire: str, body: Any) -> None:
    result = _probe(Canned(200, json.dumps(body)), wire)
    assert result.verdict == "ok", result
    assert result.reply == "" and "reasoning" in result.detail


def test_a_reply_with_no_reasoning_and_no_text_is_still_malformed() -> None:
    body = {"type": "message", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}
    assert _probe(Canned(200, json.dumps(body)), "messages").verdict == "malformed"


# -- a gateway's bytes never drive the terminal -----------------------------------------------------

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b31m\u202e"


@pytest.mark.parametrize(
    "answer",
    [
        Canned(500, f"bad {ESCAPES} thing", {"Content-Type": "text/plain"}),
        Canned(
            200,
            json.dumps(
                {
                    "model": f"m{ESCAPES}",
                    "choices": [{"message": {"role": "assistant", "content": f"ok{ESCAPES}"}}],
                },
                ensure_ascii=False,
            ),
        ),
    ],
    ids=["error-body", "reply"],
)
def test_escape_sequences_from_the_gateway_are_shown_not_obeyed(
    home: Path, tmp_path: Path, answer: Canned
) -> None:
    with answer:
        profile = tmp_path / "p.toml"
        profile.write_text(f'base_url = "{answer.url}/v1"\nmodel = "gpt-4o"\nkey = "{KEY}"\n')
        outputs = [
            invoke("verify", "--profile", str(profile), "--timeout", "5"),
            invoke("verify", "--profile", str(profile), "--timeout", "5", "--json"),
            invoke("doctor", "--profile", str(profile), "--timeout", "5"),
        ]
    for result in outputs:
        for char in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert char not in result.output, (char, result.output)
    assert "\\x1b]0;pwned\\x07" in outputs[0].output
    json.loads(outputs[1].stdout)  # still JSON, C1 escaped as JSON does


# -- the thirty-eighth round's hostile gateway -------------------------------------------------------


def _packed_twice(size: int) -> bytes:
    """``size`` zero bytes gzipped, then gzipped again: a few hundred bytes on the wire."""
    inner = zlib.compressobj(6, zlib.DEFLATED, 31)
    once = b"".join([inner.compress(bytes(1 << 20)) for _ in range(size >> 20)]) + inner.flush()
    return gzip.compress(once, 9)


_BOMB_CHECK = """
import resource, sys
from gwconf import gateway, models
from gwconf.gateway import Deadline
url = sys.argv[1]
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (160 << 20), resource.RLIM_INFINITY))
probe = gateway.probe("chat", url + "/v1", "sk-bomb-0123456789abcdefWXYZ", "gpt-4o", timeout=20)
status, raw, _, failure = models._get(url + "/v1/models", "sk-bomb-0123456789abcdefWXYZ", 20)
print(probe.verdict, status, len(raw), failure and failure[0])
"""


def test_an_answer_packed_twice_over_is_unpacked_no_further_than_its_limit(tmp_path: Path) -> None:
    """``Content-Encoding: gzip, gzip`` around 256 MiB of zeros, a few hundred bytes sent: httpx
    unpacked each layer whole, so a 7 KB answer grew to 4 GB, past the body's limit and the
    deadline, until the process ran out of memory (a crash report). Each layer now stops at the
    limit: run here with 160 MiB of memory to spare."""
    import subprocess
    import sys

    with Canned(200, _packed_twice(256 << 20), {"Content-Encoding": "gzip, gzip"}) as answer:
        done = subprocess.run(
            [sys.executable, "-c", _BOMB_CHECK, answer.url], capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr[-2000:]
    verdict, status, size, failure = done.stdout.split()
    assert (verdict, status, failure) == ("malformed", "200", "None")
    assert int(size) == models_limit() + 1  # the list's limit, read one byte past to tell


def models_limit() -> int:
    from gwconf import models

    return models.LIST_MAX_BODY


@pytest.mark.parametrize(
    "echo",
    [
        lambda key: json.dumps(key).replace("/", "\\/"),  # PHP's json_encode
        lambda key: json.dumps(key.replace("+", " ")),  # a form-decoded "+"
        lambda key: json.dumps(key.removeprefix("sk-")),  # the part after the prefix it checked
    ],
    ids=["escaped-slash", "plus-as-space", "no-prefix"],
)
def test_a_key_the_gateway_echoes_in_its_own_spelling_is_masked(
    home: Path, tmp_path: Path, echo: Any
) -> None:
    key = "sk-Ab1/Cd2+Ef3=Gh4/Ij5kLm6nOp7qRs8tUv9"
    body = '{"error": {"message": "Invalid key ' + echo(key)[1:-1] + '", "type": "invalid_request_error"}}'
    with Canned(401, body) as answer:
        profile = tmp_path / "p.toml"
        profile.write_text(f'base_url = "{answer.url}/v1"\nmodel = "gpt-4o"\nkey = "{key}"\n')
        outputs = [
            invoke("verify", "--profile", str(profile), "--timeout", "5", *extra)
            for extra in ((), ("--json",))
        ]
    assert outputs[0].exit_code == 3 and "Invalid key" in outputs[0].output
    for result in outputs:
        assert "Ij5kLm6nOp7qRs8" not in result.output, result.output


def test_an_error_sent_as_a_200_model_list_is_read_as_verify_reads_it(home: Path, tmp_path: Path) -> None:
    """one-api answers a bad key's GET /models with 200 {"code": 401, "msg": ..., "data": null}:
    ``models`` said "an empty list" (exit 0) and init "The gateway accepted the key"."""
    with Canned(200, json.dumps({"code": 401, "msg": "invalid token", "data": None})) as answer:
        profile = tmp_path / "p.toml"
        profile.write_text(f'base_url = "{answer.url}/v1"\nmodel = "gpt-4o"\nkey = "{KEY}"\n')
        listed = invoke("models", "--profile", str(profile), "--timeout", "5")
        init = invoke(
            "init", "--yes", "--base-url", answer.url + "/v1", "--key-stdin", "--no-apply", "--name", "t",
            "--timeout", "5", input=KEY + "\n",
        )  # fmt: skip
    assert listed.exit_code == 3 and "key rejected" in listed.output, listed.output
    assert init.exit_code == 3 and "accepted the key" not in init.output, init.output
    assert "Nothing was saved" in init.output


def test_a_byte_order_mark_before_the_json_is_read_past() -> None:
    reply = {"choices": [{"message": {"role": "assistant", "content": "ok"}}], "model": "gpt-4o"}
    result = _probe(Canned(200, b"\xef\xbb\xbf" + json.dumps(reply).encode()))
    assert (result.verdict, result.reply) == ("ok", "ok"), result


def test_a_403_saying_the_key_is_invalid_is_a_rejected_key() -> None:
    body = {"error": {"message": "Invalid API key provided", "type": "invalid_request_error", "code": None}}
    result = _probe(Canned(403, json.dumps(body)))
    assert result.verdict == "key_rejected" and "valid but" not in result.detail, result


def test_a_redirect_to_https_says_to_write_https() -> None:
    """The hostile-gateway sweep: a plain-http address redirected to https got "(a login page?)"
    and no word of https."""
    with Canned(308, "", {"Location": "https://127.0.0.1/v1/chat/completions"}) as answer:
        result = gw.probe("chat", answer.url + "/v1", KEY, "gpt-4o", timeout=5)
    assert result.verdict == "base_wrong" and result.remedy is not None, result
    assert "write its address with https://" in result.remedy


def test_a_key_echoed_with_every_character_escaped_is_masked(home: Path, tmp_path: Path) -> None:
    key = "sk-Ab1Cd2Ef3Gh4Ij5kLm6nOp7qRs8tUv9"
    spelled = "".join(f"\\u{ord(c):04x}" for c in key)
    with Canned(401, '{"error": {"message": "Invalid key ' + spelled + '"}}') as answer:
        profile = tmp_path / "p.toml"
        profile.write_text(f'base_url = "{answer.url}/v1"\nmodel = "gpt-4o"\nkey = "{key}"\n')
        result = invoke("verify", "--profile", str(profile), "--timeout", "5")
    assert result.exit_code == 3 and "\\u0073\\u006b" not in result.output, result.output


def test_https_to_a_plain_http_port_says_to_write_http() -> None:
    """The newcomer sweep: the TLS error alone (WRONG_VERSION_NUMBER) named no way out."""
    with Canned(200, "{}") as answer:
        result = gw.probe("chat", answer.url.replace("http://", "https://") + "/v1", KEY, "gpt-4o", timeout=5)
    assert result.verdict == "unreachable" and result.remedy is not None, result
    assert "speaks plain http: write the address with http://" in result.remedy
