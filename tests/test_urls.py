"""Base-address forms: what users paste, what each client gets (shared/reference/pitfalls.md section 4)."""

from __future__ import annotations

import pytest

from gwconf import urls
from gwconf.errors import ProfileError


@pytest.mark.parametrize(
    ("pasted", "canonical"),
    [
        ("https://gw.example.com", "https://gw.example.com/v1"),
        ("https://gw.example.com/", "https://gw.example.com/v1"),
        ("https://gw.example.com/v1", "https://gw.example.com/v1"),
        ("https://gw.example.com/v1/", "https://gw.example.com/v1"),
        ("https://gw.example.com/v1/chat/completions", "https://gw.example.com/v1"),
        ("https://gw.example.com/v1/responses", "https://gw.example.com/v1"),
        ("https://gw.example.com/v1/v1", "https://gw.example.com/v1"),
        ("  https://GW.example.com/v1  ", "https://gw.example.com/v1"),
        ("https://gw.example.com/openai", "https://gw.example.com/openai/v1"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
    ],
)
def test_normalize_accepts_what_users_paste(pasted: str, canonical: str) -> None:
    assert urls.normalize_base_url(pasted).url == canonical


def test_normalize_says_what_it_changed() -> None:
    result = urls.normalize_base_url("https://gw.example.com/v1/chat/completions")
    assert any("chat/completions" in c for c in result.changes)
    assert urls.normalize_base_url("https://gw.example.com").changes == [
        "added /v1 (the gateway's base address ends in /v1)"
    ]
    assert urls.normalize_base_url("https://gw.example.com/v1").changes == []


@pytest.mark.parametrize(
    "bad",
    [
        "ftp://gw.example.com/v1",
        "gw.example.com/v1",
        "https://user:pw@gw.example.com/v1",
        "https://gw.example.com/v1#frag",
        "https://gw.example.com/v1?x=1",
        "https://gw.exa mple.com/v1",
        "https:///v1",
    ],
)
def test_normalize_rejects(bad: str) -> None:
    with pytest.raises(ProfileError):
        urls.normalize_base_url(bad)


def test_plain_http_warns_except_loopback() -> None:
    assert urls.normalize_base_url("http://gw.example.com").warnings
    assert not urls.normalize_base_url("http://localhost:4000").warnings
    assert not urls.normalize_base_url("http://127.0.0.1:4000").warnings


def test_vendor_host_and_lookalike_warn() -> None:
    assert any("vendor" in w for w in urls.normalize_base_url("https://api.openai.com/v1").warnings)
    assert any("non-ASCII" in w for w in urls.normalize_base_url("https://gw.exаmple.com/v1").warnings)


def test_client_forms() -> None:
    base = "https://gw.example.com/v1"
    assert urls.root(base) == "https://gw.example.com"
    assert urls.with_slash(base) == "https://gw.example.com/v1/"
    assert urls.chat_endpoint(base) == "https://gw.example.com/v1/chat/completions"
    assert urls.host_only(base) == ("https://gw.example.com", "v1/chat/completions")


def test_base_problems() -> None:
    assert urls.base_problems("https://gw.example.com/v1", "v1") == []
    assert any("doubled" in p for p in urls.base_problems("https://gw.example.com/v1/v1", "v1"))
    assert any("vendor" in p for p in urls.base_problems("https://api.openai.com/v1", "v1"))
    assert any("/v1" in p for p in urls.base_problems("https://gw.example.com/v1", "root"))
    assert any(
        "endpoint" in p for p in urls.base_problems("https://gw.example.com/v1/chat/completions", "v1")
    )
    assert urls.base_problems(None, "v1")
