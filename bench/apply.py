"""Apply across every client: ``gwconf apply --all --dry-run``, a real ``gwconf apply --all``, then on the
applied home ``restore --all``, ``use`` (another profile, re-applied everywhere), ``status`` and
``clients``, on a home holding every supported client's files (bench/home.py), against the floor,
interleaved. Targets (issue 15) are judged on the child's CPU time; wall time is shown beside it.

Every writing command starts each run from the same copy of its home (reset untimed before each run).
Run alone: ``.venv/bin/python bench/apply.py [--runs N] [--show-home]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))

from _util import (
    PROFILE,
    Case,
    Row,
    Sandbox,
    count_instructions,
    floor_case,
    gwconf_command,
    instructions_text,
    interleave,
    ms,
    notes,
    print_table,
    ratios,
    real_path_case,
    verdict,
)

DRY_RUN_TARGET = 8.0
WRITE_TARGET = 15.0  # apply --all, restore --all, use: each
APPLIED_TARGET = 6.0  # status, clients on a home with every client applied
OTHER = ("other", "https://gw2.example.com/v1", "other-model", "sk-other-0123456789abcdefABCD")


def prepare_home(box: Sandbox):  # type: ignore[no-untyped-def]
    """Save the profile, fill the home; returns the home report."""
    import home as home_builder

    from gwconf.paths import Env
    from gwconf.profiles import ProfileStore

    for profile in (OTHER, PROFILE):  # PROFILE last: the active one
        box.add_profile(profile)
    name = PROFILE[0]
    env = Env(home=box.home, platform="linux", environ=box.environ(), cwd=box.work)
    profile = ProfileStore(env).load(name)
    return home_builder.build(box.home, env, profile)


def _copy(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)


def on_disk() -> None:
    """The home just copied, written out before the timed run (untimed): a user's files were
    written by their clients minutes or days before, and are on disk. Left in memory, each run's
    fsyncs wrote out the copy as well, which no user's run does (a backup kept by a second name,
    ``fileio.keep_by_link``, fsyncs a file whose bytes are on disk already)."""
    if hasattr(os, "sync"):
        os.sync()


def keep_homes(box: Sandbox, name: str) -> Callable[[], None]:
    """Save the home and gwconf's home as they are now (under ``box.root / name``); returns the
    reset that puts both back, written out to disk (``on_disk``), before a timed run."""
    saved = box.root / name
    saved.mkdir()
    shutil.copytree(box.home, saved / "home", symlinks=True)
    shutil.copytree(box.gwconf_home, saved / "gwconf", symlinks=True)

    def reset() -> None:
        _copy(saved / "home", box.home)
        _copy(saved / "gwconf", box.gwconf_home)
        on_disk()

    return reset


def apply_cases(env: dict[str, str], cwd: Path, reset: Callable[[], None]) -> tuple[Case, Case]:
    """``apply --all --dry-run`` and ``apply --all``, each run from the same untouched home
    (``reset``): without it, every run but the first met the home a real apply had configured."""

    def case(name: str, *args: str) -> Case:
        # a client with nothing here to set up (a server checkout, an app's first start) is skipped
        # by --all with exit 0; any other failure makes the figure meaningless, so it stops the run
        # (exit 1 was once accepted here, and hid apply --all failing on every run)
        return Case(name, [*gwconf_command(), *args], env, cwd, prepare=reset, ok_codes=(0,))

    return case("gwconf apply --all --dry-run", "apply", "--all", "--dry-run"), case(
        "gwconf apply --all", "apply", "--all"
    )


def run(runs: int = 10, show_home: bool = False) -> list[Row]:
    with Sandbox("gwconf-bench-apply") as box:
        report = prepare_home(box)
        if show_home:
            for client_id, rows in report.files.items():
                files = ", ".join(f"{p} ({fmt}, {size} B)" for p, fmt, size in rows) or "-"
                print(f"  {client_id:18} {report.sources.get(client_id, ''):28} {files}")
        reset = keep_homes(box, "pristine")
        env = box.environ()
        floor = floor_case(env, box.work)
        real_python = real_path_case(env, box.work)
        dry, real = apply_cases(env, box.work, reset)
        interleave([floor, dry, real, *([real_python] if real_python else [])], runs)
        count_instructions([floor, dry, real])
        # the applied home: restore and use start from it; status and clients read every client
        # back and compare with the ledger
        reset()
        real.once()
        reset_applied = keep_homes(box, "applied")
        restore = Case(
            "gwconf restore --all",
            [*gwconf_command(), "restore", "--all"],
            env,
            box.work,
            prepare=reset_applied,
        )
        use = Case(
            f"gwconf use {OTHER[0]}",
            [*gwconf_command(), "use", OTHER[0]],
            env,
            box.work,
            prepare=reset_applied,
        )
        status = Case(
            "gwconf status (every client applied)",
            [*gwconf_command(), "status"],
            env,
            box.work,
            prepare=reset_applied,
        )
        clients = Case(
            "gwconf clients (every client applied)",
            [*gwconf_command(), "clients"],
            env,
            box.work,
            prepare=reset_applied,
        )
        floor2 = floor_case(env, box.work)
        interleave([floor2, restore, use, status, clients], runs)
        count_instructions([floor2, restore, use, status, clients])
        slowest = breakdown(box) if show_home else []
        made = creation_cost(box.root)
    base = floor.median
    dry_ratio, dry_text = ratios(dry, floor)
    real_ratio, real_text = ratios(real, floor)
    with_files = sum(1 for files in report.files.values() if files)
    described = f"{with_files} clients' {report.file_count} files, {report.total_bytes / 1024:.0f} KB"
    rows = [
        Row(
            "apply",
            floor.name,
            ms(base),
            "1.00x",
            "",
            "",
            ", ".join(filter(None, [f"n={runs}", instructions_text(floor, floor)])),
        ),
        Row(
            "apply",
            dry.name,
            ms(dry.median),
            dry_text,
            f"<= {DRY_RUN_TARGET:g}x",
            verdict(dry_ratio <= DRY_RUN_TARGET),
            f"{notes(dry, floor, real_python)}; {described}",
        ),
        Row(
            "apply",
            real.name,
            ms(real.median),
            real_text,
            f"<= {WRITE_TARGET:g}x",
            verdict(real_ratio <= WRITE_TARGET),
            f"{notes(real, floor)}; writes, backups, ledger",
        ),
    ]
    for case, target in (
        (restore, WRITE_TARGET),
        (use, WRITE_TARGET),
        (status, APPLIED_TARGET),
        (clients, APPLIED_TARGET),
    ):
        ratio, text = ratios(case, floor2)
        rows.append(
            Row(
                "apply",
                case.name,
                ms(case.median),
                text,
                f"<= {target:g}x",
                verdict(ratio <= target),
                notes(case, floor2),
            )
        )
    rows.append(
        Row(
            "apply",
            "  a new file / folder here",
            f"{made.file_cpu * 1000:.3f} / {made.folder_cpu * 1000:.3f} ms",
            "",
            "",
            "",
            f"CPU each ({made.count} of each made beside the home, then removed); apply --all makes "
            "about 120 files and 90 folders, use and restore about 55 files",
        )
    )
    for client_id, problem in report.problems.items():
        rows.append(Row("apply", f"  skipped: {client_id}", "", "", "", "", problem[:90]))
    for seconds, client_id in slowest:
        rows.append(Row("apply", f"  plan {client_id}", ms(seconds), "", "", "", "in-process, warm"))
    return rows


@dataclass
class Creation:
    file_cpu: float  # seconds of CPU to create one empty file
    folder_cpu: float  # and one folder
    count: int


def creation_cost(root: Path, count: int = 100) -> Creation:
    """What making a new file and a new folder costs in CPU next to the home (untimed runs).

    Every atomic write makes a new file and a first apply makes a backup folder a file, and on
    ext4 the cost of a new inode depends on the block group it lands in: on the machine of the
    thirty-second round it was 0.02-0.06 ms in some folders of one disk and 0.3-0.6 ms in others
    (the same disk's /tmp among them), enough to move ``apply --all`` by 2-4 floors between
    sittings. Printed so a sitting's writing rows can be read against it."""
    import resource

    probe = root / "creation-probe"
    probe.mkdir()
    try:

        def cpu() -> float:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_utime + usage.ru_stime

        started = cpu()
        for number in range(count):
            os.close(os.open(probe / f"f{number}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        files = cpu()
        for number in range(count):
            os.mkdir(probe / f"d{number}")
        folders = cpu()
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return Creation((files - started) / count, (folders - files) / count, count)


def breakdown(box: Sandbox, top: int = 8) -> list[tuple[float, str]]:
    """Each client's plan in this process (imports warm): where ``apply --dry-run`` spends its time."""
    import time

    from gwconf import registry
    from gwconf.errors import GwconfError
    from gwconf.paths import Env
    from gwconf.plan import plan_apply
    from gwconf.profiles import ProfileStore

    env = Env(home=box.home, platform="linux", environ=box.environ(), cwd=box.work)
    profile = ProfileStore(env).load(PROFILE[0])
    timings = []
    for attempt in range(2):  # the first pass imports the editors
        for client_id in registry.IDS:
            started = time.perf_counter()
            try:
                plan_apply(registry.get(client_id), profile, env)
            except GwconfError:
                pass
            if attempt:
                timings.append((time.perf_counter() - started, client_id))
    return sorted(timings, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--show-home", action="store_true", help="list the home's files and time each client's plan"
    )
    args = parser.parse_args()
    print_table(run(args.runs, args.show_home))


if __name__ == "__main__":
    main()
