"""A model gateway for tests: a real HTTP server on 127.0.0.1 that follows spec/model-gateway-api.md.

It speaks the four wires gwconf verifies and the real clients use (shared/reference/formats.md 9.1):

| route | auth | success |
|---|---|---|
| ``POST /v1/chat/completions`` | ``Authorization: Bearer`` | JSON, or SSE chunks + ``data: [DONE]`` (usage chunk with ``stream_options.include_usage``) |
| ``POST /v1/responses`` | Bearer | JSON, or SSE events through ``response.completed`` |
| ``POST /v1/messages`` | ``x-api-key`` or Bearer | Anthropic JSON, or its SSE events through ``message_stop`` |
| ``POST /v1beta/models/{m}:generateContent`` / ``:streamGenerateContent?alt=sse`` | ``x-goog-api-key`` or ``?key=`` | Gemini JSON / SSE |
| ``GET /v1/models`` | Bearer | the model list (with ``model_limits`` in ``limits_shape``'s form) |
| ``GET /v1/model/info`` | Bearer | LiteLLM's model info (``model_limits``), when ``limits_shape`` is "litellm" |
| ``HEAD``/``GET /api/hello`` | none | 200 (Claude Code's start-up probe) |

A key outside ``keys`` gets 401 in each family's shape (OpenAI ``invalid_api_key``, Anthropic
``authentication_error``, Gemini ``UNAUTHENTICATED``); a model outside ``models`` (when given) gets
the family's 404 "model not found"; any other path gets 404, so a doubled or missing ``/v1`` shows.
Every request is recorded (method, path, query, headers, body, the status it got) for assertions, and
``set_fault(kind)`` switches the answers to one of ``FAULTS`` for the next requests (the faults of a
gateway's upstream, ``COMPLETION_FAULTS``, hit completions only: its ``/v1/models`` still answers).

Add a wire by adding a route to ``ROUTES`` and a ``_wire_*`` method; nothing else needs to change.
"""

from __future__ import annotations

import gzip
import json
import re
import ssl
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

VALID_KEY = "sk-gw-valid-0123456789abcdefKLMN"
DEFAULT_REPLY = "Hello from the test gateway."

FAULTS = {
    "404": "404 with a plain-text body, for every path (a wrong base address)",
    "405": "405 Method Not Allowed",
    "html": "200 with an HTML page (a gateway console answering for every path)",
    "403": "403 with an HTML page (a WAF in front of the gateway)",
    "429": "429 rate limit, OpenAI-shaped",
    "500": "500 upstream error, OpenAI-shaped",
    "slow": "the normal answer after ``delay`` seconds",
    "malformed": "200 application/json whose body is cut off mid-way",
    "empty": "200 JSON without any content (empty choices/output/content/candidates)",
    "redirect": "302 to ``redirect_to`` (default: this server's /login, an HTML login page)",
    "leaky-401": "401 whose message repeats the key it was sent (some gateways do)",
    "drop": "close the connection without answering",
    # a gateway passing on its upstream's failure for a completion, while GET /models works: the key
    # and the address are fine, the gateway's route for the model is not (LiteLLM's shapes)
    "upstream-401": "401 authentication_error for a completion (its upstream refused the gateway's credential)",
    "upstream-404": "404 with an API error object for a completion (its upstream is gone)",
    "cooldown": "429: every deployment of the model is cooling down (LiteLLM's router)",
    # a gateway that speaks chat only: OpenAI's and one-api's answer to a path it does not have
    "no-route": "404 'Invalid URL (POST ...)' for a completion (no such endpoint here)",
    "model-404": "404 model_not_found for a completion, the model listed all the same",
    "no-db": "400 no_db_connection for every request but the master key (LiteLLM without a database)",
}
# faults that hit completions only: GET /models still answers as usual
COMPLETION_FAULTS = ("upstream-401", "upstream-404", "cooldown", "no-route", "model-404")
MASTER_KEY = "sk-gw-master-000000000000000000MSTR"


