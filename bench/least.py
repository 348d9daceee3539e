"""What the least program doing the dry run's and the apply's file work costs (bench/least_worker.py).

The apply group's home is built, and ``gwconf apply --all --dry-run --json`` names the files the
dry run would change. bench/least_worker.py then reads, parses, edits, re-parses and diffs those
same files (``plan``), and backs them up and writes them durably (``write``), with nothing of
gwconf in it: its CPU time against the floor's is what the issue's dry-run (8x) and writing
(15x) targets leave for everything gwconf does beyond that (see the worker's docstring). The
floor, the two least programs and the two gwconf commands are timed interleaved, each writing
run from the same untouched home.

Run alone: ``.venv/bin/python bench/least.py [--runs N]``, or ``bench/run.py --only least``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _util import (
    BENCH,
    FLOOR_PYTHON,
    Case,
    Row,
    Sandbox,
    floor_case,
    gwconf_command,
    interleave,
    ms,
    ratios,
    run_alone,
)
from apply import DRY_RUN_TARGET, WRITE_TARGET, apply_cases, keep_homes, prepare_home


def changed_files(box: Sandbox) -> list[str]:
    """The files ``gwconf apply --all --dry-run`` would write, as real paths."""
    proc = subprocess.run(
        [*gwconf_command(), "apply", "--all", "--dry-run", "--json"],
        env=box.environ(),
        cwd=box.work,
        capture_output=True,
        check=True,
    )
    paths = []
    for client in json.loads(proc.stdout)["clients"]:
        for entry in client.get("files", []):
            path = entry["path"]
            paths.append(str(box.home / path[2:]) if path.startswith("~/") else path)
    return paths


def run(runs: int = 7) -> list[Row]:
    with Sandbox("gwconf-bench-least") as box:
        prepare_home(box)
        reset_homes = keep_homes(box, "pristine")
        files = box.root / "files.txt"
        paths = changed_files(box)
        files.write_text("\n".join(paths) + "\n", encoding="utf-8")
        state = box.root / "least-state"

        def reset() -> None:
            shutil.rmtree(state, ignore_errors=True)
            reset_homes()

        env = box.environ()
        worker = [FLOOR_PYTHON, str(BENCH / "least_worker.py")]
        floor = floor_case(env, box.work)
        nothing = box.root / "no-files.txt"
        nothing.write_text("", encoding="utf-8")
        least_start = Case(
            "  its start-up and imports alone (no file)", [*worker, "plan", str(nothing)], env, box.work
        )
        least_plan = Case(
            "least program: parse, edit, re-parse, diff", [*worker, "plan", str(files)], env, box.work
        )
        least_write = Case(
            "least program: the same, backed up and written",
            [*worker, "write", str(files), str(state)],
            env,
            box.work,
            prepare=reset,
        )
        dry, real = apply_cases(env, box.work, reset)
        reset()
        summary = subprocess.run(least_plan.argv, env=env, cwd=box.work, capture_output=True, check=True)
        read = summary.stdout.decode().rstrip().rsplit("\n", 1)[-1]
        interleave([floor, least_start, least_plan, dry, least_write, real], runs)
    rows = [
        Row("least", floor.name, ms(floor.median), "1.00x", "", "", f"n={runs}; {len(paths)} files: {read}")
    ]
    _, start_text = ratios(least_start, floor)
    for case, target, of in ((least_plan, DRY_RUN_TARGET, dry), (least_write, WRITE_TARGET, real)):
        least_ratio, least_text = ratios(case, floor)
        gwconf_ratio, gwconf_text = ratios(of, floor)
        rows.append(
            Row(
                "least",
                case.name,
                ms(case.median),
                least_text,
                f"(<= {target:g}x)",
                "",
                f"{target - least_ratio:+.1f} floors left for the rest of gwconf's work",
            )
        )
        if case is least_plan:
            rows.append(Row("least", least_start.name, ms(least_start.median), start_text))
        rows.append(
            Row(
                "least",
                f"  {of.name}",
                ms(of.median),
                gwconf_text,
                "",
                "",
                f"{gwconf_ratio / least_ratio:.2f}x the least program",
            )
        )
    return rows


if __name__ == "__main__":
    run_alone(run, __doc__)
