"""A newcomer's first ten minutes, as real commands in a scratch HOME (issue 19).

Each test does what a user would: save a profile, look at the clients, preview and apply,
against the loopback test gateway where the gateway matters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import assert_nothing_saved, init_yes
from tests.gateway_fixtures import add_gateway_profile
from tests.gateway_server import VALID_KEY
from tests.terminal import run_on_a_terminal


@pytest.fixture
def bare_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with no program on it: detection then sees only files in the scratch HOME."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def detected(gwconf) -> set[str]:
    result = gwconf("clients", "--json")
    assert result.exit_code == 0, result
    return {c["id"] for c in json.loads(result.stdout)["clients"] if c["detected"]}


# -- --all means one set ----------------------------------------------------------------------------


def test_a_home_holding_only_gwconfs_own_files_has_no_detected_client(gwconf, home, bare_path) -> None:
    """Saving a profile writes into gwconf's config folder; that alone detects no client (Roo Code's
    import file lives there), so apply --all writes nothing, and creates no VS Code settings.json."""
    assert gwconf(
        "profile", "add", "work", "--base-url", "https://gw.example.com/v1", "--model", "m",
        "--key-stdin", "--use", input="sk-test-0123456789abcdef\n",
    ).exit_code == 0  # fmt: skip
    assert gwconf("apply", "roo-code", "--dry-run").exit_code == 0
    assert detected(gwconf) == set()
    result = gwconf("apply", "--all")
    assert result.exit_code == 0, result
    assert "no supported client was detected" in result.stderr
    assert not (home / ".config" / "Code").exists()
    # and after gwconf wrote Roo's import file for real, Roo is still not "installed"
    assert gwconf("apply", "roo-code").exit_code == 0
    assert "roo-code" not in detected(gwconf) - {"kilo"}


def test_roo_code_is_detected_by_its_extension(gwconf, home, bare_path, profile) -> None:
    (home / ".vscode" / "extensions" / "rooveterinaryinc.roo-cline-3.52.1").mkdir(parents=True)
    assert "roo-code" in detected(gwconf)


def test_apply_all_previews_and_checks_exactly_what_it_writes(gwconf, home, bare_path, profile) -> None:
    """apply --all && apply --all --check exits 0; the dry run lists the same clients as the write."""
    (home / ".codex").mkdir()
    (home / ".aider.conf.yml").write_text("# mine\nauto-commits: false\n")
    preview = json.loads(gwconf("apply", "--all", "--dry-run", "--json").stdout)
    assert {c["id"] for c in preview["clients"]} == {"codex", "aider"}
    assert gwconf("apply", "--all", "--check").exit_code == 6
    written = gwconf("apply", "--all", "--json")
    assert written.exit_code == 0, written
    assert {c["id"] for c in json.loads(written.stdout)["clients"]} == {"codex", "aider"}
    check = gwconf("apply", "--all", "--check")
    assert check.exit_code == 0, check
    assert "0 clients would change" in check.stdout


def test_all_supported_previews_every_client(gwconf, home, bare_path, profile) -> None:
    from gwconf import registry

    result = gwconf("apply", "--all-supported", "--dry-run", "--json")
    assert result.exit_code == 0, result
    assert [c["id"] for c in json.loads(result.stdout)["clients"]] == list(registry.IDS)
    both = gwconf("apply", "--all", "--all-supported")
    assert both.exit_code == 2 and "only one of them" in both.stderr


# -- a key command runs at most once per command ------------------------------------------------------


def counting_key_cmd(folder: Path, name: str, key: str) -> tuple[str, Path]:
    """A key command that prints ``key`` and counts its runs, one line per run, in a file."""
    script = folder / f"{name}-key.sh"
    count = folder / f"{name}.count"
    script.write_text(f'#!/bin/sh\necho run >> "{count}"\necho {key}\n')
    return f"/bin/sh {script}", count


def runs(count: Path) -> int:
    return len(count.read_text().splitlines()) if count.exists() else 0


def test_a_key_command_runs_at_most_once_per_command_and_never_for_an_unused_profile(
    gwconf, home, tmp_path, gateway
) -> None:
    used_cmd, used = counting_key_cmd(tmp_path, "used", VALID_KEY)
    other_cmd, other = counting_key_cmd(tmp_path, "other", "sk-other-0123456789abcdef")
    for name, cmd in (("gw", used_cmd), ("other", other_cmd)):
        result = gwconf(
            "profile", "add", name, "--base-url", gateway.base_url, "--model", "my-model", "--key-cmd", cmd
        )  # fmt: skip
        assert result.exit_code == 0, result
    assert gwconf("use", "gw").exit_code == 0
    assert runs(used) == 0 and runs(other) == 0  # saving and switching need no key
    assert gwconf("apply", "codex", "claude-code", "aider").exit_code == 0
    assert runs(used) == 1
    expected = {"clients": 0, "status": 0, "apply --all --dry-run": 1, "verify": 1, "doctor": 1}
    counted = {}
    for command, _ in expected.items():
        before = runs(used)
        result = gwconf(*command.split())
        assert result.exit_code == 0, (command, result)
        counted[command] = runs(used) - before
    assert counted == expected
    assert runs(other) == 0
    # status still names the profile each client points at (from the address and the ledger)
    data = json.loads(gwconf("status", "--json").stdout)
    pointing = {c["id"]: c["profile"] for c in data["clients"]}
    assert pointing.items() >= {"codex": "gw", "claude-code": "gw", "aider": "gw"}.items()
    assert runs(other) == 0


# -- gwconf models -----------------------------------------------------------------------------------


def test_models_lists_the_gateways_ids_and_remembers_them(gwconf, home, tmp_path) -> None:
    from tests.gateway_server import GatewayServer

    with GatewayServer(keys=(VALID_KEY,), models=("my-model", "gpt-x", "claude-y")) as server:
        add_gateway_profile(server.base_url, "my-model")
        result = gwconf("models")
        assert result.exit_code == 0, result
        assert result.stdout.splitlines() == ["claude-y", "gpt-x", "my-model  (the profile's model)"]
        data = json.loads(gwconf("models", "--json").stdout)
        assert data["models"] == ["claude-y", "gpt-x", "my-model"] and data["listed"] is True
        assert data["url"] == server.base_url + "/models" and VALID_KEY not in json.dumps(data)
        (request,) = server.requests_to("/v1/models")[:1]
        assert request.method == "GET" and request.key == VALID_KEY
        base = server.base_url
    cache = json.loads((tmp_path / "gwconf" / "state" / "models" / "gw.json").read_text())
    assert cache["models"] == ["claude-y", "gpt-x", "my-model"] and cache["base_url"] == base


def test_models_on_a_gateway_that_does_not_list_them(gwconf, gateway, gateway_profile) -> None:
    gateway.set_fault("404", path="/v1/models")
    result = gwconf("models")
    assert result.exit_code == 0, result
    assert "this gateway does not list its models" in result.stdout
    assert json.loads(gwconf("models", "--json").stdout)["listed"] is False


def test_what_models_and_profile_show_suggest_names_the_profile(gwconf, gateway, gateway_profile) -> None:
    """The commands suggested carry the profile's real name, ready to run (not NAME)."""
    gateway.models = {"gpt-x"}
    listed = gwconf("models")
    assert "not among them. Change it with: gwconf profile set gw --model MODEL" in listed.stderr
    gateway.set_fault("404", path="/v1/models")
    assert "Give the model by name: gwconf profile set gw --model MODEL" in gwconf("models").stdout
    assert gwconf(
        "profile", "add", "bare", "--base-url", gateway.base_url, "--key-stdin", input=VALID_KEY + "\n"
    ).exit_code == 0  # fmt: skip
    assert (
        "(none: give one with gwconf profile set bare --model MODEL)"
        in gwconf("profile", "show", "bare").stdout
    )


