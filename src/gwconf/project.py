"""Per-project gwconf: the folder binding (``gwconf use NAME --dir``) and the clients' own
project-scope files (``gwconf apply CLIENT --project``).

A binding is a ``.gwconf.toml`` holding ``profile = "NAME"`` (``gwconf.binding`` reads it). A
client's project file is written through the same plan as its global files, under a ledger id
of its own per project (``claude-code@project-<hash of the root>``), so ``restore CLIENT
--project`` follows the same ownership rules and never touches the global files or another
project's. A file that receives a key must never be committed by accident: when git would track
it, it is added to ``.git/info/exclude`` (local to the clone, never committed); when that is not
possible the write is refused.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gwconf import binding
from gwconf.clients._base import ClientAdapter, ConfigFile, Target, project_root
from gwconf.errors import GwconfError, UsageError, WriteRefused
from gwconf.fileio import atomic_write, read_snapshot, remove_file, resolve, sha256
from gwconf.formats import Document
from gwconf.paths import Env
from gwconf.records import record

# -- the folder binding ----------------------------------------------------------------------------


@record
class BindResult:
    path: Path
    action: str  # "created", "updated", "unchanged", "removed", "absent"
    previous: str | None = None


def bind(env: Env, name: str) -> BindResult:
    """Write ``.gwconf.toml`` in the current folder naming ``name`` (a saved profile's name).

    An existing file is edited on its ``profile`` line only (comments stay); one gwconf cannot
    read is refused and left as it is."""
    if not binding.valid_name(name):
        raise UsageError(
            f"{name!r} is not a saved profile's name; a folder binding names a profile, never a path.",
            "See the saved profiles: gwconf profile list",
        )
    path = env.cwd / binding.FILE_NAME
    snap = read_snapshot(path)
    line = f'profile = "{name}"'
    previous = None
    if snap.data is None:
        data = (
            "# gwconf: the saved profile this folder uses (see: gwconf current). Only a name: the\n"
            "# address and the key stay in the profile on each machine.\n" + line + "\n"
        ).encode()
        action = "created"
    else:
        text = snap.data.decode("utf-8", errors="replace")
        try:
            previous = binding.parse(text, str(path))
        except binding.BindingError as exc:
            raise WriteRefused(exc.message + " It was left as it is.", exc.hint) from None
        if previous == name:
            return BindResult(path, "unchanged", previous)
        lines = text.splitlines(keepends=True)
        for index, old in enumerate(lines):
            if old.strip().startswith("profile"):
                ending = old[len(old.rstrip("\r\n")) :]
                indent = old[: len(old) - len(old.lstrip())]
                lines[index] = indent + line + ending
                break
        data = "".join(lines).encode()
        if binding.parse(data.decode(), str(path)) != name:  # re-parse what is about to be written
            raise WriteRefused(
                f"{path}: the edit did not read back as {name!r}; left as it is.",
                f'Write the file by hand: profile = "{name}"',
            )
        action = "updated"
    atomic_write(snap.target, data, mode=snap.mode, secret=False, expect=snap, shown=str(path))
    return BindResult(path, action, previous)


def unbind(env: Env) -> BindResult:
    """Remove the current folder's ``.gwconf.toml`` (only one gwconf can read as a binding)."""
    path = env.cwd / binding.FILE_NAME
    if not path.is_file():
        above = binding.find_file(str(env.cwd), str(env.home))
        result = BindResult(path, "absent")
        result.previous = above
        return result
    try:
        previous = binding.read_file(str(path))
    except binding.BindingError as exc:
        raise WriteRefused(
            f"{path} is not a binding gwconf wrote ({exc.message}); left as it is.",
            "Look at it, and remove it by hand if it is yours to remove.",
        ) from None
    remove_file(path)
    return BindResult(path, "removed", previous)


# -- clients' project-scope files ---------------------------------------------------------------------


def root_for(env: Env) -> Path:
    """The project a ``--project`` write is for: the git root above the current folder, else the
    current folder."""
    return project_root(env) or env.cwd


class ProjectAdapter(ClientAdapter):
    """A client seen through its project-scope files: the same ``render`` (roles it has no
    project file for are rendered into throwaway documents), its own ledger id per project."""

    def __init__(self, client: ClientAdapter, env: Env) -> None:
        super().__init__(client.module)
        files = client.project_scope_files(env)
        if not files:
            raise UsageError(
                f"{client.name} has no project-scope settings file gwconf knows of.",
                f"Use its global files (gwconf apply {client.id}), or gwconf run {client.id} for one launch.",
            )
        self.client_id = client.id
        self.root = root_for(env)
        digest = str(sha256(os.fsencode(self.root)))[:10]
        self.id = f"{client.id}@project-{digest}"
        self._files = list(files)

    def files(self, env: Env) -> list[ConfigFile]:
        return list(self._files)

    def render(self, docs: dict[str, Document], target: Target, env: Env) -> list[str]:
        from gwconf.clients._launch_types import fresh_document

        full = dict(docs)
        for file in self.module.files(env):
            if file.role not in full:  # rendered, never written: the global file stays as it is
                full[file.role] = fresh_document(file.format, file.role)
        return list(self.module.render(full, target, env) or [])

    def preflight(self, env: Env, force: bool) -> list[str]:
        return []  # the running app's own global files are not written


def adapters(clients: list[ClientAdapter], env: Env) -> list[ProjectAdapter]:
    return [ProjectAdapter(c, env) for c in clients]


# -- staying inside the project ---------------------------------------------------------------------


def inside(paths: list[Path], root: Path) -> list[Path]:
    """The files ``paths`` (in the project at ``root``) are, links followed; refuses (raises) when a
    link leads one out of the project. A cloned repository is untrusted: its
    ``.claude/settings.local.json`` may be a link to any file of the user's (a folder that syncs,
    another repository), and the write follows links to their target, so the key went there."""
    real_root = resolve(root)
    found = []
    for path in paths:
        real = resolve(path)  # as the write resolves it (read_snapshot's target)
        if not real.is_relative_to(real_root):
            from gwconf.paths import shell_word

            link = next(
                (p for p in (path, *path.parents) if os.path.islink(p)), path
            )  # the link nearest the file: the one to take away
            shown = os.path.relpath(path, root)
            raise WriteRefused(
                f"{shown} leads out of this project ({root}): {os.path.relpath(link, root)} is a link to "
                f"{os.readlink(link) if os.path.islink(link) else real}, so gwconf would write {real}. "
                "A cloned repository can point a link anywhere; nothing was written.",
                f"Remove the link (rm {shell_word(str(link))}) and apply again; a file outside the project "
                "is a global file: gwconf apply CLIENT writes those.",
            )
        found.append(real)
    return found


# -- keeping a key out of git ------------------------------------------------------------------------


def guard_from_git(paths: list[Path], env: Env, *, dry_run: bool = False) -> list[str]:
    """Make sure git will not pick up ``paths`` (files that will hold a key): each one git would
    track is added to ``.git/info/exclude``. Returns what was done, as notes; refuses (raises)
    when a file is already tracked or git cannot tell."""
    notes: list[str] = []
    for path in paths:
        top = _git(["rev-parse", "--show-toplevel"], path.parent if path.parent.is_dir() else env.cwd)
        if top is None:
            repo = next((f for f in (path.parent, *path.parent.parents) if (f / ".git").exists()), None)
            if repo is not None:  # a repository, but git cannot tell what it would commit
                raise WriteRefused(
                    f"{repo} is a git repository, but git could not be run to keep {path.name} out of it; "
                    "gwconf will not write a key git could commit.",
                    "Install git (or fix the repository: git status), then apply again.",
                )
            continue  # not in a git work tree: nothing can commit it by accident
        root = Path(top)
        relative = os.path.relpath(path, root).replace(os.sep, "/")
        if _git(["ls-files", "--error-unmatch", "--", relative], root) is not None:
            from gwconf.paths import shell_word  # a folder with a space: still one word each

            raise WriteRefused(
                f"{relative} is tracked by git in {root}: gwconf will not write a key into a committed file.",
                f"Untrack it first (git rm --cached {shell_word(relative)}) and keep it out: "
                f"echo {shell_word('/' + relative)} >> .git/info/exclude",
            )
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", "--", relative],
            cwd=root,
            capture_output=True,
        )
        if ignored.returncode == 0:
            continue  # already ignored (.gitignore, info/exclude or the global excludes file)
        if ignored.returncode != 1:
            raise WriteRefused(
                f"git check-ignore failed in {root}: gwconf cannot tell whether {relative} would be committed.",
                "Fix the repository (git status), or apply outside it.",
            )
        git_dir = _git(["rev-parse", "--git-path", "info/exclude"], root)
        if git_dir is None:
            raise WriteRefused(
                f"gwconf cannot find {root}'s .git/info/exclude to keep {relative} out of git.",
                f"Add /{relative} to .gitignore yourself, then apply again.",
            )
        exclude = Path(git_dir) if os.path.isabs(git_dir) else root / git_dir
        if not dry_run:
            _append_exclude(exclude, "/" + relative)
        notes.append(
            f"added /{relative} to {os.path.relpath(exclude, root)} (local to this clone, never committed): "
            "the file holds the key"
        )
    return notes


def _append_exclude(exclude: Path, pattern: str) -> None:
    snap = read_snapshot(exclude)
    before = snap.data or b""
    line = os.fsencode(pattern)  # git reads the name's bytes, as the file system holds them
    if line in before.splitlines():
        return
    ending = b"\r\n" if b"\r\n" in before else b"\n"
    if before and not before.endswith((b"\n", b"\r")):
        before += ending
    after = before + b"# gwconf: holds a gateway key" + ending + line + ending
    try:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(snap.target, after, mode=snap.mode, secret=False, expect=snap, shown=str(exclude))
    except (OSError, GwconfError) as exc:
        raise WriteRefused(
            f"{exclude} cannot be written ({exc}); gwconf will not write a key git could commit.",
            f"Add {pattern} to .gitignore yourself, then apply again.",
        ) from None


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        # a folder name that is no UTF-8 (a legacy-encoded home) comes back as the name it is
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, errors="surrogateescape", timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
