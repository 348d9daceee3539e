"""gwconf: point every AI client at one model gateway, safely."""

__version__ = "0.1.0"

# what ``formats.keep_until_exit`` keeps: None (nothing) but in a process whose entry point ends
# it with ``os._exit`` (``cli.main`` sets a list here before the command runs)
kept_until_exit: list[object] | None = None

# how a command says it waits for another gwconf's lock (``fileio.exclusive_lock``): None (say
# nothing) but in a process the console entry point runs (``cli.main`` sets it)
wait_note: "Callable[[str], None] | None" = None

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
