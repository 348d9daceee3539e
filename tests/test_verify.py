"""gwconf verify through the CLI against the test gateway: each wire, each verdict, each exit code."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest

from tests.gateway_server import DEFAULT_REPLY, VALID_KEY, GatewayServer


def apply(gwconf, *clients: str) -> None:
    result = gwconf("apply", *clients)
    assert result.exit_code == 0, result


def as_json(result) -> dict:
    return json.loads(result.stdout)


def only(result) -> dict:
    [entry] = as_json(result)["results"]
    return entry


# -- the profile alone ----------------------------------------------------------------------------


def test_nothing_applied_yet_verifies_the_profile_with_a_chat_request(
    gwconf, gateway, gateway_profile
) -> None:
    result = gwconf("verify")
    assert result.exit_code == 0, result
    out = result.stdout
    assert f"POST     {gateway.base_url}/chat/completions" in out
    assert "sk-…KLMN" in out and "my-model" in out and "status   200 in " in out
    assert "verdict  ok" in out and DEFAULT_REPLY in out
    [request] = gateway.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"
    assert request.json["model"] == "my-model"


def test_profile_flag_without_clients_sends_the_profiles_own_request(
    gwconf, gateway, gateway_profile
) -> None:
    apply(gwconf, "codex")
    result = gwconf("verify", "--profile", "gw", "--model", "other-model", "--json")
    assert result.exit_code == 0, result
    entry = only(result)
    assert entry["client"] is None and entry["wire"] == "chat"
    assert entry["model"] == "other-model"
    assert [r.path for r in gateway.requests] == ["/v1/chat/completions"]


def test_without_a_profile_and_nothing_applied_it_is_an_expected_error(gwconf) -> None:
    result = gwconf("verify")
    assert result.exit_code == 1
    assert "no active profile" in result.stderr


# -- each client in its own wire --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "wire", "path", "header", "value"),
    [
        ("codex", "responses", "/v1/responses", "authorization", f"Bearer {VALID_KEY}"),
        ("claude-code", "messages", "/v1/messages", "authorization", f"Bearer {VALID_KEY}"),
        ("continue", "chat", "/v1/chat/completions", "authorization", f"Bearer {VALID_KEY}"),
    ],
)
def test_each_client_is_verified_in_its_own_wire(
    gwconf, gateway, gateway_profile, client, wire, path, header, value
) -> None:
    apply(gwconf, client)
    result = gwconf("verify", client, "--json")
    assert result.exit_code == 0, result
    entry = only(result)
    assert entry["client"] == client and entry["wire"] == wire
    assert entry["verdict"] == "ok" and entry["reply"] == DEFAULT_REPLY
    assert entry["url"] == gateway.url + path
    assert entry["status"] == 200 and isinstance(entry["latency_ms"], int)
    assert entry["key"] == "sk-…KLMN" and entry["key_origin"]
    [request] = gateway.requests
    assert request.path == path and request.headers[header] == value
    if wire == "messages":
        assert request.headers["anthropic-version"]


def test_applied_clients_are_verified_by_default(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "codex", "continue")
    result = gwconf("verify")
    assert result.exit_code == 0, result
    assert "== codex (Codex CLI) · Responses API" in result.stdout
    assert "== continue (Continue) · chat completions" in result.stdout
    assert "2 of 2 answered with content." in result.stdout
    assert sorted(r.path for r in gateway.requests) == ["/v1/chat/completions", "/v1/responses"]


def test_claude_code_with_an_api_key_sends_x_api_key(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "claude-code")
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"]["ANTHROPIC_API_KEY"] = data["env"].pop("ANTHROPIC_AUTH_TOKEN")
    settings.write_text(json.dumps(data))
    result = gwconf("verify", "claude-code")
    assert result.exit_code == 0, result
    assert "sent as x-api-key" in result.stdout
    [request] = gateway.requests
    assert request.headers["x-api-key"] == VALID_KEY and "authorization" not in request.headers


def test_verify_sends_what_the_client_reads_not_the_profile(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    """A key edited by hand in the client's file is what goes out (and what gets rejected)."""
    apply(gwconf, "continue")
    env_file = home / ".continue" / ".env"
    env_file.write_text("GWCONF_API_KEY=sk-handedited-0123456789abcdEFGH\n")
    result = gwconf("verify", "continue", "--json")
    assert result.exit_code == 3
    assert only(result)["key"] == "sk-…EFGH"
    assert gateway.requests[0].key == "sk-handedited-0123456789abcdEFGH"


