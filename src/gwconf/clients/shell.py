"""The shell environment: one gwconf block in ``~/.bashrc`` / ``~/.zshrc``, fish's ``conf.d/gwconf.fish``
and the PowerShell profile, exporting the variables every OpenAI SDK program reads.

Not a program: the route for the many tools that read ``OPENAI_BASE_URL`` / ``OPENAI_API_BASE`` +
``OPENAI_API_KEY`` (the OpenAI SDKs' own defaults), plus the
Anthropic-style (``ANTHROPIC_BASE_URL`` + ``ANTHROPIC_AUTH_TOKEN``) and Gemini-style
(``GOOGLE_GEMINI_BASE_URL`` + ``GEMINI_API_KEY``) pairs when the profile sets those addresses
explicitly (a derived guess is not exported to every program on the machine). Which files:
the start-up files of the shells the user has (the file exists, or ``$SHELL`` names that shell);
on Windows the PowerShell profile. Checked against bash 5.2
(https://www.gnu.org/software/bash/manual/html_node/Bash-Startup-Files.html), zsh 5.9
(``$ZDOTDIR``), fish 3.7 (``$XDG_CONFIG_HOME/fish/conf.d``) and PowerShell 7.4 / Windows
PowerShell 5.1 (``Documents\\PowerShell``, ``Documents\\WindowsPowerShell``).

``gwconf run shell -- CMD`` runs any command with the variables ``render()`` would export (no
CMD: the user's shell).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, fresh_document
from gwconf.errors import GwconfError
from gwconf.fileio import read_snapshot
from gwconf.formats import Document, lazy
from gwconf.paths import Env
from gwconf.records import fields, record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "shell"
NAME = "Shell environment"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ()
DOCS = "https://www.gnu.org/software/bash/manual/html_node/Bash-Startup-Files.html"
RESTART = (
    "Only terminals opened from now on get the new variables: open a new terminal (or, in an open one, "
    "`source ~/.bashrc` / `source ~/.zshrc` / `exec fish` / `. $PROFILE`). Programs started from the "
    "desktop, dock or Start menu do not read shell files: start them from a new terminal, or configure "
    "them through their own gwconf client."
)
RESTAMPED: tuple[str, ...] = ()

OPENAI_VARS = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY")
ANTHROPIC_VARS = ("ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN")
GEMINI_VARS = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY")
MANAGED = OPENAI_VARS + ANTHROPIC_VARS + GEMINI_VARS
# Variables that, set next to gwconf's pair, change what the program does with it.
RIVALS = {"ANTHROPIC_AUTH_TOKEN": "ANTHROPIC_API_KEY", "GEMINI_API_KEY": "GOOGLE_API_KEY"}

PS7 = ("Documents", "PowerShell", "Microsoft.PowerShell_profile.ps1")
PS5 = ("Documents", "WindowsPowerShell", "Microsoft.PowerShell_profile.ps1")


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


@record
class ShellTarget(Target):
    """The OpenAI-style target plus the family addresses the profile sets explicitly."""

    anthropic_base: str | None = None
    gemini_base: str | None = None


def target(profile: Any, env: Env) -> ShellTarget:
    base = default_target(sys.modules[__name__], profile, env)
    values = {f.name: getattr(base, f.name) for f in fields(Target)}
    values["model"] = None  # no variable carries a model every program agrees on
    return ShellTarget(
        **values,
        anthropic_base=profile.anthropic_base_url or None,
        gemini_base=profile.gemini_base_url or None,
    )


# -- which files ----------------------------------------------------------------------------------


def login_shell(env: Env) -> str | None:
    """The user's shell as ``$SHELL`` names it (``bash``, ``zsh``, ``fish``...)."""
    value = env.get("SHELL")
    if not value:
        return None
    name = value.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe") or None


def _candidates(env: Env) -> dict[str, ConfigFile]:
    home = env.home
    zdotdir = Path(env.get("ZDOTDIR") or home)
    return {
        "bash": ConfigFile("bash", home / ".bashrc", "shellrc", secret=True),
        "zsh": ConfigFile("zsh", zdotdir / ".zshrc", "shellrc", secret=True),
        "fish": ConfigFile(
            "fish", env.xdg_config_home / "fish" / "conf.d" / "gwconf.fish", "fish", secret=True
        ),
        "pwsh": ConfigFile(
            "pwsh",
            env.xdg_config_home / "powershell" / "Microsoft.PowerShell_profile.ps1",
            "powershell",
            secret=True,
        ),
    }


