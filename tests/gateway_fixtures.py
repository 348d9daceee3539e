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


def add_gateway_profile(base_url: str, model: str = "my-model", name: str = "gw") -> str:
    """Save profile ``name`` for a test gateway at ``base_url`` (its VALID_KEY, ``model``) and make
    it the active one."""
    from tests.conftest import invoke

    result = invoke(
        "profile", "add", name, "--base-url", base_url, "--model", model, "--key-stdin", "--use",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    return name


@pytest.fixture
def gateway_profile(gwconf, gateway: GatewayServer) -> str:
    """A saved, active profile ``gw`` with the gateway's base address, model ``my-model`` and VALID_KEY."""
    return add_gateway_profile(gateway.base_url)
