"""The listing commands without click: ``profile list``, ``clients`` and ``status``.

Each click command calls its function here, and ``gwconf.cli.run`` calls the same function
without importing click (about three times Python's own start-up) for the plain forms of the
command line, so both paths print the same thing (issue 15).
"""

from __future__ import annotations

from gwconf.cli import _output

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    from typing import Any


def collect() -> tuple[str | None, list[dict[str, Any]]]:
    """The active profile's name and one row per saved profile (an error row for a damaged file).

    Reads only: the click-free path calls it before printing anything, so when it raises, click
    can run the command from the start and report the error the usual way.
    """
    from gwconf.paths import Env
    from gwconf.profiles import ProfileStore

    store = ProfileStore(Env.current())
    active = store.active()
    rows: list[dict[str, Any]] = []
    for name in store.names():
        try:
            rows.append(store.load(name).public_dict())
        except Exception as exc:  # a damaged file is listed, not fatal
            rows.append({"name": name, "error": str(exc)})
    return active, rows


def render(active: str | None, rows: list[dict[str, Any]], as_json: bool) -> int:
    if as_json:
        _output.emit_json({"active": active, "profiles": rows})
        return 0
    if not rows:
        _output.out("No profiles yet. Create one: gwconf profile add NAME --base-url URL")
    for row in rows:
        mark = "*" if row["name"] == active else " "
        if "error" in row:
            _output.out(f"{mark} {row['name']:<16} (cannot be read: {row['error']})")
        else:
            _output.out(
                f"{mark} {row['name']:<16} {row['base_url']}  model={row['model'] or '-'}  key={row['key_source']}"
            )
    return 0


def list_profiles(as_json: bool) -> int:
    """List saved profiles; the active one is marked with *."""
    active, rows = collect()
    return render(active, rows, as_json)


def clients(as_json: bool) -> int:
    """``gwconf clients [--json]``: every supported client, detected or not, and where it points."""
    from gwconf import limits, operations, registry
    from gwconf.ledger import Ledger
    from gwconf.paths import Env

    env = Env.current()
    profiles = operations.load_profiles(env)
    ledger = Ledger(env)
    rows = operations.client_statuses(registry.all_clients(), env, profiles, ledger)
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


def status(client_ids: tuple[str, ...], as_json: bool) -> int:
    """``gwconf status [CLIENT...] [--json]``: where each client points now.

    ``operations`` (and the planning core it brings) is imported only for rows to show: with no
    client applied or detected, status is the detection alone (issue 15)."""
    from gwconf import registry
    from gwconf.ledger import Ledger
    from gwconf.paths import Env
    from gwconf.profiles import ProfileStore

    env = Env.current()
    ledger = Ledger(env)
    if ledger.damaged:  # loudly, and left where it is: status only reads
        from gwconf.errors import GwconfError

        _output.print_error(
            GwconfError(
                f"{ledger.damaged}: gwconf cannot tell which clients it applied.",
                "`gwconf restore --all` restores from the backups it can still find, then sets the "
                "damaged ledger aside; until then apply refuses to write the clients gwconf wrote.",
            )
        )
    detected: dict[str, bool] = {}  # asked once per client: client_status needs the answer too
    if client_ids:
        from gwconf.cli._common import resolve_clients

        clients = resolve_clients(client_ids)
    else:
        applied = set(ledger.clients())
        clients = []
        for client_id in registry.IDS:
            if client_id in registry.TIER_3 and client_id not in applied:
                continue  # never detected for status: its module is not even imported
            c = registry.get(client_id)
            if c.tier < 3:
                detected[c.id] = c.detect(env)
            if c.id in applied or detected.get(c.id):
                clients.append(c)
    store = ProfileStore(env)
    profiles = store.readable()
    for profile in profiles:  # masked wherever printed; a key command is not run for this
        _output.remember_key(profile.cheap_key(env))
    rows = []
    if clients:
        from gwconf import operations

        rows = operations.client_statuses(clients, env, profiles, ledger, detected)
    active = store.active()
    here = _chosen_here(store)
    interrupted = (env.state_dir / "journal.json").exists()
    if as_json:
        _output.emit_json(
            {
                "active_profile": active,
                "profile_here": here,
                "interrupted_run": interrupted,
                "ledger_damaged": ledger.damaged,
                "clients": [r.to_json() for r in rows],
            }
        )
        return unreadable(rows, ledger.damaged)
    if interrupted:  # what status shows may be half of a change: say so before it
        _output.warn(
            "an interrupted gwconf run left a change half-done; the next gwconf apply, use or restore "
            "puts the files back as they were (or finishes the change)."
        )
    _output.out(f"Active profile: {active or '(none)'}")
    if here.get("error"):
        _output.warn(str(here["error"]))
    elif here["source"] not in ("active", None):
        _output.out(f"Used here:      {here['profile']} (chosen by {here['chosen_by']})")
    if not rows:
        _output.out("No client applied or detected yet. Try: gwconf clients")
    for r in rows:
        _output.out(_output.style(f"== {r.id} ({r.name})", bold=True))
        if r.error:  # said here in one line, so the section is not empty; the whole error on stderr
            first = (str(r.error).strip().splitlines() or [type(r.error).__name__])[0]
            _output.out(f"  unreadable    {first}")
            _output.out(f"  details       on stderr, with what to do; more: gwconf doctor {r.id}")
            _output.print_error(r.error)
            continue
        if r.reading is None:
            _output.out("  configured in the app itself (tier 3): gwconf cannot read it")
            continue
        data = r.to_json()
        _output.out(f"  base address  {data['base_url'] or '-'}")
        _output.out(f"  key           {data['key'] or '-'}  ({r.reading.key_origin or 'not found'})")
        _output.out(f"  model         {data['model'] or '-'}")
        _output.out(f"  provider      {data['provider'] or '-'}")
        _output.out(f"  profile       {r.profile or 'none of the saved profiles'}")
        if r.applied_profile and r.applied_profile != r.profile:
            _output.out(f"  gwconf last applied {r.applied_profile!r} here")
        for line in r.drift:
            _output.warn(f"changed by hand since gwconf wrote it: {line}")
        for other in r.others:
            _output.out(f"  also managed  by {other.manager.name}: {other.evidence}")
    return unreadable(rows, ledger.damaged)


def unreadable(rows: list[Any], ledger_damaged: object = None) -> int:
    """1 when a file status shows cannot be read (the exit-code table's 'bad file'), else 0."""
    from gwconf.errors import ExitCode

    broken = any(r.error is not None or any(": cannot be read (" in d for d in r.drift) for r in rows)
    return int(ExitCode.ERROR) if broken or ledger_damaged else 0


def _chosen_here(store: object) -> dict[str, Any]:
    """The profile commands in this folder use and what chose it (GWCONF_PROFILE, a .gwconf.toml)."""
    from gwconf.errors import GwconfError

    try:
        choice = store.choose(None)  # type: ignore[attr-defined]
    except GwconfError as exc:
        return {"profile": None, "source": None, "file": None, "chosen_by": None, "error": exc.message}
    return {**choice.to_json(), "chosen_by": choice.describe() if choice.source else None}