def _documents(env: Env) -> list[Path]:
    """Where Windows keeps the PowerShell profiles: Documents, or OneDrive's when it was moved there."""
    folders = [env.home / "Documents"]
    onedrive = env.get("OneDrive") or env.get("ONEDRIVE")
    if onedrive:
        folders.append(Path(onedrive) / "Documents")
    return folders


def files(env: Env) -> list[ConfigFile]:
    """The start-up files of the shells this user has; the login shell's first."""
    if env.platform == "win32":
        return _windows_files(env)
    found = _candidates(env)
    shell = login_shell(env)
    chosen: list[str] = []
    if shell in ("bash", "zsh", "fish", "pwsh"):
        chosen.append(shell)
    for role, file in found.items():
        if role in chosen:
            continue
        present = file.path.exists() or (role == "fish" and file.path.parent.parent.is_dir())
        if present:
            chosen.append(role)
    if not chosen:  # no rc file and an unknown or missing $SHELL: the platform's default shell
        chosen.append("zsh" if env.platform == "darwin" else "bash")
    return [found[role] for role in chosen]


def _windows_files(env: Env) -> list[ConfigFile]:
    chosen: list[ConfigFile] = []
    for role, parts in (("pwsh", PS7), ("powershell", PS5)):
        for folder in _documents(env):
            path = folder.joinpath(*parts[1:])
            if path.exists():
                chosen.append(ConfigFile(role, path, "powershell", secret=True))
                break
    if not chosen:
        # pwsh 7 runs local profile scripts by default; Windows PowerShell 5.1 only with a policy change.
        role, parts = ("pwsh", PS7) if env.which("pwsh") else ("powershell", PS5)
        chosen.append(ConfigFile(role, env.home.joinpath(*parts), "powershell", secret=True))
    bashrc = env.home / ".bashrc"  # Git Bash
    if bashrc.exists():
        chosen.append(ConfigFile("bash", bashrc, "shellrc", secret=True))
    return chosen


def detect(env: Env) -> bool:
    """Opt-in: exporting OPENAI_* to every program is not something `apply --all` should start.

    Once `gwconf apply shell` wrote a block, the shell route counts as detected (and `use` re-applies it);
    a block holding only another client's variables (copilot-cli's) does not count.
    """
    for file in files(env):
        try:  # read_snapshot refuses a FIFO or device instead of blocking on it
            data = read_snapshot(file.path).data
        except (OSError, GwconfError):
            continue
        text = data.decode("utf-8", errors="replace") if data else ""
        begin, end = text.find(_BEGIN), text.find(_END)
        if begin >= 0 and any(name in text[begin:end] for name in MANAGED):
            return True
    return False


# -- apply ----------------------------------------------------------------------------------------


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    wanted: dict[str, str | None] = {
        "OPENAI_BASE_URL": target.base_url,
        "OPENAI_API_BASE": target.base_url,
        "OPENAI_API_KEY": target.api_key,
    }
    anthropic = getattr(target, "anthropic_base", None)
    gemini = getattr(target, "gemini_base", None)
    wanted["ANTHROPIC_BASE_URL"] = anthropic
    wanted["ANTHROPIC_AUTH_TOKEN"] = target.api_key if anthropic else None
    wanted["GOOGLE_GEMINI_BASE_URL"] = gemini
    wanted["GEMINI_API_KEY"] = target.api_key if gemini else None
    for doc in docs.values():
        for name in MANAGED:  # a fixed order, so every file's block reads the same
            value = wanted[name]
            if value is None:
                doc.delete((name,))
            else:
                doc.set((name,), value)
    notes = []
    if not anthropic and not gemini:
        notes.append(
            "exported the OpenAI-style variables only; the Anthropic and Gemini pairs are written when the "
            "profile sets --anthropic-base-url / --gemini-base-url"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    doc = fresh_document("shellrc", "environment")
    render({"bash": doc}, target, env)
    if env.platform == "win32":
        default = env.get("COMSPEC") or "cmd.exe"
    else:
        default = env.get("SHELL") or "/bin/sh"
    return LaunchSpec(argv=list(args) or [default], env=dict(doc.data()))


# -- read -----------------------------------------------------------------------------------------


def read(docs: dict[str, Document], env: Env) -> Reading:
    chosen = files(env)
    primary = chosen[0]
    block = _block(docs.get(primary.role))
    reading = Reading(wire=WIRE, model=None)
    reading.base_url = block.get("OPENAI_BASE_URL") or block.get("OPENAI_API_BASE")
    reading.api_key = block.get("OPENAI_API_KEY")
    where = shown(primary.path, env)
    reading.key_origin = f"{where} gwconf block OPENAI_API_KEY"
    reading.provider = f"environment from {where}" if block else "no gwconf block"
    reading.provider_is_gwconf = bool(reading.base_url)
    f = reading.findings
    if not block:
        f.append(
            Finding(
                "error",
                "provider",
                f"{where} has no gwconf block: new {primary.role} terminals get no gateway variables.",
                "gwconf apply shell",
            )
        )
    for file in chosen[1:]:
        other = _block(docs.get(file.role))
        if other != block:
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{shown(file.path, env)} exports different gateway variables than {where}.",
                    "gwconf apply shell",
                )
            )
    for file in chosen:
        doc = docs.get(file.role)
        if doc is not None:
            f += _outside_block(doc, file, env)
    f += _stale_terminal(block, env)
    f += _rivals(block, env)
    f += _startup_traps(chosen, env)
    return reading


