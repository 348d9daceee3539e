"""``gwconf run`` says when an administrator's layer wins over the launch.

An administrator's layer (Codex's /etc/codex/managed_config.toml, Claude Code's managed
settings, opencode's /etc/opencode, hermes's managed folder) wins over the user's files, and over
the options and variables a launch passes as well (codex-rs config_loader: managed config over
``--config``; Claude Code: managed settings over ``--settings``). Status and doctor said so for
the files; ``gwconf run`` started the client without a word, and the session went to the
company's endpoint or model instead of the gateway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

RUN_NOTE = "it wins over this launch as well, which may not reach the gateway"


def _codex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    from gwconf.clients import codex

    managed = tmp_path / "managed_config.toml"
    monkeypatch.setattr(codex, "MANAGED_CONFIG", managed)  # the real one is under /etc
    managed.write_text(
        'model_provider = "corp"\n[model_providers.corp]\nbase_url = "https://llm.corp.example/v1"\n'
    )
    return "sets model_provider, model_providers"


def _claude_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    from gwconf.clients import claude_code

    managed = tmp_path / "claude-code"
    managed.mkdir()
    monkeypatch.setitem(claude_code.MANAGED, "linux", managed)  # the real one is /etc/claude-code
    (managed / "managed-settings.json").write_text(
        json.dumps({"env": {"ANTHROPIC_BASE_URL": "https://llm.corp.example"}})
    )
    return "(managed by an administrator) sets Anthropic variables"


def _layer_in_env(
    variable: str, name: str, text: str, said: str
) -> Callable[[Path, pytest.MonkeyPatch], str]:
    """An administrator's folder that ``variable`` names (the real ones are under /etc)."""

    def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
        managed = tmp_path / "managed"
        managed.mkdir()
        (managed / name).write_text(text)
        monkeypatch.setenv(variable, str(managed))
        return said

    return make


_opencode = _layer_in_env(
    "OPENCODE_TEST_MANAGED_CONFIG_DIR",
    "opencode.json",
    '{"model": "corp/approved"}\n',
    "(managed by an administrator) sets model",
)
_hermes = _layer_in_env(
    "HERMES_MANAGED_DIR",
    "config.yaml",
    "model:\n  default: corp-model\n",
    "(managed by an administrator) pins model.default",
)


LAYERS = {"codex": _codex, "claude-code": _claude_code, "opencode": _opencode, "hermes": _hermes}


@pytest.mark.parametrize("client_id", sorted(LAYERS))
def test_a_launch_under_an_administrators_layer_says_it_loses(
    client_id: str, gwconf, home, profile, tmp_path, monkeypatch
) -> None:
    assert gwconf("apply", client_id).exit_code == 0  # the user's files point at the gateway
    before = gwconf("run", client_id, "--dry-run")
    assert before.exit_code == 0, before
    assert RUN_NOTE not in before.stdout  # no administrator's layer: nothing to say
    said = LAYERS[client_id](tmp_path, monkeypatch)
    preview = gwconf("run", client_id, "--dry-run")
    assert preview.exit_code == 0, preview
    [note] = [line for line in preview.stdout.splitlines() if RUN_NOTE in line]
    assert said in note and "ask the administrator" in note, note
    described = json.loads(gwconf("run", client_id, "--json").stdout)
    assert any(RUN_NOTE in n for n in described["notes"])


def test_a_launch_still_starts_when_the_clients_file_cannot_be_read(gwconf, home, profile) -> None:
    """The launch needs none of the client's files: one that does not parse takes no note away
    from it and stops nothing (apply would refuse it, and name its line)."""
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("model = [unclosed\n")
    preview = gwconf("run", "codex", "--dry-run")
    assert preview.exit_code == 0, preview
    assert RUN_NOTE not in preview.stdout


def test_a_finding_from_an_administrators_layer_says_so_in_json() -> None:
    """Scripts reading doctor --json tell the findings users cannot fix themselves apart."""
    from gwconf.clients._base import Finding

    plain = Finding("warning", "override", "a project file sets model")
    pinned = Finding(
        "error", "override", "/etc/x (managed by an administrator) sets model", administrator=True
    )
    assert "administrator" not in plain.to_json()  # the shape scripts already read, unchanged
    assert pinned.to_json()["administrator"] is True
