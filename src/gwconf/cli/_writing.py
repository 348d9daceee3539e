"""The writing commands' bodies without click: ``apply``, ``use`` and ``restore``.

Each click command (``cli/apply.py``, ``cli/use.py``, ``cli/restore.py``) parses its options and calls
its function here; ``gwconf.cli.run`` calls the same function for the plain forms of those command
lines (flags only, no option that takes a value), without importing click: click's import was about
50 ms of each (issue 15). Everything a command prints goes through ``_output``, as before.
"""

from __future__ import annotations

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode, UsageError
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs about 5 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any


def apply(
    client_ids: tuple[str, ...],
    *,
    all_clients: bool = False,
    all_supported: bool = False,
    profile_ref: str | None = None,
    model: str | None = None,
    dry_run: bool = False,
    check: bool = False,
    stat: bool = False,
    force: bool = False,
    show_key: bool = False,
    project: bool = False,
    as_json: bool = False,
) -> int:
    """``gwconf apply`` (see ``cli/apply.py`` for its options; the defaults are its flags unset)."""
    from gwconf import operations
    from gwconf.profiles import ProfileStore

    if sum(map(bool, (all_clients, all_supported, client_ids))) > 1:
        raise UsageError(
            "give client names, --all or --all-supported: only one of them.",
            "e.g. gwconf apply codex claude-code, or gwconf apply --all",
        )
    if not all_clients and not all_supported and not client_ids:
        raise UsageError("name the clients to apply, or pass --all.", "See the clients with: gwconf clients")
    env = _common.env()
    dry_run = dry_run or stat
    if project and (all_clients or all_supported):
        raise UsageError(
            "--project takes client names, not --all.", "e.g. gwconf apply claude-code opencode --project"
        )
    if not dry_run and not check:
        for note in operations.repair_interrupted(env):
            _output.warn(note)
    profile = ProfileStore(env).load(profile_ref)
    if project:
        return _apply_project(client_ids, profile, env, model, dry_run, check, as_json)
    clients = _chosen_clients(env, client_ids, all_clients, all_supported)
    missing = {c.id for c in clients if c.tier < 3 and not c.detect(env)} if not all_clients else set()
    key = profile.resolve_key(env)
    _output.remember_key(key)
    results = operations.apply_profile(
        clients,
        profile,
        env,
        dry_run=dry_run or check,
        model=model,
        force=force,
        skip_not_set_up=all_clients or all_supported,
        swept=True,  # (a write happens only where repair_interrupted ran above)
    )
    add_notes_and_steps(results, missing, profile, env, show_key)
    failed = any(r.error for r in results)
    pending = any(r.changed for r in results)
    if as_json:
        _output.emit_json(
            {
                "profile": profile.name,
                "dry_run": dry_run or check,
                "clients": [r.to_json() for r in results],
            }
        )
    elif stat:
        for result in results:
            _output.out(summary_line(result))
        _output.out(_dry_run_total(results, profile.name))
    else:
        _say_chosen(profile)
        render_results(results, profile.name, dry_run or check, show_key)
    if failed:
        return int(ExitCode.ERROR)
    if check and pending:
        return int(ExitCode.CHANGES_PENDING)
    return 0


def _chosen_clients(
    env: Any, client_ids: tuple[str, ...], all_clients: bool, all_supported: bool
) -> list[Any]:
    """The clients named, every supported one, or (``--all``) those detected here."""
    from gwconf import registry

    if all_supported:
        return registry.all_clients()
    if not all_clients:
        return _common.resolve_clients(client_ids)
    # the same set whether writing, previewing (--dry-run) or checking (--check)
    clients = [c for c in registry.all_clients() if c.detect(env)]
    if not clients:
        _output.warn(
            "no supported client was detected (no program on PATH, no config folder); "
            "name one (gwconf apply codex), or preview every supported client with "
            "gwconf apply --all-supported --dry-run"
        )
    return clients


def add_notes_and_steps(
    results: list[Any], missing: set[str], profile: Any, env: Any, show_key: bool
) -> None:
    """A note for a client that does not look installed; the in-app steps where gwconf writes nothing."""
    from gwconf import registry

    for result in results:
        if result.id in missing and result.changed:
            result.notes.append(
                f"{result.name} does not look installed here: the file is ready for when it is."
            )
    for result in results:
        client = registry.get(result.id)
        if client.tier == 3 and show_key:
            result.steps = client.steps(client.target(profile, env), True)
        elif result.steps is None and not result.files and not result.error and not client.files(env):
            # nothing to write here (a link-only app, an editor variant without the file route): its steps
            result.steps = client.steps(client.target(profile, env), show_key)


