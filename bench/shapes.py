"""Shapes: files of unusual but valid shapes, grown, to show that gwconf's readers and editors stay
linear on them, not only on the scale group's usual shapes.

Each shape is one that made some path quadratic until the eleventh round (a search for super-linear
shapes: docs/performance.md): ``key: |`` blocks with blank lines between them and a long flow
sequence of quoted items (plainyaml, what ``status`` reads), a key an object holds thousands of
times (JSON set and delete), a name a .env sets thousands of times and a value with a long run of
blanks (dotenv), a big table deleted or replaced (TOML), a line of ``{token=a`` repeated (the
redaction every printed line goes through). Each size runs in a fresh worker process (so
``--src`` picks the code), warmed on a small copy first; the figure is the least CPU time of a
few runs, and the growth exponent is fitted over the sizes as the scale group fits it (1 linear,
2 quadratic). A size that takes more than ``STOP_AFTER`` seconds ends the shape: a quadratic path
would take four times longer at the next.

Run alone: ``.venv/bin/python bench/shapes.py [--quick] [--src DIR]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(__file__))

from _util import BENCH, Row, print_table, verdict

LINEAR_LIMIT = 1.25  # as the scale group's inner parts: 1.0 is linear, 2.0 quadratic
STOP_AFTER = 5.0  # seconds at one size: no larger size is run
REPS = 3


def _yaml_blocks(n: int) -> str:
    return "".join(f"k{i}: |\n  line {i}\n\n" for i in range(n))


def _yaml_flow(n: int) -> str:
    return "a: [" + ", ".join(f'"x{i}"' for i in range(n)) + "]\n"


def _json_copies(n: int, noted: bool = False) -> str:
    """``noted``: a comment line after each copy, the last one's too (no trailing comma)."""
    return (
        "{\n"
        + "\n".join(
            f'  "gwconf.provider": {{"baseURL": "http://h{i}/v1"}}{"," if i < n - 1 else ""}'
            + (f"\n  // copy {i}" if noted else "")
            for i in range(n)
        )
        + "\n}\n"
    )


def _dotenv_copies(n: int) -> str:
    return "".join(f"OPENAI_API_KEY=sk-old-{i:06d}\nOTHER_{i}=x\n" for i in range(n))


def _dotenv_blanks(n: int) -> str:
    return "A=x" + " " * n + "y#z\nB=1\n"


def _toml_table(n: int) -> str:
    return (
        'model = "m"\n\n[model_providers.gwconf]\nname = "gw"\n'
        + "".join(f'k{i} = "value {i}"\n' for i in range(n))
        + "\n[other]\na = 1\n"
    )


def _redact_braces(n: int) -> str:
    return "+ opts: " + "{token=a" * n + " end\n"


def _read_plain_yaml(text: str) -> None:
    from gwconf import plainyaml

    assert plainyaml.read(text) is not None, "left to PyYAML: not the path measured"


def _checked(fmt: str, text: str, edit: Callable[[object], object]) -> None:
    """Load, edit and pass the write gate, as every write does (``formats.checked_edit``)."""
    from gwconf import formats

    doc = formats.load(fmt, text, "f")
    original = formats.Frozen(doc.data())
    edit(doc)
    formats.checked_edit(fmt, original, doc)


def _set_json(text: str) -> None:
    _checked("jsonc", text, lambda doc: doc.set(("gwconf.provider", "baseURL"), "http://127.0.0.1/v1"))  # type: ignore[attr-defined]


def _delete_json(text: str) -> None:
    _checked("jsonc", text, lambda doc: doc.delete(("gwconf.provider",)))  # type: ignore[attr-defined]


def _delete_dotenv(text: str) -> None:
    _checked("dotenv", text, lambda doc: doc.delete(("OPENAI_API_KEY",)))  # type: ignore[attr-defined]


def _load_dotenv(text: str) -> None:
    from gwconf import formats

    formats.load("dotenv", text, ".env").data()


def _delete_toml(text: str) -> None:
    _checked("toml", text, lambda doc: doc.delete(("model_providers", "gwconf")))  # type: ignore[attr-defined]


def _replace_toml(text: str) -> None:
    table = {"name": "gw", "base_url": "http://127.0.0.1/v1"}
    _checked("toml", text, lambda doc: doc.set(("model_providers", "gwconf"), table))  # type: ignore[attr-defined]


def _chezmoi_blanks(n: int) -> str:
    return "sourceDir: ~/dotfiles" + " " * n + "x\n"


def _chezmoi_source_dir(text: str) -> None:
    from gwconf import managers

    found = managers._SOURCE_DIR.search(text)
    assert found is not None


def _redact(text: str) -> None:
    from gwconf import secrets

    secrets.redact(text, [])


