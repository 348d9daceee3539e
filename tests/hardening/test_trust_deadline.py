"""Issue 18 item 6: ``--timeout`` is a deadline for the whole request, body included.

A real loopback server drips its answer one byte at a time (headers or body). Before, every byte
reset httpx's per-read timeout, so ``verify --timeout 1`` waited for the whole drip and reported
the reply as fine. Now the exchange is cut at the deadline: verdict ``timeout`` (exit 4), and the
server sees gwconf hang up before it finished sending. No timing is asserted: the server counts
the bytes it got out before the connection was closed.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from tests.conftest import invoke

KEY = "sk-drip-0123456789abcdefWXYZ"
BODY = json.dumps(
    {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
    }
).encode()
MODELS = json.dumps({"object": "list", "data": [{"id": "my-model", "object": "model"}]}).encode()


class DripServer:
    """HTTP/1.1 on 127.0.0.1 that sends its answer one byte every ``gap`` seconds.

    ``drip``: "body" (headers at once, body dripped) or "headers" (everything dripped)."""

    def __init__(self, drip: str, gap: float = 0.25) -> None:
        self.drip = drip
        self.gap = gap
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.finished: list[bool] = []  # per connection: did the whole answer go out?
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request:
                got = conn.recv(65536)
                if not got:
                    return
                request += got
            head, _, rest = request.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            while len(rest) < length:
                rest += conn.recv(65536)
            body = MODELS if head.startswith(b"GET") else BODY
            headers = (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            )
            fast, slow = (headers, body) if self.drip == "body" else (b"", headers + body)
            try:
                conn.sendall(fast)
                for i in range(len(slow)):
                    if self.stop.wait(self.gap):
                        break
                    conn.sendall(slow[i : i + 1])
                else:
                    self.finished.append(True)
                    return
            except OSError:
                pass
            self.finished.append(False)

    def __enter__(self) -> DripServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture(params=["body", "headers"])
def drip(request: pytest.FixtureRequest) -> Iterator[DripServer]:
    with DripServer(request.param) as server:
        yield server


def _profile(server: DripServer) -> None:
    added = invoke(
        "profile", "add", "drip", "--base-url", server.base_url, "--model", "my-model", "--key-stdin", "--use",
        input=KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added


def _wait_for_hangup(server: DripServer, count: int) -> None:
    for _ in range(200):
        if len(server.finished) >= count:
            return
        server.stop.wait(0.05)


def test_verify_timeout_cuts_a_dripping_answer(home, drip: DripServer) -> None:
    _profile(drip)
    result = invoke("verify", "--profile", "drip", "--timeout", "1", "--json")
    assert result.exit_code == 4, result
    data = json.loads(result.stdout)
    [check] = data["results"] if "results" in data else data["checks"]
    assert check["verdict"] == "timeout", check
    _wait_for_hangup(drip, 1)
    assert drip.finished and not any(drip.finished), "gwconf waited for the whole drip"


def test_doctor_timeout_cuts_a_dripping_answer(home, drip: DripServer) -> None:
    _profile(drip)
    result = invoke("doctor", "--profile", "drip", "--timeout", "1", "--json")
    assert result.exit_code == 4, result
    assert '"timeout"' in result.stdout, result
    _wait_for_hangup(drip, 1)
    assert drip.finished and not any(drip.finished), "gwconf waited for the whole drip"
