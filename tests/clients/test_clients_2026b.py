"""The second half of issue 14's clients: mini-swe-agent, OpenHands, gptme, Mistral Vibe, Kimi Code,
Hermes, grok-cli, nanocoder, elia and oterm. Real-looking user files through the real CLI, the
paths per OS, and each client's own traps as doctor reads them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gwconf import registry
from gwconf.paths import Env
from tests.clients._harness import check_case
from tests.clients._terminal import (
    assert_needs_model,
    assert_status_reads_profile,
    has_finding,
    reading,
    status_of,
)
from tests.conftest import TEST_KEY

CLIENTS = (
    "mini-swe-agent",
    "openhands",
    "gptme",
    "mistral-vibe",
    "kimi-code",
    "hermes",
    "grok-cli",
    "nanocoder",
    "elia",
    "oterm",
)


@pytest.mark.parametrize("client_id", CLIENTS)
def test_user_config(client_id: str, gwconf, home, profile) -> None:
    """A file as the client itself writes it: apply edits only gwconf's keys, restore gives it back."""
    check_case(client_id, "user-config", gwconf, home)


@pytest.mark.parametrize("client_id", [c for c in CLIENTS if c != "oterm"])
def test_status_reads_the_profile(client_id: str, gwconf, home, profile) -> None:
    assert gwconf("apply", client_id).exit_code == 0
    assert_status_reads_profile(gwconf, client_id)
    assert reading(client_id).findings == [] or not any(
        f.level == "error" for f in reading(client_id).findings
    )


@pytest.mark.parametrize("client_id", [c for c in CLIENTS if c != "oterm"])
def test_needs_a_model(client_id: str, gwconf, home, profile) -> None:
    assert_needs_model(gwconf, home, client_id)


PATHS = {
    # client: {platform: (environ, expected path of the first file)}
    "mini-swe-agent": {
        "linux": ({}, "~/.config/mini-swe-agent/.env"),
        "darwin": ({}, "~/Library/Application Support/mini-swe-agent/.env"),
        "win32": ({"LOCALAPPDATA": "/w/Local"}, "/w/Local/mini-swe-agent/mini-swe-agent/.env"),
        "moved": ({"MSWEA_GLOBAL_CONFIG_DIR": "/srv/mini"}, "/srv/mini/.env"),
    },
    "openhands": {
        "linux": ({}, "~/.openhands/agent_settings.json"),
        "win32": ({}, "~/.openhands/agent_settings.json"),
        "moved": ({"OPENHANDS_PERSISTENCE_DIR": "/srv/oh"}, "/srv/oh/agent_settings.json"),
    },
    "gptme": {
        "linux": ({"XDG_CONFIG_HOME": "/xdg"}, "~/.config/gptme/config.toml"),  # a literal path
        "darwin": ({}, "~/.config/gptme/config.toml"),
        "win32": ({}, "~/.config/gptme/config.toml"),
    },
    "mistral-vibe": {
        "linux": ({}, "~/.vibe/config.toml"),
        "moved": ({"VIBE_HOME": "/srv/vibe"}, "/srv/vibe/config.toml"),
    },
    "kimi-code": {
        "linux": ({}, "~/.kimi-code/config.toml"),
        "win32": ({}, "~/.kimi-code/config.toml"),
        "moved": ({"KIMI_CODE_HOME": "/srv/kimi"}, "/srv/kimi/config.toml"),
    },
    "hermes": {
        "linux": ({}, "~/.hermes/config.yaml"),
        "win32": ({"LOCALAPPDATA": "/w/Local"}, "/w/Local/hermes/config.yaml"),
        "moved": ({"HERMES_HOME": "/srv/hermes"}, "/srv/hermes/config.yaml"),
    },
    "grok-cli": {"linux": ({}, "~/.grok/user-settings.json"), "win32": ({}, "~/.grok/user-settings.json")},
    "nanocoder": {
        "linux": ({}, "~/.config/nanocoder/agents.config.json"),
        "darwin": ({}, "~/Library/Preferences/nanocoder/agents.config.json"),
        "win32": ({"APPDATA": "/w/Roaming"}, "/w/Roaming/nanocoder/agents.config.json"),
        "moved": ({"NANOCODER_CONFIG_DIR": "/srv/nano"}, "/srv/nano/agents.config.json"),
    },
    "elia": {
        "linux": ({"XDG_CONFIG_HOME": "/xdg"}, "/xdg/elia/config.toml"),
        "darwin": ({}, "~/.config/elia/config.toml"),
        # xdg_base_dirs 6.0.3 takes only an absolute XDG_CONFIG_HOME
        "relative": ({"XDG_CONFIG_HOME": "rel/xdg"}, "~/.config/elia/config.toml"),
    },
    "oterm": {
        "linux": ({}, "~/.local/share/oterm/config.json"),
        "darwin": ({}, "~/Library/Application Support/oterm/config.json"),
        "win32": ({"APPDATA": "/elsewhere"}, "~/AppData/Roaming/oterm/config.json"),  # not %APPDATA%
        "moved": ({"OTERM_DATA_DIR": "/srv/oterm"}, "/srv/oterm/config.json"),
    },
}


