"""`gwconf profile export` / `import` through the CLI: a round trip a team can rely on."""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY

REPO = Path(__file__).resolve().parents[1]


def shown(gwconf, name: str) -> dict:
    result = gwconf("profile", "show", name, "--json")
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def test_export_leaves_the_key_out_and_import_asks_for_another(gwconf, profile, tmp_path):
    printed = gwconf("profile", "export", "work")
    assert printed.exit_code == 0, printed
    assert TEST_KEY not in printed.output and "key =" not in printed.stdout
    assert 'name = "work"' in printed.stdout and "gwconf profile import" in printed.stdout
    target = tmp_path / "team.toml"
    written = gwconf("profile", "export", "work", "-o", str(target))
    assert written.exit_code == 0, written
    assert target.read_text() == printed.stdout
    assert stat.S_IMODE(target.stat().st_mode) & 0o044, "without the key the file is a normal, shareable file"
    again = gwconf("profile", "export", "work", "-o", str(target))
    assert again.exit_code == 1 and "--force" in again.stderr

    no_key = gwconf("profile", "import", str(target), "--name", "mate")
    assert no_key.exit_code == 2 and "--key-stdin" in no_key.stderr and "--key-env" in no_key.stderr
    imported = gwconf(
        "profile", "import", str(target), "--name", "mate", "--key-stdin", input="sk-mate-key-1234\n"
    )
    assert imported.exit_code == 0, imported
    assert "sk-mate-key-1234" not in imported.output
    mate, work = shown(gwconf, "mate"), shown(gwconf, "work")
    assert mate["key"] == "sk-…1234" and mate["key_source"] == "inline"
    for field in ("base_url", "model", "anthropic_base_url", "gemini_base_url", "models"):
        assert mate[field] == work[field], field
    assert stat.S_IMODE(Path(mate["path"]).stat().st_mode) == 0o600


def test_include_key_writes_0600_and_warns(gwconf, profile, tmp_path):
    target = tmp_path / "with-key.toml"
    result = gwconf("profile", "export", "work", "-o", str(target), "--include-key")
    assert result.exit_code == 0, result
    assert "holds the key itself" in result.stderr and "0600" in result.stdout
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert f'key = "{TEST_KEY}"' in target.read_text()
    imported = gwconf("profile", "import", str(target), "--name", "copy")
    assert imported.exit_code == 0, imported
    full = gwconf("profile", "show", "copy", "--show-key")
    assert TEST_KEY in full.stdout


def test_references_stay_and_a_key_option_replaces_them(gwconf, tmp_path, monkeypatch):
    monkeypatch.setenv("GW_KEY", TEST_KEY)
    added = gwconf("profile", "add", "ref", "--base-url", "https://gw.example.com", "--key-env", "GW_KEY")
    assert added.exit_code == 0, added
    target = tmp_path / "ref.toml"
    assert gwconf("profile", "export", "ref", "-o", str(target), "--include-key").exit_code == 0
    text = target.read_text()
    assert 'key_env = "GW_KEY"' in text and TEST_KEY not in text
    assert gwconf("profile", "import", str(target), "--name", "ref2").exit_code == 0
    assert shown(gwconf, "ref2")["key_source"] == "env:GW_KEY"
    own = gwconf("profile", "import", str(target), "--name", "ref3", "--key-env", "MY_KEY")
    assert own.exit_code == 0 and "$MY_KEY is not set" in own.stderr
    assert shown(gwconf, "ref3")["key_source"] == "env:MY_KEY"


