"""The proof with the real programs: after ``gwconf apply X``, the real X talks to the gateway.

Per client, in a fresh temporary HOME (tests/conftest.py's hermetic fixture):
1. ``gwconf profile add`` + ``gwconf apply`` through the CLI; the client's one-shot command reaches
   the gateway at its wire's path with the profile's key and model and prints the gateway's reply;
   ``gwconf verify`` agrees.
2. The gateway stops accepting the key: the client fails, ``gwconf verify`` exits 3 and
   ``gwconf doctor`` names the key.
3. ``gwconf restore``: gwconf's files are back as they were (byte for byte, but for files the
   client rewrites itself), gwconf no longer reads the client as pointing at the gateway, and the
   client, run with every address it could use pointed at a closed local port, sends the gateway
   nothing (or, where the restored client would go to its vendor's own host, is not run:
   clients.py says why).
4. Applied again, then the client's provider set back to the vendor's official one:
   ``gwconf doctor`` exits 5 and names the client's configuration, and neither doctor nor verify
   looks up a host outside 127.0.0.1; the fix doctor prints (``gwconf apply``) makes it happy.

A second test takes the files a client rewrites itself: after a real run of the client,
``gwconf restore`` must still take the gateway's address and key out of them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest

from tests.e2e.clients import CLIENTS, COMMON_ENV, E2EClient
from tests.e2e.conftest import MARKER, Install, Processes, Run
from tests.e2e.variants import VARIANTS
from tests.gateway_server import DEFAULT_REPLY, VALID_KEY, GatewayServer

MODEL = "my-model"
REVOKED = "sk-gw-rotated-9999999999999999ABCD"  # what the gateway accepts once VALID_KEY is "wrong"


@pytest.fixture
def dead_address() -> Iterator[str]:
    """``http://127.0.0.1:<port>`` where nothing listens (bound, never listening: refused at once)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


