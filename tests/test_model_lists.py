"""Model lists as real gateways answer them: ``GET /models`` is a check, not the gateway (the spec
does not define it), so a list that fails, is large, empty, odd or hostile must neither stop ``init``
nor crash ``models``, nor put what it says into a client's file unchecked.

Each test runs the real commands against a loopback gateway whose list answers as the case needs
(``ListGateway``: the test gateway with ``GET /v1/models`` and ``/v1/model/info`` replaced).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.gateway_server import VALID_KEY, Answer, GatewayServer

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
    return gwconf(
        "init", "--yes", "--name", "t", "--base-url", base_url, "--key-stdin", "--no-apply",
        "--timeout", "2", *extra, input=key + "\n",
    )  # fmt: skip


def _saved(gwconf) -> list[dict[str, Any]]:
    return json.loads(gwconf("profile", "list", "--json").stdout)["profiles"]


def _add(gwconf, base_url: str) -> None:
    result = gwconf(
        "profile", "add", "t", "--base-url", base_url, "--model", "my-model", "--key-stdin", "--use",
        input=VALID_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result


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
        _add(gwconf, server.base_url)
        result = gwconf("models", "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert len(data["models"]) == 1501 and data["limits"]["vendor/model-1499"]["context_window"] == 131072


def test_a_list_beyond_the_cap_is_too_large_not_a_wrong_address(gwconf, home: Path) -> None:
    from gwconf.models import LIST_MAX_BODY

    body = b'{"data": [' + b'{"id": "m"},' * (LIST_MAX_BODY // 12 + 10) + b'{"id": "m"}]}'
    with ListGateway(Answer(200, body)) as server:
        _add(gwconf, server.base_url)
        result = gwconf("models")
    assert result.exit_code == 4, result
    assert "larger than 16 MiB" in result.stderr and "address" not in result.stderr


def test_a_null_list_is_an_empty_one(gwconf, home: Path) -> None:
    shown = {}
    for data in ({"object": "list", "data": []}, {"object": "list", "data": None}):
        with ListGateway(_json(200, data)) as server:
            _add(gwconf, server.base_url)
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
        _add(gwconf, server.base_url)
        result = gwconf("models")
        assert result.exit_code == 4, result
    assert "malformed success" in result.stderr and "unexpected error" not in result.output


def test_model_info_nested_too_deep_gives_no_limits_not_a_crash(gwconf, home: Path) -> None:
    with ListGateway(info=Answer(200, b'{"data": ' + DEEP + b"}")) as server:
        _add(gwconf, server.base_url)
        result = gwconf("models", "--json")
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["models"] == ["my-model"]
