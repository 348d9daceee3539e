"""A variable that moves a client's folder, holding a literal ``~`` (``export X="~/dir"`` quoted, or
a line in a .env): most clients expand nothing, and read a folder named ``~`` under the current
one. gwconf follows them (``Env.as_given``), names it in status and doctor, and refuses to make
that folder, where it used to write the home folder's, which the client then never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwconf import registry
from gwconf.paths import Env
from tests.clients._harness import messages, reading_of

# client -> the variable that moves its folder (each checked in the client's source: none of them
# expands ~; see the modules' docstrings)
MOVERS = {
    "llm": "LLM_USER_PATH",
    "hermes": "HERMES_HOME",
    "mini-swe-agent": "MSWEA_GLOBAL_CONFIG_DIR",
    "oterm": "OTERM_DATA_DIR",
    "continue": "CONTINUE_GLOBAL_DIR",
    "cline": "CLINE_DIR",
    "gemini-cli": "GEMINI_CLI_HOME",
    "kimi-code": "KIMI_CODE_HOME",
    "nanocoder": "NANOCODER_CONFIG_DIR",
    "openhands": "OPENHANDS_PERSISTENCE_DIR",
    "aichat": "AICHAT_CONFIG_DIR",
}


@pytest.mark.parametrize(("client", "variable"), list(MOVERS.items()))
def test_the_client_reads_a_folder_named_tilde_under_the_current_one(
    client: str, variable: str, tmp_path: Path
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    env = Env(home=home, platform="linux", environ={variable: "~/moved"}, cwd=cwd)
    paths = [f.path for f in registry.get(client).files(env)]
    assert paths and all(p.is_relative_to(cwd / "~" / "moved") for p in paths), paths
    # an unquoted ~ reaches the program expanded by the shell: the home folder's
    expanded = Env(home=home, platform="linux", environ={variable: f"{home}/moved"}, cwd=cwd)
    assert all(f.path.is_relative_to(home / "moved") for f in registry.get(client).files(expanded))


def test_apply_refuses_to_make_the_folder_and_status_names_the_variable(
    gwconf, home: Path, profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", "~/.continue")
    work = Path.cwd()
    preview = gwconf("apply", "continue", "--dry-run")
    assert "note: the real run will refuse this:" in preview.stdout, preview
    assert "lies under a folder named `~`" in preview.stdout
    refused = gwconf("apply", "continue")
    assert refused.exit_code != 0 and "lies under a folder named `~` in" in refused.stderr, refused
    assert "$HOME instead of ~" in refused.stderr
    assert not (work / "~").exists() and not (home / ".continue").exists()
    said = messages(reading_of("continue"))  # what doctor and verify report
    assert "under a folder named `~`" in said and "$CONTINUE_GLOBAL_DIR starts with a literal `~`" in said, (
        said
    )
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(home / ".continue"))  # as the shell expands it
    assert gwconf("apply", "continue").exit_code == 0
    assert (home / ".continue" / "config.yaml").is_file()
    assert "named `~`" not in messages(reading_of("continue"))


@pytest.mark.parametrize(
    ("client", "variable", "where"),
    [
        ("openhands", "OPENHANDS_PERSISTENCE_DIR", "agent_settings.json"),
        ("aichat", "XDG_CONFIG_HOME", "aichat/config.yaml"),
    ],
)
def test_a_folder_variable_set_but_empty_is_the_current_folder_and_refused(
    gwconf, home: Path, profile: str, monkeypatch: pytest.MonkeyPatch, client: str, variable: str, where: str
) -> None:
    """OpenHands (``os.environ.get`` with a default) and aichat (``env::var``) take a variable set
    to nothing as it is: they read their files from the folder they start in. gwconf took it as
    unset and wrote the home folder's. Now it reads what they read, and writes there only when
    told to (--force), since each folder would need its own copy."""
    monkeypatch.setenv(variable, "")
    work = Path.cwd()
    env = Env.current()
    assert registry.get(client).files(env)[0].path == work / where
    said = messages(reading_of(client))
    assert f"${variable} is set but empty" in said, said
    preview = gwconf("apply", client, "--dry-run")
    assert f"the real run will refuse this: ${variable} is set but empty" in preview.stdout, preview
    refused = gwconf("apply", client)
    assert refused.exit_code != 0 and f"unset {variable}" in refused.stderr, refused
    assert sorted(p.name for p in work.iterdir()) == [] and not any(home.rglob(where.split("/")[-1]))
    forced = gwconf("apply", client, "--force")
    assert forced.exit_code == 0 and "is set but empty" in forced.output, forced
    assert (work / where).is_file()


def test_the_finding_names_the_variable_that_leads_to_the_file(tmp_path: Path) -> None:
    """Another variable holding a literal ~ (one the shell left quoted for some other program) is
    not this client's: the finding names only the one whose folder holds the file."""
    from gwconf.clients._base import _tilde_folders

    home, cwd = tmp_path / "home", tmp_path / "work"
    environ = {"CONTINUE_GLOBAL_DIR": "~/.continue", "OTHER_TOOL_HOME": "~/other"}
    env = Env(home=home, platform="linux", environ=environ, cwd=cwd)
    (finding,) = _tilde_folders(registry.get("continue"), env)
    assert "$CONTINUE_GLOBAL_DIR starts with a literal `~`" in finding.message, finding.message
    assert "$OTHER_TOOL_HOME" not in finding.message
    # "~" alone holds every folder named ~ under the current one: it may be the one, so it is named
    env = Env(home=home, platform="linux", environ={**environ, "EDITOR_DIR": "~"}, cwd=cwd)
    (finding,) = _tilde_folders(registry.get("continue"), env)
    assert "$CONTINUE_GLOBAL_DIR and $EDITOR_DIR start with" in finding.message, finding.message
    assert "$OTHER_TOOL_HOME" not in finding.message and "Set them with $HOME" in finding.fix
