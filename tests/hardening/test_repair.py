"""What the next gwconf run does with a run that was killed (the quick cases of test_crash.py).

A forked gwconf is killed with SIGKILL just before it replaces ``~/.codex/auth.json``: by then
``config.toml`` is already the new file, a temp file sits next to ``auth.json`` and the journal
says what to undo.
"""

from __future__ import annotations

import json
import os
import signal
import stat
from pathlib import Path

import pytest

from gwconf import plan as planning
from tests.conftest import invoke
from tests.hardening._world import SEED, TMP_SUFFIX, USERS_OWN_KEY, World, run_forked


@pytest.fixture(params=["in the journal", "in copy files", "in an earlier journal"])
def killed(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """The new bytes the journal keeps to finish the run: small files' inside it, big files' in
    copy files of their own (here every file's, by lowering the size between them), or, as gwconf
    wrote journals before the seventeenth round, as text inside its JSON (a run killed by one
    release is repaired by the next)."""
    if request.param == "in copy files":
        monkeypatch.setattr(planning, "_IN_JOURNAL", 0)
    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    w.add_profiles()
    watch = (str(w.home), str(w.gw))
    log = tmp_path / "ops.log"
    w.save("S0")
    assert os.WEXITSTATUS(run_forked(("apply", "codex"), watch=watch, log=log)) == 0
    ops = log.read_text().splitlines()
    kill_at = ops.index(f"os.rename {w.home}/.codex/auth.json") + 1
    w.load("S0")
    status = run_forked(("apply", "codex"), kill_at=kill_at, watch=watch)
    assert os.WTERMSIG(status) == signal.SIGKILL
    config = (w.home / ".codex" / "config.toml").read_text()
    assert config != SEED[".codex/config.toml"][0], "config.toml is already the new file"
    assert (w.home / ".codex" / "auth.json").read_text() == SEED[".codex/auth.json"][0]
    assert list((w.home / ".codex").glob("*.gwconf-tmp")), "a temp file was left next to auth.json"
    copies = list(w.state_dir.glob("journal.pending-*"))
    assert len(copies) == (2 if request.param == "in copy files" else 0), copies
    if request.param == "in an earlier journal":
        journal = w.state_dir / "journal.json"
        line, _, held = journal.read_bytes().partition(b"\n")
        earlier = json.loads(line)
        for entry in earlier["files"]:
            entry.pop("old_sha256")  # (the hash of the bytes read came with the linked backups)
            start, length = entry.pop("new_at") or (0, -1)
            entry["new_text"] = (
                held[start : start + length].decode("utf-8", "surrogateescape") if length >= 0 else None
            )
        journal.write_text(json.dumps(earlier))
    return w


def test_status_reports_the_half_done_change(killed: World) -> None:
    w = killed
    before = w.files()
    result = invoke("status", "codex")
    assert result.exit_code == 0 and "interrupted gwconf run left a change half-done" in result.stderr
    assert json.loads(invoke("status", "--json").stdout)["interrupted_run"] is True
    assert w.files() == before, "status only reports"


def test_next_run_puts_the_pair_back_and_removes_the_temp_file(killed: World) -> None:
    w = killed
    result = invoke("restore", "--all")
    assert result.exit_code == 0, result
    assert "put back" in result.stderr and "interrupted" in result.stderr
    for name in (".codex/config.toml", ".codex/auth.json"):
        assert (w.home / name).read_text() == SEED[name][0]
    assert sorted(p.name for p in (w.home / ".codex").iterdir()) == ["auth.json", "config.toml"]
    assert not w.litter() and not (w.state_dir / "journal.json").exists()


def test_a_client_write_after_the_crash_never_leaves_codex_half_restored(killed: World) -> None:
    """Issue 18 item 11: Codex rewrote config.toml (gwconf's provider in it) after the crash, so it
    cannot go back; auth.json must not go back alone either (Codex would send the user's own
    OpenAI key to the gateway). The run is finished instead, and one restore undoes both files,
    keeping what Codex wrote."""
    w = killed
    config = w.home / ".codex" / "config.toml"
    auth = w.home / ".codex" / "auth.json"
    theirs = config.read_text() + "# written by codex after the crash\n"
    config.write_text(theirs)
    result = invoke("apply", "codex", "--dry-run")
    assert result.exit_code == 0 and config.read_text() == theirs, "a dry run repairs nothing"
    result = invoke("status", "--json")
    assert result.exit_code == 0
    result = invoke("restore", "--all")
    assert result.exit_code == 0, result
    assert "changed by another program after an interrupted gwconf run" in result.stderr
    assert "finished" in result.stderr, "the other file was completed to match, not put back alone"
    assert auth.read_text() == SEED[".codex/auth.json"][0], "auth.json holds the user's key again"
    assert config.read_text() == SEED[".codex/config.toml"][0] + "# written by codex after the crash\n"
    assert not (w.state_dir / "journal.json").exists()


def test_a_file_the_killed_run_had_not_replaced_keeps_what_was_written_into_it(
    killed: World, request: pytest.FixtureRequest
) -> None:
    """auth.json's backups are second names of the live file until the run replaces it
    (``fileio.keep_by_link``), and this run was killed first. A program then rewrites auth.json in
    place, so its backups read the new bytes too, and Codex rewrites config.toml: the repair
    finishes the run, and must see that auth.json is not as the run read it (by the journal's
    hash, not by the backup) and keep it, as it keeps config.toml. Judged by the backup, the
    run's new bytes went over what was written."""
    if request.node.callspec.params["killed"] == "in an earlier journal":
        pytest.skip("an earlier gwconf copied its backups; its journal has no hash of the bytes read")
    w = killed
    auth = w.home / ".codex" / "auth.json"
    config = w.home / ".codex" / "config.toml"
    folder = next((w.state_dir / "backups" / "codex").glob("auth.json-*"))
    assert os.path.samefile(folder / "pristine", auth), "the backup is a second name of the live file"
    written = '{\n  "OPENAI_API_KEY": "' + USERS_OWN_KEY + '",\n  "note": "written in place"\n}\n'
    with open(auth, "r+") as handle:  # in place: the same file, so the same bytes under its backups
        handle.write(written)
    assert (folder / "pristine").read_text() == written
    config.write_text(config.read_text() + "# written by codex after the crash\n")
    result = invoke("restore", "--all")
    assert result.exit_code == 0, result
    assert f"{auth}: changed by another program after an interrupted gwconf run" in result.stderr
    assert auth.read_text() == written
    assert not (w.state_dir / "journal.json").exists() and not w.litter()


def test_a_run_killed_after_its_commit_leaves_its_backups_private(tmp_path: Path, monkeypatch) -> None:
    """A backup kept as a second name of the file it replaced has the file's mode (0644 here)
    until the clean-up after the commit makes it 0600. Killed just before that, the next run's
    repair finishes the clean-up: the copy is 0600, and the file gwconf wrote keeps its own mode."""
    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    w.add_profiles()
    settings = w.home / ".claude" / "settings.json"
    os.chmod(settings, 0o644)
    watch = (str(w.home), str(w.gw))
    events = ("os.rename", "os.remove", "os.chmod")
    log = tmp_path / "ops.log"
    w.save("S0")
    assert os.WEXITSTATUS(run_forked(("apply", "claude-code"), watch=watch, log=log, events=events)) == 0
    ops = log.read_text().splitlines()
    committed = ops.index(f"os.rename {w.state_dir}/ledger.json")
    pristine = next(i for i, op in enumerate(ops) if op.startswith("os.chmod") and op.endswith("/pristine"))
    assert pristine > committed, "the copy is made private after the commit"
    w.load("S0")
    status = run_forked(("apply", "claude-code"), kill_at=pristine + 1, watch=watch, events=events)
    assert os.WTERMSIG(status) == signal.SIGKILL
    (copy,) = (w.state_dir / "backups" / "claude-code").glob("settings.json-*/pristine")
    assert stat.S_IMODE(copy.stat().st_mode) == 0o644 and (w.state_dir / "journal.json").exists()
    assert copy.read_text() == SEED[".claude/settings.json"][0]
    written = stat.S_IMODE(settings.stat().st_mode)  # 0600: it holds the key now
    assert invoke("apply", "claude-code").exit_code == 0  # its repair first; then nothing to change
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600 and not (w.state_dir / "journal.json").exists()
    assert copy.read_text() == SEED[".claude/settings.json"][0]
    assert stat.S_IMODE(settings.stat().st_mode) == written


def test_after_the_repair_both_codex_files_agree(killed: World) -> None:
    """The finished run: config.toml and auth.json both point at the gateway, and the ledger owns both."""
    w = killed
    config = w.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "# written by codex after the crash\n")
    assert invoke("apply", "codex").exit_code == 0
    auth = (w.home / ".codex" / "auth.json").read_text()
    assert "gwconf" in config.read_text() and USERS_OWN_KEY not in auth
    assert invoke("restore", "codex").exit_code == 0
    assert (w.home / ".codex" / "auth.json").read_text() == SEED[".codex/auth.json"][0]
    assert 'model_provider = "gwconf"' not in config.read_text()