@pytest.mark.parametrize(
    ("client_id", "case"), [(c, p) for c, cases in PATHS.items() for p in cases], ids=lambda v: str(v)
)
def test_paths(client_id: str, case: str, home) -> None:
    environ, expected = PATHS[client_id][case]
    platform = "linux" if case in ("moved", "relative") else case
    env = Env(home=home, platform=platform, environ=environ, cwd=home)
    assert str(registry.get(client_id).files(env)[0].path) == expected.replace("~", str(home))


# -- each client's traps ----------------------------------------------------------------------------


def test_mini_writes_the_cost_switch_a_gateway_model_needs(gwconf, home, profile) -> None:
    """Issue 23 part 4: without MSWEA_COST_TRACKING=ignore_errors the real mini stops at its first reply."""
    result = gwconf("apply", "mini-swe-agent")
    assert result.exit_code == 0 and "MSWEA_COST_TRACKING=ignore_errors" in result.stdout
    text = (home / ".config/mini-swe-agent/.env").read_text()
    assert "MSWEA_COST_TRACKING=ignore_errors\n" in text and "MSWEA_CONFIGURED=true\n" in text
    assert not has_finding(reading("mini-swe-agent").findings, "warning", "Error calculating cost")
    shell = reading("mini-swe-agent", MSWEA_COST_TRACKING="default").findings
    assert has_finding(shell, "warning", "$MSWEA_COST_TRACKING", "wins over")
    assert has_finding(shell, "warning", "Error calculating cost")
    assert gwconf("restore", "mini-swe-agent").exit_code == 0
    assert not (home / ".config/mini-swe-agent/.env").exists()


def test_mini_keeps_the_users_configured_flag_and_names_openai_base_url(gwconf, home, profile) -> None:
    path = home / ".config/mini-swe-agent/.env"
    path.parent.mkdir(parents=True)
    path.write_text("MSWEA_CONFIGURED=yes\nOPENAI_BASE_URL=https://api.openai.com/v1\n")
    assert gwconf("apply", "mini-swe-agent").exit_code == 0
    text = path.read_text()
    assert "MSWEA_CONFIGURED=yes\n" in text, "the user's own value stays"
    assert "OPENAI_BASE_URL=https://gw.example.com/v1\n" in text, "litellm reads it before OPENAI_API_BASE"
    assert status_of(gwconf, "mini-swe-agent")["base_url"] == "https://gw.example.com/v1"
    assert has_finding(
        reading("mini-swe-agent", OPENAI_BASE_URL="https://elsewhere.example/v1").findings,
        "error",
        "OPENAI_BASE_URL",
    )


def test_mini_follows_the_config_file_its_variable_names(gwconf, home, profile, tmp_path) -> None:
    """``MSWEA_MINI_CONFIG_PATH`` (shell or .env: mini loads the .env first) names the config mini
    reads in place of its built-in mini.yaml (2.4.6 ``run/mini.py``). Its ``model.model_name``
    beats ``MSWEA_MODEL_NAME``, its ``model_kwargs`` go to every litellm call: status and verify
    follow them, with the file named, instead of the .env gwconf wrote."""
    assert gwconf("apply", "mini-swe-agent").exit_code == 0
    config = tmp_path / "corp.yaml"
    config.write_text(
        "agent:\n  step_limit: 3\nmodel:\n  model_name: openai/corp-model\n"
        "  model_kwargs:\n    api_base: https://llm.corp.example/v1\n    drop_params: true\n"
    )
    found = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH=str(config))
    assert (found.model, found.base_url) == ("corp-model", "https://llm.corp.example/v1"), found
    assert found.api_key == TEST_KEY  # no key in the file: the .env's
    assert has_finding(found.findings, "warning", "sets model.model_name, model.model_kwargs.api_base")
    # named without its suffix, from the .env
    dotenv = home / ".config/mini-swe-agent/.env"
    dotenv.write_text(dotenv.read_text() + f"MSWEA_MINI_CONFIG_PATH={tmp_path / 'corp'}\n")
    from_file = reading("mini-swe-agent")
    assert from_file.base_url == "https://llm.corp.example/v1"
    assert has_finding(
        from_file.findings, "warning", "named by ~/.config/mini-swe-agent/.env MSWEA_MINI_CONFIG_PATH"
    )
    config.write_text("model:\n  model_kwargs:\n    temperature: 0\n")  # nothing of the route: the .env's
    plain = reading("mini-swe-agent")
    assert (plain.model, plain.base_url) == ("my-model", "https://gw.example.com/v1")
    assert not has_finding(plain.findings, "warning", "wins over the .env")
    config.write_text("model: [unclosed\n")  # mini stops on it: named, and the .env's route stands
    broken = reading("mini-swe-agent")
    assert has_finding(broken.findings, "warning", "corp.yaml cannot be read")
    assert broken.base_url == "https://gw.example.com/v1"


