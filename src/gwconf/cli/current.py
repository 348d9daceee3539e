"""gwconf current: the name of the profile commands here use, for shell prompts.

``gwconf current``, ``gwconf current --json`` and ``gwconf current --hook SHELL`` are answered
before click is imported (``gwconf.cli.print_current``, ``gwconf.hook.export``); this command
exists for ``--help``, completion and the listing.
"""

from __future__ import annotations

import click

from gwconf.cli import _common


@click.command(
    "current",
    epilog="""\b
Examples:
  gwconf current                          # work
  gwconf current --json                   # {"profile": "work", "source": "folder", "file": "/src/app/.gwconf.toml", ...}
  PS1='$(gwconf current 2>/dev/null) \\$ '  # in a shell prompt
""",
)
@_common.json_option
@click.option(
    "--hook",
    type=click.Choice(["bash", "zsh", "fish"]),
    help="Print the shell code the prompt hook evals (see: gwconf hook).",
)
def command(as_json: bool, hook: str | None) -> int:
    """Print the name of the profile used here (for shell prompts); exit 1 when there is none.

    The same order as every command: GWCONF_PROFILE, then the nearest .gwconf.toml from this
    folder up to the home folder, then the active profile. --json also says which chose it
    (source: GWCONF_PROFILE, folder or active). It reads small files only and runs no key
    command, so a prompt stays fast.
    """
    if hook:
        from gwconf.hook import export

        return export(hook)
    from gwconf.cli import print_current

    return print_current(as_json)
