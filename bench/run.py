"""Run every gwconf benchmark and print one table with the ratios and the targets.

    .venv/bin/python bench/run.py            # everything (390 s in the thirty-fifth round, --runs 15)
    .venv/bin/python bench/run.py --quick    # fewer runs, smaller files (2-4 minutes)
    .venv/bin/python bench/run.py --only startup,apply --runs 21
    .venv/bin/python bench/run.py --only startup,apply --instructions   # + callgrind's counts

Groups: startup, apply, io, least, verify, scale, shapes (see each module's docstring; io needs strace). Every benchmark uses a
temporary HOME and GWCONF_HOME, servers listen on 127.0.0.1 only, and every process started is
waited for or ended by its pid. Timings are medians of interleaved runs; ratios are against
``python -c pass`` started by the same interpreter binary in the same run (the floor).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import _util
import apply as apply_bench
import io_floor as io_bench
import least as least_bench
import scale as scale_bench
import shapes as shapes_bench
import startup as startup_bench
import verify as verify_bench
from _util import Row, machine, print_table

GROUPS = ("startup", "apply", "io", "least", "verify", "scale", "shapes")


def main() -> int:
    parser = argparse.ArgumentParser(description="gwconf benchmarks: one table with ratios and targets.")
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller files")
    parser.add_argument(
        "--only", default=",".join(GROUPS), help=f"comma-separated groups of {', '.join(GROUPS)}"
    )
    parser.add_argument("--runs", type=int, help="timed runs per command (default 21, quick 7)")
    parser.add_argument(
        "--scale-runs",
        type=int,
        help="processes per file size and part (default 5, quick 3; 1 for runs over 10 s)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per scale measurement")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each start-up and apply command's instructions once under callgrind (needs "
        "valgrind; a minute or two more): the figure that stays put between sittings",
    )
    parser.add_argument(
        "--src",
        metavar="DIR",
        help="run gwconf from this source folder (e.g. `git archive REV src | tar -x -C /tmp/rev`, then "
        "/tmp/rev/src) to compare with an earlier revision; the homes are still built with this tree",
    )
    args = parser.parse_args()
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        parser.error(f"unknown group(s): {', '.join(sorted(unknown))}")
    runs = args.runs or (7 if args.quick else 21)
    if args.src:
        _util.EXTRA_ENV["PYTHONPATH"] = os.path.abspath(args.src)
    if args.instructions:
        import shutil

        if shutil.which("valgrind") is None:
            parser.error("--instructions needs valgrind on PATH")
        _util.COUNT_INSTRUCTIONS = True
    started = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows: list[Row] = []
    for group in groups:
        print(f"... {group}", file=sys.stderr, flush=True)
        if group == "startup":
            rows += startup_bench.run(runs)
        elif group == "apply":
            rows += apply_bench.run(max(5, runs // 2))
        elif group == "io":
            rows += io_bench.run(max(5, runs // 3))
        elif group == "least":
            rows += least_bench.run(max(5, runs // 3))
        elif group == "verify":
            rows += verify_bench.run(max(5, runs // 2))
        elif group == "scale":
            rows += scale_bench.run(args.quick, None, args.scale_runs, args.timeout)
        elif group == "shapes":
            rows += shapes_bench.run(args.quick, args.src)
    title = (
        f"gwconf benchmarks ({'quick' if args.quick else 'full'}; {machine()}; "
        f"load {load:.1f} at start; {time.time() - started:.0f} s"
        + (f"; gwconf from {args.src}" if args.src else "")
        + ")"
    )
    print_table(rows, title)
    misses = [r for r in rows if r.verdict == "MISS"]
    skips = [r for r in rows if r.verdict == "skip"]
    print(
        f"\n{sum(r.verdict == 'ok' for r in rows)} targets met, {len(misses)} missed, {len(skips)} skipped."
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"title": title, "rows": [r.__dict__ for r in rows]}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