@dataclass
class Recorded:
    """One request as it arrived."""

    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    status: int | None = None  # what the gateway answered (None: it hung up without answering)

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def key(self) -> str | None:
        """The key it carried, from whichever header (or ``?key=``) its family uses."""
        auth = self.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[len("bearer ") :]
        for name in ("x-api-key", "x-goog-api-key"):
            if name in self.headers:
                return self.headers[name]
        return self.query.get("key", [None])[0]

    @property
    def model(self) -> str | None:
        match = re.match(r"^/v1beta/models/([^/:]+):", self.path)
        if match:
            return match.group(1)
        data = self.json if self.method == "POST" else None
        return data.get("model") if isinstance(data, dict) else None


@dataclass
class Answer:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def _json(status: int, data: Any, **headers: str) -> Answer:
    return Answer(status, json.dumps(data).encode(), "application/json", dict(headers))


def _sse(events: list[tuple[str | None, Any]], terminator: str | None = None) -> Answer:
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    if terminator:
        chunks.append(f"data: {terminator}\n\n")
    return Answer(200, "".join(chunks).encode(), "text/event-stream", {"Cache-Control": "no-cache"})


LOGIN_PAGE = (
    b"<!doctype html><html><head><title>Sign in</title></head><body><form>Sign in</form></body></html>"
)
CONSOLE_PAGE = (
    b"<!DOCTYPE html>\n<html lang=en><head><title>Gateway Console</title></head>\n"
    b"<body><div id=app></div><script src=/assets/index.js></script></body></html>\n"
)
WAF_PAGE = b"<html><head><title>403 Forbidden</title></head><body>Request blocked by WAF</body></html>"


