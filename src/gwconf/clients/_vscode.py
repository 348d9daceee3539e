"""VS Code and its forks: where each keeps its user folder and extensions, on every OS, in one place.

Facts (VS Code's own ``src/paths.js``): the
user folder is ``<appData>/<product folder>/User`` where appData is ``$VSCODE_APPDATA``, else
Linux ``$XDG_CONFIG_HOME`` (``~/.config``), macOS ``~/Library/Application Support``, Windows
``%APPDATA%``. A portable install (``$VSCODE_PORTABLE``) keeps it in ``<portable>/user-data/User``.
Non-default VS Code profiles keep their own ``settings.json`` under ``User/profiles/<id>/``; gwconf
edits the default profile and says so when other profiles exist.
"""

from __future__ import annotations

import os
from pathlib import Path

from gwconf.formats import lazy
from gwconf.paths import Env
from gwconf.records import record


@record(frozen=True)
class Variant:
    id: str
    name: str  # as people call it
    folder: str  # the product folder under appData
    dot_folder: str  # ~/<dot_folder>/extensions


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant("code", "VS Code", "Code", ".vscode"),
        Variant("insiders", "VS Code Insiders", "Code - Insiders", ".vscode-insiders"),
        Variant("vscodium", "VSCodium", "VSCodium", ".vscode-oss"),
        Variant("cursor", "Cursor", "Cursor", ".cursor"),
        Variant("windsurf", "Windsurf", "Windsurf", ".windsurf"),
    )
}


def app_data(env: Env) -> Path:
    """VS Code's appData root: ``$VSCODE_APPDATA`` wins on every OS (VS Code ``getAppDataPath``)."""
    override = env.get("VSCODE_APPDATA")
    if override:
        return Path(override)
    return env.appdata  # Linux $XDG_CONFIG_HOME or ~/.config; macOS Application Support; %APPDATA%


def user_dir(env: Env, variant: str = "code") -> Path:
    """``.../<Product>/User`` for one variant (``code``, ``insiders``, ``vscodium``, ``cursor``, ``windsurf``)."""
    portable = env.get("VSCODE_PORTABLE")
    if portable:
        return Path(portable) / "user-data" / "User"
    return app_data(env) / VARIANTS[variant].folder / "User"


def settings_file(env: Env, variant: str = "code") -> Path:
    return user_dir(env, variant) / "settings.json"


def extensions_dir(env: Env, variant: str = "code") -> Path:
    portable = env.get("VSCODE_PORTABLE")
    if portable:
        return Path(portable) / "extensions"
    return env.home / VARIANTS[variant].dot_folder / "extensions"


def installed_variants(env: Env) -> list[str]:
    """Variants that have run here (``User/globalStorage`` or an extensions folder), in VARIANTS order.

    A bare ``User/settings.json`` is not proof: gwconf itself may have created it for another client.
    """
    return [
        v
        for v in VARIANTS
        if (user_dir(env, v) / "globalStorage").is_dir() or extensions_dir(env, v).is_dir()
    ]


_VERSION = lazy(r"-(\d+(?:\.\d+)*)(?:-[A-Za-z0-9._-]+)?$")


def extension_version(env: Env, variant: str, extension_id: str) -> str | None:
    """The highest installed version of ``publisher.name`` (folder ``publisher.name-1.2.3``), or None."""
    prefix = extension_id.lower() + "-"
    best: tuple[int, ...] | None = None
    best_text: str | None = None
    for name in _extension_folders(extensions_dir(env, variant)):
        if not name.lower().startswith(prefix):
            continue
        match = _VERSION.search(name[len(prefix) - 1 :])
        if not match:
            continue
        numbers = tuple(int(n) for n in match.group(1).split("."))
        if best is None or numbers > best:
            best, best_text = numbers, match.group(1)
    return best_text


def installed_versions(env: Env, extension_id: str) -> list[tuple[str, tuple[int, ...]]]:
    """(variant, version) for every installed copy of ``publisher.name``, in VARIANTS order."""
    found = []
    prefix = extension_id.lower() + "-"
    for variant in VARIANTS:
        for name in sorted(_extension_folders(extensions_dir(env, variant))):
            if not name.lower().startswith(prefix):
                continue
            match = _VERSION.search(name[len(prefix) - 1 :])
            if match:
                found.append((variant, tuple(int(n) for n in match.group(1).split("."))))
    return found


def _extension_folders(folder: Path) -> tuple[str, ...]:
    """The names of the folders in an extensions folder (none if it is missing), listed once per
    command: ``status`` listed each of them for each VS Code extension client, with a stat of
    every entry."""
    from gwconf import fileio

    return fileio.viewed(("extension folders", folder), lambda: _list_folders(folder))  # type: ignore[no-any-return]


def _list_folders(folder: Path) -> tuple[str, ...]:
    try:
        with os.scandir(folder) as entries:
            return tuple(entry.name for entry in entries if entry.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return ()


def variants_with_extension(env: Env, extension_id: str) -> list[str]:
    return [v for v in VARIANTS if extension_version(env, v, extension_id)]


def other_profiles(env: Env, variant: str) -> list[Path]:
    """Non-default VS Code profiles of a variant (each has its own settings)."""
    folder = user_dir(env, variant) / "profiles"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir())