def test_a_client_without_a_model_is_tested_with_the_profiles(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "claude-code")
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["env"]["ANTHROPIC_MODEL"]
    settings.write_text(json.dumps(data))
    result = gwconf("verify", "claude-code")
    assert result.exit_code == 0, result
    assert "names no model in its files; tested with the profile's 'my-model'" in result.stdout


# -- every verdict through the CLI ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "verdict", "label", "status"),
    [
        ("404", "base_wrong", "base address wrong", 404),
        ("405", "base_wrong", "base address wrong", 405),
        ("html", "base_wrong", "base address wrong", 200),
        ("redirect", "base_wrong", "base address wrong", 302),
        ("403", "forbidden", "forbidden", 403),
        ("429", "rate_limited", "rate limited", 429),
        ("500", "gateway_error", "gateway error", 500),
        ("malformed", "malformed", "malformed success", 200),
        ("empty", "malformed", "malformed success", 200),
    ],
)
def test_each_failure_verdict_exits_4(
    gwconf, gateway, gateway_profile, fault, verdict, label, status
) -> None:
    apply(gwconf, "continue")
    gateway.set_fault(fault)
    text = gwconf("verify", "continue")
    assert text.exit_code == 4, text
    assert f"verdict  {label}: " in text.stdout
    assert f"status   {status} in " in text.stdout
    if fault not in ("redirect",):
        assert "  body     | " in text.stdout  # the body's first lines, for diagnosis
    entry = only(gwconf("verify", "continue", "--json"))
    assert (entry["verdict"], entry["status"], entry["exit_code"]) == (verdict, status, 4)


def test_key_rejected_exits_3_with_the_spec_remedy(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "codex")
    gateway.keys = {"sk-some-other-key-0000000000"}
    result = gwconf("verify", "codex")
    assert result.exit_code == 3, result
    assert "verdict  key rejected: HTTP 401 with error code invalid_api_key" in result.stdout
    assert '"code": "invalid_api_key"' in result.stdout
    assert "remedy" in result.stdout and "console" in result.stdout
    assert gwconf("verify", "codex", "--json").exit_code == 3


def test_model_not_available_exits_4(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "continue")
    gateway.models = {"my-model"}
    result = gwconf("verify", "continue", "--model", "not-served", "--json")
    assert result.exit_code == 4
    entry = only(result)
    assert entry["verdict"] == "model_unavailable" and entry["error_code"] == "model_not_found"
    assert entry["model"] == "not-served"


def test_timeout_exits_4(gwconf, gateway, gateway_profile) -> None:
    gateway.set_fault("slow", delay=10)
    result = gwconf("verify", "--timeout", "0.2")
    assert result.exit_code == 4
    assert "verdict  timeout: no answer within 0.2 s" in result.stdout
    assert "status   no HTTP answer" in result.stdout


