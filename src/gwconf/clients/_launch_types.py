"""What a client's ``launch`` hook fills in for ``gwconf run`` (the process machinery is in ``launch.py``).

Client modules import these types from here, below ``clients/``, so the arrows run one way:
``launch -> clients -> formats``, never a client module back up to ``launch``.
"""

from __future__ import annotations

from pathlib import Path

from gwconf.errors import ClientError
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

    from gwconf.clients._base import Target


@record(frozen=True)
class TempPath:
    """A path inside the launch's temporary folder: known only once the launch starts."""

    name: str = ""

    def resolve(self, folder: Path) -> str:
        return str(folder / self.name) if self.name else str(folder)


Arg = str | TempPath


@record
class LaunchSpec:
    """How one client starts with a target injected.

    ``argv``: the program and its arguments (the user's come last, so their own flags win);
    ``env``: variables set in the child; ``unset``: more variables removed from it;
    ``files``: temporary files (name -> text) written before the start;
    ``copies``: temporary name -> the user's folder (or file) it stands in for, linked entry by entry;
    ``render``: client file role -> temporary name: that file as the client's ``render()`` edits it;
    ``fresh``: render into empty documents instead of the user's files;
    ``dotenv_over``: temporary names of .env files the client loads over its own environment
    (linked or rendered): every variable this launch sets or unsets is taken out of them, in a
    private copy, or the file would put back what the launch took away.
    ``beats_project``: the client's own precedence puts what this launch passes above every
    project file in the current folder (an option, an exported variable, an inline layer read
    last). Left False, ``gwconf run`` refuses to start the client where a project file points it
    at an address no profile has: that file would then win, and get the key.
    """

    argv: list[Arg]
    env: dict[str, Arg] = field(default_factory=dict)
    unset: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    copies: dict[str, Path] = field(default_factory=dict)
    render: dict[str, str] = field(default_factory=dict)
    fresh: bool = False
    dotenv_over: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    beats_project: bool = False

    @property
    def needs_temp(self) -> bool:
        used = [*self.argv, *self.env.values()]
        return bool(
            self.files
            or self.copies
            or self.render
            or self.dotenv_over
            or any(isinstance(a, TempPath) for a in used)
        )

    @property
    def own_files(self) -> set[str]:
        """The temporary names whose files gwconf wrote (they may hold the key): never carried back."""
        return {*self.render.values(), *self.files, *self.dotenv_over}


def require_model(target: Target, client_name: str, setting: str) -> str:
    """The target's model, or the error ``render()`` gives for a client that cannot do without one."""
    if not target.model:
        raise ClientError(
            f"{client_name} needs a model name ({setting}).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    return target.model


def fresh_document(fmt: str, source: str) -> Any:
    """An empty document of ``fmt``, for a hook that builds a settings text with ``render()``."""
    from gwconf import formats

    return formats.load(fmt, "", source)
