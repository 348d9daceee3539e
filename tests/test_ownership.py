"""A user's edit is never lost (issue 13): apply, the user edits, gwconf writes again, restore.

Each case is the sequence the issue found broken, through the real command path, on a file with
comments and the user's own settings. ``edit`` is the user's change between gwconf's steps;
``gone`` are values gwconf wrote that restore must take out again.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY

OTHER_KEY = "sk-other-9876543210zyxwvuQRST"

CASES = {
    "codex": (
        ".codex/config.toml",
        '# my codex settings\nmodel = "gpt-5"\napproval_policy = "on-request"\nsandbox_mode = "workspace-write"\n\n[tui]\nnotifications = true\n',
        ('sandbox_mode = "workspace-write"', 'sandbox_mode = "read-only"'),
        "# a note I added\n",
    ),
    "claude-code": (
        ".claude/settings.json",
        '{\n  "theme": "dark",\n  "permissions": {\n    "allow": ["Bash(ls)"]\n  },\n  "env": {\n    "FOO": "1"\n  }\n}\n',
        ('"theme": "dark"', '"theme": "light"'),
        None,
    ),
    "continue": (
        ".continue/config.yaml",
        "# Continue\nname: mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: local\n    provider: ollama\n    model: llama3\n",
        ("name: mine", "name: renamed"),
        "# a note I added\n",
    ),
    # a value gwconf would spell otherwise (sgpt keeps quotes as part of the value; ``${...}`` has no
    # spelling every .env reader agrees on) goes back as the user wrote it (found in public dotfiles)
    "shell-gpt": (
        ".config/shell_gpt/.sgptrc",
        "CACHE_LENGTH=100\nDEFAULT_MODEL=gpt-4\nAPI_BASE_URL=default\nOPENAI_API_KEY=$OPENAI_API_KEY\n",
        ("CACHE_LENGTH=100", "CACHE_LENGTH=200"),
        "# a note I added\n",
    ),
    "fabric": (
        ".config/fabric/.env",
        'DEFAULT_VENDOR="Ollama" # local\nDEFAULT_MODEL=${FABRIC_MODEL}\nOLLAMA_API_URL=http://127.0.0.1:11434\n',
        ("127.0.0.1:11434", "127.0.0.1:11435"),
        "# a note I added\n",
    ),
    # gwconf's [[models]] entry is the file's last: the note the user adds after it is theirs
    "elia": (
        ".config/elia/config.toml",
        '# elia\ndefault_model = "gpt-4o"\ntheme = "monokai"\n\n[[models]]\nname = "ollama/llama3"\n',
        ('theme = "monokai"', 'theme = "nord"'),
        "# a note I added\n",
    ),
    # the old slot's max_tokens/think (tied to the vendor's model) are taken out, and come back
    "crush": (
        ".config/crush/crush.json",
        '{\n  "models": {\n    "large": {"model": "claude-opus-4-6", "provider": "anthropic", "max_tokens": 64000, "think": true}\n  },\n  "options": {\n    "debug": false\n  }\n}\n',
        ('"debug": false', '"debug": true'),
        None,
    ),
    # scoped models win over defaultProvider/defaultModel: gwconf's goes first, and comes out again
    "pi": (
        ".pi/agent/settings.json",
        '{\n  "enabledModels": ["anthropic/claude-sonnet-4-5", "openai/*"],\n  "theme": "dark"\n}\n',
        ('"theme": "dark"', '"theme": "light"'),
        None,
    ),
    # models kept as [models.<alias>] tables: gwconf's own table, named after the model, is
    # replaced by the next model's, and restore must not put the first one back (found by the
    # stateful machine: the ledger recorded the removed table's "before" as gwconf's own values)
    "mistral-vibe": (
        ".vibe/config.toml",
        '# my vibe\nactive_model = "mine"  # mine\ntextual_theme = "gruvbox"\n\n[models.mine]\nname = "own"\nprovider = "local"\n',
        ('textual_theme = "gruvbox"', 'textual_theme = "nord"'),
        "# a note I added\n",
    ),
    "opencode": (
        ".config/opencode/opencode.json",
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "tokyonight",\n  "autoupdate": false\n}\n',
        ('"theme": "tokyonight"', '"theme": "gruvbox"'),
        None,
    ),
}


@pytest.fixture
def two_profiles(gwconf) -> None:
    for name, key, model in (("first", TEST_KEY, "model-a"), ("second", OTHER_KEY, "model-b")):
        result = gwconf(
            "profile", "add", name, "--base-url", f"https://{name}.example.com/v1", "--model", model,
            "--key-stdin", input=key + "\n",
        )  # fmt: skip
        assert result.exit_code == 0, result
    assert gwconf("use", "first", "--no-apply").exit_code == 0


def _user_edit(path: Path, edit: tuple[str, str], comment: str | None) -> str:
    text = path.read_text()
    assert edit[0] in text
    text = text.replace(edit[0], edit[1])
    if comment:
        text += comment
    path.write_text(text)
    return text


def _no_gateway_left(text: str) -> None:
    for value in ("first.example.com", "second.example.com", TEST_KEY, OTHER_KEY, "model-a", "model-b"):
        assert value not in text, f"{value} left behind after restore:\n{text}"


@pytest.mark.parametrize("client_id", sorted(CASES))
@pytest.mark.parametrize("between", ["reapply-model", "use-and-back", "nothing"])
def test_user_edit_survives_reapply_and_restore(gwconf, home, two_profiles, client_id, between) -> None:
    relative, original, edit, comment = CASES[client_id]
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(original)
    assert gwconf("apply", client_id).exit_code == 0
    _user_edit(path, edit, comment)
    if between == "reapply-model":
        assert gwconf("apply", client_id, "--model", "model-b").exit_code == 0
    elif between == "use-and-back":
        assert gwconf("use", "second").exit_code == 0
        assert gwconf("use", "first").exit_code == 0
    assert edit[1] in path.read_text() and (not comment or comment in path.read_text())
    result = gwconf("restore", client_id)
    assert result.exit_code == 0, result
    text = path.read_text()
    assert edit[1] in text, "the user's edit was lost"
    if comment:
        assert comment in text, "the user's comment was lost"
    _no_gateway_left(text)
    expected = original.replace(edit[0], edit[1]) + (comment or "")
    assert text == expected, "restore changed more than gwconf's own keys"


@pytest.mark.parametrize("between", ["reapply-model", "nothing"])
def test_aider_file_gwconf_created_keeps_what_the_user_added(gwconf, home, two_profiles, between) -> None:
    path = home / ".aider.conf.yml"
    assert gwconf("apply", "aider").exit_code == 0
    path.write_text(path.read_text() + "dark-mode: true\n# mine\n")
    if between == "reapply-model":
        assert gwconf("apply", "aider", "--model", "model-b").exit_code == 0
    result = gwconf("restore", "aider")
    assert result.exit_code == 0, result
    assert path.exists(), "a file holding the user's settings was removed"
    text = path.read_text()
    assert "dark-mode: true" in text and "# mine" in text
    _no_gateway_left(text)
    assert "gwconf's keys were taken out" in result.output


def test_created_file_untouched_by_the_user_is_removed(gwconf, home, two_profiles) -> None:
    assert gwconf("apply", "aider").exit_code == 0
    assert gwconf("use", "second").exit_code == 0
    assert gwconf("restore", "aider").exit_code == 0
    assert not (home / ".aider.conf.yml").exists()


def test_pristine_bytes_when_only_gwconf_wrote(gwconf, home, two_profiles) -> None:
    relative, original, _, _ = CASES["codex"]
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(original)
    assert gwconf("apply", "codex").exit_code == 0
    assert gwconf("use", "second").exit_code == 0
    assert gwconf("apply", "codex", "--model", "model-c").exit_code == 0
    assert gwconf("restore", "codex").exit_code == 0
    assert path.read_text() == original
    assert not (home / ".codex" / "auth.json").exists()


def test_user_deleted_file_does_not_come_back(gwconf, home, two_profiles) -> None:
    """Issue 18 item 8: apply, the user deletes config.toml, use another profile, restore."""
    relative, original, _, _ = CASES["codex"]
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(original)
    assert gwconf("apply", "codex").exit_code == 0
    path.unlink()
    assert gwconf("use", "second").exit_code == 0
    assert gwconf("restore", "codex").exit_code == 0
    assert not path.exists(), "the file the user deleted came back"


def test_value_the_user_changed_inside_gwconfs_entry_is_kept(gwconf, home, two_profiles) -> None:
    """Issue 18 item 8: a leaf inside gwconf's own table changed by hand is the user's."""
    path = home / ".codex" / "config.toml"
    assert gwconf("apply", "codex").exit_code == 0
    text = path.read_text().replace("https://first.example.com/v1", "https://mine.example.com/v1")
    path.write_text(text)
    status = gwconf("status", "--json")
    assert "base_url" in status.stdout and "model_providers" in status.stdout, status
    result = gwconf("restore", "codex")
    assert result.exit_code == 0, result
    assert "https://mine.example.com/v1" in path.read_text()


def test_user_provider_beside_gwconfs_in_a_map_gwconf_created(gwconf, home, two_profiles) -> None:
    """Issue 18 item 7: gwconf's provider (with its key) goes, the user's stays; nothing to redo."""
    path = home / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "theme": "dark"\n}\n')
    assert gwconf("apply", "opencode").exit_code == 0
    text = path.read_text().replace(
        '"provider": {',
        '"provider": {\n    "mine": {\n      "options": {\n        "baseURL": "http://localhost:1234/v1"\n      }\n    },',
    )
    path.write_text(text)
    assert gwconf("restore", "opencode").exit_code == 0
    text = path.read_text()
    assert '"mine"' in text and "localhost:1234" in text
    _no_gateway_left(text)
    assert TEST_KEY not in text


def test_an_entry_the_user_renamed_in_gwconfs_provider_is_kept_and_said(gwconf, home, two_profiles) -> None:
    """Found over real dotfiles: the user renames the model entry inside opencode's provider.gwconf;
    restore takes out gwconf's own keys (the key with them), keeps the renamed entry, and says why
    the provider block stays, as the other clients' restores do (it was silent)."""
    path = home / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "theme": "dark"\n}\n')
    assert gwconf("apply", "opencode").exit_code == 0
    text = path.read_text()
    assert '"model-a": {' in text
    path.write_text(text.replace('"model-a": {', '"my-renamed": {'))
    result = gwconf("restore", "opencode")
    assert result.exit_code == 0, result
    data = json.loads(path.read_text())
    assert data == {"theme": "dark", "provider": {"gwconf": {"models": {"my-renamed": {"name": "model-a"}}}}}
    assert "provider.gwconf.models: gwconf's values taken out, what you added to it kept" in result.output
    assert result.output.count("what you added to it kept") == 1  # not again for the tables around it


