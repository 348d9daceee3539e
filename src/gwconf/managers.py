"""The other tools that rewrite the same client files, recognised so gwconf can say so (issue 20).

Each one's markers were checked in its own source:

- CC Switch (farion1231/cc-switch 5ca9459): state in ``~/.cc-switch`` (``src-tauri/src/config.rs``);
  it writes a client's live file whole on every switch; its proxy takeover points the client at
  ``http://127.0.0.1:15721`` (``database/schema.rs`` default ``listen_port``) with the key
  ``PROXY_MANAGED`` (``services/proxy.rs`` ``PROXY_TOKEN_PLACEHOLDER``) and puts the file back
  when the takeover stops.
- claude-code-router (musistudio/claude-code-router 1347c86): ``# BEGIN CCR managed profile`` /
  ``Codex provider`` / ``ToolHub MCP`` / ``Context Archive MCP`` blocks, each closed by
  ``# END CCR managed …``, in Codex's ``config.toml`` (``packages/core/src/profiles/service.ts``);
  state in ``~/.claude-code-router`` (``runtime/app-paths.ts``); it rewrites its blocks on every
  profile apply and restores ``.ccr-original`` copies.
- zcf (UfoMiao/zcf fcb3984): ``# --- model provider added by ZCF ---`` heads its top-level
  ``model`` / ``model_provider`` lines, ``# --- MCP servers added by ZCF ---`` its MCP tables
  (``src/utils/code-tools/codex.ts`` ``renderCodexConfig``); it re-renders the whole
  ``config.toml`` on every switch. State in ``~/.ufomiao/zcf`` (``src/constants.ts``). (The
  ``managed`` flag is its in-memory ``CodexConfigData.managed``, not written to the file.)
- OmniRoute (diegosouzapw/OmniRoute): ``ensureBackup`` copies a file into a ``.omniroute.bak``
  folder beside it before writing it whole (``bin/cli/commands/config.mjs``, the
  ``/api/cli-tools/apply`` route); its server listens on ``localhost:20128``.
- chezmoi (chezmoi.io, "Source state attributes" and "Special files"): a file it manages has a
  source in ``$XDG_DATA_HOME/chezmoi`` (``~/.local/share/chezmoi``; a ``.chezmoiroot`` file there
  names the subfolder that holds it), each name spelled with attribute prefixes (``dot_``,
  ``private_``, ``readonly_``, ``executable_``, ``create_``, ``modify_``, ``encrypted_``,
  ``exact_`` ...; ``literal_`` ends them) and suffixes (``.tmpl``, ``.age``, ``.asc``,
  ``.literal``). ``chezmoi apply`` writes the source's copy over a file that differs from it
  (asking first when the file changed since chezmoi wrote it). Its config file
  (``~/.config/chezmoi/chezmoi.$FORMAT``, "Configuration file") may move the source folder with
  a top-level ``sourceDir``.

gwconf never edits inside another tool's block: ``check_edit`` refuses such a plan, naming the
tool. The rest is reported: ``apply`` says who else manages a file and what its next switch
does, ``status`` shows it, ``doctor`` names it as the likely cause when gwconf's values changed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from gwconf.errors import WriteRefused
from gwconf.fileio import read_plain
from gwconf.lazyre import lazy
from gwconf.paths import Env, display
from gwconf.records import field, record


@record(frozen=True)
class Manager:
    id: str
    name: str
    state: tuple[str, ...]  # home-relative folders or files that mean it is installed here
    next_switch: str  # what its next switch does to a file it manages
    when: str = "on its next switch"  # when it does it
    choice: str = ""  # how the user lets it manage the client instead of gwconf ("" : switch it there)


CC_SWITCH = Manager(
    "cc-switch",
    "CC Switch",
    (".cc-switch",),
    "rewrites the whole file with its selected provider, replacing gwconf's values "
    "(and while its proxy takeover runs, puts its own copy back when the takeover stops)",
)
CCR = Manager(
    "claude-code-router",
    "claude-code-router",
    (".claude-code-router",),
    "rewrites its `# BEGIN CCR managed …` blocks, whose model and provider then win over gwconf's",
)
ZCF = Manager(
    "zcf",
    "zcf",
    (".ufomiao/zcf", ".zcf.json"),
    "re-renders the whole config.toml: its model and model_provider go first and every "
    "[model_providers.*] table is rewritten with its own fields only",
)
OMNIROUTE = Manager(
    "omniroute",
    "OmniRoute",
    (".omniroute",),
    "writes the whole file from its own template (keeping a copy in .omniroute.bak)",
)
CHEZMOI = Manager(
    "chezmoi",
    "chezmoi",
    (".local/share/chezmoi",),
    "puts its source copy back over the file, and gwconf's values are gone (it asks first, as the "
    "file changed); carry them into the source with `chezmoi re-add FILE`, or for a template (.tmpl) "
    "`chezmoi edit FILE`",
    when="at its next `chezmoi apply`",
    choice="keep chezmoi's source as it is (and undo gwconf's write: gwconf restore CLIENT)",
)
MANAGERS = (CC_SWITCH, CCR, ZCF, OMNIROUTE, CHEZMOI)

CC_SWITCH_PROXY = "127.0.0.1:15721"
CC_SWITCH_KEY = "PROXY_MANAGED"
OMNIROUTE_ADDRESSES = ("localhost:20128", "127.0.0.1:20128")
# the files CC Switch writes live (home-relative), from its per-app config modules
CC_SWITCH_FILES = (
    ".claude/settings.json",
    ".codex/config.toml",
    ".codex/auth.json",
    ".gemini/.env",
    ".gemini/settings.json",
    ".config/opencode/opencode.json",
)
CCR_BEGIN = "# BEGIN CCR managed"
CCR_END = "# END CCR managed"
ZCF_MARKERS = ("# --- model provider added by ZCF ---", "# --- MCP servers added by ZCF ---")
# each marker's bytes, for ``scan`` (``str.encode`` rejects nothing here: all are ASCII)
_BYTES = {
    m: m.encode("ascii")
    for m in (CCR_BEGIN, *ZCF_MARKERS, CC_SWITCH_PROXY, CC_SWITCH_KEY, *OMNIROUTE_ADDRESSES)
}


@record
class Block:
    """Lines (1-based, inclusive) another tool owns in a file."""

    first: int
    last: int
    label: str


@record
class Sighting:
    """Another tool's hand on one file."""

    manager: Manager
    evidence: str  # what was seen, for messages
    blocks: list[Block] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "tool": self.manager.id,
            "name": self.manager.name,
            "evidence": self.evidence,
            "blocks": [{"first": b.first, "last": b.last, "label": b.label} for b in self.blocks],
            "next_switch": self.manager.next_switch,
        }