def test_mini_config_variable_naming_no_usable_config_is_a_finding(gwconf, home, profile, tmp_path) -> None:
    """mini 2.4.6 stops before any request when ``MSWEA_MINI_CONFIG_PATH`` names a config it finds
    nowhere (as given, under ``$MSWEA_CONFIG_DIR``, among its own) or holds "=" (one key=value
    setting in place of the whole mini.yaml): the .env's route is then never used, and status and
    verify say so. Its own configs, by name or under benchmarks/, are no finding."""
    assert gwconf("apply", "mini-swe-agent").exit_code == 0
    missing = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH=str(tmp_path / "corp"))
    assert has_finding(
        missing.findings, "error", "$MSWEA_MINI_CONFIG_PATH names", "corp.yaml", "Could not find"
    )
    assert missing.base_url == "https://gw.example.com/v1"  # the .env's, which mini never gets to
    relative = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH="corp")  # maybe where mini starts
    assert has_finding(relative.findings, "warning", "corp.yaml", "nor under $MSWEA_CONFIG_DIR")
    (tmp_path / "corp.yaml").write_text("model:\n  model_name: openai/corp-model\n")
    under_dir = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH="corp", MSWEA_CONFIG_DIR=str(tmp_path))
    assert under_dir.model == "corp-model" and not has_finding(under_dir.findings, "warning", "not there")
    for own in ("swebench", "benchmarks/swebench_xml", "mini_textbased.yaml"):
        found = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH=own).findings
        assert not any("MSWEA_MINI_CONFIG_PATH" in f.message for f in found), (own, found)
    # "=" anywhere: a setting, even where a file of that name exists; its value is not shown
    spec = "model.model_kwargs.api_key=sk-inline-secret-4242"
    setting = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH=spec)
    assert has_finding(setting.findings, "error", "$MSWEA_MINI_CONFIG_PATH holds '='")
    assert not any("sk-inline" in f.message + (f.fix or "") for f in setting.findings)
    odd = tmp_path / "a=b.yaml"
    odd.write_text("model:\n  model_name: openai/odd\n")
    named = reading("mini-swe-agent", MSWEA_MINI_CONFIG_PATH=str(odd))
    assert named.model == "my-model" and has_finding(named.findings, "error", "holds '='")
    # from the .env: the remedy names the file's line
    dotenv = home / ".config/mini-swe-agent/.env"
    dotenv.write_text(dotenv.read_text() + f"MSWEA_MINI_CONFIG_PATH={tmp_path / 'gone'}\n")
    from_file = [f for f in reading("mini-swe-agent").findings if "gone.yaml" in f.message]
    assert [f.level for f in from_file] == ["error"]
    assert from_file[0].fix and from_file[0].fix.startswith(
        "remove ~/.config/mini-swe-agent/.env MSWEA_MINI_CONFIG_PATH"
    )
    doctor = gwconf("doctor", "mini-swe-agent")
    assert "gone.yaml" in doctor.stdout and "fix: remove" in doctor.stdout, doctor


def test_openhands_condenser_on_another_model_is_named(gwconf, home, profile) -> None:
    assert gwconf("apply", "openhands").exit_code == 0
    path = home / ".openhands/agent_settings.json"
    data = json.loads(path.read_text())
    assert data["condenser"]["llm"]["base_url"] == "https://gw.example.com/v1"
    data["condenser"]["llm"]["model"] = "anthropic/claude-haiku-4-5"
    path.write_text(json.dumps(data))
    assert has_finding(reading("openhands").findings, "warning", "condenser.llm differs")
    assert has_finding(reading("openhands", LLM_API_KEY="sk-x").findings, "info", "--override-with-envs")


