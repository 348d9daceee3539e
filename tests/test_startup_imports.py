"""Start-up stays cheap by structure, not by luck (bench/startup.py measures the time itself).

- ``import gwconf.cli`` loads none of the heavy libraries (httpx, tomlkit, PyYAML, platformdirs),
  and not even click: ``gwconf --version`` and ``gwconf --help`` are answered without it.
- ``gwconf clients`` / ``gwconf status`` on an empty home parse no file, so they load neither
  tomlkit nor PyYAML (and never httpx).
- ``gwconf apply --dry-run`` on a strict TOML file reads it with tomllib and writes it with gwconf's
  own renderer: no tomlkit; and planning starts no process and writes no file, so neither
  subprocess nor tempfile is imported.
- ``profile list``, ``clients`` and ``status`` (a profile, nothing applied) load no difflib (a
  diff is made only where one is shown) and no shutil (its import brings bz2/lzma/zlib);
  ``profile list`` loads no client module. A real ``apply`` prints no diff, so makes none.
- ``profile list`` (and ``--json``) prints without click, the same text click's path prints; so do
  ``clients``, ``status`` and the plain forms of ``apply``, ``use NAME`` and ``restore`` (flags only).
- The click-free ``--help`` is the same text click prints, and lists every command and root option.
No timing assertions here: the benchmark reports times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("httpx", "tomlkit", "yaml", "platformdirs")

# Runs ARGV through gwconf's entry point in a fresh interpreter, then prints the top-level
# packages of the heavy libraries (and click) it imported.
PROBE = """
import json, sys
from gwconf.cli import run
args = json.loads(sys.argv[1])
code = run(args) if args is not None else 0
sys.stdout.flush()
watched = {"click", "httpx", "tomlkit", "yaml", "platformdirs", "subprocess", "tempfile", "difflib", "shutil",
           "tomllib", "dataclasses", "inspect", "typing", "copy", "shlex", "hashlib", "_hashlib"}
loaded = sorted({m.split(".")[0] for m in sys.modules} & watched)
clients = sorted(m for m in sys.modules if m.startswith("gwconf.clients."))
print("\\nLOADED=" + json.dumps({"code": code, "loaded": loaded, "clients": clients}))
"""


def probe(args: list[str] | None) -> tuple[int, list[str], str]:
    """(exit code, heavy packages imported, output) of ``gwconf ARGS`` in a fresh interpreter."""
    result, output = probe_all(args)
    return result["code"], result["loaded"], output


def probe_all(args: list[str] | None) -> tuple[dict, str]:
    """``probe``'s findings as a dict (``code``, ``loaded``, ``clients``: client modules), and the output."""
    found, output, _ = probe_with_stderr(args)
    return found, output


def probe_with_stderr(args: list[str] | None) -> tuple[dict, str, str]:
    """``probe_all``'s findings and output, and what went to stderr."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"},
        timeout=120,
    )
    assert "LOADED=" in proc.stdout, proc.stderr
    output, _, tail = proc.stdout.rpartition("\nLOADED=")
    return json.loads(tail), output, proc.stderr


def test_import_gwconf_cli_loads_no_heavy_library() -> None:
    code, loaded, _ = probe(None)
    assert code == 0
    assert loaded == [], f"import gwconf.cli loaded {loaded}: import them inside the functions that use them"


@pytest.mark.parametrize("args", [["--version"], ["-V"], ["--help"], ["-h"]])
def test_version_and_help_need_no_click(args: list[str]) -> None:
    code, loaded, output = probe(args)
    assert code == 0
    assert output.strip()
    assert loaded == [], (
        f"gwconf {args[0]} loaded {loaded}. If a new command has no line in gwconf.cli.SUMMARIES, "
        "add one: without it the listing imports click and every command module."
    )


def test_version_text() -> None:
    from gwconf import __version__

    _, _, output = probe(["--version"])
    assert output == f"gwconf {__version__}\n"


def test_help_in_importtime_has_no_heavy_module() -> None:
    """The same, through ``python -X importtime -m gwconf --help`` (what a profiler would show)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gwconf", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    modules = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "gwconf" in modules
    assert not modules & {"click", *HEAVY}


@pytest.mark.parametrize("command", ["clients", "status"])
def test_commands_on_an_empty_home_parse_nothing(command: str) -> None:
    code, loaded, output = probe([command])
    assert code == 0, output
    assert not set(loaded) & set(HEAVY), f"gwconf {command} on an empty home loaded {loaded}"


