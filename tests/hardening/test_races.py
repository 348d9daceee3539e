"""Races (issue 8): gwconf against itself, and against a client writing its own file.

- 8 processes apply and switch profiles (``gwconf use``) on the same clients at once: every file
  ends parseable and equal to exactly one profile's result, the ledger agrees with the files, the
  pristine backups are intact and ``restore --all`` still gives back the originals.
- A client (another process) rewrites its file while gwconf plans, or after gwconf's
  compare-and-swap but before its replace: gwconf notices (ConcurrentChange, exit 1) and the
  client's bytes stay.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gwconf import formats, registry
from gwconf.ledger import Ledger
from gwconf.plan import BackupStore
from tests.conftest import CliResult, invoke
from tests.hardening._world import World, run_forked, sha256

RACE_CLIENTS = ("codex", "claude-code", "continue")
PROFILES = [f"p{i}" for i in range(8)]
CONCURRENT = "changed while gwconf was planning"


def _key(i: int) -> str:
    return f"sk-race-{i}-0123456789abcdef{i}{i}{i}{i}"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    for i, name in enumerate(PROFILES):
        done = invoke(
            "profile", "add", name, "--base-url", f"https://gw{i}.example.com/v{1}", "--model", f"model-{i}",
            "--key-stdin", input=_key(i),
        )  # fmt: skip
        assert done.exit_code == 0, done
    w.save("S0")
    w.references["S0"] = w.files()
    for name in PROFILES:  # each profile's result, applied to the original files
        w.load("S0")
        assert invoke("apply", *RACE_CLIENTS, "-p", name).exit_code == 0
        w.references[name] = w.files()
    w.load("S0")
    return w


def _files_of(w: World, client: str) -> list[str]:
    env = w.env()
    return [f.path.relative_to(w.home).as_posix() for f in registry.get(client).files(env)]


def _check_settled(w: World, results: list[tuple[tuple[str, ...], int, str]]) -> None:
    for args, code, stderr in results:
        assert "Traceback" not in stderr and "unexpected error" not in stderr, (args, stderr)
        assert code == 0 or (code == 1 and CONCURRENT in stderr), (args, code, stderr)
    env = w.env()
    files = w.files()
    ledger = Ledger(env)
    for client in RACE_CLIENTS:
        adapter = registry.get(client)
        names = _files_of(w, client)
        matching = [p for p in PROFILES if all(files.get(n) == w.references[p].get(n) for n in names)]
        per_file = {n: [p for p in PROFILES if files.get(n) == w.references[p].get(n)] for n in names}
        assert len(matching) == 1, f"{client}: its files are not exactly one profile's result {per_file}"
        assert ledger.profile_of(client) == matching[0], f"{client}: the ledger names another profile"
        for file in adapter.files(env):
            text, _ = formats.decode(file.path.read_bytes(), str(file.path))
            formats.load(file.format, text, str(file.path))  # parses
            record = ledger.files(client)[str(file.path)]
            assert record["written_sha256"] == sha256(file.path.read_bytes()), (
                f"{file.path}: ledger disagrees"
            )
            pristine = BackupStore(env, client, file.path).pristine()
            original = w.references["S0"].get(file.path.relative_to(w.home).as_posix())
            if original is None:
                assert pristine is formats.MISSING, f"{file.path}: pristine backup lost"
            else:
                assert pristine == original[0], f"{file.path}: pristine backup lost or overwritten"
            for key in record["keys"]:
                if key.get("before_ref"):
                    assert BackupStore(env, client, file.path).read(key["before_ref"]) is not None


def test_eight_processes_apply_and_switch_profiles_at_once(world: World) -> None:
    w = world
    assert invoke("apply", *RACE_CLIENTS, "-p", "p0").exit_code == 0  # `use` re-applies to these
    for round_ in range(2):
        commands = [
            ("use", name) if (i + round_) % 2 else ("apply", *RACE_CLIENTS, "-p", name)
            for i, name in enumerate(PROFILES)
        ]
        processes = [
            (args, subprocess.Popen([sys.executable, "-m", "gwconf", *args], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True))
            for args in commands
        ]  # fmt: skip
        results = [(args, p.wait(timeout=120), p.stderr.read()) for args, p in processes]
        for _, p in processes:
            p.stderr.close()
        _check_settled(w, results)
    done = invoke("restore", "--all")
    assert done.exit_code == 0, done
    assert w.files() == w.references["S0"], "restore after the races gives back the originals"


# -- a client writing its own file ------------------------------------------------------------------

SETTINGS = ".claude/settings.json"
THEIRS = '{\n  "theme": "light",\n  "written-by": "claude code itself"\n}\n'

WRITER = """
import os, sys
path, text = sys.argv[1], sys.argv[2]
tmp = path + ".client-tmp"
with open(tmp, "w") as f:
    f.write(text)
