"""A gateway behind a private certificate authority (a company's own, or a proxy that inspects
TLS): verify and the model list trust what the user's tools trust, and say what to do when no
trust is set up.

verify used to check certificates against the public authorities alone (httpx's certifi bundle):
an internal LiteLLM whose certificate a company's authority signed failed every verify with a
TLS error, while the clients, pointed at that authority with NODE_EXTRA_CA_CERTS (Node) or
SSL_CERT_FILE, or reading the system's store (Codex), reached it. ``tests/fixtures/tls`` holds a
test authority and a certificate it signed for 127.0.0.1 (valid to 2126; their keys protect
nothing but this loopback test).
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateway_fixtures import add_gateway_profile
from tests.gateway_server import GatewayServer

TLS = Path(__file__).with_name("fixtures") / "tls"


@pytest.fixture
def private_gateway() -> Iterator[GatewayServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "server.pem", TLS / "server.key")
    with GatewayServer(tls=context) as server:
        yield server


@pytest.fixture
def no_extra_authorities(monkeypatch: pytest.MonkeyPatch) -> None:
    """None of the variables that add authorities (a CI machine may set some)."""
    from gwconf.gateway import CA_VARIABLES

    for name in CA_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_a_private_authority_fails_with_the_way_to_trust_it_and_no_key_sent(
    gwconf, home: Path, private_gateway: GatewayServer, no_extra_authorities: None
) -> None:
    add_gateway_profile(private_gateway.base_url)
    assert private_gateway.base_url.startswith("https://127.0.0.1:")
    result = gwconf("verify", "--json")
    assert result.exit_code == 4, result
    [check] = json.loads(result.stdout)["results"]
    assert check["verdict"] == "unreachable" and "TLS handshake" in check["detail"], check
    assert "NODE_EXTRA_CA_CERTS" in check["remedy"] and "SSL_CERT_FILE" in check["remedy"]
    assert private_gateway.requests == []  # the handshake failed: the key never left


@pytest.mark.parametrize("variable", ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"])
def test_the_authority_the_environment_names_is_trusted(
    gwconf, home: Path, private_gateway: GatewayServer, no_extra_authorities: None,
    monkeypatch: pytest.MonkeyPatch, variable: str,
) -> None:  # fmt: skip
    add_gateway_profile(private_gateway.base_url)
    monkeypatch.setenv(variable, str(TLS / "ca.pem"))
    verified = gwconf("verify")
    assert verified.exit_code == 0, verified
    assert [r.path for r in private_gateway.requests] == ["/v1/chat/completions"]
    listed = gwconf("models", "--json")  # the model list goes the same way
    assert listed.exit_code == 0, listed
    assert "my-model" in listed.stdout


def test_an_authority_file_that_cannot_be_read_changes_nothing_else(
    gwconf, home: Path, private_gateway: GatewayServer, no_extra_authorities: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A variable naming a missing file: its own tools fail on it; verify still trusts the rest
    (the authority another variable names) and does not stop on it."""
    add_gateway_profile(private_gateway.base_url)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(home / "gone.pem"))
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(TLS / "ca.pem"))
    assert gwconf("verify").exit_code == 0


def test_an_unreachable_gateway_with_a_proxy_set_says_verify_went_direct(
    gwconf, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a network that allows no direct connection, "unreachable" alone read as the gateway
    being down, while the clients that take $HTTPS_PROXY got through."""
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    add_gateway_profile(f"http://127.0.0.1:{port}/v1")
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    [check] = json.loads(gwconf("verify", "--json").stdout)["results"]
    assert check["verdict"] == "unreachable" and "proxy" not in (check["remedy"] or "")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    [check] = json.loads(gwconf("verify", "--json").stdout)["results"]
    assert check["verdict"] == "unreachable"
    assert "$HTTPS_PROXY is set, and verify connects directly, never through a proxy" in check["remedy"]
