"""gwconf profile: save, list, show, rename and remove gateway profiles."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from gwconf.cli import _common, _output
from gwconf.errors import ProfileError, UsageError
from gwconf.limits import MAX_TOKENS


@click.group(
    "profile",
    epilog="""\b
Examples:
  gwconf profile add work --base-url https://gw.example.com/v1 --model my-model --use
  printf %s "$KEY" | gwconf profile add ci --base-url https://gw.example.com --key-stdin
  gwconf profile add team --base-url https://gw.example.com/v1 --key-env GW_KEY
  gwconf profile list
  gwconf profile show work --json
""",
)
def command() -> None:
    """Manage saved gateway profiles (TOML files, mode 0600, in gwconf's config folder)."""


def _roots_and_limits(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options ``profile add`` and ``profile set`` share, declared once so their help stays alike."""
    for option in reversed(
        [
            click.option(
                "--anthropic-base-url",
                metavar="URL",
                help="Anthropic-style root (default: base without /v1).",
            ),
            click.option(
                "--gemini-base-url", metavar="URL", help="Gemini-style root (default: base without /v1)."
            ),
            click.option(
                "--context-window",
                type=click.IntRange(min=0, max=MAX_TOKENS),
                metavar="TOKENS",
                help="The model's context window, written into every client with a place for it (0: unset).",
            ),
            click.option(
                "--max-output-tokens",
                type=click.IntRange(min=0, max=MAX_TOKENS),
                metavar="TOKENS",
                help="The most tokens the model may answer with (0: unset).",
            ),
        ]
    ):
        f = option(f)
    return f


@command.command(
    "add",
    epilog="""\b
Examples:
  gwconf profile add work --base-url https://gw.example.com/v1 --model my-model --use
  gwconf profile add work --base-url https://gw.example.com --key-cmd 'pass show gw/key'
  gwconf profile add mine --from codex      # what ~/.codex holds now, hand-configured
""",
)
@click.argument("name")
@click.option("--base-url", help="The gateway's base address (…/v1 is added if missing).")
@click.option(
    "--from",
    "from_client",
    metavar="CLIENT",
    shell_complete=_common.complete_clients,
    help="Take the address, key and model a client's files hold now (nothing is written to it).",
)
@click.option(
    "--model", "-m", help="Default model for every client (on a terminal: chosen from the gateway's list)."
)
@click.option("--key-stdin", is_flag=True, help="Read the key from standard input.")
@click.option("--key-env", metavar="VAR", help="Take the key from this environment variable when used.")
@click.option("--key-cmd", metavar="CMD", help="Run this command to get the key when used.")
@click.option(
    "--key-keyring", metavar="SERVICE/USER", help="Take the key from the OS keychain (gwconf[keyring])."
)
@click.option(
    "--key", "key_value", metavar="KEY", help="The key itself (lands in shell history: prefer the others)."
)
@_roots_and_limits
@click.option("--use", "make_active", is_flag=True, help="Make it the active profile.")
@click.option("--force", is_flag=True, help="Replace a profile of the same name.")
def add(
    name: str,
    base_url: str | None,
    from_client: str | None,
    model: str | None,
    key_stdin: bool,
    key_env: str | None,
    key_cmd: str | None,
    key_keyring: str | None,
    key_value: str | None,
    anthropic_base_url: str | None,
    gemini_base_url: str | None,
    context_window: int | None,
    max_output_tokens: int | None,
    make_active: bool,
    force: bool,
) -> int:
    """Save a profile NAME. With no key option on a terminal, asks for the key (hidden)."""
    from gwconf import urls
    from gwconf.profiles import Profile, ProfileStore, validate_name

    env = _common.env()
    store = ProfileStore(env)
    validate_name(name)
    if store.exists(name) and not force:
        raise ProfileError(f"a profile named {name!r} already exists.", "Add --force to replace it.")
    chosen = _common.one_key_source(
        (
            ("--key-stdin", key_stdin),
            ("--key-env", key_env),
            ("--key-cmd", key_cmd),
            ("--key-keyring", key_keyring),
            ("--key", key_value),
        ),
        "Keep one of --key-stdin, --key-env VAR, --key-cmd CMD, --key KEY.",
    )
    adopted = None
    if from_client:
        if chosen:
            raise UsageError(
                "--from takes the key from the client's files; drop " + " and ".join(chosen) + ".",
                f"e.g. gwconf profile add {name} --from {from_client}",
            )
        adopted = _adopt(from_client, env)
        base_url = base_url or adopted.base_url
        model = model or adopted.model
        anthropic_base_url = anthropic_base_url or adopted.anthropic_base_url
        gemini_base_url = gemini_base_url or adopted.gemini_base_url
    if not base_url:
        raise UsageError(
            "give the gateway's address with --base-url URL (or adopt a client's: --from CLIENT).",
            f"e.g. gwconf profile add {name} --base-url https://gw.example.com/v1   (or: gwconf init)",
        )
    base = _common.base_address(base_url)
    key = (
        adopted.key
        if adopted is not None
        else _key_to_save(env, key_stdin, key_value, key_env, key_cmd, key_keyring)
    )
    if key is not None:
        key = _common.checked_key(key, "Give the key again (pipe it to --key-stdin, or type it).")
    profile = Profile(
        name=name,
        base_url=base,
        model=model,
        key=key,
        key_env=key_env,
        key_cmd=key_cmd,
        key_keyring=key_keyring,
        anthropic_base_url=urls.normalize_family_url(anthropic_base_url) if anthropic_base_url else None,
        gemini_base_url=urls.normalize_family_url(gemini_base_url) if gemini_base_url else None,
        context_window=context_window or None,
        max_output_tokens=max_output_tokens or None,
    )
    if model is None and sys.stdin.isatty() and not key_stdin:
        from gwconf.cli import _setup

        profile.model = _setup.choose_model(profile, env)
    path = store.save(profile)
    if adopted is not None:
        _output.out(f"Adopted {adopted.origin}: {profile.base_url}, model {profile.model or '-'}.")
    _output.out(f"Saved profile {name!r} ({path}).")
    if make_active or store.active() is None:
        store.set_active(name)
        _output.out(f"Active profile: {name}. Next: gwconf apply CLIENT  (see: gwconf clients)")
    else:
        _output.out(f"Switch to it with: gwconf use {name}")
    return 0


def _key_to_save(
    env: Any,
    key_stdin: bool,
    key_value: str | None,
    key_env: str | None,
    key_cmd: str | None,
    key_keyring: str | None,
) -> str | None:
    """The key ``profile add`` stores itself (piped, given or asked), or None when the profile only
    says where to get it (a variable, a command, the keychain), which is checked here."""
    from gwconf.profiles import KEY_ENV_PATTERN

    if key_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if key_value is not None:
        _output.warn(
            "a key on the command line lands in your shell history; prefer --key-stdin or --key-env."
        )
        return key_value
    if key_env:
        if not KEY_ENV_PATTERN.match(key_env):
            raise UsageError(
                f"--key-env {key_env!r} is not a valid variable name.",
                "Use letters, digits and _, not starting with a digit (e.g. GWCONF_API_KEY).",
            )
        if not env.get(key_env):
            _output.warn(f"${key_env} is not set now; export it before using this profile.")
        return None
    if key_cmd or key_keyring:
        return None
    if not sys.stdin.isatty():
        raise UsageError(
            "no key given and no terminal to ask on.",
            "Pass --key-stdin (and pipe the key), --key-env VAR or --key-cmd CMD.",
        )
    return str(click.prompt("Gateway key (input hidden)", hide_input=True))


class _Adopted:
    """What ``profile add --from CLIENT`` takes from a client's files."""

    def __init__(self, origin: str, base_url: str, key: str, model: str | None) -> None:
        self.origin = origin
        self.base_url = base_url
        self.key = key
        self.model = model
        self.anthropic_base_url: str | None = None
        self.gemini_base_url: str | None = None


def _adopt(client_id: str, env: object) -> _Adopted:
    """The base address, key and model ``client_id`` uses now (as status reads them)."""
    from gwconf import operations, urls

    (client,) = _common.resolve_clients((client_id,))
    if client.tier == 3:
        raise ProfileError(
            f"{client.name} keeps its settings inside the app: gwconf cannot read them.",
            "Give the address and key yourself: gwconf profile add NAME --base-url URL",
        )
    reading = operations.read_client(client, env)  # type: ignore[arg-type]
    if not reading.base_url or not reading.api_key:
        missing = " and ".join(
            w for w, v in (("no base address", reading.base_url), ("no key", reading.api_key)) if not v
        )
        raise ProfileError(
            f"{client.name}'s files hold {missing} to adopt.",
            f"See what they hold: gwconf status {client.id}",
        )
    from gwconf.trust import adopt_refusal

    refusal = adopt_refusal(client, env, reading)  # type: ignore[arg-type]
    if refusal is not None:
        raise refusal
    adopted = _Adopted(client.name, reading.base_url, reading.api_key, reading.model)
    if client.family in ("anthropic", "gemini"):  # these take the root; the profile keeps /v1 beside it
        root = urls.normalize_family_url(reading.base_url)
        adopted.base_url = root
        if client.family == "anthropic":
            adopted.anthropic_base_url = root
        else:
            adopted.gemini_base_url = root
    elif client.base_form == "chat_endpoint" and reading.base_url.rstrip("/").endswith("/chat/completions"):
        adopted.base_url = reading.base_url.rstrip("/")[: -len("/chat/completions")]
    return adopted


@command.command(
    "set",
    epilog="""\b
Examples:
  gwconf profile set work --model my-model-2
  printf %s "$NEW_KEY" | gwconf profile set work --key-stdin
  gwconf profile set work --base-url https://gw2.example.com/v1 --key-env GW_KEY
""",
)
@click.argument("name", shell_complete=_common.complete_profiles)
@click.option("--base-url", help="The gateway's base address (…/v1 is added if missing).")
@click.option("--model", "-m", help="Default model for every client.")
@click.option("--key-stdin", is_flag=True, help="Read the key from standard input.")
@click.option("--key-env", metavar="VAR", help="Take the key from this environment variable when used.")
@click.option("--key-cmd", metavar="CMD", help="Run this command to get the key when used.")
@click.option(
    "--key-keyring", metavar="SERVICE/USER", help="Take the key from the OS keychain (gwconf[keyring])."
)
@_roots_and_limits
def set_profile(
    name: str,
    base_url: str | None,
    model: str | None,
    key_stdin: bool,
    key_env: str | None,
    key_cmd: str | None,
    key_keyring: str | None,
    anthropic_base_url: str | None,
    gemini_base_url: str | None,
    context_window: int | None,
    max_output_tokens: int | None,
) -> int:
    """Change a saved profile in place; every field not named is kept (the key too)."""
    from gwconf import secrets, urls
    from gwconf.ledger import Ledger
    from gwconf.profiles import KEY_ENV_PATTERN, ProfileStore

    env = _common.env()
    store = ProfileStore(env)
    profile = store.load(name)
    if profile.source is None or profile.source != store.path_for(profile.name):
        raise UsageError(f"{name!r} is not a saved profile.", "Name a saved profile: gwconf profile list")
    sources = _common.one_key_source(
        (
            ("--key-stdin", key_stdin),
            ("--key-env", key_env),
            ("--key-cmd", key_cmd),
            ("--key-keyring", key_keyring),
        ),
        "Keep one of them.",
    )
    changes = []
    if base_url:
        normalized = urls.normalize_base_url(base_url)
        for warning in normalized.warnings:
            _output.warn(warning)
        profile.base_url = normalized.url
        changes.append(f"base address {profile.base_url}")
    if model:
        profile.model = model
        changes.append(f"model {model}")
    if anthropic_base_url:
        profile.anthropic_base_url = urls.normalize_family_url(anthropic_base_url)
        changes.append(f"Anthropic-style address {profile.anthropic_base_url}")
    if gemini_base_url:
        profile.gemini_base_url = urls.normalize_family_url(gemini_base_url)
        changes.append(f"Gemini-style address {profile.gemini_base_url}")
    if context_window is not None:
        profile.context_window = context_window or None
        changes.append(f"context window {context_window or 'unset'}")
    if max_output_tokens is not None:
        profile.max_output_tokens = max_output_tokens or None
        changes.append(f"max output tokens {max_output_tokens or 'unset'}")
    if sources:
        profile.key = profile.key_env = profile.key_cmd = profile.key_keyring = None
        if key_stdin:
            key = _common.checked_key(sys.stdin.readline().rstrip("\r\n"), "Pipe the key to --key-stdin.")
            profile.key = key
            changes.append(f"key {secrets.mask(key)}")
        elif key_env:
            if not KEY_ENV_PATTERN.match(key_env):
                raise UsageError(
                    f"--key-env {key_env!r} is not a valid variable name.", "Use letters, digits and _."
                )
            profile.key_env = key_env
            changes.append(f"key from ${key_env}")
        elif key_keyring:
            profile.key_keyring = key_keyring
            changes.append(f"key from the keychain entry {key_keyring}")
        else:
            profile.key_cmd = key_cmd
            from gwconf.secrets import command_shown

            changes.append(f"key from the command {command_shown(key_cmd or '')}")
    if not changes:
        raise UsageError("nothing to change.", f"e.g. gwconf profile set {name} --model MODEL")
    store.save(profile)
    _output.out(f"Profile {profile.name!r}: " + ", ".join(changes) + ".")
    applied = [c for c in Ledger(env).clients() if Ledger(env).profile_of(c) == profile.name]
    if applied and store.active() == profile.name:
        _output.out(f"Applied to {', '.join(applied)}: re-apply with: gwconf use {profile.name}")
    return 0


@command.command(
    "list",
    epilog="""\b
Examples:
  gwconf profile list
  gwconf profile list --json
""",
)
@_common.json_option
def list_profiles(as_json: bool) -> int:
    """List saved profiles; the active one is marked with *."""
    from gwconf.cli._listing import list_profiles as listing

    return listing(as_json)


@command.command(
    "show",
    epilog="""\b
Examples:
  gwconf profile show work            # the key masked
  gwconf profile show work --json
""",
)
@click.argument("name", shell_complete=_common.complete_profiles)
@click.option("--show-key", is_flag=True, help="Print the full key.")
@_common.json_option
def show(name: str, show_key: bool, as_json: bool) -> int:
    """Show one profile; the key is masked unless --show-key."""
    from gwconf.profiles import ProfileStore

    env = _common.env()
    profile = ProfileStore(env).load(name)
    data = profile.public_dict(show_key=show_key, env=env)
    from gwconf.limits import resolve

    data["limits"] = resolve(profile, profile.model, env).to_json()
    if as_json:
        if show_key:
            import json

            click.echo(json.dumps(data, indent=2))
        else:
            _output.emit_json(data)
        return 0
    text = "\n".join(_readable(profile, data, env))
    click.echo(text) if show_key else _output.out(text)
    return 0


def _readable(profile: object, data: dict[str, Any], env: object) -> list[str]:
    """``profile show`` for people: words, not field names and raw ``True``."""
    source = data["key_source"]
    if source.startswith("env:"):
        variable = source[4:]
        where = f"from ${variable}" + ("" if data["key"] else f" (not set: ${variable})")
    elif source.startswith("cmd:"):
        where = f"from the command {source[4:]}"
    elif source.startswith("keyring:"):
        where = f"from the keychain entry {source[8:]}"
    else:
        where = {"inline": "saved in the profile", "none": "none"}.get(source, source)
    key = data["key"] or "-"
    rows = [
        ("name", data["name"]),
        ("base address", data["base_url"]),
        ("model", data["model"] or f"(none: give one with gwconf profile set {data['name']} --model MODEL)"),
        ("key", f"{key}  ({where})" if data["key"] else where),
    ]
    for family, label in (("anthropic", "Anthropic-style"), ("gemini", "Gemini-style")):
        derived = " (from the base address)" if data[f"{family}_base_url_derived"] else ""
        rows.append((f"{label} address", data[f"{family}_base_url"] + derived))
    for client_id, model in data["models"].items():
        rows.append((f"model for {client_id}", model))
    from gwconf.limits import resolve

    rows.append(("limits", resolve(profile, data["model"], env).describe()))
    rows.append(("file", data["path"] or "-"))
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}" for label, value in rows]


@command.command(
    "remove",
    epilog="""\b
Examples:
  gwconf profile remove old
  gwconf restore --all && gwconf profile remove work   # also undo what it applied
""",
)
@click.argument("name", shell_complete=_common.complete_profiles)
def remove(name: str) -> int:
    """Delete a saved profile (client files are not touched: see gwconf restore)."""
    from gwconf.ledger import Ledger
    from gwconf.profiles import ProfileStore

    env = _common.env()
    store = ProfileStore(env)
    was_active = store.active() == name
    store.remove(name)
    _output.out(f"Removed profile {name!r}.")
    if was_active:
        left = store.names()
        _output.out(
            "It was the active profile; none is active now. "
            + (f"Choose one: gwconf use {left[0]}" if left else "Start again with: gwconf init")
        )
    ledger = Ledger(env)
    applied = [c for c in ledger.clients() if ledger.profile_of(c) == name]
    if applied:
        _output.out(
            f"{', '.join(applied)} still point at its gateway; put back what they had: "
            f"gwconf restore {' '.join(applied)}"
        )
    return 0


@command.command(
    "rename",
    epilog="""\b
Examples:
  gwconf profile rename work work-eu
""",
)
@click.argument("old", shell_complete=_common.complete_profiles)
@click.argument("new")
def rename(old: str, new: str) -> int:
    """Rename a saved profile (the active mark follows it)."""
    from gwconf.profiles import ProfileStore

    ProfileStore(_common.env()).rename(old, new)
    _output.out(f"Renamed profile {old!r} to {new!r}.")
    return 0


@command.command(
    "import-link",
    epilog="""\b
Examples:
  gwconf profile import-link 'ccswitch://v1/import?resource=provider&app=codex&name=Work&endpoint=...'
  pbpaste | gwconf profile import-link -          # keeps the key out of your shell history
  gwconf profile import-link - --name work --use --dry-run < link.txt
""",
)
@click.argument("link")
@click.option("--name", "profile_name", help="Save under this name (default: from the link's provider name).")
@click.option("--use", "make_active", is_flag=True, help="Make it the active profile.")
@click.option("--force", is_flag=True, help="Replace a profile of the same name.")
@click.option("--dry-run", "-n", is_flag=True, help="Check and show the link's profile; save nothing.")
@_common.json_option
def import_link(
    link: str, profile_name: str | None, make_active: bool, force: bool, dry_run: bool, as_json: bool
) -> int:
    """Save a profile from a CC Switch import link (ccswitch://v1/import?...), as gateway consoles make.

    LINK is the link, or - to read it from standard input. Every field is checked: a link with
    duplicate, malformed or unsafe fields, a key that is not a gateway key (sk-...) or an address
    that is not a gateway is refused; fields gwconf does not use are named and ignored (scripts
    and config URLs in a link are never run or fetched).
    """
    from gwconf import ccswitch
    from gwconf.profiles import Profile, ProfileStore, validate_name
    from gwconf.secrets import mask

    if link == "-":
        link = sys.stdin.read(ccswitch.MAX_LINK + 1)
    elif "apiKey=" in link:
        _output.warn("the link holds a key and is now in your shell history; next time pipe it in with: -")
    parsed = ccswitch.parse_ccswitch(link)
    _output.remember_key(parsed.api_key)
    name = validate_name(profile_name or parsed.profile_name())
    store = ProfileStore(_common.env())
    if store.exists(name) and not force and not dry_run:
        raise ProfileError(
            f"a profile named {name!r} already exists.",
            "Pass --name NEW to save it under another name, or --force.",
        )
    profile = Profile(
        name=name,
        base_url=parsed.base_url,
        model=parsed.model,
        key=parsed.api_key,
        anthropic_base_url=parsed.anthropic_base_url,
        gemini_base_url=parsed.gemini_base_url,
    )
    if not dry_run:
        store.save(profile)
        if make_active or store.active() is None:
            store.set_active(name)
    if as_json:
        _output.emit_json({**parsed.public_dict(), "profile": name, "saved": not dry_run})
        return 0
    _output.out(f"CC Switch link for {parsed.app}: {parsed.name!r}")
    rows = [
        ("profile name", name),
        ("base address", parsed.base_url),
        ("anthropic address", parsed.anthropic_base_url),
        ("gemini address", parsed.gemini_base_url),
        ("model", parsed.model),
        ("key", mask(parsed.api_key)),
    ]
    for label, value in rows:
        if value:
            _output.out(f"  {label:<18} {value}")
    for warning in parsed.warnings:
        _output.warn(warning)
    for item in parsed.ignored:
        _output.out(f"  ignored: {item}")
    if dry_run:
        _output.out("Dry run: nothing was saved.")
    else:
        _output.out(f"Saved profile {name!r}.")
        if store.active() == name:
            _output.out(f"Active profile: {name}. Check it with: gwconf verify  (then: gwconf apply CLIENT)")
        else:
            _output.out(f"Use it with: gwconf use {name}")
    return 0


# -- sharing ----------------------------------------------------------------------------------------


@command.command(
    "export",
    epilog="""\b
Examples:
  gwconf profile export work                      # print it, without the key
  gwconf profile export team -o profiles/team.toml   # a file a team can keep in its repository
  gwconf profile export work -o work.toml --include-key   # the key too (file 0600)
""",
)
@click.argument("name", shell_complete=_common.complete_profiles)
@click.option(
    "-o",
    "--output",
    "output",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write to FILE instead of printing.",
)
@click.option("--include-key", is_flag=True, help="Include the key itself (the file is written 0600).")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
def export(name: str, output: str | None, include_key: bool, force: bool) -> int:
    """Write profile NAME as a profile file others can import (without its key unless --include-key).

    A key_env or key_cmd reference stays in the file: it names where each user's key comes from,
    not the key. A profile whose key is inline is exported without it; whoever imports the file
    gives their own (gwconf profile import asks for it).
    """
    from pathlib import Path

    from gwconf.fileio import atomic_write
    from gwconf.profiles import ProfileStore
    from gwconf.secrets import command_shown

    profile = ProfileStore(_common.env()).load(name)
    literal = bool(profile.key_cmd) and command_shown(profile.key_cmd or "") != profile.key_cmd
    if literal and not include_key:  # ``echo <key>``: the command is the key, not a reference
        _output.warn(
            f"key_cmd left out: the command prints a literal key ({profile.key_source[4:]}); "
            "add --include-key to export it."
        )
        profile.key_cmd = None
    text = profile.to_toml(include_key=include_key)
    first, _, rest = text.partition("\n")
    lines = [first, f'name = "{profile.name}"']
    if (profile.key is not None or literal) and not include_key:
        lines.append("# no key here: `gwconf profile import` asks each user for theirs (or add key_env)")
    text = "\n".join(lines) + "\n" + rest
    if include_key and profile.key is not None:
        _output.remember_key(profile.key)
        _output.warn(
            "the export holds the key itself: share it only over a channel you would trust with the key."
        )
    elif include_key:
        _output.err(f"note: the key comes from {profile.key_source}; that reference is exported, not a key.")
    if output is None:
        click.echo(text, nl=False)  # printed as asked: with --include-key that is the key in full
        return 0
    target = Path(output).expanduser()
    if target.exists() and not force:
        raise ProfileError(
            f"{target} already exists.", "Add --force to replace it, or choose another -o FILE."
        )
    secret = include_key and (profile.key is not None or literal)
    atomic_write(target.resolve(), text.encode(), mode=None, secret=secret)
    _output.out(
        f"Exported profile {profile.name!r} to {target}" + (" (0600: it holds the key)." if secret else ".")
    )
    _output.out(f"Import it elsewhere with: gwconf profile import {target}")
    return 0


@command.command(
    "import",
    epilog="""\b
Examples:
  gwconf profile import profiles/team.toml            # asks for the key if the file has none
  gwconf profile import team.toml --name gw --key-env GW_KEY
  printf %s "$KEY" | gwconf profile import team.toml --key-stdin
  curl -fsS https://example.com/team.toml | gwconf profile import - --name team --key-env GW_KEY
""",
)
@click.argument("source", metavar="FILE|-", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--name", "profile_name", help="Save under this name (default: the file's name field, or its file name)."
)
@click.option("--key-stdin", is_flag=True, help="Read the key from standard input.")
@click.option("--key-env", metavar="VAR", help="Take the key from this environment variable when used.")
@click.option("--use", "make_active", is_flag=True, help="Make it the active profile.")
@click.option("--force", is_flag=True, help="Replace a profile of the same name.")
@click.option(
    "--trust-hosts",
    is_flag=True,
    help="Accept a file whose Anthropic- or Gemini-style address is on another host than its base address.",
)
def import_profile(
    source: str,
    profile_name: str | None,
    key_stdin: bool,
    key_env: str | None,
    make_active: bool,
    force: bool,
    trust_hosts: bool,
) -> int:
    """Save a profile from a profile file (FILE, or - for standard input), checking every field.

    When the file carries no key (an export without --include-key) and no key option is given,
    the key is asked for on a terminal (input hidden); without a terminal, pass --key-stdin or
    --key-env VAR. A key option replaces the file's own key source.
    """
    from gwconf.profiles import KEY_ENV_PATTERN, ProfileStore

    if key_stdin and key_env:
        raise UsageError("choose one key source, not --key-stdin and --key-env.", "Keep one of the two.")
    if key_stdin and source == "-":
        raise UsageError(
            "standard input already carries the profile file, so it cannot carry the key too.",
            "Pass the file by name, or use --key-env VAR.",
        )
    if key_env is not None and not KEY_ENV_PATTERN.match(key_env):
        raise UsageError(f"--key-env {key_env!r} is not a valid variable name.", "Use letters, digits and _.")
    profile, shown = _read_profile_file(source, profile_name)
    _consent_to_hosts(
        profile, shown, trust_hosts, can_ask=sys.stdin.isatty() and source != "-" and not key_stdin
    )
    store = ProfileStore(_common.env())
    if store.exists(profile.name) and not force:
        raise ProfileError(
            f"a profile named {profile.name!r} already exists.",
            "Pass --name NEW to save it under another name, or --force to replace it.",
        )
    if key_stdin or key_env:
        profile.key = profile.key_cmd = profile.key_env = profile.key_keyring = None
        if key_env:
            profile.key_env = key_env
        else:
            profile.key = sys.stdin.readline().rstrip("\r\n")
    elif profile.key_source == "none":
        if not sys.stdin.isatty() or source == "-":
            raise UsageError(
                f"{shown} holds no key and there is no terminal to ask on.",
                "Pass --key-stdin (and pipe the key) or --key-env VAR.",
            )
        profile.key = click.prompt("Gateway key (input hidden)", hide_input=True)
    if profile.key is not None:
        profile.key = _common.checked_key(
            profile.key, "Give the key again (--key-stdin, or type it when asked)."
        )
    if profile.key_cmd:
        _output.warn(
            f"this profile runs a command to get its key: {profile.key_cmd}  (check it is yours to run)"
        )
    if profile.key_env and not _common.env().get(profile.key_env):
        _output.warn(f"${profile.key_env} is not set now; export it before using this profile.")
    store.save(profile)
    origin = {"inline": "saved in the profile", "none": "none"}.get(profile.key_source, "")
    origin = origin or (f"${profile.key_env}" if profile.key_env else "a command")
    _output.out(f"Imported profile {profile.name!r} from {shown}: {profile.base_url} (key: {origin}).")
    if make_active or store.active() is None:
        store.set_active(profile.name)
        _output.out(f"Active profile: {profile.name}. Next: gwconf apply --all  (or: gwconf run CLIENT)")
    else:
        _output.out(f"Use it with: gwconf use {profile.name}")
    return 0


def _consent_to_hosts(profile: Any, shown: str, trusted: bool, *, can_ask: bool) -> None:
    """A shared file whose Anthropic- or Gemini-style address is on another host than its base
    address sends the key there too, and ``import`` showed neither (found by the round's sweep:
    ``apply claude-code`` then ``verify`` posted the key to the second host). Asked on a terminal;
    else refused (exit 7) unless ``--trust-hosts``."""
    hosts = profile.other_hosts()
    if not hosts or trusted:
        return
    from gwconf import urls

    own = urls.origin(profile.base_url)
    what = f"{shown} sends the key to {', '.join(hosts)} as well as to {own} (its base address's host)"
    if can_ask and click.confirm(f"{what}. Import it?", default=False):
        return
    from gwconf.errors import UntrustedAddress

    raise UntrustedAddress(
        f"{what}; nothing was imported.",
        "Import it only if you trust every host it names: gwconf profile import FILE --trust-hosts "
        "(or remove anthropic_base_url / gemini_base_url from the file).",
    )


def _read_profile_file(source: str, profile_name: str | None) -> tuple[Any, str]:
    """The profile in FILE (or standard input), named and checked, and how to show where it came from."""
    from pathlib import Path

    from gwconf import registry
    from gwconf.formats import decode
    from gwconf.profiles import parse_profile, validate_name

    if source == "-":
        raw, shown, stem = sys.stdin.buffer.read(1_000_000), "<stdin>", None
    else:
        path = Path(source).expanduser()
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ProfileError(f"cannot read {source} ({exc.strerror}).", "Check the path.") from None
        shown, stem = source, path.stem
    text, _ = decode(raw, shown)
    profile = parse_profile(text, shown, stem or "")
    name = profile_name or (profile.name if profile.name else None)
    if not name:
        raise UsageError("the profile from standard input has no name field.", "Pass --name NAME.")
    profile.name = validate_name(name)
    unknown = sorted(set(profile.client_models) - set(registry.MODULES))
    if unknown:
        raise ProfileError(
            f"{shown}: [models] names {', '.join(repr(u) for u in unknown)}, which is no client gwconf knows.",
            "Fix the id (every id: gwconf clients), or remove the line.",
        )
    return profile, shown
