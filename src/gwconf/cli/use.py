"""gwconf use: switch the active profile and re-apply it."""

from __future__ import annotations

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode


@click.command(
    "use",
    epilog="""\b
Examples:
  gwconf use work              # switch, and re-apply to every client applied before
  gwconf use home --no-apply   # only switch the active profile
""",
)
@click.argument("name", shell_complete=_common.complete_profiles)
@click.option("--no-apply", is_flag=True, help="Only make it the active profile.")
@click.option("--dry-run", "-n", is_flag=True, help="Show what re-applying would change; switch nothing.")
@click.option("--force", is_flag=True, help="Write even while an app that rewrites its own files is running.")
@_common.json_option
def command(name: str, no_apply: bool, dry_run: bool, force: bool, as_json: bool) -> int:
    """Make NAME the active profile and re-apply it to every client gwconf applied before."""
    from gwconf import operations, registry
    from gwconf.ledger import Ledger
    from gwconf.profiles import ProfileStore

    env = _common.env()
    store = ProfileStore(env)
    profile = store.load(name)
    if not dry_run:
        for note in operations.repair_interrupted(env):
            _output.warn(note)
        store.set_active(profile.name)
    clients = [] if no_apply else [registry.get(c) for c in Ledger(env).clients() if c in registry.MODULES]
    results = []
    if clients:
        _output.remember_key(profile.resolve_key(env))
        results = operations.apply_profile(clients, profile, env, dry_run=dry_run, force=force)
    if as_json:
        _output.emit_json(
            {"active": profile.name, "dry_run": dry_run, "clients": [r.to_json() for r in results]}
        )
    else:
        _output.out(f"Active profile: {profile.name}" + (" (dry run: not switched)" if dry_run else ""))
        if not clients and not no_apply:
            _output.out("No client was applied before; apply one with: gwconf apply CLIENT")
        for result in results:
            if result.error:
                _output.print_error(result.error)
            elif result.changed:
                _output.out(f"  {result.id}: re-applied ({', '.join(f.path for f in result.files)})")
                _output.out(f"    restart: {result.restart}")
            else:
                _output.out(f"  {result.id}: already up to date")
    return int(ExitCode.ERROR) if any(r.error for r in results) else 0