def test_gptme_model_from_the_shell_or_local_file_wins(gwconf, home, profile) -> None:
    assert gwconf("apply", "gptme").exit_code == 0
    assert has_finding(
        reading("gptme", MODEL="anthropic/claude-sonnet-4-5").findings, "error", "not on a [[providers]]"
    )
    (home / ".config/gptme/config.local.toml").write_text('[env]\nMODEL = "openai/gpt-4o"\n')
    found = reading("gptme").findings
    assert has_finding(found, "warning", "config.local.toml")
    assert has_finding(found, "error", "'openai/gpt-4o'")


def test_gptme_models_default_beats_env_model(gwconf, home, profile) -> None:
    """gptme 0.35.1: the user config's ``[models] default`` beats its ``[env] MODEL``; apply sets
    it where the user keeps one, and names one in config.local.toml, which it does not edit."""
    path = home / ".config/gptme/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('# mine\n[models]\ndefault = "anthropic/claude-sonnet-4-5"\n')
    assert has_finding(reading("gptme").findings, "error", "'anthropic/claude-sonnet-4-5'")
    applied = gwconf("apply", "gptme")
    assert applied.exit_code == 0 and "config.local.toml" not in applied.output
    assert 'default = "gwconf/my-model"' in path.read_text() and "# mine" in path.read_text()
    found = reading("gptme")
    assert found.provider_is_gwconf and found.model == "my-model"
    local = home / ".config/gptme/config.local.toml"
    local.write_text('[models]\ndefault = "openai/gpt-4o"\n')
    assert has_finding(reading("gptme").findings, "warning", "config.local.toml [models] default")
    again = gwconf("apply", "gptme")
    assert 'config.local.toml [models] default is "openai/gpt-4o"' in again.output
    project = Path.cwd() / ".github" / "gptme.toml"  # a project's [env] MODEL beats both
    project.parent.mkdir()
    project.write_text('[env]\nMODEL = "openai/gpt-4.1"\n')
    assert reading("gptme").model == "gpt-4.1"


def test_vibe_models_as_alias_tables(gwconf, home, profile) -> None:
    """vibe 3.0.2 reads ``[models.<alias>]`` tables as well as ``[[models]]``: gwconf adds its own
    table, keeps the user's, and status follows the alias."""
    path = home / ".vibe/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        'active_model = "small"\n\n# mine\n[models.small]\nname = "mistral-small-latest"\nprovider = "mistral"\n'
    )
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    text = path.read_text()
    assert "[models.small]" in text and "# mine" in text
    assert 'active_model = "my-model"' in text
    found = reading("mistral-vibe")
    assert found.provider_is_gwconf and found.model == "my-model"
    assert gwconf("apply", "mistral-vibe", "--model", "other-model").exit_code == 0
    import tomllib

    models = tomllib.loads(path.read_text())["models"]
    assert sorted(models) == ["other-model", "small"] and models["other-model"]["provider"] == "gwconf"


def test_vibe_finds_the_project_config_up_the_folders(gwconf, home, profile, tmp_path, monkeypatch) -> None:
    """vibe 3.0.2 looks for .vibe/config.toml from the current folder up (``_discover_config_file``)."""
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    repo = home / "repo"
    (repo / ".vibe").mkdir(parents=True)
    (repo / ".vibe" / "config.toml").write_text('active_model = "devstral-2"\n')
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(repo / "src" / "deep")
    assert has_finding(
        reading("mistral-vibe").findings, "warning", "repo/.vibe/config.toml sets active_model"
    )
    monkeypatch.chdir(home)  # the folder holding ~/.vibe: no project file there
    assert not has_finding(reading("mistral-vibe").findings, "warning", "sets active_model")


def test_vibe_shell_key_and_active_model_win(gwconf, home, profile) -> None:
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    assert has_finding(
        reading("mistral-vibe", VIBE_ACTIVE_MODEL="devstral-2").findings, "error", "Mistral's own API"
    )
    shell = reading("mistral-vibe", GWCONF_VIBE_API_KEY="sk-other-000000000000000000")
    assert shell.key_origin == "$GWCONF_VIBE_API_KEY"
    assert has_finding(shell.findings, "warning", "wins over")


def test_vibe_alias_taken_by_another_provider(gwconf, home, profile) -> None:
    path = home / ".vibe/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[[models]]\nname = "x"\nprovider = "mistral"\nalias = "my-model"\n')
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    assert 'active_model = "gwconf-my-model"' in path.read_text()
    assert status_of(gwconf, "mistral-vibe")["model"] == "my-model"


def test_kimi_env_model_channel_wins(gwconf, home, profile) -> None:
    assert gwconf("apply", "kimi-code").exit_code == 0
    found = reading("kimi-code", KIMI_MODEL_NAME="kimi-k2", KIMI_MODEL_API_KEY="sk-x")
    assert found.model == "kimi-k2" and has_finding(found.findings, "warning", "KIMI_MODEL_NAME")


