"""gwconf init: the guided first run, from the gateway's address to verified clients."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode, GwconfError, ProfileError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable


@click.command(
    "init",
    epilog="""\b
Examples:
  gwconf init                 # asks for the address and key, offers the models, applies on yes
  printf %s "$KEY" | gwconf init --yes --name work --base-url https://gw.example.com/v1 \\
      --key-stdin --model my-model
  gwconf init --yes --name ci --base-url https://gw.example.com --key-env GW_KEY --no-apply
  gwconf init --client codex --client zed   # only these two clients, even if others are found
  gwconf init --dry-run       # check the gateway and show each client's diff; save and write nothing
\b
On a terminal the question "Apply profile ... to a, b, c?" also takes the ids to apply to (a c).
\b
The exit code is verify's: 0 every client answered, 3 the key was rejected, 4 the gateway
failed, 1 something else (see gwconf verify --help).
""",
)
@click.option("--name", "profile_name", help="The profile's name (default: from the gateway's host).")
@click.option("--base-url", help="The gateway's base address (…/v1 is added if missing).")
@click.option("--key-stdin", is_flag=True, help="Read the key from standard input.")
@click.option("--key-env", metavar="VAR", help="Take the key from this environment variable when used.")
@click.option("--key-cmd", metavar="CMD", help="Run this command to get the key when used.")
@click.option("--model", "-m", help="Default model for every client.")
@click.option(
    "--yes", "-y", is_flag=True, help="Ask nothing: take the options, apply to every detected client."
)
@click.option("--no-apply", is_flag=True, help="Save and check the profile; change no client.")
@click.option(
    "--client",
    "client_ids",
    multiple=True,
    metavar="ID",
    help="Apply to this client only (repeat, or a, b): found here or not. Default: every one found.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check the gateway and the key, then show what would be saved and each client's diff; "
    "save and write nothing.",
)
@click.option("--force", is_flag=True, help="Replace a profile of the same name.")
@_common.timeout_option("Give up on the gateway after this long.")
def command(
    profile_name: str | None,
    base_url: str | None,
    key_stdin: bool,
    key_env: str | None,
    key_cmd: str | None,
    model: str | None,
    yes: bool,
    no_apply: bool,
    client_ids: tuple[str, ...],
    dry_run: bool,
    force: bool,
    timeout: float,
) -> int:
    """Set up gwconf the first time: gateway, key, model, then the clients found here.

    On a terminal it asks for the gateway's address and key (hidden), checks both by asking the
    gateway for its models, offers that list, names the profile, shows each detected client with
    what would change, applies on confirmation, verifies each client and says what to restart.
    Without a terminal, or with --yes, it takes everything from the options and fails clearly
    when one is missing.
    """
    from gwconf import models
    from gwconf.profiles import ProfileStore

    env = _common.env()
    if profile_name is not None:  # before anything is asked or fetched
        from gwconf.profiles import validate_name

        validate_name(profile_name)
    # --key-stdin typed on a terminal: asked for with input hidden, and the rest asked as usual
    # (the key was echoed as typed, with no prompt, and every client applied unasked)
    ask = not yes and sys.stdin.isatty()
    sources = _key_sources(base_url, key_stdin, key_env, key_cmd, ask)
    if no_apply and client_ids:
        raise UsageError("--no-apply changes no client: --client has nothing to choose.", "Keep one of them.")
    # before the gateway is asked anything: a mistyped id costs no round trip
    chosen = _common.resolve_clients(_split_ids(client_ids)) if client_ids else None

    # 1. the gateway and the key
    profile, resolved = _gateway_and_key(
        env, profile_name, base_url, key_stdin, key_env, key_cmd, model, sources
    )

    # 2. check both: the model list, else one chat request; nothing is saved unchecked (models.setup_step)
    if ask:  # a slow gateway took up to the timeout with nothing on the screen
        _output.out(f"Asking the gateway for its models (up to {timeout:g} s)...")
    listed = models.fetch(profile, env, timeout=timeout, key=resolved, unsaved=True)
    step = models.setup_step(listed, profile.model)
    if step == "need_model" and ask:
        profile.model = _model_to_try(listed) or None
        step = models.setup_step(listed, profile.model)
    if step == "try_chat":
        stopped = _try_chat(profile, listed, resolved, timeout)
        if stopped is not None:
            return stopped
    elif step != "save":
        from gwconf.cli.models import render

        render(listed, None)
        _output.err("Nothing was saved.")
        if listed.status is not None:
            _output.err("To check the gateway with a chat request instead, give the model: --model MODEL")
        # a gateway that does not list: only a chat request with a model can check the key, and
        # init saves nothing unchecked (it saved such a profile and exited 0: the newcomer sweep)
        return int(ExitCode.USAGE) if listed.verdict == "not_listed" else listed.exit_code
    _settle_model(profile, env, listed, ask)
    if listed.ok and profile.model and profile.model not in listed.ids:  # not listed: may still chat
        stopped = _try_chat(profile, listed, resolved, timeout)
        if stopped is not None:
            return stopped

    if dry_run:  # 3-4 as they would go, without saving, writing or verifying
        return _preview(ProfileStore(env), profile, env, chosen, no_apply=no_apply, force=force)

    # 3. the profile
    _save_profile(ProfileStore(env), profile, env, listed, ask=ask, named=bool(profile_name), force=force)

    # 4. the clients found here (or the ones named), then 5. verify each and what to restart
    return _apply_found(profile, env, chosen, ask=ask, no_apply=no_apply, timeout=timeout)


def _split_ids(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--client a --client b,c`` -> ("a", "b", "c")."""
    return tuple(part for value in values for part in value.replace(",", " ").split())