def test_import_from_stdin_needs_a_name_and_a_key_source(gwconf):
    text = 'base_url = "https://gw.example.com"\nmodel = "m"\n'
    nameless = gwconf("profile", "import", "-", "--key-env", "K", input=text)
    assert nameless.exit_code == 2 and "--name" in nameless.stderr
    both = gwconf("profile", "import", "-", "--name", "x", "--key-stdin", input=text)
    assert both.exit_code == 2 and "--key-env" in both.stderr
    ok = gwconf("profile", "import", "-", "--name", "piped", "--key-env", "K", input=text)
    assert ok.exit_code == 0, ok
    assert shown(gwconf, "piped")["base_url"] == "https://gw.example.com/v1"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('base_url = "https://gw.example.com"\nkey_env = "K"\ncolour = "red"\n', "unknown field(s) colour"),
        ('base_url = "ftp://gw.example.com"\nkey_env = "K"\n', "ftp"),
        (
            'base_url = "https://gw.example.com"\nkey = "a"\nkey_env = "K"\n',
            "only one of key, key_env, key_cmd",
        ),
        ('base_url = "https://gw.example.com"\nkey_env = "K"\nname = "../evil"\n', "not allowed"),
        ('base_url = "https://gw.example.com\nkey_env = "K"\n', "bad.toml:1"),
        ('base_url = "https://gw.example.com"\nkey_env = "K"\n[models]\ncodexx = "m"\n', "'codexx'"),
    ],
)
def test_import_checks_every_field_and_saves_nothing_on_error(gwconf, tmp_path, content, expected):
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    result = gwconf("profile", "import", str(bad), "--key-env", "K")
    assert result.exit_code in (1, 2), result
    assert expected in result.stderr
    assert "hint:" in result.stderr
    assert gwconf("profile", "list", "--json").stdout.count('"name"') == 0


def test_import_refuses_an_existing_name_and_warns_about_key_commands(gwconf, profile, tmp_path):
    team = tmp_path / "work.toml"
    team.write_text('base_url = "https://other.example.com"\nkey_cmd = "pass show gw"\n')
    refused = gwconf("profile", "import", str(team))
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert shown(gwconf, "work")["base_url"] == "https://gw.example.com/v1"
    forced = gwconf("profile", "import", str(team), "--force")
    assert forced.exit_code == 0 and "runs a command to get its key: pass show gw" in forced.stderr
    assert shown(gwconf, "work")["base_url"] == "https://other.example.com/v1"


def test_the_repository_team_profile_imports_and_applies(gwconf, monkeypatch):
    monkeypatch.setenv("TEAM_GATEWAY_KEY", TEST_KEY)
    team = REPO / "profiles" / "team.toml"
    imported = gwconf("profile", "import", str(team))
    assert imported.exit_code == 0, imported
    data = shown(gwconf, "team")
    assert data["key_source"] == "env:TEAM_GATEWAY_KEY" and data["models"] == {"codex": "my-model"}
    planned = gwconf("apply", "codex", "--dry-run", "--profile", str(team))
    assert planned.exit_code == 0, planned
    assert "gw.example.com/v1" in planned.stdout and TEST_KEY not in planned.output


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_import_asks_for_the_key_on_a_terminal_without_echo(tmp_path, home):
    """A real gwconf on a pseudo-terminal: the prompt appears, the typed key is not echoed, it is saved."""
    import pty

    source = tmp_path / "nokey.toml"
    source.write_text('base_url = "https://gw.example.com"\nmodel = "m"\n')
    master, slave = pty.openpty()

    def controlling_terminal() -> None:
        import fcntl
        import termios

        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        [sys.executable, "-m", "gwconf", "profile", "import", str(source), "--name", "typed"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        preexec_fn=controlling_terminal,
        env=dict(os.environ),
    )
    os.close(slave)
    seen = b""
    try:
        seen = _read_until(master, b"input hidden", proc)
        os.write(master, b"sk-typed-key-5678\n")
        seen += _read_until(master, b"Imported profile", proc)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 0, seen
    assert b"sk-typed-key-5678" not in seen
    saved = (Path(os.environ["GWCONF_HOME"]) / "profiles" / "typed.toml").read_text()
    assert 'key = "sk-typed-key-5678"' in saved


def _read_until(fd: int, marker: bytes, proc: subprocess.Popen) -> bytes:
    data = b""
    deadline = time.monotonic() + 60  # generous: a slow machine, not a timing assertion
    while marker not in data and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    return data
