"""gwconf clients: every supported client and where it points."""

from __future__ import annotations

import click

from gwconf.cli import _common


@click.command(
    "clients",
    epilog="""\b
Examples:
  gwconf clients            # table of every supported client
  gwconf clients --json     # for scripts
""",
)
@_common.json_option
def command(as_json: bool) -> int:
    """List every supported client: id, tier, detected, its files, and whether it points at a profile.

    Tier 1: gwconf writes its files. Tier 2: an official import link or file the app reads.
    Tier 3: gwconf prints the exact steps to do in the app.
    """
    from gwconf.cli._listing import clients

    return clients(as_json)
