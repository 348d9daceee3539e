"""gwconf completion: print click's completion script for a shell."""

from __future__ import annotations

import click

from gwconf.errors import UsageError

SHELLS = ("bash", "zsh", "fish", "powershell")


@click.command(
    "completion",
    epilog="""\b
Examples:
  eval "$(gwconf completion bash)"       # in ~/.bashrc (bash 4.4 or later)
  eval "$(gwconf completion zsh)"        # in ~/.zshrc
  gwconf completion fish > ~/.config/fish/completions/gwconf.fish
  gwconf completion powershell | Out-String | Invoke-Expression   # in $PROFILE
\b
Completes commands, options, client ids (gwconf apply co<TAB>) and saved profile
names (gwconf use <TAB>, --profile <TAB>).
""",
)
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell: str) -> int:
    """Print the completion script for SHELL (bash, zsh, fish or powershell)."""
    from click.shell_completion import get_completion_class

    from gwconf.cli._root import cli

    completion = get_completion_class(shell)
    if completion is None:  # pragma: no cover - every name in SHELLS is one click 8.5 knows
        raise UsageError(f"click offers no completion for {shell}.", f"Use one of: {', '.join(SHELLS)}")
    click.echo(completion(cli, {}, "gwconf", "_GWCONF_COMPLETE").source())
    return 0
