"""Rendering: text for people (colour only on a terminal without NO_COLOR), one JSON document for
scripts. Everything printed passes through ``redact`` so a full key never reaches the screen.

click is imported only when something needs it (a colour, text holding an escape code, a command
click runs): ``gwconf profile list`` prints through here without it (issue 15).
"""

from __future__ import annotations

import os
import sys

from gwconf.lazyre import lazy
from gwconf.secrets import redact, redact_data

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    import re
    from typing import Any

_known_keys: list[str] = []


def remember_key(key: str | None) -> None:
    """Keys seen by this command: masked wherever they would be printed."""
    if key and key not in _known_keys:
        _known_keys.append(key)


def known_keys() -> list[str]:
    """The keys this command has seen, for the crash log's redaction."""
    return list(_known_keys)


# What a terminal would act on, in text gwconf shows but did not write: a gateway's body, a model
# id, a line of a user's (or a cloned repository's) file in a diff. ESC and the C1 controls start
# sequences that set the window's title, clear the screen or write the clipboard (OSC 52); a lone
# CR, a backspace or a bidirectional override hides or reorders what is shown. gwconf's own
# colours (SGR with one code, ``ESC[1m``, ``ESC[31m``, not 8, "concealed"), tabs, newlines and
# CRLF stay.
_CONTROL = lazy(
    r"\x1b(?!\[(?:[0-7]|[239][0-9])m)|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)

# one character class: SRE scans for its first character at C speed, where ``_CONTROL``'s
# alternation steps through the text (10M instructions over a dry run's 51 KB, issue 15)
_CONTROL_ANY = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group()[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()[0]):04x}"  # only inside strings: JSON's own escape


def clean(text: str, *, json_text: bool = False) -> str:
    """``text`` redacted, with every control character a terminal would act on shown as an
    escape (``\\x1b``), or in JSON text as JSON's (``\\u009b``: json.dumps leaves C1 as it is)."""
    text = redact(text, _known_keys)
    if _CONTROL_ANY.search(text) is None:
        return text
    return _CONTROL.sub(_json_escaped if json_text else _shown, text)


def fit(text: str, err: bool = False) -> str:
    """``text`` as the terminal can encode it: ``…`` becomes ``...`` on a latin-1 or ASCII stream."""
    stream = sys.stderr if err else sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = text.replace("…", "...").replace("·", "-").replace("→", "->")
        text = text.encode(encoding, errors="replace").decode(encoding)
    except LookupError:
        pass
    return text


def use_colour(err: bool = False) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":  # a dumb terminal shows codes raw
        return False
    stream = sys.stderr if err else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


# click's colour codes (``click.termui._ansi_colors``), for ``ansi``
_FOREGROUND = {
    name: code
    for names, first in (
        (("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"), 30),
        (("bright_black", "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta",
          "bright_cyan", "bright_white"), 90),
    )
    for code, name in enumerate(names, first)
}  # fmt: skip


def ansi(text: str, fg: str | None = None, bold: bool | None = None) -> str:
    """``click.style(text, fg=fg, bold=bold)``, byte for byte (a test holds it to click's), without
    importing click: a terminal gets colours from every command, and click's import is 50 ms."""
    if fg is not None and fg not in _FOREGROUND:
        import click

        return click.style(text, fg=fg, bold=bold)
    codes = (f"\x1b[{_FOREGROUND[fg]}m" if fg is not None else "") + (
        "" if bold is None else "\x1b[1m" if bold else "\x1b[22m"
    )
    return f"{codes}{text}\x1b[0m"


def style(text: str, err: bool = False, **kwargs: Any) -> str:
    if not use_colour(err):
        return text
    if set(kwargs) <= {"fg", "bold"}:
        return ansi(text, **kwargs)
    import click

    return click.style(text, **kwargs)


# While a quick local command runs (``hold_output``), its lines to a stdout that is not a
# terminal are kept and written in one go when it ends: ``status`` on a home with every client
# applied made 219 writes for 219 lines, a write and a flush each (issue 15; Python's own buffer
# is no help under PYTHONUNBUFFERED). Terminals get each line as before. stderr is never held,
# and what stdout holds is written before each line to stderr, so the two interleave as printed.
_held: list[Any] = [None, []]  # the stdout being held (or None), and its lines