def test_unreachable_exits_4(gwconf) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    added = gwconf(
        "profile", "add", "closed", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("verify", "--json")
    assert result.exit_code == 4
    assert only(result)["verdict"] == "unreachable" and "refused" in only(result)["detail"]


def test_a_doubled_v1_is_base_address_wrong(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "claude-code")
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"]["ANTHROPIC_BASE_URL"] = gateway.base_url  # with /v1: Claude appends /v1/messages
    settings.write_text(json.dumps(data))
    result = gwconf("verify", "claude-code", "--json")
    assert result.exit_code == 4
    entry = only(result)
    assert entry["verdict"] == "base_wrong" and entry["url"].endswith("/v1/v1/messages")


# -- expected errors: nothing could be sent --------------------------------------------------------


def test_a_client_without_a_key_is_an_expected_error(gwconf, gateway, gateway_profile) -> None:
    result = gwconf("verify", "claude-code")
    assert result.exit_code == 1
    assert "no key where it reads it" in result.stderr
    assert "gwconf apply claude-code" in result.stderr
    assert gateway.requests == []


def test_an_unreadable_file_is_an_expected_error(gwconf, gateway, gateway_profile, home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"env": {')
    result = gwconf("verify", "claude-code", "--json")
    assert result.exit_code == 1
    assert "settings.json" in only(result)["error"]["message"]


def test_the_worst_result_decides_the_exit_code(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "codex", "continue")
    (home / ".continue" / ".env").write_text("GWCONF_API_KEY=sk-wrong-0123456789abcdefABCD\n")
    result = gwconf("verify", "--json")
    assert result.exit_code == 3
    assert [e["verdict"] for e in as_json(result)["results"]] == ["ok", "key_rejected"]
    assert as_json(result)["exit_code"] == 3


# -- the key goes only where it is verified ------------------------------------------------------


def test_the_key_never_reaches_another_host(
    gwconf, gateway, gateway_profile, home: Path, monkeypatch
) -> None:
    looked_up: list[str] = []
    real = socket.getaddrinfo

    def guarded(host, *args, **kwargs):
        looked_up.append(host)
        if host not in ("127.0.0.1", "localhost"):
            raise AssertionError(f"a connection to {host} was attempted")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)
    # Codex on its built-in provider: it would send the key to api.openai.com
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "my-model"\n')
    (home / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": VALID_KEY}))
    with GatewayServer() as elsewhere:
        result = gwconf("verify", "codex", "--json")
        assert result.exit_code == 4
        entry = only(result)
        assert entry["sent"] is False and entry["verdict"] == "base_wrong"
        assert entry["url"] == "https://api.openai.com/v1/responses"
        assert "vendor's official address" in entry["detail"]
        text = gwconf("verify", "codex")
        assert "status   not sent" in text.stdout
        # the verified gateway redirects: the key is not carried to the other server
        apply(gwconf, "continue")
        gateway.set_fault("redirect")
        gateway.redirect_to = elsewhere.base_url + "/chat/completions"
        result = gwconf("verify", "continue", "--json")
        assert result.exit_code == 4 and elsewhere.base_url in only(result)["detail"]
        assert elsewhere.requests == []
        # doctor with a client pointed at the other server: the profile's key goes to the profile's
        # gateway only, never to the address the client happens to hold
        apply(gwconf, "claude-code")
        gateway.set_fault(None)
        settings = home / ".claude" / "settings.json"
        data = json.loads(settings.read_text())
        data["env"]["ANTHROPIC_BASE_URL"] = elsewhere.url
        settings.write_text(json.dumps(data))
        assert gwconf("doctor", "claude-code").exit_code == 5
        assert elsewhere.requests == []
    assert "api.openai.com" not in looked_up
    assert {r.path for r in gateway.requests} == {"/v1/chat/completions", "/v1/messages"}


# -- terminal manners -------------------------------------------------------------------------------


def test_nothing_but_results_on_a_pipe(gwconf, gateway, gateway_profile) -> None:
    result = gwconf("verify")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert "\r" not in result.stdout


class _Terminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_the_spinner_draws_on_a_terminal_and_erases_itself() -> None:
    from gwconf.cli.verify import Spinner

    stream = _Terminal()
    with Spinner("verifying codex …", stream=stream) as spinner:
        assert spinner.active
    written = stream.getvalue()
    assert "verifying codex …" in written
    assert written.endswith("\r\x1b[K")
    pipe = io.StringIO()
    with Spinner("verifying codex …", stream=pipe):
        pass
    assert pipe.getvalue() == ""


def test_help_shows_examples_and_exit_codes(gwconf) -> None:
    result = gwconf("verify", "--help")
    assert result.exit_code == 0
    assert "gwconf verify codex" in result.stdout and "Exit codes" in result.stdout
    assert "--timeout" in result.stdout and "--model" in result.stdout and "--json" in result.stdout
