"""Claude Code Router: the Providers element and Router.default, routes elsewhere, interpolation, the router process."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

from tests.clients._env import clean_client_env  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY


def test_fixture(gwconf, home: Path, profile: str) -> None:
    check_case("claude-code-router", "user-config", gwconf, home)


def config(home: Path) -> Path:
    return home / ".claude-code-router" / "config.json"


reading = partial(reading_of, "claude-code-router")


def test_apply_writes_the_full_chat_address_and_the_default_route(gwconf, home: Path, profile: str) -> None:
    applied = gwconf("apply", "claude-code-router")
    assert applied.exit_code == 0 and "Claude Code still works with this gateway" in applied.output
    data = json.loads(config(home).read_text())
    assert data["Providers"] == [
        {
            "name": "gwconf",
            "api_base_url": "https://gw.example.com/v1/chat/completions",
            "api_key": TEST_KEY,
            "models": ["my-model"],
        }
    ]
    assert data["Router"] == {"default": "gwconf,my-model"}
    status = json.loads(gwconf("status", "claude-code-router", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1/chat/completions",
        "sk-…WXYZ",
        "my-model",
    )
    assert reading().findings == []


def test_other_routes_and_unset_variables_are_named(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "claude-code-router").exit_code == 0
    data = json.loads(config(home).read_text())
    data["Router"]["think"] = "deepseek,deepseek-reasoner"
    data["Providers"][0]["api_key"] = "${GW_KEY}"
    config(home).write_text(json.dumps(data))
    text = messages(reading())
    assert 'Router.think is "deepseek,deepseek-reasoner"' in text and "$GW_KEY, which is not set" in text


def test_doctor_names_a_router_started_before_the_change(gwconf, home: Path, profile: str) -> None:
    applied = gwconf("apply", "claude-code-router")
    assert applied.exit_code == 0
    assert "no Anthropic-style address" in applied.output  # said by apply, which knows the profile
    pid_file = home / ".claude-code-router" / ".claude-code-router.pid"
    pid_file.write_text(str(os.getpid()))
    os.utime(pid_file, (1, 1))  # started long before config.json changed
    doctor = gwconf("doctor", "claude-code-router", "--json")
    entry = json.loads(doctor.stdout)["clients"][0]
    text = json.dumps(entry)
    assert "still routes the old way" in text and "ccr restart" in text


def test_a_providers_value_that_is_not_a_list_is_left_alone(gwconf, home: Path, profile: str) -> None:
    """The router cannot read a Providers object either; overwriting it would lose the user's providers."""
    config(home).parent.mkdir(parents=True)
    text = '{\n  // mine\n  Providers: {deepseek: {api_key: "sk-mine"}},\n  Router: {default: "deepseek,chat"},\n}\n'
    config(home).write_text(text)
    applied = gwconf("apply", "claude-code-router")
    assert applied.exit_code == 1
    assert "error: ~/.claude-code-router/config.json: `Providers` is not an array" in applied.output
    assert "Fix it by hand (Providers is a list of provider objects)" in applied.output
    assert config(home).read_text() == text


def test_a_lowercase_providers_list_stays_the_one_the_router_reads(gwconf, home: Path, profile: str) -> None:
    """ccr 2.0.0 reads ``Providers``, else ``providers``: gwconf's entry joins the lowercase list,
    so the user's providers (and the routes naming them) stay in use."""
    config(home).parent.mkdir(parents=True)
    mine = {
        "name": "deepseek",
        "api_base_url": "https://api.deepseek.com/chat/completions",
        "api_key": "x",
        "models": ["d"],
    }
    config(home).write_text(json.dumps({"providers": [mine], "Router": {"think": "deepseek,d"}}, indent=2))
    assert gwconf("apply", "claude-code-router").exit_code == 0
    data = json.loads(config(home).read_text())
    assert "Providers" not in data
    assert [p["name"] for p in data["providers"]] == ["deepseek", "gwconf"]
    assert data["Router"] == {"think": "deepseek,d", "default": "gwconf,my-model"}
    found = reading()
    assert found.provider_is_gwconf and found.base_url.endswith("/chat/completions")


def test_a_projects_own_router_is_named(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "claude-code-router").exit_code == 0
    project = home / ".claude-code-router" / "-home-me-repo"
    project.mkdir()
    (project / "config.json").write_text(json.dumps({"Router": {"default": "deepseek,d"}}))
    (home / ".claude-code-router" / "logs").mkdir()
    assert "-home-me-repo/config.json has a Router of its own" in messages(reading())
    (project / "config.json").write_text(json.dumps({"Router": {"default": "gwconf,my-model"}}))
    assert "Router of its own" not in messages(reading())
