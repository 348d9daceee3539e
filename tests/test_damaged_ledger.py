"""A damaged ledger: apply and use refuse to write while a client gwconf wrote still needs it, and
restore is the way out (it sets the damaged file aside once no client needs it), through the real
commands in a temporary HOME."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
from pathlib import Path

from tests.conftest import TEST_KEY
from tests.hardening._world import run_forked

GARBAGE = '{"version": 2, "clients": ['
CODEX = '# mine\nmodel = "gpt-5"\nsandbox_mode = "workspace-write"\n'
CLAUDE = '{\n  "theme": "dark"\n}\n'


def _seed(home: Path) -> tuple[Path, Path]:
    config, settings = home / ".codex" / "config.toml", home / ".claude" / "settings.json"
    for path, text in ((config, CODEX), (settings, CLAUDE)):
        path.parent.mkdir()
        path.write_text(text)
    return config, settings


def _state(tmp_path: Path) -> Path:
    return tmp_path / "gwconf" / "state"


def _aside(tmp_path: Path) -> list[Path]:
    return sorted(_state(tmp_path).glob("ledger.damaged-*.json"))


def test_apply_is_refused_until_restore_all_sets_the_ledger_aside(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """apply; the ledger is damaged; apply (another model) and apply of a client never written are
    refused, naming the damaged file and the way out, nothing written; restore --all restores from
    the backups and sets the ledger aside; apply works again and a later restore gives back the
    user's original bytes (not gwconf's values taken for the user's)."""
    config, settings = _seed(home)
    other = ("profile", "add", "other", "--base-url", "https://other.example.com/v1", "--key-stdin")
    assert gwconf(*other, input="sk-other-0123456789abcdefQRST\n").exit_code == 0
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    ledger = _state(tmp_path) / "ledger.json"
    ledger.write_text(GARBAGE)
    applied = (config.read_bytes(), settings.read_bytes())
    for args in (("apply", "codex", "--model", "other-model"), ("apply", "aider"), ("use", "other")):
        refused = gwconf(*args)
        assert refused.exit_code == 1, (args, refused)
        assert str(ledger) in refused.stderr and "gwconf restore --all" in refused.stderr, refused
        assert "claude-code, codex" in refused.stderr, refused
        assert (config.read_bytes(), settings.read_bytes()) == applied, args
        assert not (home / ".aider.conf.yml").exists()
        assert ledger.read_text() == GARBAGE and not _aside(tmp_path), "a refused apply moved the ledger"
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert config.read_text() == CODEX and settings.read_text() == CLAUDE
    [aside] = _aside(tmp_path)
    assert aside.read_text() == GARBAGE, "the damaged ledger is kept for the user"
    assert str(aside) in restored.stderr, restored
    assert not ledger.exists() or json.loads(ledger.read_text())["clients"] == {}
    again = gwconf("apply", "codex", "--model", "other-model")
    assert again.exit_code == 0, again
    assert "other-model" in config.read_text()
    assert gwconf("restore", "codex").exit_code == 0
    assert config.read_text() == CODEX


