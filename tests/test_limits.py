"""The model's limits (issue 22): from the profile, else the gateway, else unknown; written where
each client reads them, rewritten by ``use``, taken back by ``restore``; never a silent guess."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer


def add(gwconf, name: str, base_url: str, *extra: str) -> None:
    result = gwconf(
        "profile", "add", name, "--base-url", base_url, "--model", "my-model", "--key-stdin", *extra,
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result


def codex_config(home: Path) -> dict:
    return tomllib.loads((home / ".codex" / "config.toml").read_text())


def opencode_model(home: Path) -> dict:
    data = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    return data["provider"]["gwconf"]["models"]["my-model"]


def test_the_profiles_limits_reach_every_client_with_a_place_for_them(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "gw", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use")
    shown = gwconf("profile", "show", "gw")
    assert "context 200,000 tokens, output 32,000 (from profile gw)" in shown.stdout
    applied = gwconf("apply", "codex", "opencode", "aider", "crush", "goose", "zed", "continue")
    assert applied.exit_code == 0, applied
    assert "default" not in applied.stdout  # nothing was guessed
    assert codex_config(home)["model_context_window"] == 200000
    assert opencode_model(home)["limit"] == {"context": 200000, "output": 32000}
    metadata = json.loads((home / ".aider.model.metadata.json").read_text())
    assert metadata["openai/my-model"]["max_input_tokens"] == 200000
    assert metadata["openai/my-model"]["max_output_tokens"] == 32000
    crush = json.loads((home / ".config" / "crush" / "crush.json").read_text())
    [model] = crush["providers"]["gwconf"]["models"]
    assert (model["context_window"], model["default_max_tokens"]) == (200000, 32000)
    import yaml

    [entry] = yaml.safe_load((home / ".continue" / "config.yaml").read_text())["models"]
    assert entry["defaultCompletionOptions"] == {"contextLength": 200000, "maxTokens": 32000}
    goose = json.loads((home / ".config" / "goose" / "custom_providers" / "custom_gwconf.json").read_text())
    assert goose["models"] == [{"name": "my-model", "context_limit": 200000}]


def test_unknown_limits_write_nothing_optional_and_name_each_default(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "gw", gateway.base_url, "--use")
    assert "unknown" in gwconf("profile", "show", "gw").stdout
    applied = gwconf("apply", "codex", "opencode", "aider", "crush")
    assert applied.exit_code == 0, applied
    assert "model_context_window" not in codex_config(home)
    assert "limit" not in opencode_model(home)
    assert not (home / ".aider.model.metadata.json").exists()
    # crush demands both numbers: stated defaults, named in the output with the way to set them
    assert "Crush needs the model's context window" in applied.stdout
    assert "wrote gwconf's default 128000 (set the real one: gwconf profile set gw --context-window N)" in (
        " ".join(applied.stdout.split())
    )


@pytest.mark.parametrize("shape", ["litellm", "openrouter", "context_window"])
def test_the_gateways_limits_are_cached_with_the_model_list(
    gwconf, gateway: GatewayServer, home: Path, shape: str
) -> None:
    gateway.model_limits = {"my-model": (1000000, 64000)}
    gateway.limits_shape = shape
    add(gwconf, "gw", gateway.base_url, "--use")
    listed = gwconf("models")
    assert listed.exit_code == 0, listed
    window = "1,000,000"
    assert f"my-model  context {window}" in listed.stdout
    data = json.loads(gwconf("models", "--json").stdout)
    assert data["limits"]["my-model"]["context_window"] == 1000000
    where = "GET /v1/model/info" if shape == "litellm" else "GET /v1/models"
    assert data["limits"]["my-model"]["source"] == where
    assert f"from the gateway ({where})" in gwconf("profile", "show", "gw").stdout
    assert gwconf("apply", "codex", "opencode").exit_code == 0
    assert codex_config(home)["model_context_window"] == 1000000
    assert opencode_model(home)["limit"]["context"] == 1000000
    # the profile's own numbers beat the gateway's
    assert gwconf("profile", "set", "gw", "--context-window", "50000").exit_code == 0
    assert gwconf("apply", "codex").exit_code == 0
    assert codex_config(home)["model_context_window"] == 50000


def test_use_rewrites_the_limits_and_restore_takes_them_back(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True)
    original = "# mine\nmodel_context_window = 8000\n\n[model_providers.mine]\nname = \"mine\"\n"
    codex.write_text(original)
    opencode = home / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    user_model = {"provider": {"other": {"models": {"x": {"limit": {"context": 1, "output": 1}}}}}}
    opencode.write_text(json.dumps(user_model, indent=2) + "\n")
    add(gwconf, "small", gateway.base_url, "--context-window", "32000", "--max-output-tokens", "4000", "--use")
    add(gwconf, "large", gateway.base_url, "--context-window", "1000000", "--max-output-tokens", "64000")
    assert gwconf("apply", "codex", "opencode").exit_code == 0
    assert codex_config(home)["model_context_window"] == 32000
    assert opencode_model(home)["limit"] == {"context": 32000, "output": 4000}
    assert gwconf("use", "large").exit_code == 0
    assert codex_config(home)["model_context_window"] == 1000000
    assert opencode_model(home)["limit"] == {"context": 1000000, "output": 64000}
    data = json.loads(opencode.read_text())
    assert data["provider"]["other"] == user_model["provider"]["other"]  # the user's own entry
    assert gwconf("restore", "codex", "opencode").exit_code == 0
    assert codex.read_text() == original
    assert json.loads(opencode.read_text()) == user_model


def test_limits_must_be_whole_numbers(gwconf, gateway: GatewayServer, home: Path) -> None:
    add(gwconf, "gw", gateway.base_url, "--use")
    bad = gwconf("profile", "set", "gw", "--context-window", "lots")
    assert bad.exit_code == 2
    path = Path(json.loads(gwconf("profile", "show", "gw", "--json").stdout)["path"])
    path.write_text(path.read_text() + 'context_window = "200k"\n')
    shown = gwconf("profile", "show", "gw")
    assert shown.exit_code == 1 and "context_window must be a whole number" in shown.stderr


def test_a_profile_without_limits_takes_the_last_ones_out(gwconf, gateway: GatewayServer, home: Path) -> None:
    """Switching to a profile whose limits are unknown leaves no number from the previous one."""
    add(gwconf, "known", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use")
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "codex", "opencode", "continue").exit_code == 0
    assert codex_config(home)["model_context_window"] == 200000
    assert gwconf("use", "unknown").exit_code == 0
    assert "model_context_window" not in codex_config(home)
    assert "limit" not in opencode_model(home)
    import yaml

    [entry] = yaml.safe_load((home / ".continue" / "config.yaml").read_text())["models"]
    assert "defaultCompletionOptions" not in entry
    assert gwconf("restore", "codex", "opencode", "continue").exit_code == 0
    assert not (home / ".codex" / "config.toml").exists()


def _file_of(client: str) -> Path:
    from gwconf import registry
    from gwconf.paths import Env

    return registry.get(client).files(Env.current())[0].path


def test_kimi_and_openclaw_get_the_limits_or_a_named_default(gwconf, gateway: GatewayServer, home: Path) -> None:
    add(gwconf, "known", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use")
    assert gwconf("apply", "kimi-code", "openclaw").exit_code == 0
    [kimi] = tomllib.loads(_file_of("kimi-code").read_text())["models"].values()
    assert kimi["max_context_size"] == 200000
    claw = _file_of("openclaw").read_text()
    assert "200000" in claw and "32000" in claw and "128000" not in claw
    assert gwconf("restore", "kimi-code", "openclaw").exit_code == 0
    add(gwconf, "unknown", gateway.base_url, "--use")
    applied = gwconf("apply", "kimi-code", "openclaw")
    assert applied.exit_code == 0, applied
    said = " ".join(applied.stdout.split())
    assert "needs the model's context window" in said
    assert said.count("wrote gwconf's default") == 3  # kimi's window, OpenClaw's window and output
