"""Start-up: ``gwconf --version``, ``--help``, ``current``, ``clients`` and ``status`` on an empty home, each
against ``python -c pass`` run by the same interpreter binary, interleaved; medians and ratios.

Run alone: ``.venv/bin/python bench/startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))

from _util import (
    FLOOR_PYTHON,
    Case,
    Row,
    Sandbox,
    floor_case,
    gwconf_command,
    interleave,
    ms,
    notes,
    print_table,
    real_path_case,
    verdict,
)

# command -> target as a multiple of the floor (None: reported, no target)
COMMANDS: list[tuple[list[str], float | None]] = [
    (["--version"], 4.0),
    (["--help"], 4.0),
    (["current"], 2.0),  # in shell prompts: one small file, no click (issue 19)
    (["clients"], None),
    (["status"], None),
]


def run(runs: int = 15) -> list[Row]:
    with Sandbox("gwconf-bench-startup") as box:
        env = box.environ()
        floor = floor_case(env, box.work)
        real = real_path_case(env, box.work)
        timed = [
            # current exits 1 on the empty home (no active profile) after reading the same file
            Case(name, gwconf_command() + args, env, box.work, ok_codes=(0, 1) if args == ["current"] else (0,))
            for args, _ in COMMANDS
            for name in ["gwconf " + " ".join(args)]
        ]
        interleave([floor, *timed, *([real] if real else [])], runs)
    base = floor.median
    rows = [
        Row(
            "start-up",
            floor.name,
            ms(base),
            "1.00x",
            "",
            "",
            f"p90 {ms(floor.p90)}, n={runs}, {FLOOR_PYTHON}",
        )
    ]
    if real is not None:
        rows.append(
            Row(
                "start-up",
                real.name,
                ms(real.median),
                f"{real.median / base:.2f}x floor",
                "",
                "",
                "not the floor: the base site-packages' .pth files run",
            )
        )
    for case, (_, target) in zip(timed, COMMANDS, strict=True):
        ratio = case.median / base
        rows.append(
            Row(
                "start-up",
                case.name + (" (empty home)" if case.name.endswith(("clients", "status")) else ""),
                ms(case.median),
                f"{ratio:.2f}x floor",
                f"<= {target:g}x" if target else "",
                verdict(ratio <= target) if target else "",
                notes(case, floor, real),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print_table(run(args.runs))


if __name__ == "__main__":
    main()