def _block(doc: Document | None) -> dict[str, str]:
    if doc is None:
        return {}
    data = doc.data()
    return {k: v for k, v in data.items() if k in MANAGED} if isinstance(data, dict) else {}


_BEGIN, _END = "# >>> gwconf >>>", "# <<< gwconf <<<"
# Debian/Ubuntu's skeleton .bashrc and friends: "If not running interactively, don't do anything".
_INTERACTIVE_ONLY = lazy(r"^\s*\*\)\s*return|\[\[?\s*-z\s+\"?\$PS1\"?\s*\]\]?\s*&&\s*return", re.M)


# Assignments of a variable, its name the pattern's group (PowerShell's either group: its names
# ignore case). One pattern a format, whatever the names, so ``_outside_block`` builds none.
# fish's ``set`` and its flags stay on their line: "set" alone, then "set NAME v" on the next,
# read as setting a variable called "set", and the match took the line that did set NAME.
_ASSIGNMENTS = {
    "fish": lazy(r"^[ \t]*set[ \t]+(?:-\S+[ \t]+)*([A-Za-z_][A-Za-z0-9_]*)(?:\s|$)", re.M),
    "powershell": lazy(
        r"^\s*\$env:([A-Za-z_][A-Za-z0-9_]*)\s*=|SetEnvironmentVariable\(\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]",
        re.M | re.I,
    ),
    # a NAME= word anywhere a command may start or go on: after ``then``, ``&&``, ``;``, a second
    # assignment of one ``export`` (the shapes sweep: a line inside an ``if``, ``[ ... ] &&
    # export``, ``export EDITOR=vim OPENAI_BASE_URL=...`` won over the block, unseen)
    "shellrc": lazy(
        r"(?:^|[\s;&|(])(?:export\s+|declare\s+-x\s+|typeset\s+-x\s+)?([A-Za-z_][A-Za-z0-9_]*)=", re.M
    ),
}
_UNSET = lazy(r"(?:^|[\s;&|(])unset[ \t]+((?:-[fv][ \t]+)?[A-Za-z_][A-Za-z0-9_ \t]*)", re.M)


