"""``registry.TIER_3`` names exactly the clients whose module says ``TIER = 3``: ``status``
skips importing those it has not applied, so a client missing from the set would only cost
time, but one wrongly in it would vanish from ``status``."""

from __future__ import annotations

from gwconf import registry


def test_tier_3_is_every_module_s_tier() -> None:
    assert {c.id for c in registry.all_clients() if c.tier == 3} == registry.TIER_3
    assert set(registry.IDS) >= registry.TIER_3


def test_status_imports_no_tier_3_client_it_has_not_applied(profile) -> None:  # type: ignore[no-untyped-def]
    from tests.test_startup_imports import probe_all

    found, _ = probe_all(["status"])
    assert found["code"] == 0
    tier_3 = {f"gwconf.clients.{registry.MODULES[client_id]}" for client_id in registry.TIER_3}
    assert "gwconf.clients.codex" in found["clients"]  # the others are imported to detect them
    assert not tier_3 & set(found["clients"])
