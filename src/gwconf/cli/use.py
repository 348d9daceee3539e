"""gwconf use: switch the active profile and re-apply it."""

from __future__ import annotations

import click

from gwconf.cli import _common, _writing


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
    return _writing.use(name, no_apply, in_dir, unset, dry_run, force, as_json)
