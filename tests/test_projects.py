"""One gateway profile per project (issue 20): the folder binding, the prompt hook, project files.

Real processes where the behaviour is about processes (``gwconf current``, ``run``, the bash
hook), the loopback gateway for ``verify``, real git repositories for ``apply --project``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer

OTHER_KEY = "sk-client-a-0123456789abcdefQRST"
GWCONF = Path(sys.executable).with_name("gwconf")


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``gwconf ARGS`` as its own process in ``cwd`` (the environment the tests' fixture set up)."""
    return subprocess.run(
        [sys.executable, "-m", "gwconf", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def two_profiles(gwconf, gateway: GatewayServer, home: Path) -> Path:
    """``gw`` (active, VALID_KEY) and ``client-a`` (OTHER_KEY, model a-model) on the loopback
    gateway; ``~/proj`` bound to ``client-a``. Returns the project folder."""
    gateway.keys.add(OTHER_KEY)
    assert gwconf(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    ).exit_code == 0  # fmt: skip
    assert gwconf(
        "profile", "add", "client-a", "--base-url", gateway.base_url, "--model", "a-model",
        "--key-stdin", input=OTHER_KEY + "\n",
    ).exit_code == 0  # fmt: skip
    project = home / "proj"
    (project / "src" / "deep").mkdir(parents=True)
    done = cli("use", "client-a", "--dir", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / ".gwconf.toml").read_text().splitlines()[-1] == 'profile = "client-a"'
    return project


# -- resolution ------------------------------------------------------------------------------------


def test_a_bound_folder_uses_its_profile_in_current_run_and_verify(
    two_profiles: Path, gateway: GatewayServer, home: Path
) -> None:
    inner = two_profiles / "src" / "deep"
    assert cli("current", cwd=inner).stdout == "client-a\n"
    assert json.loads(cli("current", "--json", cwd=inner).stdout) == {
        "profile": "client-a",
        "source": "folder",
        "file": str(two_profiles / ".gwconf.toml"),
        "active": "gw",
    }
    assert cli("current", cwd=home).stdout == "gw\n"  # outside the project: the active profile

    run = cli("run", "shell", "--", "printenv", "GWCONF_PROFILE", "OPENAI_API_KEY", cwd=inner)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["client-a", OTHER_KEY]

    gateway.requests.clear()
    verify = cli("verify", "--json", cwd=inner)
    assert verify.returncode == 0, verify.stderr
    data = json.loads(verify.stdout)
    assert data["profile"] == "client-a"
    assert data["chosen_by"] == {"source": "folder", "file": str(two_profiles / ".gwconf.toml")}
    assert [r.key for r in gateway.requests] == [OTHER_KEY]
    assert [r.model for r in gateway.requests] == ["a-model"]
    text = cli("verify", cwd=inner)
    assert f"Using profile 'client-a' (chosen by {two_profiles / '.gwconf.toml'})." in text.stdout

    status = cli("status", "--json", cwd=inner)
    assert json.loads(status.stdout)["profile_here"]["profile"] == "client-a"
    assert "Used here:      client-a (chosen by" in cli("status", cwd=inner).stdout


def test_the_order_is_flag_then_environment_then_folder_then_active(two_profiles: Path) -> None:
    env = {"GWCONF_PROFILE": "gw"}
    assert (
        json.loads(cli("current", "--json", cwd=two_profiles, env=env).stdout)["source"] == "GWCONF_PROFILE"
    )
    assert cli("current", cwd=two_profiles, env=env).stdout == "gw\n"
    run = cli("run", "shell", "-p", "client-a", "--", "printenv", "GWCONF_PROFILE", cwd=two_profiles, env=env)
    assert run.stdout == "client-a\n"
    run = cli("run", "shell", "--", "printenv", "GWCONF_PROFILE", cwd=two_profiles, env=env)
    assert run.stdout == "gw\n"
    # GWCONF_PROFILE names a profile, never a file
    bad = cli("current", cwd=two_profiles, env={"GWCONF_PROFILE": "/tmp/evil.toml"})
    assert (
        bad.returncode == 1 and "GWCONF_PROFILE='/tmp/evil.toml' is not a saved profile's name" in bad.stderr
    )


HOSTILE = [
    ('base_url = "http://127.0.0.1:9/v1"\n', "line 1: an address (base_url) is not allowed"),
    ('profile = "client-a"\nkey = "sk-stolen-0000000000000000"\n', "line 2: a key (key) is not allowed"),
    ('profile = "http://127.0.0.1:9/v1"\n', "line 1: an address is not a saved profile's name"),
    ('# comment\nprofile = "../../elsewhere.toml"\n', "line 2: a path is not a saved profile's name"),
    ('profile = "client-a"\nmodel = "gpt-x"\n', "line 2: a model (model) is not allowed"),
    ('[gateway]\nprofile = "client-a"\n', "line 1: a line that is not key = value is not allowed"),
    ('profile = "client-a"\nprofile = "gw"\n', "line 2: profile is set twice"),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE)
def test_a_hostile_binding_is_refused_and_nothing_is_sent(
    two_profiles: Path, gateway: GatewayServer, text: str, message: str
) -> None:
    binding = two_profiles / ".gwconf.toml"
    binding.write_text(text)
    gateway.requests.clear()
    for args in (
        ("current",),
        ("verify",),
        ("run", "shell", "--", "printenv", "GWCONF_PROFILE"),
        ("apply", "shell"),
    ):
        done = cli(*args, cwd=two_profiles / "src")
        assert done.returncode == 1, (args, done)
        assert f"{binding}, {message}" in done.stderr, (args, done.stderr)
        assert "nothing was sent anywhere" in done.stderr or "twice" in message
    assert gateway.requests == []
    assert binding.read_text() == text  # left as it is
    assert cli("use", "gw", "--dir", cwd=two_profiles).returncode == 1  # not overwritten either
    assert binding.read_text() == text


def test_use_dir_edits_only_the_profile_line_and_unset_removes_it(two_profiles: Path, gwconf) -> None:
    binding = two_profiles / ".gwconf.toml"
    binding.write_bytes(b"# team note: keep this\r\nprofile = 'client-a'  # why\r\n")
    done = cli("use", "gw", "--dir", cwd=two_profiles)
    assert done.returncode == 0 and "(was 'client-a')" in done.stdout
    assert binding.read_bytes() == b'# team note: keep this\r\nprofile = "gw"\r\n'
    assert cli("current", cwd=two_profiles).stdout == "gw\n"
    missing = cli("use", "nope", "--dir", cwd=two_profiles)
    assert missing.returncode == 1 and "no profile named 'nope'" in missing.stderr
    assert cli("use", "--dir", "--unset", cwd=two_profiles / "src").stdout.startswith("No .gwconf.toml here")
    assert cli("use", "--dir", "--unset", cwd=two_profiles).returncode == 0
    assert not binding.exists()
    assert cli("current", cwd=two_profiles).stdout == "gw\n"


def test_use_names_the_binding_that_wins_over_the_active_profile(two_profiles: Path) -> None:
    done = cli("use", "gw", cwd=two_profiles / "src")
    assert done.returncode == 0
    assert "chooses 'client-a', which wins over the active profile" in done.stderr


# -- the prompt hook -------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_bash_hook_exports_on_entering_and_restores_on_leaving(two_profiles: Path, home: Path) -> None:
    (home / "hostile").mkdir()
    (home / "hostile" / ".gwconf.toml").write_text('base_url = "http://127.0.0.1:9/v1"\n')
    hook = subprocess.run([str(GWCONF), "hook", "bash"], capture_output=True, text=True, check=True).stdout
    assert str(GWCONF) in hook  # the gwconf that printed it, as direnv does
    script = f"""{hook}
show() {{ echo "$1 [${{GWCONF_PROFILE-unset}}] [${{OPENAI_API_KEY-unset}}] [${{OPENAI_BASE_URL-unset}}]"; }}
cd {home}
show home
cd {two_profiles}/src
show proj
cd {two_profiles}/src/deep
show deeper
cd {home}/hostile
show hostile
cd {home}/hostile
show hostile-again
cd {home}
show back
exit
"""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-mine-before-0000000000",
        "PS1": "$ ",
        "TERM": "dumb",
    }
    env.pop("OPENAI_BASE_URL", None)
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-i"],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=60,
    )
    lines = [
        line
        for line in done.stdout.splitlines()
        if line.startswith(("home ", "proj", "deeper", "hostile", "back"))
    ]
    url = json.loads(cli("profile", "show", "client-a", "--json", cwd=home).stdout)["base_url"]
    assert lines == [
        "home [unset] [sk-mine-before-0000000000] [unset]",
        f"proj [client-a] [{OTHER_KEY}] [{url}]",
        f"deeper [client-a] [{OTHER_KEY}] [{url}]",
        "hostile [unset] [sk-mine-before-0000000000] [unset]",
        "hostile-again [unset] [sk-mine-before-0000000000] [unset]",
        "back [unset] [sk-mine-before-0000000000] [unset]",
    ], done.stderr
    # the refusal is said once (not at every prompt), naming the file and line
    assert done.stderr.count("hostile/.gwconf.toml, line 1: an address (base_url) is not allowed") == 1


