"""Through a real gateway: the LiteLLM proxy (tests/e2e/litellm_proxy.py), started once per session.

1. For every client whose wire LiteLLM serves (chat completions, Responses, Anthropic messages and
   Gemini generateContent all are): ``gwconf apply``, then ``verify`` and ``doctor`` exit 0.
2. The failures a real gateway passes on from its upstream, each with its verdict: an upstream 401
   and 404 are the gateway's route for the model (exit 4, with the models it lists), not the key
   or the address; every deployment cooling down is not the key's quota; an unknown model names
   the models; a key LiteLLM's key database does not know is the key (exit 3); a LiteLLM without a
   database takes only its master key; a client address without /v1, which LiteLLM serves, is a
   warning in doctor as in verify.
3. The real clients, after ``gwconf apply``, talk through it: LiteLLM forwards ``my-model`` to the
   project's test gateway, which must see the request with LiteLLM's own upstream key. With a key
   LiteLLM does not know, the client fails and verify and doctor name the key.
4. The model's limits that LiteLLM tells (``model_info.max_input_tokens: 1000000``) reach codex,
   opencode and aider through ``gwconf models`` and ``apply``, with nothing set on the profile.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time
import tomllib
from collections.abc import Iterator

import pytest

from tests.e2e.clients import CLIENTS
from tests.e2e.conftest import Install, Processes
from tests.e2e.litellm_proxy import MASTER_KEY, MOCK_REPLY, USER_KEY, LiteLLMProxy
from tests.e2e.test_clients import Harness
from tests.gateway_server import DEFAULT_REPLY, VALID_KEY, GatewayServer

MODEL = "my-model"
REVOKED = "sk-litellm-other-0123456789abcdefOTHR"
# one worker runs them all (scripts/test: --dist loadgroup): the proxies start once, not once per worker
pytestmark = pytest.mark.xdist_group("litellm")


# -- the proxy, once per session ------------------------------------------------------------------


def _executable(install: Install) -> pathlib.Path:
    entry = install.clients.get("litellm")
    program = install.bin / "litellm"
    if entry is None and program.is_file():  # the cache's list was last written by an older installer
        return program
    assert entry is not None and entry.ok, (
        f"litellm did not install: {entry.detail if entry else 'not listed'}"
    )
    return program


@pytest.fixture(scope="session")
def litellm_upstream() -> Iterator[GatewayServer]:
    """The project's test gateway, behind LiteLLM's ``openai/my-model`` entries."""
    with GatewayServer(keys=(VALID_KEY,)) as server:
        yield server


def _started(
    install: Install, upstream: GatewayServer, folder: pathlib.Path, custom_auth: bool
) -> LiteLLMProxy:
    proxy = LiteLLMProxy(_executable(install), upstream, folder, custom_auth=custom_auth)
    proxy.start()
    sys.stderr.write(
        f"\n[e2e] litellm proxy on {proxy.url} (custom_auth={custom_auth}) in {proxy.started_in:.1f} s\n"
    )
    return proxy


@pytest.fixture(scope="session")
def litellm_proxy(
    e2e_install: Install, litellm_upstream: GatewayServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiteLLMProxy]:
    proxy = _started(e2e_install, litellm_upstream, tmp_path_factory.mktemp("litellm"), True)
    try:
        yield proxy
    finally:
        proxy.stop()


@pytest.fixture(scope="session")
def litellm_without_db(
    e2e_install: Install, litellm_upstream: GatewayServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiteLLMProxy]:
    """A second proxy without the custom_auth hook: no key database, only its master key works."""
    proxy = _started(e2e_install, litellm_upstream, tmp_path_factory.mktemp("litellm-nodb"), False)
    try:
        yield proxy
    finally:
        proxy.stop()


@pytest.fixture
def litellm(litellm_proxy: LiteLLMProxy, litellm_upstream: GatewayServer) -> LiteLLMProxy:
    """The session's proxy, its keys and its upstream as a new test expects them."""
    litellm_proxy.keys = {USER_KEY}
    litellm_upstream.keys = {VALID_KEY}
    litellm_upstream.set_fault(None)
    litellm_upstream.clear()
    return litellm_proxy


