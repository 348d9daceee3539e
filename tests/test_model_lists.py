"""Model lists as real gateways answer them: ``GET /models`` is a check, not the gateway (the spec
does not define it), so a list that fails, is large, empty, odd or hostile must neither stop ``init``
nor crash ``models``, nor put what it says into a client's file unchecked.

Each test runs the real commands against a loopback gateway whose list answers as the case needs
(``ListGateway``: the test gateway with ``GET /v1/models`` and ``/v1/model/info`` replaced).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import assert_nothing_saved, init_yes
from tests.gateway_fixtures import add_gateway_profile
from tests.gateway_server import VALID_KEY, Answer, GatewayServer
from tests.terminal import run_on_a_terminal

NGINX_502 = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
)
CLOUDFLARE_524 = (
    b"<!DOCTYPE html>\n<html><head><title>gw | 524: A timeout occurred</title></head><body>"
    b'<div id="cf-error-details"><h1>A timeout occurred</h1><span class="cf-error-code">524</span> '
    b"Cloudflare Ray ID: 8a1b2c3d4e5f</div></body></html>\n"
)


def _json(status: int, data: Any) -> Answer:
    return Answer(status, json.dumps(data).encode(), "application/json")


class ListGateway(GatewayServer):
    """The test gateway, with ``listing`` (and ``info``) answering for its list when set."""

    def __init__(self, listing: Answer | None = None, info: Answer | None = None) -> None:
        super().__init__(keys=(VALID_KEY,))
        self.listing, self.info = listing, info

    def _list_models(self, request: Any) -> Answer:
        return self.listing if self.listing is not None else super()._list_models(request)

    def _model_info(self, request: Any) -> Answer:
        return self.info if self.info is not None else super()._model_info(request)


def _init(gwconf, base_url: str, *extra: str, key: str = VALID_KEY) -> Any:
    """init as this file's tests run it: profile t, no client, a short timeout."""
    return init_yes(base_url, "--no-apply", "--timeout", "2", *extra, key=key, name="t")


def _saved(gwconf) -> list[dict[str, Any]]:
    return json.loads(gwconf("profile", "list", "--json").stdout)["profiles"]


# -- A. init: a failed list is a warning, the chat request decides --------------------------------

FAILED_LISTS = {
    "nginx-502": (Answer(502, NGINX_502, "text/html"), "HTTP 502, gateway error"),
    "cloudflare-524": (Answer(524, CLOUDFLARE_524, "text/html"), "HTTP 524, gateway error"),
    "403": (
        _json(403, {"error": {"message": "not allowed to list models", "type": "permission_error"}}),
        "HTTP 403",
    ),
    # an error sent as a 200 is read as verify reads it (one-api's {"code": 401, ...} is a 401)
    "data-null-error": (_json(200, {"error": {"message": "boom"}}), "HTTP 200, gateway error"),
    "nested-too-deep": (Answer(200, b'{"data": ' + b"[" * 100000 + b"]" * 100000 + b"}"), "HTTP 200, but no"),
    "gemini-native": (
        _json(200, {"models": [{"name": "models/gemini-x", "inputTokenLimit": 1048576}]}),
        "HTTP 200, but no model list",
    ),
    "401-chat-ok": (
        _json(401, {"error": {"message": "Authentication Error", "type": "auth_error", "code": "401"}}),
        "refused the key",
    ),
}


@pytest.mark.parametrize("case", sorted(FAILED_LISTS))
def test_init_saves_a_gateway_whose_chat_works_when_its_list_fails(gwconf, home: Path, case: str) -> None:
    listing, said = FAILED_LISTS[case]
    with ListGateway(listing) as server:
        result = _init(gwconf, server.base_url, "--model", "my-model")
        assert result.exit_code == 0, result
        assert server.requests_to("/v1/chat/completions"), "the chat request decides"
        url = server.base_url + "/models"
    [warning] = [line for line in result.stderr.splitlines() if "model list" in line]  # one line
    assert warning.startswith("warning: ") and said in warning and url in warning
    assert "Nothing was saved" not in result.output and "verdict  ok" in result.stdout
    assert [(p["name"], p["model"]) for p in _saved(gwconf)] == [("t", "my-model")]


