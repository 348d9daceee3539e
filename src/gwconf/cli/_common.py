"""Shared option parsing for commands: the Env, client ids, profiles, base addresses and keys.

Imported without click too (``cli/_writing.py``): click is imported by the option helpers, which
only the click commands call."""

from __future__ import annotations

from gwconf.cli import _output
from gwconf.errors import ProfileError, UsageError
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import click


def env() -> Env:
    return Env.current()


def complete_clients(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    from gwconf import registry

    return [CompletionItem(c) for c in registry.IDS if c.startswith(incomplete)]


def complete_profiles(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    from gwconf.profiles import ProfileStore

    if incomplete.startswith((".", "~", "/")) or "/" in incomplete or "\\" in incomplete:
        return [CompletionItem(incomplete, type="file")]  # a profile file: the shell completes paths
    try:
        names = ProfileStore(Env.current()).names()
    except Exception:
        return []
    matches = [CompletionItem(n) for n in names if n.startswith(incomplete)]
    return matches or [CompletionItem(incomplete, type="file")]


def profile_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    import click

    return click.option(
        "--profile",
        "-p",
        "profile_ref",
        metavar="NAME|PATH",
        shell_complete=complete_profiles,
        help="A saved profile name or a path to a profile file (default: the active profile).",
    )(fn)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    import click

    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")(fn)


def clients_argument(fn: Callable[..., Any]) -> Callable[..., Any]:
    import click

    return click.argument("client_ids", nargs=-1, metavar="CLIENT...", shell_complete=complete_clients)(fn)


def resolve_clients(client_ids: tuple[str, ...]) -> list[Any]:
    """Adapters for the ids given; an unknown id is a usage error that lists the known ones."""
    from gwconf import registry

    unknown = [c for c in client_ids if c not in registry.MODULES]
    for client_id in unknown:
        why = registry.unsupported(client_id)
        if why:
            raise UsageError(why, "See every supported client with: gwconf clients")
    if unknown:
        close = _suggest(unknown[0], registry.IDS)
        raise UsageError(
            f"unknown client {unknown[0]!r}." + (f" Did you mean {close!r}?" if close else ""),
            "See every supported client with: gwconf clients",
        )
    seen: list[str] = []
    for c in client_ids:
        if c not in seen:
            seen.append(c)
    return [registry.get(c) for c in seen]


def link_apps() -> tuple[str, ...]:
    """The clients whose module builds an import link of the app's own."""
    from gwconf import registry

    return tuple(c.id for c in registry.all_clients() if c.has_import_link)


def complete_link_apps(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    return [CompletionItem(c) for c in link_apps() if c.startswith(incomplete)]


def link_app(client_id: str) -> Any:
    """The adapter of an app with an import link; any other id is a usage error naming those apps."""
    from gwconf import registry

    apps = link_apps()
    if client_id not in apps:
        close = _suggest(client_id, apps)
        known = (
            ""
            if client_id not in registry.MODULES
            else f" {registry.get(client_id).name} has no import link."
        )
        raise UsageError(
            f"no import link for {client_id!r}.{known}" + (f" Did you mean {close!r}?" if close else ""),
            f"Apps with an import link: {', '.join(apps)}. Others: gwconf apply CLIENT",
        )
    return registry.get(client_id)


def _suggest(word: str, choices: tuple[str, ...]) -> str | None:
    import difflib

    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return match[0] if match else None


def timeout_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--timeout SECONDS`` for the commands that wait on the gateway (verify, doctor)."""
    import click

    return click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=30.0,
        show_default=True,
        metavar="SECONDS",
        help=help_text,
    )


def one_key_source(given: tuple[tuple[str, object], ...], hint: str) -> list[str]:
    """The key options given, of ``(option, value)`` pairs; more than one is refused."""
    chosen = [option for option, value in given if value]
    if len(chosen) > 1:
        raise UsageError(f"choose one key source, not {' and '.join(chosen)}.", hint)
    return chosen


def base_address(base_url: str) -> str:
    """The canonical base for a pasted one, saying what was changed and what looks wrong."""
    from gwconf import urls

    normalized = urls.normalize_base_url(base_url)
    for change in normalized.changes:
        _output.err(f"base address: {change} -> {normalized.url}")
    for warning in normalized.warnings:
        _output.warn(warning)
    return normalized.url


def checked_key(key: str, empty_hint: str) -> str:
    """A typed, piped or adopted key: refused when empty, masked in all later output, oddities named.
    What a paste carries around a key is left out, and said: surrounding blanks, a pair of quotes,
    an ``Authorization`` value's ``Bearer`` (the newcomer sweep: each was sent as part of the key,
    and got a 401 or a refusal)."""
    from gwconf import secrets

    _output.remember_key(key)
    cleaned = key.strip()
    if len(cleaned) >= 2 and cleaned[0] == cleaned[-1] and cleaned[0] in "\"'":
        cleaned = cleaned[1:-1].strip()
    if cleaned[:7].lower() == "bearer ":
        cleaned = cleaned[7:].strip()
    if not cleaned:  # blanks, or "" alone, were saved as the key (the newcomer sweep)
        raise ProfileError("the key is empty.", empty_hint)
    if cleaned != key:
        _output.remember_key(cleaned)
        _output.warn(f"the key was pasted with more around it; gwconf keeps {secrets.mask(cleaned)} alone.")
        key = cleaned
    for problem in secrets.key_problems(key):
        _output.warn(f"the key {problem}.")
    if key.startswith(("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-ant-")):
        _output.warn(
            f"{secrets.mask(key)} has the shape of a vendor's own key (OpenAI's sk-proj-, Anthropic's "
            "sk-ant-), not a gateway's: use the key from the gateway's console."
        )
    return key
