"""pytest fixtures around ``gateway_server.GatewayServer`` (registered in conftest.py's ``pytest_plugins``).

- ``gateway``: a running test gateway accepting ``VALID_KEY`` (stopped after the test).
- ``gateway_profile``: a saved, active profile ``gw`` pointing at it (model ``my-model``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer


@pytest.fixture
def gateway() -> Iterator[GatewayServer]:
    with GatewayServer(keys=(VALID_KEY,)) as server:
        yield server


@pytest.fixture
def gateway_profile(gwconf, gateway: GatewayServer) -> str:
    """A saved, active profile ``gw`` with the gateway's base address, model ``my-model`` and VALID_KEY."""
    result = gwconf(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    return "gw"
