"""gwconf verify: one real request with what each client will really send."""

from __future__ import annotations

import itertools
import sys
import threading
from types import TracebackType
from typing import Any, TextIO

import click

from gwconf.cli import _common, _output


class Spinner:
    """A spinner on stderr while a request is out, on a terminal only: nothing on a pipe or file."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = _output.clean(label)
        self.stream = stream if stream is not None else sys.stderr
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def __enter__(self) -> Spinner:
        if self.active:
            utf = "utf" in (getattr(self.stream, "encoding", "") or "").lower()
            frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" if utf else "|/-\\"
            self._thread = threading.Thread(target=self._spin, args=(frames,), daemon=True)
            self._thread.start()
        return self

    def _spin(self, frames: str) -> None:
        for frame in itertools.cycle(frames):
            self.stream.write(f"\r{frame} {self.label}")
            self.stream.flush()
            if self._stop.wait(0.08):
                break

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.stream.write("\r\x1b[K")  # erase the spinner line
            self.stream.flush()


@click.command(
    "verify",
    epilog="""\b
Examples:
  gwconf verify codex                 # what Codex will send, sent once (POST …/v1/responses)
  gwconf verify codex claude-code --json
  gwconf verify                       # every client gwconf applied (or the active profile alone)
  gwconf verify --profile work        # the profile's own chat request
  gwconf verify -p work -p backup     # two gateways side by side: verdict, first byte, total, model
  gwconf verify continue --model other-model --timeout 10