def _clients_to_set_up(env: Any, chosen: list[Any] | None) -> list[Any]:
    """The clients named with --client, else every one detected here that files configure."""
    from gwconf import registry

    if chosen is not None:
        return chosen
    return [c for c in registry.all_clients() if c.tier < 3 and c.detect(env)]


def _preview(
    store: Any, profile: Any, env: Any, chosen: list[Any] | None, *, no_apply: bool, force: bool
) -> int:
    """``init --dry-run``: the profile init would save and each client's diff, nothing written."""
    from gwconf import operations
    from gwconf.cli._writing import render_results

    if store.exists(profile.name) and not force:
        _output.out(
            f"A profile named {profile.name!r} exists: init would ask to replace it "
            "(or pass --name NEW, or --force)."
        )
    _output.out(
        f"Would save profile {profile.name!r} (active): {profile.base_url}, model {profile.model or '-'}."
    )
    if not profile.model:
        _output.out("No model chosen: init would apply to no client (give one with --model MODEL).")
        return int(ExitCode.OK)
    if no_apply:
        return int(ExitCode.OK)
    clients = _clients_to_set_up(env, chosen)
    if not clients:
        _output.out("No supported client was found here (gwconf clients lists them all).")
        return int(ExitCode.OK)
    results = operations.apply_profile(clients, profile, env, dry_run=True, skip_not_set_up=chosen is None)
    _output.out("")
    render_results(results, profile.name, dry_run=True)
    return int(ExitCode.ERROR) if any(r.error for r in results) else int(ExitCode.OK)


def _key_sources(
    base_url: str | None, key_stdin: bool, key_env: str | None, key_cmd: str | None, ask: bool
) -> list[str]:
    """The key options given (at most one), after refusing what init cannot go on without."""
    from gwconf.profiles import KEY_ENV_PATTERN

    sources = _common.one_key_source(
        (("--key-stdin", key_stdin), ("--key-env", key_env), ("--key-cmd", key_cmd)), "Keep one of them."
    )
    if not ask:
        missing = [
            o
            for o, v in (("--base-url URL", base_url), ("--key-stdin|--key-env VAR|--key-cmd CMD", sources))
            if not v
        ]
        if missing:
            raise UsageError(
                f"without a terminal to ask on, init needs {' and '.join(missing)}.",
                'e.g. printf %s "$KEY" | gwconf init --yes --base-url https://gw.example.com/v1 --key-stdin --model my-model',
            )
    if key_env and not KEY_ENV_PATTERN.match(key_env):
        raise UsageError(f"--key-env {key_env!r} is not a valid variable name.", "Use letters, digits and _.")
    return sources


