"""gateway.probe against the real test gateway: each wire, each verdict, and the server itself."""

from __future__ import annotations

import gzip
import json
import socket

import httpx
import pytest

from gwconf import gateway as gw
from gwconf.errors import ClientError
from tests.gateway_server import DEFAULT_REPLY, VALID_KEY, GatewayServer

WRONG_KEY = "sk-wrong-0123456789abcdefQRST"


def base_for(server: GatewayServer, wire: str) -> str:
    return server.base_url if wire in ("chat", "responses") else server.url


# -- each wire: what is sent, what is read ---------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "auth_header", "path", "header", "value"),
    [
        ("chat", "bearer", "/v1/chat/completions", "authorization", f"Bearer {VALID_KEY}"),
        ("responses", "bearer", "/v1/responses", "authorization", f"Bearer {VALID_KEY}"),
        ("messages", "x-api-key", "/v1/messages", "x-api-key", VALID_KEY),
        ("messages", "bearer", "/v1/messages", "authorization", f"Bearer {VALID_KEY}"),
        ("gemini", "bearer", "/v1beta/models/my-model:generateContent", "x-goog-api-key", VALID_KEY),
    ],
)
def test_each_wire_sends_its_own_request_and_reads_the_reply(
    gateway: GatewayServer, wire: str, auth_header: str, path: str, header: str, value: str
) -> None:
    result = _probe(gateway, wire, VALID_KEY, auth_header=auth_header)
    assert result.verdict == "ok", result
    assert result.reply == DEFAULT_REPLY
    assert result.status == 200 and result.latency_ms is not None
    assert result.url == gateway.url + path
    assert result.key_mask == "sk-…KLMN"
    [request] = gateway.requests
    assert request.method == "POST" and request.path == path
    assert request.headers[header] == value
    assert request.headers["content-type"] == "application/json"
    body = request.json
    if wire == "chat":
        assert body == {"model": "my-model", "messages": [{"role": "user", "content": gw.PROMPT}]}
    elif wire == "responses":
        assert body["model"] == "my-model" and body["input"] and not body.get("stream")
    elif wire == "messages":
        assert request.headers["anthropic-version"] == "2023-06-01"
        assert body["model"] == "my-model" and body["max_tokens"] > 0
        other = "x-api-key" if header == "authorization" else "authorization"
        assert other not in request.headers  # exactly the one header the client sends
    else:
        assert body["contents"][0]["parts"][0]["text"]
        assert "authorization" not in request.headers


def _probe(server: GatewayServer, wire: str, key: str, model: str = "my-model", **kw: object) -> gw.Probe:
    return gw.probe(wire, base_for(server, wire), key, model, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("wire", ["chat", "responses", "messages", "gemini"])
def test_a_wrong_key_is_rejected_in_every_wire(gateway: GatewayServer, wire: str) -> None:
    result = _probe(gateway, wire, WRONG_KEY)
    assert result.verdict == "key_rejected"
    assert result.exit_code == 3
    assert result.status == 401
    assert result.error_code in ("invalid_api_key", "authentication_error", "UNAUTHENTICATED")
    assert result.remedy and "console" in result.remedy
    assert result.body and all(WRONG_KEY not in line for line in result.body)


@pytest.mark.parametrize("wire", ["chat", "responses", "messages", "gemini"])
def test_an_unknown_model_is_model_not_available_in_every_wire(wire: str) -> None:
    with GatewayServer(models={"served-model"}) as server:
        result = _probe(server, wire, VALID_KEY, model="other-model")
        assert result.verdict == "model_unavailable", result
        assert result.status == 404
        assert _probe(server, wire, VALID_KEY, model="served-model").ok


# -- every verdict -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "verdict", "status"),
    [
        ("404", "base_wrong", 404),
        ("405", "base_wrong", 405),
        ("html", "base_wrong", 200),
        ("redirect", "base_wrong", 302),
        ("403", "forbidden", 403),
        ("429", "rate_limited", 429),
        ("500", "gateway_error", 500),
        ("malformed", "malformed", 200),
        ("empty", "malformed", 200),
        ("leaky-401", "key_rejected", 401),
        ("drop", "gateway_error", None),
    ],
)
def test_each_fault_gets_its_verdict(
    gateway: GatewayServer, fault: str, verdict: str, status: int | None
) -> None:
    gateway.set_fault(fault)
    result = _probe(gateway, "chat", VALID_KEY)
    assert (result.verdict, result.status) == (verdict, status), result
    assert result.sent
    assert result.exit_code == (3 if verdict == "key_rejected" else 4)
    assert result.reply is None
    assert result.detail


