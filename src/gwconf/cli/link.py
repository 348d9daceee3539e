"""gwconf link: an app's own import link, built by that app's client module from a profile."""

from __future__ import annotations

import json

import click

from gwconf.cli import _common, _output


@click.command(
    "link",
    epilog="""\b
Examples:
  gwconf link cherry-studio --open        # the app asks you to confirm the import
  gwconf link chatbox -p work --show-key  # print the full link (it holds the key)
  gwconf link chatbox --json
""",
)
@click.argument("client_id", metavar="APP", shell_complete=_common.complete_link_apps)
@_common.profile_option
@click.option("--show-key", is_flag=True, help="Print the full link; it carries the key.")
@click.option(
    "--open",
    "open_it",
    is_flag=True,
    help="Hand the link to the app (system URL handler); print nothing secret.",
)
@_common.json_option
def command(client_id: str, profile_ref: str | None, show_key: bool, open_it: bool, as_json: bool) -> int:
    """Build APP's import link for a profile; the app shows what it imports and asks you to confirm.

    The link must carry the key to work, so it is printed only with --show-key (then it sits in
    your terminal's scrollback). --open hands it to the app without printing it.
    """
    from gwconf import links
    from gwconf.profiles import ProfileStore

    client = _common.link_app(client_id)
    env = _common.env()
    profile = ProfileStore(env).load(profile_ref)
    target = client.target(profile, env)
    _output.remember_key(target.api_key)
    link = client.import_link(target)
    assert link is not None  # link_app only returns clients that have one
    opened = links.open_link(link.url, env) if open_it else None
    if as_json:
        data = {
            "client": client_id,
            "profile": profile.name,
            "payload": link.payload if show_key else link.masked_payload(),
            "link": link.url if show_key else None,
            "opened_with": opened,
        }
        if show_key:
            click.echo(json.dumps(data, indent=2))  # asked for: bypasses redaction
        else:
            _output.emit_json(data)
        return 0
    _output.out(f"{client.name} import link for profile {profile.name!r}:")
    for key, value in _flatten(link.masked_payload()):
        shown = value if isinstance(value, str) else json.dumps(value)
        _output.out(f"  {key:<27} {shown}")
    if opened:
        _output.out(f"Handed the link to {opened}: confirm the import in {client.name}.")
    elif show_key:
        _output.warn("the link below carries the key; it stays in your terminal's scrollback.")
        click.echo(link.url)  # asked for: bypasses redaction
    else:
        _output.out(
            f"The link carries the key, so it is not printed ({link.scheme}://... without it would not work)."
        )
        _output.out(f"Open it in the app: gwconf link {client_id} --open   (or print it: --show-key)")
    return 0


def _flatten(value: object, prefix: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        rows: list[tuple[str, object]] = []
        for key, item in value.items():
            rows += _flatten(item, f"{prefix}{key}.")
        return rows
    if isinstance(value, list):
        rows = []
        for index, item in enumerate(value):
            rows += _flatten(item, f"{prefix}{index}.")
        return rows
    return [(prefix.rstrip("."), value)]
