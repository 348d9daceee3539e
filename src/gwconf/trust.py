"""Where a key may go: a saved profile's address, or one the user names on the command line.

A cloned repository is untrusted input. Clients read project files in the current folder
(``.aider.conf.yml``, ``crush.json``, ``.claude/settings.json``, ``.gemini/settings.json``, a
project ``.env`` ...), and those can point a client, and so verify, at any host. verify sends a
key only where ``Trust`` allows; when a project file chose the address, ``project_override``
names the file and the host so the user hears it plainly (docs/security.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from gwconf import records
from gwconf.clients._base import ClientAdapter, Reading, folders_to_project_root
from gwconf.errors import GwconfError, UntrustedAddress
from gwconf.operations import read_client
from gwconf.paths import Env, display
from gwconf.profiles import Profile, ProfileStore
from gwconf.records import field, record


def origin(url: str | None) -> tuple[str, str, int | None]:
    """(scheme, host, port) of an address: a key is trusted to a server, not to a path on it."""
    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = -1
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"https": 443, "http": 80}.get(scheme)


@record
class Trust:
    """The addresses verify may send a key to: every saved profile's (its base, Anthropic and Gemini
    addresses), and, with ``--trust-project``, the one the current folder's files choose.

    A cloned repository is untrusted input: its ``.aider.conf.yml``, ``crush.json`` or
    ``.claude/settings.json`` can point a client anywhere (docs/security.md)."""

    origins: set[tuple[str, str, int | None]] = field(default_factory=set)
    project: bool = False
    profiles: list[Profile] = field(default_factory=list)  # the saved profiles the origins are of

    @classmethod
    def of(cls, env: Env, *, project: bool = False) -> Trust:
        store = ProfileStore(env)
        origins = set()
        profiles = []
        for name in store.names():
            try:
                profile = store.load(name)
            except GwconfError:
                continue
            profiles.append(profile)
            for url in (profile.base_url, profile.anthropic_root()[0], profile.gemini_root()[0]):
                origins.add(origin(url))
        return cls(origins, project, profiles)

    def allows(self, url: str | None) -> bool:
        return origin(url) in self.origins


@record
class Override:
    """A project file (or files) in the current folder that choose a client's address."""

    host: str
    files: list[str]  # as shown to the user; empty when gwconf cannot tell which file it was

    def where(self, env: Env) -> str:
        return ", ".join(self.files) if self.files else f"a file in {display(env.cwd, env)}"

    def points(self, env: Env, client: ClientAdapter) -> str:
        """ "<files> in this folder point(s) <client> at <host>": how each refusal starts."""
        verb = "point" if len(self.files) > 1 else "points"
        return f"{self.where(env)} in this folder {verb} {client.name} at {self.host}"


def project_override(client: ClientAdapter, env: Env, reading: Reading) -> Override | None:
    """Whether the current folder's files choose the address ``reading`` holds: the client read from
    the home folder (its user files alone) names another one. Then the project files holding that
    address, narrowed to those the client's own findings name when it names any."""
    if env.cwd == env.home or not reading.base_url:
        return None
    try:
        at_home = read_client(client, records.replace(env, cwd=env.home)).base_url
    except GwconfError:
        at_home = None
    if at_home == reading.base_url:
        return None
    host = hostport(reading.base_url)
    files = _files_naming(env, host)
    said = " ".join(f.message for f in reading.findings)
    named = [f for f in files if f in said]
    return Override(host, named or files)


def launch_refusal(client: ClientAdapter, env: Env, launched: Env) -> UntrustedAddress | None:
    """The error for ``gwconf run`` when, in the launch's own environment (``launched``: its
    variables set, its temporary files in place), the client would take its address from the
    current folder's files and that address is no saved profile's. Crush and Qwen Code merge a
    project's settings over the user's, which the launch stands in for, so a cloned
    repository's ``crush.json`` naming only a ``base_url`` would get the profile's key. None when
    the folder's files choose nothing, or choose a profile's own address."""
    try:
        reading = read_client(client, launched)
    except GwconfError:  # a file the client cannot read either: it takes no address from it
        return None
    override = project_override(client, launched, reading)
    if override is None or Trust.of(env).allows(reading.base_url):
        return None
    return UntrustedAddress(
        f"{override.points(env, client)}, over what gwconf run passes it: {client.name} would send "
        f"the profile's key there. {override.host} is no gwconf profile's address; nothing was "
        "started.",
        f"A cloned repository can point clients anywhere. Start it from another folder, or, only "
        f"if you trust this project's address: gwconf run {client.id} --trust-project",
    )