def test_failure_bodies_are_shown_in_their_first_lines(gateway: GatewayServer) -> None:
    gateway.set_fault("html")
    result = _probe(gateway, "chat", VALID_KEY)
    assert result.body[0] == "<!DOCTYPE html>"
    assert len(result.body) <= gw.BODY_LINES


def test_a_slow_gateway_times_out(gateway: GatewayServer) -> None:
    gateway.set_fault("slow", delay=10)
    result = _probe(gateway, "chat", VALID_KEY, timeout=0.2)
    assert result.verdict == "timeout"
    assert result.status is None
    assert "0.2 s" in result.detail


def test_slow_but_within_the_timeout_is_ok(gateway: GatewayServer) -> None:
    gateway.set_fault("slow", delay=0.05)
    assert _probe(gateway, "chat", VALID_KEY, timeout=10).ok


def test_nothing_listening_is_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = gw.probe("chat", f"http://127.0.0.1:{port}/v1", VALID_KEY, "m")
    assert result.verdict == "unreachable"
    assert "refused" in result.detail


def test_a_name_that_does_not_resolve_is_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dns(host: str, *args: object, **kwargs: object) -> object:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    result = gw.probe("chat", "https://gw.invalid/v1", VALID_KEY, "m")
    assert result.verdict == "unreachable"
    assert "DNS" in result.detail


@pytest.mark.parametrize(
    "base",
    ["https://api.openai.com/v1", "https://api.anthropic.com", "https://generativelanguage.googleapis.com"],
)
def test_a_vendor_host_never_gets_the_key(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    looked_up: list[str] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or [])
    result = gw.probe("chat", base, VALID_KEY, "m")
    assert not result.sent
    assert result.verdict == "base_wrong"
    assert "vendor's official address" in result.detail
    assert looked_up == []


def test_a_redirect_is_not_followed_so_the_key_stays_put(gateway: GatewayServer) -> None:
    with GatewayServer() as elsewhere:
        gateway.set_fault("redirect")
        gateway.redirect_to = elsewhere.base_url + "/chat/completions"
        result = _probe(gateway, "chat", VALID_KEY)
        assert result.verdict == "base_wrong"
        assert elsewhere.base_url in result.detail
        assert elsewhere.requests == []
        assert len(gateway.requests) == 1


def test_a_key_echoed_by_the_gateway_is_masked(gateway: GatewayServer) -> None:
    gateway.set_fault("leaky-401")
    result = _probe(gateway, "chat", VALID_KEY)
    assert VALID_KEY not in json.dumps(result.to_json())
    assert "sk-…KLMN" in result.body[0]


@pytest.mark.parametrize("key", [VALID_KEY + "\n", " " + VALID_KEY, "sk-abc def", "sk-ключ"])
def test_a_key_no_header_can_carry_is_refused_before_sending(gateway: GatewayServer, key: str) -> None:
    with pytest.raises(ClientError) as caught:
        _probe(gateway, "chat", key, key_origin="~/.codex/auth.json")
    assert "~/.codex/auth.json" in caught.value.message
    assert key.strip() not in caught.value.message
    assert gateway.requests == []


# -- URLs as the client builds them ------------------------------------------------------------


def test_the_endpoint_keeps_the_clients_own_mistakes() -> None:
    assert gw.endpoint("chat", "https://gw/v1/v1", "m") == "https://gw/v1/v1/chat/completions"
    assert gw.endpoint("messages", "https://gw/v1", "m") == "https://gw/v1/v1/messages"
    assert gw.endpoint("chat", "https://gw/v1/", "m") == "https://gw/v1/chat/completions"
    assert gw.endpoint("chat", "https://gw/v1/chat/completions", "m", "chat_endpoint") == (
        "https://gw/v1/chat/completions"
    )
    assert gw.endpoint("gemini", "https://gw", "models/g 1") == (
        "https://gw/v1beta/models/g%201:generateContent"
    )


