"""A home folder that holds every supported client's files, at realistic sizes, with comments.

The client list comes from ``gwconf.registry`` (clients added later are included automatically).
For each client: copy the largest ``tests/fixtures/<id>/<case>/before`` tree when one exists;
otherwise write a small generated file per ``ConfigFile`` in the client's format. Then every file
is grown to a realistic size with comments and unrelated entries (what gwconf must keep byte for
byte). A client whose generated files its own ``render`` refuses is left with a fresh home and the
reason is reported, so the benchmark always runs.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _util import REPO

FIXTURES = REPO / "tests" / "fixtures"

# realistic sizes per format (bytes): a lived-in Codex config.toml, a ~/.claude.json with project
# history, a VS Code-style settings.json, a Continue config.yaml, a .env, a .bashrc
TARGET_SIZE = {
    "toml": 6_000,
    "json": 16_000,
    "jsonc": 12_000,
    "yaml": 6_000,
    "dotenv": 1_000,
    "shellrc": 4_000,
    "powershell": 2_000,
}


@dataclass
class HomeReport:
    files: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)  # client -> (path, fmt, bytes)
    sources: dict[str, str] = field(
        default_factory=dict
    )  # client -> "fixture <case>" / "generated" / "fresh"
    problems: dict[str, str] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(size for rows in self.files.values() for _, _, size in rows)

    @property
    def file_count(self) -> int:
        return sum(len(rows) for rows in self.files.values())


def fixture_case(client_id: str) -> Path | None:
    """The ``before`` tree of the client's largest fixture case, if it has any."""
    folder = FIXTURES / client_id
    if not folder.is_dir():
        return None
    best: tuple[int, Path] | None = None
    for before in sorted(folder.glob("*/before")):
        size = sum(p.stat().st_size for p in before.rglob("*") if p.is_file() and p.name != ".keep")
        if size and (best is None or size > best[0]):
            best = (size, before)
    return best[1] if best else None


def copy_fixture(before: Path, home: Path) -> None:
    for path in before.rglob("*"):
        if path.is_file() and path.name != ".keep":
            target = home / path.relative_to(before)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


# -- generated content ------------------------------------------------------------------------------


def generate(fmt: str, name: str) -> str | None:
    """A small, plausible file of ``fmt`` with comments, for clients without fixtures."""
    if fmt == "toml":
        return (
            f'# {name}: settings written by hand\nmodel = "gpt-4o"  # the usual one\n\n[ui]\ntheme = "dark"\n'
        )
    if fmt == "json":
        return '{\n  "theme": "dark",\n  "telemetry": false\n}\n'
    if fmt == "jsonc":
        return '// Settings, edited by hand\n{\n\t"editor.fontSize": 14, // keep\n\t"telemetry": false,\n}\n'
    if fmt == "yaml":
        return f"# {name}: hand-written\ntheme: dark  # keep\ntelemetry: false\n"
    if fmt == "dotenv":
        return "# local secrets\nEDITOR=vim\n"
    if fmt in ("shellrc", "powershell"):
        return "# ~/.bashrc: executed by bash for non-login shells\n"
    return None  # fish (gwconf's own conf.d file), text: left to gwconf


