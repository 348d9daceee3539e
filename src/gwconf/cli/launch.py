"""gwconf run: start a client once on a profile, writing nothing to its files.

The module is not named run.py: importing gwconf.cli.run would replace gwconf.cli.run(), the
top-level handler, with the module.
"""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _common, _output


def complete_launchable(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Client ids whose module has a ``launch`` hook (read from the source: a TAB imports nothing)."""
    import re
    from pathlib import Path

    from click.shell_completion import CompletionItem

    from gwconf import registry

    folder = Path(registry.__file__).parent / "clients"
    found = []
    for client_id in registry.IDS:
        if not client_id.startswith(incomplete):
            continue
        try:
            source = (folder / f"{registry.MODULES[client_id]}.py").read_text(encoding="utf-8")
        except OSError:
            source = "def launch("
        if re.search(r"^def launch\(", source, re.M):
            found.append(CompletionItem(client_id))
    return found


class RunCommand(click.Command):
    """Everything after ``--`` belongs to the client, untouched (its own ``-p``, ``--model``...)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        theirs: list[str] = []
        if "--" in args:
            cut = args.index("--")
            args, theirs = args[:cut], args[cut + 1 :]
        try:
            rest = super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            exc.message += (  # type: ignore[misc]  # click's Final; the hint belongs in the message
                f"\n(Put the client's own options after --, e.g.: gwconf run CLIENT -- {exc.option_name})"
            )
            raise
        ctx.params["client_args"] = (*ctx.params.get("client_args", ()), *theirs)
        return rest


@click.command(
    "run",
    cls=RunCommand,
    epilog="""\b
Examples:
  gwconf run codex -- exec "say pong"          # Codex on the active profile, this once
  gwconf run claude-code -p work -- -p "hi"    # Claude Code on the saved profile 'work'
  gwconf run aider --model my-model            # another model for this session only
  gwconf run shell -- python my_script.py      # any program, with the OpenAI-style variables
  gwconf run shell                             # a shell with the profile's environment
  gwconf run gemini-cli --dry-run              # show what would be set, start nothing
\b
The client's exit code is passed on; 127 when its program is not on PATH; 2 when the
client cannot be started this way (use gwconf apply).
""",
)
@click.argument("client_id", metavar="CLIENT", shell_complete=complete_launchable)
@click.argument("client_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS...]")
@_common.profile_option
@click.option("--model", "-m", help="Use this model instead of the profile's, for this launch.")
@click.option(
    "--dry-run", "-n", is_flag=True, help="Show the command, the variables and the files; start nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Print what --dry-run shows as one JSON document.")
@click.option(
    "--trust-project",
    is_flag=True,
    help="Start it even where a project file in this folder points CLIENT at an address no "
    "profile has (CLIENT may send the key there).",
)
def command(
    client_id: str,
    client_args: tuple[str, ...],
    profile_ref: str | None,
    model: str | None,
    dry_run: bool,
    as_json: bool,
    trust_project: bool,
) -> int:
    """Start CLIENT once with a profile injected; its configuration files are not touched.

    gwconf passes the gateway's address, key and model the way CLIENT takes them for one launch:
    environment variables, the client's own one-launch options (Codex -c, Claude Code
    --settings), or a temporary stand-in for its configuration folder, removed when it exits.
    Provider variables that would override the injection (OPENAI_*, ANTHROPIC_*, GEMINI_*,
    GOOGLE_*) are removed from its environment, and GWCONF_PROFILE names the profile. ARGS after
    -- go to the client unchanged. `gwconf run shell -- CMD` runs any command with the profile's
    environment.
    """
    from gwconf import launch as launching
    from gwconf.profiles import ProfileStore

    client = _common.resolve_clients((client_id,))[0]
    env = _common.env()
    profile = ProfileStore(env).load(profile_ref)
    _output.remember_key(profile.resolve_key(env))
    planned = launching.plan_launch(
        client,
        profile,
        env,
        list(client_args),
        model=model,
        dry_run=dry_run or as_json,
    )
    if dry_run or as_json:
        if not trust_project:
            launching.rehearse(planned, env)  # what the real run would refuse, refused here too
        data = launching.describe(planned, env)
        if as_json:
            _output.emit_json({**data, "dry_run": True})
        else:
            _render(data)
        return 0

    def ready(prepared: list[str]) -> None:  # said once nothing can stop the start any more
        _info(
            f"gwconf: starting {client.id} on profile {profile.name!r} ({planned.target.base_url}"
            + (f", model {planned.target.model}" if planned.target.model else "")
            + "); its files are not touched."
        )
        for note in [*planned.target.notes, *planned.spec.notes, *prepared]:
            _info(f"gwconf: note: {note}")

    return launching.start(planned, env, on_ready=ready, trust_project=trust_project)


def _info(text: str) -> None:
    """A line on stderr (stdout belongs to the client); --quiet drops it."""
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root().obj if ctx is not None else None
    if isinstance(root, dict) and root.get("quiet"):
        return
    _output.err(text)


def _render(data: dict[str, Any]) -> None:
    import shlex

    out = _output.out
    out(f"Would start {data['client']} on profile {data['profile']!r} (dry run: nothing started).")
    out(f"  program   {data['program']}")
    out(f"  command   {shlex.join(data['argv'])}")
    for name, value in data["set"].items():
        out(f"  set       {name}={value}")
    for name in data["removed"]:
        out(f"  removed   {name}")
    for name in data["temporary"]:
        out(f"  temporary <temporary folder>/{name}  (0600, removed afterwards)")
    for name, source in data["stand_ins"].items():
        out(f"  stand-in  <temporary folder>/{name} for {source}  (its entries linked, not copied)")
    for name, variables in data["dotenv_over"].items():
        out(
            f"  .env      <temporary folder>/{name}: a private copy without {', '.join(variables)}, if "
            "it sets them (the client loads it over the launch's variables)"
        )
    for note in data["notes"]:
        out(f"  note      {note}")
