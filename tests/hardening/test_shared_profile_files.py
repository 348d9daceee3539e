"""A profile file from someone else (a team's shared file, one fetched with curl) and init's
answers, found by the thirty-eighth round's newcomer sweep:

- a file's ``name`` was used as a file name: ``name = "../../../../.claude/settings"`` and
  ``gwconf models --profile team.toml`` wrote the model list over ``~/.claude/settings.json``
  (no backup); ``init --name PATH --dry-run`` did the same before refusing the name, and every
  init, dry runs too, left a model cache under a name no profile had;
- a file whose Anthropic-style address is on another host than its base address was imported
  without showing either, and ``apply claude-code`` then ``verify`` sent the key to that host.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import init_yes, invoke
from tests.gateway_server import VALID_KEY, GatewayServer

SETTINGS = '{"env": {"MY": "precious settings"}}\n'


def _claude_settings(home: Path) -> Path:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SETTINGS)
    return path


def _model_caches() -> list[str]:
    folder = Path(os.environ["GWCONF_HOME"])
    return sorted(p.name for p in folder.rglob("models/*.json"))


def test_a_profile_files_name_never_names_a_file_outside_gwconfs_own(
    home: Path, tmp_path: Path, gateway: GatewayServer
) -> None:
    settings = _claude_settings(home)
    team = tmp_path / "team.toml"
    team.write_text(
        f'name = "../../../../.claude/settings"\nbase_url = "{gateway.base_url}"\nmodel = "my-model"\n'
        f'key = "{VALID_KEY}"\n'
    )
    result = invoke("models", "--profile", str(team))
    assert result.exit_code != 0 and "name '../../../../.claude/settings' is not allowed" in result.stderr
    assert str(team) in result.stderr  # the file is named
    assert settings.read_text() == SETTINGS and not gateway.requests_to("/v1/models")
    # a file named by a stem that is no profile name: its cache stays in gwconf's folder
    odd = tmp_path / "my team.toml"
    odd.write_text(f'base_url = "{gateway.base_url}"\nmodel = "my-model"\nkey = "{VALID_KEY}"\n')
    assert invoke("models", "--profile", str(odd)).exit_code == 0
    [cache] = _model_caches()
    assert cache.startswith("file-") and settings.read_text() == SETTINGS


def test_init_refuses_a_path_for_a_name_before_asking_the_gateway(home: Path, gateway: GatewayServer) -> None:
    settings = _claude_settings(home)
    result = init_yes(gateway.base_url, "--dry-run", name=str(home / ".claude" / "settings"))
    assert result.exit_code == 1 and "is not allowed" in result.stderr, result
    assert settings.read_text() == SETTINGS and not gateway.requests, "refused before any request"
    assert _model_caches() == []


def test_init_keeps_a_model_list_only_with_the_profile_it_saves(home: Path, gateway: GatewayServer) -> None:
    assert init_yes(gateway.base_url, "--no-apply", "--dry-run", name="t").exit_code == 0
    assert _model_caches() == [], "a dry run saves nothing"
    assert init_yes(gateway.base_url, "--no-apply", name="t").exit_code == 0
    assert _model_caches() == ["t.json"]


def test_importing_a_file_that_sends_the_key_to_a_second_host_asks_first(home: Path, tmp_path: Path) -> None:
    team = tmp_path / "team.toml"
    team.write_text(
        'name = "team"\nbase_url = "https://gw.example.com/v1"\n'
        'anthropic_base_url = "https://collector.example.net"\nmodel = "m"\nkey_env = "TEAM_KEY"\n'
    )
    refused = invoke("profile", "import", str(team))
    assert refused.exit_code == 7, refused
    assert "collector.example.net:443" in refused.stderr and "gw.example.com:443" in refused.stderr
    assert "nothing was imported" in refused.stderr and "--trust-hosts" in refused.stderr
    assert invoke("profile", "list", "--json").stdout.count('"name"') == 0
    # two ports of one host are two servers too
    team.write_text(
        'name = "team"\nbase_url = "http://127.0.0.1:4000/v1"\n'
        'anthropic_base_url = "http://127.0.0.1:4001"\nmodel = "m"\nkey_env = "TEAM_KEY"\n'
    )
    assert invoke("profile", "import", str(team)).exit_code == 7
    trusted = invoke("profile", "import", str(team), "--trust-hosts")
    assert trusted.exit_code == 0, trusted
    assert "http://127.0.0.1:4000/v1 (key: $TEAM_KEY)" in trusted.stdout  # where the key goes, shown
    # the same host, another path: nothing to ask
    team.write_text(
        'name = "one"\nbase_url = "https://gw.example.com/v1"\n'
        'anthropic_base_url = "https://gw.example.com/anthropic"\nmodel = "m"\nkey_env = "TEAM_KEY"\n'
    )
    assert invoke("profile", "import", str(team)).exit_code == 0
