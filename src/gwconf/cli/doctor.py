"""gwconf doctor: the spec's 401 procedure (section 5.6), client by client. It only reports."""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _common, _output
from gwconf.errors import ExitCode

AREA_TITLES = {
    "files": "    files",
    "base": "(a) base address",
    "key": "(b) key",
    "provider": "(c) provider",
    "override": "    overrides",
    "process": "    processes",
    "other": "    other",
}


@click.command(
    "doctor",
    epilog="""\b
Examples:
  gwconf doctor                  # every client gwconf applied (none yet: those installed)
  gwconf doctor codex            # why does Codex get a 401?
  gwconf doctor claude-code --profile work --json
  gwconf doctor --profile work   # just the direct request with the profile's values
\b
Exit codes: 0 all good; 5 key and service are fine, a client's configuration is at
fault (the fix is printed); 3 the gateway itself rejects the key; 4 the gateway fails
with the profile's own values (address, model, 429, 5xx, unreachable, timeout);
1 the check could not be made (no profile, no key, no model); 7 a project file in the
current folder points a client at an address that is no profile's (nothing is sent there).
""",
)
@_common.clients_argument
@_common.profile_option
@click.option("--model", "-m", help="Use this model for the direct request instead of the profile's.")
@_common.timeout_option("Give up waiting for the gateway after this long.")
@_common.json_option
def command(
    client_ids: tuple[str, ...], profile_ref: str | None, model: str | None, timeout: float, as_json: bool
) -> int:
    """Find out why a client gets a 401: address, key, provider, then a direct request.

    Per client: (a) is its base address the profile's, in the form this client wants (not a
    vendor's official address, /v1 neither missing nor doubled)? (b) is the key where the client
    reads it, the profile's, and well formed? (c) is gwconf's provider the active one, not the
    vendor's login; does a project file or a shell variable override the user's file; does a
    client process still run with the old settings? Then one direct request with the profile's
    own base address and key: content back means the fault is in the client's configuration;
    401 there too means the key itself is at fault. Nothing is changed; where gwconf can fix a
    fault, the exact command is printed.
    """
    from gwconf import doctor, registry
    from gwconf.cli.verify import Spinner
    from gwconf.ledger import Ledger
    from gwconf.profiles import ProfileStore

    env = _common.env()
    profile = ProfileStore(env).load(profile_ref)
    key = profile.resolve_key(env)
    _output.remember_key(key)
    if client_ids:
        clients = _common.resolve_clients(client_ids)
    elif profile_ref:
        clients = []
    else:
        applied = set(Ledger(env).clients())
        clients = [c for c in registry.all_clients() if c.id in applied]
        if not clients:  # nothing applied yet: whatever is installed
            clients = [c for c in registry.all_clients() if c.tier < 3 and c.detect(env)]
    with Spinner(f"checking {', '.join(c.id for c in clients) or 'profile ' + profile.name} …"):
        report = doctor.run(clients, profile, env, model=model, timeout=timeout)
    for item in report.clients:
        if item.reading is not None:
            _output.remember_key(item.reading.api_key)
    if report.model and report.exit_code != int(ExitCode.KEY_REJECTED):
        _check_model_listed(report, profile, env, key, timeout)
    if as_json:
        _output.emit_json(report.to_json())
        return report.exit_code
    _render(report)
    return report.exit_code


def _check_model_listed(report: Any, profile: Any, env: Any, key: str, timeout: float) -> None:
    """Warn when the gateway lists its models and the profile's model is not among them.

    The list remembered for the profile (by models, init, profile add) is used; the gateway is
    asked again only when a request here found the model not available.
    """
    from gwconf import models
    from gwconf.clients._base import Finding

    ids = models.cached(profile, env)
    if ids is None and "model_unavailable" in _verdicts(report):
        listed = models.fetch(profile, env, timeout=min(timeout, 10.0), key=key)
        ids = listed.ids if listed.ok else None
    if not ids or report.model in ids:
        return
    near = models.closest(report.model, ids)
    report.findings.append(
        Finding(
            "warning",
            "other",
            f"the profile's model {report.model!r} is not among the {len(ids)} models the gateway "
            "lists" + (f" (closest: {', '.join(near)})" if near else "") + ".",
            f"gwconf profile set {profile.name} --model MODEL   (every id: gwconf models)",
        )
    )


def _verdicts(report: Any) -> set[str]:
    probes = [report.direct] + [p for c in report.clients for p in (c.direct, c.wire_probe, c.client_probe)]
    return {p.verdict for p in probes if p is not None}


def _render(report: Any) -> None:
    from gwconf import limits
    from gwconf.cli.verify import render_probe

    out = _output.out
    out(f"Profile {report.profile}: {report.base_url}, key {report.key_mask}, model {report.model or '-'}")
    for finding in report.findings:
        _output.warn(finding.message + (f" Fix: {finding.fix}" if finding.fix else ""))
    if not report.clients:
        out("\nDirect request with the profile's own values:")
        if report.direct is not None:
            render_probe(report.direct, remedy=False)
        _verdict(report.verdict, report.summary, report.fixes)
    for item in report.clients:
        out("")
        out(_output.style(f"== {item.id} ({item.name})", bold=True))
        if item.reading is not None:
            r = item.reading
            out(
                f"  reads    {r.base_url or '-'}  key {_mask(r.api_key)} ({r.key_origin or 'not found'})  model {r.model or '-'}"
            )
            out(f"  provider {r.provider or '-'}")
        if item.limits is not None:
            out(f"  limits   {limits.describe_in_effect(item.limits)}")
        for area, title in AREA_TITLES.items():
            found = item.area_findings(area)
            if not found:
                if area in ("base", "key", "provider") and item.reading is not None:
                    out(f"  {title:<18} ok")
                continue
            for n, finding in enumerate(found):
                label = title if n == 0 else ""
                out(f"  {label:<18} {_level(finding.level)} {finding.message}")
                if finding.fix and finding.fix not in item.fixes:  # those are printed once, below
                    out(f"  {'':<18}   fix: {finding.fix}")
        if item.direct is not None:
            out("  direct request with the profile's base address and key:")
            render_probe(item.direct, indent="    ", remedy=False)
        if item.wire_probe is not None:
            out(f"  {item.name}'s own protocol with the profile's values:")
            render_probe(item.wire_probe, indent="    ", remedy=False)
        if item.client_probe is not None:
            out(f"  {item.name}'s own request, as its files set it up:")
            render_probe(item.client_probe, indent="    ", remedy=False)
        _verdict(item.verdict, item.summary, item.fixes)
    unknown = limits.unknown_for([(item.id, item.limits) for item in report.clients])
    if unknown:
        out("")
        out(f"note: {limits.unknown_note(report.profile, unknown)}")


def _verdict(verdict: str, summary: str, fixes: list[str]) -> None:
    colour = {"ok": "green", "client_config": "yellow"}.get(verdict, "red")
    _output.out("  " + _output.style("verdict: ", fg=colour, bold=True) + summary)
    for fix in fixes:
        _output.out("  " + _output.style("fix: ", fg="cyan") + fix)


def _level(level: str) -> str:
    colours = {"error": "red", "warning": "yellow", "info": "blue"}
    return _output.style(f"{level}:", fg=colours.get(level, "white"))


def _mask(key: str | None) -> str:
    from gwconf.secrets import mask

    return mask(key) if key else "(none)"
