"""`gwconf run` through the CLI, with a fake client program on PATH that reports what it got.

Each launch must reach the client with the profile's target (arguments, variables, temporary
files), remove rival provider variables, pass the exit code on, and leave every file under HOME
exactly as it was (bytes, mode and mtime) with the temporary folder gone afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY

FAKE = Path(__file__).with_name("fake_client.py")
PROGRAMS = (
    "codex", "claude", "cn", "gemini", "qwen", "opencode", "kilo", "crush", "cline", "aider", "llm",
    "sgpt", "interpreter", "goose", "aichat", "mods", "fabric", "tool", "gptme", "vibe", "elia", "hermes",
)  # fmt: skip


@pytest.fixture
def fake(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake client programs on PATH (in HOME/bin); reports go to the returned folder."""
    return fakes_on_path(home, tmp_path, monkeypatch, PROGRAMS)


def fakes_on_path(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, programs: tuple[str, ...]
) -> Path:
    """tests/fake_client.py on PATH (in HOME/bin) under each of ``programs``, TMPDIR in
    ``tmp_path``/tmp; the folder each start writes its report to."""
    bin_dir = home / "bin"
    bin_dir.mkdir()
    script = f"#!{sys.executable}\n" + FAKE.read_text()
    for name in programs:
        path = bin_dir / name
        path.write_text(script)
        path.chmod(0o755)
    reports = tmp_path / "reports"
    reports.mkdir()
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_REPORT", str(reports))
    monkeypatch.setenv("TMPDIR", str(temp))
    return reports


def report(reports: Path, program: str) -> dict:
    return json.loads((reports / f"{program}.json").read_text())