\b
Exit codes: 0 every request answered with content; 3 a key was rejected (401);
4 any other failure (wrong base address, model, 429, 5xx, unreachable, timeout,
an answer without content); 1 nothing could be sent (no key, no model, unreadable file);
7 a key was held back: the client points at an address that is no profile's (a project
file in the current folder?) and --trust-project was not given.
""",
)
@_common.clients_argument
@click.option(
    "--profile",
    "-p",
    "profile_refs",
    metavar="NAME|PATH",
    multiple=True,
    shell_complete=_common.complete_profiles,
    help="A saved profile name or a profile file (default: the profile used here). Repeat it to compare "
    "several gateways side by side.",
)
@click.option("--model", "-m", help="Test this model instead of the one the client (or profile) names.")
@_common.timeout_option("Give up waiting after this long.")
@click.option(
    "--trust-project",
    is_flag=True,
    help="Also send the key to an address the current folder's files choose (a cloned repository's "
    "config is not trusted otherwise).",
)
@_common.json_option
def command(
    client_ids: tuple[str, ...],
    profile_refs: tuple[str, ...],
    model: str | None,
    timeout: float,
    trust_project: bool,
    as_json: bool,
) -> int:
    """Make one real test completion per client, with exactly what it will send.

    For each CLIENT, gwconf reads back from its files the base address (in the client's own
    form), the key (from wherever that client takes it) and the model, then sends the smallest
    real request in the client's wire protocol: chat completions, Responses, Anthropic messages
    or Gemini generateContent. It shows the URL, the key's mask, the model, the HTTP status, the
    latency and the reply, and one verdict: ok, key rejected, forbidden, base address wrong,
    model not available, rate limited, gateway error, unreachable, timeout or malformed success.
    The key goes only to an address of a saved profile (or, with --trust-project, to one the
    current folder's files choose): never to a vendor's official address, never through a
    redirect. It also reports the time to the first byte and in total, and warns (without
    failing) when the reply names another model than the one asked for. Several --profile compare
    those gateways side by side.
    """
    from gwconf import gateway
    from gwconf.errors import UsageError
    from gwconf.profiles import ProfileStore

    env = _common.env()
    store = ProfileStore(env)
    if len(profile_refs) > 1:
        if client_ids:
            raise UsageError(
                "several --profile compare the profiles' gateways; clients read their own files.",
                "e.g. gwconf verify -p work -p backup   (or one profile: gwconf verify codex -p work)",
            )
        return _compare(store, profile_refs, env, model, timeout, as_json)
    profile_ref = profile_refs[0] if profile_refs else None
    clients, profile = _what_to_verify(store, env, client_ids, profile_ref)
    checks = _run_checks(clients, profile, env, model=model, timeout=timeout, trust_project=trust_project)
    for check in checks:
        _output.remember_key(check.key)
    if profile is not None:
        suggest_models(checks, profile, env, timeout)
        point_to_apply(checks, profile, env, timeout)
    code = gateway.overall_exit([c.exit_code for c in checks])
    if as_json:
        _output.emit_json(
            {
                "profile": profile.name if profile else None,
                "chosen_by": _chosen_by(profile),
                "results": [c.to_json() for c in checks],
                "exit_code": code,
            }
        )
        return code
    chosen = _chosen_by(profile)
    if profile is not None and chosen is not None and chosen["source"] not in ("active", "--profile"):
        _output.out(f"Using profile {profile.name!r} (chosen by {chosen['file'] or chosen['source']}).")
    for check in checks:
        render_check(check)
    _unknown_limits(checks, profile)
    if len(checks) > 1:
        good = sum(1 for c in checks if c.exit_code == 0)
        _output.out(f"\n{good} of {len(checks)} answered with content.")
    return code


def _what_to_verify(
    store: Any, env: Any, client_ids: tuple[str, ...], profile_ref: str | None
) -> tuple[list[Any], Any]:
    """The clients to verify (named, else those gwconf applied, else none: the profile alone) and the
    profile (for a client, only a fallback model and key masking, so a missing one is no error)."""
    from gwconf import binding, registry
    from gwconf.errors import GwconfError
    from gwconf.ledger import Ledger

    here = store.choose(None) if profile_ref is None and not client_ids else None
    if client_ids:
        clients = _common.resolve_clients(client_ids)
    elif profile_ref or (here is not None and here.source in (binding.ENVIRONMENT, binding.FOLDER)):
        clients = []  # the profile named, or the one this folder (or GWCONF_PROFILE) chooses
    else:
        applied = set(Ledger(env).clients())
        clients = [c for c in registry.all_clients() if c.id in applied]
    profile = None
    if clients:
        try:
            profile = store.load(profile_ref)  # only for a fallback model and masking
        except GwconfError:
            if profile_ref:
                raise
    else:
        profile = store.load(profile_ref)
    if profile is not None:
        try:
            _output.remember_key(profile.resolve_key(env))
        except GwconfError:
            pass
    return clients, profile


def _run_checks(
    clients: list[Any], profile: Any, env: Any, *, model: str | None, timeout: float, trust_project: bool
) -> list[Any]:
    """One real request per client (or for the profile alone when there is no client)."""
    from gwconf import verify
    from gwconf.trust import Trust

    checks = []
    if not clients:
        assert profile is not None
        with Spinner(f"verifying profile {profile.name} at {profile.base_url} …"):
            checks.append(verify.verify_profile(profile, env, model=model, timeout=timeout))
    trust = Trust.of(env, project=trust_project)
    for client in clients:
        fallback = profile.model_for(client.id) if profile else None
        with Spinner(f"verifying {client.id} …"):
            check = verify.verify_client(
                client,
                env,
                model=model,
                fallback_model=fallback,
                timeout=timeout,
                trust=trust,
                profile=profile,
            )
        checks.append(check)
    return checks


def _compare(
    store: Any, refs: tuple[str, ...], env: Any, model: str | None, timeout: float, as_json: bool
) -> int:
    """``verify -p A -p B``: each profile's own request, one row per gateway."""
    from gwconf import gateway, verify
    from gwconf.errors import GwconfError

    checks = []
    for ref in dict.fromkeys(refs):
        profile = store.load(ref)
        try:
            _output.remember_key(profile.resolve_key(env))
        except GwconfError:
            pass
        with Spinner(f"verifying profile {profile.name} at {profile.base_url} …"):
            check = verify.verify_profile(profile, env, model=model, timeout=timeout)
        _output.remember_key(check.key)
        checks.append((profile, check))
    code = gateway.overall_exit([c.exit_code for _, c in checks])
    if as_json:
        _output.emit_json(
            {
                "profiles": [{"profile": p.name, "base_url": p.base_url, **c.to_json()} for p, c in checks],
                "exit_code": code,
            }
        )
        return code
    rows = [("profile", "gateway", "verdict", "status", "first byte", "total", "model")]
    for profile, check in checks:
        probe = check.probe
        if probe is None:
            rows.append((profile.name, profile.base_url, "not sent", "-", "-", "-", "-"))
            continue
        answered = probe.model or "-"
        if probe.substituted:
            answered = f"{probe.model} → {probe.answered_model} (!)"
        rows.append(
            (
                profile.name,
                probe.url,
                probe.label,
                str(probe.status) if probe.status is not None else "-",
                f"{probe.first_byte_ms} ms" if probe.first_byte_ms is not None else "-",
                f"{probe.latency_ms} ms" if probe.latency_ms is not None else "-",
                answered,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        _output.out("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    for profile, check in checks:
        if check.probe is not None and check.probe.substituted:
            _output.warn(_substitution(check.probe) + f" (profile {profile.name!r})")
        elif check.error is not None:
            _output.print_error(check.error)
        elif check.probe is not None and not check.probe.ok:
            _output.out(f"{profile.name}: {check.probe.detail}")
    return code


def _substitution(probe: Any) -> str:
    return (
        f"asked for {probe.model}, the gateway answered as {probe.answered_model}: it may route the request "
        "to another model than the one named (not a failure)"
    )


def _chosen_by(profile: Any) -> dict[str, Any] | None:
    """What chose the profile: --profile, GWCONF_PROFILE, a folder's .gwconf.toml or the active one."""
    choice = getattr(profile, "chosen", None)
    return None if choice is None else {"source": choice.source, "file": choice.file}


def point_to_apply(checks: list[Any], profile: Any, env: Any, timeout: float = 15.0) -> None:
    """A 401 for a client that holds another key than the profile's: the fix is to apply the
    profile, not to create a new key; unless the profile's key is rejected too (one chat request
    with it, to the profile's own address, says so), and then a new key comes first."""
    from gwconf import gateway
    from gwconf.errors import GwconfError

    rejected = [
        c for c in checks if c.client_id and c.probe is not None and c.probe.verdict == "key_rejected"
    ]
    if not rejected:
        return
    try:
        key = profile.resolve_key(env)
    except GwconfError:
        return
    other = [check for check in rejected if check.key and check.key != key]
    own: Any = None  # the profile's key, tried once for all of them
    if other and profile.model:
        own = gateway.probe("chat", profile.base_url, key, profile.model, timeout=min(timeout, 15.0))
    for check in other:
        held = f"{check.name} holds another key than profile {profile.name!r} ({check.probe.key_mask}, from {check.key_origin})"
        if own is not None and own.verdict == "key_rejected":
            check.probe.remedy = (
                f"{held}, and the gateway rejects the profile's key too ({own.key_mask}, chat at "
                f"{profile.base_url}): create a new key in the gateway's console, save it with "
                f'printf %s "$NEW_KEY" | gwconf profile set {profile.name} --key-stdin, '
                f"then gwconf apply {check.client_id}"
            )
        else:
            check.probe.remedy = f"{held}; put the profile's key in: gwconf apply {check.client_id}"


def suggest_models(checks: list[Any], profile: Any, env: Any, timeout: float) -> None:
    """A model the gateway does not serve: name the closest ids it does (its list, cached per profile)."""
    from gwconf import models
    from gwconf.errors import GwconfError

    unavailable = [c for c in checks if c.probe is not None and c.probe.verdict == "model_unavailable"]
    if not unavailable:
        return
    listed = [c.probe.listed for c in unavailable if c.probe.listed is not None]
    ids = listed[0] if listed else models.cached(profile, env)
    if ids is None:
        try:
            fetched = models.fetch(profile, env, timeout=min(timeout, 10.0))
        except GwconfError:
            return
        ids = fetched.ids if fetched.ok else None
    if not ids:
        return
    for check in unavailable:
        model = check.probe.model or ""
        if model in ids:  # listed, yet refused: the gateway's own set-up, not the profile's choice
            check.probe.remedy = (
                f"The gateway lists {model!r} but answers that it does not serve it: a deployment "
                "or channel for it is missing or down on the gateway; ask whoever runs it, or pick "
                f"another model (gwconf models; gwconf profile set {profile.name} --model MODEL)."
            )
            continue
        near = models.closest(model, ids)
        served = f"closest it serves: {', '.join(near)}" if near else f"it serves {len(ids)} others"
        check.probe.remedy = (
            f"The gateway does not serve {model!r}; {served} (every id: gwconf models). "
            f"Change it with: gwconf profile set {profile.name} --model MODEL"
        )


def _unknown_limits(checks: list[Any], profile: Any) -> None:
    """Once for the whole run (not a line per client), for each profile whose gateway the
    clients call: the clients whose model's limits nobody gives, and the command that sets them."""
    from gwconf import limits

    if profile is None:
        return
    by_profile: dict[str, list[Any]] = {}  # each client's gateway's profile: the one to set
    for check in checks:
        if check.client_id and check.limits is not None:
            by_profile.setdefault(check.limits.get("profile", profile.name), []).append(check)
    for name, group in by_profile.items():
        clients = limits.unknown_for([(c.client_id, c.limits) for c in group])
        if clients:
            _output.out(f"\nnote: {limits.unknown_note(name, clients)}")


def render_check(check: Any) -> None:
    """The text form of one ``verify.Check``."""
    out = _output.out
    probe = check.probe
    wire = f" · {_wire_label(probe.wire)}" if probe else ""
    out(
        _output.style(
            f"== {check.client_id or check.name}" + (f" ({check.name})" if check.client_id else "") + wire,
            bold=True,
        )
    )
    if check.error is not None:
        _output.print_error(check.error)
        return
    render_probe(probe, check.key_origin)
    if check.limits is not None and check.limits["source"] != "unknown":  # unknown: said once, below
        from gwconf.limits import describe_in_effect

        out(f"  limits   {describe_in_effect(check.limits)}")
    for note in check.notes:
        out(f"  note     {note}")
    for finding in check.findings:
        out(f"  note     {finding.message}" + (f" (fix: {finding.fix})" if finding.fix else ""))
    if check.findings and check.client_id:
        out(f"  see      gwconf doctor {check.client_id}")


def render_probe(probe: Any, key_origin: str = "", indent: str = "  ", remedy: bool = True) -> None:
    out = _output.out
    header = {"bearer": "Authorization: Bearer", "x-api-key": "x-api-key", "x-goog-api-key": "x-goog-api-key"}
    origin = f"from {key_origin}; " if key_origin else ""
    out(f"{indent}POST     {probe.url}")
    out(
        f"{indent}key      {probe.key_mask}  ({origin}sent as {header.get(probe.auth_header, probe.auth_header)})"
    )
    out(f"{indent}model    {probe.model}")
    if not probe.sent:
        out(f"{indent}status   not sent")
    elif probe.status is None:
        took = f" after {probe.latency_ms} ms" if probe.latency_ms is not None else ""
        out(f"{indent}status   no HTTP answer{took}")
    else:
        out(f"{indent}status   {probe.status} in {probe.latency_ms} ms")
        if probe.first_byte_ms is not None:
            out(f"{indent}timing   first byte {probe.first_byte_ms} ms, total {probe.latency_ms} ms")
    colour = "green" if probe.ok else "red"
    verdict = _output.style(probe.label, fg=colour, bold=True)
    if probe.ok:
        out(f"{indent}verdict  {verdict}")
        out(f"{indent}reply    {probe.reply}")
        if probe.substituted:
            out(f"{indent}{_output.style('warning', fg='yellow', bold=True)}  {_substitution(probe)}")
        return
    out(f"{indent}verdict  {verdict}: {probe.detail}")
    for n, line in enumerate(probe.body):
        out(f"{indent}{'body' if n == 0 else '':<8} | {line}")
    if probe.remedy and remedy:
        out(f"{indent}remedy   {probe.remedy}")


def _wire_label(wire: str) -> str:
    from gwconf.gateway import WIRE_LABELS

    return WIRE_LABELS.get(wire, wire)
