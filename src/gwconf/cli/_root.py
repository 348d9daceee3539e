"""The click group behind ``gwconf``: built on first use (``gwconf.cli`` imports click lazily).

Root options live here; ``gwconf --help`` is rendered by ``gwconf.cli.root_help`` in both paths
(with and without click), so the option rows there must follow the options here (a test checks).
"""

from __future__ import annotations

import importlib

import click

from gwconf import __version__
from gwconf.cli import COMMANDS, EPILOG, HELP, module_exists, root_help


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when used (``gwconf --help`` imports none)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if module_exists(name))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not module_exists(cmd_name):
            return None
        module = importlib.import_module(f"gwconf.cli.{COMMANDS[cmd_name]}")
        command: click.Command = module.command
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """An unknown command is gwconf's usage error, with the closest command named."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            from gwconf.errors import UsageError

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.5)
            raise UsageError(
                f"unknown command {name!r}." + (f" Did you mean {close[0]!r}?" if close else ""),
                "See every command: gwconf --help",
            )
        return super().resolve_command(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The same text as the click-free ``gwconf --help`` (one renderer for both)."""

        def summary(name: str, limit: int) -> str:
            command = self.get_command(ctx, name)
            return command.get_short_help_str(limit) if command is not None else ""

        formatter.write(root_help(formatter.width, summary) + "\n")


@click.group(
    cls=LazyGroup,
    help=HELP,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="gwconf", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show the full traceback of unexpected errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and what scripts need.")
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool) -> None:
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["quiet"] = quiet
