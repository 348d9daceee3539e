"""The write path's guarantees: never lose a user's data (issue 2, 'Safety, for every write')."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from gwconf import plan as planning
from gwconf import registry
from gwconf.errors import ConcurrentChange
from gwconf.paths import Env
from gwconf.profiles import ProfileStore
from tests.conftest import TEST_KEY

CLAUDE_SETTINGS = '{\n  "theme": "dark",\n  "env": {\n    "FOO": "1"\n  }\n}\n'


def write(path: Path, data: str | bytes, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(path, mode)
    return path


@pytest.mark.parametrize(
    ("client_id", "relative", "broken", "line"),
    [
        ("codex", ".codex/config.toml", 'model = "x"\n[model_providers\nname = 1\n', 2),
        ("claude-code", ".claude/settings.json", '{\n  "env": {\n    "A": 1,,\n  }\n}\n', 3),
        ("continue", ".continue/config.yaml", "models:\n  - name: a\n   provider: b\n", 3),
        # aliases of aliases: 41 lines, 2**41 values when read whole (the line is where 100,000 pass)
        (
            "continue",
            ".continue/config.yaml",
            "anchors:\n  a0: &a0 [x, y]\n"
            + "".join(f"  a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 40)),
            17,
        ),
    ],
)
def test_malformed_file_is_refused_and_untouched(
    gwconf, home, profile, client_id, relative, broken, line
) -> None:
    path = write(home / relative, broken)
    before = path.read_bytes(), path.stat().st_mtime_ns
    result = gwconf("apply", client_id)
    assert result.exit_code == 1
    assert f"~/{relative}:{line}" in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name], "nothing left behind in the folder"


def test_permissions_kept_and_key_files_private(gwconf, home, profile) -> None:
    config = write(home / ".codex" / "config.toml", 'model = "x"\n', 0o640)
    auth = write(home / ".codex" / "auth.json", '{"OPENAI_API_KEY": "sk-old-0000000000"}\n', 0o644)
    assert gwconf("apply", "codex").exit_code == 0
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600, "a file holding a key ends up 0600"


def test_symlinked_config_is_edited_at_its_target(gwconf, home, profile) -> None:
    real = write(home / "dotfiles" / "claude-settings.json", CLAUDE_SETTINGS)
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    assert gwconf("apply", "claude-code").exit_code == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert json.loads(real.read_text())["env"]["ANTHROPIC_AUTH_TOKEN"] == TEST_KEY
    assert gwconf("restore", "claude-code").exit_code == 0
    assert link.is_symlink() and real.read_text() == CLAUDE_SETTINGS


def test_dangling_symlink_is_refused(gwconf, home, profile) -> None:
    """Issue 8: a symlink to a missing target is a clear error (the dotfiles it points into may
    not be checked out here); nothing is created through it."""
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(home / "dotfiles" / "settings.json")
    result = gwconf("apply", "claude-code")
    assert result.exit_code == 1 and "which does not exist" in result.stderr
    assert link.is_symlink() and not (home / "dotfiles").exists()


def test_symlink_loop_is_a_clear_error(gwconf, home, profile) -> None:
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(link)
    result = gwconf("apply", "claude-code")
    assert result.exit_code == 1 and "settings.json" in result.stderr and "Traceback" not in result.output


def test_crlf_and_bom_survive(gwconf, home, profile) -> None:
    settings = write(home / ".claude" / "settings.json", "\ufeff" + CLAUDE_SETTINGS.replace("\n", "\r\n"))
    toml = write(
        home / ".codex" / "config.toml",
        '\ufeff# mine\r\nmodel = "x"\r\n\r\n[tui]\r\nnotifications = true\r\n',
    )
    assert gwconf("apply", "claude-code", "codex").exit_code == 0
    for path in (settings, toml):
        data = path.read_bytes()
        assert data.startswith(b"\xef\xbb\xbf"), path
        assert data.count(b"\n") == data.count(b"\r\n"), f"{path}: a bare LF crept in"
    assert gwconf("restore", "claude-code", "codex").exit_code == 0
    assert settings.read_bytes() == ("\ufeff" + CLAUDE_SETTINGS.replace("\n", "\r\n")).encode()


def test_apply_twice_keeps_bytes_and_mtime(gwconf, home, profile) -> None:
    assert gwconf("apply", "codex", "claude-code", "continue").exit_code == 0
    files = [p for p in home.rglob("*") if p.is_file()]
    first = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    again = gwconf("apply", "codex", "claude-code", "continue")
    assert again.exit_code == 0 and again.stdout.count("nothing to change") == 3
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == first


def test_backups_pristine_and_timestamped(gwconf, home, profile, tmp_path) -> None:
    write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    assert gwconf("apply", "claude-code").exit_code == 0
    assert gwconf("apply", "claude-code", "--model", "other").exit_code == 0
    backups = tmp_path / "gwconf" / "state" / "backups" / "claude-code"
    pristine = sorted(backups.rglob("pristine"))
    assert [p.read_text() for p in pristine if "settings" in str(p)] == [CLAUDE_SETTINGS]
    stamped = sorted(backups.rglob("*.bak"))
    assert len([p for p in stamped if "settings" in str(p)]) == 2
    for path in [*pristine, *stamped]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert TEST_KEY not in path.name
    assert stat.S_IMODE((tmp_path / "gwconf" / "state").stat().st_mode) == 0o700


def test_restores_keep_the_last_ten_originals_set_aside(gwconf, home, profile, tmp_path) -> None:
    """Each restore sets the pristine copy aside (``.old``) for the next apply's fresh one. Kept
    without end they grew by a set a file at every restore, and every writing command walks the
    folder for stray temp files: the newest ``BACKUPS_KEPT`` sets stay, each whole, the newest
    holding the bytes from before gwconf."""
    settings = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    for _ in range(planning.BACKUPS_KEPT + 3):
        assert gwconf("apply", "claude-code").exit_code == 0
        assert gwconf("restore", "claude-code").exit_code == 0
        assert settings.read_text() == CLAUDE_SETTINGS
    folder = next((tmp_path / "gwconf" / "state" / "backups" / "claude-code").glob("settings.json-*"))
    retired = sorted(p.name for p in folder.glob("*.old"))
    stamps = sorted({name.partition("-")[0] for name in retired})
    assert len(stamps) == planning.BACKUPS_KEPT
    assert {name.partition("-")[2] for name in retired} == {"pristine.old", "meta.json.old"}
    assert len(retired) == 2 * planning.BACKUPS_KEPT
    assert (folder / f"{stamps[-1]}-pristine.old").read_text() == CLAUDE_SETTINGS


@pytest.mark.parametrize("links", [True, False], ids=["hard-linked", "no-hard-links"])
def test_a_first_backup_is_the_pristine_copy_and_later_ones_their_own(
    gwconf, home, profile, tmp_path, monkeypatch, links: bool
) -> None:
    """The first apply's timestamped backup is a second name for the pristine copy (issue 15);
    where the file system has no hard links it is a copy. Either way a later backup is a file of its
    own, the pristine copy keeps the bytes from before gwconf, and restore puts them back."""
    if not links:

        def no_links(*args: object, **kwargs: object) -> None:
            raise OSError(errno.EPERM, "hard links not supported here")

        monkeypatch.setattr(os, "link", no_links)
    settings = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    assert gwconf("apply", "claude-code").exit_code == 0
    folder = next((tmp_path / "gwconf" / "state" / "backups" / "claude-code").glob("settings.json-*"))
    (first,) = folder.glob("*.bak")
    assert first.read_text() == (folder / "pristine").read_text() == CLAUDE_SETTINGS
    assert os.path.samefile(first, folder / "pristine") == links
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    written = settings.read_text()
    assert gwconf("apply", "claude-code", "--model", "other").exit_code == 0
    (second,) = set(folder.glob("*.bak")) - {first}
    assert second.read_text() == written and not os.path.samefile(second, folder / "pristine")
    assert first.read_text() == (folder / "pristine").read_text() == CLAUDE_SETTINGS
    assert gwconf("restore", "claude-code").exit_code == 0
    assert settings.read_text() == CLAUDE_SETTINGS


def test_a_replaced_file_is_kept_as_its_own_backup_and_a_shared_one_is_copied(
    gwconf, home, profile, tmp_path
) -> None:
    """The pristine copy of a file of one name is the replaced file itself, under a second name
    taken before the replace (``fileio.keep_by_link``: nothing copied, written or renamed), and
    0600 once the replace is done. A file with a second name of its own (hard-linked dotfiles)
    is copied: edited through that other name, it must not change the backup."""
    settings = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    os.chmod(settings, 0o644)
    before = settings.stat()
    agents = write(home / ".codex" / "config.toml", 'model = "o3"\n')
    shared = home / "dotfiles" / "codex.toml"
    shared.parent.mkdir()
    os.link(agents, shared)
    assert gwconf("apply", "claude-code", "codex").exit_code == 0
    backups = tmp_path / "gwconf" / "state" / "backups"
    pristine = next((backups / "claude-code").glob("settings.json-*")) / "pristine"
    assert (pristine.stat().st_ino, pristine.stat().st_dev) == (before.st_ino, before.st_dev)
    assert settings.stat().st_ino != before.st_ino and pristine.read_text() == CLAUDE_SETTINGS
    assert stat.S_IMODE(pristine.stat().st_mode) == 0o600
    codex_pristine = next((backups / "codex").glob("config.toml-*")) / "pristine"
    assert not os.path.samefile(codex_pristine, shared) and shared.read_text() == 'model = "o3"\n'
    with open(shared, "r+") as handle:  # the other name, edited in place
        handle.write('model = "o4"\n')
    assert codex_pristine.read_text() == 'model = "o3"\n'
    assert stat.S_IMODE(codex_pristine.stat().st_mode) == 0o600
    assert gwconf("restore", "--all").exit_code == 0
    assert settings.read_text() == CLAUDE_SETTINGS and agents.read_text() == 'model = "o3"\n'
    assert stat.S_IMODE(settings.stat().st_mode) == 0o644


def test_ledger_never_holds_the_key(gwconf, home, profile, tmp_path) -> None:
    write(home / ".codex" / "auth.json", '{"OPENAI_API_KEY": "sk-users-own-key-000000"}\n')
    assert gwconf("apply", "codex", "claude-code", "continue").exit_code == 0
    ledger = (tmp_path / "gwconf" / "state" / "ledger.json").read_text()
    assert TEST_KEY not in ledger and "sk-users-own-key-000000" not in ledger
    assert stat.S_IMODE((tmp_path / "gwconf" / "state" / "ledger.json").stat().st_mode) == 0o600


def test_restore_leaves_hand_edited_keys_and_says_so(gwconf, home, profile) -> None:
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    assert gwconf("apply", "claude-code").exit_code == 0
    data = json.loads(path.read_text())
    data["env"]["ANTHROPIC_MODEL"] = "my-own-choice"
    data["theme"] = "light"
    path.write_text(json.dumps(data, indent=2) + "\n")
    status = json.loads(gwconf("status", "claude-code", "--json").stdout)["clients"][0]
    assert status["changed_by_hand"] == ["~/.claude/settings.json: env.ANTHROPIC_MODEL"]
    result = gwconf("restore", "claude-code")
    assert result.exit_code == 0
    assert "env.ANTHROPIC_MODEL was changed since gwconf wrote it" in result.stderr
    after = json.loads(path.read_text())
    assert after["env"] == {"FOO": "1", "ANTHROPIC_MODEL": "my-own-choice"}
    assert after["theme"] == "light"


def test_compare_and_swap_refuses_a_file_changed_underneath(home, profile) -> None:
    env = Env.current()
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    plan = planning.plan_apply(registry.get("claude-code"), ProfileStore(env).load("work"), env)
    path.write_text('{"theme": "changed by Claude Code"}\n')
    with pytest.raises(ConcurrentChange):
        planning.execute([plan], env)
    assert path.read_text() == '{"theme": "changed by Claude Code"}\n'
    assert not (home / ".claude.json").exists(), "the other file of the change was not written either"


def test_a_ledger_kept_across_writes_sees_another_gwconf_and_a_failed_save(
    gwconf, home, profile, monkeypatch
) -> None:
    """A command writing many clients keeps one ledger and refreshes it before each write
    (issue 15). Another gwconf's write in between is read, not overwritten; and a save that
    failed is never taken for what the file holds."""
    from gwconf.ledger import Ledger

    env = Env.current()
    write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    write(home / ".codex" / "config.toml", 'model = "gpt-5"\n')
    work = ProfileStore(env).load("work")
    ledger = Ledger(env)
    planning.execute([planning.plan_apply(registry.get("claude-code"), work, env)], env, ledger)
    assert gwconf("apply", "continue").exit_code == 0  # another gwconf, between two writes
    planning.execute([planning.plan_apply(registry.get("codex"), work, env)], env, ledger)
    assert Ledger(env).clients() == ["claude-code", "codex", "continue"] == ledger.clients()

    real_open = os.open

    def disk_full_for_the_ledger(path, flags, *args):  # type: ignore[no-untyped-def]
        if ".ledger.json." in os.fspath(path):  # the ledger's temp file: its save fails
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, flags, *args)

    committed = Ledger(env).data
    plan = planning.plan_apply(registry.get("claude-code"), work, env, model="other")
    with monkeypatch.context() as patch:
        patch.setattr(os, "open", disk_full_for_the_ledger)
        with pytest.raises(OSError):
            planning.execute([plan], env, ledger)
    ledger.refresh()  # the file still holds the last commit, not the failed save's data
    assert ledger.data == committed == Ledger(env).data


def test_multi_file_change_lands_whole_or_not_at_all(gwconf, home, profile, monkeypatch) -> None:
    """Codex's change is two files. The second write fails (the disk is full when its temp file
    is opened: an OSError from ``os.open``, injected at fileio's boundary, so the test
    runs as any user and on macOS; it once needed root and ``chattr +i``): the first file,
    already replaced, is rolled back, and no temp file is left."""
    config = write(home / ".codex" / "config.toml", 'model = "x"\n')
    auth = write(home / ".codex" / "auth.json", '{"OPENAI_API_KEY": "sk-old-0000000000"}\n')
    made: list[str] = []
    real_open = os.open

    def open_failing(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        path = Path(path)
        if path.parent == config.parent and path.name.endswith(".gwconf-tmp"):
            made.append(path.name.split(".")[1])  # the target's name: ".auth.json.<pid>-<n>.gwconf-tmp"
            if len(made) == 2:  # the second of the pair
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_failing)
    result = gwconf("apply", "codex")
    assert len(made) == 3, "first file written, second failed, first written back"
    assert made[0] == made[2] != made[1], made
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert config.read_text() == 'model = "x"\n', "config.toml was rolled back"
    assert auth.read_text() == '{"OPENAI_API_KEY": "sk-old-0000000000"}\n'
    assert not list(config.parent.glob("*.gwconf-tmp"))


def test_read_only_file_is_refused(gwconf, home, profile) -> None:
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS, 0o444)
    result = gwconf("apply", "claude-code")
    assert result.exit_code == 1 and "read-only" in result.stderr
    assert path.read_text() == CLAUDE_SETTINGS


def test_directory_where_a_file_should_be(gwconf, home, profile) -> None:
    (home / ".claude" / "settings.json").mkdir(parents=True)
    result = gwconf("apply", "claude-code")
    assert result.exit_code == 1 and "is a folder" in result.stderr


def test_dry_run_and_check_write_nothing(gwconf, home, profile) -> None:
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    dry = gwconf("apply", "claude-code", "--dry-run")
    assert dry.exit_code == 0
    assert '+    "ANTHROPIC_AUTH_TOKEN": "sk-…WXYZ"' in dry.stdout and TEST_KEY not in dry.output
    assert path.read_text() == CLAUDE_SETTINGS and not (home / ".claude.json").exists()
    check = gwconf("apply", "claude-code", "--check")
    assert check.exit_code == 6
    assert gwconf("apply", "claude-code").exit_code == 0
    assert gwconf("apply", "claude-code", "--check").exit_code == 0


def test_use_reapplies_to_clients_applied_before(gwconf, home, profile) -> None:
    assert gwconf("apply", "claude-code", "codex").exit_code == 0
    added = gwconf(
        "profile", "add", "home", "--base-url", "https://other.example.net", "--key", "sk-home-key-99999999"
    )
    assert added.exit_code == 0
    used = gwconf("use", "home")
    assert used.exit_code == 0
    assert "claude-code: re-applied" in used.stdout and "codex: re-applied" in used.stdout
    assert "continue" not in used.stdout
    env = json.loads((home / ".claude" / "settings.json").read_text())["env"]
    assert env["ANTHROPIC_BASE_URL"] == "https://other.example.net"
    assert 'base_url = "https://other.example.net/v1"' in (home / ".codex" / "config.toml").read_text()
    status = json.loads(gwconf("status", "--json").stdout)
    assert status["active_profile"] == "home"
    pointing = {c["id"]: c["profile"] for c in status["clients"] if c["profile"]}
    assert pointing == {"claude-code": "home", "codex": "home"}
    # restore after two profiles still gives back the pre-gwconf state
    assert gwconf("restore", "--all").exit_code == 0
    assert [p for p in home.rglob("*") if p.is_file()] == []


def test_use_no_apply_only_switches(gwconf, home, profile) -> None:
    assert gwconf("apply", "claude-code").exit_code == 0
    gwconf(
        "profile", "add", "home", "--base-url", "https://other.example.net", "--key", "sk-home-key-99999999"
    )
    before = (home / ".claude" / "settings.json").read_bytes()
    assert gwconf("use", "home", "--no-apply").exit_code == 0
    assert (home / ".claude" / "settings.json").read_bytes() == before


def test_interrupted_run_is_repaired(gwconf, home, profile, tmp_path) -> None:
    """A journal left by a killed run: the next writing command puts the old bytes back."""
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    backup = write(tmp_path / "gwconf" / "state" / "backups" / "x.bak", CLAUDE_SETTINGS)
    path.write_text('{"half": "written"}\n')
    journal = {
        "client": "claude-code",
        "files": [
            {
                "target": str(path),
                "backup": str(backup),
                "new_sha256": hashlib.sha256(b'{"half": "written"}\n').hexdigest(),  # what it wrote
                "mode": 0o644,
                "secret": False,
            }
        ],
    }
    write(tmp_path / "gwconf" / "state" / "journal.json", json.dumps(journal))
    result = gwconf("apply", "codex")
    assert result.exit_code == 0
    assert "interrupted" in result.stderr
    assert path.read_text() == CLAUDE_SETTINGS
    assert not (tmp_path / "gwconf" / "state" / "journal.json").exists()


def test_a_killed_runs_temp_file_goes_whatever_its_target_is_named(gwconf, home, profile, tmp_path) -> None:
    """The temp file a killed run left beside a file named like a glob pattern (a symlink's
    target in a dotfiles folder: ``settings[work].json``) goes with the journal's repair: the
    name was put into a glob pattern, whose ``[work]`` matched one letter, and it stayed."""
    target = write(home / "dotfiles" / "settings[work].json", CLAUDE_SETTINGS)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").symlink_to(target)
    stray = write(target.parent / f".{target.name}.4242-0.gwconf-tmp", '{"half"')
    journal = {
        "client": "claude-code",
        "files": [
            {
                "target": str(target),
                "backup": None,
                "new_sha256": hashlib.sha256(b"never written").hexdigest(),
                "mode": 0o644,
                "secret": False,
            }
        ],
    }
    write(tmp_path / "gwconf" / "state" / "journal.json", json.dumps(journal))
    result = gwconf("apply", "codex")
    assert result.exit_code == 0, result
    assert not stray.exists()
    assert target.read_text() == CLAUDE_SETTINGS  # the run never replaced it: left as it was


@pytest.mark.parametrize("source", ["ledger", "meta.json", "pristine.mode"])
def test_restore_gives_back_the_original_mode(gwconf, home, profile, tmp_path, source: str) -> None:
    """A key file is made 0600 while it holds the key; restore puts the user's mode back. The mode
    from before gwconf is in the ledger's record of the file (``pristine_mode``) and its backup
    folder's meta.json (for a restore over a damaged ledger), not in a file of its own (issue 15);
    a folder from an earlier gwconf, whose copy has a ``pristine.mode`` file beside it and whose
    records have no ``pristine_mode``, still gets its mode back."""
    path = write(home / ".claude" / "settings.json", CLAUDE_SETTINGS, 0o644)
    assert gwconf("apply", "claude-code").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    state = tmp_path / "gwconf" / "state"
    ledger = state / "ledger.json"
    [folder] = (state / "backups" / "claude-code").glob("settings.json-*")
    assert not (folder / "pristine.mode").exists()
    data = json.loads(ledger.read_text())
    record = data["clients"]["claude-code"]["files"][str(path)]
    meta = json.loads((folder / "meta.json").read_text())
    assert record["pristine_mode"] == meta["pristine_mode"] == 0o644
    if source == "meta.json":
        ledger.write_text('{"version": 2, "clients": [')  # damaged: restore from the backups
    elif source == "pristine.mode":
        del record["pristine_mode"], meta["pristine_mode"]
        ledger.write_text(json.dumps(data))
        (folder / "meta.json").write_text(json.dumps(meta))
        (folder / "pristine.mode").write_text("640\n")
    restored = gwconf("restore", "--all" if source == "meta.json" else "claude-code")
    assert restored.exit_code == 0, restored
    mode = 0o640 if source == "pristine.mode" else 0o644
    assert stat.S_IMODE(path.stat().st_mode) == mode and path.read_text() == CLAUDE_SETTINGS


def test_apply_all_skips_clients_with_nothing_to_configure(gwconf, home, profile) -> None:
    """The README's main job: --all-supported --dry-run on a bare home succeeds; server apps without
    their folder are skipped with how to include them, while naming such a client is still an error."""
    result = gwconf("apply", "--all-supported", "--dry-run")
    assert result.exit_code == 0, result
    assert "skipped: no LibreChat folder found" in result.stdout and "LIBRECHAT_DIR" in result.stdout
    assert "Skipped (nothing here to configure yet): " in result.stdout
    data = json.loads(gwconf("apply", "--all-supported", "--dry-run", "--json").stdout)
    skipped = {c["id"] for c in data["clients"] if c["skipped"]}
    assert {"librechat", "open-webui", "lobechat", "anythingllm", "chatbox"} <= skipped
    named = gwconf("apply", "librechat", "--dry-run")
    assert named.exit_code == 1 and "LIBRECHAT_DIR" in named.stderr


def test_clients_that_share_a_file_are_applied_together_and_restored_apart(gwconf, home, profile) -> None:
    """Roo Code and Kilo Code both edit VS Code's settings.json: the second is planned again on
    the first's result instead of failing its compare-and-swap (found by bench/apply.py)."""
    import shutil

    fixtures = Path(__file__).parent / "fixtures"
    for source in (
        fixtures / "kilo" / "jsonc-with-extension" / "before",
        fixtures / "roo-code" / "vscode-settings" / "before",
    ):
        shutil.copytree(source, home, dirs_exist_ok=True)
    settings = home / ".config" / "Code" / "User" / "settings.json"
    original = settings.read_bytes()
    result = gwconf("apply", "kilo", "roo-code")
    assert result.exit_code == 0, result.output
    text = settings.read_text()
    assert "kilo-code.new.model" in text and "roo-cline.autoImportSettingsPath" in text
    assert gwconf("restore", "roo-code").exit_code == 0
    text = settings.read_text()
    assert '"roo-cline.autoImportSettingsPath": "~/old-roo.json"' in text  # the user's own value back
    assert "kilo-code.new.model" in text
    assert gwconf("restore", "kilo").exit_code == 0
    assert settings.read_bytes() == original


def test_stray_temp_files_are_swept_once_per_writing_command(gwconf, home, profile, tmp_path) -> None:
    """A killed run's temp files (no journal) go with the next apply or restore of several clients;
    the later clients of that command skip the walk, unless they meet a killed run's journal."""
    state = tmp_path / "gwconf" / "state"
    write(home / ".claude" / "settings.json", CLAUDE_SETTINGS)
    stray = write(state / "backups" / "codex" / "x" / ".ledger.json.1.gwconf-tmp", "half")
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    assert not stray.exists()
    write(stray, "half")
    assert gwconf("restore", "--all").exit_code == 0
    assert not stray.exists()
    write(stray, "half")  # found by use's check for an interrupted run, with no client to write
    assert gwconf("use", profile).exit_code == 0
    assert not stray.exists()

    env = Env(home=home, platform="linux", environ=dict(os.environ), cwd=tmp_path)
    write(stray, "half")
    assert planning.repair(env, sweep=False) == []
    assert stray.exists()  # no killed run here: the command's first client swept already
    write(state / "journal.json", "{not json")  # a killed run: its temp files go whatever sweep says
    assert planning.repair(env, sweep=False) == ["removed a damaged journal"]
    assert not stray.exists()
