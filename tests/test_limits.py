"""The model's limits (issue 22): from the profile, else the gateway, else unknown; written where
each client reads them, rewritten by ``use``, taken back by ``restore``; never a silent guess."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer

# the limits of the profile both tests switch away from or apply
KNOWN_LIMITS = ("--context-window", "200000", "--max-output-tokens", "32000")


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
    original = '# mine\nmodel_context_window = 8000\n\n[model_providers.mine]\nname = "mine"\n'
    codex.write_text(original)
    opencode = home / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    user_model = {"provider": {"other": {"models": {"x": {"limit": {"context": 1, "output": 1}}}}}}
    opencode.write_text(json.dumps(user_model, indent=2) + "\n")
    add(
        gwconf, "small", gateway.base_url, "--context-window", "32000", "--max-output-tokens", "4000", "--use"
    )
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
    add(gwconf, "known", gateway.base_url, *KNOWN_LIMITS, "--use")
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


def test_kimi_and_openclaw_get_the_limits_or_a_named_default(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "known", gateway.base_url, *KNOWN_LIMITS, "--use")
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


def test_clients_json_says_which_clients_have_a_place_for_the_limits(gwconf, home: Path) -> None:
    from gwconf import registry

    result = gwconf("clients", "--json")
    assert result.exit_code == 0, result
    rows = {row["id"]: row for row in json.loads(result.stdout)["clients"]}
    assert rows["codex"]["limits"] == "written"
    assert "model_context_window" in rows["codex"]["limits_where"]
    assert rows["gemini-cli"]["limits"] == "none" and rows["gemini-cli"]["limits_where"] is None
    # every client named in the table exists (a renamed id would silently report "none")
    from gwconf.limits import WRITTEN

    ids = {c.id for c in registry.all_clients()}
    assert set(WRITTEN) <= ids
    assert {rows[c]["limits"] for c in WRITTEN} == {"written"}


def test_verify_and_doctor_show_the_limits_in_effect_and_their_source(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    gateway.model_limits = {"my-model": (1000000, 64000)}
    gateway.limits_shape = "litellm"
    add(gwconf, "gw", gateway.base_url, "--use")
    assert gwconf("models").exit_code == 0  # asks the gateway and caches what it says
    assert gwconf("apply", "codex", "crush", "gemini-cli").exit_code == 0
    verified = gwconf("verify", "codex")
    assert verified.exit_code == 0, verified
    assert "limits   context 1,000,000 tokens, output 64,000 (from the gateway (GET /v1/model/info))" in (
        verified.stdout
    )
    [result] = json.loads(gwconf("verify", "codex", "--json").stdout)["results"]
    assert result["limits"] == {
        "context_window": 1000000,
        "max_output_tokens": 64000,
        "source": "gateway",
        "from": "the gateway (GET /v1/model/info)",
        "written": True,
        "profile": "gw",  # whose gateway codex calls: the one to set numbers on
    }
    doctor = json.loads(gwconf("doctor", "codex", "gemini-cli", "--json").stdout)
    codex, gemini = doctor["clients"]
    assert codex["limits"]["source"] == "gateway" and codex["limits"]["context_window"] == 1000000
    assert gemini["limits"]["written"] is False  # no place for them in Gemini CLI (0.61: tokenLimit())
    assert "this client has no place for them" in gwconf("doctor", "gemini-cli").stdout
    # the profile's own numbers win, and say so
    assert gwconf("profile", "set", "gw", "--context-window", "50000").exit_code == 0
    doctor = json.loads(gwconf("doctor", "codex", "--json").stdout)
    assert doctor["clients"][0]["limits"]["source"] == "profile"
    assert "(from profile gw)" in gwconf("verify", "codex").stdout


def test_unknown_limits_show_as_unknown_or_as_the_default_a_client_demands(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "gw", gateway.base_url, "--use")
    assert gwconf("apply", "codex", "crush").exit_code == 0
    doctor = json.loads(gwconf("doctor", "codex", "crush", "--json").stdout)
    codex, crush = doctor["clients"]
    assert codex["limits"]["source"] == "unknown" and codex["limits"]["context_window"] is None
    assert crush["limits"]["source"] == "default"
    assert (crush["limits"]["context_window"], crush["limits"]["max_output_tokens"]) == (128000, 8192)
    text = gwconf("doctor", "codex", "crush").stdout
    assert "  limits   unknown\n" in text
    assert "limits   context 128,000 tokens, output 8,192 (from gwconf's default)" in text


def test_unknown_limits_are_said_once_with_the_real_profile_name(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    """A healthy verify of several clients gets one note, not a line per client, and the
    command in it names the profile (not NAME); crush's default is no unknown, gemini-cli has no
    place for the numbers: neither is named."""
    add(gwconf, "gw", gateway.base_url, "--use")
    assert gwconf("apply", "codex", "opencode", "crush", "gemini-cli").exit_code == 0
    note = (
        "note: the model's limits are unknown (neither profile gw nor the gateway gives them), so "
        "codex, opencode guess; set them: gwconf profile set gw --context-window N --max-output-tokens N"
    )
    verified = gwconf("verify", "codex", "opencode", "crush", "gemini-cli")
    assert verified.exit_code == 0, verified
    assert verified.stdout.count(note) == 1, verified.stdout
    assert "limits   unknown" not in verified.stdout and "NAME" not in verified.stdout
    doctor = gwconf("doctor", "codex", "opencode", "crush", "gemini-cli")
    assert doctor.stdout.count(note) == 1, doctor.stdout
    assert doctor.stdout.count("  limits   unknown\n") == 2  # doctor still says it for each client
    assert "NAME" not in doctor.stdout
    # the profile's numbers known: no note at all
    assert gwconf("profile", "set", "gw", *KNOWN_LIMITS).exit_code == 0
    assert "limits are unknown" not in gwconf("verify", "codex", "opencode").stdout


def test_verify_takes_the_limits_of_the_gateway_each_client_calls(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    """A client applied with another profile than the active one calls that profile's gateway:
    its limits are that profile's, and the note for unknown ones names the profile to set."""
    add(gwconf, "home", gateway.base_url, *KNOWN_LIMITS)
    # the same server under another name: another gateway, as far as addresses go
    add(gwconf, "work", gateway.base_url.replace("127.0.0.1", "localhost"), "--use")
    assert gwconf("apply", "codex", "-p", "home").exit_code == 0
    assert gwconf("apply", "opencode").exit_code == 0  # the active profile, work
    verified = gwconf("verify", "codex", "opencode")
    assert verified.exit_code == 0, verified
    assert "limits   context 200,000 tokens, output 32,000 (from profile home)" in verified.stdout
    note = (
        "note: the model's limits are unknown (neither profile work nor the gateway gives them), so "
        "opencode guesses; set them: gwconf profile set work --context-window N --max-output-tokens N"
    )
    assert verified.stdout.count("limits are unknown") == 1 and note in verified.stdout, verified.stdout
    codex, opencode = json.loads(gwconf("verify", "codex", "opencode", "--json").stdout)["results"]
    assert (codex["limits"]["profile"], codex["limits"]["context_window"]) == ("home", 200000)
    assert (opencode["limits"]["profile"], opencode["limits"]["source"]) == ("work", "unknown")
    # with --profile home, each client is still judged by the gateway it calls
    [codex] = json.loads(gwconf("verify", "codex", "-p", "home", "--json").stdout)["results"]
    assert codex["limits"]["profile"] == "home"