def test_models_with_a_rejected_key_exits_3_like_verify(gwconf, gateway) -> None:
    assert gwconf(
        "profile", "add", "bad", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input="sk-wrong-0123456789abcdef\n",
    ).exit_code == 0  # fmt: skip
    result = gwconf("models")
    assert result.exit_code == 3, result
    assert "key rejected" in result.stderr and "sk-wrong-0123456789abcdef" not in result.output
    assert gwconf("verify").exit_code == 3


def test_verify_and_doctor_name_the_models_the_gateway_serves(gwconf, home) -> None:
    from tests.gateway_server import GatewayServer

    with GatewayServer(keys=(VALID_KEY,), models=("gpt-5.4-mini", "my-model-2")) as server:
        add_gateway_profile(server.base_url, "my-modle-2")
        verify = gwconf("verify")
        assert verify.exit_code == 4, verify
        assert "model not available" in verify.stdout
        assert "closest it serves: my-model-2" in verify.stdout and "gwconf models" in verify.stdout
        doctor = gwconf("doctor")
        assert (
            "'my-modle-2' is not among the 2 models the gateway lists (closest: my-model-2)" in doctor.stderr
        )
        assert "gwconf profile set gw --model MODEL" in doctor.stderr


def test_a_model_in_other_case_is_suggested_first_and_never_swapped_in(gwconf, home) -> None:
    """``GPT-5.4-MINI`` where the gateway serves ``gpt-5.4-mini`` (and the same model under a vendor
    prefix): the id equal but for case is the first suggestion; the profile keeps what was typed."""
    from tests.gateway_server import GatewayServer

    served = ("openai/gpt-5.4-mini", "gpt-5.4-mini", "gpt-5-mini", "gpt-5.4-nano")
    with GatewayServer(keys=(VALID_KEY,), models=served) as server:
        add_gateway_profile(server.base_url, "GPT-5.4-MINI")
        verify = gwconf("verify")
        assert verify.exit_code == 4, verify
        assert "closest it serves: gpt-5.4-mini, openai/gpt-5.4-mini," in verify.stdout, verify.stdout
        assert "closest: gpt-5.4-mini, openai/gpt-5.4-mini," in gwconf("models").stderr
        assert "(closest: gpt-5.4-mini, openai/gpt-5.4-mini," in gwconf("doctor").stderr
    assert json.loads(gwconf("profile", "show", "gw", "--json").stdout)["model"] == "GPT-5.4-MINI"


