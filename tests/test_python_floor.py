"""The Python floor in pyproject.toml is honest (issue 13): no module needs anything newer.

On 3.10 every command once crashed on ``import tomllib`` while pyproject still said ``>=3.10``.
Two checks: every module parses with the floor's grammar (``ast.parse(feature_version=...)``),
and none imports a standard-library module or name added after the floor.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src" / "gwconf").rglob("*.py"))

# Standard-library modules and names added after 3.11 (What's New in Python 3.12, 3.13, 3.14).
NEWER_MODULES = {
    "annotationlib": (3, 14),
    "compression": (3, 14),
    "string.templatelib": (3, 14),
    "concurrent.interpreters": (3, 14),
}
NEWER_NAMES = {
    ("itertools", "batched"): (3, 12),
    ("typing", "override"): (3, 12),
    ("typing", "TypeAliasType"): (3, 12),
    ("typing", "TypeIs"): (3, 13),
    ("typing", "ReadOnly"): (3, 13),
    ("typing", "NoDefault"): (3, 13),
    ("typing_extensions", "override"): (3, 12),  # not a runtime dependency anyway
    ("warnings", "deprecated"): (3, 13),
    ("copy", "replace"): (3, 13),
    ("os", "process_cpu_count"): (3, 13),
    ("math", "sumprod"): (3, 12),
    ("math", "fma"): (3, 13),
    ("calendar", "Month"): (3, 12),
    ("calendar", "Day"): (3, 12),
    ("sys", "monitoring"): (3, 12),
    ("sys", "_is_gil_enabled"): (3, 13),
    ("random", "binomialvariate"): (3, 12),
    ("base64", "z85encode"): (3, 13),
    ("base64", "z85decode"): (3, 13),
    ("queue", "ShutDown"): (3, 13),
    ("shutil", "_fastcopy_sendfile"): (3, 12),
    ("os.path", "splitroot"): (3, 12),
    ("os.path", "isreserved"): (3, 13),
    ("inspect", "markcoroutinefunction"): (3, 12),
    ("inspect", "BufferFlags"): (3, 12),
    ("types", "get_original_bases"): (3, 12),
    ("tempfile", "_TemporaryFileCloser"): (3, 12),
    ("uuid", "uuid7"): (3, 14),
    ("pathlib", "UnsupportedOperation"): (3, 13),
}


def floor() -> tuple[int, int]:
    """(3, N) from ``requires-python = ">=3.N"``."""
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    match = re.fullmatch(r">=\s*3\.(\d+)", spec.strip())
    assert match, f"requires-python should be a plain floor, got {spec!r}"
    return 3, int(match.group(1))


def test_the_floor_is_a_supported_python() -> None:
    """3.10 is end of life and has no tomllib, which profiles.py and toml.py import."""
    assert floor() >= (3, 11)


def test_classifiers_and_ruff_target_agree_with_the_floor() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    low = floor()
    versions = [
        tuple(int(p) for p in c.rsplit(" :: ", 1)[1].split("."))
        for c in project["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert versions and min(versions) == low
    assert project["tool"]["ruff"]["target-version"] == f"py{low[0]}{low[1]}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_parses_with_the_floors_grammar(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=floor())


def _newer_uses(tree: ast.Module, low: tuple[int, int]) -> list[str]:
    found: list[str] = []
    aliases: dict[str, str] = {}  # local name -> module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if NEWER_MODULES.get(alias.name, (0, 0)) > low:
                    found.append(f"import {alias.name} (line {node.lineno})")
                if alias.asname:  # import os.path as osp: osp is os.path
                    aliases[alias.asname] = alias.name
                else:  # import os.path: binds os
                    aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if NEWER_MODULES.get(node.module, (0, 0)) > low:
                found.append(f"from {node.module} (line {node.lineno})")
            for alias in node.names:
                if NEWER_NAMES.get((node.module, alias.name), (0, 0)) > low:
                    found.append(f"from {node.module} import {alias.name} (line {node.lineno})")
                if NEWER_MODULES.get(f"{node.module}.{alias.name}", (0, 0)) > low:
                    found.append(f"from {node.module} import {alias.name} (line {node.lineno})")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = ast.unparse(node.value)
            first, _, rest = owner.partition(".")
            if first not in aliases:
                continue
            module = aliases[first] + ("." + rest if rest else "")
            if NEWER_NAMES.get((module, node.attr), (0, 0)) > low:
                found.append(f"{owner}.{node.attr} (line {node.lineno})")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_uses_a_standard_library_name_newer_than_the_floor(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert _newer_uses(tree, floor()) == []


def test_the_name_check_sees_both_import_forms() -> None:
    """The check itself: a module using 3.12's names in either form is caught."""
    source = (
        "import itertools\nfrom typing import override\nx = itertools.batched([1], 1)\nimport annotationlib\n"
    )
    found = _newer_uses(ast.parse(source), (3, 11))
    assert sorted(f.split(" (")[0] for f in found) == [
        "from typing import override",
        "import annotationlib",
        "itertools.batched",
    ]
    assert _newer_uses(ast.parse(source), (3, 14)) == []