# name -> (what, the text of size n, the operation on it, the first n): four sizes doubling from
# the first (three from half of it with --quick)
SHAPES: dict[str, tuple[str, Callable[[int], str], Callable[[str], None], int]] = {
    "yaml-blocks": ("plainyaml: `key: |` blocks, blank lines between", _yaml_blocks, _read_plain_yaml, 8000),
    "yaml-flow": ("plainyaml: one flow sequence of n quoted items", _yaml_flow, _read_plain_yaml, 25000),
    "json-set": ("JSONC: set a key under one an object holds n times", _json_copies, _set_json, 5000),
    "json-delete": ("JSONC: delete a key an object holds n times", _json_copies, _delete_json, 4000),
    "json-delete-noted": (
        "JSONC: delete a key held n times, a comment line after each",
        lambda n: _json_copies(n, noted=True),
        _delete_json,
        2000,
    ),
    "dotenv-delete": ("dotenv: delete a name the file sets n times", _dotenv_copies, _delete_dotenv, 2000),
    "dotenv-blanks": ("dotenv: read a value holding a run of n blanks", _dotenv_blanks, _load_dotenv, 40000),
    "toml-delete": ("TOML: delete a table of n keys", _toml_table, _delete_toml, 10000),
    "toml-replace": ("TOML: set a two-key table over one of n keys", _toml_table, _replace_toml, 1600),
    "redact-braces": ("redaction: one line of `{token=a` n times", _redact_braces, _redact, 20000),
    "chezmoi-blanks": (
        "chezmoi's config: `sourceDir:` with a run of n blanks",
        _chezmoi_blanks,
        _chezmoi_source_dir,
        200000,
    ),
}


def sizes(first: int, quick: bool) -> list[int]:
    return [first // 2 << k for k in range(3)] if quick else [first << k for k in range(4)]


def worker(name: str, n: int) -> dict[str, float]:
    """In this fresh process: the operation once on a small text (imports, first compiles), then the
    least CPU time of ``REPS`` runs on the text of size ``n``."""
    _, make, operation, _ = SHAPES[name]
    operation(make(max(2, n // 100)))
    text = make(n)
    best = math.inf
    for _ in range(REPS):
        started = time.process_time()
        operation(text)
        best = min(best, time.process_time() - started)
        if best > STOP_AFTER:
            break
    return {"cpu": best, "size": len(text.encode())}


def _measure(name: str, sizes: list[int], src: str | None, timeout: float) -> list[dict[str, float]]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.path.abspath(src)
    points = []
    with tempfile.TemporaryDirectory(prefix="gwconf-bench-shapes") as home:
        env["HOME"] = env["GWCONF_HOME"] = home  # nothing here writes, but never the real ones
        for n in sizes:
            try:
                proc = subprocess.run(
                    [sys.executable, str(BENCH / "shapes.py"), "--worker", name, str(n)],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:  # subprocess.run ends the worker it started
                points.append({"n": n, "cpu": math.inf, "size": 0})
                break
            if proc.returncode != 0:
                raise RuntimeError(f"shapes worker {name} {n}:\n{proc.stderr[-3000:]}")
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            points.append({"n": n, **got})
            if got["cpu"] > STOP_AFTER:
                break
    return points


def _exponent(points: list[dict[str, float]]) -> float:
    if any(math.isinf(p["cpu"]) for p in points) or len(points) < 2:
        return math.inf
    xs = [math.log(p["size"]) for p in points]
    ys = [math.log(max(p["cpu"], 1e-6)) for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def run(quick: bool = False, src: str | None = None, timeout: float = 120.0) -> list[Row]:
    rows = []
    for name, (what, _, _, first) in SHAPES.items():
        planned = sizes(first, quick)
        points = _measure(name, planned, src, timeout)
        exponent = _exponent(points)
        figures = ", ".join(
            f"{p['size'] / 1e6:.2f} MB {p['cpu']:.3f} s"
            if not math.isinf(p["cpu"])
            else f"n={p['n']:g} > {timeout:g} s"
            for p in points
        )
        stopped = len(points) < len(planned)
        rows.append(
            Row(
                "shapes",
                what,
                "super-linear" if exponent > LINEAR_LIMIT else "linear",
                "stopped (too slow)" if math.isinf(exponent) or stopped else f"exponent {exponent:.2f}",
                f"<= {LINEAR_LIMIT:g} (1 linear, 2 quadratic)",
                verdict(exponent <= LINEAR_LIMIT and not stopped),
                f"least CPU of {REPS}: {figures}",
            )
        )
    return rows


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--src", metavar="DIR", help="gwconf's source folder to measure (PYTHONPATH)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per size before giving up")
    args = parser.parse_args()
    print_table(run(args.quick, args.src, args.timeout))


if __name__ == "__main__":
    main()
