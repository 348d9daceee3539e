"""Which profile a command uses, and what chose it: ``--profile``, then ``$GWCONF_PROFILE``, then the
nearest ``.gwconf.toml`` from the current folder up to the home folder, then the active profile.

A ``.gwconf.toml`` lives in a repository, so it is untrusted input: it may hold one line,
``profile = "NAME"``, naming a profile saved on this machine. An address, a key, a model, a path
or anything else is refused (the error names the file and line) and nothing is sent anywhere:
the address and the key always come from the saved profile. ``GWCONF_PROFILE`` likewise holds a
name, never a path.

Imported by ``gwconf current``, which runs in shell prompts: standard library ``os`` only, no
TOML parser (the one line is read by hand, stricter than TOML).
"""

from __future__ import annotations

import os

FILE_NAME = ".gwconf.toml"
ENV_VAR = "GWCONF_PROFILE"

# what chose the profile: the words status, verify and current print
FLAG = "--profile"
ENVIRONMENT = "GWCONF_PROFILE"
FOLDER = "folder"
ACTIVE = "active"

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class BindingError(Exception):
    """A ``.gwconf.toml`` or ``$GWCONF_PROFILE`` gwconf refuses; ``path`` and ``line`` say where."""

    def __init__(self, message: str, hint: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.path = path
        self.line = line


class Choice:
    """The profile a command uses: its name (or path, from ``--profile``), the source that chose
    it (``FLAG``, ``ENVIRONMENT``, ``FOLDER``, ``ACTIVE``) and, for ``FOLDER``, the file."""

    __slots__ = ("file", "name", "source")

    def __init__(self, name: str | None, source: str | None, file: str | None = None) -> None:
        self.name = name
        self.source = source
        self.file = file

    def describe(self) -> str:
        """``GWCONF_PROFILE``, ``/work/app/.gwconf.toml``, ``--profile``, ``the active profile``."""
        if self.source == FOLDER:
            return str(self.file)
        if self.source == ACTIVE:
            return "the active profile"
        return str(self.source)

    def to_json(self) -> dict[str, str | None]:
        return {"profile": self.name, "source": self.source, "file": self.file}


def valid_name(name: str) -> bool:
    """The saved-profile name rule (``profiles.NAME_PATTERN``), without ``re``."""
    return (
        0 < len(name) <= 64
        and name[0].isascii()
        and name[0].isalnum()
        and all(c in _NAME_CHARS for c in name)
    )


def find_file(cwd: str, home: str) -> str | None:
    """The nearest ``.gwconf.toml`` from ``cwd`` upwards: up to ``home`` (included) when ``cwd``
    is inside it, else up to the file system's root."""
    folder = os.path.abspath(cwd)
    home = os.path.abspath(home) if home else ""
    while True:
        candidate = os.path.join(folder, FILE_NAME)
        if os.path.isfile(candidate):
            return candidate
        if folder == home:
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def parse(text: str, path: str) -> str:
    """The profile name in a ``.gwconf.toml``: comments, blank lines and one ``profile = "NAME"``."""
    found: str | None = None
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals or key != "profile":
            what = _describe_field(key) if equals else "a line that is not key = value"
            raise BindingError(
                f"{path}, line {number}: {what} is not allowed; a project's .gwconf.toml may only name a "
                "saved profile (nothing was sent anywhere).",
                'Keep only one line: profile = "NAME"  (the address, key and model live in the saved '
                "profile: gwconf profile list)",
                path,
                number,
            )
        if found is not None:
            raise BindingError(
                f"{path}, line {number}: profile is set twice.",
                'Keep only one line: profile = "NAME"',
                path,
                number,
            )
        found = _string(value.strip(), path, number)
    if found is None:
        raise BindingError(
            f"{path} names no profile.",
            'Write one line: profile = "NAME"  (or remove the file: gwconf use --dir --unset)',
            path,
        )
    return found


def _describe_field(key: str) -> str:
    lowered = key.lower().strip("[]\"' ")
    if any(word in lowered for word in ("url", "base", "host", "endpoint", "address")):
        return f"an address ({key})"
    if any(word in lowered for word in ("key", "token", "secret", "auth")):
        return f"a key ({key})"
    if "model" in lowered:
        return f"a model ({key})"
    return f"the field {key!r}"


def _string(value: str, path: str, number: int) -> str:
    """A quoted profile name, followed by nothing but an optional comment."""
    if value[:1] in ('"', "'"):
        end = value.find(value[0], 1)
        if end > 0:
            name, rest = value[1:end], value[end + 1 :].strip()
            if (not rest or rest.startswith("#")) and valid_name(name):
                return name
            if not rest or rest.startswith("#"):
                raise BindingError(
                    f"{path}, line {number}: {_what(name)} is not a saved profile's name; a project's "
                    ".gwconf.toml may only name a saved profile (nothing was sent anywhere).",
                    "Use a saved profile's name (letters, digits, '.', '_', '-'): gwconf profile list",
                    path,
                    number,
                )
    raise BindingError(
        f"{path}, line {number}: profile must be a quoted name.",
        'Write: profile = "NAME"',
        path,
        number,
    )


def _what(name: str) -> str:
    if "://" in name or name.lower().startswith(("www.", "localhost", "127.")):
        return "an address"
    if "/" in name or "\\" in name or name.endswith(".toml"):
        return "a path"
    if name.startswith("sk-"):
        return "a key"
    return repr(name)


def read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(4097)
    except (OSError, UnicodeDecodeError) as exc:
        raise BindingError(
            f"{path} cannot be read ({type(exc).__name__}).",
            "Fix or remove it: gwconf use --dir --unset",
            path,
        ) from None
    if len(text) > 4096:
        raise BindingError(
            f"{path} is too long for a profile binding.", 'Write one line: profile = "NAME"', path
        )
    return parse(text, path)


def from_environment(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """``$GWCONF_PROFILE``: a saved profile's name, or None when unset or empty."""
    value = environ.get(ENV_VAR) or ""
    if not value:
        return None
    if not valid_name(value):
        raise BindingError(
            f"GWCONF_PROFILE={value!r} is not a saved profile's name ({_what(value)}); it may only name one.",
            "Set it to a name from: gwconf profile list  (or: unset GWCONF_PROFILE)",
        )
    return value


def resolve(
    flag: str | None,
    environ: dict[str, str] | os._Environ[str],
    cwd: str,
    home: str,
    active: str | None,
) -> Choice:
    """The same order in every command. ``active`` is the active profile's name (or None)."""
    if flag is not None:  # even "" (refused later as a name, never read as "no flag")
        return Choice(flag, FLAG)
    named = from_environment(environ)
    if named:
        return Choice(named, ENVIRONMENT)
    file = find_file(cwd, home)
    if file is not None:
        return Choice(read_file(file), FOLDER, file)
    return Choice(active, ACTIVE if active else None)
