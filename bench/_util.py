"""Shared helpers for the benchmarks: a hermetic environment, interleaved timing, the table.

Every benchmark runs gwconf in a temporary HOME and GWCONF_HOME (never the real home), and compares
it with the physical floor measured in the same run: ``python -c pass`` started by the same
interpreter binary (its real path, not a pyenv or venv shim that adds its own start-up).
"""

from __future__ import annotations

import marshal
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
VENV_BIN = Path(sys.executable).parent  # the project's venv: bench/ is run with .venv/bin/python
REAL_PYTHON = os.path.realpath(sys.executable)  # the interpreter binary itself


def _floor_python() -> str:
    """The floor's interpreter: the binary gwconf runs on, started the way gwconf's script starts it.

    ``.venv/bin/python`` is a symbolic link to the binary (no shim: the kernel resolves it, nothing
    runs in between) and reads the venv's site-packages, as ``gwconf`` does. Starting the binary by
    its real path instead reads the base installation's site-packages, whose ``.pth`` files may
    import things gwconf never pays for (here: one that imports certifi, ~20 ms), which would
    inflate the floor. A shim (a script, e.g. pyenv's) is never used: then the real path is.
    """
    candidate = sys.executable
    with open(candidate, "rb") as handle:
        is_script = handle.read(2) == b"#!"
    if is_script or os.path.realpath(candidate) != REAL_PYTHON:
        return REAL_PYTHON
    return candidate


FLOOR_PYTHON = _floor_python()

# what a hermetic run clears (tests/hermetic.py), plus what would change how Python itself starts
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.hermetic import CLEARED as _HERMETIC  # noqa: E402
from tests.hermetic import CLEARED_PREFIXES  # noqa: E402

CLEARED = (
    *_HERMETIC,
    "SHELL",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONPROFILEIMPORTTIME",
    "VIRTUAL_ENV",
    "PYENV_VERSION",
)


# ``run.py --instructions``: also count each command's user-space instructions once (callgrind), the
# figure that stays put between sittings where times move by 10-20% with the machine
COUNT_INSTRUCTIONS = False

# Extra variables for every process the benchmarks start. ``run.py --src DIR`` puts DIR on
# PYTHONPATH there, to measure another source tree of gwconf (an earlier commit) with this venv.
EXTRA_ENV: dict[str, str] = {}


def gwconf_command() -> list[str]:
    """The console script users run (its shebang is the venv's python, a link to FLOOR_PYTHON)."""
    script = VENV_BIN / "gwconf"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "gwconf"]


# the benchmarks' saved profile (name, base address, model, key): apply's home adds a second one
PROFILE = ("bench", "https://gw.example.com/v1", "bench-model", "sk-bench-0123456789abcdefWXYZ")


class Sandbox:
    """A temporary HOME, GWCONF_HOME and working folder; removed on exit."""

    def __init__(self, label: str = "gwconf-bench") -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"{label}-"))
        self.home = self.root / "home"
        self.gwconf_home = self.root / "gwconf"
        self.work = self.root / "work"
        for folder in (self.home, self.gwconf_home, self.work):
            folder.mkdir()

    def environ(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(CLEARED_PREFIXES) and k not in CLEARED}
        env.update(
            HOME=str(self.home),
            GWCONF_HOME=str(self.gwconf_home),
            PATH="/usr/bin:/bin",  # no client programs from the real PATH: detection sees only files
            LANG=env.get("LANG", "C.UTF-8"),
            NO_COLOR="1",
        )
        env.update(EXTRA_ENV)
        env.update(extra)
        return env

    def add_profile(self, profile: tuple[str, str, str, str]) -> None:
        """``gwconf profile add NAME --base-url URL --model M --key-stdin --use``: saved and active."""
        name, base, model, key = profile
        self.run(
            [
                *gwconf_command(),
                "profile",
                "add",
                name,
                "--base-url",
                base,
                "--model",
                model,
                "--key-stdin",
                "--use",
            ],
            input=key + "\n",
        )

    def run(
        self, args: Sequence[str], *, input: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            list(args), input=input, capture_output=True, text=True, env=self.environ(), cwd=self.work
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
            )
        return result

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Case:
    """One command to time. ``prepare`` runs before every timed run, untimed (e.g. reset a home)."""

    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    prepare: Callable[[], None] | None = None
    ok_codes: tuple[int, ...] = (0,)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + system seconds of the child: steadier under load
    system: list[float] = field(default_factory=list)  # of it, the kernel's (system) seconds
    instructions: int | None = None  # one run under callgrind (count_instructions), when asked

    def count(self, valgrind: str) -> int:
        """User-space instructions of one run under callgrind (``prepare`` first, untimed)."""
        if self.prepare is not None:
            self.prepare()
        with tempfile.TemporaryDirectory(prefix="gwconf-bench-cg-") as folder:
            out = Path(folder) / "callgrind.out"
            proc = subprocess.run(
                [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", *self.argv],
                env=self.env,
                cwd=self.cwd,
                capture_output=True,
            )
            if proc.returncode not in self.ok_codes:
                raise RuntimeError(f"{self.name} under callgrind exited {proc.returncode}")
            for line in out.read_text().splitlines():
                if line.startswith(("summary:", "totals:")):
                    self.instructions = int(line.split()[1])
                    return self.instructions
        raise RuntimeError(f"{self.name}: callgrind wrote no total")

    def once(self) -> float:
        if self.prepare is not None:
            self.prepare()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(self.argv, env=self.env, cwd=self.cwd, capture_output=True)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu.append((after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime))
        self.system.append(after.ru_stime - usage.ru_stime)
        if proc.returncode not in self.ok_codes:
            raise RuntimeError(
                f"{self.name}: {' '.join(self.argv)} exited {proc.returncode}\n"
                f"{proc.stdout.decode(errors='replace')[-2000:]}\n{proc.stderr.decode(errors='replace')[-2000:]}"
            )
        return elapsed

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def p90(self) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]