class Harness:
    """One client in one temporary HOME: runs gwconf in-process and the client as a subprocess."""

    def __init__(self, client: E2EClient, install: Install, processes: Processes, gwconf, tmp: pathlib.Path):
        self.client = client
        self.install = install
        self.processes = processes
        self.gwconf = gwconf
        self.home = pathlib.Path(os.environ["HOME"])
        self.cwd = pathlib.Path.cwd()
        self.tmpdir = tmp / "client-tmp"  # its own TMPDIR: shared caches there made a 401 run pass
        self.tmpdir.mkdir()

    def cli(self, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
        return self.gwconf(*args, input=input)

    def seed(self) -> None:
        """The client must be installed; its home gets the e2e offline switches (``seed``)."""
        installed = self.install.clients[self.client.id]
        assert installed.ok, f"{self.client.program} {installed.version} is not installed: {installed.detail}"
        if self.client.seed:
            self.client.seed(self.home, self.cwd)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """A minimal environment: no provider, proxy or XDG variable leaks in from the outside."""
        system_path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
        env = {
            "HOME": str(self.home),
            "PATH": f"{self.install.bin}{os.pathsep}{system_path}",
            "TMPDIR": str(self.tmpdir),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "USER": os.environ.get("USER", "e2e"),
            **COMMON_ENV,
            **self.client.env,
        }
        env.update(extra or {})
        return env

    def run_client(
        self, *extra_args: str, env: dict[str, str] | None = None, timeout: float | None = None
    ) -> Run:
        argv = [str(self.install.bin / self.client.program), *extra_args, *self.client.args]
        if self.client.tui is not None:
            return self.run_tui(argv, self.env(env), timeout or self.client.timeout)
        if self.client.via_bashrc:  # the environment a new terminal gives it
            argv = ["bash", "-c", '. "$HOME/.bashrc" && exec "$0" "$@"', *argv]
        if self.client.stdin_file:  # the prompt on standard input (the seed wrote the file)
            argv = ["bash", "-c", 'exec "$0" "$@" <"$GWCONF_E2E_STDIN"', *argv]
            env = {**(env or {}), "GWCONF_E2E_STDIN": str(self.cwd / self.client.stdin_file)}
        return self.processes.run(
            argv,
            env=self.env(env),
            cwd=self.cwd,
            timeout=timeout or self.client.timeout,
            done_text=self.client.done_text,
        )

    def run_tui(self, argv: list[str], env: dict[str, str], timeout: float) -> Run:
        """A full-screen client in its own tmux server: its screen is the run's output. Done when the
        reply (or the wrong-key text) shows; the server is ended by its own socket, never by name."""
        if not shutil.which("tmux"):
            pytest.skip(
                "tmux is not installed: the full-screen clients are driven through it (apt-get install tmux)"
            )
        server = f"gwconf-e2e-{uuid.uuid4().hex[:12]}"
        env = {**env, "TERM": "xterm-256color", MARKER: self.processes.marker}
        env.pop("NO_COLOR", None)
        tmux = ["tmux", "-L", server, "-f", "/dev/null"]
        done = tuple(t for t in (DEFAULT_REPLY, self.client.wrong_key_text) if t)
        started = time.monotonic()
        subprocess.run(
            [
                *tmux,
                "new-session",
                "-d",
                "-s",
                "e2e",
                "-x",
                "160",
                "-y",
                "48",
                "-c",
                str(self.cwd),
                shlex.join(argv),
            ],
            env=env,
            check=True,
        )
        screen = ""

        def capture() -> str:
            """The screen now (the last one read, if tmux gives nothing back)."""
            nonlocal screen
            shown = subprocess.run(
                [*tmux, "capture-pane", "-p", "-J", "-t", "e2e"], capture_output=True, text=True
            )
            screen = shown.stdout or screen
            return screen

        def wait_for(texts: tuple[str, ...], until: float) -> bool:
            while time.monotonic() < until:
                if any(t in capture() for t in texts):
                    return True
                time.sleep(1)
            return False

        try:
            deadline = started + timeout
            for text, keys in self.client.tui:
                if text.startswith("!"):  # until the text is gone (a dialog closed)
                    while text[1:] in screen and time.monotonic() < deadline:
                        time.sleep(1)
                        capture()
                elif not wait_for((text,), deadline):
                    continue
                if keys and keys[0].startswith("sleep:"):  # let a screen that just changed settle
                    time.sleep(float(keys[0].removeprefix("sleep:")))
                    continue
                if keys and keys[0].startswith("click:"):
                    keys = ("-l", *_click(screen, keys[0].removeprefix("click:")))
                subprocess.run([*tmux, "send-keys", "-t", "e2e", *keys], check=False)
            finished = wait_for(done, deadline)
            if not finished:  # what the client showed when the test gave up, for the report
                sys.stderr.write(f"[e2e] {self.client.id}'s last screen:\n{screen}\n")
        finally:
            subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
            # what ran in it got SIGHUP and was handed to us (the subreaper): let it finish its
            # clean-up (gwconf run removes its temporary folder), then end whatever is left. 90 s:
            # on a loaded CI machine a full-screen Python client took long enough to exit that
            # ending it (and gwconf) after 30 s left gwconf's folder behind; the wait ends as soon
            # as they do, and what the harness had to end is reported
            deadline = time.monotonic() + 90
            while self.processes._our_children() and time.monotonic() < deadline:
                time.sleep(0.2)
            left = self.processes._our_children()
            if left:
                sys.stderr.write(
                    f"[e2e] {self.client.id}: still running 90 s after its tmux server ended: {left}\n"
                )
            self.processes._end(left)
        return Run(argv, 0 if finished else 1, screen, "", time.monotonic() - started, timed_out=not finished)

    def snapshot(self) -> dict[pathlib.Path, bytes | None]:
        """The bytes of every file the client's module declares (None: the file does not exist)."""
        from gwconf import registry
        from gwconf.paths import Env

        paths = [f.path for f in registry.get(self.client.id).files(Env.current())]
        return {p: (p.read_bytes() if p.exists() else None) for p in paths}


def _click(screen: str, text: str) -> tuple[str, str]:
    """A left click in the middle of the last place ``text`` shows on the screen (SGR mouse
    reports: the full-screen clients here turn mouse reporting on)."""
    for row, line in reversed(list(enumerate(screen.splitlines(), 1))):
        column = line.find(text)
        if column >= 0:
            x = column + 1 + len(text) // 2
            return f"\x1b[<0;{x};{row}M", f"\x1b[<0;{x};{row}m"
    return "", ""


def seen(gateway: GatewayServer) -> list[str]:
    return [f"{r.method} {r.path} -> {r.status}" for r in gateway.requests]


def add_gateway_profile(h: Harness, gateway: GatewayServer, *options: str) -> None:
    """The profile ``gw`` on the test gateway, its key from stdin, in use; ``options``: more of
    ``profile add``'s (limits)."""
    added = h.cli(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", MODEL, "--key-stdin", "--use",
        *options, input=VALID_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added


def start(h: Harness, gateway: GatewayServer) -> tuple[dict, dict]:
    """Seed the offline switches, add the profile, apply: the files before and after apply."""
    h.seed()
    seeded = h.snapshot()
    add_gateway_profile(h, gateway)
    applied = h.cli("apply", h.client.id)
    assert applied.exit_code == 0, applied
    written = h.snapshot()
    assert written != seeded, "gwconf apply changed none of the client's files"
    return seeded, written


def run_on_the_gateway(h: Harness, gateway: GatewayServer) -> Run:
    """The one-shot command: it must print the reply, and the gateway must see key and model."""
    run = h.run_client()
    assert (run.returncode == 0 and not run.timed_out) or run.lingered, run
    reply = run.stdout + (h.client.reply(h.home, h.cwd) if h.client.reply else "")
    assert DEFAULT_REPLY in reply or run.lingered, run  # (lingered: the gateway's 200 below)
    wire = gateway.requests_to(h.client.wire_path)
    assert wire, f"nothing reached {h.client.wire_path}; the gateway saw {seen(gateway)}"
    for request in gateway.requests:
        if request.path in h.client.probes:
            continue  # the client's own discovery requests (clients.py lists them)
        assert request.path == h.client.wire_path, f"unexpected request; the gateway saw {seen(gateway)}"
        assert request.key == VALID_KEY, f"{request.path} carried another key"
        assert request.model == MODEL, f"{request.path} asked for {request.model!r}"
        assert request.status == 200, seen(gateway)
    return run


@pytest.mark.parametrize("client", list(CLIENTS))
def test_real_client_talks_to_the_gateway_after_apply(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    no_outside_network: list[str],
    dead_address: str,
    tmp_path: pathlib.Path,
) -> None:
    spec = CLIENTS[client]
    h = Harness(spec, e2e_install, processes, gwconf, tmp_path)

    # -- 1. apply, run, verify ----------------------------------------------------------------------
    seeded, written = start(h, gateway)
    run_on_the_gateway(h, gateway)
    gateway.clear()
    verified = h.cli("verify", client, "--json")
    assert verified.exit_code == 0, verified
    [result] = json.loads(verified.stdout)["results"]
    assert result["verdict"] == "ok" and result["url"].startswith(gateway.url), result
    assert {r.path for r in gateway.requests} == {spec.verify_path or spec.wire_path}
    assert all(r.key == VALID_KEY for r in gateway.requests)

    # -- 2. the gateway rejects the key ------------------------------------------------------------
    gateway.keys = {REVOKED}
    gateway.clear()
    run = h.run_client(*spec.wrong_key_args, env=spec.wrong_key_env)
    assert not run.timed_out, run
    if spec.wrong_key_text:
        assert spec.wrong_key_text in run.stdout + run.stderr, run
    else:
        assert run.returncode != 0, run
    assert DEFAULT_REPLY not in run.stdout, run
    assert gateway.requests_to(spec.wire_path), f"the 401 run reached nothing: {seen(gateway)}"
    assert all(
        r.key == VALID_KEY and r.status == 401 for r in gateway.requests if r.path not in spec.probes
    ), [f"{r.method} {r.path} -> {r.status}" for r in gateway.requests if r.path not in spec.probes]
    verified = h.cli("verify", client)
    assert verified.exit_code == 3, verified
    doctor = h.cli("doctor", client)
    assert doctor.exit_code == 3, doctor
    assert "the gateway itself rejects this key" in doctor.stdout, doctor
    gateway.keys = {VALID_KEY}

    # -- 3. restore -----------------------------------------------------------------------------------
    before_restore = h.snapshot()
    restored = h.cli("restore", client)
    assert restored.exit_code == 0, restored
    now = h.snapshot()
    for path, original in seeded.items():
        if path.name not in spec.rewrites:  # (those: test_restore_takes_the_key_back_from_…)
            assert before_restore[path] == written[path], f"{spec.program} rewrote {path}"
            assert now[path] == original, f"{path} is not back as it was"
    status = h.cli("status", client, "--json")
    assert status.exit_code == 0, status
    [reading] = json.loads(status.stdout)["clients"]
    assert not reading["points_at_gwconf"], reading
    assert not (reading["base_url"] or "").startswith(gateway.url), reading
    if spec.restored_env is not None:
        gateway.clear()
        run = h.run_client(env=spec.restored_env(dead_address), timeout=spec.restored_timeout)
        assert gateway.requests == [], f"the restored client still talks to the gateway: {seen(gateway)}"
        assert DEFAULT_REPLY not in run.stdout, run
    else:
        # Not run: the restored client would go to its vendor's own host (spec.restored_skip says
        # which), and no request may leave this machine. The files and gwconf's reading are the proof.
        assert spec.restored_skip

    # -- 4. the provider is the vendor's official one again ------------------------------------------
    assert h.cli("apply", client).exit_code == 0
    assert spec.to_vendor is not None
    spec.to_vendor(h.home)
    gateway.clear()
    doctor = h.cli("doctor", client, "--json")
    assert doctor.exit_code == 5, doctor
    [entry] = json.loads(doctor.stdout)["clients"]
    assert entry["verdict"] == "client_config", entry
    assert f"{entry['name']}'s configuration" in entry["summary"], entry
    assert entry["fixes"] == [f"gwconf apply {client}"], entry
    h.cli("verify", client)  # whatever it concludes, it must not send the key to a vendor
    assert no_outside_network == [], f"doctor or verify looked up {no_outside_network}"
    assert all(r.key == VALID_KEY for r in gateway.requests)  # the key went to the gateway alone
    fixed = h.cli("apply", client)  # the fix doctor printed
    assert fixed.exit_code == 0, fixed
    assert h.cli("doctor", client).exit_code == 0


@pytest.mark.parametrize("client", [c.id for c in CLIENTS.values() if c.rewrites])
def test_restore_takes_the_key_back_from_a_file_the_client_rewrote(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
) -> None:
    spec = CLIENTS[client]
    h = Harness(spec, e2e_install, processes, gwconf, tmp_path)
    _, written = start(h, gateway)
    run_on_the_gateway(h, gateway)
    rewritten = [p for p, data in h.snapshot().items() if p.name in spec.rewrites and data != written[p]]
    assert rewritten, f"{spec.program} rewrote none of {spec.rewrites} this time: drop them from rewrites"
    restored = h.cli("restore", client)
    assert restored.exit_code == 0, restored
    for path in rewritten:
        text = path.read_text() if path.exists() else ""
        assert VALID_KEY not in text, f"restore left the gateway key in {path}:\n{restored.output}"
        assert gateway.url not in text, f"restore left the gateway address in {path}:\n{restored.output}"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_real_client_on_a_home_of_another_shape(
    name: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    no_outside_network: list[str],
    dead_address: str,
    tmp_path: pathlib.Path,
) -> None:
    """A shape of real users' files that the plain run above does not have (tests/e2e/variants.py
    says which and why): after ``gwconf apply``, the real client still talks to the gateway, with
    every other address it could use pointed at a closed port."""
    variant = VARIANTS[name]
    spec = CLIENTS[variant.client]

    def seed(home: pathlib.Path, cwd: pathlib.Path) -> None:
        if spec.seed is not None:
            spec.seed(home, cwd)
        variant.seed(home, cwd, dead_address)

    h = Harness(dataclasses.replace(spec, seed=seed), e2e_install, processes, gwconf, tmp_path)
    h.seed()
    add_gateway_profile(h, gateway)
    applied = h.cli("apply", variant.client, *variant.apply_args)
    assert applied.exit_code == 0, applied
    if variant.check is not None:
        variant.check(h.home, h.cwd)
    run_on_the_gateway(h, gateway)
    assert no_outside_network == [], no_outside_network


# client -> the variable that moves its administrator's folder, the file written there, and what
# gwconf's reading must then say (the folder is /etc/<app> without the variable)
_OPENCODE_MANAGED = {
    "model": "gwconf/managed-model",
    "provider": {"gwconf": {"models": {"managed-model": {}}}},
}
MANAGED = {
    "opencode": ("OPENCODE_TEST_MANAGED_CONFIG_DIR", "opencode.json", json.dumps(_OPENCODE_MANAGED), "(managed by an administrator) sets model, provider.gwconf"),
    "kilo": ("KILO_TEST_MANAGED_CONFIG_DIR", "opencode.json", json.dumps(_OPENCODE_MANAGED), "(managed by an administrator) sets model, provider.gwconf"),
    "hermes": ("HERMES_MANAGED_DIR", "config.yaml", "model:\n  default: managed-model\n", "(managed by an administrator) pins model.default"),
}  # fmt: skip


@pytest.mark.parametrize("client", list(MANAGED))
def test_the_administrators_config_wins_and_gwconf_says_so(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """opencode, Kilo and Hermes read an administrator's folder (/etc/opencode, /etc/kilo,
    /etc/hermes) after every other layer: its model wins over the user's file gwconf wrote. The
    real client asks the gateway for that model, and gwconf's reading (what status, verify and
    doctor use) names the same model and the managed file."""
    from gwconf import registry
    from gwconf.operations import read_client
    from gwconf.paths import Env

    variable, name, text, said_here = MANAGED[client]
    h = Harness(CLIENTS[client], e2e_install, processes, gwconf, tmp_path)
    h.seed()
    add_gateway_profile(h, gateway)
    assert h.cli("apply", client).exit_code == 0
    managed = tmp_path / "managed"
    managed.mkdir()
    (managed / name).write_text(text)
    monkeypatch.setenv(variable, str(managed))
    reading = read_client(registry.get(client), Env.current())
    assert reading.model == "managed-model", reading
    said = "\n".join(f.message for f in reading.findings)
    assert f"{name} {said_here}" in said, said
    run = h.run_client(env={variable: str(managed)})
    asked = {r.model for r in gateway.requests if r.path not in h.client.probes}
    assert "managed-model" in asked, (seen(gateway), run)  # (opencode's title request: small_model, gwconf's)
