"""Import links: Cherry Studio and Chatbox links round-trip; CC Switch links are checked field by field."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

from gwconf import ccswitch as incoming
from gwconf import links
from gwconf.errors import ProfileError
from tests.conftest import TEST_KEY

# -- links out: decoded the way each app decodes them -------------------------------------------


def _node_base64(data: str) -> bytes:
    """Node's Buffer.from(x, 'base64'): both alphabets, anything else skipped."""
    data = data.replace("-", "+").replace("_", "/")
    data = "".join(ch for ch in data if ch.isalnum() or ch in "+/")
    return base64.b64decode(data + "=" * (-len(data) % 4))


def cherry_studio_reads(url: str) -> list[dict]:
    """What each Cherry Studio generation makes of the link (handle-providers.ts, several versions)."""
    query = urlsplit(url).query
    oldest = _node_base64(parse_qs(query)["data"][0])  # URLSearchParams, then Buffer
    swapped = parse_qs(query.replace("+", "_").replace("/", "-"))["data"][0]  # '+'->'_', '/'->'-' first
    newer = _node_base64(swapped).decode().replace("'", '"').replace("(", "").replace(")", "")
    renderer = base64.b64decode(swapped.replace("_", "+").replace("-", "/") + "==")  # mapped back, atob
    return [json.loads(oldest), json.loads(newer), json.loads(renderer)]


def chatbox_reads(url: str) -> dict:
    """URLSearchParams.get('config'), spaces back into '+', then base64 (js-base64)."""
    config = parse_qs(urlsplit(url).query)["config"][0].replace(" ", "+")
    return json.loads(base64.b64decode(config + "=" * (-len(config) % 4)))


def _link(gwconf, app: str, *args: str) -> str:
    result = gwconf("link", app, "--show-key", *args)
    assert result.exit_code == 0, result
    return result.stdout.splitlines()[-1]


def test_cherry_studio_link_round_trips(gwconf, profile) -> None:
    url = _link(gwconf, "cherry-studio")
    assert url.startswith("cherrystudio://providers/api-keys?v=1&data=")
    first, *others = cherry_studio_reads(url)
    assert others == [first, first]
    payload = first
    assert payload == {
        "id": "gwconf",
        "name": "gwconf gateway",
        "type": "openai",
        "baseUrl": "https://gw.example.com/v1/",
        "apiKey": TEST_KEY,
    }
    assert links.decode(url) == ("cherrystudio", payload)


def test_chatbox_link_round_trips(gwconf, profile) -> None:
    url = _link(gwconf, "chatbox")
    assert url.startswith("chatbox://provider/import?config=")
    assert url.split("config=")[1].isalnum(), "nothing any decoder could read differently"
    payload = chatbox_reads(url)
    assert payload["type"] == "openai" and payload["isCustom"] is True and payload["id"] == "gwconf"
    assert payload["settings"]["apiHost"] == "https://gw.example.com/v1"
    assert payload["settings"]["apiKey"] == TEST_KEY
    assert payload["settings"]["models"][0]["modelId"] == "my-model"
    assert links.decode(url) == ("chatbox", payload)


@pytest.mark.parametrize("odd", [">?~", "'()", "é漢", "+/="])
def test_awkward_characters_survive_every_decoder(odd: str, gwconf) -> None:
    key = f"sk-{odd}0123456789{odd}abc"
    path = "".join(ch for ch in odd if ch not in "?/=")  # a base address holds no query
    base = f"https://gw.example.com/{path}x/v1"
    gwconf("profile", "add", "odd", "--base-url", base, "--model", f"m{odd}", "--key", key, "--use")
    url = _link(gwconf, "chatbox")
    assert url.split("config=")[1].isalnum()
    settings = chatbox_reads(url)["settings"]
    assert (settings["apiKey"], settings["models"][0]["modelId"]) == (key, f"m{odd}")
    for payload in cherry_studio_reads(_link(gwconf, "cherry-studio")):
        assert payload["apiKey"] == key and payload["baseUrl"].startswith("https://gw.example.com/")


@pytest.mark.parametrize("app", ["cherry-studio", "chatbox"])
def test_without_show_key_neither_key_nor_link_is_printed(app: str, gwconf, profile) -> None:
    result = gwconf("link", app)
    assert result.exit_code == 0, result
    assert TEST_KEY not in result.output and "sk-…WXYZ" in result.stdout
    assert "data=" not in result.output and "config=" not in result.output
    assert "--show-key" in result.stdout and "--open" in result.stdout
    data = json.loads(gwconf("link", app, "--json").stdout)
    assert data["link"] is None and TEST_KEY not in json.dumps(data)
    shown = json.loads(gwconf("link", app, "--json", "--show-key").stdout)
    assert links.decode(shown["link"])[0] == app.replace("-", "")


