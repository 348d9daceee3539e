"""gwconf current: the active profile's name, for shell prompts.

``gwconf current`` and ``gwconf current --json`` are answered before click is imported
(``gwconf.cli.print_current``); this command exists for ``--help``, completion and the listing.
"""

from __future__ import annotations

import click

from gwconf.cli import _common


@click.command(
    "current",
    epilog="""\b
Examples:
  gwconf current                          # work
  gwconf current --json                   # {"active": "work"}
  PS1='$(gwconf current 2>/dev/null) \\$ '  # in a shell prompt
""",
)
@_common.json_option
def command(as_json: bool) -> int:
    """Print the active profile's name (for shell prompts); exit 1 when there is none.

    It reads one small file and runs no key command, so a prompt stays fast.
    """
    from gwconf.cli import print_current

    return print_current(as_json)
