"""gwconf apply: point clients at a profile."""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode, UsageError


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
@click.option("--dry-run", "-n", is_flag=True, help="Show the diff of every file; write nothing.")
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
def command(
    client_ids: tuple[str, ...],
    all_clients: bool,
    all_supported: bool,
    profile_ref: str | None,
    model: str | None,
    dry_run: bool,
    check: bool,
    stat: bool,
    force: bool,
    show_key: bool,
    project: bool,
    as_json: bool,
) -> int:
    """Rewrite clients' configuration files to use a gateway profile.

    Only the keys gwconf manages change (base address, key, model, provider); everything else
    in each file is kept byte for byte. The original is backed up first; `gwconf restore` puts
    it back. Each client ends with what to restart.
    """
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
    )
    _add_notes_and_steps(results, missing, profile, env, show_key)
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
        _render(results, profile.name, dry_run or check, show_key)
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


def _add_notes_and_steps(
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


def _render(results: list[Any], profile: str, dry_run: bool, show_key: bool, undo_flag: str = "") -> None:
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
                click.echo(line) if show_key else out(line)  # --show-key: the key in full, on request
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
    secret_files = [f.path for a in adapters for f in a.files(env) if f.secret]
    guard_notes = project.guard_from_git(secret_files, env, dry_run=dry_run or check)
    results = operations.apply_profile(adapters, profile, env, dry_run=dry_run or check, model=model)
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
        _render(results, profile.name, dry_run or check, False, " --project")
        if not dry_run and not check and any(r.changed for r in results):
            _output.out("Only this project's files were written; the global ones were not touched.")
    if any(r.error for r in results):
        return int(ExitCode.ERROR)
    if check and any(r.changed for r in results):
        return int(ExitCode.CHANGES_PENDING)
    return 0
