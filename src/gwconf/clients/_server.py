"""Self-hosted chat servers (LibreChat, AnythingLLM, Open WebUI, LobeChat): finding their folder.

A server lives wherever its admin cloned or deployed it, not under a fixed home path. gwconf
looks, in order: an environment variable naming the folder (``LIBRECHAT_DIR``...), then the
current folder when it holds the server's marker files (``librechat.yaml``, a compose file that
runs the image...). Without either, gwconf refuses to write and says how to point it there; it
never guesses a folder and never creates one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gwconf.errors import ClientError, NotSetUp
from gwconf.paths import Env
from gwconf.records import record

COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


@record(frozen=True)
class Location:
    folder: Path
    how: str  # "$LIBRECHAT_DIR", "the current folder"...
    found: bool  # False: the fallback (cwd) that gwconf will not write to


def locate(
    env: Env, variable: str, marks: Callable[[Path], bool], *, fallback: Path | None = None
) -> Location:
    value = env.get(variable)
    if value:
        return Location(env.expand(value), f"${variable}", True)
    if marks(env.cwd):
        return Location(env.cwd, "the current folder", True)
    if fallback is not None:
        return Location(fallback, "the default folder", True)
    return Location(env.cwd, "the current folder", False)


def require(location: Location, name: str, variable: str, marker_text: str) -> None:
    """Refuse to write when the server's folder was not found (never create one by guessing)."""
    if not location.found:
        raise NotSetUp(
            f"no {name} folder found: ${variable} is not set and the current folder has no {marker_text}.",
            f"Run gwconf in the {name} folder, or: export {variable}=/path/to/{name.lower()}",
        )
    if not location.folder.is_dir():
        raise ClientError(
            f"{location.how} names {location.folder}, which is not a folder.",
            f"Point {variable} at the folder that holds your {name} installation.",
        )


def compose_mentions(folder: Path, *needles: str) -> bool:
    for name in COMPOSE_FILES:
        path = folder / name
        try:
            text = path.read_text(errors="replace") if path.is_file() else ""
        except OSError:
            continue
        if any(n in text for n in needles):
            return True
    return False


def compose_passes_env_file(folder: Path) -> bool | None:
    """Does a compose file here hand ``.env`` to the container? None when there is no compose file."""
    seen = False
    for name in COMPOSE_FILES:
        path = folder / name
        if not path.is_file():
            continue
        seen = True
        try:
            if "env_file" in path.read_text(errors="replace"):
                return True
        except OSError:
            continue
    return False if seen else None
