"""gwconf's own config and state folders: one rule for every caller, with nothing but ``os``.

``Env.config_dir``/``state_dir`` and ``gwconf current``'s fast path (which runs in shell prompts
and imports nothing it can avoid) both place the folders here, so they cannot disagree. The rule
is platformdirs' (4.14): ``GWCONF_HOME`` first; else on Linux and macOS an ``XDG_CONFIG_HOME`` /
``XDG_STATE_HOME`` that is an absolute path (a relative or blank one is ignored), else
``~/.config`` and ``~/.local/state`` (Linux) or ``~/Library/Application Support`` (macOS); on
Windows the roaming ``%APPDATA%`` for config and ``%LOCALAPPDATA%`` for state.
tests/test_dirs.py checks the rule against platformdirs itself.
"""

from __future__ import annotations

import os
import posixpath

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs ~8 ms to import: annotations only
    from collections.abc import Mapping

APP = "gwconf"


def home_folder(environ: Mapping[str, str], platform: str) -> str:
    """The home folder the clients use: on Windows Node's ``os.homedir()`` and Python's
    ``Path.home()`` take ``USERPROFILE`` (a ``HOME`` that Git Bash, MSYS or the user set elsewhere
    is not theirs), elsewhere ``HOME``; each falls back to the other, then to ``~``."""
    names = ("USERPROFILE", "HOME") if platform.startswith("win") else ("HOME", "USERPROFILE")
    return environ.get(names[0]) or environ.get(names[1]) or os.path.expanduser("~")


def own_folders(environ: Mapping[str, str], platform: str, home: str) -> tuple[str, str]:
    """(config folder, state folder) for ``platform`` (``sys.platform`` or ``Env.platform``)."""
    root = environ.get("GWCONF_HOME")
    if root:
        return root, os.path.join(root, "state")
    if platform == "win32":
        roaming = environ.get("APPDATA") or os.path.join(home, "AppData", "Roaming")
        local = environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(roaming, APP), os.path.join(local, APP)
    if platform == "darwin":
        config = state = os.path.join(home, "Library", "Application Support")
    else:
        config, state = os.path.join(home, ".config"), os.path.join(home, ".local", "state")
    config = absolute(environ.get("XDG_CONFIG_HOME")) or config
    state = absolute(environ.get("XDG_STATE_HOME")) or state
    return os.path.join(config, APP), os.path.join(state, APP)


def absolute(value: str | None) -> str | None:
    """An XDG value counts only when it is an absolute path (the XDG spec; platformdirs 4.14, and
    the clients' own readers of it: xdg_base_dirs, etcetera, adrg/xdg)."""
    return value if value and posixpath.isabs(value) else None
