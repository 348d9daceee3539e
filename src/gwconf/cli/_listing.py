"""``gwconf profile list``: the listing itself, without click.

The click command (``gwconf.cli.profile``) and the click-free path in ``gwconf.cli.run`` both
call ``list_profiles``, so the two print the same thing: the path skips click's import, about
three times Python's own start-up (issue 15).
"""

from __future__ import annotations

from typing import Any

from gwconf.cli import _output


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