def hold_output() -> None:
    """Keep this command's stdout lines until ``release_output`` (a pipe or a file only)."""
    stream = sys.stdout
    if stream is not None and not getattr(stream, "isatty", lambda: True)():
        _held[0] = stream


def release_output() -> None:
    """Write what ``hold_output`` kept; each line is written at once from here on."""
    stream, lines = _held
    _held[0], _held[1] = None, []
    if stream is not None and lines:
        stream.write("".join(lines))
        stream.flush()


def echo(text: str, err: bool = False) -> None:
    """``click.echo(text)``; without click when it is not loaded and nothing in ``text`` is an
    escape code (click would strip those off a stream that is not a terminal, and translate them on
    Windows): then click would only add the newline, write and flush."""
    stream = sys.stderr if err else sys.stdout
    held = _held[0]
    if held is not None:
        if stream is held and "\x1b" not in text:  # click.echo would only write and flush it
            _held[1].append(text + "\n")
            return
        release_output()  # what was printed before this line comes before it
    if "click" in sys.modules or (
        "\x1b" in text and (os.name == "nt" or not getattr(stream, "isatty", lambda: False)())
    ):
        import click

        click.echo(text, err=err)
        return
    stream.write(text + "\n")
    stream.flush()


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 client``, ``2 clients``: counts read as sentences."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def out(text: str = "", *, quiet_ok: bool = False) -> None:
    """Print to stdout (suppressed by --quiet unless ``quiet_ok``)."""
    click = sys.modules.get("click")  # no click loaded: no command context, so no --quiet
    ctx = click.get_current_context(silent=True) if click is not None else None
    if ctx is not None and ctx.find_root().obj and ctx.find_root().obj.get("quiet") and not quiet_ok:
        return
    echo(fit(clean(text)))


def err(text: str) -> None:
    echo(fit(clean(text), err=True), err=True)


def warn(text: str) -> None:
    err(style("warning: ", err=True, fg="yellow") + text)


def emit_json(data: Any) -> None:
    """Redacted value by value before encoding (a secret inside a diff string is masked whatever
    JSON escaping would do to it), then as text once more for the keys this command knows."""
    import json

    data = json.loads(json.dumps(data, ensure_ascii=False, default=str))
    echo(fit(clean(json.dumps(redact_data(data, _known_keys), indent=2, ensure_ascii=False), json_text=True)))


# The next step for an error raised without its own hint (every error says what to do next).
FALLBACK_HINTS = {
    "WriteRefused": "Nothing was written. Fix what the message names, then run the command again.",
    "ConcurrentChange": "Nothing was written. Run the command again once the other program is done.",
    "ProfileError": "See your profiles with: gwconf profile list",
    "UsageError": "Add --help to the command for its options and examples.",
    "ClientError": "See what is wrong in detail with: gwconf doctor",
}


def print_error(exc: Any, as_json: bool = False) -> None:
    """``gwconf: error: …`` and ``hint: …`` on stderr; with ``as_json`` also one JSON object on stdout."""
    hint = getattr(exc, "hint", None) or _fallback_hint(exc)
    echo(fit(clean(style("gwconf: error: ", err=True, fg="red", bold=True) + str(exc)), True), err=True)
    echo(fit(clean(style("hint: ", err=True, fg="cyan") + hint), True), err=True)
    if as_json:
        code = getattr(exc, "exit_code", 1)
        emit_json({"error": str(exc), "hint": hint, "exit_code": int(code)})


def _fallback_hint(exc: Any) -> str:
    for kind in type(exc).__mro__:
        if kind.__name__ in FALLBACK_HINTS:
            return FALLBACK_HINTS[kind.__name__]
    return "Rerun with --debug for details, and report it if the message does not help."


def colour_diff(diff: str) -> str:
    if not use_colour():
        return diff
    lines = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            lines.append(ansi(line, bold=True))
        elif line.startswith("+"):
            lines.append(ansi(line, fg="green"))
        elif line.startswith("-"):
            lines.append(ansi(line, fg="red"))
        elif line.startswith("@@"):
            lines.append(ansi(line, fg="cyan"))
        else:
            lines.append(line)
    return "".join(lines)