class GatewayServer:
    """``with GatewayServer() as gw:`` -> ``gw.base_url`` is ``http://127.0.0.1:<port>/v1``."""

    # (method, path regex, handler name). Paths are matched without the query string.
    ROUTES: tuple[tuple[str, str, str], ...] = (
        ("POST", r"/v1/chat/completions", "_wire_chat"),
        ("POST", r"/v1/responses", "_wire_responses"),
        ("POST", r"/v1/messages", "_wire_messages"),
        (
            "POST",
            r"/v1beta/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)",
            "_wire_gemini",
        ),
        ("GET", r"/v1/models", "_list_models"),
        ("GET", r"/v1/model/info", "_model_info"),
        ("HEAD", r"/api/hello", "_hello"),
        ("GET", r"/api/hello", "_hello"),
        ("GET", r"/login", "_login"),
    )

    def __init__(
        self,
        keys: tuple[str, ...] | set[str] | list[str] = (VALID_KEY,),
        *,
        models: tuple[str, ...] | set[str] | None = None,
        reply: str = DEFAULT_REPLY,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.keys = set(keys)
        self.tls = tls  # a server-side context: https, with the certificate it holds
        self.models = set(models) if models is not None else None  # None: every model is served
        self.public_models = False  # True: GET /v1/models answers without a key too
        self.models_for_any_key = False  # True: GET /v1/models answers any key (a passing proxy)
        self.unversioned = False  # True: every /v1 route also answers without /v1 (as LiteLLM does)
        # per model: (context window, max output tokens), told in the shape ``limits_shape`` names:
        # "openrouter" (context_length, top_provider.max_completion_tokens in /v1/models),
        # "context_window" (in /v1/models), "litellm" (only GET /v1/model/info's model_info)
        self.model_limits: dict[str, tuple[int, int]] = {}
        self.limits_shape = "litellm"
        self.reply = reply
        self.requests: list[Recorded] = []
        # the model replies name (None: the one asked for); a gateway that substitutes models
        self.answer_model: str | None = None
        self.fault: str | None = None
        self.fault_path: str | None = None  # only requests whose path starts with this
        self.delay = 5.0
        self.redirect_to: str | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> GatewayServer:
        gateway = self

        class Handler(_Handler):
            owner = gateway

        server = _Server(("127.0.0.1", 0), Handler)
        if self.tls is not None:  # the handshake happens at accept; a refused one drops that client only
            server.socket = self.tls.wrap_socket(server.socket, server_side=True)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes a "slow" answer
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> GatewayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses -------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The origin, ``http://127.0.0.1:<port>`` (the Anthropic- and Gemini-style root)."""
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls is not None else 'http'}://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base address of the spec, ending in ``/v1``."""
        return self.url + "/v1"

    # -- switching and inspecting ----------------------------------------------------------------
    def set_fault(self, kind: str | None, *, path: str | None = None, delay: float | None = None) -> None:
        """Answer the next requests (or those under ``path``) with ``kind`` from ``FAULTS``; None: normal."""
        if kind is not None and kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; known: {', '.join(FAULTS)}")
        self.fault, self.fault_path = kind, path
        if delay is not None:
            self.delay = delay

    def requests_to(self, path: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    def _record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    # -- dispatch ----------------------------------------------------------------------------------
    def answer(self, request: Recorded) -> Answer | None:
        """The answer for ``request``; None means: drop the connection."""
        fault = self.fault if self.fault and request.path.startswith(self.fault_path or "") else None
        if fault in COMPLETION_FAULTS and request.method != "POST":
            fault = None
        if fault == "no-db" and request.key == MASTER_KEY:
            fault = None
        if fault == "slow":
            if self._stopping.wait(self.delay):
                return None  # stopping: hang up instead of answering late
        elif fault is not None:
            return self._fault_answer(fault, request)
        path = request.path
        if self.unversioned and not path.startswith(("/v1/", "/v1beta/", "/api/")):
            path = "/v1" + path
        for method, pattern, handler in self.ROUTES:
            match = re.fullmatch(pattern, path)
            if match and method == request.method:
                answer: Answer = getattr(self, handler)(request, **match.groupdict())
                return answer
        return Answer(404, b"404 page not found\n", "text/plain")

    def _fault_answer(self, fault: str, request: Recorded) -> Answer | None:
        if fault == "404":
            return Answer(404, b"404 page not found\n", "text/plain")
        if fault == "405":
            return _json(405, {"error": {"message": "Method Not Allowed", "type": "invalid_request_error"}})
        if fault == "html":
            return Answer(200, CONSOLE_PAGE, "text/html; charset=utf-8")
        if fault == "403":
            return Answer(403, WAF_PAGE, "text/html")
        if fault == "429":
            return _json(
                429,
                {
                    "error": {
                        "message": "Rate limit reached, retry later",
                        "type": "requests",
                        "code": "rate_limit_exceeded",
                    }
                },
                **{"Retry-After": "1"},
            )
        if fault == "500":
            return _json(
                500, {"error": {"message": "upstream model failed", "type": "server_error", "code": None}}
            )
        if fault == "malformed":
            return Answer(
                200, b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "Hel', "application/json"
            )
        if fault == "empty":
            return _json(200, {"id": "empty-1", "choices": [], "output": [], "content": [], "candidates": []})
        if fault == "redirect":
            return Answer(
                302, b"", "text/html", {"Location": self.redirect_to or self.url + "/login?next=/v1"}
            )
        if fault == "leaky-401":
            return _json(401, _openai_401(f"Incorrect API key provided: {request.key}"))
        if fault == "drop":
            return None
        model = request.model
        # the bodies LiteLLM 1.108.7 answered with (tests/e2e/test_litellm.py sees them for real)
        failed = f"\n\nLiteLLM: model group '{model}' failed with the error above. No fallback was attempted."
        if fault == "upstream-401":
            return _json(
                401,
                {
                    "error": {
                        "message": "litellm.AuthenticationError: AuthenticationError: OpenAIException - "
                        "Incorrect API key provided" + failed,
                        "type": "authentication_error",
                        "param": None,
                        "code": "401",
                    }
                },
            )
        if fault == "model-404":
            return _json(404, _openai_no_model(request.model or ""))
        if fault == "no-route":
            return _json(
                404,
                {
                    "error": {
                        "message": f"Invalid URL (POST {request.path})",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
        if fault == "upstream-404":
            return _json(
                404,
                {
                    "error": {
                        "message": "litellm.NotFoundError: NotFoundError: OpenAIException - Error code: 404"
                        + failed,
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "404",
                    }
                },
            )
        if fault == "cooldown":
            return _json(
                429,
                {
                    "error": {
                        "message": "No deployments available for selected model, Try again in 600 seconds. All "
                        f"deployments for selected model are in cooldown. Passed model={model}. "
                        "pre-call-checks=False, cooldown_list=['23334e315ac0a4ba']",
                        "type": "all_deployments_in_cooldown",
                        "param": None,
                        "code": "429",
                    }
                },
            )
        if fault == "no-db":
            return _json(
                400,
                {
                    "error": {
                        "message": "No connected db.",
                        "type": "no_db_connection",
                        "param": None,
                        "code": "400",
                    }
                },
            )
        raise AssertionError(fault)

    # -- routes --------------------------------------------------------------------------------------
    def _authorised(self, request: Recorded) -> bool:
        return request.key in self.keys

    def _model_served(self, model: Any) -> bool:
        return self.models is None or model in self.models

    def _wire_chat(self, request: Recorded) -> Answer:
        if not self._authorised(request):
            return _json(401, _openai_401())
        body = request.json or {}
        model = body.get("model")
        if not model or not isinstance(body.get("messages"), list):
            return _json(
                400,
                {
                    "error": {
                        "message": "model and messages are required",
                        "type": "invalid_request_error",
                        "code": None,
                    }
                },
            )
        if not self._model_served(model):
            return _json(404, _openai_no_model(model))
        created = int(time.time())
        if not body.get("stream"):
            return _json(
                200,
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": created,
                    "model": self.answer_model or model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": self.reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": _usage(),
                },
            )

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-test",
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.answer_model or model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        events: list[tuple[str | None, Any]] = [
            (None, chunk({"role": "assistant", "content": ""}, None)),
            (None, chunk({"content": self.reply}, None)),
            (None, chunk({}, "stop")),
        ]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(
                (
                    None,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": self.answer_model or model,
                        "choices": [],
                        "usage": _usage(),
                    },
                )
            )
        return _sse(events, terminator="[DONE]")

    def _wire_responses(self, request: Recorded) -> Answer:
        if not self._authorised(request):
            return _json(401, _openai_401())
        body = request.json or {}
        model = body.get("model")
        if not model:
            return _json(
                400,
                {"error": {"message": "model is required", "type": "invalid_request_error", "code": None}},
            )
        if not self._model_served(model):
            return _json(404, _openai_no_model(model))
        message = {
            "type": "message",
            "id": "msg_test",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": self.reply, "annotations": []}],
        }
        usage = {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
        done = {
            "id": "resp_test",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": self.answer_model or model,
            "output": [message],
            "usage": usage,
        }
        if not body.get("stream"):
            return _json(200, done)
        pending = {**done, "status": "in_progress", "output": [], "usage": None}
        part = {"type": "output_text", "text": "", "annotations": []}
        steps: list[dict[str, Any]] = [
            {"type": "response.created", "response": pending},
            {"type": "response.in_progress", "response": pending},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**message, "status": "in_progress", "content": []},
            },
            {
                "type": "response.content_part.added",
                "item_id": "msg_test",
                "output_index": 0,
                "content_index": 0,
                "part": part,
            },
            {
                "type": "response.output_text.delta",
                "item_id": "msg_test",
                "output_index": 0,
                "content_index": 0,
                "delta": self.reply,
            },
            {
                "type": "response.output_text.done",
                "item_id": "msg_test",
                "output_index": 0,
                "content_index": 0,
                "text": self.reply,
            },
            {
                "type": "response.content_part.done",
                "item_id": "msg_test",
                "output_index": 0,
                "content_index": 0,
                "part": message["content"][0],
            },
            {"type": "response.output_item.done", "output_index": 0, "item": message},
            {"type": "response.completed", "response": done},
        ]
        return _sse([(s["type"], {**s, "sequence_number": n}) for n, s in enumerate(steps)])

    def _wire_messages(self, request: Recorded) -> Answer:
        if not self._authorised(request):
            return _json(
                401,
                {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
            )
        body = request.json or {}
        model = body.get("model")
        if not model or not isinstance(body.get("messages"), list):
            return _json(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "model and messages are required"},
                },
            )
        if not self._model_served(model):
            return _json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": f"model: {model}"}}
            )
        usage = {"input_tokens": 5, "output_tokens": 3}
        message = {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": self.answer_model or model,
            "content": [{"type": "text", "text": self.reply}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            return _json(200, message)
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 5, "output_tokens": 0},
        }
        return _sse(
            [
                ("message_start", {"type": "message_start", "message": start}),
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "text", "text": ""},
                    },
                ),
                ("ping", {"type": "ping"}),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": self.reply},
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                        "usage": {"output_tokens": 3},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    def _wire_gemini(self, request: Recorded, model: str, method: str) -> Answer:
        if not self._authorised(request):
            return _json(
                401,
                {
                    "error": {
                        "code": 401,
                        "message": "API key not valid. Please pass a valid API key.",
                        "status": "UNAUTHENTICATED",
                    }
                },
            )
        if not self._model_served(model):
            return _json(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": f"models/{model} is not found for API version v1beta.",
                        "status": "NOT_FOUND",
                    }
                },
            )
        answer = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": self.reply}]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8},
            "modelVersion": self.answer_model or model,
        }
        if method == "generateContent":
            return _json(200, answer)
        if request.query.get("alt") == ["sse"]:
            return _sse([(None, answer)])
        return _json(200, [answer])  # without alt=sse the stream is one JSON array

    def _list_models(self, request: Recorded) -> Answer:
        if not self._authorised(request) and not (
            (self.public_models and request.key is None) or (self.models_for_any_key and request.key)
        ):
            return _json(401, _openai_401())
        names = sorted(self.models) if self.models is not None else ["my-model"]
        entries = []
        for name in names:
            entry: dict[str, Any] = {"id": name, "object": "model", "created": 0, "owned_by": "gwconf-test"}
            if name in self.model_limits and self.limits_shape == "openrouter":
                window, output = self.model_limits[name]
                entry.update(context_length=window, top_provider={"max_completion_tokens": output})
            elif name in self.model_limits and self.limits_shape == "context_window":
                entry["context_window"] = self.model_limits[name][0]
            entries.append(entry)
        return _json(200, {"object": "list", "data": entries})

    def _model_info(self, request: Recorded) -> Answer:
        """LiteLLM's ``GET /v1/model/info`` (shape of litellm 1.108: data[].model_name, .model_info)."""
        if not self._authorised(request):
            return _json(401, _openai_401())
        if self.limits_shape != "litellm":
            return _json(404, {"detail": "Not Found"})
        data = [
            {
                "model_name": name,
                "litellm_params": {"model": f"openai/{name}"},
                "model_info": {"max_input_tokens": window, "max_output_tokens": output, "mode": "chat"},
            }
            for name, (window, output) in sorted(self.model_limits.items())
        ]
        return _json(200, {"data": data})

    def _hello(self, request: Recorded) -> Answer:
        return Answer(200, b"", "text/plain")

    def _login(self, request: Recorded) -> Answer:
        return Answer(200, LOGIN_PAGE, "text/html")


def _openai_401(message: str = "Incorrect API key provided") -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}}


def _openai_no_model(model: str) -> dict[str, Any]:
    return {
        "error": {
            "message": f"The model `{model}` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    }


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (a timed-out probe); loud about anything else."""
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Reads one request (Content-Length or chunked, gzip/deflate bodies), records it, answers it."""

    owner: GatewayServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests assert on ``requests`` instead."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        request = Recorded(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self._read_body(),
        )
        self.owner._record(request)
        answer = self.owner.answer(request)
        request.status = answer.status if answer is not None else None
        if answer is None:
            self.close_connection = True
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.body)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b"".join(self._chunks())
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        return data

    def _chunks(self) -> Iterator[bytes]:
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return
            yield self.rfile.read(size)
            self.rfile.readline()