def test_kimi_key_from_api_key_env(gwconf, home, profile) -> None:
    """kimi 2.1 reads a provider's key from the variable its ``api_key_env`` names, and refuses
    a provider with both that and ``api_key``: gwconf's key replaces the variable in its entry."""
    path = home / ".kimi-code/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        'default_model = "gwconf/my-model"\n\n[providers.gwconf]\ntype = "openai"\n'
        'base_url = "https://gw.example.com/v1"\napi_key_env = "MY_GW_KEY"\n\n'
        '[models."gwconf/my-model"]\nprovider = "gwconf"\nmodel = "my-model"\nmax_context_size = 131072\n'
    )
    found = reading("kimi-code", MY_GW_KEY="sk-from-variable-0000")
    assert found.api_key == "sk-from-variable-0000" and "$MY_GW_KEY" in found.key_origin
    assert has_finding(reading("kimi-code").findings, "error", "names $MY_GW_KEY, which is not set")
    assert gwconf("apply", "kimi-code").exit_code == 0
    text = path.read_text()
    assert "api_key_env" not in text and "api_key = " in text
    assert not [f for f in reading("kimi-code").findings if f.level == "error"]
    text = text.replace("[providers.gwconf]\n", '[providers.gwconf]\noauth = { storage = "file" }\n')
    path.write_text(text)
    assert has_finding(reading("kimi-code").findings, "error", "has api_key and oauth")


def test_hermes_sticky_profile_and_custom_base_url(gwconf, home, profile) -> None:
    assert gwconf("apply", "hermes").exit_code == 0
    (home / ".hermes/.env").write_text("CUSTOM_BASE_URL=http://127.0.0.1:9/v1\n")
    assert has_finding(reading("hermes").findings, "error", "CUSTOM_BASE_URL")
    (home / ".hermes/.env").unlink()
    (home / ".hermes/active_profile").write_text("work\n")
    assert has_finding(reading("hermes").findings, "error", "sticky")


def test_hermes_dotenv_beats_the_shell_and_a_set_home_still_follows_the_sticky_profile(
    gwconf, home, profile, monkeypatch
) -> None:
    """hermes 0.19.0 loads ~/.hermes/.env over the shell's values, and follows active_profile
    unless HERMES_HOME is a profile's own folder."""
    assert gwconf("apply", "hermes").exit_code == 0
    (home / ".hermes/.env").write_text("CUSTOM_BASE_URL=http://127.0.0.1:9/v1\n")
    found = reading("hermes", CUSTOM_BASE_URL="https://gw.example.com/v1")
    assert has_finding(found.findings, "error", "CUSTOM_BASE_URL")
    (home / ".hermes/.env").unlink()
    (home / ".hermes/active_profile").write_text("work\n")
    assert has_finding(reading("hermes", HERMES_HOME=str(home / ".hermes")).findings, "error", "sticky")
    (home / ".hermes/profiles/work").mkdir(parents=True)
    inside = reading("hermes", HERMES_HOME=str(home / ".hermes/profiles/work"))
    assert not has_finding(inside.findings, "error", "sticky")


def test_hermes_follows_the_administrators_folder(gwconf, home, profile, tmp_path) -> None:
    """hermes 0.19.0 ``managed_scope``: config.yaml and .env in ``$HERMES_MANAGED_DIR`` (else
    /etc/hermes) win over the user's, leaf by leaf, and the .env over the shell and the user's."""
    assert gwconf("apply", "hermes").exit_code == 0
    managed = tmp_path / "etc-hermes"
    managed.mkdir()
    (managed / "config.yaml").write_text("model:\n  default: corp-model\n")  # merged leaf by leaf
    found = reading("hermes", HERMES_MANAGED_DIR=str(managed))
    assert found.model == "corp-model" and found.base_url == "https://gw.example.com/v1", found
    [pinned] = [f for f in found.findings if "managed by an administrator" in f.message]
    assert "pins model.default: it wins over ~/.hermes/config.yaml" in pinned.message
    assert pinned.fix is not None and "ask the administrator" in pinned.fix
    (managed / "config.yaml").write_text("model: corp-model\n")  # a bare name replaces the mapping
    found = reading("hermes", HERMES_MANAGED_DIR=str(managed))
    assert (
        found.model == "corp-model"
        and found.provider == "auto"
        and found.base_url != "https://gw.example.com/v1"
    )
    assert has_finding(found.findings, "error", "bare name 'corp-model'", "whole model mapping")
    (managed / "config.yaml").write_text("model:\n  default: corp-model\n")
    (managed / ".env").write_text("CUSTOM_BASE_URL=http://127.0.0.1:9/v1\n")
    found = reading("hermes", HERMES_MANAGED_DIR=str(managed), CUSTOM_BASE_URL="https://gw.example.com/v1")
    assert found.base_url == "http://127.0.0.1:9/v1"
    assert has_finding(found.findings, "error", "CUSTOM_BASE_URL", ".env CUSTOM_BASE_URL")
    assert reading("hermes", HERMES_MANAGED_DIR=str(tmp_path / "none")).model == "my-model"  # not a folder


