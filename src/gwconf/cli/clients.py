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
    from gwconf import operations, registry
    from gwconf.ledger import Ledger

    env = _common.env()
    profiles = operations.load_profiles(env)
    ledger = Ledger(env)
    rows = [operations.client_status(c, env, profiles, ledger) for c in registry.all_clients()]
    if as_json:
        _output.emit_json({"clients": [r.to_json() for r in rows]})
        return 0
    width = max(len(r.id) for r in rows)
    _output.out(f"{'CLIENT':<{width}}  TIER  DETECTED  POINTS AT      FILES")
    for r in rows:
        points = r.profile or ("(unreadable)" if r.error else "-")
        _output.out(
            f"{r.id:<{width}}  {r.tier:<4}  {'yes' if r.detected else 'no':<8}  {points:<14}  {', '.join(r.files) or '-'}"
        )
    return 0