def test_init_saves_when_the_list_hangs(gwconf, home: Path, gateway: GatewayServer) -> None:
    gateway.set_fault("slow", path="/v1/models", delay=30)
    result = _init(gwconf, gateway.base_url, "--model", "my-model")
    assert result.exit_code == 0, result
    assert "GET " + gateway.base_url + "/models: timeout, no answer within 2 s" in result.stderr
    assert [p["name"] for p in _saved(gwconf)] == ["t"]


def test_init_without_a_model_and_an_unreadable_list_saves_nothing(gwconf, home: Path) -> None:
    """Nothing checked the key or the address (found by the newcomer sweep: such a gateway was
    saved, and init exited 0): without a model to try, nothing is saved."""
    with ListGateway(Answer(502, NGINX_502, "text/html")) as server:
        result = _init(gwconf, server.base_url)
    assert_nothing_saved(result, 4)
    assert "give the model: --model MODEL" in result.stderr


def test_init_saves_and_applies_nothing_its_check_shows_broken(
    gwconf, home: Path, gateway: GatewayServer
) -> None:
    """The newcomer sweep: a console page for an address, a closed port and a model the gateway
    does not serve were each saved and applied to every client found."""
    aider = home / ".aider.conf.yml"
    aider.write_text("dark-mode: true\n")
    with ListGateway(Answer(200, b"<!DOCTYPE html><html><body>console</body></html>", "text/html")) as server:
        server.answer = lambda request: Answer(200, b"<!DOCTYPE html><html>console</html>", "text/html")
        console = _init(gwconf, server.url + "/console/token", "--model", "my-model")
    closed = _init(gwconf, "http://127.0.0.1:9/v1", "--model", "my-model")
    gateway.models = {"my-model"}
    typo = init_yes(gateway.base_url, "--model", "my-modle", "--timeout", "2", name="t")
    for result, code in ((console, 4), (closed, 4), (typo, 4)):
        assert result.exit_code == code and "Nothing was saved." in result.stderr, result
    assert "does not list 'my-modle', and a chat request with it failed" in typo.stderr
    assert _saved(gwconf) == [] and aider.read_text() == "dark-mode: true\n"


def test_init_without_a_model_applies_nothing(gwconf, home: Path, gateway: GatewayServer) -> None:
    gateway.models = {"a", "b"}
    aider = home / ".aider.conf.yml"
    aider.write_text("dark-mode: true\n")
    result = init_yes(gateway.base_url, "--timeout", "2", name="t")
    assert result.exit_code == 0, result
    assert "No model chosen: add one with gwconf profile set t --model MODEL" in result.stdout
    assert aider.read_text() == "dark-mode: true\n"


def test_init_keeps_the_key_verdict_when_chat_rejects_the_key_too(gwconf, home: Path) -> None:
    with ListGateway() as server:  # a key it does not know: 401 for the list and for chat
        result = _init(gwconf, server.base_url, "--model", "my-model", key="sk-wrong-0123456789abcdef")
        assert server.requests_to("/v1/chat/completions"), "chat was asked before the key was judged"
    assert_nothing_saved(result, 3)
    assert "key rejected" in result.output and "sk-wrong-0123456789abcdef" not in result.output


def test_init_without_a_model_on_a_list_refusing_the_key_says_how_to_try_it(gwconf, home: Path) -> None:
    listing = _json(401, {"error": {"message": "Authentication Error", "type": "auth_error", "code": "401"}})
    with ListGateway(listing) as server:
        result = _init(gwconf, server.base_url)
    assert_nothing_saved(result, 3)
    assert "--model MODEL" in result.stderr