def test_only_apps_with_an_import_link_are_offered(gwconf, profile) -> None:
    """Each client module declares its own link; asking another client for one names those that have."""
    from gwconf.cli._common import link_apps

    assert link_apps() == ("chatbox", "cherry-studio")
    result = gwconf("link", "codex")
    assert result.exit_code == 2, result
    assert "no import link for 'codex'. Codex CLI has no import link." in result.stderr
    assert "chatbox, cherry-studio" in result.stderr
    typo = gwconf("link", "chatbx")
    assert typo.exit_code == 2 and "Did you mean 'chatbox'?" in typo.stderr, typo


def _fake_opener(folder: Path, exit_code: int = 0) -> Path:
    folder.mkdir()
    record = folder / "opened.txt"
    script = folder / "xdg-open"
    script.write_text(f'#!/bin/sh\nprintf %s "$1" > "{record}"\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return record


def test_open_hands_the_link_over_without_printing_it(gwconf, profile, tmp_path, monkeypatch) -> None:
    record = _fake_opener(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    result = gwconf("link", "cherry-studio", "--open")
    assert result.exit_code == 0, result
    assert "xdg-open" in result.stdout and "confirm" in result.stdout
    assert TEST_KEY not in result.output and "data=" not in result.output
    assert cherry_studio_reads(record.read_text())[0]["apiKey"] == TEST_KEY


def test_open_failures_say_what_to_do(gwconf, profile, tmp_path, monkeypatch) -> None:
    _fake_opener(tmp_path / "bin", exit_code=3)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    failed = gwconf("link", "chatbox", "--open")
    assert failed.exit_code == 1 and "exited 3" in failed.stderr and "--show-key" in failed.stderr
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    missing = gwconf("link", "chatbox", "--open")
    assert missing.exit_code == 1 and "xdg-open was not found" in missing.stderr
    assert TEST_KEY not in failed.output + missing.output


# -- CC Switch links in ----------------------------------------------------------------------------

KEY = "sk-ccswitch0123456789abcdEFGH"


def ccswitch(**fields: str) -> str:
    base = {
        "resource": "provider",
        "app": "codex",
        "name": "My Codex",
        "endpoint": "https://gw.example.com/v1",
        "apiKey": KEY,
        "model": "gpt-5",
        "homepage": "https://gw.example.com",
        "enabled": "true",
    }
    base.update(fields)
    return "ccswitch://v1/import?" + urlencode({k: v for k, v in base.items() if v is not None})


def test_new_api_codex_link_becomes_a_profile(gwconf) -> None:
    result = gwconf("profile", "import-link", "-", "--use", input=ccswitch())
    assert result.exit_code == 0, result
    assert KEY not in result.output and "sk-…EFGH" in result.stdout
    shown = json.loads(gwconf("profile", "show", "my-codex", "--json", "--show-key").stdout)
    assert shown["base_url"] == "https://gw.example.com/v1" and shown["model"] == "gpt-5"
    assert shown["key"] == KEY and shown["key_source"] == "inline"
    assert json.loads(gwconf("profile", "list", "--json").stdout)["active"] == "my-codex"


def test_claude_link_keeps_the_anthropic_root(gwconf) -> None:
    link = ccswitch(app="claude", name="My Claude", endpoint="https://gw.example.com", sonnetModel="s")
    result = gwconf("profile", "import-link", link, "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert (
        data["anthropic_base_url"] == "https://gw.example.com"
        and data["base_url"] == "https://gw.example.com/v1"
    )
    assert any("Anthropic-style" in w for w in data["warnings"])
    assert any(i.startswith("sonnetModel") for i in data["ignored"])
    assert "shell history" in result.stderr, "a key on the command line is called out"


def test_dry_run_name_and_existing_profiles(gwconf) -> None:
    dry = gwconf("profile", "import-link", "-", "--dry-run", input=ccswitch(name="高速 Relay!"))
    assert dry.exit_code == 0 and "relay" in dry.stdout and "nothing was saved" in dry.stdout
    assert json.loads(gwconf("profile", "list", "--json").stdout)["profiles"] == []
    assert gwconf("profile", "import-link", "-", input=ccswitch(name="高速")).exit_code == 0
    assert json.loads(gwconf("profile", "list", "--json").stdout)["profiles"][0]["name"] == "imported"
    again = gwconf("profile", "import-link", "-", input=ccswitch(name="高速"))
    assert again.exit_code == 1 and "--name" in again.stderr
    assert gwconf("profile", "import-link", "-", "--name", "work2", input=ccswitch()).exit_code == 0
    assert gwconf("profile", "import-link", "-", "--force", input=ccswitch(name="高速")).exit_code == 0


WARNED = [
    (ccswitch(extra="1"), "unknown field 'extra'"),
    (ccswitch(usageScript="fetch('https://evil.example')"), "never runs code"),
    (ccswitch(configUrl="https://evil.example/c.json"), "never fetches"),
    (ccswitch(config="e30="), "embedded configuration"),
    (ccswitch(endpoint="https://gw.example.com/v1,https://backup.example.com/v1"), "uses the first"),
    (ccswitch(homepage="https://other-site.example"), "make sure the link came from your gateway"),
    (ccswitch(endpoint="http://gw.example.com/v1"), "unencrypted"),
]


@pytest.mark.parametrize(("link", "needle"), WARNED)
def test_suspicious_but_usable_links_are_warned(link: str, needle: str, gwconf) -> None:
    result = gwconf("profile", "import-link", "-", "--dry-run", input=link)
    assert result.exit_code == 0, result
    assert needle in result.stderr, result
    assert KEY not in result.output


REFUSED = [
    (ccswitch().replace("ccswitch://", "https://"), "instead of ccswitch://"),
    (ccswitch().replace("//v1/", "//v2/"), "expected ccswitch://v1/import"),
    (ccswitch().replace("/import?", "/export?"), "expected ccswitch://v1/import"),
    (ccswitch() + "#x", "fragment"),
    (ccswitch(resource="mcp"), "not 'provider'"),
    (ccswitch(app="cursor"), "app 'cursor'"),
    (ccswitch(name=""), "no provider name"),
    (ccswitch(endpoint=None), "no endpoint"),
    (ccswitch(apiKey=None), "no apiKey"),
    (ccswitch(apiKey="PASTE_API_KEY_AFTER_IMPORT"), "does not start with `sk-`"),
    (ccswitch(apiKey="sk-abc def0123456789"), "contains a space"),
    (ccswitch(apiKey='sk-abc"0123456789xx'), "quotes"),
    (ccswitch(apiKey="sk-" + "a" * 600), "too long"),
    (ccswitch(endpoint="javascript:alert(1)"), "not an http(s) URL"),
    (ccswitch(endpoint="file:///etc/passwd"), "not an http(s) URL"),
    (ccswitch(endpoint="https://user:pw@gw.example.com/v1"), "user name or password"),
    (ccswitch(endpoint="https://gw.example.com/v1?x=1"), "query"),
    (ccswitch(endpoint="https://api.openai.com/v1"), "vendor's official address"),
    (ccswitch(endpoint="https://gw.еxample.com/v1"), "non-ASCII"),
    (ccswitch(homepage="javascript:alert(1)"), "homepage"),
    (ccswitch(name="evil\nkey = 'x'"), "control or invisible character U+000A"),
    (ccswitch(name="gw\u202eetalp"), "U+202E"),
    (ccswitch(model="m\x00"), "U+0000"),
    (ccswitch() + "&apiKey=" + quote("sk-second0123456789"), "appears twice"),
    (ccswitch() + "&" + quote("a b") + "=1", "unusable name"),
    (ccswitch() + "&" + "&".join(f"f{i}=1" for i in range(70)), "malformed"),
    ("ccswitch://v1/import?" + "a" * 20000, "characters long"),
    ("ccswitch://v1/import?resource=provider&&app=codex", "malformed"),
]


@pytest.mark.parametrize(("link", "needle"), REFUSED)
def test_hostile_links_are_refused(link: str, needle: str, gwconf) -> None:
    result = gwconf("profile", "import-link", "-", input=link)
    assert result.exit_code == 1, result
    assert "CC Switch link refused" in result.stderr and needle in result.stderr, result.stderr
    assert KEY not in result.output and "sk-second0123456789" not in result.output
    assert json.loads(gwconf("profile", "list", "--json").stdout)["profiles"] == []


def test_parse_is_pure_and_names_what_it_ignores() -> None:
    parsed = incoming.parse_ccswitch(ccswitch(notes="fast", icon="openai"))
    assert (parsed.app, parsed.name, parsed.base_url, parsed.api_key, parsed.model) == (
        "codex", "My Codex", "https://gw.example.com/v1", KEY, "gpt-5",
    )  # fmt: skip
    assert {i.split(" ")[0] for i in parsed.ignored} == {"enabled=true", "icon", "notes"}
    assert parsed.warnings == []
    with pytest.raises(ProfileError):
        incoming.parse_ccswitch(ccswitch(app="claude", endpoint="https://api.anthropic.com"))


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("My Codex", "my-codex"),
        ("../../etc/passwd", "etc-passwd"),
        ("  ", "imported"),
        ("Ünïcode-Relay_2", "unicode-relay_2"),
    ],
)
def test_slug(name: str, slug: str) -> None:
    assert incoming.slug(name) == slug