def test_hermes_legacy_string_model_becomes_a_mapping(gwconf, home, profile) -> None:
    path = home / ".hermes/config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("model: anthropic/claude-opus-4.6\ntoolsets: [all]\n")
    assert gwconf("apply", "hermes").exit_code == 0
    assert_status_reads_profile(gwconf, "hermes")
    assert "toolsets: [all]" in path.read_text()
    assert gwconf("restore", "hermes").exit_code == 0
    assert path.read_text() == "model: anthropic/claude-opus-4.6\ntoolsets: [all]\n"


def test_grok_project_settings_file_is_the_trap(gwconf, home, profile) -> None:
    assert gwconf("apply", "grok-cli").exit_code == 0
    assert json.loads((home / ".grok/user-settings.json").read_text())["settingsVersion"] == 2
    project = home / "proj"
    (project / ".grok").mkdir(parents=True)
    (project / ".grok/settings.json").write_text('{\n  "model": "grok-code-fast-1"\n}')
    env = Env.current()
    env = Env(home=env.home, platform=env.platform, environ=dict(env.environ), cwd=project)
    from gwconf import operations

    found = operations.read_client(registry.get("grok-cli"), env)
    assert found.model == "grok-code-fast-1"
    assert has_finding(found.findings, "warning", ".grok/settings.json", "wins over defaultModel")
    assert "--model my-model" in found.findings[0].fix


def test_grok_reads_the_current_folders_env(gwconf, home, profile) -> None:
    """grok 0.0.34 loads the current folder's .env at start (``dotenv.config()``), under the
    shell's values: its GROK_BASE_URL wins over user-settings.json."""
    assert gwconf("apply", "grok-cli").exit_code == 0
    (Path.cwd() / ".env").write_text("GROK_BASE_URL=https://api.x.ai/v1\nGROK_MODEL=grok-4\n")
    found = reading("grok-cli")
    assert (found.base_url, found.model, found.provider_is_gwconf) == ("https://api.x.ai/v1", "grok-4", False)
    assert has_finding(found.findings, "warning", ".env GROK_BASE_URL is set and wins")
    shell = reading("grok-cli", GROK_BASE_URL="https://gw.example.com/v1")
    assert shell.base_url == "https://gw.example.com/v1"  # the shell's value stays


def test_nanocoder_last_provider_decides(gwconf, home, profile) -> None:
    assert gwconf("apply", "nanocoder").exit_code == 0
    prefs = home / ".config/nanocoder/nanocoder-preferences.json"
    data = json.loads(prefs.read_text())
    assert data["lastProvider"] == "gwconf" and data["providerModels"]["gwconf"] == "my-model"
    data["lastProvider"] = "Ollama"
    prefs.write_text(json.dumps(data))
    agents = home / ".config/nanocoder/agents.config.json"
    config = json.loads(agents.read_text())
    config["nanocoder"]["providers"].insert(
        0, {"name": "Ollama", "baseUrl": "http://localhost:11434/v1", "models": []}
    )
    agents.write_text(json.dumps(config))
    found = reading("nanocoder")
    assert found.provider == "Ollama" and has_finding(found.findings, "error", "not 'gwconf'")


def test_nanocoder_keeps_a_top_level_providers_list(gwconf, home, profile) -> None:
    """nanocoder reads a top-level ``providers`` list when there is no ``nanocoder.providers``
    list: gwconf's entry goes into it, or the user's providers would stop being read."""
    agents = home / ".config/nanocoder/agents.config.json"
    agents.parent.mkdir(parents=True)
    mine = {"name": "Ollama", "baseUrl": "http://localhost:11434/v1", "models": ["llama3"]}
    agents.write_text(json.dumps({"providers": [mine]}, indent=2) + "\n")
    assert gwconf("apply", "nanocoder").exit_code == 0
    config = json.loads(agents.read_text())
    assert "nanocoder" not in config
    assert [p["name"] for p in config["providers"]] == ["Ollama", "gwconf"]
    assert reading("nanocoder").provider == "gwconf"


