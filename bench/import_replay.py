"""Import exactly the modules a gwconf command imported, and nothing more (bench/io_floor.py).

``import_replay.py record OUT ARGS...`` runs ``gwconf ARGS`` in this process and writes the names of
the modules the command imported, in the order they were first imported, to ``OUT`` (marshal: a
list of str). ``import_replay.py OUT`` imports those names in that order and does nothing else:
what the command would cost if its code, once loaded, took no time at all. PyYAML is imported
the way gwconf imports it (``gwconf.formats._import_pyyaml``: its patterns compiled on first use),
so the replay pays what the command pays for it, not more. Both run with the stand-ins the
console entry puts in ``sys.modules`` first (``gwconf.cli._defer_unused_modules``: ``re``,
``ipaddress``, ``ntpath``): a module the command never loads is neither listed nor imported.
"""

import marshal
import sys


def record(out: str, args: list[str]) -> int:
    before = set(sys.modules)
    code = 1
    try:  # run(), not main(): main ends the process itself, before this could write the names
        from gwconf.cli import _defer_unused_modules, run
        from gwconf.lazyre import DeferredModule

        _defer_unused_modules()  # as main() does
        code = run(args)
    finally:
        names = [
            name
            for name, module in sys.modules.items()
            if name not in before and not isinstance(module, DeferredModule)  # a stand-in never loaded
        ]
        with open(out, "wb") as handle:
            marshal.dump(names, handle)
    return code


def replay(path: str) -> None:
    import importlib

    with open(path, "rb") as handle:
        names = marshal.load(handle)
    importlib.import_module("gwconf.cli")._defer_unused_modules()  # the command's first import
    for name in names:
        if name.partition(".")[0] == "yaml" and "yaml" not in sys.modules:
            # the package first, the way gwconf imports it: a submodule listed before it (the
            # recorder lists names in sys.modules' order, where "yaml" may come after its own
            # submodules) would import it plainly, patterns and all (10 ms more than gwconf pays)
            importlib.import_module("gwconf.formats")._import_pyyaml()
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError:  # a name a module set in sys.modules under another (e.g. os.path)
            pass


if __name__ == "__main__":
    del sys.path[0]  # this folder (bench/json5.py and friends), which gwconf's console script lacks
    if sys.argv[1] == "record":
        sys.exit(record(sys.argv[2], sys.argv[3:]))
    replay(sys.argv[1])
    # end as gwconf's console entry ends (gwconf.cli.main): without the interpreter's teardown,
    # which would otherwise be counted as the imports' cost
    import gc
    import os

    gc.freeze()
    os._exit(0)
