"""A small world for the hardening tests: a HOME with real client files, two saved profiles,
and ways to run gwconf against it (in-process, in a forked child that can be killed at an exact
step, or as a real ``python -m gwconf`` subprocess)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gwconf import registry
from gwconf.paths import Env
from tests.conftest import invoke

KEY_A = "sk-aaaa-0123456789abcdefAAAA"
KEY_B = "sk-bbbb-0123456789abcdefBBBB"
USERS_OWN_KEY = "sk-users-own-000000000000"

# The user's files before gwconf: comments, odd spacing, a key of their own, an rc file.
SEED: dict[str, tuple[str, int]] = {
    ".codex/config.toml": ('# mine\nmodel = "gpt-5"   # my model\n\n[tui]\nnotifications = true\n', 0o644),
    ".codex/auth.json": ('{\n  "OPENAI_API_KEY": "' + USERS_OWN_KEY + '"\n}\n', 0o644),
    ".claude/settings.json": ('{\n  "theme": "dark",\n  "env": {\n    "FOO": "1"\n  }\n}\n', 0o644),
    ".continue/config.yaml": ("# continue\nname: mine\nversion: 0.0.1\nmodels: []\n", 0o644),
    ".bashrc": ('# bashrc\nalias ll="ls -l"\nexport PATH="$HOME/bin:$PATH"\n', 0o644),
}
CLIENTS = ("codex", "claude-code", "continue", "shell", "llm")
TMP_SUFFIX = ".gwconf-tmp"

State = dict[str, tuple[bytes, int]]  # relative path -> (bytes, mode)


@dataclass
class World:
    root: Path
    references: dict[str, State] = field(default_factory=dict)  # named states, for comparisons

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def gw(self) -> Path:
        return self.root / "gwconf"

    @property
    def state_dir(self) -> Path:
        return self.gw / "state"

    def activate(self, monkeypatch) -> World:  # type: ignore[no-untyped-def]
        """Use the conftest's HOME and GWCONF_HOME (``root`` is the test's tmp_path)."""
        assert os.environ["HOME"] == str(self.home) and os.environ["GWCONF_HOME"] == str(self.gw)
        monkeypatch.setenv("SHELL", "/bin/bash")
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
        return self

    def env(self) -> Env:
        return Env(home=self.home, platform="linux", environ=dict(os.environ), cwd=Path.cwd())

    def seed(self) -> None:
        for name, (text, mode) in SEED.items():
            path = self.home / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            os.chmod(path, mode)

    def add_profiles(self) -> None:
        for name, url, model, key in (
            ("a", "https://a.example.com/v1", "model-a", KEY_A),
            ("b", "https://gw-b.example.net", "model-b", KEY_B),
        ):
            done = invoke(
                "profile", "add", name, "--base-url", url, "--model", model, "--key-stdin", input=key
            )
            assert done.exit_code == 0, done
        assert invoke("use", "a", "--no-apply").exit_code == 0

    # -- states -------------------------------------------------------------------------------
    def files(self) -> State:
        """Every client file under HOME (gwconf's temp files are reported by ``litter``)."""
        found: State = {}
        for path in sorted(self.home.rglob("*")):
            if path.is_file() and not path.is_symlink() and not path.name.endswith(TMP_SUFFIX):
                found[path.relative_to(self.home).as_posix()] = (
                    path.read_bytes(),
                    path.stat().st_mode & 0o777,
                )
        return found

    def litter(self) -> list[Path]:
        return [p for root in (self.home, self.gw) for p in root.rglob(f"*{TMP_SUFFIX}")]

    def save(self, name: str) -> None:
        target = self.root / "saved" / name
        shutil.rmtree(target, ignore_errors=True)
        for part in ("home", "gwconf"):
            shutil.copytree(self.root / part, target / part, symlinks=True)

    def load(self, name: str) -> None:
        source = self.root / "saved" / name
        for part in ("home", "gwconf"):
            shutil.rmtree(self.root / part, ignore_errors=True)
            shutil.copytree(source / part, self.root / part, symlinks=True)

    def client_files(self) -> dict[str, list[str]]:
        """Client id -> its files, relative to HOME."""
        env = self.env()
        return {
            c: [f.path.relative_to(self.home).as_posix() for f in registry.get(c).files(env)] for c in CLIENTS
        }


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- running gwconf -----------------------------------------------------------------------------

_HOOK_EVENTS = ("os.rename", "os.remove")


def run_forked(
    args: tuple[str, ...],
    *,
    kill_at: int = 0,
    watch: tuple[str, ...] = (),
    log: Path | None = None,
    act_at: int = 0,
    action: Callable[[], None] | None = None,
    act_on_open: Path | None = None,
    result: Path | None = None,
    events: tuple[str, ...] = _HOOK_EVENTS,
) -> int:
    """Run ``gwconf ARGS`` in a forked child of this (already imported) process.

    With ``kill_at`` N the child SIGKILLs itself just before its Nth rename or unlink under
    ``watch`` (every change gwconf makes to a file is one of those: the moments between them are
    all the states a crash can leave); with ``act_at`` N it runs ``action`` there instead (another
    program writing a file at that exact moment), or with ``act_on_open`` when it first opens that
    file (gwconf's lock: planning is done, writing not begun). ``log`` receives the list of those operations,
    ``result`` the exit code, stdout and stderr as JSON. ``events``: the audit events counted
    (``os.chmod`` too, for a moment between a rename and a mode change). Returns the wait status.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 70
        try:
            seen: list[str] = []

            def hook(event: str, hook_args: tuple) -> None:  # type: ignore[type-arg]
                nonlocal act_on_open
                if event == "open" and act_on_open is not None and str(hook_args[0]) == str(act_on_open):
                    act_on_open = None
                    if action is not None:
                        action()
                if event not in events:
                    return
                path = str(hook_args[1] if event == "os.rename" else hook_args[0])
                if not path.startswith(watch):
                    return
                seen.append(f"{event} {path}")
                if len(seen) == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                if len(seen) == act_at and action is not None:
                    action()

            sys.addaudithook(hook)
            done = invoke(*args)
            code = done.exit_code
            if log is not None:
                log.write_text("\n".join(seen))
            if result is not None:
                result.write_text(
                    json.dumps({"exit_code": code, "stdout": done.stdout, "stderr": done.stderr})
                )
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


def gwconf_subprocess(*args: str, **kwargs) -> subprocess.Popen:  # type: ignore[no-untyped-def]
    return subprocess.Popen(
        [sys.executable, "-m", "gwconf", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **kwargs,
    )
