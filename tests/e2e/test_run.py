"""`gwconf run` with the real programs: one launch on the gateway, and nothing written to their files.

Per client, in a fresh temporary HOME seeded with the e2e offline switches (tests/e2e/clients.py):
``gwconf run CLIENT -- <one-shot command>`` as a real process, with rival provider variables in its
environment. The gateway must see only the profile's key and model, the client must print the
gateway's reply, no file under HOME may hold the key afterwards, gwconf's temporary folder must be
gone, and the files gwconf would edit for ``apply`` must be untouched (or, where the client
rewrites one itself, free of the gateway).
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

from gwconf import registry
from gwconf.clients._base import no_launch
from tests.e2e.clients import CLIENTS
from tests.e2e.conftest import Install, Processes
from tests.e2e.test_clients import MODEL, Harness, add_gateway_profile, seen
from tests.gateway_server import DEFAULT_REPLY, VALID_KEY, GatewayServer

RIVALS = {
    "OPENAI_API_KEY": "sk-rival-openai-000000000000",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "ANTHROPIC_API_KEY": "sk-ant-rival-0000000000",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "GEMINI_API_KEY": "rival-gemini",
    "GOOGLE_API_KEY": "rival-google",
}


def home_files(home: pathlib.Path) -> dict[pathlib.Path, bytes]:
    return {p: p.read_bytes() for p in home.rglob("*") if p.is_file() and not p.is_symlink()}


def ready(
    client: str, install: Install, processes: Processes, gwconf, gateway: GatewayServer, tmp: pathlib.Path
) -> Harness:
    """The client installed, its home seeded with the e2e offline switches, a profile on the gateway."""
    spec = CLIENTS[client]
    h = Harness(spec, install, processes, gwconf, tmp)
    h.seed()
    add_gateway_profile(h, gateway)
    return h


@pytest.mark.parametrize("client", list(CLIENTS))
def test_run_reaches_the_gateway_and_writes_nothing(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
) -> None:
    spec = CLIENTS[client]
    h = ready(client, e2e_install, processes, gwconf, gateway, tmp_path)
    if registry.get(client).module.launch is no_launch:  # no one-launch route: it must say so, exit 2
        before = home_files(h.home)
        refused = h.cli("run", client, "--", *spec.args)
        assert refused.exit_code == 2 and f"gwconf apply {client}" in refused.stderr, refused
        assert home_files(h.home) == before and not gateway.requests
        return
    run_on_the_gateway_writing_nothing(client, h, processes, gateway)


# Each client's own .env, which it loads over its environment, holding a rival address and key:
# the launch must still reach the gateway with the profile's key (the files stay the user's).
DOTENV_RIVALS = {
    "aider": (
        ".env",
        "AIDER_OPENAI_API_KEY=sk-rival-dotenv-0000000000\nOPENAI_BASE_URL=http://127.0.0.1:9/v1\n",
    ),
    "hermes": (".hermes/.env", "CUSTOM_BASE_URL=http://127.0.0.1:9/v1\nHERMES_INFERENCE_MODEL=rival-model\n"),
}


@pytest.mark.parametrize("client", list(DOTENV_RIVALS))
def test_run_wins_over_the_clients_own_dotenv(
    client: str,
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
) -> None:
    h = ready(client, e2e_install, processes, gwconf, gateway, tmp_path)
    name, text = DOTENV_RIVALS[client]
    dotenv = h.home / name
    dotenv.parent.mkdir(parents=True, exist_ok=True)
    dotenv.write_text(text)
    run_on_the_gateway_writing_nothing(client, h, processes, gateway)
    assert dotenv.read_text() == text


def run_on_the_gateway_writing_nothing(
    client: str, h: Harness, processes: Processes, gateway: GatewayServer
) -> None:
    """``gwconf run CLIENT`` with rival variables in its environment: the gateway sees only the
    profile's key and model, and nothing of the launch is left in HOME or the temporary folder."""
    spec = CLIENTS[client]
    argv = [sys.executable, "-m", "gwconf", "run", client, "--", *spec.args]
    extra = {"GWCONF_HOME": os.environ["GWCONF_HOME"], **RIVALS}
    if spec.stdin_file:  # the prompt on standard input, as the apply test gives it
        argv = ["bash", "-c", 'exec "$0" "$@" <"$GWCONF_E2E_STDIN"', *argv]
        extra["GWCONF_E2E_STDIN"] = str(h.cwd / spec.stdin_file)
    env = h.env(extra)

    declared = h.snapshot()
    before = home_files(h.home)
    if spec.tui is not None:  # full-screen: in its own tmux server, the screen read as its output
        run = h.run_tui(argv, env, spec.timeout)
    else:
        run = processes.run(argv, env=env, cwd=h.cwd, timeout=spec.timeout, done_text=spec.done_text)
    assert run.returncode == 0 or run.lingered, run  # (lingered: gwconf passed the signal on)
    reply = run.stdout + (spec.reply(h.home, h.cwd) if spec.reply else "")  # (mini: its trajectory)
    answered = any(r.status == 200 for r in gateway.requests_to(spec.wire_path))
    assert DEFAULT_REPLY in reply or (run.lingered and answered), run  # (lingered: see clients.py)
    assert gateway.requests, f"nothing reached the gateway: {seen(gateway)}"
    for request in gateway.requests:
        if request.path in spec.probes:  # the client's own discovery requests (clients.py lists them)
            assert request.key in (None, VALID_KEY), f"{request.path} carried another key"
            continue
        assert request.key == VALID_KEY, (
            f"{request.path} carried another key; the gateway saw {seen(gateway)}"
        )
        assert request.model == MODEL, f"{request.path} asked for {request.model!r}"
    if spec.tui is None:  # (a full-screen client clears the line from its screen)
        assert f"starting {client} on profile 'gw'" in run.stderr, run

    assert [p.name for p in h.tmpdir.iterdir() if p.name.startswith("gwconf-run-")] == []
    if client == "codex":  # its shell snapshot (an environment dump, the key in it) stays off
        snapshots = h.home / ".codex" / "shell_snapshots"
        assert not snapshots.exists() or not any(snapshots.iterdir()), sorted(snapshots.iterdir())
    for path, data in home_files(h.home).items():
        assert VALID_KEY.encode() not in data, f"the key landed in {path}"
        if path in before and before[path] != data:
            assert gateway.base_url.encode() not in data, f"{path} now points at the gateway"
    for path, original in declared.items():
        now = path.read_bytes() if path.exists() else None
        if now != original:  # rewritten by the client itself (its own state): nothing of the gateway's
            assert now is None or gateway.url.encode() not in now, f"{path} now points at the gateway"


