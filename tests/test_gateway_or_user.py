"""verify and doctor tell the gateway's fault from the user's (issue 23, part 2), on the test gateway.

A real gateway passes on its upstream's failures: a 401 when its own credential for a model is
wrong, a 404 when the model's upstream is gone, a 429 when every deployment rests after failures.
One ``GET {base}/models`` with the same key tells these from a bad key or address. The same cases
run through the real LiteLLM proxy in tests/e2e/test_litellm.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwconf.gateway import MADE_UP_KEY
from tests.gateway_server import MASTER_KEY, GatewayServer


def apply(gwconf, *clients: str) -> None:
    result = gwconf("apply", *clients)
    assert result.exit_code == 0, result


def verified(gwconf, client: str) -> dict:
    result = gwconf("verify", client, "--json")
    [entry] = json.loads(result.stdout)["results"]
    assert entry["exit_code"] == result.exit_code
    return entry


def doctored(gwconf, client: str) -> dict:
    result = gwconf("doctor", client, "--json")
    [entry] = json.loads(result.stdout)["clients"]
    assert entry["exit_code"] == result.exit_code
    return entry


@pytest.mark.parametrize(("fault", "status"), [("upstream-401", 401), ("upstream-404", 404)])
@pytest.mark.parametrize("client", ["continue", "codex", "claude-code"])
def test_an_upstream_failure_is_the_gateways_route_not_the_key(
    gwconf, gateway: GatewayServer, gateway_profile, fault, status, client
) -> None:
    gateway.models = {"my-model", "other-model"}
    apply(gwconf, client)
    gateway.set_fault(fault)
    text = gwconf("verify", client)
    assert text.exit_code == 4, text
    assert "the gateway accepts your key; its route for model 'my-model' failed" in text.stdout
    assert "remedy   Tell the gateway's operator, or pick another model: the gateway lists other-model" in (
        text.stdout
    )
    assert "rejects this key" not in text.stdout and "/v1 missing" not in text.stdout
    entry = verified(gwconf, client)
    assert (entry["verdict"], entry["status"], entry["listed_models"]) == (
        "route_failed",
        status,
        ["my-model", "other-model"],
    )
    # the second look went to /v1/models with the same key, then without one, then with a made-up one
    models = gateway.requests_to("/v1/models")
    assert [r.key for r in models][-3:] == [gateway_profile_key(gateway), None, MADE_UP_KEY]

    doctor = gwconf("doctor", client)
    assert doctor.exit_code == 4, doctor
    assert "verdict: HTTP " in doctor.stdout and "the gateway accepts your key" in doctor.stdout
    assert "fix: Tell the gateway's operator, or pick another model" in doctor.stdout
    assert "rejects this key" not in doctor.stdout and "does not work with the profile's" not in doctor.stdout


def test_a_list_the_gateway_gives_any_key_says_nothing_about_the_key(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    """A proxy that passes GET /models through unchecked answers any key: the completion's 401
    invalid_api_key was turned into "the gateway accepts your key" (the hostile-gateway sweep)."""
    apply(gwconf, "continue")
    gateway.keys = {"sk-some-other-key-0000000000000000"}  # the profile's key is no longer valid
    gateway.models_for_any_key = True
    text = gwconf("verify", "continue")
    assert text.exit_code == 3 and "the gateway does not accept this key" in text.stdout, text
    assert "accepts your key" not in text.stdout


@pytest.mark.parametrize(
    ("client", "protocol"), [("codex", "the Responses API"), ("claude-code", "Anthropic messages")]
)
def test_a_gateway_without_the_clients_endpoint_is_the_address_not_the_models_route(
    gwconf, gateway: GatewayServer, gateway_profile, client, protocol
) -> None:
    """A gateway that speaks chat only answers a Responses or messages request with OpenAI's
    404 "Invalid URL (POST /v1/responses)": that was "its route for model 'my-model' failed ...
    pick another model" (the hostile-gateway sweep), where the address is what is missing."""
    apply(gwconf, client)
    gateway.set_fault("no-route", path="/v1/" + ("responses" if client == "codex" else "messages"))
    text = gwconf("verify", client)
    assert text.exit_code == 4, text
    assert f"the key and the address work, and this gateway does not serve {protocol} there" in text.stdout
    assert "pick another model" not in text.stdout and "route for model" not in text.stdout
    assert verified(gwconf, client)["verdict"] == "base_wrong"
    if client == "claude-code":  # doctor's fix: the gateway's Anthropic-style address
        assert "--anthropic-base-url URL" in gwconf("doctor", client).stdout


