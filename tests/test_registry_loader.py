"""``registry.get`` loads a client module from its bytecode as ``importlib`` would, or lets
``importlib`` do it.

The registry skips ``importlib``'s finder and loader for client modules (issue 15), so it must
give the same module: the same names, spec, loader and parent binding, the code of the source as
it is now. Each case runs in a fresh interpreter on a copy of the package, compiled there, so
what ``__pycache__`` holds is known: bytecode that matches (the quick path), a source changed
after it was compiled, hash-checked bytecode, no bytecode at all, and a module that fails to run.
"""

from __future__ import annotations

import compileall
import json
import os
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gwconf
from gwconf import registry

SRC = Path(gwconf.__file__).parent

# in a fresh interpreter: load the given clients through the registry, then report what each
# module is, and whether the quick path or importlib loaded it
PROBE = r"""
import importlib, json, sys
from gwconf import registry
quick = {}
real = registry._from_bytecode
def watched(name):
    module = real(name)
    quick[name] = module is not None
    return module
registry._from_bytecode = watched
out = {}
for client_id in sys.argv[1].split(","):
    name = f"gwconf.clients.{registry.MODULES[client_id]}"
    try:
        adapter = registry.get(client_id)
    except Exception as exc:
        out[client_id] = {"error": f"{type(exc).__name__}: {exc}", "in_modules": name in sys.modules}
        continue
    module = sys.modules[name]
    spec = module.__spec__
    out[client_id] = {
        "quick": quick.get(name),
        "names": sorted(module.__dict__),
        "dunders": {k: str(getattr(module, k)) for k in ("__name__", "__file__", "__cached__", "__package__")},
        "loader": type(module.__loader__).__name__,
        "spec": [spec.name, spec.origin, spec.cached, spec.has_location, spec.parent, type(spec.loader).__name__,
                 spec.loader is module.__loader__, spec.submodule_search_locations],
        "bound": getattr(sys.modules["gwconf.clients"], name.rpartition(".")[2], None) is module,
        "same_import": importlib.import_module(name) is module,
        "filenames": sorted({f.__code__.co_filename for f in vars(module).values()
                             if getattr(f, "__module__", None) == name and hasattr(f, "__code__")}),
        "name": adapter.name,
    }
print(json.dumps(out))
"""

SOME = ["codex", "zed", "continue", "aider"]


def copy_package(tmp_path: Path) -> Path:
    """A copy of the gwconf package without bytecode; returns the folder to put on sys.path."""
    root = tmp_path / "site"
    shutil.copytree(SRC, root / "gwconf", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def probe(root: Path, clients: list[str], *, importlib_only: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(root)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the probe must not write the bytecode it is tested on
    script = PROBE
    if importlib_only:
        script = script.replace(
            "registry._from_bytecode = watched", "registry._from_bytecode = lambda name: None"
        )
    done = subprocess.run(
        [sys.executable, "-c", script, ",".join(clients)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def compile_clients(root: Path, **options: object) -> None:
    """Compile the copy's whole package (its client modules among them)."""
    assert compileall.compile_dir(str(root / "gwconf"), quiet=1, **options)  # type: ignore[arg-type]


def test_the_quick_path_gives_the_module_importlib_gives(tmp_path: Path) -> None:
    compiled = copy_package(tmp_path)
    compile_clients(compiled)
    root = compiled.rename(tmp_path / "moved")  # the bytecode names the old folder: fixed on load
    quick = probe(root, list(registry.IDS))
    plain = probe(root, list(registry.IDS), importlib_only=True)
    assert sum(quick[c]["quick"] is True for c in registry.IDS) >= len(registry.IDS) - 3
    for client_id in registry.IDS:
        got, want = quick[client_id], plain[client_id]
        # quick, or (None) imported before by another client module's import statement (kilo's of
        # opencode), through importlib as every import statement is
        assert got["quick"] in (True, None), client_id
        assert want["quick"] is None, client_id
        source = str(root / "gwconf" / "clients" / f"{registry.MODULES[client_id]}.py")
        assert got["dunders"]["__file__"] == source and got["filenames"] == [source]
        assert got["bound"] and got["same_import"]
        del got["quick"], want["quick"]
        assert got == want, client_id


def test_the_code_comes_from_the_source_as_it_is_now(tmp_path: Path) -> None:
    """Bytecode that does not match its source (another size and the same mtime, or the same size
    and another mtime) is not used: the module runs the source's code, as importlib would have it."""
    root = copy_package(tmp_path)
    compile_clients(root)
    clients = root / "gwconf" / "clients"
    codex, zed = clients / "codex.py", clients / "zed.py"
    compiled_at = codex.stat()
    codex.write_text(codex.read_text().replace('"""OpenAI Codex CLI', '"""OpenAI Codex CLI, edited', 1))
    os.utime(codex, ns=(compiled_at.st_atime_ns, compiled_at.st_mtime_ns))  # only the size tells
    text = zed.read_text()
    assert '"""Zed' in text
    zed.write_text(text.replace('"""Zed', '"""ZED', 1))  # same size: only the mtime tells
    stat = zed.stat()
    os.utime(zed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    got = probe(root, ["codex", "zed", "aider"])
    assert got["codex"]["quick"] is False and got["zed"]["quick"] is False
    assert got["aider"]["quick"] is True
    docs = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gwconf.clients.codex as c, gwconf.clients.zed as z; print(c.__doc__[:25], z.__doc__[:3])",
        ],
        env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert docs.stdout.split() == ["OpenAI", "Codex", "CLI,", "edited", "ZED"]


@pytest.mark.parametrize("kind", ["hash-checked", "none"])
def test_other_bytecode_goes_to_importlib(tmp_path: Path, kind: str) -> None:
    root = copy_package(tmp_path)
    if kind == "hash-checked":
        compile_clients(root, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    got = probe(root, SOME)
    for client_id in SOME:
        assert got[client_id]["quick"] is False, client_id
        assert got[client_id]["bound"] and got[client_id]["same_import"]


def test_a_module_that_fails_to_run_is_not_left_half_made(tmp_path: Path) -> None:
    root = copy_package(tmp_path)
    zed = root / "gwconf" / "clients" / "zed.py"
    zed.write_text(zed.read_text() + "\nraise RuntimeError('zed is broken here')\n")
    compile_clients(root)
    got = probe(root, ["zed", "codex"])
    assert got["zed"] == {"error": "RuntimeError: zed is broken here", "in_modules": False}
    assert got["codex"]["quick"] is True
