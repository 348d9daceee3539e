"""gwconf apply: point clients at a profile."""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _common, _writing


@click.command(
    "apply",
    epilog="""\b
Examples:
  gwconf apply codex                          # the active profile
  gwconf apply codex claude-code -p work      # a saved profile
  gwconf apply --all --dry-run                # exactly what gwconf apply --all would write
  gwconf apply --all-supported --dry-run -p example   # every supported client, installed or not
  gwconf apply continue --model my-model --check   # exit 6 if the files differ
""",
)
@_common.clients_argument
@click.option("--all", "all_clients", is_flag=True, help="Every client detected here (see: gwconf clients).")
@click.option(
    "--all-supported", "all_supported", is_flag=True, help="Every supported client, installed or not."
)
@_common.profile_option
@click.option("--model", "-m", help="Use this model instead of the profile's.")
@click.option(
    "--dry-run",
    "-n",
    is_flag=True,
    help="Show the diff of every file, and what the run would refuse (a file it cannot write, an app running that would undo it); write nothing.",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 6 when any file would change.")
@click.option("--stat", is_flag=True, help="Write nothing; one line per client: which files would change.")
@click.option("--force", is_flag=True, help="Write even while an app that rewrites its own files is running.")
@click.option("--show-key", is_flag=True, help="Show the full key in printed steps (tier-3 clients).")
@click.option(
    "--project",
    is_flag=True,
    help="Write the client's own project-scope file here (e.g. .claude/settings.local.json), not its "
    "global one; kept out of git.",
)
@_common.json_option
def command(**options: Any) -> int:
    """Rewrite clients' configuration files to use a gateway profile.

    Only the keys gwconf manages change (base address, key, model, provider); everything else
    in each file is kept byte for byte. The original is backed up first; `gwconf restore` puts
    it back. Each client ends with what to restart.
    """
    return _writing.apply(**options)