# -- B. large lists, null lists ------------------------------------------------------------------------


def _openrouter_like(count: int) -> dict[str, Any]:
    entry = {
        "description": "A long description of the model. " * 20,
        "context_length": 131072,
        "pricing": {"prompt": "0.000001", "completion": "0.000002"},
        "top_provider": {"context_length": 131072, "max_completion_tokens": 8192},
    }
    return {"data": [{"id": f"vendor/model-{i:04d}", **entry} for i in range(count)] + [{"id": "my-model"}]}


def test_a_list_the_size_of_openrouters_is_read_whole(gwconf, home: Path) -> None:
    body = json.dumps(_openrouter_like(1500)).encode()
    assert len(body) > 1.2e6  # OpenRouter's real list is about 1.3 MB
    with ListGateway(Answer(200, body)) as server:
        add_gateway_profile(server.base_url, name="t")
        result = gwconf("models", "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert len(data["models"]) == 1501 and data["limits"]["vendor/model-1499"]["context_window"] == 131072


def test_a_list_beyond_the_cap_is_too_large_not_a_wrong_address(gwconf, home: Path) -> None:
    from gwconf.models import LIST_MAX_BODY

    body = b'{"data": [' + b'{"id": "m"},' * (LIST_MAX_BODY // 12 + 10) + b'{"id": "m"}]}'
    with ListGateway(Answer(200, body)) as server:
        add_gateway_profile(server.base_url, name="t")
        result = gwconf("models")
    assert result.exit_code == 4, result
    assert "larger than 16 MiB" in result.stderr and "address" not in result.stderr


def test_a_null_list_is_an_empty_one(gwconf, home: Path) -> None:
    shown = {}
    for data in ({"object": "list", "data": []}, {"object": "list", "data": None}):
        with ListGateway(_json(200, data)) as server:
            add_gateway_profile(server.base_url, name="t")
            text, as_json = gwconf("models"), gwconf("models", "--json")
            assert gwconf("profile", "remove", "t").exit_code == 0
        assert (text.exit_code, as_json.exit_code) == (0, 0), (text, as_json)
        assert json.loads(as_json.stdout)["models"] == []
        shown[str(data["data"])] = (text.stdout, text.stderr)
    assert shown["None"] == shown["[]"]
    assert "the gateway lists no models" in shown["None"][1]


# -- C. bodies nested too deep to read ---------------------------------------------------------------

DEEP = b"[" * 100000 + b"]" * 100000


def test_a_list_nested_too_deep_is_unreadable_not_a_crash(gwconf, home: Path) -> None:
    with ListGateway(Answer(200, b'{"data": ' + DEEP + b"}")) as server:
        add_gateway_profile(server.base_url, name="t")
        result = gwconf("models")
        assert result.exit_code == 4, result
    assert "malformed success" in result.stderr and "unexpected error" not in result.output


def test_model_info_nested_too_deep_gives_no_limits_not_a_crash(gwconf, home: Path) -> None:
    with ListGateway(info=Answer(200, b'{"data": ' + DEEP + b"}")) as server:
        add_gateway_profile(server.base_url, name="t")
        result = gwconf("models", "--json")
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["models"] == ["my-model"]


# -- D. absurd limits ------------------------------------------------------------------------------------


def test_absurd_limits_from_the_list_reach_no_client(gwconf, home: Path) -> None:
    listing = _json(
        200,
        {
            "data": [
                {"id": "my-model", "context_length": 10**30, "top_provider": {"max_completion_tokens": 1e30}},
                {"id": "big", "context_window": 2**31, "max_output_tokens": 1.5},
                {"id": "long", "context_length": 10_000_000, "max_output_tokens": 131072.0},
            ]
        },
    )
    with ListGateway(listing) as server:
        add_gateway_profile(server.base_url, name="t")
        data = json.loads(gwconf("models", "--json").stdout)
        assert data["limits"] == {
            "long": {"context_window": 10_000_000, "max_output_tokens": 131072, "source": "GET /v1/models"}
        }
        applied = gwconf("apply", "codex", "claude-code", "crush")
        assert applied.exit_code == 0, applied
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert "model_context_window" not in codex
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert "CLAUDE_CODE_MAX_CONTEXT_TOKENS" not in settings.get("env", {})
    crush = json.loads((home / ".config" / "crush" / "crush.json").read_text())
    [model] = crush["providers"]["gwconf"]["models"]
    assert model["context_window"] == 128000  # gwconf's stated default, not 10**30


def test_a_cache_or_profile_with_absurd_limits_writes_none_of_them(
    gwconf, home: Path, tmp_path: Path
) -> None:
    with ListGateway() as server:
        add_gateway_profile(server.base_url, name="t")
        cache = tmp_path / "gwconf" / "state" / "models" / "t.json"
        cache.parent.mkdir(parents=True, exist_ok=True)
        limits = {"context_window": 10**30, "max_output_tokens": 2**63, "source": "GET /v1/models"}
        cache.write_text(
            json.dumps({"base_url": server.base_url, "models": ["my-model"], "limits": {"my-model": limits}})
        )
        assert gwconf("apply", "codex").exit_code == 0
        assert "model_context_window" not in tomllib.loads((home / ".codex" / "config.toml").read_text())
        refused = gwconf("profile", "set", "t", "--context-window", str(2**31))
        assert refused.exit_code == 2, refused
    profile = tmp_path / "gwconf" / "profiles" / "t.toml"
    profile.write_text(profile.read_text() + f"context_window = {2**40}\n")
    shown = gwconf("profile", "show", "t")
    assert shown.exit_code == 1 and "more tokens than any model has" in shown.stderr, shown


# -- E. ids no client can be given ----------------------------------------------------------------------

HOSTILE = [
    "\x1b]0;pwned\x07",
    "evil\x1b[2J",
    "clip\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "c1\x9bmodel",
    "del\x7f",
    "",
]


def test_ids_with_control_characters_are_left_out_of_the_list(gwconf, home: Path) -> None:
    listing = _json(200, {"data": [{"id": i, "context_length": 1000} for i in [*HOSTILE, "my-model"]]})
    with ListGateway(listing) as server:
        add_gateway_profile(server.base_url, name="t")
        data = json.loads(gwconf("models", "--json").stdout)
        text = gwconf("models")
    assert data["models"] == ["my-model"] and list(data["limits"]) == ["my-model"]
    assert text.stdout.startswith("my-model") and "\x1b" not in text.output
    assert "left out 6 listed ids with a control character" in text.stderr


def test_init_never_takes_a_hostile_id_as_the_model(gwconf, home: Path) -> None:
    with ListGateway(_json(200, {"data": [{"id": "\x1b]0;pwned\x07gpt"}]})) as server:
        result = _init(gwconf, server.base_url)
    assert result.exit_code == 0, result
    assert [(p["name"], p["model"]) for p in _saved(gwconf)] == [("t", None)]


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_init_on_a_terminal_asks_for_a_model_when_the_list_refuses_the_key(home: Path) -> None:
    """On a terminal the model is asked after the list, so a list closed to the key stopped the
    guided run although the key may chat: now it asks for a model to try, and chat decides."""
    import os

    listing = _json(401, {"error": {"message": "Authentication Error", "type": "auth_error", "code": "401"}})
    with ListGateway(listing) as server:
        answers = [
            ("Gateway base address", server.base_url),
            ("Gateway key", VALID_KEY),
            ("Model to try", "my-model"),
            ("Name for this profile", "work"),
        ]
        code, text = run_on_a_terminal(["init", "--no-apply"], answers, dict(os.environ))
        asked_chat = bool(server.requests_to("/v1/chat/completions"))
    assert code == 0, text
    assert answers == [] and asked_chat, text
    assert "model list refused the key" in text and "Saved profile 'work'" in text
    assert [p["model"] for p in _saved_in(home)] == ["my-model"]


def _saved_in(home: Path) -> list[dict[str, Any]]:
    folder = home.parent / "gwconf" / "profiles"
    return [tomllib.loads(path.read_text()) for path in sorted(folder.glob("*.toml"))]


@pytest.mark.parametrize(
    "pasted", [f'"{VALID_KEY}"', f"  {VALID_KEY} ", f"Bearer {VALID_KEY}", f"'{VALID_KEY}'"]
)
def test_init_leaves_out_what_a_paste_carries_around_the_key(
    gwconf, home: Path, gateway: GatewayServer, pasted: str
) -> None:
    """The newcomer sweep: a quoted key was warned about and sent with its quotes (401), and a
    key with a blank or a ``Bearer`` before it was refused with a remedy naming a profile that
    was never saved."""
    result = _init(gwconf, gateway.base_url, "--model", "my-model", key=pasted)
    assert result.exit_code == 0, result
    assert "more around it; gwconf keeps sk-…KLMN alone" in result.stderr
    profile = home.parent / "gwconf" / "profiles" / "t.toml"
    assert tomllib.loads(profile.read_text())["key"] == VALID_KEY
    assert VALID_KEY not in result.output


def test_a_vendors_own_key_is_named(gwconf, home: Path, gateway: GatewayServer) -> None:
    result = _init(gwconf, gateway.base_url, "--model", "my-model", key="sk-proj-0123456789abcdefghijWXYZ")
    assert result.exit_code == 3, result
    assert "has the shape of a vendor's own key" in result.stderr


def test_init_does_not_say_done_when_a_client_was_not_set_up(
    gwconf, home: Path, gateway: GatewayServer
) -> None:
    """The newcomer sweep: with a trailing comma in Claude Code's settings.json, init named the
    error well, then ended with "Done." and exit 0, one client of two untouched."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{\n  "theme": "dark",\n}\n')
    (home / ".aider.conf.yml").write_text("dark-mode: true\n")
    result = init_yes(gateway.base_url, "--model", "my-model", "--timeout", "5", name="t")
    assert result.exit_code == 1, result
    assert "Done." not in result.output
    assert (
        "Not set up: claude-code (see above). Fix what is named, then: gwconf apply claude-code"
        in result.stdout
    )
    assert "openai-api-base" in (home / ".aider.conf.yml").read_text()


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs a pseudo-terminal")
def test_init_on_a_terminal_asks_again_for_a_name_it_cannot_use(home: Path, gateway: GatewayServer) -> None:
    """The newcomer sweep: a name refused ("My Work!"), or "no" to replacing a profile, ended the
    guided run with every answer lost; now the name is asked again."""
    import os

    folder = home.parent / "gwconf" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "work.toml").write_text(
        f'base_url = "{gateway.base_url}"\nmodel = "old"\nkey = "{VALID_KEY}"\n'
    )
    answers = [
        ("Gateway base address", gateway.base_url),
        ("Gateway key", VALID_KEY),
        ("Model (number or name)", "1"),
        ("Name for this profile", "My Work!"),
        ("Name for this profile", "work"),
        ("Replace it?", "n"),
        ("Name for this profile [work-2]", ""),
    ]
    code, text = run_on_a_terminal(["init", "--no-apply"], answers, dict(os.environ))
    assert code == 0, text
    assert answers == [] and "profile name 'My Work!' is not allowed" in text, text
    assert "Saved profile 'work-2'" in text
    assert 'model = "old"' in (folder / "work.toml").read_text()


def test_init_never_tells_to_fix_a_profile_it_did_not_save(gwconf, home: Path) -> None:
    result = _init(gwconf, "https://api.openai.com/v1")
    assert result.exit_code != 0 and "Nothing was saved." in result.stderr
    assert "run gwconf init again, with --base-url URL" in result.output
    assert "gwconf profile set" not in result.output
