"""Hermetic tests: every test runs in a temporary HOME with provider variables cleared.

A guard fails any test that resolves the real home folder (pre-commit's autouse fixture idea).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
import pwd
import re
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


# A gateway key's shape: what a failed test's report must not show whole. Test logs are logs (CI
# prints them), and an assertion such as ``assert KEY not in text`` puts the key in its report
# through pytest's introspection, more than once ("where" lines), and the text around it; a
# long value's repr is cut in the middle ("sk-gwc...456789abcdef").
_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9_-])sk-(?:[A-Za-z0-9_\-]*\.\.\.[A-Za-z0-9_\-]+|[A-Za-z0-9_\-]{8,})")


def _masked(text: str) -> str:
    return _KEY_SHAPE.sub(lambda m: f"sk-…{m.group()[-4:]}", text)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test's report (its traceback and captured output) with every key masked as
    gwconf masks it (``sk-…last4``)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.failed and report.longrepr is not None:
        text = str(report.longrepr)
        if _KEY_SHAPE.search(text):
            crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", "")
            # a text report's first line is the one the summary shows: the error, not "def test_..."
            report.longrepr = _masked(f"{crash.splitlines()[0]}\n\n{text}" if crash else text)
    report.sections = [(title, _masked(content)) for title, content in report.sections]


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


def init_yes(base_url: str, *flags: str, key: str | None = None, name: str = "work") -> CliResult:
    """``gwconf init --yes`` as a script runs it: profile ``name`` for ``base_url``, the key on
    standard input (the test gateway's own unless ``key``), then ``flags``."""
    from tests.gateway_server import VALID_KEY

    return invoke(
        "init", "--yes", "--name", name, "--base-url", base_url, "--key-stdin", *flags,
        input=(key or VALID_KEY) + "\n",
    )  # fmt: skip


def assert_nothing_saved(result: CliResult, code: int) -> None:
    """init stopped with ``code``, said so, and left no profile behind."""
    assert result.exit_code == code, result
    assert "Nothing was saved." in result.stderr
    assert invoke("profile", "list", "--json").stdout.count('"name"') == 0


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


def add_inactive_profile(name: str, base_url: str, key: str, model: str = "m2") -> None:
    """Save another profile (inline key, not made active): the one a test switches to."""
    result = invoke(
        "profile", "add", name, "--base-url", base_url, "--model", model, "--key-stdin", input=key + "\n"
    )
    assert result.exit_code == 0, result