def installed(manager: Manager, env: Env) -> Path | None:
    for relative in manager.state:
        path = env.home / relative
        if path.exists():
            return path
    return None


def scan(path: Path, data: bytes | None, env: Env) -> list[Sighting]:
    """Every other tool that manages ``path``, judged by its content and by the tools' own folders."""
    # Every marker is ASCII, looked for in the bytes: an ASCII byte is never part of a UTF-8
    # character of more bytes, nor of what errors="replace" makes of a bad one, so a marker is
    # in the bytes exactly when it is in their text. A 16 MB settings.json was decoded into a
    # 32 MB text (CJK: 2 bytes a character) by each apply for this alone (issue 15).
    raw = data or b""
    shown = display(path, env)
    found: list[Sighting] = []
    # a block starts only at its marker line: without the marker no line needs a look (status
    # and clients scan every client file), nor are the lines made (a 16 MB settings.json has
    # 287,000: 20 MB)
    ccr, zcf_marked = _BYTES[CCR_BEGIN] in raw, any(_BYTES[marker] in raw for marker in ZCF_MARKERS)
    lines = raw.decode("utf-8", errors="replace").splitlines() if ccr or zcf_marked else []
    blocks = _ccr_blocks(lines) if ccr else []
    if blocks:
        found.append(Sighting(CCR, f"{len(blocks)} `{CCR_BEGIN} …` block(s) in {shown}", blocks))
    zcf = _zcf_blocks(lines) if zcf_marked else []
    if zcf:
        found.append(Sighting(ZCF, f"`{ZCF_MARKERS[0][2:].strip()}` section(s) in {shown}", zcf))
    if _BYTES[CC_SWITCH_PROXY] in raw or _BYTES[CC_SWITCH_KEY] in raw:
        found.append(
            Sighting(
                CC_SWITCH,
                f"{shown} points at CC Switch's proxy takeover ({CC_SWITCH_PROXY}, its placeholder key)",
            )
        )
    elif _relative(path, env) in CC_SWITCH_FILES:  # the cheap test first: status scans every file
        state = installed(CC_SWITCH, env)
        if state is not None:
            found.append(
                Sighting(CC_SWITCH, f"CC Switch is installed ({display(state, env)}) and writes {shown}")
            )
    backup = os.path.join(os.path.dirname(str(path)), ".omniroute.bak")
    if os.path.isdir(backup):
        found.append(
            Sighting(OMNIROUTE, f"OmniRoute's backup folder {display(Path(backup), env)} is beside it")
        )
    elif any(_BYTES[address] in raw for address in OMNIROUTE_ADDRESSES):
        found.append(
            Sighting(OMNIROUTE, f"{shown} points at OmniRoute's local server ({OMNIROUTE_ADDRESSES[0]})")
        )
    source = chezmoi_source(path, env)
    if source is not None:
        found.append(Sighting(CHEZMOI, f"its source is {display(source, env)}"))
    if not blocks and _relative(path, env) in (".claude/settings.json", ".codex/config.toml"):
        state = installed(CCR, env)
        if state is not None:
            text_hint = b"claude-code-router" in raw or b"ccr-" in raw
            if text_hint:
                found.append(
                    Sighting(CCR, f"claude-code-router ({display(state, env)}) points {shown} at itself")
                )
    return found


