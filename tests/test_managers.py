"""The other tools on the same files (issue 20): CC Switch, claude-code-router, zcf, OmniRoute, chezmoi.

Each tool's marker, written the way its own source writes it (see gwconf/managers.py for where),
is reported by doctor and status; apply never edits inside another tool's block (it refuses, the
file untouched) and leaves the block byte for byte when its edit lies outside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.gateway_server import VALID_KEY

CCR_PROFILE = (
    "# BEGIN CCR managed profile\n"
    'model = "ccr-model"\n'
    'model_provider = "claude-code-router"\n'
    "# END CCR managed profile\n"
)
CCR_PROVIDER = (
    "# BEGIN CCR managed Codex provider\n"
    "[model_providers.claude-code-router]\n"
    'name = "Claude Code Router"\n'
    'base_url = "http://127.0.0.1:3456/v1"\n'
    "# END CCR managed Codex provider\n"
)
CCR_TOOLHUB = (
    "# BEGIN CCR managed ToolHub MCP\n"
    "[mcp_servers.ccr-toolhub]\n"
    'command = "node"\n'
    "# END CCR managed ToolHub MCP\n"
)
ZCF_PROVIDER = (
    "# --- model provider added by ZCF ---\n"
    'model = "gpt-5"\n'
    'model_provider = "packycode"\n'
    "\n"
    "[model_providers.packycode]\n"
    'name = "packycode"\n'
    'base_url = "https://api.example.com/v1"\n'
    'wire_api = "responses"\n'
    'env_key = "PACKYCODE_API_KEY"\n'
)
ZCF_MCP = (
    '# --- MCP servers added by ZCF ---\n[mcp_servers.context7]\ncommand = "npx"\nargs = ["-y", "context7"]\n'
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _doctor(gwconf, client: str) -> dict:
    result = gwconf("doctor", client, "--json")
    data = json.loads(result.stdout)
    return next(c for c in data["clients"] if c["id"] == client)


def _messages(entry: dict) -> list[str]:
    return [f["message"] for f in entry["findings"]]


def test_apply_refuses_to_edit_inside_a_ccr_block_and_doctor_names_it(
    gwconf, gateway_profile: str, home: Path
) -> None:
    text = 'approval_policy = "never"\n\n' + CCR_PROFILE + "\n" + CCR_PROVIDER
    config = _write(home / ".codex" / "config.toml", text)
    done = gwconf("apply", "codex")
    assert done.exit_code == 1
    assert "inside claude-code-router's block `CCR managed profile` (lines 3-6)" in done.stderr
    assert "gwconf never edits inside another tool's block" in done.stderr
    assert config.read_text() == text
    messages = _messages(_doctor(gwconf, "codex"))
    assert any(
        "claude-code-router also manages this file (2 `# BEGIN CCR managed …` block(s)" in m for m in messages
    )
    status = gwconf("status", "codex", "--json")
    others = json.loads(status.stdout)["clients"][0]["also_managed_by"]
    assert [o["tool"] for o in others] == ["claude-code-router"]
    assert [(b["first"], b["last"]) for b in others[0]["blocks"]] == [(3, 6), (8, 12)]


def test_an_edit_outside_a_ccr_block_leaves_it_byte_for_byte(
    gwconf, gateway_profile: str, home: Path
) -> None:
    text = 'approval_policy = "never"\n\n' + CCR_TOOLHUB
    config = _write(home / ".codex" / "config.toml", text)
    done = gwconf("apply", "codex")
    assert done.exit_code == 0, done
    assert "note: claude-code-router also manages this file" in done.stdout
    assert "on its next switch it rewrites its `# BEGIN CCR managed …` blocks" in done.stdout
    after = config.read_text()
    assert CCR_TOOLHUB in after and after.count("# BEGIN CCR managed") == 1
    assert after.startswith('approval_policy = "never"\n')
    assert gwconf("restore", "codex").exit_code == 0
    assert config.read_text() == text


def test_zcf_sections_are_never_edited_and_doctor_reports_them(
    gwconf, gateway_profile: str, home: Path
) -> None:
    text = ZCF_PROVIDER + "\n" + ZCF_MCP
    config = _write(home / ".codex" / "config.toml", text)
    done = gwconf("apply", "codex")
    assert done.exit_code == 1 and "inside zcf's block `model provider added by ZCF`" in done.stderr
    assert config.read_text() == text
    assert any(m.startswith("zcf also manages this file") for m in _messages(_doctor(gwconf, "codex")))

    only_mcp = 'approval_policy = "never"\n\n' + ZCF_MCP
    config.write_text(only_mcp)
    done = gwconf("apply", "codex")
    assert done.exit_code == 0, done
    assert ZCF_MCP in config.read_text()
    assert "note: zcf also manages this file" in done.stdout


def test_cc_switch_takeover_is_reported_and_named_when_it_replaces_gwconfs_values(
    gwconf, gateway_profile: str, home: Path
) -> None:
    (home / ".cc-switch").mkdir()
    settings = _write(
        home / ".claude" / "settings.json",
        json.dumps(
            {
                "env": {
                    "ANTHROPIC_BASE_URL": "http://127.0.0.1:15721",
                    "ANTHROPIC_AUTH_TOKEN": "PROXY_MANAGED",
                },
                "permissions": {"allow": ["Bash(ls)"]},
            },
            indent=2,
        )
        + "\n",
    )
    before = _messages(_doctor(gwconf, "claude-code"))
    assert any(
        "CC Switch also manages this file" in m
        and "proxy takeover (127.0.0.1:15721, its placeholder key)" in m
        for m in before
    )
    done = gwconf("apply", "claude-code")
    assert done.exit_code == 0, done
    assert "note: CC Switch also manages this file" in done.stdout
    assert "on its next switch it rewrites the whole file with its selected provider" in done.stdout
    assert json.loads(settings.read_text())["permissions"] == {"allow": ["Bash(ls)"]}

    # CC Switch switches again: it writes the file whole with its provider
    settings.write_text(
        json.dumps(
            {"env": {"ANTHROPIC_BASE_URL": "https://other.example", "ANTHROPIC_AUTH_TOKEN": "sk-other-1234"}}
        )
    )
    entry = _doctor(gwconf, "claude-code")
    cause = [f for f in entry["findings"] if "is the likely cause" in f["message"]]
    assert cause and cause[0]["level"] == "error"
    assert "gwconf's values were replaced since gwconf wrote them" in cause[0]["message"]
    assert "CC Switch is the likely cause: CC Switch is installed (~/.cc-switch)" in cause[0]["message"]
    assert VALID_KEY not in json.dumps(entry)


def test_omniroute_backup_folder_is_reported_and_left_alone(gwconf, gateway_profile: str, home: Path) -> None:
    backup = _write(home / ".claude" / ".omniroute.bak" / "settings.json.bak", '{"env": {}}\n')
    _write(
        home / ".claude" / "settings.json",
        '{\n  "env": {\n    "ANTHROPIC_BASE_URL": "http://localhost:20128"\n  }\n}\n',
    )
    assert any(
        "OmniRoute also manages this file (OmniRoute's backup folder ~/.claude/.omniroute.bak is beside it)"
        in m
        for m in _messages(_doctor(gwconf, "claude-code"))
    )
    done = gwconf("apply", "claude-code")
    assert done.exit_code == 0, done
    assert "note: OmniRoute also manages this file" in done.stdout
    assert backup.read_text() == '{"env": {}}\n'
    status = gwconf("status", "claude-code")
    assert "also managed  by OmniRoute" in status.stdout


def test_markers_are_found_in_the_bytes_as_in_their_text() -> None:
    """``managers.scan`` looks for its ASCII markers in a file's bytes, not in a decoded copy
    (issue 15: a 16 MB settings.json was decoded for this alone): the same answer as the text
    ``errors="replace"`` makes, for bytes mixing markers, CJK, cut characters and bad bytes."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from gwconf import managers

    pieces = st.sampled_from(
        [
            *managers._BYTES.values(),
            "日本".encode(),
            b"\xe6\x97",
            b"\xff",
            b"\x80",
            b"# ",
            b"127.0.0.1:",
            b"\n",
        ]
    )

    @given(st.lists(st.one_of(pieces, st.binary(max_size=4)), max_size=12))
    @settings(max_examples=400, deadline=None)
    def check(parts: list[bytes]) -> None:
        data = b"".join(parts)
        text = data.decode("utf-8", errors="replace")
        for marker, raw in managers._BYTES.items():
            assert (marker in text) == (raw in data), (marker, data)

    check()