# -- gwconf current -----------------------------------------------------------------------------------


def test_current_prints_the_active_profile_and_nothing_else(gwconf, home) -> None:
    none = gwconf("current")
    assert none.exit_code == 1 and none.output == ""
    assert json.loads(gwconf("current", "--json").stdout) == {
        "profile": None, "source": None, "file": None, "active": None,
    }  # fmt: skip
    assert gwconf(
        "profile", "add", "work", "--base-url", "https://gw.example.com/v1", "--key-cmd", "/bin/false",
    ).exit_code == 0  # fmt: skip
    result = gwconf("current")
    assert result.exit_code == 0 and result.stdout == "work\n" and result.stderr == ""
    assert json.loads(gwconf("current", "--json").stdout) == {
        "profile": "work", "source": "active", "file": None, "active": "work",
    }  # fmt: skip
    assert "for shell prompts" in gwconf("current", "--help").stdout


def test_current_finds_the_file_where_gwconf_keeps_it_without_gwconf_home(
    home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """current places the active file itself (no platformdirs): it must agree with Env.config_dir."""
    from gwconf.cli import active_profile_file
    from gwconf.paths import Env

    monkeypatch.delenv("GWCONF_HOME")
    for xdg in (None, str(home / "xdg")):
        if xdg:
            monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
        assert Path(active_profile_file()) == Env.current().config_dir / "active"


def test_current_runs_without_click_or_a_key_command(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "GWCONF_HOME": str(tmp_path / "g")}
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "active").write_text("work\n")
    code = "import sys; from gwconf.cli import run; c = run(['current']); print(c, 'click' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout == "work\n0 False\n"


# -- gwconf init, and gwconf alone --------------------------------------------------------------------


def test_gwconf_alone_points_a_newcomer_to_init_and_exits_0(gwconf, home) -> None:
    result = gwconf()
    assert result.exit_code == 0, result
    assert "Commands:" in result.stdout and "New here? Start with: gwconf init" in result.stdout
    for name in ("work", "home"):
        assert gwconf(
            "profile", "add", name, "--base-url", "https://gw.example.com/v1", "--key-env", "GW_KEY"
        ).exit_code == 0  # fmt: skip
    (home.parent / "gwconf" / "active").unlink()
    assert "No active profile; choose one: gwconf use home" in gwconf().stdout