def summary_line(result: object) -> str:
    """``codex          ~/.codex/config.toml (modify)``: what applying does to one client."""
    r: Any = result
    if r.error:
        return f"{r.id:<14} cannot be applied: {r.error.message}"
    if r.skipped:
        return f"{r.id:<14} skipped: {r.skipped.message}"
    if r.steps is not None and not r.files:
        return f"{r.id:<14} steps to do in the app (see: gwconf apply {r.id} --dry-run)"
    if not r.files:
        return f"{r.id:<14} already points at this profile"
    return f"{r.id:<14} " + ", ".join(f"{f.path} ({f.action})" for f in r.files)


def _dry_run_total(results: list[Any], profile: str) -> str:
    changed = [r.id for r in results if r.changed]
    return f"\nDry run: nothing was written. {_output.plural(len(changed), 'client')} would change (profile {profile!r})."


def render_results(
    results: list[Any], profile: str, dry_run: bool, show_key: bool = False, undo_flag: str = ""
) -> None:
    """What apply shows: each client's diff (dry run) or files written, notes, what to restart."""
    out = _output.out
    if dry_run and len(results) > 3:  # a long preview: the one-line summary first, then the diffs
        for result in results:
            out(summary_line(result))
        out("")
    for result in results:
        out(_output.style(f"== {result.id} ({result.name})", bold=True))
        if result.error:
            _output.print_error(result.error)
            continue
        if result.skipped:
            out(f"  skipped: {result.skipped.message}")
            if result.skipped.hint:
                out(f"  to include it: {result.skipped.hint}")
            continue
        for file in result.files:
            if dry_run:
                out(_output.colour_diff(file.diff).rstrip("\n"))
            else:
                verb = {"create": "created", "modify": "updated", "remove": "removed"}[file.action]
                out(f"  {verb} {file.path}")
        if result.steps is not None:
            out(
                "  This client cannot be configured through files; do this in the app:"
                if result.steps
                else ""
            )
            for number, step in enumerate(result.steps, 1):
                line = f"  {number}. {step}"
                _output.echo(line) if show_key else out(line)  # --show-key: the key in full, on request
            if not show_key:
                out("  (the key is masked; add --show-key to print it in full)")
        elif not result.files:
            out("  already points at this profile: nothing to change")
        for note in result.notes:
            out(f"  note: {note}")
        if result.files and result.restart:
            out(f"  {'then' if dry_run else 'restart'}: {result.restart}")
    changed = [r.id for r in results if r.changed]
    skipped = [r.id for r in results if r.skipped]
    if skipped:
        out(f"\nSkipped (nothing here to configure yet): {', '.join(skipped)}.")
    if dry_run:
        out(_dry_run_total(results, profile))
    elif changed:
        out(
            f"\nApplied profile {profile!r} to {', '.join(changed)}. Undo with: gwconf restore {' '.join(changed)}"
            + undo_flag
        )


def _say_chosen(profile: Any) -> None:
    """Which profile, when something other than the active profile or --profile chose it."""
    from gwconf import binding

    choice = getattr(profile, "chosen", None)
    if choice is not None and choice.source in (binding.ENVIRONMENT, binding.FOLDER):
        _output.out(f"Profile {profile.name!r}, chosen by {choice.describe()}.")


def _apply_project(
    client_ids: tuple[str, ...],
    profile: Any,
    env: Any,
    model: str | None,
    dry_run: bool,
    check: bool,
    as_json: bool,
) -> int:
    """``apply CLIENT --project``: the clients' own project-scope files; a file that gets the key is
    kept out of git (``.git/info/exclude``) before it is written."""
    from gwconf import operations, project

    adapters = project.adapters(_common.resolve_clients(client_ids), env)
    key = profile.resolve_key(env)
    _output.remember_key(key)
    files = [f for a in adapters for f in a.files(env)]
    real_files = project.inside([f.path for f in files], project.root_for(env))
    secret_files = [f.path for f in files if f.secret]
    # a link inside the project: the file it leads to must stay out of git as well
    secret_files += [real for f, real in zip(files, real_files, strict=True) if f.secret and real != f.path]
    guard_notes = project.guard_from_git(secret_files, env, dry_run=dry_run or check)
    results = operations.apply_profile(
        adapters, profile, env, dry_run=dry_run or check, model=model, swept=True
    )
    for adapter, result in zip(adapters, results, strict=True):
        result.id = adapter.client_id
    if results and guard_notes:
        verb = "would add" if dry_run or check else "added"
        results[0].notes += [note.replace("added", verb, 1) for note in guard_notes]
    if as_json:
        _output.emit_json(
            {
                "profile": profile.name,
                "project": str(project.root_for(env)),
                "dry_run": dry_run or check,
                "clients": [r.to_json() for r in results],
            }
        )
    else:
        _say_chosen(profile)
        render_results(results, profile.name, dry_run or check, False, " --project")
        if not dry_run and not check and any(r.changed for r in results):
            _output.out("Only this project's files were written; the global ones were not touched.")
    if any(r.error for r in results):
        return int(ExitCode.ERROR)
    if check and any(r.changed for r in results):
        return int(ExitCode.CHANGES_PENDING)
    return 0


