"""Core of apply, use, status and restore: explicit Env in, result objects out (pipx style).

The CLI only parses arguments and renders these results as text or JSON.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Sequence
from pathlib import Path

from gwconf import fileio, records, secrets
from gwconf import plan as planning
from gwconf.clients._base import ClientAdapter, ConfigFile, Finding, Reading
from gwconf.errors import GwconfError, NotSetUp
from gwconf.fileio import TEMP_SUFFIX, Snapshot, exclusive_lock, named_like, read_snapshot
from gwconf.formats import MISSING, get_plain
from gwconf.ledger import Ledger, written_by_gwconf
from gwconf.paths import Env, display, is_dir, shell_word
from gwconf.profiles import Profile, ProfileStore
from gwconf.records import field

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any


@records.record
class FileResult:
    """One file a command changed (or would). Its unified diff is made only when shown (a dry
    run, ``--json``): on a 4 MB file difflib was over a third of ``gwconf apply`` (issue 15)."""

    path: str
    action: str  # create, modify, remove
    change: planning.FileChange = field(repr=False, compare=False)

    @functools.cached_property
    def diff(self) -> str:
        from gwconf.secrets import names_a_secret_container

        text = self.change.diff()
        replaced = _replaced_secrets(self.change)
        if replaced:  # a key the file wrote over two lines shows its second one whole
            from gwconf.secrets import mask_fragments

            text = mask_fragments(text, replaced)
        # other providers' keys, of shapes no pattern knows: a key store's values, and whatever
        # the file holds under a secret's name (a list of them: aider's ``api-key``, a header map)
        stored = _stored_keys(self.change) if self.change.file.key_store else []
        # (the data before the change: what it adds is gwconf's own, or, for a restore, the
        # managed values _replaced_secrets has; walking both was twice the cost)
        before = self.change.snapshot.data
        if before and names_a_secret_container(before.decode("utf-8", "replace"), self.change.file.format):
            stored += _named_secrets(self.change.before_data)
        if stored:
            from gwconf.secrets import redact

            text = redact(text, stored)
        return text

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "action": self.action, "diff": self.diff}


def _replaced_secrets(change: planning.FileChange) -> list[str]:
    """The values under secret names that a change takes out or puts back (found by the round's
    sweep: an aider key continued over two lines with a backslash, a Codex token in a multi-line
    string; a diff's lines hold pieces of it that no pattern knows): as the file read before the
    edit, as the edit sets them, and, for a restore of the bytes from before gwconf, as those read."""
    from gwconf.secrets import is_secret_name

    def named(path: tuple[Any, ...]) -> bool:
        return bool(path) and isinstance(path[-1], str) and is_secret_name(path[-1])

    values: list[Any] = []
    if change.edit is not None:
        for op in change.edit[0]:
            path = tuple(op.path)
            if named(path):
                values.append(op.value if op.kind == "set" else None)
                if change.before_data is not MISSING:
                    values.append(get_plain(change.before_data, path))
    elif change.restoring and change.record and change.after is not None:
        paths = [
            path for path in (tuple(key["path"]) for key in change.record.get("keys", ())) if named(path)
        ]
        if paths:
            from gwconf import formats

            try:
                text, _ = formats.decode(change.after, change.display)
                data = formats.load(change.file.format, text, change.display).data()
            except GwconfError:
                return []
            values += [get_plain(data, path) for path in paths]
    return sorted({v for v in values if isinstance(v, str) and len(v) >= 16}, key=lambda v: (-len(v), v))


def _named_secrets(*documents: Any) -> list[str]:
    """The strings ``documents`` hold at or below a secret's name (``api-key: [hf=...]``,
    ``http_headers.Authorization``, ``env.HF_TOKEN``), references left out: the diff shows them
    as context, and a pattern knows neither a list item's nor an ``hf_`` key's shape (found by
    the round's sweep). Only when a diff is shown; only containers are pushed, and a key's name
    is tested once per command (a first walk of every value was a fifth of a dry run)."""
    from gwconf.secrets import is_reference, may_name_a_secret

    found: list[str] = []
    named: list[Any] = []  # values under a secret's name: every string in them counts
    stack: list[Any] = [d for d in documents if type(d) is dict or type(d) is list]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            for k, v in value.items():
                kind = type(v)
                if kind is dict or kind is list:
                    (named if type(k) is str and may_name_a_secret(k) else stack).append(v)
                elif kind is str and type(k) is str and may_name_a_secret(k):
                    named.append(v)
        else:
            stack += [v for v in value if type(v) is dict or type(v) is list]
    while named:
        value = named.pop()
        if type(value) is dict:
            named += value.values()
        elif type(value) is list:
            named += value
        elif type(value) is str and len(value) >= 8 and not is_reference(value.strip()):
            found.append(value)
    return found


def _stored_keys(change: planning.FileChange) -> list[str]:
    """The values of a key store (a JSON object of name -> key) before and after ``change``: its
    diff shows the keys beside gwconf's as context, and an ``hf_`` or ``csk-`` key has no shape
    ``redact`` knows (found over real dotfiles). Text with a blank in it is a note, not a key."""
    import json

    found: list[str] = []
    for raw in (change.snapshot.data, change.after):
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            continue
        if isinstance(data, dict):
            found += [
                v
                for v in data.values()
                if isinstance(v, str) and len(v) >= 8 and not any(c.isspace() for c in v)
            ]
    return found


@records.record
class ClientResult:
    id: str
    name: str
    files: list[FileResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    steps: list[str] | None = None
    restart: str | None = None
    error: GwconfError | None = None
    left_alone: list[str] = field(default_factory=list)
    skipped: GwconfError | None = None  # apply --all: nothing here to configure for this client

    @property
    def changed(self) -> bool:
        return bool(self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "changed": self.changed,
            "files": [f.to_json() for f in self.files],
            "notes": self.notes,
            "steps": self.steps,
            "restart": self.restart,
            "left_alone": self.left_alone,
            "error": None if self.error is None else {"message": self.error.message, "hint": self.error.hint},
            "skipped": None
            if self.skipped is None
            else {"message": self.skipped.message, "hint": self.skipped.hint},
        }


def _file_results(plan: planning.ClientPlan) -> list[FileResult]:
    results = []
    for change in plan.pending:
        action = "create" if change.creates else "remove" if change.removes else "modify"
        results.append(FileResult(change.display, action, change))
    return results


@fileio.one_view()  # every file's real path and every "is it running?" from one look
def apply_profile(
    clients: Sequence[ClientAdapter],
    profile: Profile,
    env: Env,
    *,
    dry_run: bool = False,
    model: str | None = None,
    force: bool = False,
    skip_not_set_up: bool = False,
    swept: bool = False,
) -> list[ClientResult]:
    """Plan every client, then write the pending changes (unless ``dry_run``).

    ``skip_not_set_up`` (``apply --all``): a client with nothing here to configure yet (no server
    folder, no file its app makes first) is skipped with its reason instead of failing the run.
    ``swept``: the command ran ``repair_interrupted`` first.
    """
    results: list[ClientResult] = []
    plans: list[planning.ClientPlan] = []
    with _dry_view(dry_run) as planned:
        for client in clients:
            result = ClientResult(client.id, client.name)
            results.append(result)
            plan = _plan_one_apply(client, profile, env, result, model, force, skip_not_set_up, dry_run)
            if plan is not None:
                plans.append(plan)
                _leave_planned(planned, plan)
    if not dry_run:
        by_id = {r.id: r for r in results}
        writes = Writes(env, profile.name, swept=swept)
        for plan in plans:
            result = by_id[plan.client.id]
            try:
                if writes.replan(plan):
                    # a client before it in this run changes a file they share (Roo Code and Kilo
                    # Code both edit VS Code's settings.json): plan again on what is there now
                    plan = planning.plan_apply(plan.client, profile, env, model=model)
                    result.files = _file_results(plan)
            except GwconfError as exc:
                result.error = exc
                result.files = []
                continue
            writes.add(plan, result)
        writes.flush()
    return results


def _plan_one_apply(
    client: ClientAdapter,
    profile: Profile,
    env: Env,
    result: ClientResult,
    model: str | None,
    force: bool,
    skip_not_set_up: bool,
    dry_run: bool,
) -> planning.ClientPlan | None:
    """``client``'s plan, with its notes, steps and files in ``result``; None when it has none
    (its error or its reason to skip is in ``result``)."""
    try:
        if client.tier < 3:
            result.notes += preflight_preview(client, env, force) if dry_run else client.preflight(env, force)
        plan = planning.plan_apply(client, profile, env, model=model)
        result.notes += other_managers(plan, env) + split_links(plan, env)
        if dry_run:
            result.notes += refused_later(plan)
    except NotSetUp as exc:
        if skip_not_set_up:
            result.skipped = exc
        else:
            result.error = exc
        return None
    except GwconfError as exc:
        result.error = exc
        return None
    result.notes += plan.notes
    result.steps = plan.steps
    result.files = _file_results(plan)
    if plan.steps is None:
        result.restart = client.restart
    return plan


def _dry_view(dry_run: bool) -> contextlib.AbstractContextManager[dict[Path, Any] | None]:
    """A dry run's ``fileio.planned_view``: each plan reads the files as the ones before it
    would leave them, as the real run's plans do. Nothing for a real run, which writes them."""
    return fileio.planned_view() if dry_run else contextlib.nullcontext(None)


def _leave_planned(planned: dict[Path, Any] | None, plan: planning.ClientPlan) -> None:
    """In a dry run, what ``plan`` would write, for the plans after it to read."""
    if planned is None:
        return
    for change in plan.pending:
        planned[change.snapshot.target] = (
            change.after,
            None if change.after is None else planning.mode_written(change),
        )


class Writes:
    """The plans of one writing command, written together: one journal and one commit for as many
    clients as can go at once (issue 15). A plan that reads a file an earlier one writes waits
    for that write and is planned again."""

    def __init__(self, env: Env, profile: str | None = None, *, swept: bool = False) -> None:
        self.env, self.profile = env, profile
        self.ledger = Ledger(env)  # refreshed by each write under its lock, and kept up to date by it
        self.batch: list[tuple[planning.ClientPlan, ClientResult]] = []
        self.targets: set[Path] = set()  # the files the plans so far change, written or not yet
        # the first write sweeps stray temp files for the whole command, unless the command's
        # start did (``repair_interrupted``: a second walk of every backup folder, issue 15)
        self.swept = swept

    def replan(self, plan: planning.ClientPlan) -> bool:
        """Whether ``plan`` rests on a file an earlier plan changes; if so, that write is done first."""
        if not self.targets & {snapshot.target for snapshot, _ in plan.read}:
            return False
        self.flush()
        return True

    def add(self, plan: planning.ClientPlan, result: ClientResult) -> None:
        self.batch.append((plan, result))
        self.targets.update(change.snapshot.target for change in plan.pending)

    def flush(self) -> None:
        """Write what is waiting; each refused client gets its error and loses its file list."""
        batch, self.batch = self.batch, []
        if not any(plan.pending for plan, _ in batch):
            return
        refused: dict[str, GwconfError] = {}
        try:
            notes = planning.execute(
                [plan for plan, _ in batch],
                self.env,
                self.ledger,
                profile=self.profile,
                sweep=not self.swept,
                failed=refused,
            )
        except GwconfError as exc:  # the whole write refused (a damaged ledger)
            notes = []
            refused = {plan.client.id: exc for plan, _ in batch if plan.pending}
        self.swept = True
        batch[0][1].notes += notes
        for plan, result in batch:
            if plan.client.id in refused:
                result.error = refused[plan.client.id]
                result.files = []


def other_managers(plan: planning.ClientPlan, env: Env) -> list[str]:
    """Another tool's block in a file the plan changes: refused (``WriteRefused``); another tool
    that also manages such a file: one note each, with what its next switch will do."""
    from gwconf import managers

    notes = []
    for change in plan.pending:
        for sighting in managers.check_edit(change.file.path, change.snapshot.data, change.after, env):
            notes.append(managers.note(sighting))
    return notes


def preflight_preview(client: ClientAdapter, env: Env, force: bool) -> list[str]:
    """In a dry run, the client's pre-flight check as the real run will make it (an app running
    that would undo the edit; Continue's legacy config.json): a refusal becomes a note beside
    the diff, as ``refused_later``'s do, and a note of what ``--force`` will do says so."""
    try:
        notes = client.preflight(env, force)
    except GwconfError as exc:
        return [_refused_note(exc)]
    return [f"the real run will note: {note}" for note in notes]


def _refused_note(exc: GwconfError) -> str:
    """A dry run's note for a refusal the real run will make, with its remedy."""
    return f"the real run will refuse this: {exc.message} {exc.hint or ''}".rstrip()


def refused_later(plan: planning.ClientPlan) -> list[str]:
    """In a dry run, a note for each refusal the real run's last check will make
    (``fileio.check_writable``: a read-only file, one marked immutable, another user's, a link
    into the Nix store): a preview that shows only the diff of a client the run then refuses
    misleads. A note, not an error: the diff is still what to set by hand (the Nix store's)."""
    notes = []
    for change in plan.pending:
        try:
            fileio.check_writable(
                change.snapshot.target, change.display, change.snapshot.path, plan.client.id
            )
        except GwconfError as exc:
            notes.append(_refused_note(exc))
    return notes


def split_links(plan: planning.ClientPlan, env: Env) -> list[str]:
    """One note for each file the plan replaces or removes that has other names (hard links):
    the write renames a new file over this name (atomic, crash-safe), which leaves the others
    holding the old bytes, where a user who hard-linked a dotfile expects one file. Said before
    it happens (a dry run shows it too), with how to join them again. A name in the file's own
    backup folder is gwconf's (a run killed between keeping the file by a link and replacing
    it), not the user's: it is not counted."""
    notes = []
    for change in plan.pending:
        links = change.snapshot.links
        if links < 2:
            continue
        links -= _backup_names(change, env)
        if links < 2:
            continue
        shown, others = change.display, links - 1
        other = "the other name keeps" if others == 1 else f"its {others} other names keep"
        if change.after is None:
            notes.append(
                f"{shown} has {links} names (hard links): this removes only this one; {other} the file."
            )
            continue
        notes.append(
            f"{shown} has {links} names (hard links): the write puts a new file under this name, "
            f"and {other} the old text. To share one file again: ln -f {shell_word(shown)} OTHER-NAME "
            "(a symlink in place of the hard link stays shared: gwconf writes through symlinks)."
        )
    return notes


def _backup_names(change: planning.FileChange, env: Env) -> int:
    """How many names of ``change``'s file are in its backup folder (only asked for a file with
    more than one name: a rare one, so the ledger is read again here)."""
    folder = planning.change_backups(change, env, Ledger(env))[0].folder
    try:
        live = os.stat(change.snapshot.target)
        with os.scandir(folder) as entries:
            return sum(
                1
                for entry in entries
                if entry.inode() == live.st_ino and entry.stat(follow_symlinks=False).st_dev == live.st_dev
            )
    except OSError:  # no backup folder yet, or the file is gone: none of gwconf's
        return 0


def restore_order(clients: list[ClientAdapter], ledger: Ledger) -> list[ClientAdapter]:
    """``clients`` as a restore of several takes them: one that created a file another of them
    also wrote goes after that other, the reverse of the order they wrote it (others keep
    theirs). Copilot CLI creates ``~/.bashrc`` and the shell client then adds its block to it;
    restored by name, Copilot's went first, and the shell's restore, whose copy from before it
    holds Copilot's block, left an empty ``~/.bashrc`` where there had been none."""
    writers: dict[str, set[str]] = {}
    creators: dict[str, set[str]] = {}
    for client in clients:
        for key, record in ledger.files(client.id).items():
            target = str(record.get("target", key)) if isinstance(record, dict) else key
            writers.setdefault(target, set()).add(client.id)
            if isinstance(record, dict) and record.get("created"):
                creators.setdefault(target, set()).add(client.id)
    last = {client_id for target, ids in creators.items() if len(writers[target]) > 1 for client_id in ids}
    return [c for c in clients if c.id not in last] + [c for c in clients if c.id in last]


@fileio.one_view()
def restore_clients(
    clients: list[ClientAdapter], env: Env, *, dry_run: bool = False, force: bool = False, swept: bool = False
) -> list[ClientResult]:
    """``swept``: the command ran ``repair_interrupted`` first."""
    writes = Writes(env, swept=swept)
    ledger = writes.ledger  # the one the writes keep up to date
    lost = set(clients_lost_by_the_ledger(ledger, env))
    results = []
    folders: list[str] = []  # the folders gwconf created for the files it removes
    with _dry_view(dry_run) as planned:
        for client in restore_order(clients, ledger):
            result = ClientResult(client.id, client.name)
            results.append(result)
            if ledger.client(client.id) is None and not ledger.damaged and client.id not in lost:
                result.notes.append("nothing to restore: gwconf has not written this client's files")
                continue
            try:
                # an app that rewrites its files from memory would undo the restore too
                result.notes += (
                    preflight_preview(client, env, force) if dry_run else client.preflight(env, force)
                )
                plan = _plan_restore(client, env, ledger, client.id in lost)
                if not dry_run and writes.replan(plan):  # a file an earlier client's restore changes
                    plan = _plan_restore(client, env, ledger, client.id in lost)
                _leave_planned(planned, plan)
                result.files = _file_results(plan)
                result.notes += plan.notes + split_links(plan, env)
                if dry_run:
                    result.notes += refused_later(plan)
                result.left_alone = plan.left_alone
                result.restart = client.restart
                if not dry_run:
                    if plan.pending:  # (written with the others: execute refreshes the ledger and commits)
                        writes.add(plan, result)
                        folders += [
                            folder
                            for change in plan.pending
                            if change.after is None and change.record
                            for folder in change.record.get("folders", [])
                        ]
                    elif ledger.damaged:
                        pass
                    elif not _forget(env, client.id, ledger.client(client.id)):
                        result.notes.append(
                            "another gwconf run applied it meanwhile: nothing restored; run gwconf restore again"
                        )
            except GwconfError as exc:
                result.error = exc
                result.files = []
    writes.flush()
    if folders:
        planning.remove_created_folders(folders)
    shown = {client.id: number for number, client in enumerate(clients)}  # shown in the order asked
    return sorted(results, key=lambda result: shown[result.id])


def _plan_restore(client: ClientAdapter, env: Env, ledger: Ledger, lost: bool = False) -> planning.ClientPlan:
    if ledger.damaged:
        return planning.plan_restore_from_backups(client, env)
    if lost:
        return planning.plan_restore_from_backups(client, env, "missing")
    return planning.plan_restore(client, env, ledger)


def clients_lost_by_the_ledger(ledger: Ledger, env: Env) -> list[str]:
    """The clients whose backups say gwconf's write is still in place while the ledger file is
    gone (deleted by hand, or by a tool that cleans state folders). Restore used to answer
    "gwconf has not written this client's files" and leave them; it restores them from the
    backups, as for a damaged ledger. The first command that writes starts a new ledger file,
    and from then on those backups are history, as after a damaged ledger set aside: a test on
    the file, not on whether it names a client, so a restore killed after its commit and run
    again does what it did when not killed.

    None of them once a damaged ledger was set aside here (``ledger.damaged-*.json``, the
    ledger file gone with it): its restore left some clients as they were, named where their
    bytes from before gwconf are, and gave them up; their backups still read as applied, and
    bringing them back later would undo what the user did since on gwconf's word that it would
    not (issue 18 item 12)."""
    if ledger.damaged or ledger.clients() or ledger.path.exists():
        return []
    if named_like(ledger.path.parent, "ledger.damaged-", ".json"):
        return []
    return planning.clients_in_backups(env)


def settle_damaged_ledger(env: Env, results: list[ClientResult], *, every: bool) -> Path | None:
    """After a restore over a damaged ledger: set the damaged file aside (returning where it went)
    once no client needs it, so apply works again from a clean ledger.

    ``every`` (``restore --all``): every client in the backups was just processed, restored where
    its copies allowed and else named with where its bytes from before gwconf are; no later run
    can do more, so the ledger goes aside even when nothing could be written (else apply would
    refuse forever). A named restore sets it aside once no client is left in the backups. A
    client that failed (an app running, a file unreadable) may do better on the next run: the
    damaged ledger stays until then."""
    if any(result.error for result in results):
        return None
    with exclusive_lock(env.state_dir / "gwconf.lock"):
        ledger = Ledger(env)
        if not ledger.damaged or (not every and planning.clients_in_backups(env)):
            return None
        return ledger.set_aside()


def _forget(env: Env, client_id: str, planned: Any) -> bool:
    """Drop a client whose files are already as they were, unless another gwconf run recorded a
    write meanwhile (the ledger read under the lock differs from the one restore planned with)."""
    with exclusive_lock(env.state_dir / "gwconf.lock"):
        ledger = Ledger(env)
        if ledger.client(client_id) != planned:
            return False
        ledger.forget(client_id)
        ledger.save()
        return True


def writing_lock(env: Env) -> Any:
    """gwconf's own lock, for ``use``'s whole run: switch, read, plan and write with no other gwconf
    in between. Planned outside it, two ``use`` at once (a shell hook in two terminals, a script)
    each saw the files as they were: a client the first found "already up to date" was switched
    by the second meanwhile, and the first never looked again, which left the clients on two
    profiles with both runs reporting success (no order of the two gives that). ``apply`` and
    ``restore`` plan outside it as before: what they leave alone is theirs to report, and the
    writes' compare-and-swap guards every file they change."""
    return exclusive_lock(env.state_dir / "gwconf.lock")


def repair_interrupted(env: Env) -> list[str]:
    """What an interrupted earlier run left half-done, put back (run at the start of writing
    commands). Afterwards the state folder holds no stray temp file or journal copy, so the
    command's writes need not look for them again (``swept``)."""
    left = (
        (env.state_dir / "journal.json").exists()
        or next(planning.walk_matches(env.state_dir, "", TEMP_SUFFIX), None) is not None
        or any(named_like(folder, suffix=TEMP_SUFFIX) for folder in (env.config_dir, env.profiles_dir))
        or any(named_like(env.state_dir, planning.PENDING_COPY))
    )
    if not left:
        return []
    with exclusive_lock(env.state_dir / "gwconf.lock"):
        return planning.repair(env)


# -- status ---------------------------------------------------------------------------------------


@records.record
class ClientStatus:
    id: str
    name: str
    tier: int
    detected: bool
    files: list[str]
    reading: Reading | None = None
    profile: str | None = None  # the saved profile it matches now
    applied_profile: str | None = None  # what the ledger says gwconf applied
    drift: list[str] = field(default_factory=list)
    error: GwconfError | None = None
    others: list[Any] = field(default_factory=list)  # managers.Sighting: other tools on its files

    @property
    def points_at_gwconf(self) -> bool:
        return self.profile is not None

    def to_json(self) -> dict[str, Any]:
        r = self.reading
        return {
            "id": self.id,
            "name": self.name,
            "tier": self.tier,
            "detected": self.detected,
            "files": self.files,
            "base_url": r.base_url if r else None,
            "key": secrets.mask(r.api_key) if r and r.api_key else None,
            "model": r.model if r else None,
            "provider": r.provider if r else None,
            "provider_is_gwconf": r.provider_is_gwconf if r else False,
            "profile": self.profile,
            "applied_profile": self.applied_profile,
            "points_at_gwconf": self.points_at_gwconf,
            "changed_by_hand": self.drift,
            "also_managed_by": [o.to_json() for o in self.others],
            "error": None if self.error is None else self.error.message,
        }


def read_client(client: ClientAdapter, env: Env) -> Reading:
    """What ``client``'s files point at now (``verify``, ``profile add --from``, the trust check):
    read only, so a big JSON(C) file is read through a stand-in of the members read."""
    loaded = planning.load_client(client, env, windowed=True)
    return client.read(planning.docs_of(loaded), env)


@fileio.one_view()  # every file's real path from one look at the folders' symlinks
def client_statuses(
    clients: Sequence[ClientAdapter],
    env: Env,
    profiles: list[Profile],
    ledger: Ledger,
    detected: dict[str, bool] | None = None,
) -> list[ClientStatus]:
    """``client_status`` of each client (``detected``: the answers the caller has already)."""
    known = detected or {}
    return [client_status(c, env, profiles, ledger, detected=known.get(c.id)) for c in clients]


def client_status(
    client: ClientAdapter,
    env: Env,
    profiles: list[Profile],
    ledger: Ledger,
    *,
    read_files: bool = True,
    detected: bool | None = None,
) -> ClientStatus:
    """Where ``client`` points now. ``detected``: ``client.detect(env)`` when the caller has
    just asked it (status picks its clients by it), so it is not asked twice."""
    files = client.files(env)  # once: detection, reading and the other tools all need them
    status = ClientStatus(
        id=client.id,
        name=client.name,
        tier=client.tier,
        detected=client.detect(env, files) if detected is None else detected,
        files=[display(f.path, env) for f in files],
        applied_profile=ledger.profile_of(client.id),
    )
    if client.tier == 3 or not read_files:
        return status
    try:
        loaded = {f.role: listing_file(f, env) for f in files}
        status.reading = client.read(planning.docs_of(loaded), env)
    except GwconfError as exc:
        status.error = exc
        return status
    status.profile = matching_profile(client, status.reading, profiles, env, status.applied_profile)
    # the files just read serve drift and other_tools too: reading each again was a third of
    # status and clients on a home where every client is applied (issue 15)
    status.drift = drift(client, env, ledger, loaded, files)
    status.others = other_tools(client, env, loaded, files)
    return status


# formats whose listing read is ``ListingDocument``: JSON's editor walks its text for each
# ``get`` and masks a file that plain ``json`` reads as well (issue 15)
_LISTED_JSON = frozenset({"json", "jsonc", "json5"})
# format -> the module whose ``read(text)`` gives a plain file's data without the editor's library
_PLAIN_READERS = {"toml": "gwconf.plaintoml", "yaml": "gwconf.plainyaml"}


def listing_file(file: ConfigFile, env: Env) -> planning.Loaded:
    """``plan.load_file`` for a command that only reads (``status``, ``clients``): the same
    data, errors and documents, made more cheaply where that can be shown.

    - A missing file of a format ``load_file`` defers needs no snapshot of its real path
      (``resolve`` looks at every folder above it): nothing here writes it.
    - A JSON, JSONC or JSON5 file that ``json`` reads as it stands is read by it alone: such a
      text has no comment and no trailing comma (nor, for JSON5, a token not in JSON's own
      spelling), so the editor's mask is the text itself and its data is this decode (json's
      own last-of-equal-keys, NaN and Infinity refused as the editor refuses them). Any other text goes to the editor, which reads it or says why not.
      ``get`` then answers from the data (``ListingDocument``).
    - A JSON or JSONC file over 4 MB is read through a stand-in of the members read
      (``formats.json_windows``), as ``apply`` reads it.
    - A TOML file of plain lines is read by ``plaintoml`` (tomllib's data for it, without
      tomllib), a YAML file of plain blocks by ``plainyaml`` (PyYAML's, without PyYAML); any
      other goes to the editor, which reads it with its library."""
    import os

    fmt = file.format
    if fmt in planning._DEFERRED_FORMATS:
        try:
            os.lstat(file.path)
        except FileNotFoundError:
            shown = display(file.path, env)
            missing = Snapshot(file.path, file.path, None, None)
            return planning.Loaded(file, shown, missing, False, planning._EmptyDocument(fmt, shown), {})
        except OSError:
            pass  # read_snapshot names what is wrong
    if fmt not in _LISTED_JSON and fmt not in _PLAIN_READERS:
        return planning.load_file(file, env)
    # a JSON(C) file over 4 MB through a stand-in of the members read, as apply edits it: read
    # whole, ``status`` on a 16 MB settings.json peaked at 190 MB
    return planning.load_file(file, env, read=_listing_document, windowed=True)


def _listing_document(fmt: str, text: str, shown: str) -> ListingDocument:
    """The document ``listing_file`` reads a non-empty text into (``load_file``'s ``read``)."""
    from gwconf import formats

    editor = None
    if fmt in _PLAIN_READERS:
        import importlib

        data = importlib.import_module(_PLAIN_READERS[fmt]).read(text)
        if data is None:
            editor = formats.load(fmt, text, shown)
            data = editor.data()
        return ListingDocument(fmt, shown, text, data, editor, copies=fmt == "yaml")
    data = _plain_json(text)
    if data is _NOT_PLAIN:
        editor = formats.load(fmt, text, shown)
        data = editor.data()
    return ListingDocument(fmt, shown, text, data, editor)


_NOT_PLAIN = object()


class _Constant(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


@functools.cache
def _json_decoder() -> Any:
    import json

    return json.JSONDecoder(parse_constant=_refuse_constant)


def _plain_json(text: str) -> Any:
    """``text`` read by ``json`` as strict JSON, or ``_NOT_PLAIN``."""
    try:
        return _json_decoder().decode(text)
    except (ValueError, RecursionError, _Constant):
        return _NOT_PLAIN


class ListingDocument:
    """A file as a command that only reads sees it: ``data`` and ``get`` from the data read at
    load, anything else from the format's editor, loaded on first use.

    ``get`` answers as the editor's: a path of keys walks the tables (JSON: the last of two equal
    keys, as both read it) and hands out a copy where JSON's editor scans a fresh value
    (``copies``; TOML's hands out the data's own); a path holding an index goes to the editor."""

    def __init__(
        self, fmt: str, source: str, text: str, data: Any, editor: Any = None, *, copies: bool = True
    ) -> None:
        self.fmt = fmt
        self.source = source
        self._text = text
        self._data = data
        self._editor = editor
        self._copies = copies

    def data(self) -> Any:
        return self._data

    def get(self, path: Any, default: Any = MISSING) -> Any:
        path = tuple(path)
        if not path:
            return self._data
        if not all(type(part) is str for part in path):
            return self.editor().get(path, default)
        node = self._data
        for part in path:
            if type(node) is not dict or part not in node:
                return default
            node = node[part]
        if self._copies and (type(node) is dict or type(node) is list):
            import marshal

            try:
                return marshal.loads(marshal.dumps(node))  # JSON data: marshal holds all of it
            except ValueError:  # YAML's dates and times it does not (found by the property test)
                import copy

                return copy.deepcopy(node)
        return node

    def editor(self) -> Any:
        """The format's own document of the text (loaded here on first use)."""
        if self._editor is None:
            from gwconf import formats

            self._editor = formats.load(self.fmt, self._text, self.source)
        return self._editor

    def __getattr__(self, name: str) -> Any:  # anything else the editor offers: load it
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.editor(), name)


def other_tools(
    client: ClientAdapter,
    env: Env,
    loaded: dict[str, planning.Loaded] | None = None,
    files: list[ConfigFile] | None = None,
) -> list[Any]:
    """The other managers (CC Switch, claude-code-router, zcf, OmniRoute) on this client's files.
    ``loaded``: the client's files as this command read them already (``plan.load_client``);
    ``files``: its ``files(env)``, when known already."""
    from gwconf.managers import scan

    already = {item.file.path: item.snapshot for item in (loaded or {}).values()}
    found = []
    for file in client.files(env) if files is None else files:
        try:
            snapshot = already.get(file.path) or read_snapshot(file.path)
            data = snapshot.data
        except (OSError, GwconfError):
            continue
        # the parent's Path.is_dir() raises where os.path.isdir says no (EACCES...), but not
        # here: the file itself was just looked up, and a missing file (ENOENT) means every
        # folder above it resolved or one is missing
        if data is not None or is_dir(os.path.dirname(str(file.path)) or "."):
            found += scan(file.path, data, env)
    return found


def matching_profile(
    client: ClientAdapter,
    reading: Reading,
    profiles: list[Profile],
    env: Env,
    applied: str | None = None,
) -> str | None:
    """The saved profile this client uses now, if any, without running any key command.

    Same address (in this client's form), and the same key where reading the key costs nothing
    (inline, or a set variable). A key command (``pass``, ``op read``) would prompt once per
    client and profile, so such a profile matches by address, then by what the ledger says gwconf
    applied here (``applied``) or by the model.
    """
    proven: list[str] = []
    likely: list[str] = []
    for profile, target in at_address(client, reading.base_url, profiles, env):
        key = profile.cheap_key(env)
        if key is not None:
            if reading.api_key == key:
                proven.append(profile.name)
        elif (profile.key_cmd or profile.key_keyring) and (
            profile.name == applied or (reading.model or None) == target.model
        ):
            likely.append(profile.name)
    for found in (proven, likely):
        if found:
            return applied if applied in found else found[0]
    return None


def at_address(
    client: ClientAdapter, base_url: str | None, profiles: list[Profile], env: Env
) -> list[tuple[Profile, Any]]:
    """(profile, its target for ``client``) for each of ``profiles`` whose address, in this
    client's form, is ``base_url`` (the client's own, read back from its files)."""
    base = (base_url or "").rstrip("/")
    found: list[tuple[Profile, Any]] = []
    if not base:
        return found
    for profile in profiles:
        try:
            target = client.target(_keyless(profile), env)
        except GwconfError:
            continue
        if base == target.base_url.rstrip("/"):
            found.append((profile, target))
    return found


_PLACEHOLDER_KEY = "sk-gwconf-placeholder"


def _keyless(profile: Profile) -> Profile:
    """``profile`` with a stand-in key and limits: a target's address and model, without
    resolving the key or reading the gateway's cached limits (once per client and profile in
    ``status``; ``matching_profile`` never looks at the limits)."""
    from gwconf.records import replace

    return replace(
        profile, key=_PLACEHOLDER_KEY, key_env=None, key_cmd=None, key_keyring=None, max_output_tokens=1
    )


def drift(
    client: ClientAdapter,
    env: Env,
    ledger: Ledger,
    loaded: dict[str, planning.Loaded] | None = None,
    files: list[ConfigFile] | None = None,
) -> list[str]:
    """Managed keys whose value is no longer what gwconf wrote (changed by hand or by the client).
    ``loaded``: the client's files as this command read them already (``plan.load_client``);
    ``files``: its ``files(env)``, when known already."""
    already = {item.file: item for item in (loaded or {}).values()}
    changed = []
    for target, record in ledger.files(client.id).items():
        from pathlib import Path

        file = planning._file_for(client, env, Path(target), record, files)
        item = already.get(file)
        if item is None:
            try:
                item = planning.load_file(file, env)
            except GwconfError as exc:
                changed.append(f"{record.get('display', target)}: cannot be read ({exc.message})")
                continue
        data = planning.data_at(item, [key["path"] for key in record["keys"]])
        for key in planning.rebased_keys(record["keys"], data):
            if not written_by_gwconf(key, get_plain(data, tuple(key["path"])), client.restamped):
                changed.append(f"{item.display}: {'.'.join(str(p) for p in key['path'])}")
    return changed


def load_profiles(env: Env) -> list[Profile]:
    return ProfileStore(env).readable()


def findings_text(findings: list[Finding]) -> list[str]:
    return [f"{f.level}: {f.message}" + (f" (fix: {f.fix})" if f.fix else "") for f in findings]
