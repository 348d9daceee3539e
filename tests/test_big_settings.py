"""A settings.json of several megabytes goes through apply, a hand edit, ``use`` and restore
like any other (issue 15: apply, restore and status read it through a stand-in of the windows
they touch, ``formats.json_windows``). Real commands in a temporary HOME."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gwconf import plan, registry
from gwconf.clients._base import ConfigFile
from gwconf.formats import json as json_editor
from gwconf.paths import Env
from gwconf.profiles import Profile
from tests.conftest import TEST_KEY

OTHER_KEY = "sk-other-9876543210zyxwvuQRST"
SETTINGS = ".config/zed/settings.json"
# the active profile of the tests that plan a client directly (the `profiles` fixture's "work")
_WORK = Profile(name="work", base_url="https://work.example.com/v1", model="work-model", key=TEST_KEY)


def _settings(members: int, eol: str = "\n") -> str:
    """Zed's settings.json grown to a few megabytes: comments, CJK, a trailing comma, and Zed's
    own keys in the middle."""
    lines = ["// Zed settings" + eol, "{" + eol, '  "theme": "One Dark",' + eol]
    for n in range(members):
        if n == members // 2:
            lines.append('  "agent": { "default_model": { "provider": "zed.dev", "model": "x" } },' + eol)
        if n % 50 == 0:
            lines.append(f"  // group {n}: 設定" + eol)
        lines.append(f'  "ext.{n}": {{ "enabled": {str(n % 2 == 0).lower()}, "name": "名前 {n}" }},' + eol)
    lines.append('  "vim_mode": true,' + eol + "}" + eol)
    return "".join(lines)


@pytest.fixture
def profiles(gwconf) -> None:
    for name, key, extra in (("other", OTHER_KEY, ()), ("work", TEST_KEY, ("--use",))):
        added = gwconf(
            "profile", "add", name, "--base-url", f"https://{name}.example.com/v1", "--model", f"{name}-model",
            "--key-stdin", *extra, input=key + "\n",
        )  # fmt: skip
        assert added.exit_code == 0, added


@pytest.mark.parametrize(("eol", "bom"), [("\n", ""), ("\r\n", ""), ("\n", "\ufeff")])
def test_apply_edits_a_big_settings_file_in_place_and_restore_gives_it_back(
    gwconf, home: Path, profiles: None, eol: str, bom: str
) -> None:
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    original = (bom + _settings(90_000, eol)).encode()
    assert len(original) > 5 << 20
    path.write_bytes(original)
    env = Env(home=home, platform="linux", environ=dict(os.environ), cwd=home)
    item = plan.load_file(ConfigFile("settings", path, "jsonc"), env, windowed=True)
    assert type(item.doc).__name__ == "WindowedJson"  # the path this test is about

    applied = gwconf("apply", "zed")
    assert applied.exit_code == 0, applied
    after = path.read_bytes()
    assert after.startswith(bom.encode()) and not after[len(bom.encode()) :].startswith(b"\xef\xbb\xbf")
    data = json_editor.load(after.decode().removeprefix("\ufeff"), "s", fmt="jsonc").data()
    provider = data["language_models"]["openai_compatible"]["gwconf"]
    assert provider["api_url"] == "https://work.example.com/v1"
    assert data["agent"]["default_model"] == {"provider": "gwconf", "model": "work-model"}
    assert data["ext.89999"] == {"enabled": False, "name": "名前 89999"}
    # the agent's model in the middle and the provider at the end: everything else as it was
    agent, agent_now = original.index(b'  "agent"'), after.index(b'  "agent"')
    assert original[:agent] == after[:agent_now]
    rest = original[original.index(b"\n", agent) + 1 : original.index(b'  "vim_mode"')]
    assert after[after.index(b"\n", agent_now) + 1 :].startswith(rest)
    assert b"\r\n" in after[-400:] if eol == "\r\n" else b"\r" not in after

    restored = gwconf("restore", "zed")
    assert restored.exit_code == 0, restored
    assert path.read_bytes() == original


def test_a_hand_edit_in_a_big_settings_file_survives_use_and_restore(
    gwconf, home: Path, profiles: None
) -> None:
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    original = _settings(90_000)
    path.write_text(original)
    assert gwconf("apply", "zed").exit_code == 0

    def edit(text: str) -> str:  # far from gwconf's keys, in a window the stand-in never held
        return text.replace('"ext.12345": { "enabled": true', '"ext.12345": { "enabled": false', 1)

    path.write_text(edit(path.read_text()))
    switched = gwconf("use", "other")
    assert switched.exit_code == 0, switched
    data = json_editor.load(path.read_text(), "s", fmt="jsonc").data()
    assert data["language_models"]["openai_compatible"]["gwconf"]["api_url"] == "https://other.example.com/v1"
    assert data["ext.12345"]["enabled"] is False
    restored = gwconf("restore", "zed")
    assert restored.exit_code == 0, restored
    assert path.read_text() == edit(original)


def test_a_big_settings_file_with_a_syntax_error_is_refused_with_its_line(
    gwconf, home: Path, profiles: None
) -> None:
    """A window that does not read sends the file to the whole-text editor: the usual error,
    naming the line, and the file untouched."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    text = _settings(90_000).replace('"ext.40000": {', '"ext.40000" {', 1)
    path.write_text(text)
    line = text[: text.index('"ext.40000" {')].count("\n") + 1
    applied = gwconf("apply", "zed")
    assert applied.exit_code != 0
    assert f"settings.json:{line}:" in applied.output
    assert path.read_text() == text


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_zeds_render_and_read_keep_to_the_members_they_ask_for(home: Path, platform: str) -> None:
    """Zed's render and read look for a block that sets the model over the root one (release
    channels, the OS, profiles, agent profiles) by its path. Asking for the whole data made the
    stand-in the whole file: the scale bench's ``apply zed`` on 16 MB went from 19 MB/s and 3.4x
    the file in memory to 4.7 MB/s and 18x. A block that does set it is still found."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    text = _settings(90_000)
    block = "macos" if platform == "darwin" else "linux"
    middle = text.index('  "ext.45000"')
    text = (
        text[:middle]
        + f'  "{block}": {{ "agent": {{ "default_model": {{ "provider": "zed.dev", "model": "y" }} }} }},\n'
        + text[middle:]
    )
    path.write_text(text)
    env = Env(home=home, platform=platform, environ={}, cwd=home)
    zed = registry.get("zed")
    loaded = plan.load_client(zed, env, windowed=True)
    doc = loaded["settings"].doc
    assert type(doc).__name__ == "WindowedJson"

    notes = zed.render(plan.docs_of(loaded), zed.target(_WORK, env), env)
    reading = zed.read(plan.docs_of(loaded), env)
    assert len(doc.original) < len(text) // 4  # the head, the windows asked for, the last one
    assert any(f'"{block}" sets agent.default_model' in note for note in notes)
    assert any(f'"{block}" sets agent.default_model' in f.message for f in reading.findings)


# the files real users grow to megabytes: VS Code's and Zed's settings.json, ~/.claude.json
_BIG_IN_REAL_HOMES = [
    ("zed", "user-settings", "settings"),
    ("roo-code", "vscode-settings", "settings:code"),
    ("kilo", "jsonc-with-extension", "vscode:Code"),
    ("claude-code", "user-settings", "state"),
]


@pytest.mark.parametrize(("client_id", "case", "role"), _BIG_IN_REAL_HOMES)
def test_every_client_of_a_big_settings_file_reads_only_the_members_it_needs(
    tmp_path: Path, client_id: str, case: str, role: str
) -> None:
    """Each client that edits one of those files plans and reads it through the stand-in
    (``formats.json_windows``): a ``data()`` in its render or read brings in every window, as
    Zed's did (add031f) unseen by the tests; the scale bench grows Zed's file only."""
    import re
    import shutil

    home = tmp_path / "big-home"
    shutil.copytree(Path(__file__).parent / "fixtures" / client_id / case / "before", home)
    env = Env(home=home, platform="linux", environ={"HOME": str(home)}, cwd=home)
    client = registry.get(client_id)
    path = next(f.path for f in client.files(env) if f.role == role)
    text = path.read_text(encoding="utf-8").rstrip()
    indent = re.search(r'\{(?:[^"\n]*\n)*?([ \t]*)"', text).group(1)  # type: ignore[union-attr]
    filler = ",\n".join(
        f'{indent}"filler.{n}": {{ "enabled": true, "name": "名前 {n}" }}' for n in range(100_000)
    )
    body = text[: text.rindex("}")].rstrip()
    path.write_text(f"{body}{'' if body.endswith((',', '{')) else ','}\n{filler}\n}}\n", encoding="utf-8")
    assert path.stat().st_size > 5 << 20

    loaded = plan.load_client(client, env, windowed=True)
    doc = loaded[role].doc
    assert type(doc).__name__ == "WindowedJson"
    client.render(plan.docs_of(loaded), client.target(_WORK, env), env)
    client.read(plan.docs_of(loaded), env)
    assert len(doc.original) < path.stat().st_size // 4


def test_claude_codes_big_state_file_is_edited_without_its_projects(
    gwconf, home: Path, profiles: None
) -> None:
    """~/.claude.json grows by megabytes of ``projects`` near its top (JSON.stringify's layout):
    the stand-in holds the file's head and the member apply sets, never that one member."""
    import json

    projects = {
        f"/home/u/src/p{n}": {"history": [{"display": f"fix bug {m} in 日本"} for m in range(30)]}
        for n in range(4000)
    }
    state = {"numStartups": 3, "projects": projects, "userID": "u", "autoUpdates": True}
    path = home / ".claude.json"
    original = json.dumps(state, indent=2, ensure_ascii=False).encode()
    assert len(original) > 5 << 20
    path.write_bytes(original)
    env = Env(home=home, platform="linux", environ=dict(os.environ), cwd=home)
    item = plan.load_file(ConfigFile("state", path, "json"), env, windowed=True)
    item.doc.set(("hasCompletedOnboarding",), True)
    assert len(item.doc.original) < 1 << 20  # the head and the last window

    applied = gwconf("apply", "claude-code")
    assert applied.exit_code == 0, applied
    after = path.read_bytes()
    assert after == original[: original.rindex(b"\n}")] + b',\n  "hasCompletedOnboarding": true\n}'
    restored = gwconf("restore", "claude-code")
    assert restored.exit_code == 0, restored
    assert path.read_bytes() == original


def test_status_reads_a_big_settings_file_through_its_windows_and_sees_hand_edits(
    gwconf, home: Path, profiles: None
) -> None:
    """``status`` reads the members gwconf's record names, not the whole file: an edit far from
    them is no change of gwconf's, and each managed key changed by hand is reported."""
    import json

    from gwconf import operations

    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    path.write_text(_settings(90_000))
    assert gwconf("apply", "zed").exit_code == 0
    env = Env(home=home, platform="linux", environ=dict(os.environ), cwd=home)
    item = operations.listing_file(ConfigFile("settings", path, "jsonc"), env)
    assert type(item.doc).__name__ == "WindowedJson"

    def changed_by_hand() -> list[str]:
        shown = gwconf("status", "zed", "--json")
        assert shown.exit_code == 0, shown
        return json.loads(shown.output)["clients"][0]["changed_by_hand"]

    shown = "~/.config/zed/settings.json: language_models.openai_compatible.gwconf."
    assert changed_by_hand() == []
    path.write_text(
        path.read_text().replace('"ext.12345": { "enabled": true', '"ext.12345": { "enabled": false')
    )
    assert changed_by_hand() == []
    text = path.read_text()
    at = text.index("[", text.index('"available_models"')) + 1
    path.write_text(text[:at] + '{ "name": "my-local", "max_tokens": 4096 },\n' + text[at:])
    assert changed_by_hand() == [shown + "available_models"]  # gwconf's own list: the user's entry
    path.write_text(
        path.read_text().replace('"https://work.example.com/v1"', '"https://elsewhere.example/v1"')
    )
    assert changed_by_hand() == [shown + "api_url", shown + "available_models"]


def test_restore_of_a_big_settings_file_leaves_a_managed_key_changed_by_hand(
    gwconf, home: Path, profiles: None
) -> None:
    """Restore key by key through the windows (its members and its pristine copy's): gwconf's
    other keys go back as they were written before it, the one the user changed stays, and so
    does every byte outside gwconf's keys."""
    path = home / SETTINGS
    path.parent.mkdir(parents=True)
    original = _settings(90_000).replace('"model": "x"', '"model": "caf\\u00e9"')  # goes back so spelled
    path.write_text(original)
    assert gwconf("apply", "zed").exit_code == 0
    path.write_text(
        path.read_text().replace('"https://work.example.com/v1"', '"https://elsewhere.example/v1"')
    )

    restored = gwconf("restore", "zed")
    assert restored.exit_code == 0, restored
    assert "api_url was changed since gwconf wrote it; left as it is" in restored.output
    text = path.read_text()
    data = json_editor.load(text, "s", fmt="jsonc").data()
    assert data["agent"] == {"default_model": {"provider": "zed.dev", "model": "café"}}
    assert data["language_models"] == {
        "openai_compatible": {"gwconf": {"api_url": "https://elsewhere.example/v1"}}
    }
    end = original.index('  "vim_mode"')
    assert text.startswith(original[:end])  # the agent put back in its own spelling, in place
