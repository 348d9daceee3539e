"""What makes the command line feel native: completion, colour only where it belongs, --quiet,
--debug, examples in every --help, the README's command reference, and a next step for every error."""

from __future__ import annotations

import ast
import os
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tests.conftest import TEST_KEY
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
ANSI = "\x1b["


def complete(shell: str, words: str, cword: int | str) -> list[str]:
    """What gwconf answers the shell's completion request (in-process, through gwconf.cli.run).
    ``cword`` is the index of the word being completed; fish passes that word itself."""
    from gwconf.cli import run

    runner = CliRunner()
    env = {"COMP_WORDS": words, "COMP_CWORD": str(cword), "_GWCONF_COMPLETE": f"{shell}_complete"}
    with runner.isolation(env=env) as (out, _, _):
        with pytest.raises(SystemExit) as done:
            run([])
        text = out.getvalue().decode()
    assert done.value.code == 0, text
    return text.splitlines()


# -- completion ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nosort -F _gwconf_completion gwconf"),
        ("zsh", "#compdef gwconf"),
        ("fish", "complete --no-files --command gwconf"),
        ("powershell", "Register-ArgumentCompleter"),
    ],
)
def test_completion_prints_the_script_for_each_shell(gwconf, shell, marker):
    result = gwconf("completion", shell)
    assert result.exit_code == 0, result
    assert marker in result.stdout and "_GWCONF_COMPLETE" in result.stdout


def test_completion_refuses_an_unknown_shell(gwconf):
    result = gwconf("completion", "tcsh")
    assert result.exit_code == 2 and "bash" in result.output and "powershell" in result.output


def test_client_ids_and_profile_names_complete(gwconf, profile):
    assert (
        gwconf("profile", "add", "home", "--base-url", "https://h.example.com", "--key-env", "K").exit_code
        == 0
    )
    assert complete("bash", "gwconf apply cod", 2) == ["plain,codex"]
    assert complete("bash", "gwconf status claude", 2) == ["plain,claude-code", "plain,claude-code-router"]
    launchable = complete("bash", "gwconf run co", 2)
    assert launchable == ["plain,codex", "plain,continue", "plain,copilot-cli"], "copilot has no launch route"
    assert complete("bash", "gwconf use ", 2) == ["plain,home", "plain,work"]
    assert complete("bash", "gwconf apply codex --profile w", 4) == ["plain,work"]
    assert complete("bash", "gwconf profile export h", 3) == ["plain,home"]
    assert complete("zsh", "gwconf use w", 2) == ["plain", "work", "_"]
    assert complete("fish", "gwconf use w", "w") == ["plain,work"]
    assert complete("powershell", "gwconf use w", 2) == ["plain", "work", "_"]
    commands = complete("bash", "gwconf ", 1)
    assert "plain,run" in commands and "plain,completion" in commands


def test_completion_through_the_installed_entry_point(gwconf, profile):
    """The way the shell calls it: the console script with the request in its environment."""
    env = {
        **os.environ,
        "COMP_WORDS": "gwconf use wo",
        "COMP_CWORD": "2",
        "_GWCONF_COMPLETE": "bash_complete",
    }
    code = "from gwconf.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["plain,work"]


# -- colour -------------------------------------------------------------------------------------------