def test_codex_keeps_the_launch_key_from_its_commands_and_its_disk(
    e2e_install: Install,
    processes: Processes,
    gwconf,
    gateway: GatewayServer,
    tmp_path: pathlib.Path,
) -> None:
    """Real Codex, through ``gwconf run``: a command run in Codex's own sandbox (as the agent's are,
    under the same ``shell_environment_policy``) sees the launch variable empty, while a variable
    Codex's default policy passes on still arrives, so the blank is ours and not a sandbox quirk.
    Without the override 0.169 hands the key to every command (ignore_default_excludes is true), and
    its shell snapshot dumps the environment to disk (a leftover ``.tmp-*`` once kept the key)."""
    spec = CLIENTS["codex"]
    h = ready("codex", e2e_install, processes, gwconf, gateway, tmp_path)
    probe = 'printf "key=[%s] other=[%s]\\n" "$GWCONF_API_KEY" "$GWCONF_E2E_PROBE"'
    argv = [sys.executable, "-m", "gwconf", "run", "codex", "--", "sandbox", "--", "sh", "-c", probe]
    env = h.env({"GWCONF_HOME": os.environ["GWCONF_HOME"], "GWCONF_E2E_PROBE": "passed-on"})
    run = processes.run(argv, env=env, cwd=h.cwd, timeout=spec.timeout)
    assert run.returncode == 0, run
    # compared with the key masked: a failure prints what Codex showed, never the key itself
    printed = (run.stdout + run.stderr).replace(VALID_KEY, "<the profile's key>")
    assert "key=[] other=[passed-on]" in printed, printed
    assert "<the profile's key>" not in printed, printed
    # and the shell snapshot, which wrote the environment (the key in it) under $CODEX_HOME, is off
    features = processes.run([*argv[:6], "features", "list"], env=env, cwd=h.cwd, timeout=spec.timeout)
    assert features.returncode == 0, features
    flags = dict(line.split()[::2] for line in features.stdout.splitlines() if len(line.split()) >= 3)
    assert flags.get("shell_snapshot") == "false", features