def _uncommented(text: str) -> str:
    """``text`` without its comment lines (a ``# export OPENAI_API_KEY=...`` sets nothing)."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _assigned(fmt: str, text: str) -> set[str]:
    """The names ``text`` assigns a value to (PowerShell's upper-cased)."""
    if fmt == "powershell":
        return {(m.group(1) or m.group(2)).upper() for m in _ASSIGNMENTS[fmt].finditer(text)}
    if fmt == "fish":
        return {m.group(1) for m in _ASSIGNMENTS["fish"].finditer(text)}
    return {m.group(1) for m in _ASSIGNMENTS["shellrc"].finditer(_uncommented(text))}


def _unset(fmt: str, text: str) -> set[str]:
    """The names a POSIX shell file's ``unset`` takes away (``unset -f`` names functions)."""
    if fmt in ("powershell", "fish"):
        return set()
    found: set[str] = set()
    for match in _UNSET.finditer(_uncommented(text)):
        words = match.group(1).split()
        if words[0] != "-f":
            found.update(w for w in words if w != "-v")
    return found


def _outside_block(
    doc: Document, file: ConfigFile, env: Env, names: tuple[str, ...] = MANAGED
) -> list[Finding]:
    """Assignments of gwconf's variables elsewhere in the file: later ones win over the block.
    ``names``: another client's variables in the same block (copilot-cli)."""
    text = doc.dump()
    begin, end = text.find(_BEGIN), text.find(_END)
    if begin >= 0 and end > begin:
        before, after = text[:begin], text[end:]
    else:
        before, after = text, ""
    found: list[Finding] = []
    if not any(name in text for name in names) and file.format != "powershell":
        return found  # nothing to look for (issue 15): PowerShell's names ignore case
    fold = str.upper if file.format == "powershell" else str
    assigned_after, assigned_before = _assigned(file.format, after), _assigned(file.format, before)
    unset_after = _unset(file.format, after)
    for name in names:
        where = shown(file.path, env)
        if name in unset_after:
            found.append(
                Finding(
                    "warning",
                    "override",
                    f"{where} unsets {name} below the gwconf block: a new terminal has none.",
                    f"remove the later unset of {name} in {where} (gwconf never edits outside its block)",
                )
            )
        elif fold(name) in assigned_after:
            found.append(
                Finding(
                    "warning",
                    "override",
                    f"{where} sets {name} again below the gwconf block: that value wins.",
                    f"remove or move the later {name} line in {where} (gwconf never edits outside its block)",
                )
            )
        elif fold(name) in assigned_before and begin >= 0:
            found.append(
                Finding(
                    "info", "override", f"{where} also sets {name} above the gwconf block (the block wins)."
                )
            )
    return found


def _stale_terminal(block: dict[str, str], env: Env) -> list[Finding]:
    """This process's environment against the block: old terminals keep old values."""
    stale = [name for name, value in block.items() if env.get(name) != value]
    if block and not stale:
        return [
            Finding("info", "override", f"this terminal already has the gwconf values of {', '.join(block)}.")
        ]
    if not stale:
        return []
    return [
        Finding(
            "info",
            "override",
            f"this terminal's {', '.join(stale)} differ from the gwconf block (it was started before the change).",
            "open a new terminal",
        )
    ]


def _rivals(block: dict[str, str], env: Env) -> list[Finding]:
    found = []
    for ours, rival in RIVALS.items():
        if ours in block and env.get(rival):
            found.append(
                Finding(
                    "warning",
                    "key",
                    f"${rival} is also set in this shell: programs that prefer it will not send the gateway key.",
                    f"unset {rival} (and remove it from your shell start-up files)",
                )
            )
    return found


def _startup_traps(chosen: list[ConfigFile], env: Env) -> list[Finding]:
    found = []
    roles = {f.role for f in chosen}
    if "bash" in roles and env.platform != "win32":
        for name in (".bash_profile", ".bash_login"):
            login = env.home / name
            if login.is_file() and "bashrc" not in login.read_text(errors="replace"):
                found.append(
                    Finding(
                        "warning",
                        "other",
                        f"~/{name} does not read ~/.bashrc: login shells (macOS Terminal, ssh) miss the gwconf block.",
                        f"add `[ -f ~/.bashrc ] && . ~/.bashrc` to ~/{name}",
                    )
                )
                break
    for file in chosen:
        if file.format == "shellrc" and file.path.is_file():
            text = file.path.read_text(encoding="utf-8", errors="replace")
            begin = text.find(_BEGIN)
            if _INTERACTIVE_ONLY.search(text[: begin if begin >= 0 else len(text)]):
                found.append(
                    Finding(
                        "info",
                        "other",
                        f"{shown(file.path, env)} stops early in non-interactive shells: scripts, `bash -c` and "
                        "`ssh host cmd` do not get the gwconf variables, only interactive terminals.",
                    )
                )
    if "powershell" in roles:
        found.append(
            Finding(
                "info",
                "other",
                "Windows PowerShell 5.1 runs profile scripts only when the execution policy allows it.",
                "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned  (or install PowerShell 7)",
            )
        )
    return found


# What copilot-cli, whose variables share the block, reuses.
outside_block = _outside_block
stale_terminal = _stale_terminal
startup_traps = _startup_traps
