"""Replay a list of file operations recorded from a gwconf command (bench/io_floor.py).

``io_replay.py OPS`` reads ``OPS`` (marshal: a list of tuples) and performs each operation on the
same paths, in order, with the same flags and sizes: what a Python process that did nothing but
gwconf's file work would cost. It imports nothing but ``os`` and ``marshal`` (built in), and
``ctypes`` only when the list holds a ``renameat2`` (gwconf's compare-and-swap needs it too).
"""

import marshal
import os
import sys


def main() -> None:
    with open(sys.argv[1], "rb") as handle:
        ops = marshal.load(handle)
    fds: dict[int, int] = {}
    chunk = b"x" * 65536
    renameat2 = None
    for op in ops:
        kind = op[0]
        if kind == "open":
            fds[op[3]] = os.open(op[1], op[2], 0o600)
        elif kind == "read":
            os.read(fds[op[1]], op[2])
        elif kind == "write":
            left = op[2]
            while left > 0:
                left -= os.write(fds[op[1]], chunk[: min(left, len(chunk))])
        elif kind == "fsync":
            os.fsync(fds[op[1]])
        elif kind == "fdatasync":
            os.fdatasync(fds[op[1]])
        elif kind == "close":
            os.close(fds.pop(op[1]))
        elif kind == "fchmod":
            os.fchmod(fds[op[1]], op[2])
        elif kind == "fchown":
            os.fchown(fds[op[1]], op[2], op[3])
        elif kind == "chmod":
            os.chmod(op[1], op[2])
        elif kind == "listxattr":
            os.listxattr(op[1])
        elif kind == "rename":
            os.rename(op[1], op[2])
        elif kind == "renameat2":
            if renameat2 is None:
                import ctypes

                renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
            if renameat2(-100, os.fsencode(op[1]), -100, os.fsencode(op[2]), op[3]) != 0:
                raise OSError(f"renameat2 {op[1]} {op[2]}")
        elif kind == "link":
            os.link(op[1], op[2])
        elif kind == "unlink":
            os.unlink(op[1])
        elif kind == "mkdir":
            os.mkdir(op[1], op[2])
        elif kind == "rmdir":
            os.rmdir(op[1])
        elif kind == "flock":
            import fcntl

            fcntl.flock(fds[op[1]], op[2])
        else:
            raise ValueError(f"unknown operation {kind}")


if __name__ == "__main__":
    main()