def on_terminal(args: list[str], env: dict[str, str]) -> str:
    """gwconf ARGS with stdout and stderr on a pseudo-terminal: everything it wrote there."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gwconf", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    data = b""
    deadline = time.monotonic() + 60  # a generous bound for a slow machine, not a timing assertion
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the other end closed: gwconf is done
                    break
                if not chunk:
                    break
                data += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return data.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_colour_on_a_terminal_only_and_never_with_no_color(profile):
    args = ["profile", "show", "nosuch"]
    coloured = on_terminal(args, dict(os.environ))
    assert "gwconf: error:" in coloured and ANSI in coloured
    plain = on_terminal(args, {**os.environ, "NO_COLOR": "1"})
    assert "gwconf: error:" in plain and ANSI not in plain
    empty = on_terminal(args, {**os.environ, "NO_COLOR": ""})  # no-color.org: an empty value does not count
    assert ANSI in empty
    piped = subprocess.run(
        [sys.executable, "-m", "gwconf", *args], capture_output=True, text=True, timeout=60
    )
    assert "gwconf: error:" in piped.stderr and ANSI not in piped.stderr + piped.stdout


def test_ansi_is_click_style_byte_for_byte() -> None:
    """gwconf colours without importing click (issue 15): the same escape codes click writes."""
    import click

    from gwconf.cli import _output

    for fg in [None, *_output._FOREGROUND, "unknown-colour-name"]:
        for bold in (None, False, True):
            if fg == "unknown-colour-name":  # click's own error, from click
                with pytest.raises(ValueError, match="Unknown color"):
                    _output.ansi("x", fg=fg, bold=bold)
                continue
            assert _output.ansi("a -> b\n", fg=fg, bold=bold) == click.style("a -> b\n", fg=fg, bold=bold)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_coloured_dry_run_is_the_same_without_click(profile, home):
    """On a terminal the click-free dry run (its plain form) writes what click's path writes
    (``--debug`` sends the command line to click): colours, diff and all."""
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{not json")  # an error, in colour too
    args = ["apply", "codex", "claude-code", "--dry-run"]
    fast = on_terminal(args, dict(os.environ))
    slow = on_terminal(["--debug", *args], dict(os.environ))
    assert "\x1b[32m+model_provider" in fast and "\x1b[31m\x1b[1mgwconf: error: " in fast
    assert fast == slow


def test_no_colour_on_a_pipe_even_for_diffs(gwconf, profile, home):
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    result = gwconf("apply", "codex", "--dry-run")
    assert result.exit_code == 0, result
    assert "+model_provider" in result.stdout and ANSI not in result.output


# -- --quiet and --debug --------------------------------------------------------------------------------


def test_quiet_prints_only_errors(gwconf):
    added = gwconf("-q", "profile", "add", "q", "--base-url", "https://gw.example.com", "--key-stdin", input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0 and added.stdout == ""
    listed = gwconf("--quiet", "profile", "list")
    assert listed.stdout == ""
    failed = gwconf("-q", "profile", "show", "nosuch")
    assert failed.exit_code == 1 and "gwconf: error: no profile named 'nosuch'" in failed.stderr
    assert "hint:" in failed.stderr
    shown = gwconf("-q", "profile", "show", "q", "--json")  # what scripts asked for still comes out
    assert shown.exit_code == 0


def _with_a_fault(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """gwconf run with a fault no code path expects: the first ``os.getcwd()`` raises
    RuntimeError (later ones answer, so the crash log finds its folder). A folder removed under
    the shell was the trigger here until it got an error of its own (tests/test_folder_gone.py)."""
    script = (
        "import os, sys; real = os.getcwd; calls = []\n"
        "def faulty():\n"
        "    calls.append(1)\n"
        "    if len(calls) == 1: raise RuntimeError('injected fault')\n"
        "    return real()\n"
        "os.getcwd = faulty\n"
        "from gwconf.cli import main; main(sys.argv[1:])"
    )
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60)


def test_unexpected_error_is_one_line_and_a_hint_and_debug_shows_the_traceback(tmp_path, profile):
    plain = _with_a_fault(tmp_path, "status")
    assert plain.returncode == 1
    log = Path(os.environ["GWCONF_HOME"]) / "state" / "crash.log"
    assert plain.stderr.splitlines() == [
        "gwconf: unexpected error: RuntimeError: injected fault",
        f"hint: this is a bug in gwconf; please report it with {log}",
        "      (keys are redacted; --debug shows the traceback here).",
    ]
    # the crash log holds what a bug report needs, keys redacted, and only its owner reads it
    assert _with_a_fault(tmp_path, "verify", "--profile", TEST_KEY).returncode == 1
    text = log.read_text()
    assert "command: gwconf verify --profile sk-…WXYZ" in text and "Traceback (most recent call last)" in text
    assert "RuntimeError: injected fault" in text and "gwconf: " in text and "platform: " in text
    assert TEST_KEY not in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    debug = _with_a_fault(tmp_path, "--debug", "status")
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr and "RuntimeError: injected fault" in debug.stderr


# -- help -----------------------------------------------------------------------------------------------


def _command_paths() -> list[tuple[str, ...]]:
    from gwconf.cli._root import cli

    paths: list[tuple[str, ...]] = [()]

    def walk(group: click.Group, ctx: click.Context, prefix: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            paths.append((*prefix, name))
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx), (*prefix, name))

    walk(cli, click.Context(cli, info_name="gwconf"), ())
    return paths


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "gwconf")
def test_every_help_ends_with_examples_of_that_command(gwconf, path):
    result = gwconf(*path, "--help")
    assert result.exit_code == 0, result
    text = result.stdout
    assert "Examples:" in text, f"gwconf {' '.join(path)} --help has no examples"
    after = text[text.rindex("Options:") :]
    tail = after[after.index("Examples:") :].splitlines()[1:]
    invocation = " ".join(("gwconf", *path))
    examples = [line.strip() for line in tail if line.strip().startswith("gwconf ")]
    assert examples, f"{invocation} --help: no example lines after 'Examples:'"
    if path:
        assert any(e.startswith(invocation) or invocation in e for e in examples), (invocation, examples)


def test_readme_command_reference_matches_the_help():
    generator = load_script("gen-command-reference")
    readme = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    assert generator.START in readme and generator.END in readme, "run scripts/gen-command-reference"
    current = readme[readme.index(generator.START) : readme.index(generator.END) + len(generator.END)] + "\n"
    assert current == generator.render(), (
        "docs/commands.md differs from --help: run .venv/bin/python scripts/gen-command-reference"
    )
    assert generator.updated(readme) == readme


def test_generator_touches_only_the_marked_section():
    generator = load_script("gen-command-reference")
    lead = "# Title\n\nThe lead's text.\n"
    first = generator.updated(lead)
    assert first.startswith(lead) and first.rstrip().endswith(generator.END)
    edited = first.replace("### `gwconf run`", "### stale")
    assert generator.updated(edited + "After.\n") == first + "After.\n"


# -- every error says what to do next ---------------------------------------------------------------


ERRORS = {"GwconfError", "UsageError", "ProfileError", "ClientError", "WriteRefused", "ConcurrentChange"}


def test_every_raised_error_carries_a_hint():
    """Outside the format editors (their refusals get the printer's fallback), each raise names a hint."""
    missing = []
    for path in sorted((REPO / "src" / "gwconf").rglob("*.py")):
        if "formats" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                func = node.exc.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                hinted = len(node.exc.args) >= 2 or any(k.arg == "hint" for k in node.exc.keywords)
                if name in ERRORS and not hinted:
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not missing, "errors without a next step: " + ", ".join(missing)


def test_an_error_without_its_own_hint_still_gets_one(capsys):
    from gwconf.cli._output import print_error
    from gwconf.errors import GwconfError, WriteRefused

    print_error(WriteRefused("~/.codex/config.toml: model_providers is not a table."))
    print_error(GwconfError("something odd"))
    lines = capsys.readouterr().err.splitlines()
    assert lines[1].startswith("hint: Nothing was written.")
    assert lines[3].startswith("hint: Rerun with --debug")
