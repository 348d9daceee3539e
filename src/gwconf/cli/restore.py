"""gwconf restore: put back what was there before gwconf."""

from __future__ import annotations

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode, UsageError


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
@click.option("--dry-run", "-n", is_flag=True, help="Show the diff; write nothing.")
@click.option("--force", is_flag=True, help="Write even while an app that rewrites its own files is running.")
@click.option("--project", is_flag=True, help="Undo `gwconf apply CLIENT --project` in this project.")
@_common.json_option
def command(
    client_ids: tuple[str, ...], all_clients: bool, dry_run: bool, force: bool, project: bool, as_json: bool
) -> int:
    """Put back what each client's files held before gwconf.

    A file untouched since gwconf wrote it gets its original bytes back exactly; a file gwconf
    created is removed. Where you changed a managed key since, your value is left alone and
    reported. Timestamped whole-file backups stay in gwconf's state folder as a last resort.

    If gwconf's ledger is damaged, restore works from the backups, and apply and use refuse to write
    until --all (or the restore of the last client in the backups) sets the damaged ledger aside.
    """
    from gwconf import operations, registry
    from gwconf import plan as planning
    from gwconf.ledger import Ledger

    if all_clients == bool(client_ids):
        raise UsageError(
            "name the clients to restore, or pass --all (not both).",
            "e.g. gwconf restore codex, or gwconf restore --all  (what gwconf wrote: gwconf status)",
        )
    env = _common.env()
    if not dry_run:
        for note in operations.repair_interrupted(env):
            _output.warn(note)
    ledger = Ledger(env)
    if ledger.damaged:
        _output.warn(
            f"{ledger.damaged}: restoring from the backups gwconf can still find; the damaged file is "
            "set aside (ledger.damaged-*.json in the same folder) once no client needs it"
        )
    if all_clients:
        known = planning.clients_in_backups(env) if ledger.damaged else ledger.clients()
        clients = [registry.get(c) for c in known if c in registry.MODULES]
        if not clients:
            _output.out("Nothing to restore: gwconf has not written any client's files.")
    else:
        clients = _common.resolve_clients(client_ids)
    if project:
        from gwconf import project as projects

        if all_clients:
            raise UsageError(
                "--project takes client names, not --all.", "e.g. gwconf restore claude-code --project"
            )
        scoped = projects.adapters(clients, env)
        results = operations.restore_clients(list(scoped), env, dry_run=dry_run, force=force)
        for adapter, result in zip(scoped, results, strict=True):
            result.id = adapter.client_id
    else:
        results = operations.restore_clients(clients, env, dry_run=dry_run, force=force)
    aside = None
    if ledger.damaged and not dry_run:
        aside = operations.settle_damaged_ledger(env, results, every=all_clients)
    if as_json:
        _output.emit_json(
            {
                "dry_run": dry_run,
                "clients": [r.to_json() for r in results],
                "ledger_set_aside": None if aside is None else str(aside),
            }
        )
    else:
        for result in results:
            _output.out(_output.style(f"== {result.id} ({result.name})", bold=True))
            if result.error:
                _output.print_error(result.error)
                continue
            for file in result.files:
                if dry_run:
                    _output.out(_output.colour_diff(file.diff).rstrip("\n"))
                else:
                    verb = {"create": "recreated", "modify": "restored", "remove": "removed"}[file.action]
                    _output.out(f"  {verb} {file.path}")
            for line in result.left_alone:
                _output.warn(line)
            for note in result.notes:
                _output.out(f"  {note}")
            if result.files and result.restart:
                _output.out(f"  restart: {result.restart}")
    if aside is not None:
        _output.warn(f"the damaged ledger was set aside as {aside} (kept for you); gwconf starts a new one")
    elif ledger.damaged and not dry_run:
        _output.warn(
            f"{ledger.damaged}: kept in place, a client gwconf wrote still needs a restore; "
            "apply and use refuse to write until then (gwconf restore --all)"
        )
    return int(ExitCode.ERROR) if any(r.error for r in results) else 0
