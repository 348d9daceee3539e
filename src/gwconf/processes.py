"""Running processes, read from Linux's ``/proc`` (spec 5.5: a client that keeps its settings in
memory must be restarted, and some rewrite their files from memory).

One reader for every caller: doctor's "started before its config changed", the desktop apps'
"refuse while running", and Cline's host detection. Other platforms return nothing here; callers
say that they could not check.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from gwconf.records import record

PROC = Path("/proc")


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (on every platform; another user's process counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, and is someone else's
        return True
    return True


@record
class Process:
    pid: int
    entry: Path  # /proc/<pid>
    argv: list[str]

    @cached_property
    def comm(self) -> str:
        """The kernel's name for it (at most 15 characters)."""
        try:
            return (self.entry / "comm").read_text(errors="replace").strip()
        except OSError:
            return ""

    @cached_property
    def environ(self) -> dict[str, str] | None:
        """Its environment; None for another user's process (unreadable, and reading other files)."""
        try:
            raw = (self.entry / "environ").read_bytes()
        except OSError:
            return None
        return dict(i.split("=", 1) for i in raw.decode(errors="replace").split("\0") if "=" in i)

    def started(self) -> float | None:
        """Start time as seconds since the epoch."""
        boot = boot_time(self.entry.parent)
        try:
            stat = (self.entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
            ticks = int(fields[19])  # field 22: starttime, in clock ticks since boot
        except (OSError, ValueError, IndexError):
            return None
        return None if boot is None else boot + ticks / os.sysconf("SC_CLK_TCK")

    def same_home(self, home: Path) -> bool:
        """Does it read the files under ``home``? (Its own HOME, when readable.)"""
        environ = self.environ
        if environ is None:
            return False
        theirs = environ.get("HOME")
        if not theirs:
            return True
        try:
            return Path(theirs).resolve() == home.resolve()
        except OSError:
            return False


def available(platform: str, proc: Path = PROC) -> bool:
    return platform == "linux" and proc.is_dir()


def processes(proc: Path = PROC) -> Iterator[Process]:
    """Every readable process but this one, by pid: ``/proc`` read once per command
    (``fileio.one_view``), and every caller sees that reading.

    ``apply --all`` asks for each desktop app whether it runs, and Cline for its host: each
    question walked every process's ``cmdline`` again (11 walks; on a desktop with hundreds of
    processes, most of the preflight's time; issue 15). One command's checks share one look, as
    they would if asked at the same moment. Outside a view (tests that start and stop an app
    between two questions) every call reads afresh."""
    from gwconf import fileio

    return iter(fileio.viewed(("processes", proc), lambda: list(_read(proc))))


def _read(proc: Path) -> Iterator[Process]:
    own = os.getpid()
    try:
        entries = sorted((e for e in proc.iterdir() if e.name.isdigit()), key=lambda e: int(e.name))
    except OSError:
        return
    for entry in entries:
        if int(entry.name) == own:
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        yield Process(int(entry.name), entry, [a.decode(errors="replace") for a in raw.split(b"\0") if a])


def boot_time(proc: Path = PROC) -> float | None:
    try:
        for line in (proc / "stat").read_text().splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except (OSError, ValueError):
        return None
    return None