def interleave(cases: list[Case], runs: int, warmup: int = 1) -> None:
    """Run every case ``runs`` times, round-robin, so drift and noise hit all of them alike."""
    for _ in range(warmup):
        for case in cases:
            case.once()
    for case in cases:
        case.cpu.clear()
        case.system.clear()
    for _ in range(runs):
        for case in cases:
            case.times.append(case.once())


def count_instructions(cases: Sequence[Case]) -> None:
    """Each case's instructions (``Case.count``), when ``--instructions`` asked and valgrind is here.
    After the timed runs: the byte-code caches are written, as for every timed run but the first."""
    valgrind = shutil.which("valgrind") if COUNT_INSTRUCTIONS else None
    for case in cases if valgrind else ():
        case.count(valgrind)  # type: ignore[arg-type]  # not None: cases is empty otherwise


def floor_case(env: dict[str, str], cwd: Path) -> Case:
    return Case("python -c pass (floor)", [FLOOR_PYTHON, "-c", "pass"], env, cwd)


def imports_case(args: list[str], env: dict[str, str], cwd: Path, out: Path) -> Case:
    """``gwconf ARGS`` run once in bench/import_replay.py's recorder (its modules written to
    ``out``), and the case that imports exactly those modules alone: the command's start-up and
    imports, before any of its code runs."""
    subprocess.run(
        [FLOOR_PYTHON, str(BENCH / "import_replay.py"), "record", str(out), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    with open(out, "rb") as handle:
        count = len(marshal.load(handle))
    return Case(
        f"  its imports alone ({count} modules)",
        [FLOOR_PYTHON, str(BENCH / "import_replay.py"), str(out)],
        env,
        cwd,
    )


def real_path_case(env: dict[str, str], cwd: Path) -> Case | None:
    """``python -c pass`` by the binary's real path (base site-packages), shown for reference."""
    if REAL_PYTHON == FLOOR_PYTHON:
        return None
    return Case("python -c pass (real path, base site)", [REAL_PYTHON, "-c", "pass"], env, cwd)


# -- the table -------------------------------------------------------------------------------------


@dataclass
class Row:
    group: str
    what: str
    value: str  # the measured figure (median)
    ratio: str = ""  # the figure against its reference
    target: str = ""
    verdict: str = ""  # "ok", "MISS", "skip" or ""
    extra: str = ""


def notes(case: Case, floor: Case, real: Case | None = None) -> str:
    """p90; the child's CPU time against the floor's (steadier than wall time on a busy machine);
    the ratio against ``python -c pass`` started by the binary's real path, when that differs."""
    parts = [
        f"p90 {ms(case.p90)}",
        f"cpu {ms(case.cpu_median)} = {case.cpu_median / floor.cpu_median:.1f}x floor's",
    ]
    if case.system:  # (the floor's own can be a median of 0 on a kernel that samples by ticks)
        system, floor_system = statistics.median(case.system), statistics.median(floor.system or [0.0])
        against = f" = {system / floor_system:.1f}x floor's" if floor_system else ""
        parts.append(f"of it system {ms(system)}{against}")
    if real is not None:
        parts.append(f"{case.median / real.median:.2f}x real-path python")
    if case.instructions:
        parts.append(instructions_text(case, floor))
    return ", ".join(parts)


def instructions_text(case: Case, floor: Case) -> str:
    """``instructions 173.4M = 4.50x floor's`` (the floor's own: its count alone), or ""."""
    if not case.instructions or not floor.instructions:
        return ""
    if case is floor:
        return f"instructions {case.instructions / 1e6:.1f}M"
    return (
        f"instructions {case.instructions / 1e6:.1f}M = {case.instructions / floor.instructions:.2f}x floor's"
    )


def ratios(case: Case, floor: Case) -> tuple[float, str]:
    """The child's CPU time against the floor's (the figure a target is judged on: wall time wanders
    on a shared machine) and the text for the ratio column, wall beside it."""
    cpu = case.cpu_median / floor.cpu_median if floor.cpu_median else float("nan")
    return cpu, f"cpu {cpu:.2f}x, wall {case.median / floor.median:.2f}x"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISS"


def print_table(rows: list[Row], title: str = "") -> None:
    headers = ("group", "what", "median", "ratio", "target", "", "details")
    cells = [(r.group, r.what, r.value, r.ratio, r.target, r.verdict, r.extra) for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)]
    if title:
        print(title)
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()
    print(line)
    print("  ".join("-" * w for w in widths))
    last = None
    for c in cells:
        if last is not None and c[0] != last:
            print()
        last = c[0]
        print("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)).rstrip())


def machine() -> str:
    import platform

    return (
        f"{platform.python_implementation()} {platform.python_version()} ({REAL_PYTHON}), "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    )


def run_alone(run: Callable[[int], list[Row]], doc: str | None, runs: int = 7) -> None:
    """A group's module run by itself: ``--runs N``, then its table."""
    import argparse

    parser = argparse.ArgumentParser(description=(doc or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=runs)
    print_table(run(parser.parse_args().runs))
