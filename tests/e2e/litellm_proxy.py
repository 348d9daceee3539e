"""A real gateway for the e2e suite: the LiteLLM proxy (PyPI ``litellm[proxy]``, pinned in
scripts/e2e-install), run on 127.0.0.1 with a free port, offline, and ended by its process id.

What makes it run here (each checked with 1.108.7):
- offline: ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (else its import fetches a price list from GitHub)
  and ``litellm_settings.telemetry: false``;
- keys: with no database it accepts only its master key and answers any other key with
  ``400 no_db_connection``. Its documented ``general_settings.custom_auth`` hook (``custom_auth.py``
  below) accepts the keys listed in a file, read at every request so a test can revoke a key, and
  raises for any other key what its key database raises: 401 ``token_not_found_in_db``;
- models: ``mock_response`` answers without an upstream; ``openai/<model>`` entries whose
  ``api_base`` is the project's own test gateway (tests/gateway_server.py) forward real requests,
  and entries whose upstream is broken on purpose give the failures a real gateway passes on
  (``MODELS`` says which);
- a second proxy, without the hook, is the gateway that has no key database (started only when a
  test asks for it).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field

import yaml

from tests.gateway_server import VALID_KEY, GatewayServer

USER_KEY = "sk-litellm-user-0123456789abcdefUSER"  # what the custom_auth hook accepts
MASTER_KEY = "sk-litellm-master-0123456789abcdMSTR"
MOCK_REPLY = "Hello from the LiteLLM mock."
START_TIMEOUT = 300.0  # it starts in about 6 s; on a loaded 2-core machine it took 91 s

# model name -> what its route does. "my-model" forwards to the test gateway (the real clients'
# model); the others fail the way a gateway's upstream does, while GET /v1/models lists them all.
MODELS = {
    "my-model": "forwards to the test gateway with a key it accepts",
    "mock-model": "mock_response: answers without an upstream",
    "upstream-401": "forwards to the test gateway with a key it rejects (the gateway's own credential is wrong)",
    "upstream-404": "forwards to an address of the test gateway where nothing answers",
    "cooling": "two deployments at a closed port: after a failure both rest (cooldown)",
}

CUSTOM_AUTH = '''\
"""gwconf e2e: accept the keys listed in $GWCONF_E2E_LITELLM_KEYS (one per line, read per request);
answer any other key as LiteLLM's key database does (401 token_not_found_in_db)."""
import os

from fastapi import Request
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    with open(os.environ["GWCONF_E2E_LITELLM_KEYS"]) as listed:
        keys = {line.strip() for line in listed if line.strip()}
    if api_key in keys:
        return UserAPIKeyAuth(api_key=api_key)
    shown = f"{api_key[:3]}...{api_key[-4:]}" if api_key and len(api_key) > 8 else "(none)"
    raise ProxyException(
        message="Authentication Error, Invalid proxy server token passed. Received API Key = "
        f"{shown}. Unable to find token in cache or `LiteLLM_VerificationTokenTable`",
        type=ProxyErrorTypes.token_not_found_in_db,
        param="key",
        code=401,
    )
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def config(upstream: GatewayServer, dead_port: int, *, custom_auth: bool, limits: bool = True) -> dict:
    """The proxy's config.yaml."""
    forward = {"model": "openai/my-model", "api_base": upstream.base_url, "api_key": VALID_KEY}
    entries = [
        {
            "model_name": "my-model",
            "litellm_params": dict(forward),
            # what the gateway tells about its model's limits (issue 22): GET /v1/model/info and
            # GET /v1/models/{model}
            **({"model_info": {"max_input_tokens": 1000000, "max_output_tokens": 32000}} if limits else {}),
        },
        {
            "model_name": "mock-model",
            "litellm_params": {"model": "openai/mock-model", "mock_response": MOCK_REPLY},
        },
        {
            "model_name": "upstream-401",
            "litellm_params": {**forward, "api_key": "sk-not-the-upstreams-key-0000"},
        },
        {"model_name": "upstream-404", "litellm_params": {**forward, "api_base": upstream.url + "/gone/v1"}},
    ]
    dead = {"model": "openai/my-model", "api_base": f"http://127.0.0.1:{dead_port}/v1", "api_key": VALID_KEY}
    entries += [{"model_name": "cooling", "litellm_params": dict(dead)} for _ in range(2)]
    general: dict = {"master_key": MASTER_KEY}
    if custom_auth:
        general["custom_auth"] = "custom_auth.user_api_key_auth"
    return {
        "model_list": entries,
        "litellm_settings": {"telemetry": False, "num_retries": 0, "request_timeout": 30},
        "router_settings": {"num_retries": 0, "allowed_fails": 0, "cooldown_time": 600},
        "general_settings": general,
    }


