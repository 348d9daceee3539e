"""Before/after fixtures for client modules, checked through the real CLI.

A case is ``tests/fixtures/<client>/<case>/`` with ``before/`` and ``after/`` trees laid out
relative to HOME (``before/.codex/config.toml``). ``check_case`` copies ``before/`` into the test
HOME, runs ``gwconf apply <client>``, and asserts: the files equal ``after/`` byte for byte; a
second apply changes nothing (bytes and mtime); ``gwconf restore`` gives back ``before/``
exactly and removes files gwconf created. Set ``UPDATE_GOLDENS=1`` to (re)write
``after/`` from what gwconf produced, then review the diff before committing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def reading_of(client_id: str):  # type: ignore[no-untyped-def]
    """What gwconf reads back from the client's files now: status's and doctor's reading."""
    from gwconf import registry
    from gwconf.operations import read_client
    from gwconf.paths import Env

    return read_client(registry.get(client_id), Env.current())


def messages(result) -> str:  # type: ignore[no-untyped-def]
    """A reading's findings, one message a line."""
    return "\n".join(f.message for f in result.findings)


def assert_doctor_flags(gwconf, client_id: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    """doctor names ``needle`` for the client and does not call its provider ok."""
    doctor = gwconf("doctor", client_id)
    assert needle in doctor.stdout and "provider ok" not in doctor.stdout, doctor


def tree(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def snapshot(home: Path, names: list[str]) -> dict[str, tuple[bytes, int] | None]:
    result: dict[str, tuple[bytes, int] | None] = {}
    for name in names:
        path = home / name
        result[name] = (path.read_bytes(), path.stat().st_mtime_ns) if path.exists() else None
    return result


def check_case(client_id: str, case: str, gwconf, home: Path, *extra_args: str) -> None:
    case_dir = FIXTURES / client_id / case
    before = tree(case_dir / "before")
    for name, data in before.items():
        target = home / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    applied = gwconf("apply", client_id, *extra_args)
    assert applied.exit_code == 0, applied
    after_dir = case_dir / "after"
    produced_names = sorted(set(before) | set(tree(after_dir)) | _new_files(home, before))
    produced = {n: (home / n).read_bytes() for n in produced_names if (home / n).exists()}
    if os.environ.get("UPDATE_GOLDENS"):
        shutil.rmtree(after_dir, ignore_errors=True)
        for name, data in produced.items():
            (after_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (after_dir / name).write_bytes(data)
    expected = tree(after_dir)
    assert produced == expected, f"{client_id}/{case}: files differ from after/"

    first = snapshot(home, produced_names)
    again = gwconf("apply", client_id, *extra_args)
    assert again.exit_code == 0, again
    assert "nothing to change" in again.stdout
    assert snapshot(home, produced_names) == first, "a second apply changed bytes or mtime"

    restored = gwconf("restore", client_id)
    assert restored.exit_code == 0, restored
    now = {n: (home / n).read_bytes() for n in produced_names if (home / n).exists()}
    assert now == before, f"{client_id}/{case}: restore did not give back the original files"


def _new_files(home: Path, before: dict[str, bytes]) -> set[str]:
    """Files under HOME that are not gwconf's own state."""
    found = set()
    for path in home.rglob("*"):
        if path.is_file():
            found.add(str(path.relative_to(home)))
    return found - set(before)