# chezmoi's attribute prefixes other than dot_ and literal_, which end the prefixes
_CHEZMOI_PREFIXES = (
    "after_", "before_", "create_", "empty_", "encrypted_", "exact_", "executable_", "external_",
    "modify_", "once_", "onchange_", "private_", "readonly_", "remove_", "run_", "symlink_",
)  # fmt: skip
_CHEZMOI_SUFFIXES = (".tmpl", ".literal", ".age", ".asc")


def chezmoi_source(path: Path, env: Env) -> Path | None:
    """The file in chezmoi's source state that ``path`` (under HOME) is made from, or None: the
    source folder is looked at only when it exists, one listing per folder on the way."""
    from gwconf import fileio

    source = fileio.viewed(("chezmoi-source", str(env.home)), lambda: _chezmoi_folder(env))
    if source is None:
        return None
    relative = _relative(path, env)
    if not relative:
        return None
    folder = Path(source)
    try:
        root = read_plain(folder / ".chezmoiroot", 4096).decode("utf-8", errors="replace").strip()
    except OSError:
        root = ""
    if root:
        folder = folder / root
    for part in relative.split("/"):
        found = _chezmoi_names(str(folder)).get(part)
        if found is None:
            return None
        folder = folder / found
    if not os.path.isfile(folder) or folder.name.startswith(("create_", "modify_")):
        return None  # (create_ never writes a file that exists; modify_ runs a script on it)
    return folder


_CHEZMOI_CONFIGS = ("chezmoi.toml", "chezmoi.yaml", "chezmoi.yml", "chezmoi.json", "chezmoi.jsonc")
# a top-level ``sourceDir`` in each of its config formats (TOML, YAML, JSON and JSONC)
_SOURCE_DIR = lazy(
    r"""^sourceDir[ \t]*=[ \t]*(?:"([^"\n]*)"|'([^'\n]*)')"""
    r"""|^sourceDir:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^#\s][^#\n]*))"""  # (its blanks cut after)
    r'|"sourceDir"[ \t]*:[ \t]*"([^"\n]*)"',
    re.MULTILINE,
)


def _chezmoi_folder(env: Env) -> str | None:
    """chezmoi's source folder, if it exists: the ``sourceDir`` of its config file
    (``$XDG_CONFIG_HOME/chezmoi/chezmoi.$FORMAT``), else ``$XDG_DATA_HOME/chezmoi``. Found once
    per command (``fileio.viewed``): status scans every client file, and a stat raising for a
    missing folder at each was 2M of its 345M instructions (strings and ``os.access`` here)."""
    source = None
    config = os.path.join(str(env.xdg_config_home), "chezmoi")
    if os.access(config, os.F_OK):
        for name in _CHEZMOI_CONFIGS:
            try:
                text = read_plain(os.path.join(config, name), 1 << 20).decode("utf-8", errors="replace")
            except OSError:
                continue
            found = _SOURCE_DIR.search(text)
            if found is not None:
                # greedy to a "#" or the line's end, then the blanks cut here: a lazy match
                # tried the rest of a line of blanks at each of them (8,000: 1 s)
                value = next(group for group in found.groups() if group is not None).rstrip(" \t")
                source = str(env.home) + value[1:] if value == "~" or value.startswith("~/") else value
            break
    if source is None:
        data = env.get("XDG_DATA_HOME")
        source = os.path.join(data or os.path.join(str(env.home), ".local", "share"), "chezmoi")
    return source if os.access(source, os.F_OK) and os.path.isdir(source) else None


# a source folder's listing, read again when the folder's mtime moves: ``status`` scans every
# client file, and each scan walks from the source's root
_listings: dict[str, tuple[int, dict[str, str]]] = {}


