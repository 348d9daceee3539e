"""A stand-in for a client program, for `gwconf run` tests (copied onto PATH under a client's name).

It writes what it got to ``$FAKE_REPORT/<program name>.json``: its arguments, its whole
environment, and every file it was pointed at (arguments and variables naming a path inside
``$TMPDIR``, where gwconf's launch folder lives, or any existing file given as an argument): text,
mode, and which entries are links. Then, by request: ``FAKE_EXIT=N`` exits N; ``FAKE_SELF_KILL=N``
ends itself with signal N; ``FAKE_WAIT=1`` writes ``<report>.ready`` and waits for a signal, which
it records before exiting 100 + N.
"""

import json
import os
import signal
import sys
import time


def describe(path):
    if os.path.islink(path):
        return {"link": os.readlink(path)}
    if os.path.isdir(path):
        return {"dir": True, "mode": oct(os.stat(path).st_mode & 0o777)}
    with open(path, encoding="utf-8", errors="replace") as handle:
        return {"text": handle.read(), "mode": oct(os.stat(path).st_mode & 0o777)}


def tree(root, depth=4):
    found = {}
    for folder, dirs, files in os.walk(root):
        level = os.path.relpath(folder, root).count(os.sep)
        for name in dirs + files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = describe(path)
        if level >= depth:
            dirs[:] = []
    return found


def main():
    name = os.path.basename(sys.argv[0])
    temp = os.environ.get("TMPDIR", "/nonexistent")
    seen = {}
    candidates = list(sys.argv[1:]) + list(os.environ.values())
    for value in candidates:
        inside = value.startswith(temp + os.sep)
        if os.path.isdir(value) and inside:
            seen[value] = {"tree": tree(value), **describe(value)}
        elif os.path.isfile(value) and (inside or value in sys.argv[1:]):
            seen[value] = describe(value)
    report = os.path.join(os.environ["FAKE_REPORT"], name + ".json")
    data = {"argv0": sys.argv[0], "args": sys.argv[1:], "env": dict(os.environ), "paths": seen}
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    if os.environ.get("FAKE_SELF_KILL"):
        os.kill(os.getpid(), int(os.environ["FAKE_SELF_KILL"]))
    if os.environ.get("FAKE_WAIT"):
        got = []

        def record(signum, frame):
            got.append(signum)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, record)
        with open(report + ".ready", "w") as handle:
            handle.write(str(os.getpid()))
        deadline = time.monotonic() + 60
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        data["signals"] = got
        with open(report, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        sys.exit(100 + got[0] if got else 99)
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))


if __name__ == "__main__":
    main()
