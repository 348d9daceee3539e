"""bench/least_worker.py, the least program the dry run and the apply are measured beside: it must
read what gwconf reads, really edit and write, and carry none of gwconf, or its figure says nothing
about how much of a command is gwconf's own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import least_worker  # noqa: E402

_JSONC = '{\n  // a "quote never closed\n  "a": [1, 2,], /* "b": 3, */ "b": "x,] // y",\n  "c": "\\"",\n}\n'


def test_jsonc_is_read_without_its_comments_and_trailing_commas_but_strings_are_kept() -> None:
    assert least_worker.parse("settings.json", _JSONC) == {"a": [1, 2], "b": "x,] // y", "c": '"'}


def test_long_strings_before_comments_are_read_in_linear_time() -> None:
    # the first version's comma pattern matched a string then a comma, with a repeat inside a
    # repeat for the string: each string not followed by one backtracked through every way of
    # splitting it, and the bench hung on the apply home (run apart, so a regression fails, not hangs)
    text = '{\n  "k": "' + "a" * 60 + '", // c\n  "m": "' + "b" * 60 + '" /* d */\n}\n'
    probe = f"import least_worker; print(least_worker.parse('x.jsonc', {text!r}))"
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=BENCH, capture_output=True, text=True, timeout=30, check=True
    )
    assert proc.stdout.strip() == repr({"k": "a" * 60, "m": "b" * 60})


def test_the_edit_adds_one_line_that_reads_back_as_the_same_data() -> None:
    for path, text in (
        ("a.json", '{\n  "a": 1,\n  "b": [2, 3]\n}\n'),
        ("a.yaml", "a: 1\nb:\n  - 2\n  - 3\nc: x\n"),
        ("a.toml", 'a = 1\n[t]\nb = "x"\nc = 2\n'),
        (".env", "A=1\nB=2\nC=3\n"),
    ):
        after, hunk = least_worker.edited(path, text)
        assert len(after.splitlines()) == len(text.splitlines()) + 1
        assert least_worker.parse(path, after) == least_worker.parse(path, text)
        assert hunk.startswith(f"--- {path}\n+++ {path}\n@@ ") and hunk.count("\n+") == 2


def test_an_edit_whose_middle_is_inside_a_block_scalar_goes_to_the_end() -> None:
    text = "a: 1\nb: |\n  one\n  two\n  three\n  four\n  five\nc: 2"  # no last line break
    before = least_worker.parse("a.yaml", text)
    after, _ = least_worker.edit("a.yaml", text, before)
    assert after == text + "\n# gateway\n"


def test_write_backs_up_and_replaces_each_file_and_imports_nothing_of_gwconf(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "cfg").mkdir(parents=True)
    files = {
        "a.json": _JSONC,
        "b.yaml": "a: 1\nkey: sk-least-0123456789abcdefWXYZ\nb: 2\n",
        "c.toml": "a = 1\nb = 2\n",
    }
    for name, text in files.items():
        (home / "cfg" / name).write_text(text, encoding="utf-8")
    (home / "cfg" / "a.json").chmod(0o640)
    listing = tmp_path / "files.txt"
    listing.write_text(
        "\n".join(str(home / "cfg" / n) for n in [*files, "missing.json"]) + "\n", encoding="utf-8"
    )
    state = tmp_path / "state"
    probe = (
        "import runpy, sys; sys.argv = sys.argv[1:]; "
        "code = 0\ntry: runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "except SystemExit as exc: code = exc.code\n"
        "print('gwconf modules:', sorted(m for m in sys.modules if m.split('.')[0] == 'gwconf')); sys.exit(code)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(BENCH / "least_worker.py"), "write", str(listing), str(state)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "3 files edited, 1 not read" in proc.stdout
    assert "gwconf modules: []" in proc.stdout
    assert "sk-least" not in proc.stdout + proc.stderr  # the hunks hold a file's lines: never shown
    for name, text in files.items():
        after = (home / "cfg" / name).read_text(encoding="utf-8")
        assert after != text and least_worker.parse(name, after) == least_worker.parse(name, text)
    assert sorted(
        p.read_text(encoding="utf-8") for p in state.iterdir() if p.name != "ledger.json"
    ) == sorted(files.values())
    assert (home / "cfg" / "a.json").stat().st_mode & 0o777 == 0o640
    assert not [p for p in (home / "cfg").iterdir() if p.name.endswith(".least-tmp")]
