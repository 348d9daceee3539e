"""One GC-pause helper for every parser (issue 16: JSON and YAML each had their own)."""

from __future__ import annotations

import gc

from gwconf.formats import json as jsonfmt
from gwconf.formats import yaml as yamlfmt
from gwconf.formats._base import paused_gc


def test_pauses_and_gives_back_the_collector() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():  # nested: the inner one must not turn it back on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collector_is_back_after_a_parse_error() -> None:
    for load, bad in ((jsonfmt.load, "{"), (yamlfmt.load, "a: [")):
        try:
            load(bad, "f")
        except Exception:
            pass
        assert gc.isenabled()


def test_both_parsers_use_the_shared_helper() -> None:
    assert jsonfmt.paused_gc is paused_gc
    assert yamlfmt.paused_gc is paused_gc
    assert not hasattr(jsonfmt, "_paused_gc") and not hasattr(yamlfmt, "_no_gc")


def test_a_big_parse_leaves_its_objects_out_of_later_collections() -> None:
    """The collections a pause deferred would walk a big file's data at the next allocation:
    what a big parse made is frozen (small ones are not: a test run's garbage stays collectable)."""
    before = gc.get_freeze_count()
    try:
        yamlfmt.load("a: 1\n", "small.yaml")
        assert gc.get_freeze_count() == before
        doc = yamlfmt.load("".join(f"k{i}: [{i}, x]\n" for i in range(40_000)), "big.yaml")
        assert gc.get_freeze_count() > before + 40_000
        assert doc.data()["k7"] == [7, "x"] and gc.isenabled()
    finally:
        gc.unfreeze()


def test_in_process_callers_keep_no_parsed_file() -> None:
    """Tests run thousands of commands in one process: a kept tree each would be a leak."""
    import weakref

    import gwconf
    from gwconf import formats

    assert gwconf.kept_until_exit is None
    doc = formats.load("json", '{"a": [1, 2]}', "f.json")
    gone = weakref.ref(doc)
    del doc
    assert gone() is None


def test_a_process_that_ends_with_os_exit_keeps_its_parsed_files() -> None:
    """The console entry point sets the list, and then every parsed file stays alive to the end:
    freeing a 4 MB YAML file's tree object by object was a ninth of ``gwconf apply continue``."""
    import subprocess
    import sys

    probe = (
        "import atexit, sys, gwconf\n"
        "from gwconf import formats\n"
        "from gwconf.cli import main\n"
        # a handler makes main exit the usual way, so this one runs and can look
        "atexit.register(lambda: print(type(gwconf.kept_until_exit).__name__,"
        " formats.load('yaml', 'a: 1', 'f.yaml') in gwconf.kept_until_exit))\n"
        "main(['--version'])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "list True", done.stderr
