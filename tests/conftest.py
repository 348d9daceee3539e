"""Hermetic tests: every test runs in a temporary HOME with provider variables cleared.

A guard fails any test that resolves the real home folder (pre-commit's autouse fixture idea).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
import pwd
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

from tests.hermetic import CLEARED, CLEARED_PREFIXES

pytest_plugins = ["tests.gateway_fixtures"]  # the test gateway: fixtures gateway, gateway_profile


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="more examples for the property and stateful tests (tests/stateful: x10)",
    )


REAL_HOME = pathlib.Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    for name in list(os.environ):
        if name.startswith(CLEARED_PREFIXES) or name in CLEARED:
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GWCONF_HOME", str(tmp_path / "gwconf"))
    monkeypatch.chdir(work)
    real_home = pathlib.Path.home

    def guarded_home() -> pathlib.Path:
        resolved = real_home()
        if resolved.resolve() == REAL_HOME:
            raise AssertionError("a test resolved the real home folder")
        return resolved

    monkeypatch.setattr(pathlib.Path, "home", staticmethod(guarded_home))
    yield home
    assert os.environ.get("HOME") == str(home), "a test changed HOME behind the fixture's back"


@pytest.fixture
def home(hermetic_home: pathlib.Path) -> pathlib.Path:
    return hermetic_home


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str
    output: str

    def __repr__(self) -> str:  # shown when an assertion fails
        return f"CliResult(exit_code={self.exit_code}, stdout={self.stdout!r}, stderr={self.stderr!r})"


# gwconf refuses to write a desktop app's settings while the app runs, and looks for it among every
# process on the machine. The tests that start a fake app (tests/clients/_apps.running_app) hold
# this lock exclusively while it lives; every in-process command holds it shared, so a command on
# the other pytest-xdist worker never sees a fake app that is not its own.
FAKE_APPS_LOCK = pathlib.Path(tempfile.gettempdir()) / f"gwconf-tests-fake-apps-{os.getuid()}.lock"
_fake_app_here = False


@contextlib.contextmanager
def fake_apps_lock(exclusive: bool) -> Iterator[None]:
    global _fake_app_here
    if _fake_app_here:  # this test started the fake app: its own commands must see it
        yield
        return
    with open(FAKE_APPS_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        _fake_app_here = exclusive
        try:
            yield
        finally:
            _fake_app_here = False
            fcntl.flock(handle, fcntl.LOCK_UN)


def invoke(*args: str, input: str | None = None) -> CliResult:
    """Run ``gwconf ARGS`` in-process through the real top-level handler."""
    from gwconf.cli import run

    runner = CliRunner()
    with fake_apps_lock(exclusive=False), runner.isolation(input=input) as (out, err, combined):
        code = run(list(args))
    return CliResult(code, out.getvalue().decode(), err.getvalue().decode(), combined.getvalue().decode())


@pytest.fixture
def gwconf():
    return invoke


TEST_KEY = "sk-test-0123456789abcdefWXYZ"


@pytest.fixture
def profile(gwconf) -> str:
    """A saved, active profile ``work`` with an inline key."""
    result = gwconf(
        "profile", "add", "work", "--base-url", "https://gw.example.com/v1", "--model", "my-model",
        "--key-stdin", "--use", input=TEST_KEY + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result
    return "work"
