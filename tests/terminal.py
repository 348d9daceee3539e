"""Drive a gwconf command on a real pseudo-terminal, answering its questions as a user types."""

from __future__ import annotations

import os
import pty
import select
import sys
import time


def run_on_a_terminal(
    args: list[str], answers: list[tuple[str, str]], env: dict[str, str], timeout: float = 60
) -> tuple[int, str]:
    """Run ``python -m gwconf ARGS`` on a pseudo-terminal; whenever the last line shown holds the
    first question's text, type its answer. Returns the exit code and everything shown (CRLF as
    LF); ``answers`` is left holding the questions never asked."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "gwconf", *args], env)
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if answers and answers[0][0].encode() in seen.rsplit(b"\n", 1)[-1]:
            os.write(fd, answers.pop(0)[1].encode() + b"\r")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace").replace("\r\n", "\n")
