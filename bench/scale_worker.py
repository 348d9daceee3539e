"""One measurement for bench/scale.py, in a fresh process: set one key in one file.

``scale_worker.py FMT PATH PART [trace]`` prints one JSON line: seconds (wall and CPU), the growth of the
process's peak RSS while the part ran, and with ``trace`` the peak of Python allocations under
tracemalloc (several times slower). PART:

- ``write``: gwconf's whole write path for one file, as ``apply`` runs it: ``plan.load_file``
  (read, decode, parse), the client's ``set``, then ``plan._change_from_edit`` (dump, re-parse
  and compare with the intended data, encode, key records);
- ``editor``: the format editor alone: parse, set, dump;
- ``command``: ``gwconf apply CLIENT`` as users run it, a process of its own, the file being the
  client's own (``command.CLIENTS``), every run a first apply (gwconf's state removed before it).
  Its figures are the child's: wall time, CPU time and peak RSS (``RUSAGE_CHILDREN``, this worker
  having no other child), the whole process's, start-up included;
- ``listing``: ``gwconf status CLIENT`` the same way, on the file as grown (nothing applied): the
  reading path ``status`` and ``clients`` take (plainyaml, plaintoml, the JSON mask), which
  ``apply`` never runs.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen
from gen import CLIENTS, KEY_PATHS, VALUE

from gwconf import formats


def write_path(fmt: str, path: Path) -> int:
    from gwconf import plan
    from gwconf.clients._base import ConfigFile
    from gwconf.paths import Env

    env = Env(home=path.parent, platform=sys.platform, environ={}, cwd=path.parent)
    loaded = plan.load_file(ConfigFile("bench", path, fmt), env)
    loaded.doc.set(KEY_PATHS[fmt], VALUE)
    change = plan._change_from_edit("bench", loaded)
    assert change is not None and change.after is not None
    return len(change.after)


def editor(fmt: str, path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    doc = formats.load(fmt, text, path.name)
    doc.set(KEY_PATHS[fmt], VALUE)
    return len(doc.dump())


def _status(field: str) -> int | None:
    """A ``/proc/self/status`` figure in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak() -> int:
    """Start a fresh peak-RSS count (Linux: ``clear_refs`` 5 resets VmHWM); returns the RSS now.

    Without the reset the peak left by start-up and imports would hide a smaller operation."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        pass
    now = _status("VmRSS")
    return now if now is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _peak() -> int:
    peak = _status("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def command(fmt: str, source: Path, timeout: float, verb: str = "apply") -> dict[str, float | int]:
    """One first ``gwconf apply`` (or ``gwconf status``: ``verb``) of the client that reads ``fmt``
    on a copy of ``source``, in the HOME and GWCONF_HOME this worker was given (a bench Sandbox
    with a saved, active profile)."""
    import os
    import shutil
    import subprocess

    from _util import gwconf_command

    client, parts = CLIENTS[fmt]
    home = Path(os.environ["HOME"])
    target = home.joinpath(*parts)
    shutil.rmtree(Path(os.environ["GWCONF_HOME"]) / "state", ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    size = target.stat().st_size
    started = time.perf_counter()
    proc = subprocess.run(
        [*gwconf_command(), verb, client], capture_output=True, text=True, timeout=timeout, cwd=home
    )
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    changed = target.stat().st_size != size
    if proc.returncode != 0 or changed != (verb == "apply"):
        raise SystemExit(
            f"gwconf {verb} {client} exited {proc.returncode} (file changed: {changed}):\n{proc.stderr[-2000:]}"
        )
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_peak": usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
        "out": target.stat().st_size,
    }


def main() -> None:
    fmt, path, part = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    if part in ("command", "listing"):
        verb = "apply" if part == "command" else "status"
        print(json.dumps(command(fmt, path, float(sys.argv[4]), verb)))
        return
    trace = len(sys.argv) > 4 and sys.argv[4] == "trace"
    run = {"write": write_path, "editor": editor}[part]
    # The same part once on a tiny file first: the modules it imports on first use (the format's
    # editor, hashlib for the key records, ...) are start-up, not the cost of a big file.
    with tempfile.TemporaryDirectory() as folder:
        warm = Path(folder) / f"warm.{fmt}"
        warm.write_text(gen.make(fmt, 1), encoding="utf-8")
        run(fmt, warm)

    rss_before = _reset_peak()
    if trace:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    started, cpu = time.perf_counter(), time.process_time()
    size = run(fmt, path)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = {
        "seconds": seconds,
        "cpu": cpu,
        "rss_growth": _peak() - rss_before,
        "out": size,
    }
    if trace:
        result["traced_peak"] = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
