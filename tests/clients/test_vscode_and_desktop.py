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


@pytest.mark.skipif(not Path("/proc/self/cmdline").is_file(), reason="reads /proc")
def test_one_command_looks_at_proc_once_and_the_next_looks_again(
    gwconf, profile, home: Path, tmp_path
) -> None:
    """Before writing, ``apply`` asks for each desktop app whether it runs: every question of one
    command is answered from one walk over /proc (issue 15), and the next command walks again, so
    an app started in between is seen."""
    import sys as _sys

    from tests.clients._apps import running_app
    from tests.clients.test_chatbox import CONFIG, MINIMAL

    (home / CONFIG).parent.mkdir(parents=True)
    (home / CONFIG).write_text(MINIMAL)
    apps = ("chatbox", "witsy", "anythingllm")  # (the last two are not set up here: asked all the same)
    opened: list[str] = []
    recording = True

    def hook(event: str, args: tuple) -> None:  # type: ignore[type-arg]
        if recording and event == "open" and str(args[0]).endswith("/cmdline"):
            opened.append(str(args[0]))

    _sys.addaudithook(hook)  # audit hooks cannot be removed: it records only while this test runs
    try:
        for app in apps:
            gwconf("apply", app, "--model", "first")
        separately = len(opened)
        opened.clear()
        gwconf("apply", *apps, "--model", "second")
        assert 0 < len(opened) < separately, (len(opened), separately)  # one walk, not one per app
        assert len(set(opened)) == len(opened), "a process's command line read twice in one command"
        assert "second" in (home / CONFIG).read_text()
        with running_app(tmp_path / "bin", "chatbox") as pid:
            refused = gwconf("apply", *apps, "--model", "third")
            assert refused.exit_code == 1 and f"Chatbox is running (pid {pid})" in refused.stderr
            preview = gwconf("apply", "chatbox", "--model", "third", "--dry-run")  # says so beside the diff
            assert f"note: the real run will refuse this: Chatbox is running (pid {pid})" in preview.stdout
            assert preview.exit_code == 0 and '"third"' in preview.stdout, preview.stdout
        assert "third" not in (home / CONFIG).read_text()
        assert gwconf("apply", "chatbox", "--model", "third").exit_code == 0
    finally:
        recording = False


def test_running_matches_exact_names_only(home: Path, tmp_path: Path) -> None:
    from tests.clients._apps import running_app

    env = _env(home, "linux")
    with running_app(tmp_path / "bin", "witsy-helper") as pid:
        assert pid not in (_desktop.running(env, ("witsy",)) or [])
        assert pid in (_desktop.running(env, ("Witsy-Helper",)) or [])


def test_a_process_without_a_command_line_is_no_app(home: Path) -> None:
    """Kernel threads (and zombies) have no command line: none is an app that holds its settings
    in memory, and their names (``kthreadd``, ``kworker/...``) are not read for each app asked."""
    import os

    env = _env(home, "linux")
    threads = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if not Path(f"/proc/{entry}/cmdline").read_bytes():
                    threads[int(entry)] = Path(f"/proc/{entry}/comm").read_text().strip()
            except OSError:
                continue
    if not threads:
        pytest.skip("no kernel thread is visible here")
    pid, name = next(iter(threads.items()))
    assert pid not in (_desktop.running(env, (name,)) or [])
