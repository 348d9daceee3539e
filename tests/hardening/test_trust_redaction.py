"""Issue 18 items 2 and 3: no output shows a credential, whatever its name, shape or encoding.

Item 2: a HOME that already holds other credentials (a Gemini ``AIza`` key in ``~/.gemini/.env``,
Codex's ``auth.json`` with OAuth tokens, an old ``ANTHROPIC_API_KEY``, GitHub and Slack tokens in
``~/.bashrc``). ``apply --dry-run`` (the README's first command), ``--json``, ``restore --dry-run``
and ``status`` used to print every one in full; only ``sk-`` keys and the profile's key were masked.

Item 3: a profile key holding ``\\`` and ``"`` is written escaped (``\\\\``, ``\\"``) in JSON and
YAML, quoted otherwise in dotenv and shell; each escaped form was printed whole. A gateway's 401
that echoes the key URL-encoded was shown whole too. ``profile add`` now warns about such a key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.conftest import invoke

JWT = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJ1c2VyLTEyMzQ1Njc4OTAiLCJleHAiOjE5OTk5OX0.SIGnatureXYZ0123456789abcdef"
SECRETS = {
    "gemini": "AIzaSyD-EXISTINGgeminiKEY0123456789abc",
    "codex_key": "oldOpenAIplainValue0123456789",
    "access": "atAccessTokenValue0123456789",
    "refresh": "rt_RefreshTokenValue0123456789",
    "jwt": JWT,
    "anthropic": "claude-old-secret-Value-9876",
    "github": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "slack": "xoxb-1234567890-0987654321-abcdefghijklmnop",
    "password": "CorrectHorse99",
    "hex": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
}
KEY = "sk-gwconf-profile-0123456789WXYZ"


def hidden(secret: str) -> str:
    return secret[3:-4]


def seed_home(home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / ".env").write_text(f"GEMINI_API_KEY={SECRETS['gemini']}\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "auth.json").write_text(
        json.dumps(
            {
                "OPENAI_API_KEY": SECRETS["codex_key"],
                "tokens": {
                    "id_token": SECRETS["jwt"],
                    "access_token": SECRETS["access"],
                    "refresh_token": SECRETS["refresh"],
                },
            },
            indent=2,
        )
    )
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {"env": {"ANTHROPIC_API_KEY": SECRETS["anthropic"], "DB_PASSWORD": SECRETS["password"]}}, indent=2
        )
    )
    (home / ".bashrc").write_text(
        f"# mine\nexport GITHUB_TOKEN={SECRETS['github']}\nexport SLACK={SECRETS['slack']}\n"
        f"export CHECKSUM={SECRETS['hex']}\n"
    )


def assert_clean(outputs: dict[str, str], secrets: dict[str, str]) -> None:
    leaks = [(cmd, name) for cmd, text in outputs.items() for name, s in secrets.items() if hidden(s) in text]
    assert not leaks, f"credentials shown in full: {leaks}"


def test_every_output_masks_other_credentials(home: Path) -> None:
    seed_home(home)
    added = invoke(
        "profile", "add", "gw", "--base-url", "https://gw.example.com/v1", "--model", "my-model", "--key-stdin",
        "--use", input=KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    clients = ("gemini-cli", "codex", "claude-code", "shell")
    outputs: dict[str, str] = {}
    for args in (("--dry-run",), ("--dry-run", "--json")):
        result = invoke("apply", *clients, *args)
        assert result.exit_code == 0, result
        outputs[" ".join(("apply", *args))] = result.output
    assert any(hidden(s) in (home / ".bashrc").read_text() for s in SECRETS.values())  # nothing was lost
    assert invoke("apply", *clients).exit_code == 0
    for args in (
        ("restore", "--all", "--dry-run"),
        ("restore", "--all", "--dry-run", "--json"),
        ("status",),
        ("status", "--json"),
    ):
        result = invoke(*args)
        outputs[" ".join(args)] = result.output
    assert "…" in outputs["apply --dry-run"]  # masked, not dropped
    assert_clean(outputs, {**SECRETS, "profile": KEY})
    assert invoke("restore", "--all").exit_code == 0
    assert SECRETS["codex_key"] in (home / ".codex" / "auth.json").read_text()


ESCAPED_KEY = 'sk-AAAAfront\\middle"quote0123WXYZ'
FRAGMENTS = {"front": "AAAAfront", "back": "quote0123"}


def test_a_key_with_backslash_and_quote_is_masked_in_every_encoding(home: Path) -> None:
    (home / ".bashrc").write_text("# mine\n")
    (home / ".config" / "fish").mkdir(parents=True)
    added = invoke(
        "profile", "add", "gw", "--base-url", "https://gw.example.com/v1", "--model", "my-model", "--key-stdin",
        "--use", input=ESCAPED_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert "no gateway issues" in added.stderr and "\\" in added.stderr, added
    clients = ("claude-code", "codex", "aider", "shell", "gemini-cli", "llm", "mods")
    outputs = {}
    for args in (("--dry-run",), ("--dry-run", "--json")):
        result = invoke("apply", *clients, *args)
        outputs[" ".join(args)] = result.output
    written = invoke("apply", *clients)
    outputs["apply"] = written.output
    outputs["status --json"] = invoke("status", "--json").output
    outputs["restore --dry-run"] = invoke("restore", "--all", "--dry-run").output
    escaped_forms = [
        t for p in home.rglob("*") if p.is_file() for t in [p.read_text(errors="replace")] if "AAAAfront" in t
    ]
    assert any('\\\\middle\\"' in t for t in escaped_forms), (
        "no file holds the escaped key: the test proves nothing"
    )
    assert_clean(outputs, {"key": ESCAPED_KEY})
    for cmd, text in outputs.items():
        for fragment in FRAGMENTS.values():
            assert fragment not in text, (cmd, fragment, text)


class _EchoingGateway(BaseHTTPRequestHandler):
    """Answers every request 401, echoing the key it got URL-encoded (as some gateways log it)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        key = (self.headers.get("authorization") or "").removeprefix("Bearer ")
        body = json.dumps(
            {"error": {"message": f"Incorrect API key provided: {quote(key, safe='')}", "type": "auth"}}
        )
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echoing() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_url_encoded_echo_of_the_key_is_masked(home: Path, echoing: str) -> None:
    key = "sk-AAAAfront/middle+plus=quote0123WXYZ"
    added = invoke(
        "profile",
        "add",
        "gw",
        "--base-url",
        echoing,
        "--model",
        "my-model",
        "--key-stdin",
        "--use",
        input=key + "\n",
    )
    assert added.exit_code == 0, added
    for args in ((), ("--json",)):
        result = invoke("verify", "--profile", "gw", *args)
        assert result.exit_code == 3, result
        assert "Incorrect API key" in result.output, result
        for fragment in ("AAAAfront", "middle", "quote0123"):
            assert fragment not in result.output, result
