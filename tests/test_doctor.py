"""gwconf doctor through the CLI: every outcome of spec 5.6, and no command ever prints a full key."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer


def apply(gwconf, *clients: str) -> None:
    result = gwconf("apply", *clients)
    assert result.exit_code == 0, result


def report(gwconf, *args: str) -> tuple[int, dict]:
    result = gwconf("doctor", *args, "--json")
    return result.exit_code, json.loads(result.stdout)


def client_entry(data: dict, client_id: str) -> dict:
    return next(c for c in data["clients"] if c["id"] == client_id)


def findings(entry: dict, area: str, level: str = "error") -> list[str]:
    return [f["message"] for f in entry["findings"] if f["area"] == area and f["level"] == level]


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


# -- exit 0: all good ---------------------------------------------------------------------------------


@pytest.mark.parametrize("client", ["codex", "claude-code", "continue"])
def test_a_correctly_applied_client_is_all_good(gwconf, gateway, gateway_profile, client) -> None:
    apply(gwconf, client)
    text = gwconf("doctor", client)
    assert text.exit_code == 0, text
    out = text.stdout
    assert (
        "(a) base address   ok" in out and "(b) key            ok" in out and "(c) provider       ok" in out
    )
    assert "verdict: key and service are fine" in out
    code, data = report(gwconf, client)
    entry = client_entry(data, client)
    assert code == 0 and entry["verdict"] == "ok" and entry["exit_code"] == 0
    assert entry["direct"]["url"] == gateway.base_url + "/chat/completions"
    assert entry["direct"]["verdict"] == "ok"
    if client == "continue":
        assert entry["wire_probe"] is None
    else:  # the client's own wire is tried too: a chat-only gateway cannot serve Codex
        assert entry["wire_probe"]["verdict"] == "ok"


def test_doctor_changes_nothing(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "codex")
    files = sorted((home / ".codex").iterdir())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    gwconf("doctor", "codex")
    gateway.keys = set()
    gwconf("doctor", "codex")
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before


def test_applied_clients_are_checked_by_default_sharing_one_direct_request(
    gwconf, gateway, gateway_profile
) -> None:
    apply(gwconf, "codex", "continue")
    code, data = report(gwconf)
    assert code == 0
    assert [c["id"] for c in data["clients"]] == ["codex", "continue"]
    assert len(gateway.requests_to("/v1/chat/completions")) == 1
    assert len(gateway.requests_to("/v1/responses")) == 1


def test_the_profile_alone_gets_the_direct_request(gwconf, gateway, gateway_profile) -> None:
    result = gwconf("doctor", "--profile", "gw")
    assert result.exit_code == 0, result
    assert "Direct request with the profile's own values" in result.stdout
    assert "verdict: key and service are fine" in result.stdout
    gateway.keys = set()
    result = gwconf("doctor", "--profile", "gw")
    assert result.exit_code == 3
    assert "the gateway itself rejects this key" in result.stdout


# -- exit 5: key and service fine, the client's configuration is at fault ---------------------------


def test_a_base_address_with_a_doubled_v1_is_the_clients_fault(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "claude-code")
    edit_json(
        home / ".claude" / "settings.json", lambda d: d["env"].update(ANTHROPIC_BASE_URL=gateway.base_url)
    )
    result = gwconf("doctor", "claude-code")
    assert result.exit_code == 5, result
    assert "(a) base address   error: base address " in result.stdout
    assert "verdict: key and service are fine; the fault is in Claude Code's configuration: base address" in (
        result.stdout
    )
    assert "fix: gwconf apply claude-code" in result.stdout


def test_a_vendors_official_address_is_the_clients_fault(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "codex")
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace('model_provider = "gwconf"', 'model_provider = "openai"'))
    code, data = report(gwconf, "codex")
    entry = client_entry(data, "codex")
    assert code == 5 and entry["verdict"] == "client_config"
    assert any("api.openai.com" in m and "vendor's official address" in m for m in findings(entry, "base"))
    assert findings(entry, "provider")  # (c): the built-in provider is active
    assert entry["fixes"] == ["gwconf apply codex"]
    assert {r.path for r in gateway.requests} == {"/v1/chat/completions", "/v1/responses"}


def test_another_gateway_address_is_the_clients_fault(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "continue")
    config = home / ".continue" / "config.yaml"
    config.write_text(config.read_text().replace(gateway.base_url, "https://other-gw.example.net/v1"))
    code, data = report(gwconf, "continue")
    entry = client_entry(data, "continue")
    assert code == 5
    assert findings(entry, "base") == [
        f"base address https://other-gw.example.net/v1 is not the profile's ({gateway.base_url} in Continue's form)."
    ]


def test_a_truncated_key_is_the_clients_fault_and_never_printed(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "continue")
    truncated = VALID_KEY[:-6]
    (home / ".continue" / ".env").write_text(f"GWCONF_API_KEY={truncated}\n")
    result = gwconf("doctor", "continue")
    assert result.exit_code == 5, result
    assert "(b) key            error: the key in" in result.stdout
    assert "truncated" in result.stdout
    assert truncated not in result.output and VALID_KEY not in result.output


def test_a_key_variable_that_is_not_set_counts_as_missing(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "codex")
    config = home / ".codex" / "config.toml"
    text = config.read_text().replace("requires_openai_auth = true", 'env_key = "GW_TEAM_KEY"')
    config.write_text(text)
    code, data = report(gwconf, "codex")
    entry = client_entry(data, "codex")
    assert code == 5
    assert any("GW_TEAM_KEY" in m for m in findings(entry, "key"))


def test_a_chatgpt_login_is_the_clients_fault(gwconf, gateway, gateway_profile, home: Path) -> None:
    apply(gwconf, "codex")
    edit_json(
        home / ".codex" / "auth.json", lambda d: d.update(tokens={"id_token": "x"}, auth_mode="chatgpt")
    )
    code, data = report(gwconf, "codex")
    entry = client_entry(data, "codex")
    assert code == 5
    assert any("ChatGPT login" in m for m in findings(entry, "provider"))


def test_both_anthropic_key_variables_are_reported(gwconf, gateway, gateway_profile, monkeypatch) -> None:
    apply(gwconf, "claude-code")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-shell-0123456789abcdWXYZ")
    code, data = report(gwconf, "claude-code")
    entry = client_entry(data, "claude-code")
    assert code == 5
    assert any("both" in m for m in findings(entry, "key"))


def test_a_project_file_overriding_the_user_file_is_reported(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "claude-code")
    project = Path.cwd() / ".claude"
    project.mkdir()
    (project / "settings.local.json").write_text(
        json.dumps({"env": {"ANTHROPIC_BASE_URL": "https://proxy.example.org"}})
    )
    code, data = report(gwconf, "claude-code")
    entry = client_entry(data, "claude-code")
    assert code == 7  # a project file chose an address no profile has (issue 18: its own exit code)
    assert any(
        "proxy.example.org" in m and "settings.local.json" in m for m in findings(entry, "override", "error")
    )
    assert findings(entry, "override", "warning")
    assert any("proxy.example.org" in m for m in findings(entry, "base"))


def test_shell_variables_are_reported_not_removed(gwconf, gateway, gateway_profile, monkeypatch) -> None:
    apply(gwconf, "continue")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", VALID_KEY)
    result = gwconf("doctor", "continue")
    assert result.exit_code == 0, result  # warnings only: Continue's own files are right
    assert "$OPENAI_BASE_URL is set in this shell (https://api.openai.com/v1)" in result.stdout
    assert "fix: unset OPENAI_BASE_URL" in result.stdout
    assert "$OPENAI_API_KEY is set in this shell (sk-…KLMN, the profile key)" in result.stdout
    assert os.environ["OPENAI_BASE_URL"] == "https://api.openai.com/v1"


def start_fake_client(program: str, home: Path) -> subprocess.Popen:
    """A process whose argv[0] is ``program`` (``sleep`` underneath), for this HOME."""
    sleep = shutil.which("sleep")
    assert sleep
    child = subprocess.Popen([program, "60"], executable=sleep, env={**os.environ, "HOME": str(home)})
    # Popen returns once exec has closed the child's descriptors, a moment before the kernel
    # sets up its new argv: wait until /proc shows it.
    cmdline = Path(f"/proc/{child.pid}/cmdline")
    deadline = time.monotonic() + 10
    while not cmdline.read_bytes().startswith(program.encode()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return child


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process start times come from /proc")
def test_a_client_process_older_than_its_config_must_restart(
    gwconf, gateway, gateway_profile, home: Path
) -> None:
    apply(gwconf, "codex")
    child = start_fake_client("codex", home)
    try:
        later = time.time() + 30  # the config "changed" after the process started
        for name in ("config.toml", "auth.json"):
            os.utime(home / ".codex" / name, (later, later))
        code, data = report(gwconf, "codex")
        entry = client_entry(data, "codex")
        assert code == 5, entry
        [message] = findings(entry, "process")
        assert f"(pid {child.pid})" in message and "~/.codex/" in message
        assert "start a new `codex` session" in entry["fixes"][0]
    finally:
        child.kill()
        child.wait()
    assert gwconf("doctor", "codex").exit_code == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process start times come from /proc")
def test_a_process_of_another_home_is_not_reported(
    gwconf, gateway, gateway_profile, home: Path, tmp_path
) -> None:
    apply(gwconf, "codex")
    child = start_fake_client("codex", tmp_path)
    try:
        later = time.time() + 30
        os.utime(home / ".codex" / "config.toml", (later, later))
        code, data = report(gwconf, "codex")
        assert code == 0 and not findings(client_entry(data, "codex"), "process")
    finally:
        child.kill()
        child.wait()


# -- exit 3: the gateway itself rejects the key --------------------------------------------------------


def test_a_key_the_gateway_rejects_exits_3(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "codex")
    gateway.keys = {"sk-the-real-one-0000000000000"}
    result = gwconf("doctor", "codex")
    assert result.exit_code == 3, result
    assert (
        "verdict: the gateway itself rejects this key: create a new key in the gateway's console, "
        "or check that it was copied whole"
    ) in result.stdout
    assert "status   401 in " in result.stdout
    code, data = report(gwconf, "codex")
    assert code == 3 and client_entry(data, "codex")["verdict"] == "key_rejected"
    assert client_entry(data, "codex")["direct"]["error_code"] == "invalid_api_key"


def test_a_rejected_profile_key_is_not_pushed_over_the_clients_working_one(
    gwconf, gateway, gateway_profile
) -> None:
    """The profile's new key is rejected, codex still holds the old one, which works: the fault is
    the profile's key, and ``gwconf apply codex`` (the rejected key over the working one) is no fix."""
    apply(gwconf, "codex")
    revoked = "sk-gw-revoked-0123456789abcd0000"
    assert gwconf("profile", "set", "gw", "--key-stdin", input=revoked + "\n").exit_code == 0
    result = gwconf("doctor", "codex")
    assert result.exit_code == 3, result
    out = result.stdout
    assert "gwconf apply codex" not in out, out
    assert "the gateway takes this one and rejects the profile's" in out
    assert "verdict: the gateway rejects the profile's key (sk-…0000); the key in" in out
    assert "(sk-…KLMN) is another one and still works: fix the profile's key, not Codex CLI's." in out
    assert "fix: give profile gw a key the gateway takes: gwconf profile set gw --key-stdin" in out
    code, data = report(gwconf, "codex")
    assert code == 3
    entry = client_entry(data, "codex")
    assert entry["direct"]["verdict"] == "key_rejected" and entry["client_probe"]["verdict"] == "ok"
    assert not any("apply" in (f["fix"] or "") for f in entry["findings"])
    # the client's key revoked too: a new key, then apply
    gateway.keys = {"sk-gw-another-0123456789abcdefAAAA"}
    result = gwconf("doctor", "codex")
    assert result.exit_code == 3, result
    assert "the gateway rejects both the profile's key (sk-…0000) and the one in" in result.stdout
    assert (
        "fix: a new key from the gateway's console into the profile: gwconf profile set gw --key-stdin, "
        "then gwconf apply codex"
    ) in result.stdout


