"""The model's limits with the real programs (issue 22): after ``gwconf apply`` with a profile that
names a window and an output limit, each client still starts, reads its files and talks to the
gateway (a limit written in a shape the client rejects would stop it here), and a client that sends
an output limit sends the profile's.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tests.e2e.clients import CLIENTS
from tests.e2e.conftest import Install, Processes
from tests.e2e.test_clients import MODEL, Harness, add_gateway_profile, run_on_the_gateway
from tests.gateway_server import DEFAULT_REPLY, GatewayServer

WINDOW, OUTPUT = 200000, 32000
# the clients this second round writes limits into (those the e2e install covers)
LIMIT_CLIENTS = [
    c
    for c in (
        "pi",
        "factory-droid",
        "qwen-code",
        "cline",
        "claude-code",
        "hermes",
        "mistral-vibe",
        "openhands",
        "open-interpreter",
        "nanocoder",
        "copilot-cli",
    )
    if c in CLIENTS
]


def _sent_output_limit(body: object) -> int | None:
    """The output limit a chat or messages request carries, whatever it calls it."""
    if not isinstance(body, dict):
        return None
    for name in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        if isinstance(body.get(name), int):
            return int(body[name])
    return None


@pytest.mark.parametrize("client", LIMIT_CLIENTS)
def test_the_real_client_runs_with_the_limits_gwconf_wrote(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    no_outside_network: list[str],
    tmp_path: pathlib.Path,
) -> None:
    spec = CLIENTS[client]
    h = Harness(spec, e2e_install, processes, gwconf, tmp_path)
    h.seed()
    add_gateway_profile(h, gateway, "--context-window", str(WINDOW), "--max-output-tokens", str(OUTPUT))
    applied = h.cli("apply", client)
    assert applied.exit_code == 0, applied
    assert "wrote gwconf's default" not in " ".join(applied.stdout.split())  # nothing was guessed
    run = run_on_the_gateway(h, gateway)
    if client == "claude-code":  # with CLAUDE_CODE_MAX_CONTEXT_TOKENS it knows the window (2.1.330)
        assert "recognize the model" not in run.stdout + run.stderr, run
    sent = {_sent_output_limit(r.json) for r in gateway.requests_to(spec.wire_path)} - {None}
    # a client sends the profile's output limit, or none at all (then the gateway's own applies)
    assert sent <= {OUTPUT}, f"{client} asked for {sorted(sent)} output tokens, not {OUTPUT}"
    print(f"{client}: output limit sent {sorted(sent) or 'none'}")
    assert no_outside_network == []


def test_real_aider_with_model_warnings_on_knows_the_window(
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
) -> None:
    """Issue 22: aider warns "Unknown context window size and costs" for a model litellm does not
    know. With the profile's limits, ~/.aider.model.metadata.json is gwconf's (the seeded copy is
    removed first) and aider, its model warnings on, starts without that warning."""
    spec = CLIENTS["aider"]
    h = Harness(spec, e2e_install, processes, gwconf, tmp_path)
    assert spec.seed is not None  # the seeded metadata file is the one removed here
    h.seed()
    (h.home / ".aider.model.metadata.json").unlink()
    add_gateway_profile(h, gateway, "--context-window", str(WINDOW), "--max-output-tokens", str(OUTPUT))
    assert h.cli("apply", "aider").exit_code == 0
    written = json.loads((h.home / ".aider.model.metadata.json").read_text())
    assert written[f"openai/{MODEL}"]["max_input_tokens"] == WINDOW
    run = h.run_client("--show-model-warnings")
    assert run.returncode == 0 and DEFAULT_REPLY in run.stdout, run
    assert "Unknown context window" not in run.stdout + run.stderr, run