def _gateway_and_key(
    env: Any,
    profile_name: str | None,
    base_url: str | None,
    key_stdin: bool,
    key_env: str | None,
    key_cmd: str | None,
    model: str | None,
    sources: list[str],
) -> tuple[Any, str]:
    """The unsaved profile from the options or the answers, and its key as resolved now."""
    from gwconf.profiles import Profile

    if base_url:
        base = _common.base_address(base_url)
    else:  # asked again until it is an address (a typo ended init, every answer lost)
        _output.out("gwconf points your AI clients at one model gateway. First, the gateway.")
        base = _asked_until_good(
            lambda: _common.base_address(
                click.prompt("Gateway base address (e.g. https://gw.example.com/v1)").strip()
            )
        )
    key: str | None = None
    if key_stdin and not sys.stdin.isatty():
        key = _common.checked_key(sys.stdin.readline().rstrip("\r\n"), "Give the key again.")
    elif key_stdin or not sources:
        key = _asked_until_good(
            lambda: _common.checked_key(
                click.prompt("Gateway key (input hidden)", hide_input=True).strip(), "Give the key again."
            )
        )
    name = profile_name or _default_name(base)
    profile = Profile(name=name, base_url=base, model=model, key=key, key_env=key_env, key_cmd=key_cmd)
    resolved = profile.resolve_key(env)
    _output.remember_key(resolved)
    return profile, resolved


def _asked_until_good(ask: Callable[[], str]) -> str:
    """``ask()``'s answer, asked again after each one refused (the error shown)."""
    while True:
        try:
            return ask()
        except GwconfError as exc:
            _output.print_error(exc)


def _try_chat(profile: Any, listed: Any, key: str, timeout: float) -> int | None:
    """The list did not show that the key, the address and the model work: one chat request with
    the model decides. None when it answered (go on); else its verdict is shown, nothing is
    saved, and its exit code is returned."""
    from gwconf import gateway
    from gwconf.cli.verify import render_probe

    probe = gateway.probe("chat", profile.base_url, key, profile.model, timeout=timeout)
    if probe.ok:
        return None
    if listed.ok:
        _output.err(f"The gateway does not list {profile.model!r}, and a chat request with it failed:")
    else:
        _output.err(
            f"The gateway's model list did not answer ({_list_failure(listed)}), and chat failed too:"
        )
    render_probe(probe, f"profile {profile.name} ({profile.key_source})")
    _output.err("Nothing was saved.")
    return int(probe.exit_code)


def _model_to_try(listed: Any) -> str:
    """On a terminal, when the list did not answer with the key: the model to try a chat request
    with (empty: stop)."""
    import click

    if listed.verdict == "not_listed":
        _output.out("The gateway does not list its models: a chat request with a model checks the key.")
        return str(click.prompt("Model (Enter to stop)", default="", show_default=False)).strip()
    if listed.verdict == "key_rejected":
        _output.err(f"The gateway's model list refused the key ({_list_failure(listed)}).")
        _output.err(
            "Some gateways list models only for some keys: a chat request with a model can still take it."
        )
    else:
        _output.err(f"The gateway's model list did not answer ({_list_failure(listed)}).")
        _output.err("A chat request with a model checks the address and the key instead.")
    return str(click.prompt("Model to try (Enter to stop)", default="", show_default=False)).strip()


def _list_failure(listed: Any) -> str:
    """One line for a list that could not be read: which request, and what came back."""
    said = listed.detail.split(": ")[0].rstrip(".")
    if listed.status is None:
        return f"GET {listed.url}: {listed.label}, {said}"
    if listed.verdict == "malformed" and listed.status == 200:
        return f"GET {listed.url}: {said if said.startswith('HTTP 200') else 'HTTP 200, ' + said}"
    return f"GET {listed.url}: HTTP {listed.status}, {listed.label}"


def _settle_model(profile: Any, env: Any, listed: Any, ask: bool) -> None:
    """Say what the model list proved; pick the model (asked, or the only one listed) or warn about it."""
    from gwconf import models

    if listed.ok:
        _output.out(f"The gateway accepted the key and lists {_output.plural(len(listed.ids), 'model')}.")
    elif listed.verdict == "not_listed" and profile.model is None:
        _output.out(
            "The gateway does not list its models, and no model was given: nothing checked the key yet."
        )
    elif listed.verdict == "not_listed":
        _output.out(f"The gateway does not list its models; a chat request with {profile.model!r} answered.")
    elif listed.verdict == "key_rejected":  # and a chat request with the model took the key
        _output.warn(f"the gateway's model list refused the key ({_list_failure(listed)}); chat took it.")
    else:
        _output.warn(
            f"could not read the gateway's model list ({_list_failure(listed)}); "
            f"a chat request with {profile.model!r} answered."
        )
    if profile.model is None:
        if ask:
            from gwconf.cli import _setup

            profile.model = _setup.choose_model(profile, env, listed)
        elif listed.ok and len(listed.ids) == 1:
            profile.model = listed.ids[0]
    elif listed.ok and profile.model not in listed.ids:
        near = models.closest(profile.model, listed.ids)
        _output.warn(
            f"the gateway does not list {profile.model!r}" + (f"; closest: {', '.join(near)}" if near else "")
        )