# -- exit 4: the gateway fails with the profile's own values ----------------------------------------


@pytest.mark.parametrize(
    ("fault", "label"), [("500", "gateway error"), ("404", "base address wrong"), ("429", "rate limited")]
)
def test_a_failing_gateway_exits_4(gwconf, gateway, gateway_profile, fault, label) -> None:
    apply(gwconf, "continue")
    gateway.set_fault(fault)
    result = gwconf("doctor", "continue")
    assert result.exit_code == 4, result
    assert f"verdict: the gateway does not work with the profile's own base address and key: {label}" in (
        result.stdout
    )


def test_a_gateway_without_the_clients_protocol_exits_4(gwconf, gateway, gateway_profile) -> None:
    apply(gwconf, "claude-code")
    gateway.set_fault("404", path="/v1/messages")
    code, data = report(gwconf, "claude-code")
    entry = client_entry(data, "claude-code")
    assert code == 4
    assert entry["direct"]["verdict"] == "ok" and entry["wire_probe"]["verdict"] == "base_wrong"
    assert "answers chat completions, but not Anthropic messages, which Claude Code uses" in entry["summary"]
    assert "--anthropic-base-url" in entry["fixes"][0]


# -- exit 1: the check cannot be made ------------------------------------------------------------------


def test_without_a_model_the_direct_request_cannot_be_made(gwconf, gateway) -> None:
    added = gwconf(
        "profile",
        "add",
        "nomodel",
        "--base-url",
        gateway.base_url,
        "--key-stdin",
        "--use",
        input=VALID_KEY + "\n",
    )
    assert added.exit_code == 0
    result = gwconf("doctor", "--profile", "nomodel")
    assert result.exit_code == 1
    assert "pass --model NAME" in result.stdout
    assert gwconf("doctor", "--profile", "nomodel", "--model", "my-model").exit_code == 0


