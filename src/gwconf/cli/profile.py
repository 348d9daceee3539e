"""gwconf profile: save, list, show, rename and remove gateway profiles."""

from __future__ import annotations

import sys

import click

from gwconf.cli import _common, _output
from gwconf.errors import ProfileError, UsageError


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


@command.command(
    "add",
    epilog="""\b
Examples:
  gwconf profile add work --base-url https://gw.example.com/v1 --model my-model --use
  gwconf profile add work --base-url https://gw.example.com --key-cmd 'pass show gw/key'
""",
)
@click.argument("name")
@click.option("--base-url", required=True, help="The gateway's base address (…/v1 is added if missing).")
@click.option("--model", "-m", help="Default model for every client.")
@click.option("--key-stdin", is_flag=True, help="Read the key from standard input.")
@click.option("--key-env", metavar="VAR", help="Take the key from this environment variable when used.")
@click.option("--key-cmd", metavar="CMD", help="Run this command to get the key when used.")
@click.option(
    "--key", "key_value", metavar="KEY", help="The key itself (lands in shell history: prefer the others)."
)
@click.option("--anthropic-base-url", metavar="URL", help="Anthropic-style root (default: base without /v1).")
@click.option("--gemini-base-url", metavar="URL", help="Gemini-style root (default: base without /v1).")
@click.option("--use", "make_active", is_flag=True, help="Make it the active profile.")
@click.option("--force", is_flag=True, help="Replace a profile of the same name.")
def add(
    name: str,
    base_url: str,
    model: str | None,
    key_stdin: bool,
    key_env: str | None,
    key_cmd: str | None,
    key_value: str | None,
    anthropic_base_url: str | None,
    gemini_base_url: str | None,
    make_active: bool,
    force: bool,
) -> int:
    """Save a profile NAME. With no key option on a terminal, asks for the key (hidden)."""
    from gwconf import secrets, urls
    from gwconf.profiles import KEY_ENV_PATTERN, Profile, ProfileStore, validate_name

    env = _common.env()
    store = ProfileStore(env)
    validate_name(name)
    if store.exists(name) and not force:
        raise ProfileError(f"a profile named {name!r} already exists.", "Add --force to replace it.")
    chosen = [
        o
        for o, v in (
            ("--key-stdin", key_stdin),
            ("--key-env", key_env),
            ("--key-cmd", key_cmd),
            ("--key", key_value),
        )
        if v
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one key source, not {' and '.join(chosen)}.")
    normalized = urls.normalize_base_url(base_url)
    for change in normalized.changes:
        _output.err(f"base address: {change} -> {normalized.url}")
    for warning in normalized.warnings:
        _output.warn(warning)
    key: str | None = None
    if key_stdin:
        key = sys.stdin.readline().rstrip("\r\n")
    elif key_value is not None:
        _output.warn(
            "a key on the command line lands in your shell history; prefer --key-stdin or --key-env."
        )
        key = key_value
    elif key_env:
        if not KEY_ENV_PATTERN.match(key_env):
            raise UsageError(f"--key-env {key_env!r} is not a valid variable name.")
        if not env.get(key_env):
            _output.warn(f"${key_env} is not set now; export it before using this profile.")
    elif not key_cmd:
        if not sys.stdin.isatty():
            raise UsageError(
                "no key given and no terminal to ask on.",
                "Pass --key-stdin (and pipe the key), --key-env VAR or --key-cmd CMD.",
            )
        key = click.prompt("Gateway key (input hidden)", hide_input=True)
    if key is not None:
        if not key:
            raise ProfileError("the key is empty.")
        _output.remember_key(key)
        for problem in secrets.key_problems(key):
            _output.warn(f"the key {problem}.")
    profile = Profile(
        name=name,
        base_url=normalized.url,
        model=model,
        key=key,
        key_env=key_env,
        key_cmd=key_cmd,
        anthropic_base_url=urls.normalize_family_url(anthropic_base_url) if anthropic_base_url else None,
        gemini_base_url=urls.normalize_family_url(gemini_base_url) if gemini_base_url else None,
    )
    path = store.save(profile)
    _output.out(f"Saved profile {name!r} ({path}).")
    if make_active or store.active() is None:
        store.set_active(name)
        _output.out(f"Active profile: {name}. Next: gwconf apply CLIENT  (see: gwconf clients)")
    return 0


@command.command("list")
@_common.json_option
def list_profiles(as_json: bool) -> int:
    """List saved profiles; the active one is marked with *."""
    from gwconf.profiles import ProfileStore

    env = _common.env()
    store = ProfileStore(env)
    active = store.active()
    rows = []
    for name in store.names():
        try:
            rows.append(store.load(name).public_dict())
        except Exception as exc:  # a damaged file is listed, not fatal
            rows.append({"name": name, "error": str(exc)})
    if as_json:
        _output.emit_json({"active": active, "profiles": rows})
        return 0
    if not rows:
        _output.out("No profiles yet. Create one: gwconf profile add NAME --base-url URL")
    for row in rows:
        mark = "*" if row["name"] == active else " "
        if "error" in row:
            _output.out(f"{mark} {row['name']:<16} (cannot be read: {row['error']})")
        else:
            _output.out(
                f"{mark} {row['name']:<16} {row['base_url']}  model={row['model'] or '-'}  key={row['key_source']}"
            )
    return 0


@command.command("show")
@click.argument("name", shell_complete=_common.complete_profiles)
@click.option("--show-key", is_flag=True, help="Print the full key.")
@_common.json_option
def show(name: str, show_key: bool, as_json: bool) -> int:
    """Show one profile; the key is masked unless --show-key."""
    from gwconf.profiles import ProfileStore

    env = _common.env()
    profile = ProfileStore(env).load(name)
    data = profile.public_dict(show_key=show_key, env=env)
    if as_json:
        if show_key:
            import json

            click.echo(json.dumps(data, indent=2))
        else:
            _output.emit_json(data)
        return 0
    lines = [f"{k:<26} {'' if v is None else v}" for k, v in data.items() if k != "models"]
    for client_id, model in data["models"].items():
        lines.append(f"model for {client_id:<16} {model}")
    text = "\n".join(lines)
    click.echo(text) if show_key else _output.out(text)
    return 0


@command.command("remove")
@click.argument("name", shell_complete=_common.complete_profiles)
def remove(name: str) -> int:
    """Delete a saved profile (client files are not touched: see gwconf restore)."""
    from gwconf.profiles import ProfileStore

    ProfileStore(_common.env()).remove(name)
    _output.out(f"Removed profile {name!r}.")
    return 0


@command.command("rename")
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
    from gwconf import links
    from gwconf.profiles import Profile, ProfileStore, validate_name
    from gwconf.secrets import mask

    if link == "-":
        link = sys.stdin.read(links.MAX_LINK + 1)
    elif "apiKey=" in link:
        _output.warn("the link holds a key and is now in your shell history; next time pipe it in with: -")
    parsed = links.parse_ccswitch(link)
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