def adopt_refusal(client: ClientAdapter, env: Env, reading: Reading) -> UntrustedAddress | None:
    """The error for ``profile add --from CLIENT`` when the address the client's files hold is
    one the current folder's files chose (a cloned repository's ``.aider.conf.yml``,
    ``crush.json``, ...): a saved profile's address is one verify trusts with the key, so
    adopting it would send the user's own key to whatever host the project named. None when the
    folder chose nothing."""
    override = project_override(client, env, reading)
    if override is None:
        return None
    return UntrustedAddress(
        f"{override.points(env, client)}; adopting it would make {override.host} a profile's "
        "address, trusted with your key. Nothing was saved.",
        f"A cloned repository can point clients anywhere. Your own settings: run it from another "
        f"folder (cd ~ && gwconf profile add NAME --from {client.id}). That address, if you trust "
        f"it: name it yourself with --base-url.",
    )


def hostport(url: str) -> str:
    """``host`` or ``host:port`` (no user info): what the user recognises and a file spells."""
    parts = urlsplit(url)
    host = parts.hostname or url
    try:
        return f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return host


_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build"}


def _files_naming(env: Env, host: str, limit: int = 2000) -> list[str]:
    """The project's files that hold ``host``: in each folder from cwd up to the git root (cwd alone
    outside a repository; never the home folder or above), and one level below each. Only regular
    files up to 1 MiB are read (never a device or a FIFO), at most ``limit`` of them."""
    import stat

    chain, root = folders_to_project_root(env, stop_at_home=True)
    if root is None:
        chain = [env.cwd]
    found: list[str] = []
    seen = 0
    needle = host.encode()
    for folder in chain:
        if folder == env.home or folder in env.home.parents:
            break
        for current, dirs, files in os.walk(folder):
            depth = len(Path(current).relative_to(folder).parts)
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and depth < 1]
            for name in files:
                seen += 1
                if seen > limit:
                    return found
                path = Path(current) / name
                try:
                    info = path.lstat()
                    if not stat.S_ISREG(info.st_mode) or info.st_size > 1 << 20:
                        continue
                    if needle in path.read_bytes():
                        shown = display(path, env)
                        if shown not in found:
                            found.append(shown)
                except OSError:
                    continue
    return found


def untrusted(client: ClientAdapter, env: Env, base_url: str, override: Override | None) -> UntrustedAddress:
    """The error for a key held back, naming the file, the host and the client that would send it."""
    host = hostport(base_url)
    if override is not None:
        return UntrustedAddress(
            f"{override.points(env, client)}: {client.name} "
            f"would send your key there. {host} is no gwconf profile's address; gwconf sent nothing.",
            f"A cloned repository can point clients anywhere. Only if you trust this project's "
            f"address: gwconf verify {client.id} --trust-project (running {client.name} here sends "
            f"the key there too).",
        )
    return UntrustedAddress(
        f"{client.name}'s files point at {host}, which is no gwconf profile's address; gwconf sent "
        "nothing there.",
        f"Point {client.name} at your gateway (gwconf apply {client.id}), or save that gateway as a "
        "profile first (gwconf profile add NAME --base-url URL).",
    )


def project_finding(
    client: ClientAdapter, env: Env, reading: Reading | None, trust: Trust
) -> UntrustedAddress | None:
    """For doctor: the plain statement when a project file points ``client`` at an address that is
    no profile's (doctor itself sends only to the profile's address); None otherwise."""
    if reading is None or not reading.base_url or trust.allows(reading.base_url):
        return None
    override = project_override(client, env, reading)
    return None if override is None else untrusted(client, env, reading.base_url, override)