def test_an_edit_after_the_crash_survives_the_next_apply_and_restore(killed: World) -> None:
    """The killed run had taken a pristine copy; it never committed, so that copy is not trusted:
    restore gives back the file as the user left it, not as it was before the crash."""
    w = killed
    assert invoke("restore", "--all").exit_code == 0  # the repair
    config = w.home / ".codex" / "config.toml"
    edited = config.read_text() + "\n[history]\npersistence = 'none'\n"
    config.write_text(edited)
    assert invoke("apply", "codex").exit_code == 0
    assert invoke("restore", "codex").exit_code == 0
    assert config.read_text() == edited


def test_a_damaged_copy_of_the_new_bytes_is_never_written(killed: World) -> None:
    """The journal's copy of auth.json's new bytes no longer matches their hash (damaged on disk):
    the run cannot be finished with it, so it is undone where it can be, and the damaged bytes
    reach no client file."""
    w = killed
    config = w.home / ".codex" / "config.toml"
    theirs = config.read_text() + "# written by codex after the crash\n"
    config.write_text(theirs)
    journal_path = w.state_dir / "journal.json"
    line, _, held = journal_path.read_bytes().partition(b"\n")  # the JSON line, then the new bytes
    journal = json.loads(line)
    (entry,) = [e for e in journal["files"] if e["target"].endswith("auth.json")]
    damaged = b'{"OPENAI_API_KEY": "sk-damaged"}\n'
    if entry.get("new_text") is not None:  # a journal before the seventeenth round's
        entry["new_text"] = damaged.decode()
        journal_path.write_text(json.dumps(journal))
    elif entry["new_at"] is not None:  # the same length, other bytes: only their hash tells
        start, length = entry["new_at"]
        assert length >= len(damaged)
        held = held[:start] + damaged.ljust(length) + held[start + length :]
        journal_path.write_bytes(line + b"\n" + held)
    else:
        Path(entry["new_copy"]).write_bytes(damaged)
    result = invoke("restore", "--all")
    assert "Traceback" not in result.output
    assert "sk-damaged" not in (w.home / ".codex" / "auth.json").read_text()
    assert (w.home / ".codex" / "auth.json").read_text() == SEED[".codex/auth.json"][0]
    assert config.read_text() == theirs, "a file another program wrote is left as it is"
    assert "changed by another program after an interrupted gwconf run; left as it is" in result.stderr
    assert not journal_path.exists() and not w.litter()


