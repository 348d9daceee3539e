"""Shapes of real users' files that made a real client ignore what ``gwconf apply`` wrote, each
found by reading the client's shipped source (2026-11-29), and each run with the real program by
``test_real_client_on_a_home_of_another_shape``.

A variant's ``seed`` runs after the client's own offline seed (clients.py), with ``dead``: an
address on 127.0.0.1 where nothing listens, for the user's own provider. ``check`` looks at the
files after ``gwconf apply`` (the run itself proves that the client reads them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variant:
    client: str
    seed: Callable[[Path, Path, str], None]  # (home, cwd, dead address)
    apply_args: tuple[str, ...] = ()
    check: Callable[[Path, Path], None] | None = None  # (home, cwd) after apply


def _openclaw_legacy(home: Path, cwd: Path, dead: str) -> None:
    """Installed as Clawdbot: only ~/.clawdbot/clawdbot.json, which OpenClaw 2026.9.6 still reads."""
    (home / ".clawdbot").mkdir()
    (home / ".openclaw" / "openclaw.json").rename(home / ".clawdbot" / "clawdbot.json")
    (home / ".openclaw").rmdir()


def _openclaw_legacy_check(home: Path, cwd: Path) -> None:
    legacy = (home / ".clawdbot" / "clawdbot.json").read_text()
    assert "gwconf/my-model" in legacy and "the user's own server" in legacy
    assert not (home / ".openclaw" / "openclaw.json").exists()


def _qwen_moved_same_model(home: Path, cwd: Path, dead: str) -> None:
    """QWEN_HOME set in ~/.env, and the user's own entry of the same model id, listed first under
    a custom key, with the address Qwen Code saved when the user picked it."""
    (home / ".qwen").rename(home / "qwen-moved")
    (home / ".env").write_text("# the user's own\nQWEN_HOME=~/qwen-moved\n")
    settings = home / "qwen-moved" / "settings.json"
    data = json.loads(settings.read_text())
    data["model"] = {"name": "my-model", "baseUrl": dead + "/v1"}
    data["modelProviders"] = {"mine": [{"id": "my-model", "baseUrl": dead + "/v1", "envKey": "MINE_KEY"}]}
    data["providerProtocol"] = {"mine": "openai"}
    settings.write_text(json.dumps(data, indent=2))


def _kilo_both_names(home: Path, cwd: Path, dead: str) -> None:
    """A project holding kilo.jsonc and a legacy opencode.json: Kilo 7.7.7 reads opencode.json last."""
    provider = {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": dead + "/v1"}, "models": {"x": {}}}
    (cwd / "kilo.jsonc").write_text(
        '{\n  // mine\n  "model": "mine/x",\n  "provider": {"mine": ' + json.dumps(provider) + "}\n}\n"
    )
    (cwd / "opencode.json").write_text(json.dumps({"model": "mine/x"}, indent=2) + "\n")


def _gptme_models_default(home: Path, cwd: Path, dead: str) -> None:
    """``[models] default``, which gptme 0.35.1 takes over ``[env] MODEL``, on a provider that is down."""
    path = home / ".config" / "gptme" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        '[models]\ndefault = "mine/x"\n\n[[providers]]\nname = "mine"\n'
        f'base_url = "{dead}/v1"\napi_key = "sk-mine-0000"\ndefault_model = "x"\n'
    )


def _vibe_alias_tables(home: Path, cwd: Path, dead: str) -> None:
    """Models kept as ``[models.<alias>]`` tables (vibe 3.0.2 reads both forms)."""
    path = home / ".vibe" / "config.toml"
    path.write_text(
        'active_model = "mine"\n' + path.read_text() + '\n[[providers]]\nname = "down"\n'
        f'api_base = "{dead}/v1"\napi_key_env_var = "DOWN_KEY"\napi_style = "openai"\nbackend = "generic"\n'
        '\n[models.mine]\nname = "x"\nprovider = "down"\n'
    )


PI_SCOPE = ["local/x", "gwconf/*"]


def _pi_scope_by_glob(home: Path, cwd: Path, dead: str) -> None:
    """Scoped models led by the user's (down), gwconf's in scope through a glob: pi 0.73.1 starts
    with the saved default when it is in scope."""
    settings = home / ".pi" / "agent" / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "enabledModels": PI_SCOPE}, indent=2))
    local = {"baseUrl": dead + "/v1", "api": "openai-completions", "apiKey": "x", "models": [{"id": "x"}]}
    (home / ".pi" / "agent" / "models.json").write_text(json.dumps({"providers": {"local": local}}, indent=2))


def _pi_scope_check(home: Path, cwd: Path) -> None:
    assert json.loads((home / ".pi" / "agent" / "settings.json").read_text())["enabledModels"] == PI_SCOPE


def _codex_keyring_store(home: Path, cwd: Path, dead: str) -> None:
    """``cli_auth_credentials_store = "keyring"``: Codex never reads auth.json."""
    path = home / ".codex" / "config.toml"
    path.write_text('cli_auth_credentials_store = "keyring"\n' + path.read_text())


VARIANTS = {
    "codex-keyring-store": Variant(
        "codex", _codex_keyring_store, check=lambda home, cwd: _absent(home / ".codex" / "auth.json")
    ),
    "openclaw-clawdbot-home": Variant("openclaw", _openclaw_legacy, check=_openclaw_legacy_check),
    "qwen-code-moved-home-same-model": Variant(
        "qwen-code", _qwen_moved_same_model, check=lambda home, cwd: _absent(home / ".qwen" / "settings.json")
    ),
    "kilo-project-both-names": Variant(
        "kilo",
        _kilo_both_names,
        apply_args=("--project",),
        check=lambda home, cwd: _holds(cwd / "opencode.json", '"gwconf/my-model"'),
    ),
    "gptme-models-default": Variant("gptme", _gptme_models_default),
    "mistral-vibe-alias-tables": Variant("mistral-vibe", _vibe_alias_tables),
    "pi-scope-by-glob": Variant("pi", _pi_scope_by_glob, check=_pi_scope_check),
}


def _absent(path: Path) -> None:
    assert not path.exists(), path


def _holds(path: Path, text: str) -> None:
    assert text in path.read_text(), path.read_text()