os.replace(tmp, path)
"""


def _client_writes(path: Path) -> None:
    """Another process (the client) rewriting its own file, the way editors and apps do."""
    subprocess.run([sys.executable, "-c", WRITER, str(path), THEIRS], check=True)


def test_a_client_rewriting_its_file_while_gwconf_plans(world: World, tmp_path: Path) -> None:
    """Claude Code rewrites settings.json after gwconf read it and while it plans Codex (when
    gwconf opens Codex's config.toml). The profile's key command runs once for the whole command."""
    w = world
    counter = tmp_path / "calls"
    script = tmp_path / "key.sh"
    script.write_text(f'#!/bin/sh\necho run >> "{counter}"\necho {_key(9)}\n')
    script.chmod(0o755)
    done = invoke(
        "profile", "add", "cmd", "--base-url", "https://gw.example.com/v1", "--key-cmd", str(script)
    )
    assert done.exit_code == 0, done
    outcome = tmp_path / "result.json"
    run_forked(
        ("apply", "claude-code", "codex", "-p", "cmd"),
        act_on_open=w.home / ".codex" / "config.toml",
        action=lambda: _client_writes(w.home / SETTINGS),
        result=outcome,
    )
    result = invoke_result(json.loads(outcome.read_text()))
    assert counter.read_text().splitlines() == ["run"], "the key command ran once"
    assert result.exit_code == 1, result
    assert f"~/{SETTINGS}: {CONCURRENT} (another program, or a gwconf run at the same time, wrote it); nothing was written." in result.stderr
    assert (w.home / SETTINGS).read_text() == THEIRS, "the client's write was kept"
    assert not (w.home / ".claude.json").exists(), "no file of Claude Code's change was written"
    assert 'base_url = "https://gw.example.com/v1"' in (w.home / ".codex" / "config.toml").read_text()
    assert "Traceback" not in result.output


def invoke_result(data: dict) -> CliResult:
    return CliResult(data["exit_code"], data["stdout"], data["stderr"], data["stdout"] + data["stderr"])


def test_a_client_writing_after_the_check_but_before_the_replace(world: World, tmp_path: Path) -> None:
    """The compare-and-swap is repeated right before each file is replaced: a client writing while
    gwconf took its backups and journal is noticed too."""
    w = world
    watch = (str(w.home), str(w.gw))
    log = tmp_path / "ops.log"
    w.save("start")
    assert os.WEXITSTATUS(run_forked(("apply", "claude-code"), watch=watch, log=log)) == 0
    ops = log.read_text().splitlines()
    journal_written = ops.index(f"os.rename {w.state_dir / 'journal.json'}") + 1
    w.load("start")
    outcome = tmp_path / "result.json"
    settings = w.home / SETTINGS
    run_forked(
        ("apply", "claude-code"),
        watch=watch,
        act_at=journal_written,
        action=lambda: _client_writes(settings),
        result=outcome,
    )
    result = json.loads(outcome.read_text())
    assert result["exit_code"] == 1, result
    assert CONCURRENT in result["stderr"]
    assert settings.read_text() == THEIRS, "gwconf replaced the client's fresh write"
    assert not (w.home / ".claude.json").exists()
    assert not (w.state_dir / "journal.json").exists() and not w.litter()
    assert stat.S_IMODE(settings.stat().st_mode) == 0o644
    assert invoke("apply", "claude-code").exit_code == 0, "the next run applies over the client's bytes"
    assert json.loads(settings.read_text())["written-by"] == "claude code itself"
    assert invoke("restore", "claude-code").exit_code == 0
    assert settings.read_text() == THEIRS, "restore gives back the client's bytes, not a stale pristine copy"


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="renameat2 is Linux's; elsewhere the window stays"
)
def test_a_client_writing_between_the_last_check_and_the_rename(world: World, tmp_path: Path) -> None:
    """Issue 18 item 15: the client writes after gwconf's last compare-and-swap, at the very moment
    of the rename. The swap takes out exactly the bytes it replaced, sees they are the client's,
    and puts them back: apply refuses instead of overwriting them."""
    w = world
    watch = (str(w.home), str(w.gw))
    log = tmp_path / "ops.log"
    w.save("start")
    assert os.WEXITSTATUS(run_forked(("apply", "claude-code"), watch=watch, log=log)) == 0
    ops = log.read_text().splitlines()
    settings = w.home / SETTINGS
    at_rename = ops.index(f"os.rename {settings}") + 1
    w.load("start")
    outcome = tmp_path / "result.json"
    run_forked(
        ("apply", "claude-code"),
        watch=watch,
        act_at=at_rename,
        action=lambda: _client_writes(settings),
        result=outcome,
    )
    result = json.loads(outcome.read_text())
    assert result["exit_code"] == 1, result
    assert CONCURRENT in result["stderr"]
    assert settings.read_text() == THEIRS, "gwconf's rename overwrote the client's write"
    assert not (w.state_dir / "journal.json").exists() and not w.litter()


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="renameat2 is Linux's; elsewhere the window stays"
)
def test_a_client_refused_at_its_rename_leaves_the_others_of_the_command_written(
    world: World, tmp_path: Path
) -> None:
    """One command writes its clients in one transaction (issue 15). When Claude Code writes its
    settings.json at the moment gwconf renames over it, Claude Code's files go back as they were,
    and the others of the command are still written and committed; the journal, rewritten without
    Claude Code, is gone, and a later restore gives back every original byte."""
    w = world
    watch = (str(w.home), str(w.gw))
    log = tmp_path / "ops.log"
    command = ("apply", "codex", "claude-code", "continue", "-p", "p2")
    assert os.WEXITSTATUS(run_forked(command, watch=watch, log=log)) == 0
    ops = log.read_text().splitlines()
    settings = w.home / SETTINGS
    journal = f"os.rename {w.state_dir / 'journal.json'}"
    at_rename = ops.index(f"os.rename {settings}") + 1
    assert ops.index(journal) < ops.index(f"os.rename {w.home / '.codex' / 'config.toml'}") < at_rename, ops
    w.load("S0")
    outcome = tmp_path / "result.json"
    log.unlink()
    run_forked(
        command,
        watch=watch,
        act_at=at_rename,
        action=lambda: _client_writes(settings),
        result=outcome,
        log=log,
    )
    result = json.loads(outcome.read_text())
    assert result["exit_code"] == 1 and CONCURRENT in result["stderr"], result
    assert settings.read_text() == THEIRS, "gwconf's rename overwrote the client's write"
    assert not (w.home / ".claude.json").exists(), "Claude Code's other file was put back"
    files = w.files()
    for client in ("codex", "continue"):
        for name in _files_of(w, client):
            assert files.get(name) == w.references["p2"].get(name), f"{name}: not written"
    ledger = Ledger(w.env())
    assert ledger.clients() == ["codex", "continue"]
    assert not (w.state_dir / "journal.json").exists() and not w.litter()
    renames = log.read_text().splitlines()
    assert renames.count(journal) == 2, "the journal is written again without the refused client"
    assert renames.count(f"os.rename {w.state_dir / 'ledger.json'}") == 1, "one commit for the command"
    settings.write_bytes(w.references["S0"][SETTINGS][0])
    assert invoke("restore", "--all").exit_code == 0
    assert w.files() == w.references["S0"]


def test_a_file_the_plan_left_alone_is_checked_too(world: World, tmp_path: Path) -> None:
    """Continue's config.yaml and .env are planned together. When only config.yaml needs a change
    and .env is rewritten before gwconf writes, config.yaml must not be written either: found by
    the 8-process race as config.yaml of one profile next to the .env of another."""
    w = world
    assert invoke("apply", "continue", "-p", "p0").exit_code == 0
    config, dotenv = w.home / ".continue" / "config.yaml", w.home / ".continue" / ".env"
    config.write_text(config.read_text().replace("https://gw0.example.com/v1", "https://hand.example.com/v1"))
    hand_edited = config.read_text()
    theirs = w.references["p5"][".continue/.env"][0]
    outcome = tmp_path / "result.json"
    run_forked(
        ("apply", "continue", "-p", "p0"),
        act_on_open=w.state_dir / "gwconf.lock",
        action=lambda: subprocess.run(
            [sys.executable, "-c", WRITER, str(dotenv), theirs.decode()], check=True
        ),
        result=outcome,
    )
    result = json.loads(outcome.read_text())
    assert result["exit_code"] == 1 and CONCURRENT in result["stderr"], result
    assert config.read_text() == hand_edited, "config.yaml was written next to another profile's .env"
    assert dotenv.read_bytes() == theirs


def test_restore_with_nothing_to_put_back_does_not_forget_a_concurrent_apply(
    world: World, tmp_path: Path
) -> None:
    """``restore`` finding the files already as they were only drops the client from the ledger; if
    another gwconf applied it meanwhile, the ledger must keep that apply (or restore cannot undo it)."""
    w = world
    assert invoke("apply", "claude-code", "-p", "p0").exit_code == 0
    for name in (SETTINGS, ".claude.json"):  # put back by hand: restore will find nothing to do
        original = w.references["S0"].get(name)
        if original is None:
            (w.home / name).unlink()
        else:
            (w.home / name).write_bytes(original[0])
    outcome = tmp_path / "result.json"
    run_forked(
        ("restore", "claude-code"),
        act_on_open=w.state_dir / "gwconf.lock",
        action=lambda: subprocess.run(
            [sys.executable, "-m", "gwconf", "apply", "claude-code", "-p", "p3"],
            check=True,
            capture_output=True,
        ),
        result=outcome,
    )
    assert w.files() == {
        **w.references["S0"],
        **{n: w.references["p3"][n] for n in _files_of(w, "claude-code")},
    }
    assert Ledger(w.env()).profile_of("claude-code") == "p3", "the ledger forgot the apply that holds the key"
    assert invoke("restore", "claude-code").exit_code == 0
    assert w.files() == w.references["S0"]