def test_a_doubled_v1_shows_as_base_address_wrong(gateway: GatewayServer) -> None:
    result = gw.probe("messages", gateway.base_url, VALID_KEY, "my-model")
    assert result.verdict == "base_wrong"
    assert result.url.endswith("/v1/v1/messages")


# -- reading streamed answers (and the server's streams, which real clients will use) ---------------


@pytest.mark.parametrize(
    ("wire", "path", "body", "headers", "last_event"),
    [
        (
            "chat",
            "/v1/chat/completions",
            {"stream": True, "stream_options": {"include_usage": True}},
            {},
            "[DONE]",
        ),
        ("responses", "/v1/responses", {"stream": True}, {}, "response.completed"),
        ("messages", "/v1/messages", {"stream": True}, {"x-api-key": VALID_KEY}, "message_stop"),
        (
            "gemini",
            "/v1beta/models/my-model:streamGenerateContent?alt=sse",
            {},
            {"x-goog-api-key": VALID_KEY},
            None,
        ),
    ],
)
def test_streams_end_as_clients_require_and_read_back(
    gateway: GatewayServer, wire: str, path: str, body: dict, headers: dict, last_event: str | None
) -> None:
    payload = {
        "model": "my-model",
        "messages": [{"role": "user", "content": "hi"}],
        "input": "hi",
        "contents": [{"parts": [{"text": "hi"}]}],
        **body,
    }
    auth = headers or {"Authorization": f"Bearer {VALID_KEY}"}
    response = httpx.post(gateway.url + path, json=payload, headers=auth)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    text = response.text
    assert gw.read_reply(wire, text, "text/event-stream") == DEFAULT_REPLY
    data_lines = [line for line in text.splitlines() if line.startswith("data:")]
    if last_event == "[DONE]":
        assert data_lines[-1] == "data: [DONE]"
        assert '"usage"' in data_lines[-2]
    elif last_event:
        assert json.loads(data_lines[-1][5:])["type"] == last_event


def test_a_gemini_key_in_the_query_is_accepted(gateway: GatewayServer) -> None:
    response = httpx.post(
        gateway.url + f"/v1beta/models/my-model:generateContent?key={VALID_KEY}",
        json={"contents": [{"parts": [{"text": "hi"}]}]},
    )
    assert response.status_code == 200
    assert gateway.requests[0].key == VALID_KEY


# -- the server's other routes ---------------------------------------------------------------------


def test_server_routes_and_recording(gateway: GatewayServer) -> None:
    assert httpx.head(gateway.url + "/api/hello").status_code == 200
    assert httpx.get(gateway.base_url + "/models").status_code == 401
    listed = httpx.get(gateway.base_url + "/models", headers={"Authorization": f"Bearer {VALID_KEY}"})
    assert listed.json()["data"][0]["id"] == "my-model"
    assert httpx.post(gateway.url + "/v1/v1/chat/completions", json={}).status_code == 404
    compressed = gzip.compress(json.dumps({"model": "m", "messages": []}).encode())
    sent = httpx.post(
        gateway.base_url + "/chat/completions",
        content=iter([compressed]),  # an iterator: sent chunked
        headers={"Authorization": f"Bearer {VALID_KEY}", "Content-Encoding": "gzip"},
    )
    assert sent.status_code == 200
    assert [(r.method, r.path) for r in gateway.requests] == [
        ("HEAD", "/api/hello"),
        ("GET", "/v1/models"),
        ("GET", "/v1/models"),
        ("POST", "/v1/v1/chat/completions"),
        ("POST", "/v1/chat/completions"),
    ]
    assert [r.status for r in gateway.requests] == [200, 401, 200, 404, 200]  # what each was answered
    assert gateway.requests[-1].json == {"model": "m", "messages": []}
    assert gateway.requests[-1].headers["transfer-encoding"] == "chunked"
    assert gateway.requests[-1].model == "m"


def test_a_fault_can_be_limited_to_one_path(gateway: GatewayServer) -> None:
    gateway.set_fault("404", path="/v1/responses")
    assert _probe(gateway, "chat", VALID_KEY).ok
    assert _probe(gateway, "responses", VALID_KEY).verdict == "base_wrong"
    gateway.set_fault(None)
    assert _probe(gateway, "responses", VALID_KEY).ok


def test_an_unknown_fault_is_refused(gateway: GatewayServer) -> None:
    with pytest.raises(ValueError):
        gateway.set_fault("teapot")
