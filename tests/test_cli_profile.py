"""The profile commands through the CLI: exit codes, output, masking."""

from __future__ import annotations

import json

from tests.conftest import TEST_KEY


def test_add_list_show_masks_key(gwconf, profile) -> None:
    listed = gwconf("profile", "list")
    assert listed.exit_code == 0
    assert "* work" in listed.stdout and "https://gw.example.com/v1" in listed.stdout
    shown = gwconf("profile", "show", "work")
    assert shown.exit_code == 0
    assert TEST_KEY not in shown.output and "sk-…WXYZ" in shown.stdout
    data = json.loads(gwconf("profile", "show", "work", "--json").stdout)
    assert data["key"] == "sk-…WXYZ" and data["key_source"] == "inline"
    full = gwconf("profile", "show", "work", "--show-key")
    assert TEST_KEY in full.stdout


def test_add_normalises_and_says_so(gwconf) -> None:
    result = gwconf(
        "profile", "add", "a", "--base-url", "https://gw.example.com/v1/chat/completions/", "--key-env", "GW"
    )
    assert result.exit_code == 0, result
    assert "removed the pasted endpoint" in result.stderr
    assert "$GW is not set" in result.stderr
    assert (
        json.loads(gwconf("profile", "show", "a", "--json").stdout)["base_url"] == "https://gw.example.com/v1"
    )


def test_add_warns_on_odd_keys_and_argv(gwconf) -> None:
    result = gwconf("profile", "add", "b", "--base-url", "https://g.example.com", "--key", "abc def")
    assert result.exit_code == 0
    assert "shell history" in result.stderr
    assert "does not start with `sk-`" in result.stderr and "space" in result.stderr


def test_add_refuses_without_key_on_pipe(gwconf) -> None:
    result = gwconf("profile", "add", "c", "--base-url", "https://g.example.com")
    assert result.exit_code == 2
    assert "--key-stdin" in result.stderr


def test_add_refuses_two_key_sources_and_duplicates(gwconf, profile) -> None:
    two = gwconf(
        "profile", "add", "d", "--base-url", "https://g.example.com", "--key-env", "A", "--key-cmd", "x"
    )
    assert two.exit_code == 2
    again = gwconf("profile", "add", "work", "--base-url", "https://g.example.com", "--key-env", "A")
    assert again.exit_code == 1 and "--force" in again.stderr
    forced = gwconf(
        "profile", "add", "work", "--base-url", "https://g.example.com", "--key-env", "A", "--force"
    )
    assert forced.exit_code == 0


def test_bad_url_is_one_clear_line(gwconf) -> None:
    result = gwconf("profile", "add", "e", "--base-url", "ftp://x", "--key-env", "A")
    assert result.exit_code == 1
    assert result.stderr.startswith("gwconf: error: base address") and "hint:" in result.stderr
    assert "Traceback" not in result.output


def test_rename_remove_unknown(gwconf, profile) -> None:
    assert gwconf("profile", "rename", "work", "job").exit_code == 0
    assert json.loads(gwconf("profile", "list", "--json").stdout)["active"] == "job"
    missing = gwconf("profile", "show", "nope")
    assert missing.exit_code == 1 and "no profile named 'nope'" in missing.stderr
    assert gwconf("profile", "remove", "job").exit_code == 0
    assert "No profiles yet" in gwconf("profile", "list").stdout


def test_no_active_profile_says_how(gwconf) -> None:
    result = gwconf("apply", "codex")
    assert result.exit_code == 1
    assert "no active profile" in result.stderr and "gwconf profile add" in result.stderr


def test_unknown_client_suggests(gwconf, profile) -> None:
    result = gwconf("apply", "codx")
    assert result.exit_code == 2
    assert "unknown client 'codx'" in result.stderr and "'codex'" in result.stderr


def test_version_and_help(gwconf) -> None:
    from gwconf import __version__

    assert gwconf("--version").stdout.strip() == f"gwconf {__version__}"
    helped = gwconf("--help")
    assert helped.exit_code == 0 and "Examples:" in helped.stdout
    for command in ("apply", "profile", "restore", "status", "use", "clients"):
        sub = gwconf(command, "--help")
        assert sub.exit_code == 0 and "Examples:" in sub.stdout, command
