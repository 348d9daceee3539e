"""gwconf clients: every supported client and where it points."""

from __future__ import annotations

import click

from gwconf.cli import _common, _output


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
    from gwconf import limits, operations, registry
    from gwconf.ledger import Ledger

    env = _common.env()
    profiles = operations.load_profiles(env)
    ledger = Ledger(env)
    rows = [operations.client_status(c, env, profiles, ledger) for c in registry.all_clients()]
    if as_json:
        _output.emit_json({"clients": [{**r.to_json(), **limits.place(r.id)} for r in rows]})
        return 0
    table = [("CLIENT", "TIER", "DETECTED", "POINTS AT", "FILES")]
    for r in rows:
        points = r.profile or ("(unreadable)" if r.error else "-")
        table.append((r.id, str(r.tier), "yes" if r.detected else "no", points, ", ".join(r.files) or "-"))
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    for row in table:
        _output.out("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)) + "  " + row[4])
    return 0