WINDOW_CLIENTS = ("codex", "opencode", "aider", "crush", "goose", "zed", "continue", "kimi-code", "openclaw")


def test_doctor_warns_when_a_clients_window_is_larger_than_the_gateway_says(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    gateway.model_limits = {"my-model": (32000, 4000)}
    gateway.limits_shape = "litellm"
    add(gwconf, "gw", gateway.base_url, "--context-window", "200000", "--use")
    assert gwconf("models").exit_code == 0  # the gateway's 32000, cached
    assert gwconf("apply", *WINDOW_CLIENTS).exit_code == 0  # the profile's 200000 wins in the files
    doctor = json.loads(gwconf("doctor", *WINDOW_CLIENTS, "--json").stdout)
    for item in doctor["clients"]:
        [warning] = [f for f in item["findings"] if "context window" in f["message"]]
        assert warning["level"] == "warning", item["id"]
        assert "200,000 tokens for 'my-model'; the gateway says 32,000" in warning["message"], item["id"]
        assert warning["fix"] == "gwconf profile set gw --context-window 32000", item["id"]
    assert doctor["clients"][0]["verdict"] == "ok"  # codex: a warning, not a fault (the request works)
    # with the profile's window at the gateway's, nothing to warn about where apply rewrites it
    assert gwconf("profile", "set", "gw", "--context-window", "32000").exit_code == 0
    assert gwconf("apply", *WINDOW_CLIENTS).exit_code == 0
    doctor = json.loads(gwconf("doctor", *WINDOW_CLIENTS, "--json").stdout)
    warned = [c["id"] for c in doctor["clients"] for f in c["findings"] if "context window" in f["message"]]
    assert warned == []  # apply rewrote the window in every client, crush/goose/zed's entries too


def test_doctor_names_a_hand_edited_window_and_the_way_back(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    gateway.model_limits = {"my-model": (32000, 4000)}
    gateway.limits_shape = "openrouter"
    add(gwconf, "gw", gateway.base_url, "--use")
    assert gwconf("models").exit_code == 0
    assert gwconf("apply", "codex").exit_code == 0
    config = home / ".codex" / "config.toml"
    assert codex_config(home)["model_context_window"] == 32000
    config.write_text(
        config.read_text().replace("model_context_window = 32000", "model_context_window = 1000000")
    )
    text = gwconf("doctor", "codex")
    assert "names a context window of 1,000,000 tokens" in text.stdout
    assert "fix: gwconf apply codex" in text.stdout
    assert text.exit_code == 0


def test_init_keeps_the_limits_the_gateway_told(gwconf, gateway: GatewayServer, home: Path) -> None:
    """init saves the model list under the profile's final name; the limits must go with it."""
    gateway.model_limits = {"my-model": (1000000, 64000)}
    gateway.limits_shape = "litellm"
    result = gwconf(
        "init", "--yes", "--name", "gw", "--base-url", gateway.base_url, "--key-stdin",
        "--model", "my-model", "--no-apply", input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    assert "from the gateway (GET /v1/model/info)" in gwconf("profile", "show", "gw").stdout
    assert gwconf("apply", "codex").exit_code == 0
    assert codex_config(home)["model_context_window"] == 1000000


def test_use_rewrites_the_limits_inside_the_model_entry_gwconf_wrote(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    """crush, goose and zed keep the model in an entry of their own list: `use` must not leave the
    last profile's numbers in it (issue 22: use rewrites the limits)."""
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "small", gateway.base_url, "--context-window", "32000", "--max-output-tokens", "4000")
    assert gwconf("apply", "crush", "goose").exit_code == 0
    assert gwconf("use", "small").exit_code == 0
    crush = json.loads((home / ".config" / "crush" / "crush.json").read_text())
    [entry] = crush["providers"]["gwconf"]["models"]
    assert (entry["context_window"], entry["default_max_tokens"]) == (32000, 4000)
    goose = json.loads((home / ".config" / "goose" / "custom_providers" / "custom_gwconf.json").read_text())
    assert goose["models"] == [{"name": "my-model", "context_limit": 32000}]
    assert gwconf("restore", "crush", "goose").exit_code == 0
    assert not (home / ".config" / "crush" / "crush.json").exists()


# -- the clients checked for issue 22's second round: pi, Droid, Cline, Roo Code, Qwen Code, Claude Code

MORE = ("pi", "factory-droid", "cline", "roo-code", "qwen-code", "claude-code")


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def _places(home: Path) -> dict[str, Path]:
    from gwconf import registry
    from gwconf.paths import Env

    roo = {f.role: f.path for f in registry.get("roo-code").files(Env.current())}["import"]
    return {
        "pi": home / ".pi" / "agent" / "models.json",
        "droid": home / ".factory" / "settings.json",
        "cline-models": home / ".cline" / "data" / "settings" / "models.json",
        "cline-state": home / ".cline" / "data" / "globalState.json",
        "roo": roo,
        "qwen": home / ".qwen" / "settings.json",
        "claude": home / ".claude" / "settings.json",
    }


def _limits_seen(home: Path) -> dict[str, object]:
    """What each of these clients' files says about the model's limits (None: nothing)."""
    at = _places(home)
    [pi] = _json(at["pi"])["providers"]["gwconf"]["models"]
    [droid] = [m for m in _json(at["droid"])["customModels"] if m["displayName"] == "gwconf"]
    models = _json(at["cline-models"]) if at["cline-models"].exists() else {}
    cline = models.get("providers", {}).get("openai-compatible", {}).get("models", {}).get("my-model")
    state = _json(at["cline-state"])
    roo = _json(at["roo"])["providerProfiles"]["apiConfigs"]["gwconf"].get("openAiCustomModelInfo")
    [qwen] = [e for e in _json(at["qwen"])["modelProviders"]["openai"] if e.get("envKey") == "GWCONF_API_KEY"]
    claude = _json(at["claude"])["env"]
    return {
        "pi": (pi.get("contextWindow"), pi.get("maxTokens")),
        "droid": droid.get("maxOutputTokens"),
        "cline": cline,
        "cline-state": [state.get(k) for k in ("actModeOpenAiModelInfo", "planModeOpenAiModelInfo")],
        "roo": roo,
        "qwen": qwen.get("generationConfig"),
        "claude": (claude.get("CLAUDE_CODE_MAX_CONTEXT_TOKENS"), claude.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")),
    }


def test_the_limits_reach_pi_droid_cline_roo_qwen_and_claude_code(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "gw", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use")
    applied = gwconf("apply", *MORE)
    assert applied.exit_code == 0, applied
    assert "default" not in applied.stdout
    seen = _limits_seen(home)
    assert seen["pi"] == (200000, 32000)
    assert seen["droid"] == 32000
    # Droid has no window setting: its compaction point for gwconf's model, the window less the output
    assert _json(_places(home)["droid"])["compactionTokenLimitPerModel"] == {"custom:gwconf-0": 168000}
    assert seen["cline"] == {"contextWindow": 200000, "maxTokens": 32000}
    assert _json(_places(home)["cline-models"])["version"] == 1  # StoredModelsFileSchema demands it
    info = {
        "maxTokens": 32000, "contextWindow": 200000, "supportsImages": True, "supportsPromptCache": False,
        "inputPrice": 0, "outputPrice": 0,
    }  # fmt: skip
    assert seen["cline-state"] == [{**info, "temperature": 0}] * 2
    assert seen["roo"] == info
    assert seen["qwen"] == {"contextWindowSize": 200000, "samplingParams": {"max_tokens": 32000}}
    assert seen["claude"] == ("200000", "32000")  # the env block holds strings


def test_unknown_limits_leave_these_clients_their_own_defaults(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    add(gwconf, "gw", gateway.base_url, "--use")
    applied = gwconf("apply", *MORE)
    assert applied.exit_code == 0, applied
    assert "default" not in applied.stdout  # none of them demands a number
    seen = _limits_seen(home)
    assert seen == {
        "pi": (None, None),
        "droid": None,  # no longer a silent 8192
        "cline": None,
        "cline-state": [None, None],
        "roo": None,
        "qwen": None,
        "claude": (None, None),
    }
    assert not _places(home)["cline-models"].exists()  # nothing to say: the file is not created
    assert "compactionTokenLimitPerModel" not in _json(_places(home)["droid"])  # Droid's 250000 stands


def test_use_rewrites_these_limits_beside_the_users_own_entries_and_restore_takes_them_back(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    at = _places(home)
    mine = {
        "cline-models": {
            "version": 1,
            "providers": {"ollama": {"models": {"qwen3": {"contextWindow": 32768}}}},
        },
        "qwen": {
            "modelProviders": {
                "openai": [
                    {"id": "local", "envKey": "MY_KEY", "generationConfig": {"contextWindowSize": 4096}}
                ]
            }
        },
        "claude": {"env": {"CLAUDE_CODE_MAX_TURNS": "40"}},
        "pi": {
            "providers": {"mine": {"baseUrl": "http://x/v1", "models": [{"id": "m", "contextWindow": 9}]}}
        },
    }
    for name, data in mine.items():
        at[name].parent.mkdir(parents=True, exist_ok=True)
        at[name].write_text(json.dumps(data, indent=2) + "\n")
    before = {name: at[name].read_text() for name in mine}
    add(
        gwconf,
        "big",
        gateway.base_url,
        "--context-window",
        "1000000",
        "--max-output-tokens",
        "64000",
        "--use",
    )
    add(gwconf, "small", gateway.base_url, "--context-window", "32000", "--max-output-tokens", "4000")
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", *MORE).exit_code == 0
    assert _limits_seen(home)["qwen"] == {
        "contextWindowSize": 1000000,
        "samplingParams": {"max_tokens": 64000},
    }
    assert gwconf("use", "small").exit_code == 0
    seen = _limits_seen(home)
    assert (seen["pi"], seen["droid"], seen["claude"]) == ((32000, 4000), 4000, ("32000", "4000"))
    assert seen["cline"] == {"contextWindow": 32000, "maxTokens": 4000}
    assert seen["roo"]["contextWindow"] == 32000 and seen["qwen"]["contextWindowSize"] == 32000
    # the user's own entries beside gwconf's stay as they were
    assert _json(at["cline-models"])["providers"]["ollama"] == mine["cline-models"]["providers"]["ollama"]
    assert _json(at["qwen"])["modelProviders"]["openai"][0] == mine["qwen"]["modelProviders"]["openai"][0]
    assert _json(at["claude"])["env"]["CLAUDE_CODE_MAX_TURNS"] == "40"
    assert _json(at["pi"])["providers"]["mine"] == mine["pi"]["providers"]["mine"]
    # a profile without limits takes gwconf's numbers out, empty tables with them
    assert gwconf("use", "unknown").exit_code == 0
    seen = _limits_seen(home)
    assert (seen["pi"], seen["droid"], seen["cline"], seen["roo"], seen["qwen"]) == (
        (None, None),
        None,
        None,
        None,
        None,
    )
    assert seen["claude"] == (None, None) and seen["cline-state"] == [None, None]
    assert gwconf("restore", *MORE).exit_code == 0
    for name in mine:
        assert at[name].read_text() == before[name], name


def test_doctor_reads_the_window_in_these_clients_files_too(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    gateway.model_limits = {"my-model": (32000, 4000)}
    gateway.limits_shape = "litellm"
    add(gwconf, "gw", gateway.base_url, "--context-window", "200000", "--use")
    assert gwconf("models").exit_code == 0  # the gateway's 32000, cached
    windowed = (
        "pi",
        "cline",
        "roo-code",
        "qwen-code",
        "claude-code",
        "nanocoder",
        "aichat",
        "mistral-vibe",
        "hermes",
        "openhands",
        "open-interpreter",
    )
    assert gwconf("apply", *windowed).exit_code == 0
    doctor = json.loads(gwconf("doctor", *windowed, "--json").stdout)
    for item in doctor["clients"]:
        [warning] = [f for f in item["findings"] if "context window" in f["message"]]
        assert "200,000 tokens for 'my-model'; the gateway says 32,000" in warning["message"], item["id"]


def test_copilot_gets_the_window_as_prompt_plus_output_or_named_defaults(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    """Copilot demands both numbers and takes the window as their sum (resolveModelInfo, 0.42)."""
    user = home / ".config" / "Code - Insiders" / "User"
    user.mkdir(parents=True)
    path = user / "chatLanguageModels.json"
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    applied = gwconf("apply", "copilot")
    assert applied.exit_code == 0 and "default" not in applied.stdout, applied
    [group] = _json(path)
    assert {k: group["models"][0][k] for k in ("maxInputTokens", "maxOutputTokens")} == {
        "maxInputTokens": 168000,
        "maxOutputTokens": 32000,
    }
    switched = gwconf("use", "unknown")
    assert switched.exit_code == 0, switched
    [group] = _json(path)
    assert (group["models"][0]["maxInputTokens"], group["models"][0]["maxOutputTokens"]) == (119808, 8192)
    said = " ".join(switched.stdout.split())
    assert "needs the model's context window" in said and "wrote gwconf's default 8192" in said
    assert gwconf("restore", "copilot").exit_code == 0
    assert not path.exists()


def test_copilot_cli_gets_the_limits_in_its_shell_block(gwconf, gateway: GatewayServer, home: Path) -> None:
    rc = home / ".bashrc"
    rc.write_text("# my bashrc\nexport EDITOR=vim\n")
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "copilot-cli").exit_code == 0
    text = rc.read_text()
    assert "COPILOT_PROVIDER_MAX_PROMPT_TOKENS" in text and "168000" in text  # the window less the output
    assert "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS" in text and "32000" in text
    assert gwconf("use", "unknown").exit_code == 0
    text = rc.read_text()
    assert "COPILOT_MODEL" in text and "MAX_PROMPT_TOKENS" not in text and "MAX_OUTPUT_TOKENS" not in text
    assert gwconf("restore", "copilot-cli").exit_code == 0
    assert rc.read_text() == "# my bashrc\nexport EDITOR=vim\n"


def test_nanocoder_gets_the_window_in_its_provider_entry(gwconf, gateway: GatewayServer, home: Path) -> None:
    path = home / ".config" / "nanocoder" / "agents.config.json"
    path.parent.mkdir(parents=True)
    mine = {
        "name": "local",
        "baseUrl": "http://localhost:11434/v1",
        "models": ["qwen3"],
        "contextWindow": 4096,
    }
    path.write_text(json.dumps({"nanocoder": {"providers": [mine]}}, indent=2) + "\n")
    before = path.read_text()
    add(gwconf, "big", gateway.base_url, "--context-window", "200000", "--use")
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "nanocoder").exit_code == 0
    providers = _json(path)["nanocoder"]["providers"]
    assert providers[0] == mine
    assert providers[1]["name"] == "gwconf" and providers[1]["contextWindow"] == 200000
    assert gwconf("use", "unknown").exit_code == 0
    assert "contextWindow" not in _json(path)["nanocoder"]["providers"][1]
    assert gwconf("restore", "nanocoder").exit_code == 0
    assert path.read_text() == before


def test_aichat_gets_the_limits_on_its_model_item(gwconf, gateway: GatewayServer, home: Path) -> None:
    import yaml

    path = home / ".config" / "aichat" / "config.yaml"
    path.parent.mkdir(parents=True)
    before = "# mine\nclients:\n  - type: openai\n    models:\n      - name: my-model\n        max_input_tokens: 4096\n"
    path.write_text(before)
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "aichat").exit_code == 0
    mine, ours = yaml.safe_load(path.read_text())["clients"]
    assert mine["models"] == [{"name": "my-model", "max_input_tokens": 4096}]  # the user's own client
    assert ours["models"] == [{"name": "my-model", "max_input_tokens": 200000, "max_output_tokens": 32000}]
    assert gwconf("use", "unknown").exit_code == 0
    assert yaml.safe_load(path.read_text())["clients"][1]["models"] == [{"name": "my-model"}]
    assert gwconf("restore", "aichat").exit_code == 0
    assert path.read_text() == before


def test_mistral_vibe_gets_the_limits_on_its_model_entry(gwconf, gateway: GatewayServer, home: Path) -> None:
    path = home / ".vibe" / "config.toml"
    path.parent.mkdir(parents=True)
    before = '# mine\n[[models]]\nname = "devstral"\nprovider = "mistral"\nalias = "devstral"\nmax_context_length = 4096\n'
    path.write_text(before)
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    mine, ours = tomllib.loads(path.read_text())["models"]
    assert mine["max_context_length"] == 4096 and "max_output_tokens" not in mine
    assert (ours["max_context_length"], ours["max_output_tokens"]) == (200000, 32000)
    assert gwconf("use", "unknown").exit_code == 0
    ours = tomllib.loads(path.read_text())["models"][1]
    assert "max_context_length" not in ours and "max_output_tokens" not in ours
    assert gwconf("restore", "mistral-vibe").exit_code == 0
    assert path.read_text() == before


def test_hermes_gets_the_limits_in_its_model_mapping(gwconf, gateway: GatewayServer, home: Path) -> None:
    import yaml

    path = home / ".hermes" / "config.yaml"
    path.parent.mkdir(parents=True)
    before = "# mine\nagent:\n  max_turns: 40\n"
    path.write_text(before)
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "hermes").exit_code == 0
    data = yaml.safe_load(path.read_text())
    assert (data["model"]["context_length"], data["model"]["max_tokens"]) == (200000, 32000)
    assert data["agent"] == {"max_turns": 40}
    assert gwconf("use", "unknown").exit_code == 0
    model = yaml.safe_load(path.read_text())["model"]
    assert "context_length" not in model and "max_tokens" not in model and model["provider"] == "custom"
    assert gwconf("restore", "hermes").exit_code == 0
    assert path.read_text() == before


def test_openhands_gets_the_limits_in_both_llm_settings(gwconf, gateway: GatewayServer, home: Path) -> None:
    path = home / ".openhands" / "agent_settings.json"
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "openhands").exit_code == 0
    data = _json(path)
    for llm in (data["llm"], data["condenser"]["llm"]):
        assert (llm["max_input_tokens"], llm["max_output_tokens"]) == (200000, 32000)
    assert gwconf("use", "unknown").exit_code == 0
    data = _json(path)
    for llm in (data["llm"], data["condenser"]["llm"]):
        assert "max_input_tokens" not in llm and "max_output_tokens" not in llm
    assert gwconf("restore", "openhands").exit_code == 0
    assert not path.exists()


def test_open_interpreter_gets_the_limits_in_its_profile(gwconf, gateway: GatewayServer, home: Path) -> None:
    import yaml

    path = _file_of("open-interpreter")
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "unknown", gateway.base_url)
    assert gwconf("apply", "open-interpreter").exit_code == 0
    llm = yaml.safe_load(path.read_text())["llm"]
    assert (llm["context_window"], llm["max_tokens"]) == (200000, 32000)
    assert gwconf("use", "unknown").exit_code == 0
    llm = yaml.safe_load(path.read_text())["llm"]
    assert "context_window" not in llm and "max_tokens" not in llm
    assert gwconf("restore", "open-interpreter").exit_code == 0
    assert not path.exists()


def test_droid_keeps_the_users_compaction_points_and_moves_gwconfs_with_its_entry(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    path = home / ".factory" / "settings.json"
    path.parent.mkdir(parents=True)
    mine = {"customModels": [], "compactionTokenLimitPerModel": {"claude-opus-4-7": 150000}}
    path.write_text(json.dumps(mine, indent=2) + "\n")
    before = path.read_text()
    add(
        gwconf, "big", gateway.base_url, "--context-window", "200000", "--max-output-tokens", "32000", "--use"
    )
    add(gwconf, "small", gateway.base_url, "--context-window", "32000", "--max-output-tokens", "4000")
    assert gwconf("apply", "factory-droid").exit_code == 0
    assert _json(path)["compactionTokenLimitPerModel"] == {
        "claude-opus-4-7": 150000,
        "custom:gwconf-0": 168000,
    }
    assert gwconf("use", "small").exit_code == 0
    assert _json(path)["compactionTokenLimitPerModel"] == {
        "claude-opus-4-7": 150000,
        "custom:gwconf-0": 28000,
    }
    assert gwconf("restore", "factory-droid").exit_code == 0
    assert path.read_text() == before
    # the user adds a model before gwconf's: its id becomes custom:gwconf-1, and the point moves with it
    assert gwconf("apply", "factory-droid").exit_code == 0
    data = _json(path)
    data["customModels"].insert(
        0, {"model": "x", "displayName": "Local", "provider": "generic-chat-completion-api"}
    )
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert gwconf("use", "big").exit_code == 0
    data = _json(path)
    assert data["sessionDefaultSettings"]["model"] == "custom:gwconf-1"
    assert data["compactionTokenLimitPerModel"] == {"claude-opus-4-7": 150000, "custom:gwconf-1": 168000}


def test_one_command_reads_the_model_cache_once_and_again_after_saving_it(tmp_path: Path) -> None:
    """Apply asks the cache for each client's limits: within one command's view it is read once
    (a list of hundreds of models was parsed for each of 37 clients), a save by the command is
    seen at once, and outside a view every call reads the file as it is now."""
    from gwconf import fileio, models
    from gwconf.paths import Env
    from gwconf.profiles import Profile

    env = Env(home=tmp_path, platform="linux", environ={"GWCONF_HOME": str(tmp_path / "gw")}, cwd=tmp_path)
    profile = Profile(name="gw", base_url="https://gw.example.com/v1")
    path = models.cache_file(env, "gw")

    def hand_write(window: int) -> None:  # another gwconf, or the user, between two looks
        data = {"base_url": profile.base_url, "models": ["m"], "limits": {"m": {"context_window": window}}}
        path.write_text(json.dumps(data))

    assert models.cached_limits(profile, env) == {}  # no cache yet
    models.save_cache(profile, env, ["m"], {"m": (1000, 100, "GET /v1/models")})
    with fileio.one_view():
        assert models.cached_limits(profile, env)["m"][0] == 1000
        assert models.cached(profile, env) == ["m"]
        hand_write(2000)
        assert models.cached_limits(profile, env)["m"][0] == 1000  # one look per command
        models.save_cache(profile, env, ["m", "n"], {"m": (3000, 100, "GET /v1/models")})
        assert models.cached_limits(profile, env)["m"][0] == 3000  # its own write, seen at once
        assert models.cached(profile, env) == ["m", "n"]
    hand_write(4000)
    assert models.cached_limits(profile, env)["m"][0] == 4000
    path.write_text("[" * 100_000)  # damaged past the parser's depth: no limits, no crash
    assert models.cached_limits(profile, env) == {} and models.cached(profile, env) is None


def test_aiders_metadata_file_keeps_its_comments_as_aider_reads_it_as_json5(
    gwconf, gateway: GatewayServer, home: Path
) -> None:
    """aider reads ``.aider.model.metadata.json`` with ``json5.loads``: users comment keys out in it
    (two of eight real dotfiles files did). Read as strict JSON, gwconf refused the whole apply."""
    metadata = home / ".aider.model.metadata.json"
    before = (
        "{\n"
        '    "openrouter/qwen/qwen3-coder": {\n'
        '        "max_input_tokens": 262144, // what the provider states\n'
        '        //"supports_function_calling": true,\n'
        '        "mode": "chat",\n'
        "    },\n"
        "}\n"
    )
    metadata.write_text(before)
    add(gwconf, "gw", gateway.base_url, *KNOWN_LIMITS, "--use")
    applied = gwconf("apply", "aider")
    assert applied.exit_code == 0, applied
    after = metadata.read_text()
    assert after.startswith(before[: before.index("    },")])  # the user's entry, comments and all
    assert '"openai/my-model": {' in after and '"max_input_tokens": 200000' in after
    restored = gwconf("restore", "aider")
    assert restored.exit_code == 0, restored
    assert metadata.read_text() == before