def _save_profile(
    store: Any, profile: Any, env: Any, listed: Any, *, ask: bool, named: bool, force: bool
) -> None:
    """Name the profile (asked unless --name), refuse to replace one without consent, save it active."""
    from gwconf import models
    from gwconf.profiles import validate_name

    name = profile.name
    replace = force
    while ask and not named:  # asked again until it is a name to use (the newcomer sweep: a
        # name refused, or "no" to replacing one, ended init and lost every answer before it)
        name = click.prompt("Name for this profile", default=name).strip()
        try:
            name = validate_name(name)
        except GwconfError as exc:
            _output.err(f"{exc} {getattr(exc, 'hint', '') or ''}".strip())
            continue
        if not store.exists(name) or force:
            break
        if click.confirm(f"A profile named {name!r} exists. Replace it?", default=False):
            replace = True
            break
        name = _free_name(store, name)
    profile.name = validate_name(name)
    if ask and named and store.exists(profile.name) and not replace:
        replace = click.confirm(f"A profile named {profile.name!r} exists. Replace it?", default=False)
    if store.exists(profile.name) and not replace:
        raise ProfileError(
            f"a profile named {profile.name!r} already exists.",
            "Pass --name NEW, or --force to replace it.",
        )
    store.save(profile)
    store.set_active(profile.name)
    if listed.ok:
        models.save_cache(profile, env, listed.ids, listed.limits)  # the limits it told, too
    _output.out(f"Saved profile {profile.name!r} (active): {profile.base_url}, model {profile.model or '-'}.")


def _free_name(store: Any, name: str) -> str:
    """``name-2``, ``name-3`` ...: the first not taken, offered as the next answer's default."""
    for number in range(2, 100):
        candidate = f"{name}-{number}"
        if not store.exists(candidate):
            return candidate
    return name


def _apply_found(
    profile: Any, env: Any, chosen: list[Any] | None, *, ask: bool, no_apply: bool, timeout: float
) -> int:
    """Show each detected (or ``chosen``) client's change, apply on yes (or to the ids answered),
    then verify (the exit code is verify's)."""
    from gwconf import operations, registry
    from gwconf.cli._writing import add_notes_and_steps, render_results, summary_line

    if not profile.model:  # a client set up without a model starts on its vendor's, or not at all
        return _verify_profile(profile, env, timeout)
    clients = [] if no_apply else _clients_to_set_up(env, chosen)
    if not clients:
        if not no_apply:
            _output.out("No supported client was found here (gwconf clients lists them all).")
        return _verify_profile(profile, env, timeout)
    preview = operations.apply_profile(clients, profile, env, dry_run=True, skip_not_set_up=chosen is None)
    # a link-only app's steps, as apply shows them (Cherry Studio "already points at this
    # profile", then failed its verify, and the link that sets it up was never shown)
    add_notes_and_steps(preview, set(), profile, env, False)
    pending = [r for r in preview if r.changed and not r.error]
    heading = "Chosen" if chosen is not None else "Found"
    _output.out(f"\n{heading} {_output.plural(len(clients), 'client')}:")
    for result in preview:
        _output.out("  " + summary_line(result))
    if not pending:
        _output.out("Nothing to change.")
    elif ask:
        wanted = _ask_which(profile.name, [r.id for r in pending])
        if not wanted:
            _output.out("Nothing was changed. Apply later with: gwconf apply --all")
            return _verify_profile(profile, env, timeout)
        left = {r.id for r in pending} - set(wanted)
        pending = [r for r in pending if r.id in wanted]
        preview = [r for r in preview if r.id not in left]  # those left out are not verified either
    applied = []
    failed = [r for r in preview if r.error]  # shown in the preview's lines
    if pending:
        chosen = [registry.get(r.id) for r in pending]
        results = operations.apply_profile(chosen, profile, env, skip_not_set_up=True)
        for result in results:
            if result.error:
                _output.print_error(result.error)
                failed.append(result)
            elif result.changed:
                applied.append(result)
        if applied:
            ids = " ".join(r.id for r in applied)
            _output.out(
                f"Applied to {ids.replace(' ', ', ')} (a backup first; undo with: gwconf restore {ids})."
            )
    failed_ids = {r.id for r in failed}
    in_the_app = [r for r in preview if r.steps is not None and not r.error]
    if in_the_app:  # (--client cursor): what to do in the app, as apply shows it; nothing to verify
        _output.out("")
        render_results(in_the_app, profile.name, dry_run=False)
    code = _verify_clients(
        [registry.get(r.id) for r in preview if r.id not in failed_ids and not r.skipped and r.steps is None],
        profile,
        env,
        timeout,
        applied,
        done=not failed,
    )
    if failed:  # "Done." would hide them (the newcomer sweep)
        ids = " ".join(sorted(failed_ids))
        _output.out(
            f"\nNot set up: {ids.replace(' ', ', ')} (see above). Fix what is named, then: gwconf apply {ids}"
        )
        return code or max(int(getattr(r.error, "exit_code", ExitCode.ERROR)) for r in failed)
    return code


