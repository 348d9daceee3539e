"""The real Claude Code reads the project file `gwconf apply claude-code --project` writes (issue 20).

A git repository bound to a profile, nothing in the global folders: Claude Code 2.1.330 in the
repository sends its request to the profile's gateway with the profile's key, and git sees nothing
but the binding (which holds a name only).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.clients import CLAUDE_OFFLINE, PROMPT
from tests.gateway_server import GatewayServer

PROJECT_KEY = "sk-project-0123456789abcdefPROJ"


def test_claude_code_uses_the_project_file_and_git_stays_clean(e2e_install, home: Path) -> None:
    installed = e2e_install.clients.get("claude-code")
    if installed is None or not installed.ok:
        pytest.fail(
            f"Claude Code is not installed: {installed.detail if installed else 'not in the manifest'}"
        )
    env = {
        **os.environ,
        **CLAUDE_OFFLINE,
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "PATH": f"{e2e_install.bin}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    repo = home / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    gwconf = [sys.executable, "-m", "gwconf"]
    with GatewayServer(keys=(PROJECT_KEY,)) as gateway:
        added = subprocess.run(
            [*gwconf, "profile", "add", "proj", "--base-url", gateway.base_url, "--model", "my-model", "--key-stdin"],
            input=PROJECT_KEY + "\n", env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        for args in (("use", "proj", "--dir"), ("apply", "claude-code", "--project")):
            done = subprocess.run([*gwconf, *args], cwd=repo, env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        assert not (home / ".claude").exists()
        run = subprocess.run(
            ["claude", "-p", PROMPT, "--output-format", "text"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        sent = gateway.requests_to("/v1/messages")
        assert sent and all(r.key == PROJECT_KEY for r in sent)
        assert gateway.reply in run.stdout
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, capture_output=True, text=True
    )
    assert status.stdout.splitlines() == ["?? .gwconf.toml"]
    assert not (home / ".claude" / "settings.json").exists()