def profile(gwconf, proxy: LiteLLMProxy, model: str = MODEL, key: str = USER_KEY, name: str = "ll") -> None:
    added = gwconf(
        "profile", "add", name, "--base-url", proxy.base_url, "--model", model, "--key-stdin", "--use", "--force",
        input=key + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added


def verify_json(gwconf, *args: str) -> tuple[int, dict]:
    result = gwconf("verify", *args, "--json")
    [entry] = json.loads(result.stdout)["results"]
    return result.exit_code, entry


def doctor_json(gwconf, *args: str) -> tuple[int, dict]:
    result = gwconf("doctor", *args, "--json")
    data = json.loads(result.stdout)
    return result.exit_code, (data["clients"][0] if data["clients"] else data)


# -- 1. apply, verify, doctor over the four wires -------------------------------------------------

WIRES = {
    "codex": "/v1/responses",
    "claude-code": "/v1/messages",
    "gemini-cli": "/v1beta/models/{model}:generateContent",
    "qwen-code": "/v1/chat/completions",
    "llm": "/v1/chat/completions",
    "aider": "/v1/chat/completions",
    "opencode": "/v1/chat/completions",
    "continue": "/v1/chat/completions",
}


@pytest.mark.parametrize("model", [MODEL, "mock-model"])
@pytest.mark.parametrize("client", list(WIRES))
def test_apply_verify_doctor_through_litellm(gwconf, litellm: LiteLLMProxy, client: str, model: str) -> None:
    profile(gwconf, litellm, model)
    applied = gwconf("apply", client)
    assert applied.exit_code == 0, applied
    code, entry = verify_json(gwconf, client)
    assert (code, entry["verdict"]) == (0, "ok"), entry
    assert entry["url"] == litellm.url + WIRES[client].format(model=model)
    assert entry["reply"] == (DEFAULT_REPLY if model == MODEL else MOCK_REPLY)
    code, report = doctor_json(gwconf, client)
    assert (code, report["verdict"]) == (0, "ok"), report
    if model == MODEL:  # LiteLLM forwarded it, with its own upstream key
        posted = [r for r in litellm.upstream.requests if r.method == "POST"]
        assert posted and all(r.key == VALID_KEY and r.model == MODEL for r in posted)


# -- 2. the failures a real gateway passes on ---------------------------------------------------


@pytest.mark.parametrize(("model", "status"), [("upstream-401", 401), ("upstream-404", 404)])
def test_an_upstream_failure_is_the_gateways_route(
    gwconf, litellm: LiteLLMProxy, model: str, status: int
) -> None:
    profile(gwconf, litellm, model)
    assert gwconf("apply", "continue").exit_code == 0
    code, entry = verify_json(gwconf, "continue")
    assert (code, entry["verdict"], entry["status"]) == (4, "route_failed", status), entry
    assert f"the gateway accepts your key; its route for model '{model}' failed" in entry["detail"]
    assert entry["remedy"].startswith(
        "Tell the gateway's operator, or pick another model: the gateway lists "
    )
    assert MODEL in entry["listed_models"] and "mock-model" in entry["remedy"]
    text = gwconf("doctor", "continue")
    assert text.exit_code == 4, text
    assert "the gateway accepts your key" in text.stdout and "rejects this key" not in text.stdout
    assert "/v1 missing" not in text.stdout


def test_every_deployment_cooling_down_is_not_the_quota(gwconf, litellm: LiteLLMProxy) -> None:
    profile(gwconf, litellm, "cooling")
    assert gwconf("apply", "continue").exit_code == 0
    # the first request fails at the closed port (500) and sends both deployments into cooldown
    for _ in range(3):
        code, entry = verify_json(gwconf, "continue")
        if entry["status"] == 429:
            break
    assert (code, entry["verdict"], entry["status"]) == (4, "route_failed", 429), entry
    assert "the model's upstream is failing, not the key's quota" in entry["detail"]
    text = gwconf("doctor", "continue")
    assert text.exit_code == 4 and "quota and balance" not in text.stdout, text


def test_a_model_litellm_does_not_serve_names_the_ones_it_does(gwconf, litellm: LiteLLMProxy) -> None:
    profile(gwconf, litellm, "my-modle")
    assert gwconf("apply", "continue").exit_code == 0
    code, entry = verify_json(gwconf, "continue")
    assert (code, entry["verdict"], entry["status"]) == (4, "model_unavailable", 400), entry
    assert MODEL in entry["remedy"]
    text = gwconf("doctor", "continue")
    assert text.exit_code == 4, text
    assert "verdict: model not available: " in text.stdout
    assert "does not work with the profile's" not in text.stdout
    assert (
        "fix: gwconf profile set ll --model MODEL (Pick a model the gateway serves: the gateway lists my-model"
        in (text.stdout)
    )


def test_a_key_litellm_does_not_know_is_the_keys_fault(gwconf, litellm: LiteLLMProxy) -> None:
    profile(gwconf, litellm)
    assert gwconf("apply", "codex").exit_code == 0
    litellm.keys = {REVOKED}
    text = gwconf("verify", "codex")
    assert text.exit_code == 3, text
    assert "HTTP 401 with error code token_not_found_in_db" in text.stdout
    assert "error code 401" not in text.stdout
    doctor = gwconf("doctor", "codex")
    assert doctor.exit_code == 3 and "the gateway itself rejects this key" in doctor.stdout, doctor


def test_a_litellm_without_a_database_takes_only_its_master_key(
    gwconf, litellm_without_db: LiteLLMProxy
) -> None:
    profile(gwconf, litellm_without_db)
    assert gwconf("apply", "claude-code").exit_code == 0
    code, entry = verify_json(gwconf, "claude-code")
    assert (code, entry["verdict"], entry["status"], entry["error_code"]) == (
        3,
        "key_rejected",
        400,
        "no_db_connection",
    ), entry
    assert "only its master key" in entry["remedy"]
    doctor = gwconf("doctor", "claude-code")
    assert doctor.exit_code == 3 and "only its master key" in doctor.stdout, doctor
    assert "create a new key" not in doctor.stdout
    profile(gwconf, litellm_without_db, key=MASTER_KEY)
    assert gwconf("apply", "claude-code").exit_code == 0
    assert verify_json(gwconf, "claude-code")[0] == 0


@pytest.mark.parametrize("client", ["codex", "llm", "opencode"])
def test_an_address_without_v1_that_litellm_serves_is_a_warning(
    gwconf, litellm: LiteLLMProxy, home: pathlib.Path, client: str
) -> None:
    profile(gwconf, litellm)
    assert gwconf("apply", client).exit_code == 0
    files = {
        "codex": home / ".codex" / "config.toml",
        "llm": home / ".config" / "io.datasette.llm" / "extra-openai-models.yaml",
        "opencode": home / ".config" / "opencode" / "opencode.json",
    }
    path = files[client]
    text = path.read_text()
    assert litellm.base_url in text, text
    path.write_text(text.replace(litellm.base_url, litellm.url))
    assert verify_json(gwconf, client)[0] == 0
    code, report = doctor_json(gwconf, client)
    assert (code, report["verdict"]) == (0, "ok"), report
    warned = [f for f in report["findings"] if f["area"] == "base" and f["level"] == "warning"]
    assert (
        warned
        and "does not end in /v1" in warned[0]["message"]
        and warned[0]["fix"] == f"gwconf apply {client}"
    )


# -- 3. the real clients through LiteLLM -----------------------------------------------------------

REAL = ["codex", "claude-code", "gemini-cli", "llm", "opencode", "aider", "qwen-code", "continue"]


@pytest.mark.parametrize("client", REAL)
def test_the_real_client_talks_through_litellm(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    litellm: LiteLLMProxy,
    tmp_path: pathlib.Path,
) -> None:
    spec = CLIENTS[client]
    h = Harness(spec, e2e_install, processes, gwconf, tmp_path)
    h.seed()
    profile(gwconf, litellm)
    assert gwconf("apply", client).exit_code == 0
    upstream = litellm.upstream
    started = time.monotonic()
    run = h.run_client()
    assert run.returncode == 0 and not run.timed_out, run
    assert DEFAULT_REPLY in run.stdout, run
    posted = [r for r in upstream.requests if r.method == "POST"]
    assert posted, (
        f"LiteLLM forwarded nothing; the upstream saw {[(r.method, r.path) for r in upstream.requests]}"
    )
    assert all(r.key == VALID_KEY and r.model == MODEL for r in posted)
    sys.stderr.write(f"[e2e] {client} through litellm: {time.monotonic() - started:.1f} s\n")
    assert verify_json(gwconf, client)[0] == 0
    assert doctor_json(gwconf, client)[0] == 0

    # a key LiteLLM does not know: the client fails, verify and doctor name the key
    litellm.keys = {REVOKED}
    upstream.clear()
    run = h.run_client(*spec.wrong_key_args, env=spec.wrong_key_env)
    assert not run.timed_out, run
    if spec.wrong_key_text:
        assert spec.wrong_key_text in run.stdout + run.stderr, run
    else:
        assert run.returncode != 0, run
    assert DEFAULT_REPLY not in run.stdout, run
    assert not [r for r in upstream.requests if r.method == "POST"], (
        "LiteLLM forwarded a request with a bad key"
    )
    assert gwconf("verify", client).exit_code == 3
    doctor = gwconf("doctor", client)
    assert doctor.exit_code == 3 and "the gateway itself rejects this key" in doctor.stdout, doctor


# -- 4. the limits LiteLLM tells ------------------------------------------------------------------


def test_the_limits_litellm_tells_reach_codex_opencode_and_aider(
    gwconf, litellm: LiteLLMProxy, home: pathlib.Path
) -> None:
    profile(gwconf, litellm)
    listed = gwconf("models", "--json")
    assert listed.exit_code == 0, listed
    limits = json.loads(listed.stdout)["limits"][MODEL]
    assert (limits["context_window"], limits["max_output_tokens"]) == (1000000, 32000), limits
    assert gwconf("apply", "codex", "opencode", "aider").exit_code == 0
    assert tomllib.loads((home / ".codex" / "config.toml").read_text())["model_context_window"] == 1000000
    opencode = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    assert opencode["provider"]["gwconf"]["models"][MODEL]["limit"] == {"context": 1000000, "output": 32000}
    metadata = json.loads((home / ".aider.model.metadata.json").read_text())
    assert metadata[f"openai/{MODEL}"]["max_input_tokens"] == 1000000
