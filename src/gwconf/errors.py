"""One error hierarchy and the stable exit codes (design.md section 6).

Every error says what happened, names the file (and line) when there is one, and says what to do.
Nothing below ``gwconf.cli`` calls ``sys.exit``: code raises these, the CLI maps them to exit codes.
"""

from __future__ import annotations


class ExitCode:
    """The exit codes, as plain integers: an ``IntEnum`` imported ``enum`` (with ``re`` deferred,
    its only other importer) into every command, 6M instructions (issue 15)."""

    OK = 0
    ERROR = 1  # expected error: bad file, missing profile, write refused
    USAGE = 2
    KEY_REJECTED = 3  # the gateway rejected the key
    GATEWAY_FAILED = 4  # unreachable, wrong base address, 404, 5xx, timeout
    CLIENT_CONFIG = 5  # doctor: key and service fine, the client's configuration is at fault
    CHANGES_PENDING = 6  # --check
    UNTRUSTED_ADDRESS = 7  # verify/doctor: the address is no profile's (a project file's?): nothing sent
    INTERRUPTED = 130
    CLOSED_PIPE = 141  # stdout closed early (``gwconf clients | head -1``): what SIGPIPE's end gives

    @classmethod
    def all(cls) -> dict[str, int]:
        """Every code by its name."""
        return {name: value for name, value in vars(cls).items() if name.isupper()}


class GwconfError(Exception):
    """An expected failure with a message for the user and a hint for what to do next."""

    exit_code: int = ExitCode.ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(GwconfError):
    exit_code = ExitCode.USAGE


class ParseError(GwconfError):
    """A file that cannot be parsed. It is never written."""

    def __init__(
        self,
        source: str,
        message: str,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        where = source
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(
            f"{where}: {message}",
            hint or "Fix the file by hand (gwconf never rewrites a file it cannot parse), then run again.",
        )
        self.source = source
        self.line = line
        self.column = column
        self.reason = message


class ProfileError(GwconfError):
    pass


class ClientError(GwconfError):
    pass


class NotSetUp(ClientError):
    """The client has nothing here to configure yet (no server folder, no file the app makes itself).

    Named explicitly, that is an error; under ``apply --all`` the client is skipped with this message.
    """


class WriteRefused(GwconfError):
    """A write that would be unsafe: a file changed underneath, a running app, a failed check."""


class ConcurrentChange(WriteRefused):
    pass


class FolderGone(GwconfError):
    """The current folder cannot be found any more (removed or moved while a shell was in it):
    project files, bindings and relative paths all start from it, so no command guesses one."""

    def __init__(self, shown: str | None, reason: str, removed: bool) -> None:
        where = f"the current folder ({shown})" if shown else "the current folder"
        why = "; it was removed or moved after the shell entered it" if removed else ""
        super().__init__(
            f"{where} cannot be read: {reason}{why}.",
            "cd to a folder that exists (say, cd ~) and run the command again.",
        )


class UntrustedAddress(GwconfError):
    """verify/doctor held a key back: the client would send it to an address that belongs to no
    gwconf profile (a project file in the current folder chose it?), and the user named none."""

    exit_code = ExitCode.UNTRUSTED_ADDRESS