def test_without_a_profile_it_is_an_expected_error(gwconf) -> None:
    result = gwconf("doctor", "codex")
    assert result.exit_code == 1
    assert "no active profile" in result.stderr


def test_a_client_configured_inside_its_app_gets_only_the_direct_request(
    gwconf, gateway, gateway_profile
) -> None:
    from gwconf import registry

    app = next((c for c in registry.all_clients() if c.tier == 3), None)
    if app is None:
        pytest.skip("no tier-3 client registered")
    code, data = report(gwconf, app.id)
    entry = client_entry(data, app.id)
    assert code == 0 and entry["reading"] is None
    assert "gwconf cannot read" in entry["summary"]
    assert [r.path for r in gateway.requests] == ["/v1/chat/completions"]


def test_help_shows_examples_and_exit_codes(gwconf) -> None:
    result = gwconf("doctor", "--help")
    assert result.exit_code == 0
    assert "gwconf doctor codex" in result.stdout and "Exit codes" in result.stdout


# -- no command prints a full key -------------------------------------------------------------------------


def test_no_command_prints_a_full_key(gwconf, home: Path) -> None:
    """Text and JSON, success and failure, a gateway that echoes the key, a key without ``sk-``."""
    plain_key = "gwkey-live-ABCDEFGHIJKLMNOPQRSTUV"
    wrong = "sk-wrongwrong-0123456789abcdefZZZZ"
    with GatewayServer(keys={VALID_KEY, plain_key}) as server:
        commands: list[tuple[str, ...]] = []
        for name, key in (("sk", VALID_KEY), ("plain", plain_key)):
            added = gwconf(
                "profile", "add", name, "--base-url", server.base_url, "--model", "my-model",
                "--key-stdin", "--use", input=key + "\n",
            )  # fmt: skip
            assert added.exit_code == 0
            apply(gwconf, "codex", "claude-code", "continue")
            for fault in (None, "leaky-401", "html"):
                server.set_fault(fault)
                for command in (("verify",), ("verify", "--profile", name), ("doctor",), ("status",)):
                    for extra in ((), ("--json",)):
                        commands.append((*command, *extra))
                        result = gwconf(*command, *extra)
                        for secret in (VALID_KEY, plain_key):
                            assert secret not in result.output, (command, extra, fault)
            server.set_fault(None)
        (home / ".continue" / ".env").write_text(f"GWCONF_API_KEY={wrong}\n")
        for extra in ((), ("--json",)):
            for command in ("verify", "doctor"):
                result = gwconf(command, "continue", *extra)
                assert wrong not in result.output and plain_key not in result.output
        assert any(r.key == plain_key for r in server.requests)  # the plain key really was used
        assert len(commands) == 48
