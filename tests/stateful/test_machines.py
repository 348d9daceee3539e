"""The stateful model test (issues 13 and 18): one machine per format, each through a real client.

CI runs ``max_examples`` sequences of up to ``stateful_step_count`` steps per format, derandomized
(the same sequences on every run, no example database); ``pytest --slow`` multiplies the examples.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.stateful.drivers import DRIVERS
from tests.stateful.machine import STATS, Gateways, build_template, fast_base, machine_for

EXAMPLES = int(os.environ.get("GWCONF_STATEFUL_EXAMPLES", "200"))
STEPS = 12
SLOW_FACTOR = 10
# GWCONF_STATEFUL_NOSHRINK=1 while hunting: the first failure as found, without minutes of shrinking
PHASES = [p for p in Phase if p is not Phase.shrink or not os.environ.get("GWCONF_STATEFUL_NOSHRINK")]
# GWCONF_STATEFUL_RANDOM=1 while hunting: new sequences each run instead of CI's fixed ones
DERANDOMIZE = not os.environ.get("GWCONF_STATEFUL_RANDOM")


@pytest.fixture(scope="module")
def gateways() -> Iterator[Gateways]:
    servers = Gateways.start()
    yield servers
    servers.stop()


@pytest.mark.parametrize("fmt", sorted(DRIVERS))
def test_ownership_model(fmt: str, gateways: Gateways, request: pytest.FixtureRequest) -> None:
    driver = DRIVERS[fmt]
    root = Path(tempfile.mkdtemp(prefix="gwconf-stateful-", dir=fast_base()))
    template = build_template(root, driver, gateways)
    try:
        machine = machine_for(driver, gateways, template)
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=EXAMPLES * (SLOW_FACTOR if request.config.getoption("--slow") else 1),
                stateful_step_count=STEPS,
                deadline=None,
                derandomize=DERANDOMIZE,
                database=None,
                suppress_health_check=list(HealthCheck),
                print_blob=False,
                report_multiple_bugs=False,
                phases=PHASES,
            ),
        )
    finally:
        shutil.rmtree(root)
    sequences, steps = STATS.get(driver.fmt, [0, 0])
    request.node.user_properties.append(("sequences", sequences))
    request.node.user_properties.append(("steps", steps))
    print(f"{fmt} ({driver.client}): {sequences} sequences, {steps} steps")
