"""Crash safety (issue 8): gwconf killed with SIGKILL in the middle of apply, use and restore.

Every change gwconf makes to a file is a rename or an unlink, so the states a crash can leave are
exactly the moments between those operations. ``test_kill_at_every_step`` kills a run just
before each of them in turn (a forked child of the test process, which has gwconf imported);
``test_kill_at_random_moments`` kills real ``python -m gwconf`` processes at random times, also in
the middle of writing a temp file. After every kill:

- every client file is the complete old or the complete new bytes (and mode), nothing else;
- after the repair the next gwconf run does first, each client's files are all old or all new
  (the Codex pair config.toml + auth.json is never half-changed), and so are all the clients of
  the command (one transaction), no temp file is left, and the ledger agrees with the files;
- running the command again ends exactly where an uninterrupted run ends, and ``restore --all``
  then gives back the original bytes and modes.

``GWCONF_CRASH_SEED`` picks another sequence of random kills.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from gwconf import operations
from gwconf.ledger import Ledger
from tests.conftest import invoke
from tests.hardening._world import CLIENTS, World, gwconf_subprocess, run_forked, sha256

pytestmark = pytest.mark.slow

CYCLE: list[tuple[str, ...]] = [
    ("apply", *CLIENTS, "-p", "a"),
    ("use", "b"),
    ("restore", "--all"),
]
STATES = ("S0", "SA", "SB", "S0")  # before/after each command of CYCLE


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """The seeded HOME, and the reference states of an uninterrupted cycle."""
    w = World(tmp_path).activate(monkeypatch)
    w.seed()
    w.add_profiles()
    w.save("S0")
    w.references = {"S0": w.files()}
    for command, name in zip(CYCLE, STATES[1:], strict=True):
        done = invoke(*command)
        assert done.exit_code == 0, done
        w.references.setdefault(name, w.files())
        if name != "S0":
            w.save(name)
    assert w.files() == w.references["S0"], "an uninterrupted cycle gives back the original files"
    return w


def _client_state(w: World, client: str, files: dict) -> set[str]:
    """Which reference states this client's files match as a whole."""
    names = w.client_files()[client]
    return {state for state, ref in w.references.items() if all(files.get(n) == ref.get(n) for n in names)}


def check_after_kill(w: World, step: int, where: str) -> bool:
    """The invariants of a kill during CYCLE[step]; returns whether the run was cut mid-change."""
    before = w.references[STATES[step]]
    after = w.references[STATES[step + 1]]
    now = w.files()
    for name in sorted(set(before) | set(after) | set(now)):
        assert now.get(name) in (before.get(name), after.get(name)), (
            f"{where}: {name} is neither the old nor the new file"
        )
    mid_change = (w.state_dir / "journal.json").exists()

    # the next gwconf run starts with this repair (apply, use, restore and every write)
    operations.repair_interrupted(w.env())
    files = w.files()
    assert not w.litter(), f"{where}: left behind after the repair: {w.litter()}"
    assert not (w.state_dir / "journal.json").exists()
    ledger = Ledger(w.env())
    states = {client: _client_state(w, client, files) for client in CLIENTS}
    assert all(STATES[step] in m for m in states.values()) or all(
        STATES[step + 1] in m for m in states.values()
    ), f"{where}: one command's clients were repaired apart (it writes them in one transaction): {states}"
    for client in CLIENTS:
        matches = states[client]
        assert matches & {STATES[step], STATES[step + 1]}, (
            f"{where}: {client}'s files are half old, half new after the repair"
        )
        recorded = ledger.files(client)
        for target, record in recorded.items():
            path = Path(target)
            digest = sha256(path.read_bytes()) if path.exists() else None
            assert digest == record["written_sha256"], f"{where}: the ledger disagrees with {target}"
        if not recorded:
            assert "S0" in matches, f"{where}: {client} was changed but the ledger forgot it"
        else:
            expected = {"a": "SA", "b": "SB"}[ledger.profile_of(client)]
            assert expected in matches, f"{where}: {client} is not at the profile the ledger names"
    return mid_change


def finish(w: World, step: int, where: str) -> None:
    """Run the interrupted command again: it ends where an uninterrupted run ends; then
    ``restore --all`` gives back the original bytes and modes."""
    commands = [CYCLE[step]] + ([] if CYCLE[step][0] == "restore" else [("restore", "--all")])
    for command, state in zip(commands, (STATES[step + 1], "S0"), strict=False):
        done = invoke(*command)
        assert done.exit_code == 0, f"{where}: {done}"
        assert "Traceback" not in done.output
        assert w.files() == w.references[state], (
            f"{where}: {' '.join(command)} did not end where an uninterrupted run ends"
        )
    assert not Ledger(w.env()).clients()


def test_kill_at_every_step(world: World, tmp_path: Path) -> None:
    """SIGKILL just before each rename/unlink of apply, use and restore: 100+ crash points."""
    w = world
    watch = (str(w.home), str(w.gw))
    kills = mid = 0
    for step, command in enumerate(CYCLE):
        w.load(STATES[step])
        log = tmp_path / "ops.log"
        assert os.WEXITSTATUS(run_forked(command, watch=watch, log=log)) == 0
        operations_count = len(log.read_text().splitlines())
        assert operations_count > 10, log.read_text()
        for kill_at in range(1, operations_count + 1):
            w.load(STATES[step])
            status = run_forked(command, kill_at=kill_at, watch=watch)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            kills += 1
            where = f"{' '.join(command)} killed before operation {kill_at}/{operations_count}"
            mid += check_after_kill(w, step, where)
            finish(w, step, where)
    print(f"\n{kills} SIGKILLs at every step, {mid} of them in the middle of a change")
    assert kills >= 100


RANDOM_KILLS = 80


def _wait_for(path: Path, process, limit: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists():
            return True
        time.sleep(0.0002)
    return False


def test_kill_at_random_moments(world: World) -> None:
    """Real ``python -m gwconf`` processes killed at random times: half anywhere in the run, half
    once it has started writing (its journal appeared), also in the middle of writing a temp file."""
    w = world
    rng = random.Random(int(os.environ.get("GWCONF_CRASH_SEED", "8")))
    journal = w.state_dir / "journal.json"
    timing = []  # per command: (whole run, from the first journal to the end)
    for step, command in enumerate(CYCLE):
        w.load(STATES[step])
        started = time.monotonic()
        process = gwconf_subprocess(*command)
        _wait_for(journal, process, 30)
        writing = time.monotonic()
        assert process.wait() == 0
        ended = time.monotonic()
        timing.append((ended - started, ended - writing))
    kills = mid = attempts = 0
    while kills < RANDOM_KILLS and attempts < RANDOM_KILLS * 3:
        attempts += 1
        step = rng.randrange(len(CYCLE))
        whole, writing = timing[step]
        w.load(STATES[step])
        process = gwconf_subprocess(*CYCLE[step])
        if attempts % 2:
            time.sleep(rng.uniform(0.2, 1.05) * whole)
        elif _wait_for(journal, process, whole * 3):
            time.sleep(rng.uniform(0, 1.0) * writing)
        process.kill()
        if process.wait() != -signal.SIGKILL:
            assert w.files() == w.references[STATES[step + 1]]
            continue
        kills += 1
        where = f"{' '.join(CYCLE[step])} killed at random (kill {kills})"
        mid += check_after_kill(w, step, where)
        finish(w, step, where)
    print(f"\n{kills} random SIGKILLs ({attempts} attempts), {mid} of them in the middle of a change")
    assert kills >= RANDOM_KILLS