@pytest.mark.parametrize("left", ["a temp file in a backup folder", "a copy of new bytes", "both"])
@pytest.mark.parametrize("command", [("apply", "claude-code"), ("use", "b"), ("restore", "--all")])
def test_leftovers_without_a_journal_go_at_the_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], left: str
) -> None:
    """A run killed after its journal was removed, or while writing it, leaves no journal but may
    leave temp files deep in a backup folder, or copies of big files' new bytes
    (``journal.pending-N``). The next writing command looks for them before it starts, and its
    writes do not walk the backups again: so that look must see either alone."""
    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    w.add_profiles()
    assert invoke("use", "a").exit_code == 0 and invoke("apply", "claude-code").exit_code == 0
    (folder,) = (w.state_dir / "backups" / "claude-code").glob("settings.json-*")
    planted = []
    if left != "a copy of new bytes":
        planted.append(folder / f".meta.json.4242-1{TMP_SUFFIX}")
    if left != "a temp file in a backup folder":
        planted.append(w.state_dir / f"{planning.PENDING_COPY}0")
    for path in planted:
        path.write_text("left by a killed run")
    assert not (w.state_dir / "journal.json").exists()
    result = invoke(*command)
    assert result.exit_code == 0, result
    assert not any(path.exists() for path in planted)
    assert not w.litter()