@dataclass
class LiteLLMProxy:
    """One proxy process. ``base_url`` is ``http://127.0.0.1:<port>/v1``."""

    executable: pathlib.Path
    upstream: GatewayServer
    folder: pathlib.Path
    custom_auth: bool = True
    port: int = 0
    process: subprocess.Popen | None = None
    started_in: float = 0.0  # seconds from start to its first healthy answer
    log: pathlib.Path = field(init=False)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = self.folder / "proxy.log"
        self.keys_file = self.folder / "keys.txt"
        self.keys = {USER_KEY}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    @property
    def keys(self) -> set[str]:
        return {line for line in self.keys_file.read_text().splitlines() if line}

    @keys.setter
    def keys(self, keys: set[str]) -> None:
        """The keys the custom_auth hook accepts from the next request on."""
        tmp = self.keys_file.with_suffix(".tmp")
        tmp.write_text("".join(k + "\n" for k in sorted(keys)))
        tmp.replace(self.keys_file)

    def start(self) -> LiteLLMProxy:
        with socket.socket() as closed:  # bound and closed again: connections there are refused
            closed.bind(("127.0.0.1", 0))
            dead_port = closed.getsockname()[1]
        (self.folder / "config.yaml").write_text(
            yaml.safe_dump(config(self.upstream, dead_port, custom_auth=self.custom_auth), sort_keys=False)
        )
        (self.folder / "custom_auth.py").write_text(CUSTOM_AUTH)
        home = self.folder / "home"
        home.mkdir(exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(self.folder),  # custom_auth.py
            "PYTHONDONTWRITEBYTECODE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LITELLM_LOG": "ERROR",
            "LITELLM_DONT_SHOW_FEEDBACK_BOX": "true",
            "GWCONF_E2E_LITELLM_KEYS": str(self.keys_file),
        }
        self.port = free_port()
        started = time.monotonic()
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    str(self.executable),
                    "--config",
                    "config.yaml",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, ended by its id
            )
        import httpx

        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"litellm exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if httpx.get(self.url + "/health/liveliness", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() - started > START_TIMEOUT:
                self.stop()
                raise RuntimeError(f"litellm did not answer within {START_TIMEOUT:g} s:\n{self.tail()}")
            time.sleep(0.2)
        self.started_in = time.monotonic() - started
        return self

    def stop(self) -> None:
        """End the process group this proxy leads (its id), never anything found by name."""
        if self.process is None:
            return
        pid = self.process.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        self.process.wait(timeout=10)
        self.process = None

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def request(
        self, method: str, path: str, key: str | None = USER_KEY, body: dict | None = None
    ) -> tuple[int, object]:
        """One request to the proxy, for the tests' own assertions: (status, JSON or text)."""
        import httpx

        headers = {"Authorization": f"Bearer {key}"} if key else {}
        answer = httpx.request(
            method, self.url + path, headers=headers, json=body, timeout=60, trust_env=False
        )
        try:
            return answer.status_code, answer.json()
        except json.JSONDecodeError:
            return answer.status_code, answer.text
