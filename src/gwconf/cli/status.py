"""gwconf status: where each client points now."""

from __future__ import annotations

import click

from gwconf.cli import _common


@click.command(
    "status",
    epilog="""\b
Examples:
  gwconf status              # every client gwconf applied, or detected
  gwconf status codex --json
""",
)
@_common.clients_argument
@_common.json_option
def command(client_ids: tuple[str, ...], as_json: bool) -> int:
    """Show each client's base address, key (masked), model and provider, the profile it matches,
    and any managed key changed by hand since gwconf wrote it."""
    from gwconf.cli._listing import status

    return status(client_ids, as_json)
