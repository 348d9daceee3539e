"""verify: is it the model asked for, how long it took, and several gateways side by side (issue 20)."""

from __future__ import annotations

import json

import pytest

from tests.gateway_server import VALID_KEY, GatewayServer


def test_a_reply_naming_another_model_is_flagged_not_failed(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    gateway.answer_model = "cheap-model"
    result = gwconf("verify", "--json")
    assert result.exit_code == 0, result
    check = json.loads(result.stdout)["results"][0]
    assert check["verdict"] == "ok"
    assert check["model"] == "my-model" and check["answered_model"] == "cheap-model"
    assert check["model_substituted"] is True
    assert isinstance(check["first_byte_ms"], int) and check["first_byte_ms"] <= check["total_ms"]
    text = gwconf("verify")
    assert text.exit_code == 0
    assert "warning  asked for my-model, the gateway answered as cheap-model" in text.stdout
    assert "timing   first byte " in text.stdout and " ms, total " in text.stdout


@pytest.mark.parametrize("answered", [None, "my-model-2025-01-31", "vendor/my-model"])
def test_the_same_model_under_a_dated_or_prefixed_name_is_not_flagged(
    gwconf, gateway: GatewayServer, gateway_profile, answered: str | None
) -> None:
    gateway.answer_model = answered
    check = json.loads(gwconf("verify", "--json").stdout)["results"][0]
    assert check["answered_model"] == (answered or "my-model")
    assert check["model_substituted"] is False
    assert "warning" not in gwconf("verify").stdout


@pytest.mark.parametrize("client", ["codex", "claude-code", "gemini-cli"])
def test_each_wire_reads_the_model_the_reply_names(
    gwconf, gateway: GatewayServer, gateway_profile, client
) -> None:
    assert gwconf("apply", client).exit_code == 0
    gateway.answer_model = "substitute-7b"
    result = gwconf("verify", client, "--json")
    check = json.loads(result.stdout)["results"][0]
    assert check["verdict"] == "ok", check
    assert check["answered_model"] == "substitute-7b" and check["model_substituted"] is True


def test_verify_compares_several_profiles_side_by_side(
    gwconf, gateway: GatewayServer, gateway_profile
) -> None:
    with GatewayServer(keys=("sk-other-gateway-000000000000",)) as other:
        other.answer_model = "cheap-model"
        assert gwconf(
            "profile", "add", "backup", "--base-url", other.base_url, "--model", "my-model",
            "--key-stdin", input="sk-other-gateway-000000000000\n",
        ).exit_code == 0  # fmt: skip
        assert gwconf(
            "profile", "add", "broken", "--base-url", other.base_url, "--model", "my-model",
            "--key-stdin", input="sk-wrong-key-0000000000000000\n",
        ).exit_code == 0  # fmt: skip
        result = gwconf("verify", "-p", "gw", "-p", "backup", "--json")
        assert result.exit_code == 0, result
        rows = json.loads(result.stdout)["profiles"]
        assert [(r["profile"], r["verdict"], r["answered_model"]) for r in rows] == [
            ("gw", "ok", "my-model"),
            ("backup", "ok", "cheap-model"),
        ]
        assert rows[0]["url"].startswith(gateway.base_url) and rows[1]["url"].startswith(other.base_url)
        text = gwconf("verify", "-p", "gw", "-p", "backup", "-p", "broken")
        assert text.exit_code == 3
        lines = text.stdout.splitlines()
        assert lines[0].split() == [
            "profile",
            "gateway",
            "verdict",
            "status",
            "first",
            "byte",
            "total",
            "model",
        ]
        assert lines[1].startswith("gw ") and " ok " in lines[1]
        assert lines[2].startswith("backup ") and "my-model → cheap-model (!)" in lines[2]
        assert lines[3].startswith("broken ") and "key rejected" in lines[3] and " 401 " in lines[3]
        assert "asked for my-model, the gateway answered as cheap-model" in text.stderr
        assert VALID_KEY not in text.stdout + text.stderr
    assert gwconf("verify", "codex", "-p", "gw", "-p", "backup").exit_code == 2
