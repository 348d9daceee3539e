"""The file work's own floor: how much of a writing command is the file system, not gwconf.

Each writing command of bench/apply.py (``apply --all``, ``restore --all``, ``use other``; and the
dry run, which only reads) runs once under ``strace`` on its usual home. The operations it made on
the home's and gwconf's own files (open, read, write, fsync, close, chmod, chown, rename,
renameat2, link, linkat, unlink, mkdir, rmdir, flock; the successful calls only, stat calls left out)
are replayed by bench/io_replay.py: a process that imports nothing and does only those calls, on
the same paths, from the same copy of the home. The replay, the command and the floor
(``python -c pass``) are then timed interleaved; the replay's CPU time against the floor's is how
far the command's ratio could fall if everything else it does (start-up, parsing, planning,
checks) took no time at all. Beside it, bench/import_replay.py imports exactly the modules the
command imported and does nothing else: start-up, imports and file work together are the
command's own floor, and what is left above it is gwconf's code running. ``status`` and
``clients`` on the applied home are measured the same way.

Needs ``strace`` (Linux); skipped without it. Run alone: ``.venv/bin/python bench/io_floor.py [--runs N]``.
"""

from __future__ import annotations

import marshal
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))

from _util import (
    BENCH,
    FLOOR_PYTHON,
    Case,
    Row,
    Sandbox,
    floor_case,
    gwconf_command,
    imports_case,
    interleave,
    ms,
    ratios,
    run_alone,
)
from apply import OTHER, keep_homes, prepare_home

TRACED = "openat,read,write,close,fsync,fdatasync,fchmod,fchown,chmod,rename,renameat2,link,linkat,unlink,mkdir,rmdir,flock,listxattr"
_LINE = re.compile(r"^(?:\d+ +)?(\w+)\((.*)\) += (-?\d+)")
_HEX = re.compile(r'"((?:\\x[0-9a-f]{2})*)"(\.\.\.)?')
_FLAGS = {
    name: getattr(os, name, 0)
    for name in [
        "O_RDONLY",
        "O_WRONLY",
        "O_RDWR",
        "O_CREAT",
        "O_EXCL",
        "O_NOFOLLOW",
        "O_CLOEXEC",
        "O_DIRECTORY",
        "O_NONBLOCK",
        "O_TRUNC",
        "O_APPEND",
    ]
}
_RENAME = {"RENAME_NOREPLACE": 1, "RENAME_EXCHANGE": 2}
_LOCK = {"LOCK_SH": 1, "LOCK_EX": 2, "LOCK_NB": 4, "LOCK_UN": 8}


def _strings(args: str) -> list[str]:
    """The quoted arguments of a ``strace -xx -s 0`` line, decoded (every byte is printed as \\xNN;
    paths are printed whole, data not at all: the log never holds a key it wrote)."""
    return [os.fsdecode(bytes.fromhex(m.group(1).replace("\\x", ""))) for m in _HEX.finditer(args)]


def _bits(text: str, names: dict[str, int]) -> int:
    value = 0
    for part in text.split("|"):
        part = part.strip()
        value |= names.get(part, 0) if not part.isdigit() else int(part)
    return value


def parse(log: str, root: str) -> list[tuple]:
    """The operations on files under ``root`` from an ``strace -xx`` log, in order."""
    ops: list[tuple] = []
    ours: set[int] = set()  # fds open on files under root
    top = root.rstrip("/")
    inside = top + "/"

    def under(path: str) -> bool:
        return path == top or path.startswith(inside)

    for line in log.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        call, args, result = match.group(1), match.group(2), int(match.group(3))
        if result < 0:
            continue
        paths = _strings(args)
        first = args.split(",", 1)[0].strip()
        if call == "openat":
            if paths and under(paths[0]):
                flags = args.split('"', 2)[2].split(",")[1]
                ops.append(("open", paths[0], _bits(flags, _FLAGS), result))
                ours.add(result)
        elif call in ("read", "write", "close", "fsync", "fdatasync", "fchmod", "fchown", "flock"):
            fd = int(first)
            if fd not in ours:
                continue
            rest = [a.strip() for a in args.split(",")]
            if call in ("read", "write"):
                ops.append((call, fd, result))
            elif call == "close":
                ops.append(("close", fd))
                ours.discard(fd)
            elif call in ("fsync", "fdatasync"):
                ops.append((call, fd))
            elif call == "fchmod":
                ops.append(("fchmod", fd, int(rest[1], 8)))
            elif call == "fchown":
                ops.append(("fchown", fd, int(rest[1]), int(rest[2])))
            else:
                ops.append(("flock", fd, _bits(rest[1], _LOCK)))
        elif call == "listxattr":  # a replaced file's ACL and SELinux label looked up (its 2nd
            if paths and under(paths[0]):  # argument: the names read back, printed as "")
                ops.append(("listxattr", paths[0]))
        elif paths and all(under(p) for p in paths):
            if call == "rename":
                ops.append(("rename", paths[0], paths[1]))
            elif call == "renameat2":
                ops.append(("renameat2", paths[0], paths[1], _bits(args.rsplit(",", 1)[1], _RENAME)))
            elif call in ("link", "linkat"):  # (a backup kept by a second name: linkat)
                ops.append(("link", paths[0], paths[1]))
            elif call in ("unlink", "rmdir"):
                ops.append((call, paths[0]))
            elif call == "mkdir":
                ops.append(("mkdir", paths[0], int(args.rsplit(",", 1)[1].strip(), 8)))
            elif call == "chmod":
                ops.append(("chmod", paths[0], int(args.rsplit(",", 1)[1].strip(), 8)))
    return ops


