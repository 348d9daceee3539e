"""Start-up: ``gwconf --version``, ``--help``, ``current``, ``profile list``, ``clients`` and ``status`` in a
home with one saved, active profile and no client applied, each against ``python -c pass`` run by the
same interpreter binary, interleaved; medians and ratios. Below ``clients`` and ``status``, the
modules each imported, imported alone by bench/import_replay.py: start-up and imports, before any
of their code runs. Targets are judged on the child's CPU time
(issue 15), which a busy machine disturbs less than wall time; both are shown.

Run alone: ``.venv/bin/python bench/startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))

from _util import (
    FLOOR_PYTHON,
    PROFILE,
    Case,
    Row,
    Sandbox,
    count_instructions,
    floor_case,
    gwconf_command,
    imports_case,
    instructions_text,
    interleave,
    ms,
    notes,
    print_table,
    ratios,
    real_path_case,
    verdict,
)

# command -> target as a multiple of the floor's CPU time (None: reported, no target); issue 15
COMMANDS: list[tuple[list[str], float | None]] = [
    (["--version"], 2.0),
    (["--help"], 2.0),
    (["current"], 2.0),  # in shell prompts: one small file, no click (issue 19)
    (["profile", "list"], 3.0),
    (["clients"], 4.0),
    (["status"], 4.0),
]
STDLIB_NAME = "python -c 'import json, pathlib'"


def run(runs: int = 15) -> list[Row]:
    with Sandbox("gwconf-bench-startup") as box:
        box.add_profile(PROFILE)
        env = box.environ()
        floor = floor_case(env, box.work)
        real = real_path_case(env, box.work)
        # a reference, not a target: the standard modules every listing needs (profiles, ledger and
        # most client files are JSON; every path is a pathlib.Path), imported by a bare Python
        stdlib = Case(STDLIB_NAME, [FLOOR_PYTHON, "-c", "import json, pathlib"], env, box.work)
        timed = [
            # current exits 1 on the empty home (no active profile) (it reads the same file either way)
            Case(
                name, gwconf_command() + args, env, box.work, ok_codes=(0, 1) if args == ["current"] else (0,)
            )
            for args, _ in COMMANDS
            for name in ["gwconf " + " ".join(args)]
        ]
        # what clients and status import, imported alone (bench/import_replay.py): their own floor
        imports = {
            "gwconf " + args[0]: imports_case(args, env, box.work, box.root / f"modules-{args[0]}.bin")
            for args in (["clients"], ["status"])
        }
        interleave([floor, stdlib, *timed, *imports.values(), *([real] if real else [])], runs)
        count_instructions([floor, *timed, *imports.values()])
    base = floor.median
    rows = [
        Row(
            "start-up",
            floor.name,
            ms(base),
            "1.00x",
            "",
            "",
            ", ".join(
                filter(
                    None, [f"p90 {ms(floor.p90)}, n={runs}, {FLOOR_PYTHON}", instructions_text(floor, floor)]
                )
            ),
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
    _, stdlib_text = ratios(stdlib, floor)
    rows.append(
        Row(
            "start-up",
            stdlib.name,
            ms(stdlib.median),
            stdlib_text,
            "",
            "",
            "a reference: what importing the two standard modules costs any program",
        )
    )
    for case, (_, target) in zip(timed, COMMANDS, strict=True):
        ratio, text = ratios(case, floor)
        rows.append(
            Row(
                "start-up",
                case.name
                + (" (a profile, nothing applied)" if case.name.endswith(("clients", "status")) else ""),
                ms(case.median),
                text,
                f"<= {target:g}x" if target else "",
                verdict(ratio <= target) if target else "",
                notes(case, floor, real),
            )
        )
        if case.name in imports:
            _, imports_text = ratios(imports[case.name], floor)
            rows.append(
                Row(
                    "start-up",
                    imports[case.name].name,
                    ms(imports[case.name].median),
                    imports_text,
                    "",
                    "",
                    instructions_text(imports[case.name], floor),
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
