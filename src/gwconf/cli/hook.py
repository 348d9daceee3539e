"""gwconf hook: print a prompt hook that follows the folder's profile binding."""

from __future__ import annotations

import click


@click.command(
    "hook",
    epilog="""\b
Examples:
  eval "$(gwconf hook bash)"         # in ~/.bashrc
  eval "$(gwconf hook zsh)"          # in ~/.zshrc
  gwconf hook fish | source          # in ~/.config/fish/config.fish
""",
)
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def command(shell: str) -> int:
    """Print a prompt hook for SHELL that exports the folder's profile (see: gwconf use --dir).

    Before each prompt the hook runs `gwconf current --hook SHELL`, which prints nothing unless
    the folder's binding changed. Entering a folder bound by a .gwconf.toml exports
    GWCONF_PROFILE and the OpenAI-style variables of that saved profile (what `gwconf run shell`
    sets); leaving it puts back the values from before. The address and the key come from the
    saved profile, never from the folder's file. A GWCONF_PROFILE you set yourself wins.
    """
    from gwconf.hook import script

    click.echo(script(shell), nl=False)
    return 0
