"""gwconf's own folders: one rule (gwconf.dirs) that agrees with platformdirs, which it replaces.

``Env.config_dir``/``state_dir`` and ``gwconf current``'s fast path both use ``own_folders``; before,
the fast path kept a relative ``XDG_CONFIG_HOME`` that platformdirs ignores, and ignored an absolute
one on macOS where platformdirs honours it, so ``current`` read another ``active`` file than ``use``
wrote. platformdirs reads the process environment, so each case sets it for real.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs.windows
import pytest
from platformdirs.macos import MacOS
from platformdirs.unix import Unix
from platformdirs.windows import Windows

from gwconf.dirs import own_folders
from gwconf.paths import Env

XDG_VALUES = [None, "", "relative/xdg", " /leading-space", "/abs/xdg"]


def platformdirs_folders(platform: str) -> tuple[str, str]:
    kind = {"linux": Unix, "darwin": MacOS, "win32": Windows}[platform]
    return (
        kind("gwconf", appauthor=False, roaming=True).user_config_dir,
        kind("gwconf", appauthor=False).user_state_dir,
    )


@pytest.mark.parametrize("platform", ["linux", "darwin"])
@pytest.mark.parametrize("xdg", XDG_VALUES)
def test_posix_folders_agree_with_platformdirs(
    platform: str, xdg: str | None, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GWCONF_HOME", raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        if xdg is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, xdg.replace("xdg", name.lower()))
    ours = own_folders(os.environ, platform, str(home))
    assert ours == platformdirs_folders(platform)
    if xdg and not xdg.startswith("/"):
        assert "xdg" not in ours[0] and "xdg" not in ours[1]  # a relative or blank value is ignored


def test_windows_folders_agree_with_platformdirs(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # off Windows, platformdirs can only read the folders from the variables (not the shell API)
    monkeypatch.setattr(
        platformdirs.windows, "_RESOLVE_WIN_FOLDER", platformdirs.windows.get_win_folder_from_env_vars
    )
    monkeypatch.delenv("GWCONF_HOME", raising=False)
    monkeypatch.setenv("APPDATA", str(home / "Roaming"))
    monkeypatch.setenv("LOCALAPPDATA", str(home / "Local"))
    monkeypatch.setenv("XDG_CONFIG_HOME", "/not/on/windows")
    assert own_folders(os.environ, "win32", str(home)) == platformdirs_folders("win32")


@pytest.mark.parametrize("xdg", ["relative/config", "/abs/config"])
def test_current_and_env_read_the_same_active_file(
    xdg: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gwconf.cli import active_profile_file

    monkeypatch.delenv("GWCONF_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    expected = Path(xdg if xdg.startswith("/") else home / ".config") / "gwconf" / "active"
    assert Path(active_profile_file()) == Env.current().config_dir / "active" == expected


def test_gwconf_home_holds_config_and_state(home: Path) -> None:
    root = str(home / "g")
    for platform in ("linux", "darwin", "win32"):
        assert own_folders({"GWCONF_HOME": root}, platform, str(home)) == (root, os.path.join(root, "state"))


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
@pytest.mark.parametrize("xdg", XDG_VALUES)
@pytest.mark.parametrize("app", ["mini-swe-agent", "open-interpreter"])
def test_clients_platformdirs_folder_agrees_with_platformdirs(
    platform: str, xdg: str | None, app: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mini-swe-agent and Open Interpreter keep their config in ``user_config_dir(app)``: on macOS
    an absolute ``XDG_CONFIG_HOME`` moves it too, and a relative one moves it nowhere."""
    from gwconf.clients._base import platformdirs_config

    monkeypatch.setattr(
        platformdirs.windows, "_RESOLVE_WIN_FOLDER", platformdirs.windows.get_win_folder_from_env_vars
    )
    monkeypatch.setenv("LOCALAPPDATA", str(home / "Local"))
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    kind = {"linux": Unix, "darwin": MacOS, "win32": Windows}[platform]
    env = Env(home=home, platform=platform, environ=dict(os.environ))
    assert platformdirs_config(env, app) == Path(kind(app).user_config_dir)


@pytest.mark.parametrize(("platform", "expected"), [("win32", "profile"), ("linux", "home")])
def test_the_home_folder_is_the_one_the_clients_use(
    platform: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Windows, Node's os.homedir() and Python's Path.home() take USERPROFILE over HOME (which
    Git Bash and MSYS set); elsewhere HOME."""
    import sys

    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "profile"))
    assert Env.current().home == tmp_path / expected