def test_nanocoder_names_a_mode_provider(gwconf, home, profile) -> None:
    """In a mode that ``nanocoder.modeProviders`` sets, interactive nanocoder starts with that
    provider over lastProvider: apply and status name it, and gwconf leaves it to the user."""
    agents = home / ".config/nanocoder/agents.config.json"
    agents.parent.mkdir(parents=True)
    ollama = {"name": "Ollama", "baseUrl": "http://localhost:11434/v1", "models": ["llama3"]}
    modes = {
        "normal": {"provider": "ollama", "model": "llama3"},
        "bogus": {"provider": "Ollama", "model": "x"},
    }
    agents.write_text(json.dumps({"nanocoder": {"providers": [ollama], "modeProviders": modes}}))
    applied = gwconf("apply", "nanocoder")
    assert applied.exit_code == 0
    assert "nanocoder.modeProviders.normal picks ollama/llama3" in applied.output
    assert "bogus" not in applied.output  # nanocoder ignores a mode it does not know
    assert json.loads(agents.read_text())["nanocoder"]["modeProviders"] == modes
    assert has_finding(reading("nanocoder").findings, "error", "modeProviders.normal picks ollama/llama3")


def test_nanocoder_reads_the_providers_file_variable(gwconf, home, profile, monkeypatch, tmp_path) -> None:
    assert gwconf("apply", "nanocoder").exit_code == 0
    given = tmp_path / "providers.json"
    given.write_text(json.dumps({"nanocoder": {"providers": [{"name": "gwconf", "baseUrl": "http://x/v1"}]}}))
    monkeypatch.setenv("NANOCODER_PROVIDERS_FILE", str(given))
    found = reading("nanocoder")
    assert found.base_url == "http://x/v1"
    assert has_finding(found.findings, "warning", "$NANOCODER_PROVIDERS_FILE is set")


def test_elia_default_model_not_an_entry(gwconf, home, profile) -> None:
    path = home / ".config/elia/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('default_model = "elia-gpt-4o"\n')
    assert has_finding(reading("elia").findings, "error", "built-in vendor model")
    assert gwconf("apply", "elia").exit_code == 0
    assert_status_reads_profile(gwconf, "elia")


def test_oterm_has_no_model_to_preset(gwconf, home, profile) -> None:
    result = gwconf("apply", "oterm")
    assert result.exit_code == 0 and "Ctrl+N" in result.stdout and TEST_KEY not in result.output
    status = status_of(gwconf, "oterm")
    assert status["base_url"] == "https://gw.example.com/v1" and status["model"] is None
    path = home / ".local/share/oterm/config.json"
    data = json.loads(path.read_text())
    data["openaiCompatible"]["gwconf"]["api_key"] = "${GW_KEY}"
    path.write_text(json.dumps(data))
    assert reading("oterm", GW_KEY=TEST_KEY).api_key == TEST_KEY
    # oterm 0.26.1 also takes ${VAR:-default}: the variable when it is set, even empty, else the default
    data["openaiCompatible"]["gwconf"]["api_key"] = "${GW_KEY:-sk-default-0000}"
    path.write_text(json.dumps(data))
    assert reading("oterm").api_key == "sk-default-0000"
    assert reading("oterm", GW_KEY=TEST_KEY).api_key == TEST_KEY


def fake_oterm_install(home: Path) -> Path:
    """oterm as ``uv tool install`` lays it out: its code in a virtual environment under the home
    folder, the program on PATH a link to the environment's script, whose ``#!`` names its python."""
    venv = home / ".local/share/uv/tools/oterm"
    (venv / "lib/python3.12/site-packages/oterm").mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "bin/python").write_text("")  # (a link to the base interpreter in a real one)
    script = venv / "bin/oterm"
    script.write_text(f"#!{venv}/bin/python\nimport sys\nfrom oterm.cli.oterm import cli\nsys.exit(cli())\n")
    script.chmod(0o755)
    (home / ".local/bin").mkdir(parents=True)
    (home / ".local/bin/oterm").symlink_to(script)
    return home / ".local/bin"