def grow(text: str, fmt: str, target: int, commas: bool = True) -> str:
    """``text`` with unrelated entries and comments added until it holds ``target`` bytes.
    ``commas``: VS Code-style JSONC with trailing commas; without, JSON with comments only (what
    Gemini CLI reads: a trailing comma stops it, and gwconf refuses to write into such a file)."""
    eol = "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"
    i = 0
    if fmt == "toml":
        parts = [text if text.endswith(("\n", "\r\n")) or not text else text + eol]
        size = len(text)
        while size < target:
            i += 1
            chunk = (
                f"{eol}# profile {i}: tried for the {i}th project, kept for later{eol}"
                f'[profiles.bench-{i}]{eol}model = "model-{i}"  # comment {i}{eol}'
                f'approval_policy = "on-request"{eol}sandbox_mode = "workspace-write"{eol}'
                f'{eol}[mcp_servers.bench-{i}]{eol}command = "npx"{eol}'
                f'args = ["-y", "@acme/tool-{i}", "--port", "{8000 + i}"]{eol}'
                f'env = {{ "TOKEN_{i}" = "t-{i}", LEVEL = \'debug\' }}{eol}'
            )
            parts.append(chunk)
            size += len(chunk)
        return "".join(parts)
    if fmt in ("json", "jsonc"):
        start = _object_start(text)
        if start is None:
            return text
        tab = "\t" if fmt == "jsonc" else "  "
        entries = []
        size = len(text)
        while size < target:
            i += 1
            if fmt == "jsonc":  # VS Code-style settings
                comma = "," if commas else ""
                entry = (
                    f"// language {i}: formatter and rulers{eol}{tab}"
                    f'"[lang-{i}]": {{"editor.tabSize": {2 + i % 3}, "editor.rulers": [80, 100{comma}], '
                    f'"editor.defaultFormatter": "acme.fmt-{i}"{comma} /* why: team style */ }}'
                )
            else:  # ~/.claude.json-style project history
                entry = (
                    f'"/home/me/src/project-{i}": {{"allowedTools": ["Bash(git:*)", "Read"], '
                    f'"lastCost": {i * 0.0137:.4f}, "history": [{{"display": "fix the //tests {i}", '
                    f'"pastedContents": {{}}}}], "hasTrustDialogAccepted": true}}'
                )
            entries.append(entry)
            size += len(entry) + len(tab) + 2
        if not entries:
            return text
        rest = text[start + 1 :]
        empty = rest.lstrip(" \t\r\n").startswith("}")
        joined = tab + ("," + eol + tab).join(entries) + ("" if empty else ",")
        return text[: start + 1] + eol + joined + (eol if empty else "") + rest
    if fmt == "yaml":
        parts = [text if text.endswith("\n") or not text else text + eol]
        size = len(text)
        while size < target:
            i += 1
            chunk = (
                f"# unrelated block {i}, kept as written{eol}bench_unrelated_{i}:{eol}"
                f"  enabled: true  # on{eol}  paths:{eol}    - ~/src/project-{i}{eol}"
                f'    - "/tmp/x: {i}"{eol}  note: >-{eol}    folded text {i}{eol}'
            )
            parts.append(chunk)
            size += len(chunk)
        return "".join(parts)
    if fmt == "dotenv":
        lines = [text if text.endswith("\n") or not text else text + eol]
        size = len(text)
        while size < target:
            i += 1
            line = f"# service {i}{eol}SERVICE_{i}_URL=https://svc-{i}.example.com # inline{eol}"
            lines.append(line)
            size += len(line)
        return "".join(lines)
    if fmt in ("shellrc", "powershell"):
        lines = [text if text.endswith("\n") or not text else text + eol]
        size = len(text)
        while size < target:
            i += 1
            if fmt == "shellrc":
                line = f"# alias {i} for the project{eol}alias p{i}='cd ~/src/project-{i} && ls -la'{eol}export PROJECT_{i}_HOME=\"$HOME/src/project-{i}\"{eol}"
            else:
                line = f"# alias {i}{eol}Set-Alias -Name p{i} -Value Get-ChildItem{eol}"
            lines.append(line)
            size += len(line)
        return "".join(lines)
    return text


def _object_start(text: str) -> int | None:
    """Offset of the top-level ``{`` after leading whitespace and comments."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n\ufeff":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return None
            i = end + 2
        else:
            return i if ch == "{" else None
    return None


# -- building --------------------------------------------------------------------------------------


def build(home: Path, env: Any, profile: Any) -> HomeReport:
    """Fill ``home`` for every registered client; ``env`` is a ``gwconf.paths.Env`` for it."""
    from gwconf import formats, registry
    from gwconf.errors import GwconfError
    from gwconf.plan import plan_apply

    report = HomeReport()
    for client_id in registry.IDS:
        client = registry.get(client_id)
        if client.tier == 3:
            report.sources[client_id] = "in-app (tier 3)"
            continue
        before = fixture_case(client_id)
        written: list[Path] = []
        if before is not None:
            copy_fixture(before, home)
            report.sources[client_id] = f"fixture {before.parent.name}"
        else:
            report.sources[client_id] = "generated"
            for file in client.files(env):
                if file.path.exists():
                    continue
                text = generate(file.format, client.name)
                if text is None:
                    continue
                file.path.parent.mkdir(parents=True, exist_ok=True)
                file.path.write_text(text, encoding="utf-8", newline="")
                written.append(file.path)
        for commas in (True, False):  # without trailing commas for a client that reads none
            ungrown: list[tuple[Path, bytes]] = []
            for file in client.files(env):
                target = TARGET_SIZE.get(file.format)
                if not file.path.is_file() or target is None:
                    continue
                raw = file.path.read_bytes()
                try:
                    text, bom = formats.decode(raw, str(file.path))
                    grown = grow(text, file.format, target, commas)
                    formats.load(file.format, grown, str(file.path))
                except GwconfError:
                    continue  # keep it as it was: the benchmark must not make a file unreadable
                file.path.write_bytes(formats.encode(grown, bom))
                ungrown.append((file.path, raw))
            try:
                plan_apply(client, profile, env)
                break
            except GwconfError:  # unreadable to the client itself (pi's JSON has no /* */): not grown
                for path, raw in ungrown:
                    path.write_bytes(raw)
        try:
            plan_apply(client, profile, env)
        except GwconfError as exc:
            if not written:
                report.problems[client_id] = exc.message
            else:
                for path in written:
                    path.unlink()
                report.sources[client_id] = "fresh (generated files refused)"
                try:
                    plan_apply(client, profile, env)
                except GwconfError as again:
                    report.problems[client_id] = again.message
        rows = []
        for file in client.files(env):
            if file.path.is_file():
                try:
                    shown = "~/" + str(file.path.relative_to(home))
                except ValueError:
                    shown = str(file.path)
                rows.append((shown, file.format, file.path.stat().st_size))
        report.files[client_id] = rows
    return report
