"""A crash log for bug reports (pre-commit's ``pre-commit.log`` is the example).

An unexpected error is a bug in gwconf, and the one line the user sees is not enough to fix it.
The log holds what a maintainer needs (version, Python, platform, the command line, the
traceback), with every key redacted: the profile's keys the command saw and anything key-shaped.
It is overwritten by the next crash, so it never grows and never holds an old key.
"""

from __future__ import annotations

import os
import platform
import sys
import traceback
from pathlib import Path

from gwconf.paths import Env

FILE_NAME = "crash.log"


def current_env() -> Env:
    """The command's environment, even when the crash came from the current folder being gone."""
    from gwconf.errors import FolderGone

    try:
        return Env.current()
    except (OSError, FolderGone):
        from gwconf.paths import _platform

        environ = dict(os.environ)
        from gwconf.dirs import home_folder

        home = Path(home_folder(environ, _platform()))
        return Env(home=home, platform=_platform(), environ=environ, cwd=home)


def write(exc: BaseException, args: list[str], env: Env, keys: list[str]) -> Path | None:
    """Write ``crash.log`` in gwconf's state folder and return its path; ``None`` when even
    that fails (the user still gets the one-line error)."""
    from gwconf import __version__
    from gwconf.secrets import redact

    lines = [
        "# gwconf crash log: attach this file to a bug report (keys are redacted).",
        f"gwconf: {__version__}",
        f"python: {sys.version.split()[0]} ({sys.executable})",
        f"platform: {platform.platform()}",
        f"command: gwconf {' '.join(args)}",
        "",
        *traceback.format_exception(type(exc), exc, exc.__traceback__),
    ]
    text = redact("\n".join(line.rstrip("\n") for line in lines) + "\n", keys)
    try:
        folder = env.state_dir
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILE_NAME
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path
    except OSError:
        return None