def _chezmoi_names(folder: str) -> dict[str, str]:
    """Target name -> source name, for the entries of one source folder (the first by name
    where two stand for one target; dot-names are chezmoi's own and stand for none)."""
    try:
        stamp = os.stat(folder).st_mtime_ns
    except OSError:
        return {}
    kept = _listings.get(folder)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    targets: dict[str, str] = {}
    for name in names:
        if not name.startswith("."):
            targets.setdefault(_chezmoi_target(name), name)
    _listings[folder] = (stamp, targets)
    return targets


def _chezmoi_target(name: str) -> str:
    """The target name a chezmoi source name stands for: ``private_dot_codex`` -> ``.codex``."""
    while True:
        if name.startswith("literal_"):
            name = name[len("literal_") :]
            break
        if name.startswith("dot_"):
            name = "." + name[len("dot_") :]
            break
        prefix = next((p for p in _CHEZMOI_PREFIXES if name.startswith(p)), None)
        if prefix is None:
            break
        name = name[len(prefix) :]
    for suffix in _CHEZMOI_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            if suffix == ".literal":
                break
    return name


def _relative(path: Path, env: Env) -> str:
    """``path`` relative to the home folder in POSIX form, "" when outside it: read off
    ``display``'s ``~/`` form (strings; pathlib's ``relative_to`` was half of the look for
    other tools that ``status`` makes for every file, issue 15)."""
    shown = display(path, env)
    if shown == str(path) or not shown.startswith("~/"):
        return ""
    return "." if shown == "~/." else shown[2:]


def _ccr_blocks(lines: list[str]) -> list[Block]:
    blocks = []
    start: tuple[int, str] | None = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(CCR_BEGIN) and start is None:
            start = (number, stripped[len("# BEGIN ") :])
        elif stripped.startswith(CCR_END) and start is not None:
            blocks.append(Block(start[0], number, start[1]))
            start = None
    if start is not None:  # an unclosed block runs to the end: all of it is CCR's
        blocks.append(Block(start[0], len(lines), start[1]))
    return blocks


def _zcf_blocks(lines: list[str]) -> list[Block]:
    """A ZCF marker and the lines after it up to the next blank line (its top-level fields), or
    for the MCP marker up to the next marker or non-MCP table."""
    blocks = []
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped == ZCF_MARKERS[0]:
            end = number
            while end < len(lines) and lines[end].strip():
                end += 1
            blocks.append(Block(number, end, "model provider added by ZCF"))
        elif stripped == ZCF_MARKERS[1]:
            end = number
            while end < len(lines) and (
                not lines[end].strip().startswith("[") or lines[end].strip().startswith("[mcp_servers")
            ):
                if lines[end].strip().startswith("# ---"):
                    break
                end += 1
            blocks.append(Block(number, end, "MCP servers added by ZCF"))
    return blocks


def check_edit(path: Path, before: bytes | None, after: bytes | None, env: Env) -> list[Sighting]:
    """Refuse an edit that changes a line inside another tool's block; else the sightings, for
    the notes ``apply`` prints."""
    sightings = scan(path, before, env)
    if after is None or before is None or not any(s.blocks for s in sightings):
        return sightings  # no other tool's block here: nothing to compare (and no difflib)
    import difflib

    old = before.decode("utf-8", errors="replace").splitlines()
    new = after.decode("utf-8", errors="replace").splitlines()
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    for sighting in sightings:
        for block in sighting.blocks:
            line = _touched(block, opcodes)
            if line is not None:
                raise WriteRefused(
                    f"{display(path, env)}: gwconf's change would edit line {line}, inside "
                    f"{sighting.manager.name}'s block `{block.label}` (lines {block.first}-{block.last}); "
                    "gwconf never edits inside another tool's block. Nothing was written.",
                    f"Let {sighting.manager.name} manage this client, or take its block out with "
                    f"{sighting.manager.name} first; for one launch without touching the file: gwconf run CLIENT",
                )
    return sightings


def _touched(block: Block, opcodes: Sequence[tuple[str, int, int, int, int]]) -> int | None:
    """The first line of ``block`` an edit changes (an insertion between two of its lines counts;
    one just before or after it does not)."""
    for tag, i1, i2, _j1, _j2 in opcodes:
        if tag == "equal":
            continue
        if i2 > i1:  # old lines i1+1 .. i2 replaced or deleted
            if i1 + 1 <= block.last and i2 >= block.first:
                return max(i1 + 1, block.first)
        elif block.first <= i1 < block.last:  # lines inserted after old line i1
            return i1 + 1
    return None


def note(sighting: Sighting) -> str:
    """The line ``apply`` prints for a file another tool also manages."""
    return (
        f"{sighting.manager.name} also manages this file ({sighting.evidence}); {sighting.manager.when} it "
        f"{sighting.manager.next_switch}"
    )
