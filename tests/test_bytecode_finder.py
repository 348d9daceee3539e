"""``gwconf._bytecode.BytecodeFinder`` gives the module ``importlib`` gives, or lets it do the import.

The console entry puts the finder first on ``sys.meta_path`` (issue 15), so every later import of
a gwconf module goes through it: it must give the same module (names, spec, loader kind,
attributes, package folders, the code of the source as it is now) and leave everything it does
not take to ``importlib``. Each case runs in a fresh interpreter on a copy of the package,
compiled there, so what ``__pycache__`` holds is known.
"""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_registry_loader import compile_clients, copy_package  # a copy, compiled there

# modules, packages among them, that nothing imports before gwconf.cli.main installs the finder
MODULES = ["gwconf.plan", "gwconf.formats", "gwconf.formats.json", "gwconf.operations", "gwconf.cli._listing"]

PROBE = r"""
import importlib, importlib.machinery, json, sys
from gwconf import _bytecode
taken = []
if sys.argv[2] == "finder":
    real = _bytecode.BytecodeFinder.find_spec.__func__
    def watched(cls, name, path=None, target=None):
        spec = real(cls, name, path, target)
        if spec is not None:
            taken.append(name)
        return spec
    _bytecode.BytecodeFinder.find_spec = classmethod(watched)
    _bytecode.install()
out = {}
for name in sys.argv[1].split(","):
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}", "in_modules": name in sys.modules}
        continue
    spec = module.__spec__
    parent = sys.modules[name.rpartition(".")[0]]
    out[name] = {
        "taken": name in taken,
        "names": sorted(module.__dict__),
        "dunders": {k: str(getattr(module, k, None)) for k in ("__name__", "__file__", "__cached__", "__package__", "__path__")},
        "loader": isinstance(module.__loader__, importlib.machinery.SourceFileLoader),
        "spec": [spec.name, spec.origin, spec.cached, spec.has_location, spec.parent,
                 spec.loader is module.__loader__, spec.submodule_search_locations],
        "bound": getattr(parent, name.rpartition(".")[2], None) is module,
        "filenames": sorted({f.__code__.co_filename for f in vars(module).values()
                             if getattr(f, "__module__", None) == name and hasattr(f, "__code__")}),
        "source": module.__loader__.get_source(name)[:40],
        "doc": (module.__doc__ or "")[:30],
    }
print(json.dumps(out))
"""


def probe(root: Path, names: list[str], *, finder: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(root)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the probe must not write the bytecode it is tested on
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(names), "finder" if finder else "importlib"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_finder_gives_the_module_importlib_gives(tmp_path: Path) -> None:
    compiled = copy_package(tmp_path)
    compile_clients(compiled)
    root = compiled.rename(tmp_path / "moved")  # the bytecode names the old folder: fixed on load
    quick = probe(root, MODULES)
    plain = probe(root, MODULES, finder=False)
    for name in MODULES:
        got, want = quick[name], plain[name]
        assert got["taken"] is True and want["taken"] is False, name
        assert got["bound"] and got["loader"]
        assert got["dunders"]["__file__"] in got["filenames"]
        assert not any(f.startswith(str(tmp_path / "site")) for f in got["filenames"]), got["filenames"]
        del got["taken"], want["taken"]
        assert got == want, name
    assert quick["gwconf.formats"]["dunders"]["__path__"] == str([str(root / "gwconf" / "formats")])


def test_the_code_comes_from_the_source_as_it_is_now(tmp_path: Path) -> None:
    """Bytecode that does not match its source (another size and the same mtime, or the same size
    and another mtime) is not used: importlib reads the source."""
    root = copy_package(tmp_path)
    compile_clients(root)
    plan, ledger = root / "gwconf" / "plan.py", root / "gwconf" / "ledger.py"
    compiled_at = plan.stat()
    first = plan.read_text().split("\n", 1)[0]
    plan.write_text(plan.read_text().replace(first, first.replace('"""', '"""Edited. ', 1), 1))
    os.utime(plan, ns=(compiled_at.st_atime_ns, compiled_at.st_mtime_ns))  # only the size tells
    text = ledger.read_text()
    ledger.write_text(text.replace('"""', '"""!', 1).replace("\n\n", "\n", 1))  # same size
    stat = ledger.stat()
    os.utime(ledger, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))  # only the mtime tells
    got = probe(root, ["gwconf.plan", "gwconf.ledger", "gwconf.formats.toml"])
    assert got["gwconf.plan"]["taken"] is False and got["gwconf.plan"]["doc"].startswith("Edited. ")
    assert got["gwconf.ledger"]["taken"] is False and got["gwconf.ledger"]["doc"].startswith("!")
    assert got["gwconf.formats.toml"]["taken"] is True


@pytest.mark.parametrize("kind", ["hash-checked", "none"])
def test_other_bytecode_goes_to_importlib(tmp_path: Path, kind: str) -> None:
    root = copy_package(tmp_path)
    if kind == "hash-checked":
        compile_clients(root, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    got = probe(root, MODULES)
    for name in MODULES:
        assert got[name]["taken"] is False, name
        assert got[name]["bound"] and got[name]["loader"]


def test_a_module_that_fails_to_run_is_not_left_half_made(tmp_path: Path) -> None:
    root = copy_package(tmp_path)
    plan = root / "gwconf" / "plan.py"
    plan.write_text(plan.read_text() + "\nraise RuntimeError('plan is broken here')\n")
    compile_clients(root)
    got = probe(root, ["gwconf.plan", "gwconf.ledger"])
    assert got["gwconf.plan"] == {"error": "RuntimeError: plan is broken here", "in_modules": False}
    assert got["gwconf.ledger"]["taken"] is True


def test_the_console_entry_installs_it(tmp_path: Path) -> None:
    """``gwconf`` as a process runs with the finder first on ``sys.meta_path``; in-process callers
    (these tests) import as usual."""
    from gwconf import _bytecode

    assert _bytecode.BytecodeFinder not in sys.meta_path
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GWCONF"))}
    env.update(HOME=str(tmp_path), GWCONF_HOME=str(tmp_path / "gw"))
    script = (  # an exit handler: the entry then ends the usual way, and the handler runs last
        "import sys, atexit, gwconf._bytecode as b, gwconf.cli as c\n"
        "atexit.register(lambda: print('FIRST', sys.meta_path[0] is b.BytecodeFinder, file=sys.stderr))\n"
        "c.main(['profile', 'list'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert "FIRST True" in done.stderr, done.stderr
