"""shell: one gwconf block per start-up file of the user's shells, proven by sourcing it in bash."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from gwconf.clients import shell
from gwconf.paths import Env
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_refuses_malformed,
    assert_status_reads_profile,
    has_finding,
    reading,
)
from tests.conftest import TEST_KEY

BASH = shutil.which("bash")
HOSTILE_KEY = 'sk-it\'s "quoted" $(touch pwned) `touch pwned2` \\ $HOME ; exit 3 #x'


@pytest.mark.parametrize(
    ("case", "login_shell"),
    [
        ("bash-and-zsh", "/usr/bin/zsh"),
        ("old-block", "/bin/bash"),
        ("fish", "/usr/bin/fish"),
        ("fresh-home", "/bin/bash"),
    ],
)
def test_fixture(case: str, login_shell: str, gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", login_shell)
    check_case("shell", case, gwconf, home)


def test_status_reads_the_login_shells_block(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert gwconf("apply", "shell").exit_code == 0
    status = assert_status_reads_profile(gwconf, "shell", model=None)
    assert status["files"] == ["~/.bashrc"]
    assert stat.S_IMODE((home / ".bashrc").stat().st_mode) == 0o600


def _environment(script: str, home: Path) -> dict[str, str]:
    """The environment a bash that ran ``script`` ends up with (NUL-separated, so any value survives)."""
    assert BASH is not None
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", f"{script}\nenv -0"],
        capture_output=True,
        env=env,
        cwd=home,
        timeout=30,
        check=True,
    )
    pairs = [item.split("=", 1) for item in done.stdout.decode().split("\0") if item]
    return {k: v for k, v in pairs if k not in ("_", "SHLVL", "PWD", "OLDPWD")}


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_sourcing_the_block_sets_exactly_the_intended_values(gwconf, home, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    added = gwconf(
        "profile", "add", "work", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
        input=HOSTILE_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("apply", "shell").exit_code == 0
    plain = _environment("", home)
    sourced = _environment(f"source {home / '.bashrc'}", home)
    changed = {k: v for k, v in sourced.items() if plain.get(k) != v}
    assert changed == {
        "OPENAI_BASE_URL": "https://gw.example.com/v1",
        "OPENAI_API_BASE": "https://gw.example.com/v1",
        "OPENAI_API_KEY": HOSTILE_KEY,
    }
    assert not (home / "pwned").exists() and not (home / "pwned2").exists()


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_family_pairs_when_the_profile_sets_them(gwconf, home, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    added = gwconf(
        "profile", "add", "split", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
        "--anthropic-base-url", "https://gw.example.com/anthropic", "--gemini-base-url", "https://gw.example.com/gemini",
        input=TEST_KEY + "\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("apply", "shell").exit_code == 0
    sourced = _environment(f"source {home / '.bashrc'}", home)
    assert {k: sourced.get(k) for k in shell.MANAGED} == {
        "OPENAI_BASE_URL": "https://gw.example.com/v1",
        "OPENAI_API_BASE": "https://gw.example.com/v1",
        "OPENAI_API_KEY": TEST_KEY,
        "ANTHROPIC_BASE_URL": "https://gw.example.com/anthropic",
        "ANTHROPIC_AUTH_TOKEN": TEST_KEY,
        "GOOGLE_GEMINI_BASE_URL": "https://gw.example.com/gemini",
        "GEMINI_API_KEY": TEST_KEY,
    }
    # Switching to a profile without family addresses drops the pairs from the block.
    assert gwconf("profile", "add", "plain", "--base-url", "https://gw2.example.com/v1", "--key-stdin",
                  input=TEST_KEY + "\n").exit_code == 0  # fmt: skip
    assert gwconf("apply", "shell", "-p", "plain").exit_code == 0
    text = (home / ".bashrc").read_text()
    assert "ANTHROPIC" not in text and "GEMINI" not in text and "gw2.example.com" in text


def test_derived_family_addresses_are_not_exported(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    result = gwconf("apply", "shell")
    assert result.exit_code == 0
    assert "ANTHROPIC" not in (home / ".bashrc").read_text()
    assert "--anthropic-base-url" in result.stdout


@pytest.mark.parametrize(
    ("platform", "login", "existing", "expected"),
    [
        ("linux", None, [], [".bashrc"]),
        ("darwin", None, [], [".zshrc"]),
        ("linux", "/bin/zsh", [".bashrc"], [".zshrc", ".bashrc"]),
        ("linux", "/bin/sh", [".zshrc"], [".zshrc"]),
        ("darwin", "/opt/homebrew/bin/fish", [], [".config/fish/conf.d/gwconf.fish"]),
        ("linux", "/bin/bash", [".config/fish/config.fish"], [".bashrc", ".config/fish/conf.d/gwconf.fish"]),
        ("linux", "/bin/bash", [".config/powershell/Microsoft.PowerShell_profile.ps1"],
         [".bashrc", ".config/powershell/Microsoft.PowerShell_profile.ps1"]),
    ],
)  # fmt: skip
def test_which_files_on_posix(platform, login, existing, expected, home) -> None:
    for name in existing:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("# mine\n")
    environ = {"SHELL": login} if login else {}
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert [str(f.path.relative_to(home)) for f in shell.files(env)] == expected
    assert all(f.secret for f in shell.files(env))


def test_zdotdir_moves_the_zshrc(home) -> None:
    env = Env(
        home=home, platform="linux", environ={"SHELL": "/bin/zsh", "ZDOTDIR": str(home / "zsh")}, cwd=home
    )
    assert shell.files(env)[0].path == home / "zsh" / ".zshrc"


def test_which_files_on_windows(home, tmp_path) -> None:
    bare = Env(home=home, platform="win32", environ={"PATH": ""}, cwd=home)
    [only] = shell.files(bare)
    assert (only.role, only.format) == ("powershell", "powershell")
    assert only.path == home / "Documents" / "WindowsPowerShell" / "Microsoft.PowerShell_profile.ps1"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pwsh = bin_dir / "pwsh"
    pwsh.write_text("#!/bin/sh\n")
    pwsh.chmod(0o755)
    with_pwsh = Env(home=home, platform="win32", environ={"PATH": str(bin_dir)}, cwd=home)
    assert (
        shell.files(with_pwsh)[0].path
        == home / "Documents" / "PowerShell" / "Microsoft.PowerShell_profile.ps1"
    )
    onedrive = home / "OneDrive" / "Documents" / "WindowsPowerShell" / "Microsoft.PowerShell_profile.ps1"
    onedrive.parent.mkdir(parents=True)
    onedrive.write_text("Set-PSReadLineOption -EditMode Emacs\n")
    (home / ".bashrc").write_text("# git bash\n")
    moved = Env(
        home=home, platform="win32", environ={"PATH": "", "OneDrive": str(home / "OneDrive")}, cwd=home
    )
    assert [f.path for f in shell.files(moved)] == [onedrive, home / ".bashrc"]


def test_later_assignment_outside_the_block_is_reported(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert gwconf("apply", "shell").exit_code == 0
    with (home / ".bashrc").open("a") as rc:
        rc.write("export OPENAI_API_KEY=sk-somethingelse-123456\n")
    (home / ".bash_profile").write_text("export PATH=$HOME/bin:$PATH\n")
    seen = reading("shell", ANTHROPIC_API_KEY="sk-ant-x")
    assert has_finding(seen.findings, "warning", "OPENAI_API_KEY again below the gwconf block")
    assert has_finding(seen.findings, "warning", "~/.bash_profile does not read ~/.bashrc")
    assert has_finding(seen.findings, "info", "this terminal's", "OPENAI_BASE_URL")
    assert not has_finding(seen.findings, "warning", "$ANTHROPIC_API_KEY")  # no Anthropic pair in the block
    with (home / ".bashrc").open("a") as rc:  # the shapes sweep: an unset below went unseen
        rc.write('[ -n "$WORK" ] && unset OPENAI_BASE_URL\n')
    seen = reading("shell")
    assert has_finding(seen.findings, "warning", "unsets OPENAI_BASE_URL below the gwconf block")


def test_two_blocks_are_refused(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    block = "# >>> gwconf >>>\nexport OPENAI_API_KEY='sk-1'\n# <<< gwconf <<<\n"
    assert_refuses_malformed(gwconf, home, "shell", ".bashrc", "alias ll='ls -l'\n" + block + block)


def test_restore_removes_only_the_block(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    original = "alias ll='ls -l'\n"
    (home / ".bashrc").write_text(original)
    assert gwconf("apply", "shell").exit_code == 0
    with (home / ".bashrc").open("a") as rc:
        rc.write("alias gs='git status'\n")  # the user edits the file afterwards
    assert gwconf("restore", "shell").exit_code == 0
    assert (home / ".bashrc").read_text() == original + "alias gs='git status'\n"


def test_interactive_only_bashrc_is_reported(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    (home / ".bashrc").write_text("case $- in\n    *i*) ;;\n      *) return;;\nesac\n")
    assert gwconf("apply", "shell").exit_code == 0
    assert has_finding(reading("shell").findings, "info", "non-interactive shells")
    (home / ".bashrc").write_text("export A=1\n")
    assert not has_finding(reading("shell").findings, "info", "non-interactive shells")


def test_windows_plan_writes_a_powershell_block(gwconf, home, profile) -> None:
    """The Windows route end to end up to the bytes (writing needs the real platform)."""
    from gwconf import plan, registry
    from gwconf.profiles import ProfileStore

    current = Env.current()
    env = Env(home=home, platform="win32", environ={**current.environ, "PATH": ""}, cwd=home)
    planned = plan.plan_apply(registry.get("shell"), ProfileStore(current).load("work"), env)
    [change] = planned.pending
    assert change.file.path.name == "Microsoft.PowerShell_profile.ps1"
    text = (change.after or b"").decode()
    assert "$env:OPENAI_API_KEY = 'sk-test-0123456789abcdefWXYZ'" in text
    assert "$env:OPENAI_BASE_URL = 'https://gw.example.com/v1'" in text


def test_detected_only_once_opted_in(gwconf, home, profile, monkeypatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    assert not shell.detect(Env.current())
    assert gwconf("apply", "shell").exit_code == 0
    assert shell.detect(Env.current())