def test_a_file_chezmoi_makes_from_its_source_is_reported_and_named_when_it_comes_back(
    gwconf, gateway_profile: str, home: Path, monkeypatch
) -> None:
    """chezmoi keeps a source copy of the file (``private_dot_codex/config.toml.tmpl``) and its
    next ``chezmoi apply`` writes it back: apply says so, status shows it, and once the source's
    copy is back doctor names chezmoi as the likely cause."""
    mine = 'approval_policy = "never"\n'
    config = _write(home / ".codex" / "config.toml", mine)
    source = _write(home / ".local" / "share" / "chezmoi" / "private_dot_codex" / "config.toml.tmpl", mine)
    done = gwconf("apply", "codex")
    assert done.exit_code == 0, done
    assert "note: chezmoi also manages this file (its source is " in done.stdout
    assert (
        "~/.local/share/chezmoi/private_dot_codex/config.toml.tmpl); at its next `chezmoi apply`"
        in done.stdout
    )
    assert "by chezmoi: its source is" in gwconf("status", "codex").stdout
    config.write_text(source.read_text())  # chezmoi apply
    cause = [f for f in _doctor(gwconf, "codex")["findings"] if "is the likely cause" in f["message"]]
    assert cause and "chezmoi is the likely cause: its source is" in cause[0]["message"]
    assert "keep chezmoi's source as it is (and undo gwconf's write: gwconf restore codex)" in cause[0]["fix"]


