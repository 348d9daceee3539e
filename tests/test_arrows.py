"""The house's arrows, checked on the source: ``cli -> core -> clients -> formats -> fileio``.

Imports are read with ``ast`` from every module, at any depth (a function-level import is still an
arrow) and under ``TYPE_CHECKING`` too, so a new import that points the wrong way fails here
instead of in a maintainer's reading. Each rule names the modules that break it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "gwconf"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute, with ``from X import y`` counted as X and X.y."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


MODULES = {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def offenders(where: str, imported: tuple[str, ...]) -> list[str]:
    """Modules under ``where`` that import one of ``imported`` (or something below it)."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in MODULES.items()
        if module == where or module.startswith(where + ".")
        for target in targets
        if any(target == banned or target.startswith(banned + ".") for banned in imported)
    )


def test_the_source_was_read() -> None:
    assert {"gwconf.cli", "gwconf.plan", "gwconf.clients._base", "gwconf.formats.json"} <= set(MODULES)
    assert "click" in MODULES["gwconf.cli._root"]


def test_nothing_below_cli_imports_click() -> None:
    below = {m: t for m, t in MODULES.items() if not m.startswith("gwconf.cli")}
    wrong = sorted(m for m, targets in below.items() if any(t.split(".")[0] == "click" for t in targets))
    assert wrong == []


def test_nothing_below_cli_imports_cli() -> None:
    wrong = [
        line
        for line in offenders("gwconf", ("gwconf.cli",))
        if not line.startswith(("gwconf.cli", "gwconf.__main__ "))
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("where", "banned"),
    [
        # client modules fill the types of clients/_launch_types.py; launch.py reads them, never back
        (
            "gwconf.clients",
            (
                "gwconf.launch",
                "gwconf.cli",
                "gwconf.operations",
                "gwconf.plan",
                "gwconf.doctor",
                "gwconf.profiles",
            ),
        ),
        # the format editors know files, not clients or commands
        (
            "gwconf.formats",
            ("gwconf.clients", "gwconf.plan", "gwconf.profiles", "gwconf.launch", "gwconf.cli"),
        ),
        ("gwconf.fileio", ("gwconf.formats", "gwconf.clients", "gwconf.plan", "gwconf.cli")),
    ],
)
def test_arrows_point_one_way(where: str, banned: tuple[str, ...]) -> None:
    assert offenders(where, banned) == []


def test_no_client_knowledge_outside_clients() -> None:
    """No ``if client == "codex"`` below cli/: a client's quirks live in its own module."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "clients" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                sides = [node.left, *node.comparators]
                names = {getattr(s, "id", None) or getattr(s, "attr", None) for s in sides}
                texts = [s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
                if names & {"client_id", "id"} and any(t in _CLIENT_IDS for t in texts):
                    wrong.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert wrong == []


def _client_ids() -> set[str]:
    from gwconf import registry

    return set(registry.IDS)


_CLIENT_IDS = _client_ids()