def test_a_listed_model_the_gateway_refuses_is_not_suggested_back(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    """The list names 'my-model', a chat with it answers model_not_found: the remedy said
    "closest it serves: my-model" (the hostile-gateway sweep). The list is public here, so the
    second look (which would call it the model's route) says nothing about the key."""
    gateway.models = {"my-model", "my-model-mini"}
    gateway.public_models = True
    apply(gwconf, "continue")
    gateway.set_fault("model-404")
    text = gwconf("verify", "continue")
    assert text.exit_code == 4 and "model not available" in text.stdout, text
    assert "The gateway lists 'my-model' but answers that it does not serve it" in text.stdout
    assert "closest it serves" not in text.stdout


def gateway_profile_key(gateway: GatewayServer) -> str:
    [key] = gateway.keys
    return key


def test_a_bad_key_stays_the_keys_fault_even_when_the_list_is_public(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    """A list that the gateway gives without any key says nothing about the key."""
    apply(gwconf, "continue")
    gateway.public_models = True
    gateway.keys = {"sk-the-real-one-0000000000000"}
    entry = verified(gwconf, "continue")
    assert (entry["verdict"], entry["exit_code"]) == ("key_rejected", 3)
    assert doctored(gwconf, "continue")["verdict"] == "key_rejected"


def test_a_bare_404_page_is_still_the_address(gwconf, gateway: GatewayServer, gateway_profile) -> None:
    """No API answered at that path (a plain 404 page), even if /models answers: the address."""
    apply(gwconf, "claude-code")
    gateway.set_fault("404", path="/v1/messages")
    entry = verified(gwconf, "claude-code")
    assert entry["verdict"] == "base_wrong"


def test_a_401_that_only_repeats_its_status_is_not_printed_as_its_code(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    apply(gwconf, "continue")
    gateway.keys = {"sk-the-real-one-0000000000000"}  # /models says 401 too: it is the key
    gateway.set_fault("upstream-401")
    text = gwconf("verify", "continue")
    assert text.exit_code == 3, text
    assert "HTTP 401 with error code authentication_error" in text.stdout
    assert "error code 401" not in text.stdout


def test_every_deployment_cooling_down_is_the_models_upstream_not_the_quota(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    apply(gwconf, "continue")
    gateway.set_fault("cooldown")
    text = gwconf("verify", "continue")
    assert text.exit_code == 4, text
    assert "the model's upstream is failing, not the key's quota" in text.stdout
    assert "quota and balance" not in text.stdout
    assert verified(gwconf, "continue")["verdict"] == "route_failed"
    doctor = gwconf("doctor", "continue")
    assert doctor.exit_code == 4, doctor
    assert "fix: Tell the gateway's operator, or pick another model" in doctor.stdout
    assert "quota and balance" not in doctor.stdout


def test_a_litellm_without_a_database_takes_only_its_master_key(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    apply(gwconf, "continue")
    gateway.set_fault("no-db")
    text = gwconf("verify", "continue")
    assert text.exit_code == 3, text
    assert "no key database" in text.stdout and "master key" in text.stdout
    assert "create a new key" not in text.stdout
    doctor = gwconf("doctor", "continue")
    assert doctor.exit_code == 3, doctor
    assert "only its master key" in doctor.stdout and "create a new key" not in doctor.stdout
    # the master key itself is served
    assert gwconf("profile", "set", "gw", "--key-stdin", input=MASTER_KEY + "\n").exit_code == 0
    gateway.keys.add(MASTER_KEY)
    apply(gwconf, "continue")
    assert gwconf("verify", "continue").exit_code == 0


def test_doctor_names_the_models_when_the_model_is_not_available(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    gateway.models = {"other-model", "my-modell"}
    apply(gwconf, "continue")
    doctor = gwconf("doctor", "continue")
    assert doctor.exit_code == 4, doctor
    assert "verdict: model not available: HTTP 404: the gateway does not serve 'my-model'" in doctor.stdout
    assert "does not work with the profile's" not in doctor.stdout
    assert (
        "fix: gwconf profile set gw --model MODEL (Pick a model the gateway serves: the gateway lists "
        in (doctor.stdout)
    )
    entry = doctored(gwconf, "continue")
    assert entry["direct"]["listed_models"] == ["my-modell", "other-model"]
    assert "my-modell, other-model" in entry["fixes"][0]  # the closest first


def _drop_v1(path: Path) -> None:
    text = path.read_text()
    assert '/v1"' in text
    path.write_text(text.replace('/v1"', '"'))


def test_an_address_without_v1_that_the_gateway_serves_is_a_warning(
    gwconf, gateway: GatewayServer, gateway_profile, home: Path
) -> None:
    """doctor agrees with verify: where the client's own request succeeds, the form is a warning."""
    gateway.unversioned = True  # as LiteLLM: /chat/completions and /v1/chat/completions alike
    apply(gwconf, "codex")
    _drop_v1(home / ".codex" / "config.toml")
    assert gwconf("verify", "codex").exit_code == 0
    doctor = gwconf("doctor", "codex")
    assert doctor.exit_code == 0, doctor
    assert "does not end in /v1; this gateway answers Codex CLI's own request there anyway" in doctor.stdout
    assert "fix: gwconf apply codex" in doctor.stdout
    entry = doctored(gwconf, "codex")
    assert entry["client_probe"]["verdict"] == "ok"
    assert entry["client_probe"]["url"] == gateway.url + "/responses"


def test_an_address_without_v1_that_the_gateway_does_not_serve_is_the_clients_fault(
    gwconf, gateway: GatewayServer, gateway_profile, home: Path
) -> None:
    apply(gwconf, "codex")
    _drop_v1(home / ".codex" / "config.toml")
    assert gwconf("verify", "codex").exit_code == 4
    entry = doctored(gwconf, "codex")
    assert (entry["verdict"], entry["exit_code"]) == ("client_config", 5)
    assert entry["fixes"] == ["gwconf apply codex"]
