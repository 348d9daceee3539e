"""Jan (tier 3): printed steps only."""

from __future__ import annotations

from tests.clients._apps import check_steps


def test_steps(gwconf, home, profile) -> None:
    check_steps(
        gwconf, home, "jan", "'+ Add Provider'", "OpenAI Compatible", "https://gw.example.com/v1", "my-model"
    )


def test_the_tauri_app_is_found_by_its_linux_data_folder(home, monkeypatch) -> None:
    """Jan 0.6 on (Tauri, identifier jan.ai.app) keeps its WebView storage in
    ``$XDG_DATA_HOME/jan.ai.app`` on Linux, not in the Electron app's ``~/.config/Jan``."""
    from gwconf.clients import jan
    from gwconf.paths import Env

    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    env = Env(home=home, platform="linux", environ={"PATH": ""})
    assert not jan.detect(env)
    (home / ".local" / "share" / "jan.ai.app").mkdir(parents=True)
    assert jan.detect(env)
    moved = home / "data"
    (moved / "jan.ai.app").mkdir(parents=True)
    (home / ".local" / "share" / "jan.ai.app").rmdir()
    assert jan.detect(Env(home=home, platform="linux", environ={"PATH": "", "XDG_DATA_HOME": str(moved)}))