def test_restore_all_that_can_write_nothing_still_sets_the_ledger_aside(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """The way out the first attempt lacked: every file changed since gwconf wrote it, so restore
    --all over the damaged ledger writes nothing (it names each file and where its bytes from
    before gwconf are), yet sets the damaged ledger aside: apply is not refused forever."""
    config, _ = _seed(home)
    assert gwconf("apply", "codex").exit_code == 0
    config.write_text(config.read_text() + "# edited since\n")
    (_state(tmp_path) / "ledger.json").write_text(GARBAGE)
    assert gwconf("apply", "codex", "--model", "other-model").exit_code == 1
    edited = config.read_bytes()
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert config.read_bytes() == edited and "left as it is" in restored.stderr, restored
    [aside] = _aside(tmp_path)
    assert str(aside) in restored.stderr, restored
    again = gwconf("apply", "codex", "--model", "other-model")
    assert again.exit_code == 0, again
    assert "other-model" in config.read_text() and "# edited since" in config.read_text()
    restored_json = gwconf("restore", "--all", "--json")
    assert json.loads(restored_json.stdout)["ledger_set_aside"] is None  # a clean ledger: nothing aside


def test_named_restores_set_the_ledger_aside_once_no_client_needs_it(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """restore CLIENT over a damaged ledger restores that client from its backups; the ledger
    stays (apply still refused) while another client gwconf wrote is in the backups, and goes
    aside with the last one."""
    config, settings = _seed(home)
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    ledger = _state(tmp_path) / "ledger.json"
    ledger.write_text(GARBAGE)
    first = gwconf("restore", "codex")
    assert first.exit_code == 0, first
    assert config.read_text() == CODEX and TEST_KEY in settings.read_text()
    assert ledger.read_text() == GARBAGE and not _aside(tmp_path), first
    refused = gwconf("apply", "codex")
    assert (
        refused.exit_code == 1
        and "claude-code" in refused.stderr
        and "codex" not in refused.stderr.split("wrote")[1].split("before")[0]
    ), refused
    assert config.read_text() == CODEX
    second = gwconf("restore", "claude-code", "--json")
    assert second.exit_code == 0, second
    [aside] = _aside(tmp_path)
    assert json.loads(second.stdout)["ledger_set_aside"] == str(aside)
    assert settings.read_text() == CLAUDE
    assert gwconf("apply", "codex").exit_code == 0
    assert gwconf("restore", "codex").exit_code == 0
    assert config.read_text() == CODEX


def _written(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("written-*"))


def test_a_backup_folder_names_gwconfs_last_write_and_keeps_its_meta_json(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """meta.json is written whole with the pristine copy and left alone after: gwconf's later
    writes go into the name of an empty file beside it, renamed at each write (issue 15: no
    meta.json written and fsynced a file at each ``use``). Read back over a damaged ledger, the
    name decides: the bytes from before gwconf go back when the file is still gwconf's last
    write and nothing else wrote it between gwconf's writes; after another writer they do not."""
    config, settings = _seed(home)
    other = ("profile", "add", "other", "--base-url", "https://other.example.com/v1", "--key-stdin")
    assert gwconf(*other, input="sk-other-0123456789abcdefQRST\n").exit_code == 0

    def digest() -> str:
        return hashlib.sha256(settings.read_bytes()).hexdigest()

    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    [folder] = (_state(tmp_path) / "backups" / "claude-code").glob("settings.json-*")
    meta = folder / "meta.json"
    first = meta.stat()
    assert json.loads(meta.read_text())["written_sha256"] == digest() and not _written(folder)
    assert gwconf("use", "other").exit_code == 0
    assert _written(folder) == [f"written-gwconf-{digest()}"]
    settings.write_text(settings.read_text().replace('"theme": "dark"', '"theme": "light"'))
    assert gwconf("use", profile).exit_code == 0  # gwconf writes over the user's write: shared
    assert _written(folder) == [f"written-shared-{digest()}"]
    assert (meta.stat().st_ino, meta.stat().st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    ledger = _state(tmp_path) / "ledger.json"
    ledger.write_text(GARBAGE)
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert '"theme": "light"' in settings.read_text(), "the user's write between gwconf's was kept"
    assert "changed since gwconf wrote it" in restored.output, restored
    assert config.read_text() == CODEX


def test_a_restore_takes_away_the_name_of_gwconfs_last_write(gwconf, home: Path, profile, tmp_path) -> None:
    """After a restore the name of gwconf's last write is gone with the write it named, and the
    next apply starts the folder again with a whole meta.json: a name left behind would tell a
    later restore over a damaged ledger that an old write is still the file's."""
    _, settings = _seed(home)
    other = ("profile", "add", "other", "--base-url", "https://other.example.com/v1", "--key-stdin")
    assert gwconf(*other, input="sk-other-0123456789abcdefQRST\n").exit_code == 0
    assert gwconf("apply", "claude-code").exit_code == 0
    assert gwconf("use", "other").exit_code == 0
    [folder] = (_state(tmp_path) / "backups" / "claude-code").glob("settings.json-*")
    assert len(_written(folder)) == 1
    assert gwconf("restore", "claude-code").exit_code == 0
    assert settings.read_text() == CLAUDE and not _written(folder)
    assert gwconf("apply", "claude-code").exit_code == 0
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["written_sha256"] == hashlib.sha256(settings.read_bytes()).hexdigest() and not _written(
        folder
    )


def test_a_backup_folder_of_an_earlier_gwconf_still_restores_over_a_damaged_ledger(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """Earlier gwconf kept the mode from before it in a ``pristine.mode`` file beside the copy,
    and neither the ledger nor meta.json held it: written over by this gwconf, then restored over
    a damaged ledger, that folder still gives back the bytes and the mode."""
    _, settings = _seed(home)
    settings.chmod(0o640)
    other = ("profile", "add", "other", "--base-url", "https://other.example.com/v1", "--key-stdin")
    assert gwconf(*other, input="sk-other-0123456789abcdefQRST\n").exit_code == 0
    assert gwconf("apply", "claude-code").exit_code == 0
    [folder] = (_state(tmp_path) / "backups" / "claude-code").glob("settings.json-*")
    ledger = _state(tmp_path) / "ledger.json"
    data = json.loads(ledger.read_text())
    del data["clients"]["claude-code"]["files"][str(settings)]["pristine_mode"]
    ledger.write_text(json.dumps(data))
    meta = json.loads((folder / "meta.json").read_text())
    del meta["pristine_mode"]
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "pristine.mode").write_text("640\n")
    assert gwconf("use", "other").exit_code == 0
    ledger.write_text(GARBAGE)
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert settings.read_text() == CLAUDE and stat.S_IMODE(settings.stat().st_mode) == 0o640


def test_apply_over_a_damaged_ledger_with_no_client_in_the_backups_sets_it_aside(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """Nothing gwconf wrote can be mistaken for the user's: the apply goes ahead and says where
    the damaged ledger went."""
    config, _ = _seed(home)
    state = _state(tmp_path)
    state.mkdir(parents=True, exist_ok=True)
    (state / "ledger.json").write_text(GARBAGE)
    result = gwconf("apply", "codex")
    assert result.exit_code == 0, result
    [aside] = _aside(tmp_path)
    assert aside.read_text() == GARBAGE and str(aside) in result.output, result
    assert gwconf("restore", "codex").exit_code == 0
    assert config.read_text() == CODEX


def test_a_killed_restore_over_a_damaged_ledger_never_leaves_codex_half_restored(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """restore codex over a damaged ledger, SIGKILLed before each of its renames and unlinks, then
    restore --all. The repair used to read the damaged ledger (empty) as the restore's committed
    one and retire every pristine copy, even of a file not yet put back: config.toml stayed on the
    gateway beside the user's own key in auth.json. Undone instead, the next restore does it all."""
    config, auth = home / ".codex" / "config.toml", home / ".codex" / "auth.json"
    config.parent.mkdir()
    state = _state(tmp_path)
    watch = (str(home), str(tmp_path / "gwconf"))
    originals = (CODEX.encode(), b'{\n  "OPENAI_API_KEY": "sk-users-own-codex-00000000000000"\n}\n')

    def damaged_after_apply() -> None:
        shutil.rmtree(state, ignore_errors=True)
        config.write_bytes(originals[0])
        auth.write_bytes(originals[1])
        assert gwconf("apply", "codex").exit_code == 0
        (state / "ledger.json").write_text(GARBAGE)

    damaged_after_apply()
    log = tmp_path / "ops.log"
    assert os.WEXITSTATUS(run_forked(("restore", "codex"), watch=watch, log=log)) == 0
    count = len(log.read_text().splitlines())
    assert count >= 2, log.read_text()
    for kill_at in range(1, count + 1):
        damaged_after_apply()
        status = run_forked(("restore", "codex"), kill_at=kill_at, watch=watch)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        result = gwconf("restore", "--all")
        assert result.exit_code == 0, (kill_at, result)
        assert (config.read_bytes(), auth.read_bytes()) == originals, (kill_at, result)
        assert TEST_KEY not in config.read_text() + auth.read_text()


def test_restore_all_keeps_the_damaged_ledger_while_a_client_fails(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """A client restore --all could not process (its file does not parse) may do better once the
    user fixes it: the damaged ledger stays, and apply stays refused, until a restore --all gets
    through every client."""
    config, _ = _seed(home)
    assert gwconf("apply", "codex").exit_code == 0
    ledger = _state(tmp_path) / "ledger.json"
    ledger.write_text(GARBAGE)
    good = config.read_text()
    config.write_text(good + "[broken\n")
    failed = gwconf("restore", "--all")
    assert failed.exit_code == 1 and "config.toml" in failed.stderr, failed
    assert ledger.read_text() == GARBAGE and not _aside(tmp_path), failed
    assert "kept in place" in failed.stderr, failed
    refused = gwconf("apply", "claude-code")
    assert refused.exit_code == 1 and "gwconf restore --all" in refused.stderr, refused
    config.write_text(good)  # fixed: gwconf's last write again, so the backups can restore it
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert config.read_text() == CODEX and len(_aside(tmp_path)) == 1


# -- a missing ledger ------------------------------------------------------------------------------


def test_a_missing_ledger_restores_from_the_backups(gwconf, home: Path, profile, tmp_path) -> None:
    """apply codex and claude-code; the ledger file is deleted (by hand, or a tool that cleans state
    folders); restore --all. Restore said "gwconf has not written any client's files" and left
    gwconf's values in place: it gives back the bytes from before gwconf, from the backups that
    still say gwconf's write is in place, and says the ledger is missing."""
    config, settings = _seed(home)
    auth = home / ".codex" / "auth.json"
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    ledger = _state(tmp_path) / "ledger.json"
    ledger.unlink()
    preview = gwconf("restore", "--all", "--dry-run")
    assert preview.exit_code == 0 and "-model_provider" in preview.stdout.replace(" ", ""), preview
    assert TEST_KEY not in preview.output and not ledger.exists()
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert f"{ledger} is missing: restoring from the backups" in restored.stderr
    assert config.read_text() == CODEX and not auth.exists() and settings.read_text() == CLAUDE
    again = gwconf("restore", "--all")  # the backups retired: nothing left to do, nothing said
    assert "Nothing to restore" in again.stdout and "missing" not in again.stderr, again


def test_an_empty_ledger_is_damaged_not_a_ledger_of_nothing(gwconf, home: Path, profile, tmp_path) -> None:
    """A ledger cut to 0 bytes (a crash, a full disk) read as "gwconf wrote nothing": restore said
    so and left the key in every file, and the next apply took gwconf's own values for the
    user's (the filesystem sweep). gwconf never writes an empty ledger: it is damaged."""
    config, settings = _seed(home)
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    ledger = _state(tmp_path) / "ledger.json"
    ledger.write_bytes(b"")
    status = gwconf("status", "codex")
    assert "damaged (empty: cut short?)" in status.output, status
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0 and "damaged (empty: cut short?)" in restored.stderr, restored
    assert config.read_text() == CODEX and settings.read_text() == CLAUDE
    assert len(_aside(tmp_path)) == 1


def test_a_named_restore_over_a_missing_ledger_names_the_clients_it_leaves(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """A named restore from the backups starts a new ledger file, after which the backups are
    history: it says which other clients the backups name and that restore --all takes them all.
    A restore killed after its commit and run again must do what it did unkilled, so the test is
    the ledger file, not whether it names a client."""
    config, settings = _seed(home)
    assert gwconf("apply", "codex", "claude-code").exit_code == 0
    (_state(tmp_path) / "ledger.json").unlink()
    restored = gwconf("restore", "codex")
    assert restored.exit_code == 0, restored
    assert config.read_text() == CODEX
    assert "the backups also say gwconf wrote claude-code" in restored.stderr, restored
    assert "gwconf restore --all" in restored.stderr
    applied = settings.read_text()
    later = gwconf("restore", "claude-code")
    assert "nothing to restore" in later.stdout and settings.read_text() == applied, later


def test_a_missing_ledger_leaves_a_file_changed_since_and_its_client_whole(
    gwconf, home: Path, profile, tmp_path
) -> None:
    """Without the ledger gwconf cannot tell its keys from the user's edits: a file changed since
    gwconf wrote it is left as it is and named with where its bytes from before gwconf are, and so
    is the rest of the client (auth.json back alone would send the user's own key elsewhere)."""
    config, _ = _seed(home)
    auth = home / ".codex" / "auth.json"
    assert gwconf("apply", "codex").exit_code == 0
    config.write_text(config.read_text().replace('"workspace-write"', '"read-only"'))
    (_state(tmp_path) / "ledger.json").unlink()
    kept = (config.read_bytes(), auth.read_bytes())
    result = gwconf("restore", "codex")
    assert result.exit_code == 0, result
    assert "the missing ledger held which keys were gwconf's; left as it is" in result.stderr, result
    assert "left as it is too" in result.stderr and "auth.json" in result.stderr
    assert (config.read_bytes(), auth.read_bytes()) == kept
    applied = gwconf("apply", "codex", "--model", "other-model")  # apply starts a new ledger
    assert applied.exit_code == 0, applied
    assert 'model = "other-model"' in config.read_text()


def test_a_client_a_damaged_ledger_gave_up_stays_given_up(gwconf, home: Path, profile, tmp_path) -> None:
    """apply codex; edit config.toml; the ledger is damaged; restore --all leaves codex as it is,
    names where its bytes from before gwconf are, and sets the ledger aside (gwconf starts a new,
    empty one). The user then deletes config.toml and runs restore: codex's backups still read as
    applied, but gwconf gave that client up and said so: auth.json is not put back behind the
    user's back (as a missing ledger's restore would)."""
    config, _ = _seed(home)
    auth = home / ".codex" / "auth.json"
    assert gwconf("apply", "codex").exit_code == 0
    config.write_text(config.read_text().replace('"workspace-write"', '"read-only"'))
    (_state(tmp_path) / "ledger.json").write_text(GARBAGE)
    left = gwconf("restore", "--all")
    assert left.exit_code == 0 and "left as it is" in left.stderr and _aside(tmp_path), left
    config.unlink()
    kept = auth.read_bytes()
    again = gwconf("restore", "codex")
    assert again.exit_code == 0 and "nothing to restore" in again.stdout, again
    assert "missing" not in again.stderr
    assert auth.read_bytes() == kept
