"""bench/io_floor.py's strace reader and bench/io_replay.py: the file work a command is measured
against must be the same calls on the same paths, or the benchmark's floor means nothing."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import io_floor  # noqa: E402


def _hex(text: str) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in os.fsencode(text)) + '"'


def test_parse_keeps_only_the_calls_on_files_under_the_root(tmp_path: Path) -> None:
    root = str(tmp_path)
    tmp, final, other = f"{root}/a/.x.tmp", f"{root}/a/x", "/usr/lib/python3.11/os.py"
    log = "\n".join(
        [
            f"7 openat(AT_FDCWD, {_hex(other)}, O_RDONLY|O_CLOEXEC) = 3",
            '7 read(3, "\\x00"..., 4096) = 4096',
            "7 close(3) = 0",
            f"7 mkdir({_hex(root + '/a')}, 0700) = 0",
            f"7 mkdir({_hex(root + '/a')}, 0700) = -1 EEXIST (File exists)",
            f"7 openat(AT_FDCWD, {_hex(tmp)}, O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 4",
            '7 write(4, "\\x68\\x69", 2) = 2',
            "7 fchmod(4, 0600) = 0",
            "7 fsync(4) = 0",
            "7 close(4) = 0",
            f"7 renameat2(AT_FDCWD, {_hex(tmp)}, AT_FDCWD, {_hex(final)}, RENAME_NOREPLACE) = 0",
            f"7 link({_hex(final)}, {_hex(final + '.bak')}) = 0",
            f'7 listxattr({_hex(final)}, ""..., 256) = 34',  # (as strace -xx -s 0 prints it)
            f"7 listxattr({_hex(root + '/gone')}, 0x7fef7c7d1030, 256) = -1 ENOENT (No such file or directory)",
        ]
    )
    ops = io_floor.parse(log, root)
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    assert ops == [
        ("mkdir", f"{root}/a", 0o700),
        ("open", tmp, flags, 4),
        ("write", 4, 2),
        ("fchmod", 4, 0o600),
        ("fsync", 4),
        ("close", 4),
        ("renameat2", tmp, final, 1),
        ("link", final, final + ".bak"),
        ("listxattr", final),
    ]
    ops_file = tmp_path / "ops.bin"
    ops_file.write_bytes(marshal.dumps(ops))
    subprocess.run([sys.executable, str(BENCH / "io_replay.py"), str(ops_file)], check=True)
    assert Path(final).read_bytes() == b"xx" and os.path.samefile(final, final + ".bak")
    assert not Path(tmp).exists()


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_traced_atomic_write_replays_to_the_same_files(tmp_path: Path) -> None:
    """Record a real atomic write by gwconf's own fileio under strace; the replay, on a fresh
    folder, makes the same files with the same sizes."""
    target = tmp_path / "traced" / "f.json"
    script = (
        "import sys; from pathlib import Path; from gwconf import fileio; "
        f"fileio.atomic_write(Path({str(target)!r}), b'{{}}' * 100, mode=None, secret=True)"
    )
    log = tmp_path / "trace.log"
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-xx",
            "-s",
            "0",
            "-e",
            f"trace={io_floor.TRACED}",
            "-o",
            str(log),
            sys.executable,
            "-c",
            script,
        ],
        check=True,
    )
    ops = io_floor.parse(log.read_text(encoding="ascii"), str(tmp_path / "traced"))
    assert [op[0] for op in ops].count("fsync") >= 2, ops  # the file and its folder
    shutil.rmtree(tmp_path / "traced")
    (tmp_path / "ops.bin").write_bytes(marshal.dumps(ops))
    replay = subprocess.run(
        [sys.executable, str(BENCH / "io_replay.py"), str(tmp_path / "ops.bin")],
        capture_output=True,
        text=True,
    )
    assert replay.returncode == 0, (ops, replay.stderr)
    assert "\\x7b\\x7d" not in log.read_text(encoding="ascii")  # the data ("{}"...) was not logged
    assert target.stat().st_size == 200 and oct(target.stat().st_mode & 0o777) == "0o600"


def test_import_replay_imports_what_the_command_imported_and_runs_none_of_it(tmp_path: Path) -> None:
    """bench/import_replay.py: the recorder lists the modules ``gwconf profile list`` imported (the
    listing's own, no client's, no module the console entry defers and the listing never loads);
    the replay imports exactly those, PyYAML the way gwconf does even when a submodule is listed
    before the package, and does not run the command (no output, no file made in the empty home)."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "GWCONF_HOME": str(tmp_path / "gw")}
    names_file = tmp_path / "modules.bin"
    record = subprocess.run(
        [sys.executable, str(BENCH / "import_replay.py"), "record", str(names_file), "profile", "list"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert record.returncode == 0, record.stderr
    names = marshal.loads(names_file.read_bytes())
    assert "gwconf.cli" in names and "gwconf.profiles" in names
    assert "yaml" not in names and not any(n.startswith("gwconf.clients.") for n in names)
    assert "re" not in names and "ipaddress" not in names  # deferred by the entry, never loaded
    names_file.write_bytes(marshal.dumps([*names, "yaml.constructor", "yaml", "no_such_module_xyz"]))
    probe = (
        # the script's code run as a module's, not by runpy (whose pkgutil imports ``re``)
        f"import sys; wanted = sys.argv[2].split(); path = {str(BENCH / 'import_replay.py')!r}; "
        "space = {'__name__': 'import_replay'}; exec(compile(open(path).read(), path, 'exec'), space); "
        "space['replay'](sys.argv[1]); "
        "resolvers = sys.modules['yaml.resolver'].Resolver.yaml_implicit_resolvers; "
        "kinds = {type(pattern).__name__ for pairs in resolvers.values() for _, pattern in pairs}; "
        "print(sorted(set(wanted) - set(sys.modules)), type(sys.modules['re']).__name__, ','.join(sorted(kinds)))"
    )
    shutil.rmtree(tmp_path / "gw", ignore_errors=True)
    replay = subprocess.run(
        [sys.executable, "-c", probe, str(names_file), " ".join(names)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert replay.returncode == 0, replay.stderr
    missing, re_type, pattern_type = replay.stdout.split()
    assert missing == "[]"  # every recorded module is imported again
    assert re_type == "DeferredRe"  # as in the command: ``re`` itself never loaded
    assert pattern_type == "LazyPattern"  # PyYAML's resolvers were left to compile on first use
    assert not (tmp_path / "gw").exists()  # nothing ran: not even the state folder was made
    as_timed = subprocess.run(  # the way the benchmark runs it: ends with os._exit(0), prints nothing
        [sys.executable, str(BENCH / "import_replay.py"), str(names_file)], env=env, capture_output=True
    )
    assert (as_timed.returncode, as_timed.stdout, as_timed.stderr) == (0, b"", b"")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_instruction_counts_tell_more_work_from_less(tmp_path: Path) -> None:
    """``run.py --instructions``: each case counted once under callgrind; the floor row and a
    command row show their counts and the ratio."""
    import _util

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    floor = _util.Case("floor", [sys.executable, "-c", "pass"], env, tmp_path)
    busier = _util.Case("busier", [sys.executable, "-c", "sum(range(300000))"], env, tmp_path)
    _util.COUNT_INSTRUCTIONS = True
    try:
        _util.count_instructions([floor, busier])
    finally:
        _util.COUNT_INSTRUCTIONS = False
    assert floor.instructions and busier.instructions
    assert busier.instructions > floor.instructions + 1_000_000  # 300,000 additions, several each
    assert _util.instructions_text(floor, floor) == f"instructions {floor.instructions / 1e6:.1f}M"
    assert _util.instructions_text(busier, floor).endswith(
        f"= {busier.instructions / floor.instructions:.2f}x floor's"
    )
    unasked = _util.Case("unasked", [sys.executable, "-c", "pass"], env, tmp_path)
    _util.count_instructions([unasked])  # without --instructions: nothing is counted
    assert unasked.instructions is None and _util.instructions_text(unasked, floor) == ""
