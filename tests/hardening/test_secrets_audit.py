"""Secrets audit (issue 8): every command, with a sentinel key, never shows it in full.

Two sentinels: one shaped like a gateway key (``sk-…``: redaction's pattern would catch it anyway)
and one that is not (only gwconf remembering the key can mask it). For each, every command runs in
text and ``--json`` form, on success and error paths, verify and doctor against the test gateway
(also while it echoes the key back in a 401): no stdout or stderr holds the key, or the part of
it a mask hides. Then the files: no file or folder name holds it; gwconf's ledger, journal, lock
and active mark do not; every file that does (profiles, backups, client files gwconf wrote, an
export with --include-key) is 0600; every folder of gwconf's is 0700. And the key never reaches a
host other than the one being verified: not through a redirect, not to the client's own (wrong)
address in doctor's direct request.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.gateway_server import GatewayServer

SK_SENTINEL = "sk-SENTINELsk0123456789abcdefWXYZ"
PLAIN_SENTINEL = "gwSENTINELplain0123456789abcdQRST"
SENTINELS = {"sk": SK_SENTINEL, "plain": PLAIN_SENTINEL}
CLIENTS = ("codex", "claude-code", "continue", "aider", "shell", "llm", "gemini-cli", "opencode")


def hidden_part(key: str) -> str:
    """What a mask never shows: everything but ``sk-`` and the last 4 characters."""
    return key[3:-4] if key.startswith("sk-") else key[:-4]


@pytest.fixture
def servers() -> Iterator[tuple[GatewayServer, GatewayServer]]:
    """The gateway being verified, and a decoy on another host name that must never get a key."""
    with GatewayServer(keys=tuple(SENTINELS.values())) as gateway, GatewayServer(keys=()) as decoy:
        yield gateway, decoy


def _decoy_url(decoy: GatewayServer) -> str:
    return decoy.url.replace("127.0.0.1", "localhost")


def _seed(home: Path, chatgpt_login: bool) -> None:
    (home / ".bashrc").write_text("# mine\n")
    (home / ".aider.conf.yml").write_text("# aider\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    (home / ".codex" / "config.toml").chmod(0o644)
    if chatgpt_login:  # Codex keeps the login; the key goes into config.toml's provider table
        (home / ".codex" / "auth.json").write_text('{"auth_mode": "chatgpt", "tokens": {"id_token": "t"}}\n')
    else:
        (home / ".codex" / "auth.json").write_text('{"OPENAI_API_KEY": "sk-usersown-0000000000000000"}\n')
    (home / ".codex" / "auth.json").chmod(0o644)


def _commands(name: str, tmp_path: Path) -> list[tuple[tuple[str, ...], str | None]]:
    """(arguments, stdin) of every command, in an order that makes each one meaningful."""
    export_plain = str(tmp_path / f"export-{name}.toml")
    export_key = str(tmp_path / f"export-key-{name}.toml")
    commands: list[tuple[tuple[str, ...], str | None]] = [
        (("profile", "list"), None),
        (("profile", "list", "--json"), None),
        (("profile", "show", name), None),
        (("profile", "show", name, "--json"), None),
        (("profile", "export", name), None),
        (("profile", "export", name, "-o", export_plain), None),
        (("profile", "export", name, "-o", export_key, "--include-key"), None),
        (("profile", "import", export_key, "--name", f"{name}-copy"), None),
        (("profile", "rename", f"{name}-copy", f"{name}-copy2"), None),
        (("profile", "remove", f"{name}-copy2"), None),
        (("clients",), None),
        (("clients", "--json"), None),
        (("apply", "--all", "--dry-run"), None),
        (("apply", "--all", "--dry-run", "--json"), None),
        (("apply", *CLIENTS, "--check"), None),
        (("apply", *CLIENTS), None),
        (("apply", *CLIENTS, "--json"), None),
        (("apply", "codex", "--model", "other", "--json"), None),
        (("use", name), None),
        (("use", name, "--json", "--dry-run"), None),
        (("status",), None),
        (("status", "--json"), None),
        (("status", "codex", "claude-code"), None),
        (("verify",), None),
        (("verify", "--json"), None),
        (("verify", "--profile", name, "--json"), None),
        (("doctor",), None),
        (("doctor", "--json"), None),
        (("link", "cherry-studio"), None),
        (("link", "chatbox", "--json"), None),
        (("run", "shell", "--dry-run"), None),
        (("run", "codex", "--dry-run", "--json"), None),
        (("run", "claude-code", "--dry-run"), None),
        (("completion", "bash"), None),
        # error paths
        (("apply", "no-such-client"), None),
        (("apply", "codex", "-p", str(tmp_path / "missing.toml")), None),
        (("profile", "show", "missing"), None),
        (("profile", "add", name, "--base-url", "https://gw.example.com/v1", "--key-stdin"), "sk-other\n"),
        (("verify", "codex", "--timeout", "0.1"), None),
        (("--debug", "apply", "codex", "--dry-run"), None),
        (("restore", "--all", "--dry-run"), None),
        (("restore", "--all", "--json", "--dry-run"), None),
        (("restore", "--all"), None),
        (("restore", "--all", "--json"), None),
    ]
    return commands


def _check_output(result, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in result.output, (args, result)
    for key in SENTINELS.values():
        for text in (result.stdout, result.stderr):
            assert key not in text and hidden_part(key) not in text, (args, "shows a key", result)


@pytest.mark.parametrize("kind", sorted(SENTINELS))
def test_no_command_shows_the_key(
    home: Path, tmp_path: Path, servers: tuple[GatewayServer, GatewayServer], kind: str, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    gateway, decoy = servers
    key = SENTINELS[kind]
    _seed(home, chatgpt_login=kind == "plain")
    monkeypatch.setenv("SHELL", "/bin/bash")
    name = f"s-{kind}"
    added = invoke(
        "profile", "add", name, "--base-url", gateway.base_url, "--model", "my-model", "--key-stdin", "--use",
        input=key + "\n",
    )  # fmt: skip
    _check_output(added, ("profile", "add"))
    assert added.exit_code == 0, added
    ran = 0
    for args, stdin in _commands(name, tmp_path):
        result = invoke(*args, input=stdin)
        _check_output(result, args)
        ran += 1
        if args == ("apply", *CLIENTS):
            assert result.exit_code == 0, result
    # a gateway that echoes the key in its 401, and a redirect to another host
    assert invoke("apply", *CLIENTS).exit_code == 0
    for fault in ("leaky-401", "redirect", "500", "html"):
        gateway.set_fault(fault)
        gateway.redirect_to = _decoy_url(decoy) + "/v1/chat/completions"
        for args in (("verify",), ("verify", "--json"), ("doctor", "--json"), ("doctor", "codex")):
            _check_output(invoke(*args), (*args, fault))
            ran += 1
    gateway.set_fault(None)
    # a key command that fails after printing the key to stderr
    (tmp_path / "bin").mkdir()
    script = tmp_path / "bin" / "leaky-key.sh"
    script.write_text(f"#!/bin/sh\necho 'the key is {key}' >&2\necho {key}\nexit 3\n")
    script.chmod(0o755)
    _check_output(
        invoke("profile", "add", "cmd", "--base-url", gateway.base_url, "--key-cmd", str(script)), ()
    )
    for args in (
        ("apply", "codex", "-p", "cmd"),
        ("verify", "-p", "cmd"),
        ("profile", "show", "cmd", "--json"),
    ):
        _check_output(invoke(*args), args)
        ran += 1
    assert ran >= 60
    assert not decoy.requests, "a request went to a host other than the one being verified"
    assert all(r.key in (key, None) for r in gateway.requests)
    _check_files(home, tmp_path, key)


def _check_files(home: Path, tmp_path: Path, key: str) -> None:
    gw = tmp_path / "gwconf"
    holders = []
    for root in (home, gw, tmp_path):
        for path in root.rglob("*"):
            assert hidden_part(key) not in str(path), f"a file name holds the key: {path}"
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                if hidden_part(key).encode() in data:
                    holders.append(path)
    assert holders, "the sentinel was written somewhere (profiles at least)"
    for path in holders:
        relative = path.relative_to(tmp_path).as_posix()
        if relative.startswith("bin/"):
            continue  # the test's own key command
        assert not relative.startswith("gwconf/state/") or "/backups/" in relative, (
            f"{relative} holds the key"
        )
        assert not relative.endswith(("ledger.json", "journal.json", "active", "gwconf.lock")), relative
        if relative.startswith("export-") and "key" not in relative:
            pytest.fail(f"{relative}: an export without --include-key holds the key")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, (
            f"{relative} holds the key with mode {path.stat().st_mode:o}"
        )
    for folder in [gw, *(p for p in gw.rglob("*") if p.is_dir())]:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, (
            f"{folder} is {stat.S_IMODE(folder.stat().st_mode):o}"
        )


def test_doctor_never_sends_the_key_to_the_clients_own_address(
    home: Path, servers: tuple[GatewayServer, GatewayServer]
) -> None:
    """The client points at another host: doctor's direct request goes to the profile's address only."""
    gateway, decoy = servers
    assert invoke(
        "profile", "add", "s", "--base-url", gateway.base_url, "--model", "my-model", "--key-stdin", "--use",
        input=SK_SENTINEL + "\n",
    ).exit_code == 0  # fmt: skip
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "env": {
                    "ANTHROPIC_BASE_URL": _decoy_url(decoy),
                    "ANTHROPIC_AUTH_TOKEN": "sk-clients-own-00000000",
                }
            }
        )
    )
    for args in (("doctor", "claude-code"), ("doctor", "claude-code", "--json")):
        result = invoke(*args)
        _check_output(result, args)
    assert all(
        SK_SENTINEL not in json.dumps(r.headers) + (r.body or b"").decode(errors="replace")
        for r in decoy.requests
    )
    assert any(r.key == SK_SENTINEL for r in gateway.requests)


def test_gwconf_folders_are_private_from_the_first_command(home: Path, tmp_path: Path) -> None:
    """Even folders created on the way (backups/<client>/<file>) are 0700, not the umask's 0755."""
    umask = os.umask(0o022)
    try:
        added = invoke("profile", "add", "w", "--base-url", "https://gw.example.com/v1", "--key", SK_SENTINEL)
        assert added.exit_code == 0
        assert invoke("apply", "codex", "claude-code").exit_code == 0
    finally:
        os.umask(umask)
    gw = tmp_path / "gwconf"
    modes = {
        p.relative_to(gw).as_posix() or ".": stat.S_IMODE(p.stat().st_mode)
        for p in [gw, *gw.rglob("*")]
        if p.is_dir()
    }
    assert modes and all(mode == 0o700 for mode in modes.values()), modes