def _switched_not_applied(exc: Exception, name: str, dry_run: bool) -> Exception:
    """``exc`` (a refusal, or a full disk under gwconf's own files) raised while ``use`` re-applied
    its clients, after it had made ``name`` active: the error then says that the active profile
    changed and the clients did not, and how to finish (the rest of ``gwconf`` would otherwise
    show a switch that never reached the clients, with nothing that said so)."""
    from gwconf.errors import GwconfError
    from gwconf.fileio import system_failure

    error = exc if isinstance(exc, GwconfError) else system_failure(exc)
    if error is None or dry_run:
        return exc
    finish = (
        f"The active profile is {name} already; the clients kept the profile they had. "
        f"Once that is fixed, gwconf use {name} re-applies them."
    )
    error.hint = f"{error.hint} {finish}" if error.hint else finish
    return error


def use(
    name: str | None,
    *,
    no_apply: bool = False,
    in_dir: bool = False,
    unset: bool = False,
    dry_run: bool = False,
    force: bool = False,
    as_json: bool = False,
) -> int:
    """``gwconf use`` (see ``cli/use.py`` for its options)."""
    import contextlib

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

    def applied_before() -> list[Any]:
        ledger = Ledger(env)
        # a damaged ledger names no client: the backups do, and apply refuses to write them until restored
        known = planning.clients_in_backups(env) if ledger.damaged else ledger.clients()
        return [] if no_apply else [registry.get(c) for c in known if c in registry.MODULES]

    if applied_before():  # a key command may ask for a passphrase: before the lock, not holding it
        _output.remember_key(profile.resolve_key(env))
    results = []
    with contextlib.nullcontext() if dry_run else operations.writing_lock(env):
        if not dry_run:  # switched and re-applied with no other gwconf in between
            for note in operations.repair_interrupted(env):
                _output.warn(note)
            store.set_active(profile.name)
        clients = applied_before()
        if clients:
            _output.remember_key(profile.resolve_key(env))  # (a key command runs once a command)
            try:
                results = operations.apply_profile(
                    clients, profile, env, dry_run=dry_run, force=force, swept=True
                )
            except Exception as exc:
                raise _switched_not_applied(exc, profile.name, dry_run) from None
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


def restore(
    client_ids: tuple[str, ...],
    *,
    all_clients: bool = False,
    dry_run: bool = False,
    force: bool = False,
    project: bool = False,
    as_json: bool = False,
) -> int:
    """``gwconf restore`` (see ``cli/restore.py`` for its options)."""
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
    lost = operations.clients_lost_by_the_ledger(ledger, env)
    if ledger.damaged:
        _output.warn(
            f"{ledger.damaged}: restoring from the backups gwconf can still find; the damaged file is "
            "set aside (ledger.damaged-*.json in the same folder) once no client needs it"
        )
    if all_clients:
        known = planning.clients_in_backups(env) if ledger.damaged else ledger.clients() or lost
        clients = [registry.get(c) for c in known if c in registry.MODULES]
    else:
        clients = _common.resolve_clients(client_ids)
    if any(client.id in lost for client in clients):
        _output.warn(f"{ledger.path} is missing: restoring from the backups gwconf can still find")
        others = sorted(set(lost) - {client.id for client in clients})
        if others:  # this restore starts a new ledger: their backups are history after it
            _output.warn(
                f"the backups also say gwconf wrote {', '.join(others)}: after this restore they are "
                "left as they are; gwconf restore --all restores every one of them"
            )
    elif all_clients and not clients:
        _output.out("Nothing to restore: gwconf has not written any client's files.")
    if project:
        from gwconf import project as projects

        if all_clients:
            raise UsageError(
                "--project takes client names, not --all.", "e.g. gwconf restore claude-code --project"
            )
        scoped = projects.adapters(clients, env)
        results = operations.restore_clients(list(scoped), env, dry_run=dry_run, force=force, swept=True)
        for adapter, result in zip(scoped, results, strict=True):
            result.id = adapter.client_id
    else:
        results = operations.restore_clients(clients, env, dry_run=dry_run, force=force, swept=True)
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