def test_the_hook_defers_to_a_gwconf_profile_the_user_set(two_profiles: Path) -> None:
    done = cli("current", "--hook", "bash", cwd=two_profiles, env={"GWCONF_PROFILE": "gw"})
    assert done.returncode == 0 and done.stdout == ""


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_zsh_and_fish_hooks_export_and_restore(two_profiles: Path, home: Path, shell: str) -> None:
    code = cli("current", "--hook", shell, cwd=two_profiles).stdout
    if shell == "fish":
        assert (
            f"set -gx OPENAI_API_KEY '{OTHER_KEY}';" in code and "set -gx GWCONF_PROFILE 'client-a';" in code
        )
    else:
        assert f"export OPENAI_API_KEY='{OTHER_KEY}';" in code and "export GWCONF_PROFILE='client-a';" in code
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    hook = subprocess.run([str(GWCONF), "hook", shell], capture_output=True, text=True, check=True).stdout
    show = 'echo "R: $GWCONF_PROFILE $OPENAI_API_KEY"'
    script = f"{hook}\ncd {two_profiles / 'src'}\n{show}\ncd {home}\n{show}\n"
    argv = ["zsh", "-f", "-c", script] if shell == "zsh" else ["fish", "-N", "-c", script]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=home,
        env={**os.environ, "OPENAI_API_KEY": "sk-mine-0"},
    )
    assert [line for line in done.stdout.splitlines() if line.startswith("R:")] == [
        f"R: client-a {OTHER_KEY}",
        "R:  sk-mine-0",
    ], done.stderr