def _ask_which(profile: str, ids: list[str]) -> list[str]:
    """Yes: every one of ``ids``; no: none; or the ids typed (asked again for one not among them)."""
    while True:
        answer = click.prompt(
            f"Apply profile {profile!r} to {', '.join(ids)}? [Y/n, or the ids to apply to]",
            default="y",
            show_default=False,
        )
        words = list(_split_ids((answer.lower(),)))
        if words in ([], ["y"], ["yes"]):
            return ids
        if words in (["n"], ["no"]):
            return []
        unknown = [w for w in words if w not in ids]
        if not unknown:
            return [i for i in ids if i in words]
        _output.err(f"Not among them: {', '.join(unknown)}. Answer y, n, or some of: {' '.join(ids)}")


# the second-level names under a country's domain that a company's name comes before
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"})


def _default_name(base_url: str) -> str:
    """A name from the gateway's host: ``gw.example.com`` -> ``example``; loopback -> ``local``."""
    from urllib.parse import urlsplit

    host = (urlsplit(base_url).hostname or "").lower()
    if host in ("localhost", "::1") or host.replace(".", "").isdigit():
        return "local"
    labels = [p for p in host.split(".") if p not in ("www", "api", "gw", "gateway", "llm", "ai")]
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        labels = labels[:-1]  # gw.example.co.uk: "example", not "co" (the newcomer sweep)
    word = labels[-2] if len(labels) >= 2 else (labels[0] if labels else "gateway")
    return "".join(ch for ch in word if ch.isalnum() or ch in "-_")[:40] or "gateway"


def _verify_profile(profile: Any, env: Any, timeout: float) -> int:
    from gwconf import verify
    from gwconf.cli.verify import render_check

    if not profile.model:
        _output.out(
            f"No model chosen: add one with gwconf profile set {profile.name} --model MODEL, then "
            "gwconf apply --all and gwconf verify."
        )
        return int(ExitCode.OK)
    check = verify.verify_profile(profile, env, timeout=timeout)
    render_check(check)
    return check.exit_code


def _verify_clients(
    clients: list[Any], profile: Any, env: Any, timeout: float, applied: list[Any], *, done: bool = True
) -> int:
    from gwconf import gateway, verify

    if not clients:
        return _verify_profile(profile, env, timeout)
    # how long it may take, said before it starts (the newcomer sweep: a slow gateway left this
    # line alone for up to the timeout per client, and Ctrl-C there said nothing of what was applied)
    _output.out(
        f"\nVerifying each client with a real request (up to {timeout:g} s each; "
        "Ctrl-C leaves what was applied, and gwconf restore undoes it):"
    )
    codes = []
    for client in clients:
        check = verify.verify_client(
            client, env, fallback_model=profile.model_for(client.id), timeout=timeout
        )
        _output.remember_key(check.key)
        codes.append(check.exit_code)
        if check.error is not None:
            _output.out(f"  {client.id:<14} {check.error.message}")
        elif check.probe is not None and check.probe.ok:
            _output.out(f"  {client.id:<14} ok ({check.probe.latency_ms} ms): {check.probe.reply}")
        elif check.probe is not None:
            _output.out(f"  {client.id:<14} {check.probe.label}: {check.probe.detail}")
    code = gateway.overall_exit(codes)
    if applied:
        _output.out("\nRestart:")
        for result in applied:
            _output.out(f"  {result.id:<14} {result.restart}")
    if code:
        _output.out(f"\nSee the details with: gwconf verify   (exit {code})")
    elif done:
        _output.out("\nDone. Switch gateways later with: gwconf use NAME")
    return code
