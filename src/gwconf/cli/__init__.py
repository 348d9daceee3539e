"""The command line: click only. Each command lives in its own module, imported on first use.

``main`` is the one top-level handler: ``GwconfError`` -> its message, hint and exit code;
anything unexpected -> one line and a hint to rerun with ``--debug``.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from gwconf import __version__

# command name -> module under gwconf.cli defining ``command``
COMMANDS: dict[str, str] = {
    "apply": "apply",
    "clients": "clients",
    "completion": "completion",
    "doctor": "doctor",
    "link": "link",
    "profile": "profile",
    "restore": "restore",
    "run": "run",
    "status": "status",
    "use": "use",
    "verify": "verify",
}

EPILOG = """\b
Examples:
  gwconf profile add work --base-url https://gw.example.com/v1 --model my-model --use
  gwconf apply codex claude-code        # edit those clients' files (backup first)
  gwconf apply --all --dry-run          # show the diff for every client, write nothing
  gwconf verify codex                   # a real test completion with what Codex will send
  gwconf doctor                         # the 401 procedure, client by client
  gwconf restore --all                  # put back what was there before gwconf
"""


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when used (``gwconf --help`` stays fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._module_exists(name))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = COMMANDS.get(cmd_name)
        if module_name is None or not self._module_exists(cmd_name):
            return None
        module = importlib.import_module(f"gwconf.cli.{module_name}")
        return module.command

    @staticmethod
    def _module_exists(name: str) -> bool:
        return os.path.exists(os.path.join(os.path.dirname(__file__), COMMANDS[name] + ".py"))


@click.group(
    cls=LazyGroup,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="gwconf", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show the full traceback of unexpected errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and what scripts need.")
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool) -> None:
    """Point every AI client at one model gateway.

    gwconf edits each client's real configuration files (only the keys it manages, everything
    else kept byte for byte, a backup first), switches between saved gateway profiles, makes a
    real test completion with what each client will actually send, and turns a 401 into a
    verdict with its remedy.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["quiet"] = quiet


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    sys.exit(run(sys.argv[1:] if argv is None else argv))


def run(args: list[str]) -> int:
    """Run one command line and return its exit code; the one top-level handler (design.md section 6)."""
    from gwconf.errors import ExitCode, GwconfError

    debug = "--debug" in args
    try:
        result = cli.main(args=args, prog_name="gwconf", complete_var="_GWCONF_COMPLETE", standalone_mode=False)
    except GwconfError as exc:
        from gwconf.cli._output import print_error

        print_error(exc)
        return int(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("gwconf: interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if debug:
            raise
        from gwconf.secrets import redact

        click.echo(f"gwconf: unexpected error: {redact(type(exc).__name__ + ': ' + str(exc))}", err=True)
        click.echo("hint: rerun with --debug for the traceback, and report it.", err=True)
        return int(ExitCode.ERROR)
    return int(result) if isinstance(result, int) else 0