SPELLED = {
    # JSON: slashes escaped (PHP and others write them so), a \\uXXXX escape
    "claude-code": (
        "claude-code",
        ".claude/settings.json",
        '{\n  "env": {\n    "ANTHROPIC_BASE_URL": "https:\\/\\/api.z.ai\\/api\\/anthropic"\n  },\n'
        '  "model": "opus\\u002d4",\n  "theme": "dark"\n}\n',
        ('"theme": "dark"', '"theme": "light"'),
    ),
    # TOML: a \\uXXXX escape in a basic string, a comment after it
    "codex": (
        "codex",
        ".codex/config.toml",
        '# mine\nmodel = "gpt\\u002d5"  # pinned\napproval_policy = "on-request"\n',
        ('"on-request"', '"never"'),
    ),
    # YAML: an escape in a double-quoted scalar, a folded block scalar
    "aider": (
        "aider",
        ".aider.conf.yml",
        '# mine\nmodel: "gpt\\x2d4o"  # pinned\ndark-mode: true\n',
        ("dark-mode: true", "dark-mode: false"),
    ),
    "aider-folded": (
        "aider",
        ".aider.conf.yml",
        "# mine\nmodel: >-\n  gpt-4o\ndark-mode: true\n",
        ("dark-mode: true", "dark-mode: false"),
    ),
    # JSON5 (Claude Code Router's config.json, found over a real one): an array gwconf replaced
    # with its route comes back in the file's own layout, not json.dumps's
    "claude-code-router": (
        "claude-code-router",
        ".claude-code-router/config.json",
        '{\n  "Providers": [\n    { "name": "ollama", "api_base_url": "http://localhost:11434/v1/chat/completions",'
        ' "api_key": "ollama", "models": ["qwen3:8b"] }\n  ],\n  "Router": {\n    "default": ["ollama,qwen3:8b"]\n'
        "  }\n}\n",
        ('  "Router": {', '  "LOG": true,\n  "Router": {'),
    ),
    # TOML: a multi-line basic string
    "codex-multi-line": (
        "codex",
        ".codex/config.toml",
        '# mine\nmodel = """gpt-5"""  # pinned\napproval_policy = "on-request"\n',
        ('"on-request"', '"never"'),
    ),
}


