"""The shared helpers: VS Code user folders per variant and OS, Electron userData, running apps."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwconf.clients import _desktop, _vscode
from gwconf.paths import Env

EXPECTED = {
    ("linux", "code"): ".config/Code/User",
    ("linux", "insiders"): ".config/Code - Insiders/User",
    ("linux", "vscodium"): ".config/VSCodium/User",
    ("linux", "cursor"): ".config/Cursor/User",
    ("linux", "windsurf"): ".config/Windsurf/User",
    ("darwin", "code"): "Library/Application Support/Code/User",
    ("darwin", "insiders"): "Library/Application Support/Code - Insiders/User",
    ("darwin", "vscodium"): "Library/Application Support/VSCodium/User",
    ("darwin", "cursor"): "Library/Application Support/Cursor/User",
    ("darwin", "windsurf"): "Library/Application Support/Windsurf/User",
    ("win32", "code"): "AppData/Roaming/Code/User",
    ("win32", "insiders"): "AppData/Roaming/Code - Insiders/User",
    ("win32", "vscodium"): "AppData/Roaming/VSCodium/User",
    ("win32", "cursor"): "AppData/Roaming/Cursor/User",
    ("win32", "windsurf"): "AppData/Roaming/Windsurf/User",
}


def _env(home: Path, platform: str, **environ: str) -> Env:
    return Env(home=home, platform=platform, environ=environ, cwd=home)


@pytest.mark.parametrize(("platform", "variant"), sorted(EXPECTED))
def test_user_folder_for_every_variant_and_os(platform: str, variant: str, home: Path) -> None:
    environ = {"APPDATA": str(home / "AppData/Roaming")} if platform == "win32" else {}
    env = _env(home, platform, **environ)
    assert _vscode.user_dir(env, variant) == home / EXPECTED[(platform, variant)]
    assert _vscode.settings_file(env, variant) == home / EXPECTED[(platform, variant)] / "settings.json"


def test_overrides(home: Path) -> None:
    assert (
        _vscode.user_dir(_env(home, "linux", XDG_CONFIG_HOME=str(home / "x")), "code") == home / "x/Code/User"
    )
    moved = _env(home, "darwin", VSCODE_APPDATA=str(home / "va"))
    assert _vscode.user_dir(moved, "cursor") == home / "va/Cursor/User"
    portable = _env(home, "win32", VSCODE_PORTABLE=str(home / "p"))
    assert _vscode.user_dir(portable, "code") == home / "p/user-data/User"
    assert _vscode.extensions_dir(portable, "code") == home / "p/extensions"


def test_extension_version_and_installed_variants(home: Path) -> None:
    env = _env(home, "linux")
    for name in ("foo.bar-1.9.0", "foo.bar-1.10.2-linux-x64", "foo.barbaz-9.0.0", "other.ext-3.0.0"):
        (home / ".vscode/extensions" / name).mkdir(parents=True)
    assert _vscode.extension_version(env, "code", "foo.bar") == "1.10.2"
    assert _vscode.extension_version(env, "cursor", "foo.bar") is None
    (home / ".config/Cursor/User").mkdir(parents=True)  # a bare folder (gwconf may have made it)
    assert _vscode.installed_variants(env) == ["code"]
    (home / ".config/Cursor/User/globalStorage").mkdir()
    assert _vscode.installed_variants(env) == ["code", "cursor"]


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("linux", ".config/Witsy"),
        ("darwin", "Library/Application Support/Witsy"),
        ("win32", "AppData/Roaming/Witsy"),
    ],
)
def test_electron_user_data(platform: str, expected: str, home: Path) -> None:
    environ = {"APPDATA": str(home / "AppData/Roaming")} if platform == "win32" else {}
    assert _desktop.user_data(_env(home, platform, **environ), "Witsy") == home / expected


def test_running_cannot_be_checked_off_linux(home: Path) -> None:
    env = _env(home, "darwin")
    assert _desktop.running(env, ("witsy",)) is None
    notes = _desktop.refuse_while_running(env, False, "Witsy", ("witsy",))
    assert "cannot check" in notes[0] and "quit" in notes[0]


def test_running_matches_exact_names_only(home: Path, tmp_path: Path) -> None:
    from tests.clients._apps import running_app

    env = _env(home, "linux")
    with running_app(tmp_path / "bin", "witsy-helper") as pid:
        assert pid not in (_desktop.running(env, ("witsy",)) or [])
        assert pid in (_desktop.running(env, ("Witsy-Helper",)) or [])
