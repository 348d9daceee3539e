"""Desktop apps: Electron's ``userData`` folder and "is the app running?".

Electron's ``app.getPath('userData')`` is ``<appData>/<AppName>``: Linux ``$XDG_CONFIG_HOME``
(``~/.config``), macOS ``~/Library/Application Support``, Windows ``%APPDATA%``. Apps that read
their store once and later write the whole object back (Chatbox, Witsy, AnythingLLM desktop) lose
an edit made while they run, so gwconf refuses to write while their process runs. Linux is checked
through ``/proc``; elsewhere gwconf cannot look and says so.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import processes
from gwconf.errors import WriteRefused
from gwconf.paths import Env


def user_data(env: Env, app_name: str) -> Path:
    return env.appdata / app_name


def running(env: Env, names: tuple[str, ...], proc: Path = processes.PROC) -> list[int] | None:
    """Pids of processes whose program name is one of ``names`` (case-insensitive).

    Matches the kernel's ``comm`` and the base name of ``argv[0]``, exactly (no substrings, so
    ``gwconf apply chatbox`` never finds itself). None when this platform cannot be checked.
    """
    if not processes.available(env.platform, proc):
        return None
    wanted = {n.lower() for n in names}
    wanted |= {n[:15] for n in wanted}  # comm is cut to 15 characters
    found = []
    for process in processes.processes(proc):
        if not process.argv:  # a kernel thread or a zombie, no app: its name is not read (59 of
            continue  # the 72 processes here, hundreds on a desktop; issue 15)
        program = process.argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
        if program in wanted or process.comm.lower() in wanted:
            found.append(process.pid)
    return sorted(found)


def refuse_while_running(
    env: Env, force: bool, app: str, names: tuple[str, ...], proc: Path = processes.PROC
) -> list[str]:
    """Raise while ``app`` runs (unless ``force``); return notes for the user otherwise."""
    pids = running(env, names, proc)
    if pids is None:
        return [
            f"gwconf cannot check for a running {app} on this platform: make sure it is quit "
            "(it writes its settings back from memory and would undo this change)."
        ]
    if not pids:
        return []
    shown = ", ".join(str(p) for p in pids[:5])
    if not force:
        raise WriteRefused(
            f"{app} is running (pid {shown}): it keeps its settings in memory and would overwrite gwconf's change.",
            f"Quit {app} fully (not just close the window), then run this again; "
            "--force writes anyway (the running app may undo it).",
        )
    return [f"{app} is running (pid {shown}); written anyway because of --force: it may undo this change."]