def record(argv: list[str], env: dict[str, str], cwd: Path, root: Path, out: Path) -> int:
    """Run ``argv`` once under strace; write its operations under ``root`` to ``out``; their count."""
    log = out.with_suffix(".log")
    subprocess.run(
        ["strace", "-f", "-qq", "-xx", "-s", "0", "-e", f"trace={TRACED}", "-o", str(log), *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    ops = parse(log.read_text(encoding="ascii", errors="replace"), str(root))
    log.unlink()
    with open(out, "wb") as handle:
        marshal.dump(ops, handle)
    return len(ops)


def run(runs: int = 7) -> list[Row]:
    if shutil.which("strace") is None:
        return [Row("io", "file work alone", "", "", "", "skip", "needs strace (Linux)")]
    rows: list[Row] = []
    with Sandbox("gwconf-bench-io") as box:
        prepare_home(box)
        resets = {"pristine": keep_homes(box, "pristine")}  # as the apply group's
        env = box.environ()
        box.run([*gwconf_command(), "apply", "--all"])
        resets["applied"] = keep_homes(box, "applied")
        commands = [
            (["apply", "--all", "--dry-run"], "pristine"),
            (["apply", "--all"], "pristine"),
            (["restore", "--all"], "applied"),
            (["use", OTHER[0]], "applied"),
            (["status"], "applied"),
            (["clients"], "applied"),
        ]
        floor = floor_case(env, box.work)
        cases: list[tuple[Case, Case, Case]] = []
        for args, home in commands:
            reset = resets[home]
            name = "gwconf " + " ".join(args)
            ops_file = box.root / f"ops-{len(cases)}.bin"
            modules_file = box.root / f"modules-{len(cases)}.bin"
            reset()
            count = record([*gwconf_command(), *args], env, box.work, box.root, ops_file)
            reset()
            imports = imports_case(args, env, box.work, modules_file)
            command = Case(name, [*gwconf_command(), *args], env, box.work, prepare=reset)
            replay = Case(
                f"  its file work alone ({count} calls)",
                [FLOOR_PYTHON, str(BENCH / "io_replay.py"), str(ops_file)],
                env,
                box.work,
                prepare=reset,
            )
            cases.append((command, imports, replay))
        interleave([floor, *(c for trio in cases for c in trio)], runs)
    rows.append(Row("io", floor.name, ms(floor.median), "1.00x", "", "", f"n={runs}"))
    for command, imports, replay in cases:
        command_ratio, command_text = ratios(command, floor)
        imports_ratio, imports_text = ratios(imports, floor)
        replay_ratio, replay_text = ratios(replay, floor)
        # each reference includes one interpreter start (the floor, 1x): the command's own floor is
        # start-up + its imports + its file work, and the rest is gwconf's code running
        own_floor = imports_ratio + replay_ratio - 1
        rows.append(
            Row(
                "io",
                command.name,
                ms(command.median),
                command_text,
                "",
                "",
                f"start-up, imports and file work alone: {own_floor:.1f}x; "
                f"gwconf's code running: {command_ratio - own_floor:.1f}x",
            )
        )
        rows.append(Row("io", imports.name, ms(imports.median), imports_text, "", "", ""))
        share = replay.cpu_median / command.cpu_median if command.cpu_median else 0.0
        rows.append(
            Row(
                "io", replay.name, ms(replay.median), replay_text, "", "", f"{share:.0%} of the command's CPU"
            )
        )
    return rows


if __name__ == "__main__":
    run_alone(run, __doc__)