@pytest.mark.parametrize("case", sorted(SPELLED))
def test_a_value_goes_back_with_the_users_own_escapes(gwconf, home, two_profiles, case) -> None:
    """Found over real dotfiles: a key-by-key restore wrote the value from before gwconf as the
    editor spells it (``https:\\/\\/`` and ``\\u002d`` came back unescaped, ``\"\"\"gpt-5\"\"\"`` as
    ``"gpt-5"``, YAML's ``>-`` as a plain scalar)."""
    client_id, relative, original, (old, new) = SPELLED[case]
    path = home / relative
    path.parent.mkdir(exist_ok=True)
    path.write_text(original)
    assert gwconf("apply", client_id).exit_code == 0
    assert gwconf("use", "second").exit_code == 0
    path.write_text(path.read_text().replace(old, new))
    assert gwconf("restore", client_id).exit_code == 0
    assert path.read_text() == original.replace(old, new)


def test_key_by_key_restore_puts_the_mode_back(gwconf, home, two_profiles) -> None:
    """Issue 18 item 9: apply makes a key's file 0600; restore gives back its mode on both paths."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(CASES["claude-code"][1])
    os.chmod(path, 0o644)
    assert gwconf("apply", "claude-code").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text(path.read_text().replace('"theme": "dark"', '"theme": "light"'))
    os.chmod(path, 0o600)
    assert gwconf("restore", "claude-code").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_restore_keeps_a_file_private_that_still_holds_a_key_set_by_hand(gwconf, home, two_profiles) -> None:
    """Found by the thirty-eighth round's sweep: the user changed the key by hand after apply;
    restore left that key (as it should: not gwconf's) and put the file back to 0644 with it."""
    path = home / ".aider.conf.yml"
    path.write_text("model: gpt-4o\ndark-mode: true\n")
    os.chmod(path, 0o644)
    assert gwconf("apply", "aider").exit_code == 0
    path.write_text(path.read_text().replace(TEST_KEY, "sk-my-own-key-0123456789"))
    result = gwconf("restore", "aider")
    assert result.exit_code == 0 and "kept ~/.aider.conf.yml private (0600)" in result.output, result
    assert "sk-my-own-key-0123456789" in path.read_text() and stat.S_IMODE(path.stat().st_mode) == 0o600
    # the model alone changed by hand: no key is left, the mode goes back
    path.write_text("model: gpt-4o\ndark-mode: true\n")
    os.chmod(path, 0o644)
    assert gwconf("apply", "aider").exit_code == 0
    assert "model-a" in path.read_text()
    path.write_text(path.read_text().replace("model-a", "my-model"))
    result = gwconf("restore", "aider")
    assert result.exit_code == 0 and "left as it is" in result.output, result
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_folders_gwconf_created_are_removed(gwconf, home, two_profiles) -> None:
    """Issue 18 item 13: restore leaves no empty folder apply made, so the client is not 'detected'."""
    assert gwconf("apply", "codex", "claude-code", "gemini-cli", "continue").exit_code == 0
    assert gwconf("restore", "--all").exit_code == 0
    for folder in (".codex", ".claude", ".gemini", ".continue"):
        assert not (home / folder).exists(), folder


def test_damaged_ledger_is_reported_kept_and_restore_falls_back(gwconf, home, two_profiles, tmp_path) -> None:
    """Issue 18 item 12: status says so loudly and leaves the file; restore --all still restores."""
    relative, original, _, _ = CASES["claude-code"]
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(original)
    assert gwconf("apply", "claude-code", "codex").exit_code == 0
    ledger = tmp_path / "gwconf" / "state" / "ledger.json"
    ledger.write_text('{"version": 2, "clients": [')
    status = gwconf("status")
    assert status.exit_code == 1 and "damaged" in status.stderr, status
    assert ledger.read_text() == '{"version": 2, "clients": [', "a read-only command leaves it where it is"
    result = gwconf("restore", "--all")
    assert result.exit_code == 0, result
    assert "damaged" in result.stderr
    assert path.read_text() == original
    assert not (home / ".codex").exists()
    assert list(ledger.parent.glob("ledger.damaged-*.json")), "the damaged ledger is kept aside"


def test_dotfiles_adoption_after_apply_still_restores(gwconf, home, two_profiles) -> None:
    """Issue 18 item 10: after apply the user moves the file into a dotfiles folder and links it
    back (stow, chezmoi, yadm); restore follows the link and puts back the key apply removed."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    original = '{\n  "env": {\n    "ANTHROPIC_API_KEY": "sk-ant-users-own-0000000000"\n  }\n}\n'
    path.write_text(original)
    assert gwconf("apply", "claude-code").exit_code == 0
    dotfiles = home / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    moved = dotfiles / "settings.json"
    path.rename(moved)
    path.symlink_to(moved)
    result = gwconf("restore", "claude-code")
    assert result.exit_code == 0, result
    assert path.is_symlink() and moved.read_text() == original


def test_symlink_replaced_by_a_real_file_is_restored(gwconf, home, two_profiles) -> None:
    """Issue 18 item 10, the reverse: the config was a link at apply time, a real file now."""
    real = home / "dotfiles" / "settings.json"
    real.parent.mkdir(parents=True)
    real.write_text(CASES["claude-code"][1])
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.symlink_to(real)
    assert gwconf("apply", "claude-code").exit_code == 0
    data = real.read_text()
    path.unlink()
    path.write_text(data)
    result = gwconf("restore", "claude-code")
    assert result.exit_code == 0, result
    _no_gateway_left(path.read_text())
    import json

    rows = json.loads(gwconf("status", "claude-code", "--json").stdout)["clients"]
    assert rows[0]["applied_profile"] is None, "restore forgot nothing it still had to undo"


USERS_ENTRY = {
    "model": "mine",
    "displayName": "Mine",
    "baseUrl": "https://mine.example/v1",
    "apiKey": "sk-users-own-droid-000000000000",
    "provider": "generic-chat-completion-api",  # the same type as gwconf's entry: not a way to tell
}


@pytest.mark.parametrize("between", ["use-second", "nothing"])
@pytest.mark.parametrize("move", ["insert-before", "remove-before"])
def test_list_entry_gwconf_owns_is_followed_when_entries_shift(
    gwconf, home, two_profiles, between, move
) -> None:
    """Droid's customModels: the user inserts their own model before gwconf's entry (or removes one
    that stood before it). gwconf's keys were recorded by position; they must follow gwconf's
    entry, so use rewrites it in place and restore takes out gwconf's entry alone, the user's
    entries whole (before: the user's entry lost keys and gwconf's kept the first profile's key)."""
    path = home / ".factory" / "settings.json"
    path.parent.mkdir()
    first_users = {**USERS_ENTRY, "model": "old-one"}
    path.write_text(json.dumps({"customModels": [first_users] if move == "remove-before" else []}, indent=2))
    assert gwconf("apply", "factory-droid").exit_code == 0
    data = json.loads(path.read_text())
    if move == "insert-before":
        data["customModels"].insert(0, USERS_ENTRY)
    else:
        data["customModels"].pop(0)
    path.write_text(json.dumps(data, indent=2))
    if between == "use-second":
        assert gwconf("use", "second").exit_code == 0
        models = json.loads(path.read_text())["customModels"]
        assert [m["model"] for m in models] == (
            ["mine", "model-b"] if move == "insert-before" else ["model-b"]
        )
    result = gwconf("restore", "factory-droid")
    assert result.exit_code == 0, result
    left = json.loads(path.read_text())["customModels"]
    assert left == ([USERS_ENTRY] if move == "insert-before" else []), result.output
    _no_gateway_left(path.read_text())


@pytest.mark.parametrize("between", ["use-and-back", "nothing"])
def test_kilo_writes_the_opencode_json_that_wins_and_gives_both_back(
    gwconf, home, two_profiles, between
) -> None:
    """A legacy opencode.json beside kilo.jsonc wins in Kilo's merge: gwconf writes it; the user's
    kilo.jsonc stays as it was, and restore gives opencode.json back with the user's edit."""
    folder = home / ".config" / "kilo"
    folder.mkdir(parents=True)
    kilo_jsonc = '{\n  // mine\n  "theme": "kilo",\n}\n'
    legacy = '{\n  "model": "kilo/kilo-auto/free",\n  "autoupdate": false\n}\n'
    (folder / "kilo.jsonc").write_text(kilo_jsonc)
    (folder / "opencode.json").write_text(legacy)
    assert gwconf("apply", "kilo").exit_code == 0
    assert (folder / "kilo.jsonc").read_text() == kilo_jsonc
    edit = ('"autoupdate": false', '"autoupdate": true')
    _user_edit(folder / "opencode.json", edit, None)
    if between == "use-and-back":
        assert gwconf("use", "second").exit_code == 0
        assert gwconf("use", "first").exit_code == 0
    assert gwconf("restore", "kilo").exit_code == 0
    assert (folder / "opencode.json").read_text() == legacy.replace(*edit)
    assert (folder / "kilo.jsonc").read_text() == kilo_jsonc


@pytest.mark.parametrize("between", ["reapply-model", "use-and-back", "nothing"])
def test_gwconf_added_to_enabled_providers_comes_out_and_the_users_edit_stays(
    gwconf, home, two_profiles, between
) -> None:
    """opencode loads only the providers enabled_providers lists: gwconf adds itself there, and
    restore takes exactly that element out again."""
    path = home / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    original = '{\n  "enabled_providers": ["anthropic", "openai"],\n  "theme": "tokyonight"\n}\n'
    path.write_text(original)
    assert gwconf("apply", "opencode").exit_code == 0
    assert json.loads(path.read_text())["enabled_providers"] == ["anthropic", "openai", "gwconf"]
    edit = ('"theme": "tokyonight"', '"theme": "gruvbox"')
    _user_edit(path, edit, None)
    if between == "reapply-model":
        assert gwconf("apply", "opencode", "--model", "model-b").exit_code == 0
    elif between == "use-and-back":
        assert gwconf("use", "second").exit_code == 0
        assert gwconf("use", "first").exit_code == 0
    assert json.loads(path.read_text())["enabled_providers"] == ["anthropic", "openai", "gwconf"]
    assert gwconf("restore", "opencode").exit_code == 0
    assert path.read_text() == original.replace(*edit)


@pytest.mark.parametrize("how", [("--all",), ("copilot-cli", "shell"), ("shell", "copilot-cli")])
def test_a_file_two_clients_wrote_is_gone_after_restoring_both(
    gwconf, home, profile, monkeypatch, how
) -> None:
    """Copilot CLI creates ~/.bashrc, the shell client adds its block to it: restoring both, in
    any order asked, removes the file, as before gwconf (restored by name, an empty ~/.bashrc was
    left: the shell's copy from before it held Copilot's block)."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert gwconf("apply", "copilot-cli", "shell").exit_code == 0
    assert (home / ".bashrc").is_file()
    result = gwconf("restore", *how)
    assert result.exit_code == 0, result
    assert not (home / ".bashrc").exists()
    asked = ["copilot-cli", "shell"] if how == ("--all",) else list(how)  # shown as asked (--all: by name)
    assert result.stdout.index(f"== {asked[0]}") < result.stdout.index(f"== {asked[1]}")


def test_applying_every_client_to_an_empty_home_and_restoring_leaves_it_empty(
    gwconf, home, profile, monkeypatch
) -> None:
    """Every supported client applied to a home with nothing in it, then restore --all: not a
    file nor a folder is left (an empty ~/.bashrc and an empty ~/.config were)."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert not list(home.iterdir())
    applied = gwconf("apply", "--all-supported")
    assert applied.exit_code == 0, applied
    assert len(list(home.rglob("*"))) > 30
    restored = gwconf("restore", "--all")
    assert restored.exit_code == 0, restored
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []


def _dry_and_real(gwconf, *args: str) -> tuple[dict, dict]:
    """``gwconf ARGS --dry-run --json``, then the same for real: both JSON reports."""
    dry = gwconf(*args, "--dry-run", "--json")
    assert dry.exit_code == 0, dry
    real = gwconf(*args, "--json")
    assert real.exit_code == 0, real
    return json.loads(dry.stdout), json.loads(real.stdout)


@pytest.mark.parametrize("order", [("copilot-cli", "shell"), ("shell", "copilot-cli")])
def test_a_dry_run_shows_what_the_run_does_to_a_file_two_clients_share(
    gwconf, home, profile, monkeypatch, order
) -> None:
    """A real run plans the second of two clients sharing ~/.bashrc again after the first one's
    write. Its dry run planned both on the file as it was: ``restore --dry-run`` said "kept
    ~/.bashrc" where the restore then removed it, and apply's second diff lacked the first's
    lines. Each plan of a dry run now reads what the ones before it would leave."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    (home / ".bashrc").write_text("# mine\nalias ll='ls -l'\n")
    for command in (("apply", *order), ("restore", *order), ("apply", *order), ("restore", "--all")):
        dry, real = _dry_and_real(gwconf, *command)
        assert dry.pop("dry_run") is True and real.pop("dry_run") is False
        assert dry == real, command
    assert (home / ".bashrc").read_text() == "# mine\nalias ll='ls -l'\n"


def test_a_dry_run_of_every_client_on_an_empty_home_shows_what_the_run_does(
    gwconf, home, profile, monkeypatch
) -> None:
    """Every supported client applied to an empty home, then restored: each dry run's report is
    the run's, file by file and diff by diff."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # Cline's updatedAt: one time for both
    for command in (("apply", "--all-supported"), ("restore", "--all")):
        dry, real = _dry_and_real(gwconf, *command)
        assert dry.pop("dry_run") is True and real.pop("dry_run") is False
        assert dry == real, command
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == []


TAKEN_OUT = {
    # client: (file, text with a key apply takes out in the middle, the user's edit afterwards)
    "aichat": (
        ".config/aichat/config.yaml",
        "model: openai:gpt-4o\nclients:\n- type: openai-compatible\n  name: gwconf\n  api_key: sk-old-0123456789abcdef\n"
        "  api_base: https://old.example.com/v1\n  models:\n  - name: my-model\nsave: true\n",
        ("save: true", "save: false"),
    ),
    "claude-code": (
        ".claude/settings.json",
        '{\n  "theme": "dark",\n  "forceLoginMethod": "claudeai",\n  "permissions": {\n    "allow": []\n  }\n}\n',
        ('"dark"', '"light"'),
    ),
    "codex": (
        ".codex/config.toml",
        'model = "o3"\n# ChatGPT sign-in only\nforced_login_method = "chatgpt"\n# ask first\napproval_policy = "never"\n'
        "\n[tui]\nnotifications = true\n",
        ('"never"', '"on-request"'),
    ),
    "crush": (
        ".config/crush/crush.json",
        '{\n  "models": {\n    "large": {\n      "model": "claude-sonnet-4",\n      "max_tokens": 8000,\n'
        '      "provider": "anthropic",\n      "think": true\n    }\n  },\n  "options": {\n    "debug": false\n  }\n}\n',
        ('"debug": false', '"debug": true'),
    ),
}


@pytest.mark.parametrize("client", sorted(TAKEN_OUT))
def test_a_key_apply_took_out_comes_back_where_it_was(gwconf, home, profile, client) -> None:
    """Apply takes out a key that would override gwconf's (Claude Code's forceLoginMethod,
    Codex's forced_login_method, Crush's slot max_tokens, the api_key of aichat's gwconf entry,
    which its .env overrides); the user edits the file; restore, key
    by key, put that key back at the end of its object or table. It goes back where it was now:
    the file is the original with only the user's edit."""
    name, original, (old, new) = TAKEN_OUT[client]
    _apply_edit_and_restore(gwconf, home, client, name, original, lambda text: text.replace(old, new))


def _apply_edit_and_restore(
    gwconf,
    home: Path,
    client: str,
    name: str,
    original: str,
    edit: Callable[[str], str],
    switch_to: str | None = None,
) -> None:
    """Apply to the file ``name`` holding ``original``, edit it by hand (``edit`` of its text),
    optionally ``use`` another profile, restore: the file is ``edit(original)``, byte for byte
    (read and written as bytes: line endings as they are)."""
    path = home / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(original.encode())
    assert gwconf("apply", client).exit_code == 0
    assert path.read_bytes() != original.encode()
    path.write_bytes(edit(path.read_bytes().decode()).encode())
    if switch_to is not None:
        assert gwconf("use", switch_to).exit_code == 0
    restored = gwconf("restore", client)
    assert restored.exit_code == 0, restored
    assert path.read_bytes().decode() == edit(original)


# the same keys written as users write them by hand: their own spacing, a comment on the line
TAKEN_OUT_AS_WRITTEN = {
    "aichat": (
        ".config/aichat/config.yaml",
        "model: openai:gpt-4o\nclients:\n- type: openai-compatible\n  name: gwconf\n"
        "  api_key:   sk-old-0123456789abcdef   # the old gateway's\n"
        "  api_base: https://old.example.com/v1\n  models:\n  - name: my-model\nsave: true\n",
        ("save: true", "save: false"),
    ),
    "claude-code": (
        ".claude/settings.json",
        '{\n  "theme": "dark",\n  "forceLoginMethod" :"claudeai",\n  "permissions": {\n    "allow": []\n  }\n}\n',
        ('"dark"', '"light"'),
    ),
    "codex": (
        ".codex/config.toml",
        'model = "o3"\nforced_login_method="chatgpt"   # ChatGPT sign-in only\napproval_policy = "never"\n'
        "\n[tui]\nnotifications = true\n",
        ('"never"', '"on-request"'),
    ),
}


@pytest.mark.parametrize("client", sorted(TAKEN_OUT_AS_WRITTEN))
def test_a_key_apply_took_out_comes_back_as_the_user_wrote_it(gwconf, home, two_profiles, client) -> None:
    """Its whole line comes back, not one in gwconf's spelling: a real Codex config.toml held
    ``model_context_window=1000000`` and a restore after an edit wrote it ``key = value``; a
    comment on that line was lost. Checked after ``use`` too, which rewrites gwconf's keys."""
    name, original, (old, new) = TAKEN_OUT_AS_WRITTEN[client]
    _apply_edit_and_restore(
        gwconf, home, client, name, original, lambda text: text.replace(old, new), switch_to="second"
    )


def test_a_dry_run_of_use_shows_what_use_does_to_a_file_two_clients_share(
    gwconf, home, profile, monkeypatch
) -> None:
    """``use`` applies the other profile to every client applied before: the same overlay."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    added = gwconf(
        "profile", "add", "other", "--base-url", "https://other.example.com/v1", "--model", "m2",
        "--key-stdin", input="sk-other-0123456789abcdefWXYZ\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("use", profile).exit_code == 0
    assert gwconf("apply", "copilot-cli", "shell").exit_code == 0
    dry, real = _dry_and_real(gwconf, "use", "other")
    assert dry.pop("dry_run") is True and real.pop("dry_run") is False
    assert dry == real
    assert "other.example.com" in (home / ".bashrc").read_text()


@pytest.mark.parametrize(
    "original",
    [
        "alias ll='ls -l'\nexport A=1\n\n",  # ends with a blank line of the user's: no separator added
        "alias ll='ls -l'\nexport A=1\n",  # gwconf adds the blank line above its block
        "alias ll='ls -l'\nexport A=1",  # no final newline: gwconf adds it and the blank line
        None,  # no ~/.bashrc: gwconf creates it with the block alone
    ],
)
def test_a_restore_after_a_line_added_below_the_shell_block_keeps_the_users_blank_lines(
    gwconf, home, two_profiles, monkeypatch, original
) -> None:
    """The user adds a line below gwconf's block, then restores: the block goes, and with it only
    the blank line gwconf put above it. It always took one blank line: a ~/.bashrc that already
    ended with a blank line (found over real files) lost it."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    path = home / ".bashrc"
    if original is not None:
        path.write_bytes(original.encode())
    assert gwconf("apply", "shell").exit_code == 0
    with path.open("a") as handle:
        handle.write("export USER_ADDED=1\n")
    assert gwconf("use", "second").exit_code == 0
    assert gwconf("restore", "shell").exit_code == 0
    kept = original or ""
    if kept and not kept.endswith("\n"):
        kept += "\n"  # the user's line now follows: a line break the file needs
    assert path.read_bytes().decode() == kept + "export USER_ADDED=1\n"


@pytest.mark.parametrize(
    ("client", "name", "original", "added"),
    [
        ("shell", ".bashrc", 'alias ll="ls -l"\neval "$(zoxide init bash)"', "export USER_ADDED=1\n"),
        ("shell-gpt", ".config/shell_gpt/.sgptrc", "DEFAULT_MODEL=gpt-4o\nSHELL_NAME=auto", "USER_ADDED=1\n"),
        (
            "shell-gpt",
            ".config/shell_gpt/.sgptrc",
            "DEFAULT_MODEL=gpt-4o\r\nSHELL_NAME=auto",
            "USER_ADDED=1\r\n",
        ),
    ],
)
def test_a_file_without_a_final_newline_gets_none_back_after_an_edit_above(
    gwconf, home, two_profiles, monkeypatch, client, name, original, added
) -> None:
    """Apply gives the last line a line break before what it adds at the end. A restore in a
    later run, after the user added a line at the top, took gwconf's lines out and left that line
    break: eight of eight real ``.bashrc`` files and six of eight ``.sgptrc`` files, stripped of
    their final newline, came back with one."""
    monkeypatch.setenv("SHELL", "/bin/bash")
    _apply_edit_and_restore(
        gwconf, home, client, name, original, lambda text: added + text, switch_to="second"
    )


def test_an_entry_gwconf_removes_whole_keeps_the_value_from_before_its_first_write() -> None:
    """The ledger's record of an entry a later write changes whole, over records of values inside
    it: the entry as it was before gwconf's first write (``ledger._composed_before``)."""
    from gwconf.ledger import _composed_before

    removed = {"path": ["models", "m"], "after_hash": "h", "before": {"name": "m", "provider": "gwconf"}}
    inner = [
        {"path": ["models", "m", "name"], "after_hash": "h1", "before_missing": True},
        {"path": ["models", "m", "provider"], "after_hash": "h2", "before_missing": True},
    ]
    # a table gwconf made: nothing was there
    assert _composed_before(removed, inner, created=True) == {
        "path": ["models", "m"],
        "after_hash": "h",
        "before_missing": True,
    }
    # the user's table that gwconf added a value to and changed another of: theirs, as it was
    users = {"path": ["t"], "after_hash": "h", "before": {"mine": 1, "added": "gw", "changed": "gw"}}
    inside = [
        {"path": ["t", "added"], "after_hash": "a", "before_missing": True},
        {"path": ["t", "changed"], "after_hash": "c", "before": "theirs"},
    ]
    assert _composed_before(users, inside, created=False) == {
        "path": ["t"],
        "after_hash": "h",
        "before": {"mine": 1, "changed": "theirs"},
    }
    # a secret kept in a backup file cannot be composed inline: the records stay as they were
    secret = [{"path": ["t", "key"], "after_hash": "k", "before_ref": "keys-1"}]
    assert _composed_before(users, secret, created=False) is None


def test_restore_settles_an_older_gwconfs_record_of_an_entry_it_removed(gwconf, home, two_profiles) -> None:
    """A ledger an older gwconf wrote (before 034185a): the record of gwconf's model table, removed
    by a later apply, holds gwconf's own values as its "before", beside records of the values
    inside it. Restore must still take the table out, not put it back."""
    relative, original, edit, comment = CASES["mistral-vibe"]
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(original)
    assert gwconf("apply", "mistral-vibe").exit_code == 0
    _user_edit(path, edit, comment)
    assert gwconf("apply", "mistral-vibe", "--model", "model-b").exit_code == 0
    ledger_path = Path(os.environ["GWCONF_HOME"]) / "state" / "ledger.json"
    ledger = json.loads(ledger_path.read_text())
    [record] = [r for r in ledger["clients"]["mistral-vibe"]["files"].values() if r["format"] == "toml"]
    table = ["models", "model-a"]
    [entry] = [k for k in record["keys"] if k["path"] == table]
    assert entry.pop("before_missing") is True  # what this gwconf records
    entry["before"] = {"name": "model-a", "provider": "gwconf"}  # what the older one did
    at = record["keys"].index(entry)
    record["keys"][at:at] = [
        {"path": [*table, leaf], "after_hash": "x", "before_missing": True} for leaf in ("name", "provider")
    ]
    record["parents"].append(table)
    ledger_path.write_text(json.dumps(ledger, indent=2))
    result = gwconf("restore", "mistral-vibe")
    assert result.exit_code == 0, result
    assert path.read_text() == original.replace(edit[0], edit[1]) + comment, path.read_text()