def test_a_binding_to_a_profile_missing_here_is_said_once_and_exports_nothing(two_profiles: Path) -> None:
    (two_profiles / ".gwconf.toml").write_text('profile = "not-saved-here"\n')
    first = cli("current", "--hook", "bash", cwd=two_profiles)
    assert "no profile named 'not-saved-here'" in first.stderr
    assert "OPENAI_API_KEY" not in first.stdout
    state = first.stdout.strip().rsplit("export _GWCONF_HOOK=", 1)[1].strip("';")
    again = cli("current", "--hook", "bash", cwd=two_profiles, env={"_GWCONF_HOOK": state})
    assert again.stdout == "" and again.stderr == ""


# -- the clients' project files ----------------------------------------------------------------------


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git("init", "-q", cwd=path)
    _git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "init", cwd=path)
    return path


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_apply_claude_code_project_keeps_git_clean_and_home_untouched(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    assert gwconf(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    ).exit_code == 0  # fmt: skip
    repo = _repo(home / "repo")
    (repo / "pkg").mkdir()
    before = sorted(str(p) for p in home.rglob("*") if repo not in p.parents and p != repo)
    done = cli("apply", "claude-code", "--project", cwd=repo / "pkg")
    assert done.returncode == 0, done.stderr
    settings = repo / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text())
    assert data["env"]["ANTHROPIC_AUTH_TOKEN"] == VALID_KEY
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert "added /.claude/settings.local.json to .git/info/exclude" in done.stdout
    assert _git("status", "--porcelain", "--untracked-files=all", cwd=repo) == ""
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert sorted(str(p) for p in home.rglob("*") if repo not in p.parents and p != repo) == before
    again = cli("apply", "claude-code", "--project", cwd=repo)
    assert "already points at this profile" in again.stdout
    assert _git("status", "--porcelain", cwd=repo) == ""
    exclude = (repo / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/.claude/settings.local.json") == 1

    undo = cli("restore", "claude-code", "--project", cwd=repo)
    assert undo.returncode == 0, undo.stderr
    assert not settings.exists() and not (repo / ".claude").exists()
    assert not (home / ".claude").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_tracked_project_file_never_receives_the_key(gwconf, gateway: GatewayServer, home: Path) -> None:
    assert gwconf(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    ).exit_code == 0  # fmt: skip
    repo = _repo(home / "repo")
    (repo / "opencode.json").write_text('{\n  "theme": "dark"\n}\n')
    _git("add", "opencode.json", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "config", cwd=repo)
    done = cli("apply", "opencode", "--project", cwd=repo)
    assert done.returncode == 1
    assert "opencode.json is tracked by git" in done.stderr and "git rm --cached opencode.json" in done.stderr
    assert (repo / "opencode.json").read_text() == '{\n  "theme": "dark"\n}\n'
    assert VALID_KEY not in _git("diff", cwd=repo)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(
    ("client", "path", "needle"),
    [
        ("gemini-cli", ".gemini/.env", "GEMINI_API_KEY="),
        ("qwen-code", ".qwen/.env", "=" + VALID_KEY),
        ("opencode", "opencode.json", VALID_KEY),
        ("aider", ".aider.conf.yml", VALID_KEY),
        ("crush", "crush.json", VALID_KEY),
        ("kilo", "kilo.json", VALID_KEY),
    ],
)
def test_each_project_file_lands_in_the_project_and_out_of_git(
    gwconf, gateway: GatewayServer, home: Path, client: str, path: str, needle: str
) -> None:
    assert gwconf(
        "profile", "add", "gw", "--base-url", gateway.base_url, "--model", "my-model",
        "--key-stdin", "--use", input=VALID_KEY + "\n",
    ).exit_code == 0  # fmt: skip
    repo = _repo(home / "repo")
    done = cli("apply", client, "--project", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert needle in (repo / path).read_text()
    untracked = _git("status", "--porcelain", "--untracked-files=all", cwd=repo)
    assert path not in untracked  # the file with the key; a settings file without it may be shared
    assert all(VALID_KEY not in (repo / line[3:]).read_text() for line in untracked.splitlines())
    undo = cli("restore", client, "--project", cwd=repo)
    assert undo.returncode == 0, undo.stderr
    assert not (repo / path).exists()


def test_a_client_without_a_project_file_is_refused_by_name(gwconf, profile: str) -> None:
    done = gwconf("apply", "codex", "--project")
    assert done.exit_code == 2
    assert "Codex CLI has no project-scope settings file gwconf knows of" in done.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_repository_git_cannot_inspect_gets_no_key(
    gwconf, profile: str, home: Path, tmp_path: Path
) -> None:
    repo = _repo(home / "repo")
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    done = cli("apply", "aider", "--project", cwd=repo, env={"PATH": str(empty)})
    assert done.returncode == 1
    assert "git could not be run to keep .aider.conf.yml out of it" in done.stderr
    assert not (repo / ".aider.conf.yml").exists()


@pytest.mark.parametrize("linked", ["file", "folder"])
@pytest.mark.parametrize("git", [True, False])
def test_a_link_out_of_the_project_never_leads_the_key_out(
    gwconf, profile: str, home: Path, tmp_path: Path, linked: str, git: bool
) -> None:
    """A cloned repository (or a downloaded one, without git) whose .claude/settings.local.json,
    or whose .claude, is a link to a file of the user's elsewhere: the write followed the link,
    and the key went there (a folder that syncs, another repository)."""
    if git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    project = _repo(home / "project") if git else home / "project"
    project.mkdir(exist_ok=True)
    outside = tmp_path / "synced"
    outside.mkdir()
    victim = outside / "settings.local.json"
    victim.write_text('{\n  "mine": 1\n}\n')
    if linked == "file":
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.local.json").symlink_to(victim)
    else:
        (project / ".claude").symlink_to(outside)
    for args in (("--dry-run",), ()):
        done = cli("apply", "claude-code", "--project", *args, cwd=project)
        assert done.returncode == 1, done.stdout
        assert ".claude/settings.local.json leads out of this project" in done.stderr, done.stderr
        assert f"so gwconf would write {victim}" in done.stderr
        assert "rm " in done.stderr
    assert victim.read_text() == '{\n  "mine": 1\n}\n'
    assert not (home / ".claude").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_link_inside_the_project_to_a_tracked_file_gets_no_key(gwconf, profile: str, home: Path) -> None:
    """The link is the user's own and untracked, but the file it leads to is committed: the key
    would be in the next commit."""
    repo = _repo(home / "repo")
    (repo / "docs").mkdir()
    (repo / "docs" / "settings.json").write_text("{}\n")
    _git("add", "docs/settings.json", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "docs", cwd=repo)
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").symlink_to("../docs/settings.json")
    done = cli("apply", "claude-code", "--project", cwd=repo)
    assert done.returncode == 1
    assert "docs/settings.json is tracked by git" in done.stderr, done.stderr
    assert (repo / "docs" / "settings.json").read_text() == "{}\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_kilo_project_edits_the_file_kilo_reads_last(gwconf, profile: str, home: Path) -> None:
    """Kilo 7.7.7 reads a project's kilo.json(c), then its opencode.json(c): with both at the root,
    gwconf edits the opencode one, which wins, and the other stays as it was."""
    repo = _repo(home / "repo")
    (repo / "kilo.jsonc").write_text('{\n  // mine\n  "theme": "dark"\n}\n')
    (repo / "opencode.json").write_text('{\n  "model": "anthropic/claude-sonnet-4-5"\n}\n')
    done = cli("apply", "kilo", "--project", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert '"model": "gwconf/my-model"' in (repo / "opencode.json").read_text()
    assert (repo / "kilo.jsonc").read_text() == '{\n  // mine\n  "theme": "dark"\n}\n'