def state(home: Path) -> dict[str, tuple]:
    """Every entry under HOME: bytes (or link target), mode and mtime; folders' mtimes catch new files."""
    found: dict[str, tuple] = {}
    for path in sorted(home.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            found[str(path)] = ("link", os.readlink(path), info.st_mtime_ns)
        elif path.is_dir():
            found[str(path)] = ("dir", stat.S_IMODE(info.st_mode), info.st_mtime_ns)
        else:
            found[str(path)] = (path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_mtime_ns)
    found[str(home)] = ("dir", home.stat().st_mtime_ns)
    return found


def temp_left(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").iterdir())


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# -- one client at a time ---------------------------------------------------------------------------


def test_codex_gets_overrides_and_the_key_only_in_its_environment(gwconf, profile, fake, home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-rival-key-000000000000")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://rival.example.com/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-rival")
    monkeypatch.setenv("GOOGLE_API_KEY", "rival")
    write(home / ".codex" / "config.toml", 'model = "gpt-5"\n')
    before = state(home)
    result = gwconf("run", "codex", "--", "exec", "say pong")
    assert result.exit_code == 0, result
    got = report(fake, "codex")
    assert Path(got["argv0"]).name == "codex"
    args = got["args"]
    assert args[-2:] == ["exec", "say pong"]
    overrides = [args[i + 1] for i, a in enumerate(args[:-2]) if a == "-c"]
    assert 'model_provider="gwconf"' in overrides
    assert 'model_providers.gwconf.base_url="https://gw.example.com/v1"' in overrides
    assert 'model_providers.gwconf.wire_api="responses"' in overrides
    assert 'model_providers.gwconf.env_key="GWCONF_API_KEY"' in overrides
    assert 'model="my-model"' in overrides
    # the key stays in Codex's own environment: no shell snapshot dumps it to disk, and the agent's
    # commands get the variable empty (set is one leaf of the user's table, not a new table)
    assert "features.shell_snapshot=false" in overrides
    assert 'shell_environment_policy.set.GWCONF_API_KEY=""' in overrides
    assert not any(o.startswith(("shell_environment_policy=", "features=")) for o in overrides)
    assert TEST_KEY not in " ".join(args), "the key must not be on the command line"
    env = got["env"]
    assert env["GWCONF_API_KEY"] == TEST_KEY and env["GWCONF_PROFILE"] == "work"
    for rival in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        assert rival not in env
    assert state(home) == before
    assert "starting codex on profile 'work'" in result.stderr


def test_claude_code_settings_file_exists_only_during_the_launch(gwconf, profile, fake, home, tmp_path):
    write(home / ".claude" / "settings.json", '{"env": {"ANTHROPIC_API_KEY": "sk-ant-old"}}\n')
    before = state(home)
    result = gwconf("run", "claude-code", "--", "-p", "hi")
    assert result.exit_code == 0, result
    got = report(fake, "claude")
    assert got["args"][0] == "--settings" and got["args"][2:] == ["-p", "hi"]
    settings_path = got["args"][1]
    seen = got["paths"][settings_path]
    assert seen["mode"] == "0o600"
    settings = json.loads(seen["text"])
    assert settings["env"] == {
        "ANTHROPIC_BASE_URL": "https://gw.example.com",
        "ANTHROPIC_AUTH_TOKEN": TEST_KEY,
        "ANTHROPIC_MODEL": "my-model",
        "ANTHROPIC_API_KEY": "",
    }
    assert not Path(settings_path).exists() and temp_left(tmp_path) == []
    assert state(home) == before


def test_qwen_stand_in_folder_links_the_rest_and_edits_a_copy(gwconf, profile, fake, home, tmp_path):
    write(
        home / ".qwen" / "settings.json", '// mine\n{"security": {"auth": {"selectedType": "qwen-oauth"}}}\n'
    )
    write(home / ".qwen" / "history" / "session-1.json", "{}")
    before = state(home)
    result = gwconf("run", "qwen-code", "--", "-p", "x")
    assert result.exit_code == 0, result
    got = report(fake, "qwen")
    folder = got["env"]["QWEN_HOME"]
    assert folder.startswith(str(tmp_path / "tmp"))
    listing = got["paths"][folder]["tree"]
    assert listing["history"] == {"link": str(home / ".qwen" / "history")}
    settings = listing["settings.json"]
    assert "link" not in settings and '"selectedType": "openai"' in settings["text"]
    assert settings["text"].startswith("// mine"), "render edits the user's text, keeping the rest"
    assert listing[".env"]["mode"] == "0o600" and TEST_KEY in listing[".env"]["text"]
    assert got["env"]["GWCONF_API_KEY"] == TEST_KEY
    assert temp_left(tmp_path) == [] and state(home) == before


def test_gemini_home_stand_in_and_variables(gwconf, profile, fake, home, tmp_path, monkeypatch):
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    write(home / ".gemini" / "settings.json", '{"security": {"auth": {"selectedType": "oauth-personal"}}}')
    write(home / ".gemini" / "oauth_creds.json", '{"token": "x"}')
    before = state(home)
    assert gwconf("run", "gemini-cli", "--", "-p", "x").exit_code == 0
    got = report(fake, "gemini")
    env = got["env"]
    assert env["GOOGLE_GEMINI_BASE_URL"] == "https://gw.example.com"
    assert env["GEMINI_API_KEY"] == TEST_KEY and env["GEMINI_MODEL"] == "my-model"
    assert "GOOGLE_GENAI_USE_VERTEXAI" not in env
    listing = got["paths"][env["GEMINI_CLI_HOME"]]["tree"]
    assert '"gemini-api-key"' in listing[".gemini/settings.json"]["text"]
    assert listing[".gemini/oauth_creds.json"] == {"link": str(home / ".gemini" / "oauth_creds.json")}
    assert temp_left(tmp_path) == [] and state(home) == before


def test_llm_user_folder_stand_in(gwconf, profile, fake, home, tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_MODEL", "gpt-4o")
    folder = home / ".config" / "io.datasette.llm"
    write(folder / "logs.db", "not really sqlite")
    write(folder / "keys.json", '{"openai": "sk-other"}\n')
    before = state(home)
    assert gwconf("run", "llm", "--", "say pong").exit_code == 0
    got = report(fake, "llm")
    assert "LLM_MODEL" not in got["env"]
    listing = got["paths"][got["env"]["LLM_USER_PATH"]]["tree"]
    assert listing["logs.db"] == {"link": str(folder / "logs.db")}
    keys = json.loads(listing["keys.json"]["text"])
    assert keys == {"openai": "sk-other", "gwconf": TEST_KEY}
    assert listing["default_model.txt"]["text"].strip() == "my-model"
    assert "api_key_name: gwconf" in listing["extra-openai-models.yaml"]["text"]
    assert temp_left(tmp_path) == [] and state(home) == before


def test_continue_gets_a_config_with_gwconf_model_alone(gwconf, profile, fake, home):
    write(home / ".continue" / "config.yaml", "models:\n  - name: other\n    provider: anthropic\n")
    before = state(home)
    assert gwconf("run", "continue", "--", "-p", "x").exit_code == 0
    got = report(fake, "cn")
    assert got["args"][0] == "--config"
    text = got["paths"][got["args"][1]]["text"]
    assert "apiBase: https://gw.example.com/v1" in text and "other" not in text
    assert "${{ secrets.GWCONF_API_KEY }}" in text and TEST_KEY not in text
    assert got["env"]["GWCONF_API_KEY"] == TEST_KEY
    assert state(home) == before


@pytest.mark.parametrize(("client", "program", "variable"), [("opencode", "opencode", "OPENCODE_CONFIG_CONTENT"), ("kilo", "kilo", "KILO_CONFIG_CONTENT")])  # fmt: skip
def test_opencode_and_kilo_inline_content(gwconf, profile, fake, home, client, program, variable):
    before = state(home)
    assert gwconf("run", client, "--", "run", "x").exit_code == 0
    got = report(fake, program)
    content = json.loads(got["env"][variable])
    assert content["model"] == "gwconf/my-model" and content["small_model"] == "gwconf/my-model"
    assert content["provider"]["gwconf"]["options"] == {
        "baseURL": "https://gw.example.com/v1",
        "apiKey": TEST_KEY,
    }
    assert got["args"] == ["run", "x"]
    assert state(home) == before


def test_aider_flags_win_and_key_stays_off_the_command_line(gwconf, profile, fake, home):
    """The key travels in the environment and in a 0600 --env-file aider loads after the user's
    .env files (all with override=True), so a key or address in theirs cannot win; never in argv."""
    write(home / ".aider.conf.yml", "model: gpt-4o\nopenai-api-key: sk-old\n")
    write(
        home / ".env",
        "AIDER_OPENAI_API_KEY=sk-home-env-000000000000\nOPENAI_BASE_URL=http://127.0.0.1:9/v1\n",
    )
    before = state(home)
    assert gwconf("run", "aider", "--", "--message", "hi").exit_code == 0
    got = report(fake, "aider")
    env_file = got["args"][5]
    assert got["args"] == ["--model", "openai/my-model", "--openai-api-base", "https://gw.example.com/v1", "--env-file", env_file, "--message", "hi"]  # fmt: skip
    assert TEST_KEY not in " ".join(got["args"])
    assert got["paths"][env_file]["mode"] == "0o600"
    loaded = dict(line.split("=", 1) for line in got["paths"][env_file]["text"].splitlines())
    assert {k: v.strip("'\"") for k, v in loaded.items()} == {
        "AIDER_OPENAI_API_KEY": TEST_KEY,
        "OPENAI_API_KEY": TEST_KEY,
        "OPENAI_API_BASE": "https://gw.example.com/v1",
        "OPENAI_BASE_URL": "https://gw.example.com/v1",
    }
    assert (
        got["env"]["AIDER_OPENAI_API_KEY"] == TEST_KEY
        and got["env"]["OPENAI_BASE_URL"] == "https://gw.example.com/v1"
    )
    assert state(home) == before


def test_a_dotenv_the_client_loads_over_the_launch_loses_what_would_undo_it(
    gwconf, profile, fake, home, tmp_path
):
    """hermes loads ~/.hermes/.env over its environment, aichat its .env: the launch's copy leaves
    out what would undo the launch (an address, a model, the folder), keeps everything else, and
    the user's file is never touched."""
    hermes_env = home / ".hermes" / ".env"
    write(
        hermes_env,
        "# mine\nCUSTOM_BASE_URL=http://127.0.0.1:9/v1\nTELEGRAM_TOKEN=keep-me\nHERMES_HOME=/elsewhere\n",
    )
    write(home / ".hermes" / "config.yaml", "model:\n  default: x\n")
    aichat_env = home / ".config" / "aichat" / ".env"
    write(aichat_env, "AICHAT_MODEL=openai:gpt-4o\nAICHAT_CONFIG_DIR=/elsewhere\nOTHER=1\n")
    before = state(home)
    assert gwconf("run", "hermes", "--", "chat").exit_code == 0
    hermes = report(fake, "hermes")
    folder = hermes["env"]["HERMES_HOME"]
    copied = hermes["paths"][folder]["tree"][".env"]
    assert "link" not in copied and copied["mode"] == "0o600", copied
    assert copied["text"] == "# mine\nTELEGRAM_TOKEN=keep-me\n"
    result = gwconf("run", "aichat", "--", "x")
    assert result.exit_code == 0, result.output
    assert "left out of aichat/.env for this launch" in result.output and "AICHAT_MODEL" in result.output
    aichat = report(fake, "aichat")
    text = aichat["paths"][aichat["env"]["AICHAT_CONFIG_DIR"]]["tree"][".env"]["text"]
    assert "AICHAT_MODEL" not in text and "AICHAT_CONFIG_DIR" not in text and "OTHER=1" in text
    assert f"GWCONF_API_KEY={TEST_KEY}" in text  # the launch's own value stays
    assert temp_left(tmp_path) == [] and state(home) == before
    shown = gwconf("run", "hermes", "--dry-run")
    assert "<temporary folder>/hermes/.env: a private copy without CUSTOM_BASE_URL" in shown.output, (
        shown.output
    )


def test_cline_providers_file_is_temporary(gwconf, profile, fake, home, tmp_path):
    write(home / ".cline" / "data" / "globalState.json", '{"actModeApiProvider": "cline"}')
    before = state(home)
    assert gwconf("run", "cline", "--", "say pong").exit_code == 0
    got = report(fake, "cline")
    path = got["env"]["CLINE_PROVIDER_SETTINGS_PATH"]
    providers = json.loads(got["paths"][path]["text"])
    assert providers["lastUsedProvider"] == "openai-compatible"
    assert providers["providers"]["openai-compatible"]["settings"]["apiKey"] == TEST_KEY
    assert got["paths"][path]["mode"] == "0o600"
    assert temp_left(tmp_path) == [] and state(home) == before


def test_env_only_clients(gwconf, profile, fake, home):
    write(home / ".config" / "fabric" / ".env", "DEFAULT_VENDOR=OpenAI\nOPENAI_API_KEY=sk-vendor\n")
    before = state(home)
    assert gwconf("run", "fabric", "--", "-p", "summarize").exit_code == 0
    env = report(fake, "fabric")["env"]
    assert env["DEFAULT_VENDOR"] == "LiteLLM" and env["LITELLM_API_KEY"] == TEST_KEY
    assert env["LITELLM_API_BASE_URL"] == "https://gw.example.com/v1" and env["DEFAULT_MODEL"] == "my-model"
    assert gwconf("run", "goose", "--", "run", "-t", "x").exit_code == 0
    env = report(fake, "goose")["env"]
    assert (env["GOOSE_PROVIDER"], env["GOOSE_MODEL"]) == ("openai", "my-model")
    assert (env["OPENAI_HOST"], env["OPENAI_BASE_PATH"]) == ("https://gw.example.com", "/v1/chat/completions")
    assert env["OPENAI_API_KEY"] == TEST_KEY
    assert state(home) == before


def test_gptme_local_provider_by_prefixed_variables(gwconf, profile, fake, home, monkeypatch):
    """gptme has no other-config flag: its ``local`` provider, configured by GPTME_-prefixed
    variables that beat the shell's OPENAI_* and every config file, with config.toml untouched."""
    write(home / ".config" / "gptme" / "config.toml", '[env]\nMODEL = "openai/gpt-4o"\n')
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("GPTME_MODEL", "openai/gpt-4o")
    before = state(home)
    assert gwconf("run", "gptme", "--", "-n", "hi").exit_code == 0
    got = report(fake, "gptme")
    assert got["args"] == ["--model", "local/my-model", "-n", "hi"]
    env = got["env"]
    assert env["GPTME_OPENAI_API_BASE"] == "https://gw.example.com/v1"
    assert env["GPTME_OPENAI_API_KEY"] == TEST_KEY
    assert "GPTME_MODEL" not in env
    assert state(home) == before


def test_vibe_home_stand_in_with_the_gwconf_provider(gwconf, profile, fake, home, tmp_path, monkeypatch):
    """A vibe whose config names only Mistral's own provider (no apply before): one launch gets a
    stand-in VIBE_HOME whose config.toml has the gwconf provider and model active, the key in the
    environment only, and VIBE_ACTIVE_MODEL from the shell removed."""
    write(home / ".vibe" / "config.toml", '# mine\nactive_model = "devstral"\n')
    write(home / ".vibe" / ".env", "MISTRAL_API_KEY=sk-mistral-own\n")
    write(home / ".vibe" / "logs" / "a.log", "x")
    monkeypatch.setenv("VIBE_ACTIVE_MODEL", "devstral")
    before = state(home)
    assert gwconf("run", "mistral-vibe", "--", "-p", "hi").exit_code == 0
    got = report(fake, "vibe")
    folder = got["env"]["VIBE_HOME"]
    assert folder.startswith(str(tmp_path / "tmp")) and "VIBE_ACTIVE_MODEL" not in got["env"]
    listing = got["paths"][folder]["tree"]
    assert listing["logs"] == {"link": str(home / ".vibe" / "logs")}
    assert listing[".env"] == {"link": str(home / ".vibe" / ".env")}
    config = listing["config.toml"]["text"]
    assert config.startswith("# mine") and 'active_model = "my-model"' in config
    assert 'api_base = "https://gw.example.com/v1"' in config and TEST_KEY not in config
    assert got["env"]["GWCONF_VIBE_API_KEY"] == TEST_KEY
    assert temp_left(tmp_path) == [] and state(home) == before


def test_elia_config_home_stand_in(gwconf, profile, fake, home, tmp_path):
    """elia takes no other config file: XDG_CONFIG_HOME points at a stand-in whose elia/config.toml
    carries the gwconf entry; the user's other config folders are links, the user's file untouched."""
    write(home / ".config" / "elia" / "config.toml", '# mine\ndefault_model = "gpt-4o"\n')
    write(home / ".config" / "git" / "config", "[user]\n")
    before = state(home)
    assert gwconf("run", "elia", "--", "hi").exit_code == 0
    got = report(fake, "elia")
    assert got["args"] == ["-m", "gwconf", "hi"]
    folder = got["env"]["XDG_CONFIG_HOME"]
    listing = got["paths"][folder]["tree"]
    assert listing["git"] == {"link": str(home / ".config" / "git")}
    config = listing["elia/config.toml"]
    assert config["mode"] == "0o600" and config["text"].startswith("# mine")
    assert 'default_model = "gwconf"' in config["text"] and TEST_KEY in config["text"]
    assert temp_left(tmp_path) == [] and state(home) == before


def test_open_interpreter_profile_copy(gwconf, profile, fake, home):
    folder = home / ".config" / "open-interpreter" / "profiles"
    write(folder / "default.yaml", "auto_run: true\nllm:\n  model: gpt-4o\n")
    before = state(home)
    assert gwconf("run", "open-interpreter").exit_code == 0
    got = report(fake, "interpreter")
    assert got["args"][0] == "--profile"
    text = got["paths"][got["args"][1]]["text"]
    assert "auto_run: true" in text and "openai/my-model" in text and "version: 0.2.5" in text
    assert state(home) == before


def test_mods_and_aichat_and_crush_stand_ins(gwconf, profile, fake, home, tmp_path, monkeypatch):
    monkeypatch.setenv("MODS_MODEL", "gpt-4")
    write(home / ".config" / "mods" / "mods.yml", "default-api: openai\n")
    write(home / ".config" / "aichat" / "roles" / "r.md", "role")
    write(home / ".config" / "crush" / "crush.json", '{"options": {"debug": true}}\n')
    before = state(home)
    for client in ("mods", "aichat", "crush"):
        assert gwconf("run", client, "--", "x").exit_code == 0, client
    mods = report(fake, "mods")
    assert "MODS_MODEL" not in mods["env"]
    listing = mods["paths"][mods["env"]["XDG_CONFIG_HOME"]]["tree"]
    assert "default-api: gwconf" in listing["mods/mods.yml"]["text"]
    aichat = report(fake, "aichat")
    listing = aichat["paths"][aichat["env"]["AICHAT_CONFIG_DIR"]]["tree"]
    assert listing["roles"] == {"link": str(home / ".config" / "aichat" / "roles")}
    assert "model: gwconf:my-model" in listing["config.yaml"]["text"]
    crush = report(fake, "crush")
    listing = crush["paths"][crush["env"]["CRUSH_GLOBAL_CONFIG"]]["tree"]
    config = json.loads(listing["crush.json"]["text"])
    assert config["options"] == {"debug": True} and config["models"]["large"]["provider"] == "gwconf"
    assert temp_left(tmp_path) == [] and state(home) == before


def test_shell_gpt_refuses_when_sgpt_would_write_its_file(gwconf, profile, fake, home):
    rc = home / ".config" / "shell_gpt" / ".sgptrc"
    assert gwconf("run", "shell-gpt", "--", "hi").exit_code == 1  # no file: sgpt would write one from env
    write(rc, "OPENAI_API_KEY=sk-old\n")
    result = gwconf("run", "shell-gpt", "--", "hi")
    assert result.exit_code == 1 and not (fake / "sgpt.json").exists()
    assert "Run `sgpt` once" in result.stderr
    write(
        rc, "# mine\nAPI_BASE_URL=default\nDEFAULT_MODEL=gpt-4o\nUSE_LITELLM=false\nOPENAI_API_KEY=sk-old\n"
    )
    before = state(home)
    assert gwconf("run", "shell-gpt", "--", "hi").exit_code == 0
    env = report(fake, "sgpt")["env"]
    assert (env["API_BASE_URL"], env["OPENAI_API_KEY"], env["DEFAULT_MODEL"]) == (
        "https://gw.example.com/v1",
        TEST_KEY,
        "my-model",
    )
    assert state(home) == before


def test_shell_runs_any_command_with_the_profile_environment(gwconf, profile, fake, home, monkeypatch):
    monkeypatch.setenv("OPENAI_ORG_ID", "rival-org")
    result = gwconf("run", "shell", "--", "tool", "--flag", "value")
    assert result.exit_code == 0, result
    got = report(fake, "tool")
    assert got["args"] == ["--flag", "value"]
    env = got["env"]
    assert env["OPENAI_BASE_URL"] == env["OPENAI_API_BASE"] == "https://gw.example.com/v1"
    assert env["OPENAI_API_KEY"] == TEST_KEY and "OPENAI_ORG_ID" not in env
    assert "ANTHROPIC_BASE_URL" not in env  # derived addresses are not exported (as in apply)


def test_shell_without_a_command_starts_the_users_shell(gwconf, profile, fake, home, monkeypatch):
    monkeypatch.setenv("SHELL", str(home / "bin" / "tool"))
    assert gwconf("run", "shell").exit_code == 0
    assert report(fake, "tool")["args"] == []


# -- exit codes, signals, errors --------------------------------------------------------------------


def test_exit_code_is_passed_on(gwconf, profile, fake, monkeypatch):
    monkeypatch.setenv("FAKE_EXIT", "7")
    assert gwconf("run", "codex").exit_code == 7
    monkeypatch.setenv("FAKE_EXIT", "0")
    monkeypatch.setenv("FAKE_SELF_KILL", str(int(signal.SIGKILL)))
    assert gwconf("run", "qwen-code").exit_code == 128 + signal.SIGKILL


def test_program_not_on_path_is_127(gwconf, profile, home, monkeypatch):
    monkeypatch.setenv("PATH", str(home))
    result = gwconf("run", "codex", "--", "exec", "x")
    assert result.exit_code == 127
    assert "codex was not found on PATH" in result.stderr and "hint: Install Codex CLI" in result.stderr
    assert gwconf("run", "shell", "--", "no-such-program-gwconf").exit_code == 127


def test_a_client_without_a_launch_route_says_what_to_do(gwconf, profile):
    result = gwconf("run", "zed")
    assert result.exit_code == 2
    assert "cannot start Zed for one launch" in result.stderr and "gwconf apply zed" in result.stderr


def test_client_options_belong_after_the_double_dash(gwconf, profile, fake):
    result = gwconf("run", "codex", "--json-output")
    assert result.exit_code == 2 and "after --" in result.stderr
    assert gwconf("run", "codex", "exec", "hi").exit_code == 0  # plain words need no --
    assert report(fake, "codex")["args"][-2:] == ["exec", "hi"]


def test_dry_run_shows_everything_starts_nothing_and_masks_the_key(gwconf, profile, fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-rival-key-000000000000")
    result = gwconf("run", "qwen-code", "--dry-run", "--", "-p", "x")
    assert result.exit_code == 0, result
    assert not list(fake.iterdir())
    assert "QWEN_HOME=<temporary folder>/qwen" in result.stdout
    assert "GWCONF_API_KEY=sk-…WXYZ" in result.stdout and TEST_KEY not in result.output
    assert "removed   OPENAI_API_KEY" in result.stdout
    data = json.loads(gwconf("run", "codex", "--json").stdout)
    assert data["dry_run"] is True and data["set"]["GWCONF_API_KEY"] == "sk-…WXYZ"


def test_model_option_and_missing_model_error_leave_no_temp(gwconf, fake, tmp_path):
    added = gwconf("profile", "add", "nomodel", "--base-url", "https://gw.example.com", "--key-stdin", "--use", input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    failed = gwconf("run", "qwen-code")
    assert failed.exit_code == 1 and "--model NAME" in failed.stderr
    assert temp_left(tmp_path) == []
    assert gwconf("run", "qwen-code", "--model", "other").exit_code == 0
    assert report(fake, "qwen")["env"]["GWCONF_API_KEY"] == TEST_KEY


def test_quiet_keeps_stderr_for_the_client(gwconf, profile, fake):
    result = gwconf("-q", "run", "codex")
    assert result.exit_code == 0 and result.stderr == ""


def test_folders_left_by_a_killed_gwconf_are_swept(gwconf, profile, fake, tmp_path):
    done = subprocess.Popen(["true"])  # a finished, reaped process: its pid names no process now
    done.wait()
    stale = tmp_path / "tmp" / f"gwconf-run-{done.pid}-abc"
    (stale / "sub").mkdir(parents=True)
    (stale / "sub" / "key").write_text(TEST_KEY)
    assert gwconf("run", "qwen-code").exit_code == 0
    assert temp_left(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_reach_the_child_and_the_folder_is_removed(profile, fake, tmp_path, signum):
    """A real gwconf process (its own session, no terminal): the signal is passed on to the child."""
    env = {**os.environ, "FAKE_WAIT": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gwconf", "run", "qwen-code"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    ready = fake / "qwen.json.ready"
    try:
        for _ in range(3000):  # up to a minute for the interpreter to start (no timing assertion)
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.02)
        assert ready.exists(), proc.communicate()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 100 + signum, err
    got = report(fake, "qwen")
    assert got["signals"] == [signum]
    assert temp_left(tmp_path) == []


def test_a_dotenv_the_editor_cannot_read_still_loses_the_rivals(gwconf, profile, fake, home, tmp_path):
    """A line python-dotenv skips (an unclosed quote) must not stop the launch, as the linked file
    never did: the rival's line is left out of the copy, every other line kept as it is."""
    text = 'BROKEN="never closed\nexport CUSTOM_BASE_URL=http://127.0.0.1:9/v1\nTELEGRAM_TOKEN=keep-me\n'
    write(home / ".hermes" / ".env", text)
    write(home / ".hermes" / "config.yaml", "model:\n  default: x\n")
    before = state(home)
    result = gwconf("run", "hermes", "--", "chat")
    assert result.exit_code == 0, result
    hermes = report(fake, "hermes")
    copied = hermes["paths"][hermes["env"]["HERMES_HOME"]]["tree"][".env"]
    assert copied["text"] == 'BROKEN="never closed\nTELEGRAM_TOKEN=keep-me\n', copied
    assert temp_left(tmp_path) == [] and state(home) == before
