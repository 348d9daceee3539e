"""Scale: ``gwconf apply`` on a client's own file grown large: Zed's JSONC settings.json of 1, 2,
4, 8 and 16 MB (a VS Code-style settings file grown with comments and entries), Continue's YAML
config and Codex's TOML config of 1, 2 and 4 MB: time and peak memory per size, MB/s, and the
growth between sizes (linear: about 2.0 per doubling). ``gwconf status`` on the same files too:
listings read with their own readers (plainyaml, plaintoml), which ``apply`` never runs.

Each figure comes from fresh processes (bench/scale_worker.py):
- the command (issue 15's rows and targets): ``gwconf apply zed`` / ``continue`` / ``codex`` as
  users run it, a first apply each time (backups, journal, ledger and all), with a saved profile;
  MB/s is the file's size over the command's wall time, peak memory the whole process's peak RSS
  (start-up included) over the file's size; ``gwconf status CLIENT`` the same way, before the
  apply (its growth is held to the inner parts' 1.25, gwconf's own limit for telling a
  quadratic path, not issue 15's 1.1 for ``apply``: the small sizes less the fixed cost wander);
- below it, to tell where the time goes: gwconf's write path for the one file (read, decode,
  parse, set, dump, re-parse and compare with the intended data, encode) and the format editor
  alone (parse, set, dump), both in a warmed worker; their peak memory is the growth of the
  worker's peak RSS while the part ran; the peak of Python allocations under tracemalloc is shown
  beside it (it also counts address space reserved but never touched).
Run alone: ``.venv/bin/python bench/scale.py [--quick] [--formats jsonc,yaml,toml] [--runs N]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))

import gen
from _util import BENCH, PROFILE, Row, Sandbox, print_table, verdict
from gen import CLIENTS

MB = 1 << 20
SIZES = {"jsonc": [1, 2, 4, 8, 16], "yaml": [1, 2, 4], "toml": [1, 2, 4]}
QUICK_SIZES = {"jsonc": [1, 2, 4], "yaml": [0.25, 0.5, 1], "toml": [0.03125, 0.0625, 0.125]}
# issue 15's targets for the command: format -> (size in MB, MB/s at least, peak memory at most)
TARGETS: dict[str, tuple[float, float, float | None]] = {
    "jsonc": (16, 12.0, 4.0),  # `gwconf apply zed` on a 16 MB settings.json
    "yaml": (4, 4.0, None),  # `gwconf apply continue` on 4 MB
    "toml": (4, 2.0, None),  # `gwconf apply codex` on 4 MB
}
COMMAND_LINEAR_LIMIT = 1.1  # issue 15: the command's growth exponent
PARTS = ("command", "listing", "write", "editor")
WHOLE = ("command", "listing")  # parts that are whole commands: each has its cost on a tiny file
MEMORY_RUN_LIMIT = 30.0  # seconds: no tracemalloc run above this
REPEAT_LIMIT = 10.0  # seconds: a run this long is not repeated
EDITOR_RUN_LIMIT = 30.0  # seconds: above this the editor alone is not measured apart
LINEAR_LIMIT = 1.25  # growth exponent: log(t2/t1) / log(s2/s1); 1.0 is linear, 2.0 quadratic


def _size_label(mb: float) -> str:
    return f"{mb:g} MB" if mb >= 1 else f"{mb * 1024:g} KB"


def _worker(
    fmt: str, path: Path, part: str, env: dict[str, str], timeout: float, trace: bool = False
) -> dict | None:
    extra = [str(timeout)] if part in WHOLE else (["trace"] if trace else [])
    try:
        proc = subprocess.run(
            [sys.executable, str(BENCH / "scale_worker.py"), fmt, str(path), part, *extra],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:  # subprocess.run ends the worker it started
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"scale_worker {fmt} {path.name} {part}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _summary(got: list[dict]) -> dict:
    return {
        "seconds": statistics.median(g["seconds"] for g in got),
        "cpu": min(g["cpu"] for g in got),  # the least disturbed run: for the growth exponent
        "rss": max(g.get("rss_peak", g.get("rss_growth", 0)) for g in got),
        "n": len(got),
    }


def measure(fmt: str, sizes: list[float], runs: int, timeout: float, box: Sandbox) -> list[dict]:
    """Every size and part ``runs`` times, round-robin over the sizes (so a change in the machine's
    load hits every size alike), then one tracemalloc run each where that is quick enough."""
    env = box.environ()
    rows = []
    for mb in sizes:
        path = box.work / f"settings-{mb:g}.{fmt}"
        path.write_text(gen.make(fmt, int(mb * MB)), encoding="utf-8")
        rows.append({"mb": mb, "size": path.stat().st_size, "path": path, **{part: [] for part in PARTS}})
    tiny = box.work / f"tiny.{fmt}"
    tiny.write_text(gen.make(fmt, 1), encoding="utf-8")
    # each whole command on a file of a few lines: its cost that no size changes
    fixed: dict[str, list[dict]] = {part: [] for part in WHOLE}
    for _ in range(runs):
        for part in WHOLE:
            one = _worker(fmt, tiny, part, env, timeout)
            if one is not None:
                fixed[part].append(one)
        for row in rows:
            if row.get("timeout"):
                break  # larger sizes would only take longer
            for part in PARTS:
                got = row[part]
                if got and max(g["seconds"] for g in got) > REPEAT_LIMIT:
                    continue  # one run that long is figure enough
                if part == "editor" and any(g["seconds"] > EDITOR_RUN_LIMIT for g in row["write"]):
                    row["editor_skipped"] = True
                    continue
                one = _worker(fmt, row["path"], part, env, timeout)
                if one is None:
                    row["timeout"] = timeout
                    break
                got.append(one)
    results: list[dict] = []
    for row in rows:
        result: dict = {
            "fixed_cpu": {part: min((g["cpu"] for g in got), default=0.0) for part, got in fixed.items()},
            "mb": row["mb"],
            "size": row["size"],
            "editor_skipped": row.get("editor_skipped", False),
        }
        for part in PARTS:
            if row[part] and not (part != "editor" and row.get("timeout")):
                result[part] = _summary(row[part])
                if part not in WHOLE and result[part]["seconds"] <= MEMORY_RUN_LIMIT:  # tracemalloc is slow
                    traced = _worker(fmt, row["path"], part, env, timeout * 3, trace=True)
                    result[part]["traced"] = traced["traced_peak"] if traced else None
            else:
                result[part] = None
        row["path"].unlink()
        results.append(result)
        if row.get("timeout"):
            break
    return results


def _growth(results: list[dict], part: str) -> tuple[float | None, list[float]]:
    """(exponent, time factor per step): the slope of log(time) over log(size) fitted through
    every size (1 linear, 2 quadratic; inf when a larger size ran out of time), on each size's
    least CPU time (wall time on a shared machine wanders with the load; the algorithm does not).
    The command's time is taken less its time on a file of a few lines: start-up and the other
    fixed costs would otherwise flatten the curve and hide a super-linear part."""
    points = []
    for r in results:
        got = r.get(part)
        if got is None:
            if (part != "editor" or not r.get("editor_skipped")) and points:
                return math.inf, _steps(points)
            break
        cpu = got["cpu"] - r["fixed_cpu"].get(part, 0.0)
        points.append((math.log(r["size"]), math.log(max(cpu, 1e-6))))
    if len(points) < 2:
        return None, []
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return slope, _steps(points)


def _steps(points: list[tuple[float, float]]) -> list[float]:
    return [math.exp(b[1] - a[1]) for a, b in itertools.pairwise(points)]


def rows_for(fmt: str, results: list[dict], timeout: float) -> list[Row]:
    rows = []
    for r in results:
        for part, label in (
            ("command", f"gwconf apply {CLIENTS[fmt][0]}, the whole command"),
            ("listing", f"gwconf status {CLIENTS[fmt][0]}, the whole command"),
            ("write", "  gwconf's write path alone"),
            ("editor", "  editor alone: parse, set, dump"),
        ):
            what = f"{fmt} {_size_label(r['mb'])}: {label}"
            got = r[part]
            if got is None and part == "editor" and r.get("editor_skipped"):
                rows.append(
                    Row("scale", what, "", "", "", "", "not measured apart: the write path took too long")
                )
                continue
            if got is None:
                rows.append(
                    Row(
                        "scale",
                        what,
                        f"> {timeout:g} s",
                        "",
                        "",
                        "MISS",
                        "stopped: took longer than the limit",
                    )
                )
                continue
            mbps = r["size"] / MB / got["seconds"]
            memory = got["rss"] / r["size"]
            traced = f", traced peak {got['traced'] / MB:.0f} MB" if got.get("traced") is not None else ""
            target = mark = ""
            at, least, most = TARGETS[fmt]
            if part == "command" and r["mb"] == at:
                target = f">= {least:g} MB/s" + (f", <= {most:g}x" if most is not None else "")
                mark = verdict(mbps >= least and (most is None or memory <= most))
            peak = "peak RSS " if part in WHOLE else "peak RSS +"
            rows.append(
                Row(
                    "scale",
                    what,
                    f"{got['seconds']:.2f} s",
                    f"{mbps:.2f} MB/s",
                    target,
                    mark,
                    f"{peak}{got['rss'] / MB:.1f} MB = {memory:.1f}x the file{traced}, "
                    f"cpu {got['cpu']:.2f} s, n={got['n']}",
                )
            )
    for part in PARTS:
        exponent, steps = _growth(results, part)
        if exponent is None:
            continue
        limit = COMMAND_LINEAR_LIMIT if part == "command" else LINEAR_LIMIT
        linear = exponent <= limit
        rows.append(
            Row(
                "scale",
                f"{fmt} growth ({ {'command': 'the command', 'listing': 'status', 'write': 'write path'}.get(part, 'editor alone') })",
                "linear" if linear else "super-linear",
                "stopped (too slow)" if math.isinf(exponent) else f"exponent {exponent:.2f}",
                f"<= {limit:g} (1 linear, 2 quadratic)",
                verdict(linear),
                (
                    "fitted over all sizes"
                    if part not in WHOLE
                    else f"fitted over all sizes, less the {results[0]['fixed_cpu'][part]:.2f} s CPU it takes on a few lines"
                )
                + "; CPU time per doubling: "
                + ", ".join(f"x{f:.2f}" for f in steps),
            )
        )
    return rows


def run(
    quick: bool = False, formats: list[str] | None = None, runs: int | None = None, timeout: float = 300.0
) -> list[Row]:
    sizes = QUICK_SIZES if quick else SIZES
    runs = runs or (3 if quick else 5)
    rows: list[Row] = []
    with Sandbox("gwconf-bench-scale") as box:
        box.add_profile(PROFILE)
        for fmt in formats or list(sizes):
            rows += rows_for(fmt, measure(fmt, sizes[fmt], runs, timeout, box), timeout)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--formats", default="jsonc,yaml,toml")
    parser.add_argument("--runs", type=int)
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds per measurement before giving up"
    )
    args = parser.parse_args()
    print_table(run(args.quick, args.formats.split(","), args.runs, args.timeout))


if __name__ == "__main__":
    main()
