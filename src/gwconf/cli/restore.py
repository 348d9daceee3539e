"""gwconf restore: put back what was there before gwconf."""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _common, _writing


@click.command(
    "restore",
    epilog="""\b
Examples:
  gwconf restore codex            # key by key, as it was before gwconf
  gwconf restore --all --dry-run  # show what would be put back
""",
)
@_common.clients_argument
@click.option("--all", "all_clients", is_flag=True, help="Every client gwconf has written.")
@click.option(
    "--dry-run",
    "-n",
    is_flag=True,
    help="Show the diff, and what the run would refuse (a file it cannot write, an app running); write nothing.",
)
@click.option("--force", is_flag=True, help="Write even while an app that rewrites its own files is running.")
@click.option("--project", is_flag=True, help="Undo `gwconf apply CLIENT --project` in this project.")
@_common.json_option
def command(**options: Any) -> int:
    """Put back what each client's files held before gwconf.

    A file untouched since gwconf wrote it gets its original bytes back exactly; a file gwconf
    created is removed. Where you changed a managed key since, your value is left alone and
    reported. Timestamped whole-file backups stay in gwconf's state folder as a last resort.

    If gwconf's ledger is damaged, restore works from the backups, and apply and use refuse to write
    until --all (or the restore of the last client in the backups) sets the damaged ledger aside.
    If the ledger was deleted, restore works from the backups of the clients still applied.
    """
    return _writing.restore(**options)
