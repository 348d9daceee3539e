"""A failed test's report masks every gateway key (``tests/conftest.py``): CI prints test logs,
and ``assert KEY not in text`` puts the key in its report through pytest's introspection."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

KEY = "sk-gw-report-0123456789abcdefQRST"


def test_a_failed_reports_text_and_output_show_the_key_only_masked(
    pytester: pytest.Pytester, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest("from tests.conftest import pytest_runtest_makereport  # noqa: F401\n")
    pytester.makepyfile(
        f"""
        KEY = {KEY!r}

        def test_introspected():
            text = "value = " + KEY
            print("printed", KEY)
            assert KEY.encode() not in text.encode(), "the key landed"

        def test_long_repr_cut_in_the_middle():
            assert {{"key": KEY * 3}} == {{"key": "x"}}

        def test_passes():
            assert KEY
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    monkeypatch.setenv("HOME", str(hermetic_home))  # pytester's own, else undone after the fixture checks
    result.assert_outcomes(failed=2, passed=1)
    out = result.stdout.str()
    assert "sk-…QRST" in out and "printed sk-…QRST" in out  # masked, as gwconf masks
    assert "0123456789abcdef" not in out, "a report showed the key"
    assert "AssertionError: the key landed" in out