def test_init_without_a_terminal_takes_flags_and_ends_with_verified_clients(
    gwconf, home, gateway, bare_path
) -> None:
    (home / ".codex").mkdir()
    (home / ".aider.conf.yml").write_text("# mine\nauto-commits: false\n")
    missing = gwconf("init", "--yes", "--key-stdin", input=VALID_KEY + "\n")
    assert missing.exit_code == 2 and "init needs --base-url URL" in missing.stderr
    assert not (home.parent / "gwconf" / "profiles").exists()
    result = gwconf(
        "init", "--yes", "--base-url", gateway.base_url, "--key-stdin", "--model", "my-model",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    out = result.stdout
    assert "The gateway accepted the key and lists 1 model." in out
    assert "Saved profile 'local' (active)" in out
    assert "aider          ~/.aider.conf.yml (modify)" in out
    assert "codex          ~/.codex/config.toml (create)" in out
    assert "codex          ok" in out and "aider          ok" in out
    assert "Restart:" in out and VALID_KEY not in result.output
    assert gwconf("current").stdout == "local\n"
    assert gwconf("apply", "--all", "--check").exit_code == 0
    assert gwconf("verify").exit_code == 0


def test_init_with_a_rejected_key_exits_3_and_saves_nothing(gwconf, home, gateway) -> None:
    result = init_yes(gateway.base_url, key="sk-wrong-0123456789abcdef")
    assert_nothing_saved(result, 3)
    assert "key rejected" in result.stderr


def test_init_on_a_gateway_without_a_model_list_verifies_the_profile(
    gwconf, home, gateway, bare_path
) -> None:
    gateway.set_fault("404", path="/v1/models")
    result = init_yes(gateway.base_url, "--model", "my-model")
    assert result.exit_code == 0, result
    assert "does not list its models" in result.stdout
    assert "No supported client was found here" in result.stdout
    assert "verdict  ok" in result.stdout


# -- profile set, profile add --from ------------------------------------------------------------------


def test_profile_set_changes_only_the_fields_named(gwconf, home, gateway, gateway_profile) -> None:
    assert gwconf("apply", "codex").exit_code == 0
    result = gwconf("profile", "set", "gw", "--model", "other-model")
    assert result.exit_code == 0, result
    assert "model other-model" in result.stdout
    assert "re-apply with: gwconf use gw" in result.stdout
    shown = json.loads(gwconf("profile", "show", "gw", "--json", "--show-key").stdout)
    assert shown["model"] == "other-model" and shown["key"] == VALID_KEY
    assert shown["base_url"] == gateway.base_url
    rekey = gwconf("profile", "set", "gw", "--key-stdin", input="sk-new-0123456789abcdefGHIJ\n")
    assert rekey.exit_code == 0 and "sk-new-0123456789abcdefGHIJ" not in rekey.output
    assert json.loads(gwconf("profile", "show", "gw", "--json", "--show-key").stdout)["key"] == (
        "sk-new-0123456789abcdefGHIJ"
    )
    assert gwconf("profile", "set", "gw").exit_code == 2
    assert gwconf("profile", "set", "nope", "--model", "x").exit_code == 1


def test_profile_add_from_a_hand_configured_client(gwconf, home, gateway, monkeypatch) -> None:
    """A user whose Codex already talks to the gateway adopts that setup; Codex is not written."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        'model = "my-model"\nmodel_provider = "mine"\n\n[model_providers.mine]\nname = "mine"\n'
        f'base_url = "{gateway.base_url}"\nenv_key = "MY_GW_KEY"\nwire_api = "responses"\n'
    )
    before = config.read_bytes()
    monkeypatch.setenv("MY_GW_KEY", VALID_KEY)
    result = gwconf("profile", "add", "mine", "--from", "codex")
    assert result.exit_code == 0, result
    assert f"Adopted Codex CLI: {gateway.base_url}, model my-model." in result.stdout
    monkeypatch.delenv("MY_GW_KEY")
    assert config.read_bytes() == before
    shown = json.loads(gwconf("profile", "show", "mine", "--json", "--show-key").stdout)
    assert (shown["base_url"], shown["model"], shown["key"]) == (gateway.base_url, "my-model", VALID_KEY)
    assert gwconf("verify", "--profile", "mine").exit_code == 0
    empty = gwconf("profile", "add", "x", "--from", "aider")
    assert empty.exit_code == 1 and "Aider's files hold no key to adopt" in empty.stderr


def test_profile_add_without_use_names_the_next_step(gwconf, profile) -> None:
    result = gwconf("profile", "add", "two", "--base-url", "https://gw.example.com/v1", "--key-env", "K")
    assert "Switch to it with: gwconf use two" in result.stdout


# -- errors that help ---------------------------------------------------------------------------------


def test_did_you_mean_for_commands_profiles_and_clients(gwconf, profile) -> None:
    command = gwconf("aply", "codex")
    assert command.exit_code == 2
    assert command.stderr.startswith("gwconf: error: unknown command 'aply'. Did you mean 'apply'?")
    used = gwconf("use", "wrok")
    assert (
        used.exit_code == 1
        and "Did you mean 'work'?" in used.stderr
        and "hint: gwconf use work" in used.stderr
    )
    client = gwconf("apply", "codx")
    assert client.exit_code == 2 and "Did you mean 'codex'?" in client.stderr


def test_one_error_style_and_json_errors_on_stdout(gwconf, profile) -> None:
    option = gwconf("apply", "codex", "--bogus")
    assert option.exit_code == 2 and "Error:" not in option.output
    assert (
        option.stderr.startswith("gwconf: error: ")
        and "hint: See the options and examples: gwconf apply --help" in option.stderr
    )
    failed = gwconf("status", "--json", "nope")
    assert failed.exit_code == 2
    assert json.loads(failed.stdout) == {
        "error": "unknown client 'nope'.",
        "hint": "See every supported client with: gwconf clients",
        "exit_code": 2,
    }
    assert "gwconf: error: unknown client 'nope'." in failed.stderr
    missing = gwconf("verify", "--json", "--profile", "missing")
    assert json.loads(missing.stdout)["exit_code"] == 1 == missing.exit_code


def test_removing_the_active_profile_says_what_is_active_now(gwconf, profile) -> None:
    assert (
        gwconf(
            "profile", "add", "home", "--base-url", "https://gw2.example.com/v1", "--key-env", "K"
        ).exit_code
        == 0
    )
    assert gwconf("apply", "codex").exit_code == 0
    result = gwconf("profile", "remove", "work")
    assert "It was the active profile; none is active now. Choose one: gwconf use home" in result.stdout
    assert "codex still point at its gateway; put back what they had: gwconf restore codex" in result.stdout
    no_active = gwconf("apply", "codex")
    assert no_active.exit_code == 1 and "hint: Choose one: gwconf use home" in no_active.stderr


def test_status_exits_1_when_a_file_it_shows_cannot_be_read(gwconf, home, profile) -> None:
    assert gwconf("apply", "codex").exit_code == 0
    assert gwconf("status").exit_code == 0
    (home / ".codex" / "config.toml").write_text("model = [unclosed\n")
    result = gwconf("status")
    assert result.exit_code == 1 and "gwconf: error:" in result.stderr
    assert gwconf("status", "--json").exit_code == 1


def test_an_unreadable_file_is_said_in_its_own_section_and_doctor_names_the_area(
    gwconf, home, gateway, gateway_profile
) -> None:
    """status: the client's section says which file (and line) it cannot read and where the
    details are, rather than standing empty; doctor files the finding under "files", not "other"."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{\n  "env": {\n    "A": 1,,\n}\n')
    result = gwconf("status")
    assert result.exit_code == 1
    section = result.stdout.split("== claude-code (Claude Code)\n", 1)[1].splitlines()[:2]
    assert section == [
        "  unreadable    ~/.claude/settings.json:3:12: a comma with no entry before it (two commas in a row?)",
        "  details       on stderr, with what to do; more: gwconf doctor claude-code",
    ], result.stdout
    assert "never rewrites a file it cannot parse" in result.stderr
    doctor = gwconf("doctor", "claude-code", "--json")
    [finding] = json.loads(doctor.stdout)["clients"][0]["findings"]
    assert finding["area"] == "files" and finding["message"].startswith("~/.claude/settings.json:3:12: ")
    assert "    files          error: ~/.claude/settings.json:3:12" in gwconf("doctor", "claude-code").stdout


def test_a_401_with_another_key_in_the_client_points_to_apply(gwconf, home, gateway, gateway_profile) -> None:
    assert gwconf("apply", "aider").exit_code == 0
    config = home / ".aider.conf.yml"
    config.write_text(config.read_text().replace(VALID_KEY, "sk-stale-0123456789abcdefQRST"))
    result = gwconf("verify", "aider")
    assert result.exit_code == 3, result
    assert "holds another key than profile 'gw'" in result.stdout
    assert "gwconf apply aider" in result.stdout and "create a new key" not in result.stdout
    # the profile's key rejected too: applying it would not help, a new key comes first
    revoked = gwconf("profile", "set", "gw", "--key-stdin", input="sk-revoked-0123456789abcdefWXYZ\n")
    assert revoked.exit_code == 0, revoked
    both = gwconf("verify", "aider")
    assert both.exit_code == 3, both
    assert "the gateway rejects the profile's key too (sk-…WXYZ" in both.stdout
    assert "create a new key in the gateway's console" in both.stdout
    assert "gwconf profile set gw --key-stdin, then gwconf apply aider" in both.stdout
    assert "sk-revoked-0123456789" not in both.output


def test_run_dry_run_works_when_the_program_is_not_installed(gwconf, profile, bare_path) -> None:
    result = gwconf("run", "codex", "--dry-run")
    assert result.exit_code == 0, result
    assert "codex is not on PATH: install Codex CLI" in result.stdout and "set" in result.stdout
    assert gwconf("run", "codex").exit_code == 127


def test_quiet_after_the_subcommand_silences_notes_not_errors(gwconf, profile, bare_path) -> None:
    quiet = gwconf("apply", "codex", "-q")
    assert quiet.exit_code == 0 and quiet.stdout == ""
    failed = gwconf("apply", "nope", "--quiet")
    assert failed.exit_code == 2 and "gwconf: error: unknown client 'nope'." in failed.stderr


def test_applying_to_a_client_not_installed_says_so_in_one_line(gwconf, profile, bare_path) -> None:
    result = gwconf("apply", "codex")
    assert result.exit_code == 0
    notes = [line for line in result.stdout.splitlines() if "not look installed" in line]
    assert notes == ["  note: Codex CLI does not look installed here: the file is ready for when it is."]


def test_no_spec_section_numbers_in_help_or_messages(gwconf) -> None:
    import re

    from gwconf.cli import COMMANDS

    for name in COMMANDS:
        text = gwconf(name, "--help").stdout
        assert not re.search(r"\bspec \d", text), name
    assert not re.search(r"\bspec \d", gwconf("--help").stdout)


# -- polish -------------------------------------------------------------------------------------------


def test_a_latin1_terminal_gets_three_dots(home, profile, tmp_path) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import invoke

    assert invoke("apply", "aider").exit_code == 0
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run([sys.executable, "-m", "gwconf", "status"], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert b"sk-...WXYZ" in done.stdout


def test_clients_table_columns_line_up(gwconf, profile) -> None:
    lines = gwconf("clients").stdout.splitlines()
    column = lines[0].index("FILES")
    assert all(line[column - 2 : column] == "  " and line[column] != " " for line in lines)


def test_profile_show_is_readable(gwconf, monkeypatch) -> None:
    assert (
        gwconf(
            "profile", "add", "team", "--base-url", "https://gw.example.com/v1", "--key-env", "TEAM_KEY"
        ).exit_code
        == 0
    )
    text = gwconf("profile", "show", "team").stdout
    assert "True" not in text and "key_source" not in text
    assert "(not set: $TEAM_KEY)" in text and "(from the base address)" in text
    monkeypatch.setenv("TEAM_KEY", "sk-team-0123456789abcdefABCD")
    assert "sk-…ABCD  (from $TEAM_KEY)" in gwconf("profile", "show", "team").stdout


def test_apply_stat_and_a_deterministic_dry_run(gwconf, home, profile, bare_path) -> None:
    stat = gwconf("apply", "--all-supported", "--stat")
    assert stat.exit_code == 0
    assert "codex          ~/.codex/config.toml (create)" in stat.stdout and "@@" not in stat.stdout
    assert not (home / ".codex").exists()
    first = gwconf("apply", "codex", "aider", "--dry-run", "--json").stdout
    assert first == gwconf("apply", "codex", "aider", "--dry-run", "--json").stdout
    long = gwconf("apply", "--all-supported", "--dry-run").stdout
    assert long.index("codex          ~/.codex/config.toml (create)") < long.index("== aichat")


# -- install -------------------------------------------------------------------------------------------


def test_the_example_profile_ships_inside_the_package(gwconf, home, bare_path) -> None:
    """--profile example works without a checkout (after pipx install), and matches profiles/."""
    import tomllib

    repo = Path(__file__).resolve().parents[1]
    packaged = repo / "src" / "gwconf" / "examples" / "example.toml"
    assert tomllib.loads(packaged.read_text()) == tomllib.loads(
        (repo / "profiles" / "example.toml").read_text()
    )
    assert not Path("profiles").exists()  # the test runs outside the checkout
    result = gwconf("apply", "--all-supported", "--dry-run", "--profile", "example", "--json")
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["profile"] == "example"


# -- the OS keychain (optional extra) ---------------------------------------------------------------


FAKE_KEYRING = '''
"""A stand-in for the keyring package: entries in a JSON file named by $FAKE_KEYRING_FILE."""
import json, os

def get_password(service, user):
    with open(os.environ["FAKE_KEYRING_FILE"]) as handle:
        return json.load(handle).get(f"{service}/{user}")
'''


def test_key_keyring_reads_the_keychain_only_when_used(gwconf, home, tmp_path, gateway) -> None:
    import os
    import subprocess
    import sys

    def gw(*args: str, with_keyring: bool = True) -> subprocess.CompletedProcess:
        env = {**os.environ, "FAKE_KEYRING_FILE": str(tmp_path / "keychain.json")}
        if with_keyring:
            env["PYTHONPATH"] = str(tmp_path / "site")
        code = "import sys; from gwconf.cli import main; main(sys.argv[1:])"
        return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "keyring.py").write_text(FAKE_KEYRING)
    (tmp_path / "keychain.json").write_text(json.dumps({"gateway/work": VALID_KEY}))
    added = gwconf(
        "profile", "add", "work", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-keyring", "gateway/work", "--use",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert 'key_keyring = "gateway/work"' in (home.parent / "gwconf" / "profiles" / "work.toml").read_text()
    assert gw("current", with_keyring=False).returncode == 0  # no keychain for what needs no key
    assert gw("clients", with_keyring=False).returncode == 0
    verified = gw("verify")
    assert verified.returncode == 0, verified.stderr
    assert VALID_KEY not in verified.stdout + verified.stderr
    missing = gw("verify", with_keyring=False)
    assert missing.returncode == 1 and "pipx inject gwconf keyring" in missing.stderr
    bad = gwconf("profile", "set", "work", "--key-keyring", "no-user")
    assert bad.exit_code == 1 and "is not service/user" in bad.stderr


def guided_answers(gateway, *to_apply: str) -> list[tuple[str, str]]:
    """What a newcomer types into ``gwconf init``: address, key, the first model, the name
    "work", then each answer to "Apply profile ...?"."""
    return [
        ("Gateway base address", gateway.base_url),
        ("Gateway key", VALID_KEY),
        ("Model (number or name)", "1"),
        ("Name for this profile", "work"),
        *(("Apply profile", answer) for answer in to_apply),
    ]


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_init_on_a_terminal_asks_offers_the_models_and_applies_on_yes(home, gateway, bare_path) -> None:
    """The guided run as a user types it, on a real pseudo-terminal."""
    import os

    (home / ".codex").mkdir()
    answers = guided_answers(gateway, "y")
    code, text = run_on_a_terminal(["init"], answers, {**os.environ, "COLUMNS": "100"})
    assert code == 0, text
    assert answers == [] and VALID_KEY not in text  # every question asked; the key never echoed
    assert "   1. my-model" in text and "Saved profile 'work' (active)" in text
    assert "codex          ok" in text and "Restart:" in text
    assert (home / ".codex" / "config.toml").is_file()


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_key_stdin_typed_on_a_terminal_is_asked_for_hidden_and_the_rest_asked_too(
    home, gateway, bare_path
) -> None:
    """The newcomer sweep: ``init --base-url URL --key-stdin`` typed on a terminal waited with no
    prompt, echoed the key as it was typed, then applied to every client found without asking."""
    import os

    (home / ".codex").mkdir()
    answers = [
        (question, answer) for question, answer in guided_answers(gateway, "n") if "address" not in question
    ]
    code, text = run_on_a_terminal(
        ["init", "--base-url", gateway.base_url, "--key-stdin"], answers, {**os.environ, "COLUMNS": "100"}
    )
    assert answers == [] and VALID_KEY not in text, text  # each asked; the key never shown
    assert "Asking the gateway for its models (up to 30 s)..." in text
    assert code == 0 and not (home / ".codex" / "config.toml").exists(), text  # "n": nothing applied


def test_a_key_of_blanks_or_empty_quotes_is_refused(gwconf, home) -> None:
    for typed in ("   ", '""', "''"):
        result = gwconf(
            "profile", "add", "blank", "--base-url", "https://gw.example.com/v1", "--key-stdin",
            input=typed + "\n",
        )  # fmt: skip
        assert result.exit_code != 0 and "the key is empty" in result.stderr, (typed, result)
    assert gwconf("profile", "list", "--json").stdout.count('"name"') == 0


def test_init_dry_run_checks_the_gateway_and_shows_the_diffs_without_writing(
    gwconf, home, gateway, bare_path
) -> None:
    (home / ".codex").mkdir()
    mine = "# mine\nauto-commits: false\n"
    (home / ".aider.conf.yml").write_text(mine)
    result = gwconf(
        "init", "--yes", "--dry-run", "--base-url", gateway.base_url, "--key-stdin", "--model", "my-model",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    out = result.stdout
    assert "The gateway accepted the key and lists 1 model." in out
    assert "Would save profile 'local' (active)" in out and "Saved profile" not in out
    assert "+++ b/~/.codex/config.toml" in out and "+++ b/~/.aider.conf.yml" in out
    assert "Dry run: nothing was written." in out and "Verifying" not in out
    assert VALID_KEY not in result.output
    assert not (home / ".codex" / "config.toml").exists() and (home / ".aider.conf.yml").read_text() == mine
    assert gwconf("profile", "list", "--json").stdout.count('"name"') == 0
    rejected = gwconf(
        "init", "--yes", "--dry-run", "--base-url", gateway.base_url, "--key-stdin",
        input="sk-wrong-0123456789abcdef\n",
    )  # fmt: skip
    assert_nothing_saved(rejected, 3)


def test_init_with_client_applies_to_the_named_clients_only(gwconf, home, gateway, bare_path) -> None:
    (home / ".codex").mkdir()
    mine = "# mine\nauto-commits: false\n"
    (home / ".aider.conf.yml").write_text(mine)
    unknown = gwconf(
        "init", "--yes", "--client", "codx", "--base-url", "http://127.0.0.1:9/v1", "--key-env", "K"
    )
    assert unknown.exit_code == 2 and "unknown client 'codx'. Did you mean 'codex'?" in unknown.stderr
    result = gwconf(
        "init", "--yes", "--client", "codex", "--base-url", gateway.base_url, "--key-stdin", "--model", "my-model",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    assert "Chosen 1 client:" in result.stdout and "codex          ok" in result.stdout
    assert "aider" not in result.stdout
    assert (home / ".codex" / "config.toml").is_file() and (home / ".aider.conf.yml").read_text() == mine


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_init_on_a_terminal_applies_to_the_ids_answered(home, gateway, bare_path) -> None:
    """ "Apply profile ... to aider, codex?" takes some of the ids; one not offered is asked again."""
    import os

    (home / ".codex").mkdir()
    mine = "# mine\nauto-commits: false\n"
    (home / ".aider.conf.yml").write_text(mine)
    answers = guided_answers(gateway, "codx", "codex")
    code, text = run_on_a_terminal(["init"], answers, {**os.environ, "COLUMNS": "100"})
    assert code == 0, text
    assert answers == [] and "Not among them: codx" in text
    assert "Applied to codex " in text and "codex          ok" in text and "aider          ok" not in text
    assert (home / ".codex" / "config.toml").is_file() and (home / ".aider.conf.yml").read_text() == mine


def test_init_on_a_gateway_without_a_model_list_and_no_model_saves_nothing(gwconf, home, gateway) -> None:
    """Only a chat request with a model can check the key there: init stops instead of saving the
    profile unchecked (it exited 0 with it saved, the newcomer sweep)."""
    gateway.set_fault("404", path="/v1/models")
    assert_nothing_saved(result := init_yes(gateway.base_url), 2)
    assert "--model MODEL" in result.stderr


def test_init_with_a_client_set_up_in_its_app_shows_its_steps_and_verifies_the_others(
    gwconf, home, gateway, bare_path
) -> None:
    """--client cursor: Cursor is set up in the app, so init shows its steps as apply does and
    verifies the clients it can read; it said "Nothing to change" and exited 1 for Cursor."""
    (home / ".codex").mkdir()
    result = gwconf(
        "init", "--yes", "--client", "cursor,codex", "--base-url", gateway.base_url, "--key-stdin",
        "--model", "my-model", input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    out = result.stdout
    assert "This client cannot be configured through files; do this in the app:" in out
    assert "(the key is masked; add --show-key to print it in full)" in out
    assert "codex          ok" in out and "gwconf cannot read what it sends" not in out


def test_init_shows_a_link_only_apps_steps_instead_of_verifying_it(gwconf, home, gateway, bare_path) -> None:
    """The newcomer sweep: with Cherry Studio installed, init listed it as "already points at
    this profile", failed its verify ("no base address in its files", exit 1) and never showed
    the link that sets it up, which gwconf apply cherry-studio shows."""
    (home / ".config" / "CherryStudio").mkdir(parents=True)
    (home / ".codex").mkdir()
    result = gwconf(
        "init", "--yes", "--base-url", gateway.base_url, "--key-stdin", "--model", "my-model",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    assert "cherry-studio  steps to do in the app" in result.stdout
    assert "already points at this profile" not in result.stdout
    assert "gwconf link cherry-studio --open" in result.stdout
    assert "codex          ok" in result.stdout and "cherry-studio  Cherry Studio has no" not in result.stdout


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://gw.example.com/v1", "example"),
        ("https://gw.example.co.uk/v1", "example"),  # was "co" (the newcomer sweep)
        ("https://llm.company.com.cn/v1", "company"),  # was "com"
        ("http://127.0.0.1:4000/v1", "local"),
        ("https://x.co/v1", "x"),
    ],
)
def test_the_default_profile_name_is_the_gateways_company(url: str, name: str) -> None:
    from gwconf.cli.init import _default_name

    assert _default_name(url) == name


def test_a_dumb_terminal_gets_no_colour(monkeypatch) -> None:
    """TERM=dumb (Emacs' shell, some CI logs) showed the colour codes raw (the newcomer sweep)."""
    import io
    import sys

    from gwconf.cli import _output

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert _output.use_colour() is True
    monkeypatch.setenv("TERM", "dumb")
    assert _output.use_colour() is False


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_init_on_a_terminal_asks_again_after_a_bad_address_or_an_empty_key(home, gateway, bare_path) -> None:
    """The newcomer sweep: an address without its scheme, or a key of blanks, ended init (exit
    1) and every answer before it was lost; each is now asked again, with the error shown."""
    import os

    answers = [
        ("Gateway base address", gateway.base_url.removeprefix("http://")),  # no scheme
        ("Gateway base address", gateway.base_url),
        ("Gateway key", "   "),
        ("Gateway key", VALID_KEY),
        ("Model (number or name)", "1"),
        ("Name for this profile", "work"),
    ]
    code, text = run_on_a_terminal(["init", "--no-apply"], answers, {**os.environ, "COLUMNS": "100"})
    assert answers == [] and code == 0, text
    assert text.count("gwconf: error:") == 2 and "the key is empty" in text
    assert "Saved profile 'work' (active)" in text and VALID_KEY not in text