def test_oterm_reads_the_dotenv_its_load_dotenv_finds(gwconf, home, profile, monkeypatch) -> None:
    """oterm 0.26.1 calls ``load_dotenv()``: python-dotenv walks up from oterm's package folder, and
    for an install under the home folder it finds ``~/.env``. Its ``OTERM_DATA_DIR`` moves
    config.json (apply writes there), and it fills a ``${VAR}`` key; the shell still wins. Without
    the program on PATH there is no install to start from, and the .env is not followed."""
    (home / ".env").write_text(f"OTERM_DATA_DIR={home}/odata\nGW_KEY=sk-from-dotenv-7777\n")
    assert gwconf("apply", "oterm").exit_code == 0
    assert (home / ".local/share/oterm/config.json").exists()  # no oterm on PATH: the default place

    monkeypatch.setenv("PATH", f"{fake_oterm_install(home)}:{os.environ['PATH']}")
    moved = home / "odata/config.json"
    assert gwconf("apply", "oterm").exit_code == 0 and moved.exists()
    data = json.loads(moved.read_text())
    data["openaiCompatible"]["gwconf"]["api_key"] = "${GW_KEY}"
    moved.write_text(json.dumps(data))
    found = reading("oterm")
    assert found.api_key == "sk-from-dotenv-7777"
    assert found.key_origin.startswith("~/.env GW_KEY (named in ~/odata/config.json")
    shell = reading("oterm", GW_KEY=TEST_KEY)  # load_dotenv(override=False)
    assert shell.api_key == TEST_KEY and shell.key_origin.startswith("$GW_KEY")
    # a .env nearer the package is the one found, and it does not move the folder
    (home / ".local/share/uv/tools/oterm/.env").write_text("GW_KEY=sk-nearer-1111\n")
    nearer = reading("oterm")  # the default folder's file again: the one the first apply wrote
    assert nearer.key_origin.startswith("~/.local/share/oterm/config.json"), nearer.key_origin
    # pip's script for an interpreter path too long or spaced for "#!": found through its second line
    (home / ".local/share/uv/tools/oterm/.env").unlink()
    venv = home / ".local/share/uv/tools/oterm"
    (venv / "bin/oterm").write_text(f"#!/bin/sh\n'''exec' \"{venv}/bin/python\" \"$0\" \"$@\"\n' '''\n")
    assert reading("oterm").api_key == "sk-from-dotenv-7777"
    assert gwconf("status", "oterm").exit_code == 0


@pytest.mark.parametrize("path_entry", [".", ""])
def test_an_oterm_in_the_current_folder_does_not_choose_where_the_key_goes(
    gwconf, home, profile, tmp_path, monkeypatch, path_entry: str
) -> None:
    """A PATH with "." or an empty entry finds programs in the current folder, which may be a
    repository the user cloned: its ``oterm`` script, its environment and that environment's
    ``.env`` (``OTERM_DATA_DIR`` inside the clone) would have gwconf write the key there. Only a
    program found through an absolute PATH entry is followed."""
    clone = tmp_path / "clone"
    venv = clone / "venv"
    (venv / "lib/python3.12/site-packages/oterm").mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / ".env").write_text(f"OTERM_DATA_DIR={clone}/leak\n")
    script = clone / "oterm"
    script.write_text(f"#!{venv}/bin/python\n")
    script.chmod(0o755)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("PATH", f"{path_entry}:{os.environ['PATH']}")
    assert gwconf("apply", "oterm").exit_code == 0
    assert (home / ".local/share/oterm/config.json").exists()
    assert not (clone / "leak").exists()


def test_oterm_in_its_dotenv_folder_over_apply_edit_use_edit_restore(
    gwconf, home, profile, monkeypatch
) -> None:
    """The folder oterm's ``~/.env`` names holds the file through a whole sequence: apply, the
    user's edit, ``use`` of another profile, oterm's own rewrite (compact JSON), restore. The
    user's settings stay; the default folder is never written."""
    (home / ".env").write_text(f"OTERM_DATA_DIR={home}/odata\n")
    monkeypatch.setenv("PATH", f"{fake_oterm_install(home)}:{os.environ['PATH']}")
    moved = home / "odata/config.json"
    moved.parent.mkdir()
    moved.write_text('{\n  "theme": "textual-light",\n  "splash-screen": false\n}\n')
    assert gwconf("apply", "oterm").exit_code == 0
    data = json.loads(moved.read_text())
    assert data["openaiCompatible"]["gwconf"]["base_url"] == "https://gw.example.com/v1"
    data["theme"] = "nord"  # the user's edit in the app
    moved.write_text(json.dumps(data, indent=2) + "\n")
    added = gwconf(
        "profile", "add", "other", "--base-url", "https://other.example.com/v1", "--model", "m2",
        "--key-stdin", input="sk-other-0000111122223333\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("use", "other").exit_code == 0
    data = json.loads(moved.read_text())
    assert data["openaiCompatible"]["gwconf"]["base_url"] == "https://other.example.com/v1"
    assert data["theme"] == "nord"
    data["splash-screen"] = True  # oterm writes the whole file back, compact
    moved.write_text(json.dumps(data, separators=(",", ":")))
    restored = gwconf("restore", "oterm")
    assert restored.exit_code == 0, restored
    data = json.loads(moved.read_text())
    assert "openaiCompatible" not in data and data["theme"] == "nord" and data["splash-screen"] is True
    assert not (home / ".local/share/oterm").exists()