def test_chezmoi_sources_that_make_no_claim_on_the_file_are_not_reported(
    gwconf, gateway_profile: str, home: Path, tmp_path: Path, monkeypatch
) -> None:
    """A source for another file, a create_ source (never written over a file that exists) and a
    modify_ script are no claim; a source under $XDG_DATA_HOME and below a .chezmoiroot is."""
    _write(home / ".codex" / "config.toml", 'approval_policy = "never"\n')
    chezmoi = home / ".local" / "share" / "chezmoi"
    _write(chezmoi / "dot_codex" / "other.toml", "x = 1\n")
    _write(chezmoi / "dot_gemini" / "settings.json", "{}\n")
    _write(chezmoi / "dot_codex" / "create_config.toml", "x = 1\n")
    assert "chezmoi" not in gwconf("apply", "codex", "--dry-run").stdout
    (chezmoi / "dot_codex" / "create_config.toml").rename(chezmoi / "dot_codex" / "modify_config.toml")
    assert "chezmoi" not in gwconf("apply", "codex", "--dry-run").stdout
    data = tmp_path / "data"
    _write(data / "chezmoi" / ".chezmoiroot", "home\n")
    _write(data / "chezmoi" / "home" / "exact_dot_codex" / "readonly_config.toml", "x = 1\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    assert "chezmoi also manages this file" in gwconf("apply", "codex", "--dry-run").stdout


def test_chezmoi_source_names_read_as_chezmoi_reads_them() -> None:
    from gwconf.managers import _chezmoi_target

    assert _chezmoi_target("private_dot_codex") == ".codex"
    assert _chezmoi_target("encrypted_private_readonly_dot_env.age") == ".env"
    assert _chezmoi_target("executable_dot_local") == ".local"
    assert _chezmoi_target("literal_dot_x.tmpl") == "dot_x"
    assert _chezmoi_target("config.toml.tmpl") == "config.toml"
    assert _chezmoi_target("settings.json.tmpl.literal") == "settings.json.tmpl"
    assert _chezmoi_target("dot_private_x") == ".private_x"  # dot_ ends the prefixes


def test_chezmoi_sources_are_found_where_its_config_puts_them(
    gwconf, gateway_profile: str, home: Path
) -> None:
    """chezmoi's config file may move its source folder (``sourceDir``, in any of its formats)."""
    _write(home / ".codex" / "config.toml", 'approval_policy = "never"\n')
    _write(home / "dotfiles" / "dot_codex" / "private_config.toml", "x = 1\n")
    config = home / ".config" / "chezmoi"
    for name, text in [
        ("chezmoi.toml", 'sourceDir = "~/dotfiles"\n[git]\nautoPush = true\n'),
        ("chezmoi.yaml", "sourceDir: ~/dotfiles  # moved\n"),
        ("chezmoi.jsonc", '{\n  // here\n  "sourceDir": "' + str(home / "dotfiles") + '"\n}\n'),
    ]:
        _write(config / name, text)
        shown = gwconf("apply", "codex", "--dry-run").stdout
        assert (
            "chezmoi also manages this file (its source is ~/dotfiles/dot_codex/private_config.toml)" in shown
        ), name
        (config / name).unlink()
    assert "chezmoi" not in gwconf("apply", "codex", "--dry-run").stdout  # the default folder has none
