"""gwconf use: switch the active profile and re-apply it."""

from __future__ import annotations

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode
from gwconf.paths import Env


@click.command(
    "use",
    epilog="""\b
Examples:
  gwconf use work              # switch, and re-apply to every client applied before
  gwconf use home --no-apply   # only switch the active profile
  gwconf use client-a --dir    # this folder (and below) uses client-a: writes ./.gwconf.toml
  gwconf use --dir --unset     # remove this folder's binding
""",
)
@click.argument("name", required=False, shell_complete=_common.complete_profiles)
@click.option("--no-apply", is_flag=True, help="Only make it the active profile.")
@click.option(
    "--dir",
    "in_dir",
    is_flag=True,
    help="Bind the current folder instead: write ./.gwconf.toml naming NAME; nothing global changes.",
)
@click.option("--unset", is_flag=True, help="With --dir: remove the current folder's .gwconf.toml.")
@click.option("--dry-run", "-n", is_flag=True, help="Show what re-applying would change; switch nothing.")
@click.option("--force", is_flag=True, help="Write even while an app that rewrites its own files is running.")
@_common.json_option
def command(
    name: str | None, no_apply: bool, in_dir: bool, unset: bool, dry_run: bool, force: bool, as_json: bool
) -> int:
    """Make NAME the active profile and re-apply it to every client gwconf applied before.

    With --dir, bind the current folder instead: ./.gwconf.toml names NAME, and every gwconf
    command run in this folder or below it uses NAME (after --profile and GWCONF_PROFILE, before
    the active profile). The file holds the name only: the address and the key stay in the saved
    profile, so it can be committed. --dir --unset removes it.
    """
    from gwconf import operations, registry
    from gwconf import plan as planning
    from gwconf.errors import UsageError
    from gwconf.ledger import Ledger
    from gwconf.profiles import ProfileStore

    env = _common.env()
    if unset and not in_dir:
        raise UsageError(
            "--unset works with --dir only.", "Remove this folder's binding: gwconf use --dir --unset"
        )
    if in_dir:
        return _bind(env, name, unset, as_json)
    if name is None:
        raise UsageError("name the profile to use.", "See the saved profiles: gwconf profile list")
    store = ProfileStore(env)
    profile = store.load(name)
    if not dry_run:
        for note in operations.repair_interrupted(env):
            _output.warn(note)
        store.set_active(profile.name)
    ledger = Ledger(env)
    # a damaged ledger names no client: the backups do, and apply refuses to write them until restored
    known = planning.clients_in_backups(env) if ledger.damaged else ledger.clients()
    clients = [] if no_apply else [registry.get(c) for c in known if c in registry.MODULES]
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
        _say_when_overridden(store, profile.name)
        if not clients and not no_apply:
            _output.out("No client was applied before; apply one with: gwconf apply CLIENT")
        for result in results:
            if result.error:
                _output.print_error(result.error)
            elif result.changed:
                _output.out(f"  {result.id}: re-applied ({', '.join(f.path for f in result.files)})")
                for note in result.notes:  # e.g. a stated default written for unknown limits
                    _output.out(f"    note: {note}")
                _output.out(f"    restart: {result.restart}")
            else:
                _output.out(f"  {result.id}: already up to date")
    return int(ExitCode.ERROR) if any(r.error for r in results) else 0


def _say_when_overridden(store: object, name: str) -> None:
    """The active profile is the last in the order: say when GWCONF_PROFILE or a folder wins here."""
    from gwconf import binding
    from gwconf.errors import GwconfError

    try:
        here = store.choose(None)  # type: ignore[attr-defined]
    except GwconfError:
        return
    if here.source in (binding.ENVIRONMENT, binding.FOLDER) and here.name != name:
        _output.warn(
            f"here {here.describe()} chooses {here.name!r}, which wins over the active profile "
            "(gwconf current shows what is used)"
        )


def _bind(env: Env, name: str | None, unset: bool, as_json: bool) -> int:
    from gwconf import project
    from gwconf.errors import UsageError
    from gwconf.profiles import ProfileStore

    if unset:
        if name:
            raise UsageError("--dir --unset takes no profile name.", "gwconf use --dir --unset")
        result = project.unbind(env)
        if as_json:
            _output.emit_json({"file": str(result.path), "action": result.action, "profile": result.previous})
        elif result.action == "removed":
            _output.out(f"Removed {result.path} (it named {result.previous!r}).")
        else:
            _output.out(f"No {result.path.name} here: nothing to remove.")
            if result.previous:
                _output.out(f"  (the binding in effect here is {result.previous}; unset it in that folder)")
        return 0
    if not name:
        raise UsageError("name the profile to bind this folder to.", "e.g. gwconf use work --dir")
    store = ProfileStore(env)
    profile = store.load(name)  # it must exist here (a typo would bind to nothing)
    if profile.source is None or profile.source.parent != store.folder:
        raise UsageError(
            f"{name!r} is not a saved profile; a folder binding names a saved profile only.",
            f"Save it first: gwconf profile add {profile.name} ...  (see: gwconf profile list)",
        )
    result = project.bind(env, profile.name)
    if as_json:
        _output.emit_json(
            {
                "file": str(result.path),
                "action": result.action,
                "profile": profile.name,
                "previous": result.previous,
            }
        )
        return 0
    verb = {"created": "Wrote", "updated": "Updated", "unchanged": "Already"}[result.action]
    _output.out(
        f"{verb} {result.path}: this folder and the ones below it use profile {profile.name!r}"
        + (f" (was {result.previous!r})" if result.previous and result.action == "updated" else "")
        + "."
    )
    _output.out("  It holds the name only (no address, no key): it can be committed.")
    _output.out("  Check: gwconf current   Remove: gwconf use --dir --unset")
    import os

    if os.environ.get("GWCONF_PROFILE") and os.environ["GWCONF_PROFILE"] != profile.name:
        _output.warn(
            f"GWCONF_PROFILE={os.environ['GWCONF_PROFILE']} is set in this shell and wins over the folder"
        )
    return 0
