"""Variables that move or override the terminal clients' files, cleared for their tests.

The shared conftest clears the common prefixes; these are the ones only these clients read.
Import ``clean_client_env`` into a test module to make it autouse there.
"""

from __future__ import annotations

import os

import pytest

PREFIXES = ("OPENCODE_", "KILO_", "CLINE_", "CRUSH_")
NAMES = ("SOURCE_DATE_EPOCH",)


@pytest.fixture(autouse=True)
def clean_client_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(PREFIXES) or name in NAMES:
            monkeypatch.delenv(name, raising=False)


def verify_request(gwconf, gateway, client_id: str) -> tuple[dict, object]:
    """``gwconf apply`` then ``gwconf verify`` against the test gateway: (verify entry, the request)."""
    import json

    applied = gwconf("apply", client_id)
    assert applied.exit_code == 0, applied
    result = gwconf("verify", client_id, "--json")
    assert result.exit_code == 0, result
    [entry] = json.loads(result.stdout)["results"]
    [request] = gateway.requests
    return entry, request