@pytest.mark.parametrize("columns", ["", "60", "120"])
def test_fast_help_is_what_click_prints(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a fresh process (click's test runner forces its own width)."""
    monkeypatch.setenv("COLUMNS", columns)
    fast = probe(["--help"])
    through_click = probe(["--debug", "--help"])  # two arguments: click parses and renders
    assert fast[0] == through_click[0] == 0
    assert fast[2] == through_click[2]
    assert "click" in through_click[1]
    assert fast[2].startswith("Usage: gwconf [OPTIONS] COMMAND [ARGS]...")


def test_help_lists_every_command_and_root_option() -> None:
    import click

    from gwconf.cli import OPTIONS, root_help
    from gwconf.cli._root import cli

    ctx = click.Context(cli, **cli.context_settings)
    text = root_help(200)
    commands = text.split("\nCommands:\n", 1)[1]
    for name in cli.list_commands(ctx):
        assert f"\n  {name} " in "\n" + commands, f"{name} missing from gwconf --help"
    rows = dict(OPTIONS)
    options = [p for p in cli.get_params(ctx) if isinstance(p, click.Option)]
    for param in options:
        shown = ", ".join(param.opts)
        assert shown in rows, f"root option {shown} missing from gwconf.cli.OPTIONS"
        assert rows[shown] == param.help, shown
    assert len(rows) == len(options)


@pytest.mark.parametrize("width", [50, 78, 98])
def test_help_fits_the_width(width: int) -> None:
    from gwconf.cli import root_help

    for line in root_help(width).splitlines():
        if not line.startswith("    gwconf "):  # the examples are kept as written
            assert len(line) <= width, line


def test_a_command_missing_from_summaries_gets_its_docstring_sentence() -> None:
    """The fallback for new commands reads the same first sentence click would show."""
    import click

    from gwconf.cli import _source_summary
    from gwconf.cli._root import cli

    ctx = click.Context(cli, **cli.context_settings)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        if command.short_help is None and command.help:
            assert _source_summary(name) == command.get_short_help_str(10_000), name


def test_a_dry_run_on_a_strict_toml_file_loads_no_tomlkit_and_starts_nothing(profile, tmp_path) -> None:
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = "gpt-5"  # mine\n\n[model_providers.openai]\nname = "OpenAI"\n')
    code, loaded, output = probe(["apply", "codex", "--dry-run"])
    assert code == 0, output
    assert '+model = "my-model"  # mine' in output and "+[model_providers.gwconf]" in output
    assert not set(loaded) & {"tomlkit", "subprocess", "tempfile"}, loaded


def test_a_dry_run_hashes_nothing(profile, tmp_path) -> None:
    """The key records' value hashes are the ledger's, made when a write asks for them: a dry run
    shows none, and hashing brought hashlib, whose OpenSSL start costs 3-5 ms (issue 15)."""
    config = tmp_path / "home" / ".claude" / "settings.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{\n  "model": "x"\n}\n')
    (tmp_path / "home" / ".codex").mkdir(parents=True, exist_ok=True)
    (tmp_path / "home" / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    found, output, errors = probe_with_stderr(["apply", "claude-code", "codex", "--dry-run"])
    code, loaded = found["code"], found["loaded"]
    assert code == 0, output + errors
    assert '"ANTHROPIC_BASE_URL"' in output and '+model = "my-model"' in output
    assert "hashlib" not in loaded, loaded


def test_edits_in_every_editor_copy_their_values_without_the_copy_module(profile, tmp_path) -> None:
    """Each editor keeps a copy of what it sets (``formats._base.copied``, by marshal): the
    ``copy`` module brought ``weakref`` and a failed import search, about 1 ms of every
    writing command (issue 15)."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text('{\n  "model": "x"\n}\n')
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    (home / ".aider.conf.yml").write_text("# mine\nmodel: x\n")
    code, loaded, output = probe(["apply", "claude-code", "codex", "aider", "--dry-run"])
    assert code == 0, output
    assert '+model = "my-model"' in output and "+openai-api-base:" in output, output
    assert "copy" not in loaded, loaded


@pytest.mark.parametrize("args", [["profile", "list"], ["clients"], ["status"]])
def test_listing_commands_make_no_diff_and_load_no_shutil(profile, args: list[str]) -> None:
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert not set(result["loaded"]) & {"difflib", "shutil", *HEAVY}, (
        f"gwconf {' '.join(args)} loaded {result}"
    )
    if args[0] == "profile":
        assert result["clients"] == [], "profile list needs no client module"


@pytest.mark.parametrize(
    "args", [["profile", "list"], ["clients"], ["status"], ["apply", "codex", "--dry-run"]]
)
def test_a_saved_profile_is_read_without_tomllib_and_no_command_defines_a_dataclass(profile, args) -> None:
    """The profile's text was parsed when it was saved (profiles.ParsedTexts), so reading it
    again needs no tomllib (about 7 ms); records.record replaces dataclasses (with inspect, 5 ms
    more). apply reads Codex's TOML with tomllib, and click brings inspect: only the listings
    are free of both."""
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert "dataclasses" not in result["loaded"], result
    if args[0] != "apply":
        assert not set(result["loaded"]) & {"tomllib", "inspect"}, result


@pytest.mark.parametrize("args", [["clients"], ["clients", "--json"], ["status"], ["status", "--json"]])
def test_listings_on_an_empty_home_import_no_typing_copy_or_shlex(profile, args) -> None:
    """typing (about 6 ms here), copy with weakref (2 ms) and shlex are imported where they are
    used: the listings import every client module, and a module-level ``from typing import Any``
    in any of them, or in the core they plan with, costs every listing the whole of typing."""
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert len(result["clients"]) >= 40, result  # every client module was imported
    assert not set(result["loaded"]) & {"typing", "copy", "shlex"}, result


@pytest.mark.parametrize("args", [["clients"], ["status"], ["profile", "list"]])
def test_listings_with_nothing_applied_import_no_json(profile, args) -> None:
    """json's import is 5.7M instructions (its patterns); with no ledger and the profile's text
    kept as marshal's bytes (profiles.ParsedTexts), a listing reads no JSON and does not import it."""
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert not {"json", "json.decoder"} & set(result["loaded"]), result


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_profile_list_needs_no_click_and_prints_what_click_prints(profile, tmp_path, json_flag) -> None:
    """A damaged profile file is listed too (as click's path lists it), not fatal."""
    bad = tmp_path / "gwconf" / "profiles" / "broken.toml"
    assert bad.parent.is_dir()
    bad.write_text("base_url = [\n")
    fast, output = probe_all(["profile", "list", *json_flag])
    through_click, click_output = probe_all(["--debug", "profile", "list", *json_flag])
    assert fast["code"] == through_click["code"] == 0
    assert "click" not in fast["loaded"] and "click" in through_click["loaded"]
    assert output == click_output
    assert "broken" in output and ('"error"' if json_flag else "(cannot be read:") in output
    assert "sk-" not in output.replace("sk-…", "")  # the key stays masked on the new path


def test_a_real_apply_makes_no_diff(profile, tmp_path) -> None:
    """The diff is made when shown (``--dry-run``, ``--json``); a real apply prints file names only."""
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = "gpt-5"  # mine\n')
    code, loaded, output = probe(["apply", "codex"])
    assert code == 0, output
    assert "updated ~/.codex/config.toml" in output
    assert 'model = "my-model"  # mine' in config.read_text()
    assert "difflib" not in loaded, loaded
    result, output = probe_all(["restore", "codex", "--json"])
    assert result["code"] == 0, output
    assert '-model = \\"my-model\\"  # mine' in output  # the JSON still carries the diff


def test_format_patterns_compile_on_first_use_and_every_one_is_valid() -> None:
    """The editors compile their patterns when first used (``status`` on an applied home used none
    of TOML's and YAML's); each one still compiles, and each ``total`` one matches the empty string."""
    import re

    from gwconf.formats import dotenv, json, toml, yaml
    from gwconf.formats._base import LazyPattern

    for module in (json, dotenv, toml, yaml):
        patterns = {n: v for n, v in vars(module).items() if isinstance(v, LazyPattern)}
        assert len(patterns) >= 5, module.__name__
        for name, pattern in patterns.items():
            compiled = pattern.compiled()
            assert isinstance(compiled, re.Pattern), name
            assert pattern.match is not None and pattern.pattern == compiled.pattern
            if pattern._args[1]:  # total
                assert pattern.match("") is not None, name
    bad = LazyPattern("a", total=True)
    with pytest.raises(ValueError, match="not total"):
        bad.match("a")


def test_clients_on_an_empty_home_loads_no_format_editor(profile) -> None:
    """Every client's files are missing here: each reads as an empty document, and no editor with
    patterns to compile (JSON, .env, shell rc) or a library to import (TOML, YAML) is loaded until
    an edit needs one."""
    code = (
        "import sys\n"
        "from gwconf.cli import run\n"
        "code = run(['clients'])\n"
        "print('EDITORS', sorted(m for m in sys.modules if m.startswith('gwconf.formats.')), code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.rstrip().splitlines()[-1]
    assert line.endswith(" 0"), line
    for editor in ("json", "dotenv", "shellrc", "toml", "yaml"):  # text (one value) is tiny: it may load
        assert f"'gwconf.formats.{editor}'" not in line, line


@pytest.mark.parametrize("args", [["clients"], ["clients", "--json"], ["status"], ["status", "--json"]])
def test_clients_and_status_need_no_click_and_print_what_click_prints(profile, tmp_path, args) -> None:
    """On a home with a client applied, one file damaged by hand and a damaged ledger: the same
    stdout, stderr and exit code as click's path (``--debug`` sends the command line to click)."""
    from tests.conftest import TEST_KEY

    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    code, _, output = probe(["apply", "codex"])
    assert code == 0, output
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text('{"env": {"ANTHROPIC_BASE_URL": ')  # unreadable
    outcomes = []
    for ledger_text in (None, "{not json"):
        if ledger_text is not None:
            (tmp_path / "gwconf" / "state" / "ledger.json").write_text(ledger_text)
        for line in (args, ["--debug", *args]):
            proc = subprocess.run(
                [sys.executable, "-c", PROBE, json.dumps(line)], capture_output=True, text=True, timeout=60
            )
            assert "LOADED=" in proc.stdout, proc.stderr
            output, _, tail = proc.stdout.rpartition("\nLOADED=")
            outcomes.append((json.loads(tail), output, proc.stderr))
        (fast, fast_out, fast_err), (slow, slow_out, slow_err) = outcomes[-2:]
        assert "click" not in fast["loaded"] and "click" in slow["loaded"]
        assert (fast["code"], fast_out, fast_err) == (slow["code"], slow_out, slow_err)
        assert "codex" in fast_out and TEST_KEY not in fast_out + fast_err
    if args[0] == "status":
        assert outcomes[0][0]["code"] == 1 and "settings.json" in outcomes[0][1] + outcomes[0][2]
        assert "cannot tell which clients it applied" in outcomes[2][2]


def test_status_reads_each_client_file_once(profile, tmp_path) -> None:
    """status and clients read a client's files for its reading, its drift and the other managers
    on it: once each file per command (an audit hook counts the opens), and drift still shows."""
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = "gpt-5"\n')
    code, _, output = probe(["apply", "codex"])
    assert code == 0, output
    config.write_text(config.read_text().replace('"my-model"', '"by-hand"'))
    counter = (
        "import sys\n"
        f"watched = {str(config)!r}\n"
        "opens = []\n"
        "sys.addaudithook(lambda event, args: opens.append(1) if event == 'open' and str(args[0]) == watched else None)\n"
        "from gwconf.cli import run\n"
        "code = run(sys.argv[1:])\n"
        "print('OPENS', len(opens), code)\n"
    )
    for command in ("status", "clients"):
        proc = subprocess.run(
            [sys.executable, "-c", counter, command], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.rstrip().endswith("OPENS 1 0"), proc.stdout
        if command == "status":
            assert "changed by hand since gwconf wrote it: ~/.codex/config.toml: model" in proc.stderr


def test_pyyaml_is_imported_without_compiling_the_pattern_only_its_python_reader_uses() -> None:
    """formats._import_pyyaml: PyYAML's NON_PRINTABLE (10 ms to compile) waits for its first
    use; re.compile is itself again afterwards; and the pure-Python reader still refuses a
    control character with it."""
    code = (
        "import re\n"
        "real = re.compile\n"
        "from gwconf import formats\n"
        "formats.load('yaml', 'a: 1\\n', 'x.yaml')\n"
        "import yaml, yaml.reader\n"
        "print(type(yaml.reader.Reader.NON_PRINTABLE).__name__, re.compile is real)\n"
        "try:\n"
        "    yaml.load('a: \\x07', Loader=yaml.SafeLoader)\n"
        "except yaml.reader.ReaderError:\n"
        "    print('refused')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["LazyPattern", "True", "refused"], out


def _tree(folder) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


WRITING_FORMS = [
    (["apply", "codex", "claude-code", "continue", "--dry-run"], False),
    (["apply", "codex", "claude-code", "continue"], False),
    (["apply", "--all", "--json"], False),
    (["apply", "codex", "-n", "--check"], False),
    (["apply", "nope"], False),  # the same usage error
    (["apply", "codex", "--all"], False),  # the same usage error
    (["use", "second"], True),
    (["use", "second", "--dry-run", "--json"], True),
    (["use", "missing"], True),  # the same profile error
    (["restore", "--all"], True),
    (["restore", "codex", "--json"], True),
    (["restore"], True),  # the same usage error
]


@pytest.mark.parametrize(("args", "applied"), WRITING_FORMS, ids=[" ".join(a) for a, _ in WRITING_FORMS])
def test_the_plain_writing_forms_need_no_click_and_do_what_click_does(
    gwconf, profile, tmp_path, args: list[str], applied: bool
) -> None:
    """``apply``, ``use NAME`` and ``restore`` with ids and flags only run without click (issue 15):
    from the same home, the same stdout, stderr, exit code and files as click's path (``--debug``
    sends the command line to click)."""
    import shutil

    from tests.conftest import TEST_KEY

    home = tmp_path / "home"
    for path, text in (
        (".codex/config.toml", 'model = "gpt-5"  # mine\n'),
        (".claude/settings.json", '{\n  "theme": "dark"\n}\n'),
        (".continue/config.yaml", "name: mine\nmodels: []\n"),
    ):
        (home / path).parent.mkdir(parents=True, exist_ok=True)
        (home / path).write_text(text)
    second = gwconf(
        "profile", "add", "second", "--base-url", "https://gw2.example.com/v1", "--model", "m2", "--key-stdin",
        input="sk-second-0123456789abcdQRST\n",
    )  # fmt: skip
    assert second.exit_code == 0, second
    if applied:
        assert gwconf("apply", "codex", "claude-code", "continue").exit_code == 0
    saved = tmp_path / "saved"
    shutil.copytree(tmp_path, saved, symlinks=True, ignore=shutil.ignore_patterns("saved"))
    outcomes = []
    for line in (args, ["--debug", *args]):
        for name in ("home", "gwconf"):
            shutil.rmtree(tmp_path / name)
            shutil.copytree(saved / name, tmp_path / name, symlinks=True)
        found, out, err = probe_with_stderr(line)
        outcomes.append((found, out, err, _tree(home)))
    (fast, fast_out, fast_err, fast_files), (slow, slow_out, slow_err, slow_files) = outcomes
    assert "click" not in fast["loaded"] and "click" in slow["loaded"], (fast, slow)
    assert (fast["code"], fast_out, fast_err) == (slow["code"], slow_out, slow_err)
    assert fast_files == slow_files
    assert TEST_KEY not in fast_out + fast_err


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "codex", "--profile", "work"],
        ["apply", "codex", "--help"],
        ["use", "--dir", "work"],
        ["restore", "--", "x"],
    ],
)
def test_writing_forms_with_options_that_take_values_or_help_go_to_click(profile, args: list[str]) -> None:
    found, _, _ = probe_with_stderr(args)
    assert "click" in found["loaded"], found


@pytest.mark.parametrize("args", [["status"], ["status", "--json"]])
def test_status_with_no_client_to_show_imports_no_planning_core(profile, args) -> None:
    """With nothing applied and nothing detected, ``status`` is the detection alone: the core
    that reads and plans a client's files (operations, plan) is imported only for a row."""
    code = (
        "import json, sys\n"
        "from gwconf.cli import run\n"
        f"code = run({args!r})\n"
        "sys.stdout.flush()\n"
        "print('\\nCORE=' + json.dumps([m for m in ('gwconf.operations', 'gwconf.plan') if m in sys.modules]))\n"
    )
    env = {**os.environ, "PATH": "/nonexistent"}  # no client program: none detected
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    output, _, tail = proc.stdout.rpartition("\nCORE=")
    assert ("No client applied or detected yet" in output) or ('"clients": []' in output), output
    assert json.loads(tail) == [], tail


@pytest.mark.parametrize("args", [["clients"], ["status"]])
def test_listings_of_an_applied_home_load_no_openssl(profile, home, args: list[str]) -> None:
    """The ledger's value hashes (all a listing hashes) are small: CPython's own SHA-256 makes
    them, and OpenSSL (``_hashlib``: 11.6M instructions and 3-5 ms to load) is left to data of
    1 KiB and more, the files a write hashes. A value changed by hand is still told apart."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("# my notes\n" * 200 + 'model = "gpt-5"\n')  # 2 KB: OpenSSL's to hash
    code, loaded, output = probe(["apply", "codex"])
    assert code == 0, output
    assert "_hashlib" in loaded, loaded  # the write hashed the file with OpenSSL (the control)
    config.write_text(config.read_text().replace('"my-model"', '"by-hand"'))
    found, output, errors = probe_with_stderr(args)
    assert found["code"] == 0, output + errors
    assert "_hashlib" not in found["loaded"] and "hashlib" not in found["loaded"], found
    if args == ["status"]:
        assert "changed by hand since gwconf wrote it: ~/.codex/config.toml: model" in errors


@pytest.mark.parametrize("args", [["clients"], ["status", "codex"]])
def test_listings_read_a_plain_toml_file_without_tomllib(profile, home, args) -> None:
    """A client's TOML of plain lines is read by ``gwconf.plaintoml`` (tomllib's data for it):
    the listings import no tomllib and no TOML editor for it; a file it leaves (a date) gets both."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        'model = "m"\nmodel_provider = "gw"\n[model_providers.gw]\nbase_url = "https://gw.example.com/v1"\n'
    )
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert "tomllib" not in result["loaded"], result
    assert "https://gw.example.com/v1" in output or args == ["clients"], output
    config.write_text('model = "m"\nwhen = 1979-05-27\n')
    result, output = probe_all(args)
    assert result["code"] == 0, output
    assert "tomllib" in result["loaded"], result


def test_listings_read_a_plain_yaml_file_without_pyyaml(profile, home) -> None:
    """A client's YAML of plain blocks is read by ``gwconf.plainyaml`` (PyYAML's data for it):
    ``clients`` imports no PyYAML for it; a file it leaves (an anchor) gets PyYAML."""
    config = home / ".aider.conf.yml"
    config.write_text(
        "# mine\nmodel: openai/my-model  # the one\nopenai-api-base: https://gw.example.com/v1\n"
    )
    result, output = probe_all(["clients"])
    assert result["code"] == 0, output
    assert "yaml" not in result["loaded"], result
    config.write_text("model: &m openai/my-model\nweak-model: *m\n")
    result, output = probe_all(["clients"])
    assert result["code"] == 0, output
    assert "yaml" in result["loaded"], result


def test_pyyamls_resolvers_compile_on_first_use_and_still_resolve_every_implicit_type() -> None:
    """formats._import_pyyaml defers every pattern PyYAML compiles at import (its resolvers', its
    constructor's timestamp): each is compiled by its first match, and both PyYAML's safe_load
    and gwconf's YAML editor still read every implicit type as YAML 1.1 says."""
    code = (
        "import datetime, json\n"
        "from gwconf import formats\n"
        "text = 'a: 2024-01-02\\nb: 1.5\\nc: 0x10\\nd: yes\\ne: ~\\nf: 3.5-turbo\\ng: 12\\nh: .inf\\n'\n"
        "doc = formats.load('yaml', text, 'x.yaml')\n"
        "import yaml\n"
        "lazy = {type(r).__name__ for rs in yaml.SafeLoader.yaml_implicit_resolvers.values() for _, r in rs}\n"
        "for data in (doc.data(), yaml.safe_load(text)):\n"
        "    print(json.dumps({k: [type(v).__name__, str(v)] for k, v in data.items()}, sort_keys=True))\n"
        "print(sorted(lazy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    editor, library, lazy = out.splitlines()
    assert editor == library
    assert json.loads(editor) == {
        "a": ["date", "2024-01-02"],
        "b": ["float", "1.5"],
        "c": ["int", "16"],
        "d": ["bool", "True"],
        "e": ["NoneType", "None"],
        "f": ["str", "3.5-turbo"],
        "g": ["int", "12"],
        "h": ["float", "inf"],
    }
    assert lazy == "['LazyPattern']"
