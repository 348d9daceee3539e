"""The 401 procedure of spec 5.6 as a report, client by client. doctor only reports; it never fixes.

For each client: (a) the base address (the profile's, in this client's form? a vendor's? ``/v1``
missing or doubled?), (b) the key (present where the client reads it, the profile's, well formed?),
(c) the provider (gwconf's entry or the vendor's login?) plus what overrides the user's files
(project files, shell variables) and client processes started before their configuration last
changed (spec 5.5). Then the direct POST of spec 4.1 with the profile's own base address and
key separates the cases: content back -> the fault is in the client's configuration (exit 5);
401 -> the key itself (exit 3); anything else -> the gateway (exit 4); all good -> exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gwconf import fileio, gateway, processes, secrets, urls
from gwconf.clients._base import ClientAdapter, Finding, Reading, Target, key_findings
from gwconf.errors import ExitCode, GwconfError
from gwconf.paths import Env, display
from gwconf.profiles import Profile
from gwconf.records import field, record

# "files": the client's own files cannot be read, so (a), (b) and (c) cannot be checked: said first
AREAS = ("files", "base", "key", "provider", "override", "process", "other")

# Shell variables that clients of a family commonly read before (or instead of) their files.
# Data, not client knowledge: each client module reports what it knows for sure about itself.
FAMILY_ENV: dict[str, tuple[tuple[str, str], ...]] = {
    "openai": (("OPENAI_BASE_URL", "base"), ("OPENAI_API_BASE", "base"), ("OPENAI_API_KEY", "key")),
    "anthropic": (
        ("ANTHROPIC_BASE_URL", "base"),
        ("ANTHROPIC_AUTH_TOKEN", "key"),
        ("ANTHROPIC_API_KEY", "key"),
    ),
    "gemini": (
        ("GOOGLE_GEMINI_BASE_URL", "base"),
        ("GEMINI_API_KEY", "key"),
        ("GOOGLE_API_KEY", "key"),
        ("GOOGLE_GENAI_USE_VERTEXAI", "switch"),
        ("GOOGLE_GENAI_USE_GCA", "switch"),
    ),
}
# Interpreters whose first argument names the program they run (``node …/codex.js``).
_INTERPRETERS = ("node", "bun", "deno", "python", "python3")
_SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs", ".exe", ".py")

VERDICT_TEXT = {
    "ok": "all good",
    "client_config": "key and service are fine; the client's configuration is at fault",
    "key_rejected": "the gateway itself rejects the key",
    "gateway_failed": "the gateway does not work with the profile's own values",
    "not_checked": "the direct request could not be made",
}
KEY_REMEDY = (
    "the gateway itself rejects this key: create a new key in the gateway's console, or check that it "
    "was copied whole (no characters missing, `sk-` kept)."
)


@record
class ClientReport:
    id: str
    name: str
    reading: Reading | None = None
    target_base: str | None = None
    findings: list[Finding] = field(default_factory=list)
    direct: gateway.Probe | None = None  # spec 4.1 chat POST with the profile's base and key
    wire_probe: gateway.Probe | None = None  # the client's own wire, with the profile's values
    # the client's own request, as its files configure it: sent when only the address's form
    # deviates from the spec, to learn whether this gateway serves it anyway
    client_probe: gateway.Probe | None = None
    deviations: list[Finding] = field(default_factory=list, repr=False)  # the form findings of (a)
    verdict: str = "not_checked"
    summary: str = ""
    fixes: list[str] = field(default_factory=list)
    exit_code: int = int(ExitCode.ERROR)
    limits: dict[str, Any] | None = None  # limits.in_effect: the model's limits for this client

    def area_findings(self, area: str) -> list[Finding]:
        return [f for f in self.findings if f.area == area]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "reading": self.reading.to_json() if self.reading else None,
            "target_base_url": self.target_base,
            "findings": [f.to_json() for f in self.findings],
            "direct": self.direct.to_json() if self.direct else None,
            "wire_probe": self.wire_probe.to_json() if self.wire_probe else None,
            "client_probe": self.client_probe.to_json() if self.client_probe else None,
            "limits": self.limits,
            "verdict": self.verdict,
            "summary": self.summary,
            "fixes": self.fixes,
            "exit_code": self.exit_code,
        }


@record
class Report:
    profile: str
    base_url: str
    key_mask: str
    model: str | None
    findings: list[Finding] = field(default_factory=list)  # about the profile itself
    direct: gateway.Probe | None = None  # set when no client was checked
    clients: list[ClientReport] = field(default_factory=list)
    verdict: str = "not_checked"
    summary: str = ""
    fixes: list[str] = field(default_factory=list)
    exit_code: int = int(ExitCode.ERROR)

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "base_url": self.base_url,
            "key": self.key_mask,
            "model": self.model,
            "findings": [f.to_json() for f in self.findings],
            "direct": self.direct.to_json() if self.direct else None,
            "clients": [c.to_json() for c in self.clients],
            "verdict": self.verdict,
            "summary": self.summary,
            "fixes": self.fixes,
            "exit_code": self.exit_code,
        }


# -- the procedure ---------------------------------------------------------------------------------


@fileio.one_view()  # each client's "started before its files changed" from one look at /proc
def run(
    clients: list[ClientAdapter],
    profile: Profile,
    env: Env,
    *,
    model: str | None = None,
    timeout: float = 30.0,
) -> Report:
    """Check ``clients`` against ``profile`` (or, with none, the profile alone) and decide."""
    key = profile.resolve_key(env)
    report = Report(profile.name, profile.base_url, secrets.mask(key), model or profile.model)
    report.findings = [
        Finding("warning", "key", f"the profile's key {p}.") for p in secrets.key_problems(key)
    ]
    prober = _Prober(timeout)
    if not clients:
        chosen = model or profile.model
        if not chosen:
            report.summary = (
                "the direct request needs a model: pass --model NAME (or save one in the profile)."
            )
            return report
        try:
            report.direct = prober.send("chat", profile.base_url, key, chosen)
        except GwconfError as exc:
            report.summary = exc.message
            return report
        report.verdict, report.summary, report.exit_code, report.fixes = _gateway_verdict(
            report.direct, profile
        )
        if report.verdict == "ok":
            report.summary = "key and service are fine: the gateway answered the profile's own request."
        return report
    from gwconf.trust import Trust, project_finding

    trust = Trust.of(env)
    for client in clients:
        item = inspect(client, profile, env, key)
        _probe_and_decide(item, client, profile, env, key, model, prober)
        held = project_finding(client, env, item.reading, trust)
        if held is not None:  # a cloned repository chose the address: that is the fault to see first
            item.findings.insert(0, Finding("error", "override", held.message, held.hint))
            item.verdict, item.summary, item.exit_code = (
                "untrusted_address",
                held.message,
                int(held.exit_code),
            )
            item.fixes = [
                f"take the address out of the project's file, or run {client.name} outside this folder"
            ]
        report.clients.append(item)
    report.exit_code = gateway.overall_exit([c.exit_code for c in report.clients])
    worst = next((c for c in report.clients if c.exit_code == report.exit_code), report.clients[0])
    report.verdict, report.summary = worst.verdict, worst.summary
    return report


def inspect(client: ClientAdapter, profile: Profile, env: Env, key: str) -> ClientReport:
    """Steps (a), (b), (c) and the traps: findings only, nothing sent."""
    from gwconf import limits, plan

    item = ClientReport(client.id, client.name)
    fix = f"gwconf apply {client.id}"
    target: Target | None = None
    try:
        target = client.target(profile, env)
        item.target_base = target.base_url
        item.limits = limits.in_effect(client.id, target.limits)
    except GwconfError as exc:
        item.findings.append(Finding("error", "other", f"profile {profile.name!r}: {exc.message}", exc.hint))
    if client.tier == 3 or not client.files(env):  # settings live in the app (or only a link reaches it)
        item.findings.append(
            Finding(
                "info",
                "other",
                f"{client.name} keeps its settings inside the app: gwconf cannot read them; "
                "compare them with the steps gwconf prints.",
                fix,
            )
        )
        return item
    try:
        loaded = plan.load_client(client, env, windowed=True)  # read only: a big file's members read
    except GwconfError as exc:
        item.findings.append(Finding("error", "files", exc.message, exc.hint))
        return item
    docs = plan.docs_of(loaded)
    reading = client.read(docs, env)
    item.reading = reading
    if not reading.provider_is_gwconf:
        # a setting of the client's own picks another provider (opencode's default agent with a
        # vendor model of its own): what fixes the address and key is what fixes that, which
        # apply leaves alone (found over real opencode, Kilo and OpenClaw files)
        fix = reading.fix_for(("provider",)) or fix
    found: list[Finding] = []
    # (a) the base address
    problems = urls.base_problems(reading.base_url, client.base_form)
    for problem in problems:
        found.append(
            Finding("error", "base", f"base address {reading.base_url or '(none)'}: {problem}.", fix)
        )
    if target and _same_host(reading.base_url, target.base_url):
        item.deviations = list(found)  # only the form differs from the profile's address
    if target and reading.base_url and not problems and _same_url(reading.base_url, target.base_url) is False:
        found.append(
            Finding(
                "error",
                "base",
                f"base address {reading.base_url} is not the profile's ({target.base_url} in {client.name}'s form).",
                fix,
            )
        )
    # (b) the key: present, the profile's, well formed (never printed in full)
    for finding in key_findings(reading.api_key, key, reading.key_origin or "its files"):
        if finding.level == "error" and not finding.fix:
            finding.fix = fix
        found.append(finding)
    # (c) the provider, and the client's own knowledge of its traps
    if not reading.provider_is_gwconf and not any(f.area == "provider" for f in reading.findings):
        found.append(
            Finding(
                "error",
                "provider",
                f"the active provider is {reading.provider or 'the built-in default'}, not gwconf's entry.",
                fix,
            )
        )
    found += reading.findings
    found += client.doctor(docs, env, reading)
    found += environment_findings(client, env, target, key, found)
    found += stale_processes(client, env)
    found += manager_findings(client, env)
    found += window_findings(client, docs, reading, target, profile, env)
    item.findings = _dedupe(item.findings + found)
    return item


def window_findings(
    client: ClientAdapter,
    docs: dict[str, Any],
    reading: Any,
    target: Target | None,
    profile: Profile,
    env: Env,
) -> list[Finding]:
    """A window in the client's file larger than the gateway says (its cached answer): the client
    would fill more context than the model takes, and compact too late (issue 22)."""
    from gwconf import limits, models

    model = reading.model or (target.model if target else None)
    written = limits.window_in_file(client.id, docs, model)
    said = models.cached_limits(profile, env).get(model or "")
    if written is None or said is None or said[0] is None or written <= said[0]:
        return []
    if profile.context_window and profile.context_window > said[0]:
        fix = f"gwconf profile set {profile.name} --context-window {said[0]}"
    else:
        fix = f"gwconf apply {client.id}"

    return [
        Finding(
            "warning",
            "other",
            f"{client.name}'s file names a context window of {written:,} tokens for {model!r}; the gateway "
            f"says {said[0]:,} ({said[2]}): requests can overflow it.",
            fix,
        )
    ]


def manager_findings(client: ClientAdapter, env: Env) -> list[Finding]:
    """Other tools that manage this client's files; when gwconf's values were replaced since it
    wrote them, the tool found there is named as the likely cause."""
    from gwconf import managers
    from gwconf.ledger import Ledger
    from gwconf.operations import drift, other_tools

    sightings = other_tools(client, env)
    if not sightings:
        return []
    changed = drift(client, env, Ledger(env))
    found = []
    for sighting in sightings:
        name = sighting.manager.name
        if changed:
            found.append(
                Finding(
                    "error",
                    "provider",
                    f"gwconf's values were replaced since gwconf wrote them ({', '.join(changed[:3])}); "
                    f"{name} is the likely cause: {sighting.evidence}.",
                    f"Decide which tool manages {client.name}: "
                    + (sighting.manager.choice.replace("CLIENT", client.id) or f"switch it in {name}")
                    + f", or run gwconf apply {client.id} again ({sighting.manager.when} {name} "
                    f"{sighting.manager.next_switch}).",
                )
            )
        else:
            found.append(Finding("info", "other", managers.note(sighting) + "."))
    return found


def _probe_and_decide(
    item: ClientReport,
    client: ClientAdapter,
    profile: Profile,
    env: Env,
    key: str,
    model: str | None,
    prober: _Prober,
) -> None:
    chosen = model or profile.model_for(client.id) or (item.reading.model if item.reading else None)
    if not chosen:
        item.summary = "the direct request needs a model: pass --model NAME (or save one in the profile)."
        return
    try:
        item.direct = prober.send("chat", profile.base_url, key, chosen)
    except GwconfError as exc:
        item.summary = exc.message
        item.fixes = [exc.hint] if exc.hint else []
        return
    if not item.direct.ok:
        item.verdict, item.summary, item.exit_code, item.fixes = _gateway_verdict(item.direct, profile)
        if item.direct.verdict == "key_rejected" and item.direct.remedy != gateway.NO_DB_REMEDY:
            _the_clients_own_key(item, client, profile, key, chosen, prober)
        return
    if client.wire != "chat" and item.target_base:
        header = item.reading.auth_header if item.reading and item.reading.wire == client.wire else "bearer"
        try:
            item.wire_probe = prober.send(
                client.wire, item.target_base, key, chosen, auth_header=header, base_form=client.base_form
            )
        except GwconfError:
            item.wire_probe = None
        if item.wire_probe is not None and not item.wire_probe.ok:
            _wire_verdict(item, client, profile)
            return
    errors = [f for f in item.findings if f.level == "error"]
    if errors and all(f in item.deviations for f in errors):
        _try_the_clients_own_request(item, client, env, chosen, prober)
        errors = [f for f in item.findings if f.level == "error"]
    if errors:
        more = f" (and {len(errors) - 1} more below)" if len(errors) > 1 else ""
        item.verdict = "client_config"
        item.summary = (
            f"key and service are fine; the fault is in {client.name}'s configuration: "
            f"{errors[0].message}{more}"
        )
        item.fixes = _unique(f.fix for f in errors if f.fix)
        item.exit_code = int(ExitCode.CLIENT_CONFIG)
        return
    item.verdict = "ok"
    item.exit_code = int(ExitCode.OK)
    if item.reading is None:  # settings inside the app (tier 3): nothing to read
        item.summary = (
            f"key and service are fine; gwconf cannot read {client.name}'s settings: compare them with "
            f"the steps of `gwconf apply {client.id}`."
        )
        return
    warned = sum(1 for f in item.findings if f.level == "warning")
    item.summary = f"key and service are fine, and {client.name} is set up to use them." + (
        f" ({warned} warning{'s' if warned > 1 else ''} above)" if warned else ""
    )


def _the_clients_own_key(
    item: ClientReport, client: ClientAdapter, profile: Profile, key: str, model: str, prober: _Prober
) -> None:
    """The gateway rejects the profile's key, and the client holds another one: ``gwconf apply``
    would put the rejected key over one that may work. The client's own request (its address,
    key and wire; sent only when its address is on the profile's host) tells which: the fix is
    then the profile's key, never apply."""
    reading = item.reading
    if reading is None or not reading.api_key or reading.api_key == key:
        return
    if reading.base_url and _same_host(reading.base_url, item.target_base or profile.base_url):
        item.client_probe = _clients_own_request(reading, client, model, prober)
    probe = item.client_probe
    where = reading.key_origin or f"{client.name}'s files"
    theirs, ours = secrets.mask(reading.api_key), secrets.mask(key)
    set_key = f"gwconf profile set {profile.name} --key-stdin"
    if probe is not None and probe.verdict == "key_rejected":
        said = "the gateway rejects this one too"
        item.summary = (
            f"the gateway rejects both the profile's key ({ours}) and the one in {where} ({theirs}): "
            + KEY_REMEDY
        )
        item.fixes = [
            f"a new key from the gateway's console into the profile: {set_key}, then gwconf apply {client.id}"
        ]
        return _mark_key_finding(item, theirs, said)
    if probe is not None and probe.ok:
        said = "the gateway takes this one and rejects the profile's: applying the profile would replace a working key"
        still = "still works"
    elif probe is not None:
        said = f"the gateway rejects the profile's key; {client.name}'s own request with this one failed otherwise ({probe.label})"
        still = "may still work"
    else:
        said = "the gateway rejects the profile's key; this one may still work"
        still = "may still work"
    item.summary = (
        f"the gateway rejects the profile's key ({ours}); the key in {where} ({theirs}) is another one and "
        f"{still}: fix the profile's key, not {client.name}'s."
    )
    item.fixes = [
        f"give profile {profile.name} a key the gateway takes: {set_key}  (a new one from the gateway's "
        f"console, or the one {client.name} holds, in {where})"
    ]
    _mark_key_finding(item, theirs, said)


def _mark_key_finding(item: ClientReport, theirs: str, said: str) -> None:
    """(b)'s "the client's key is not the profile's": what the gateway said of each, and the
    profile's key as the fix (not apply)."""
    for finding in item.findings:
        if finding.area == "key" and finding.level == "error" and f"({theirs}) is" in finding.message:
            finding.message = f"{finding.message.rstrip('.')}; {said}."
            finding.fix = item.fixes[0]


def _try_the_clients_own_request(
    item: ClientReport, client: ClientAdapter, env: Env, model: str, prober: _Prober
) -> None:
    """The client's address deviates from the spec's form but is on the profile's host: send its own
    request (its address, key, header and wire, as verify does). If the gateway answers it with
    content, the deviation is a warning with its fix, not the fault: doctor agrees with verify."""
    reading = item.reading
    if reading is None or not reading.base_url or not reading.api_key:
        return
    probe = _clients_own_request(reading, client, model, prober)
    if probe is None:
        return
    item.client_probe = probe
    if not probe.ok:
        return
    softened = []
    for finding in item.findings:
        if finding in item.deviations:
            finding = Finding(
                "warning",
                finding.area,
                f"{finding.message.rstrip('.')}; this gateway answers {client.name}'s own request there "
                f"anyway ({item.client_probe.url}), another gateway may not.",
                finding.fix,
            )
        softened.append(finding)
    item.findings = softened


def _gateway_verdict(probe: gateway.Probe, profile: Profile) -> tuple[str, str, int, list[str]]:
    """(verdict, summary, exit code, fixes) when the profile's own request failed."""
    if probe.ok:
        return "ok", "the gateway answered with content.", int(ExitCode.OK), []
    if probe.verdict == "key_rejected":
        if probe.remedy == gateway.NO_DB_REMEDY:  # not a key the user can repair: the gateway's setup
            return "key_rejected", f"{probe.detail} {probe.remedy}", int(ExitCode.KEY_REJECTED), []
        return "key_rejected", KEY_REMEDY, int(ExitCode.KEY_REJECTED), []
    if probe.verdict == "route_failed":
        return "gateway_failed", probe.detail, int(probe.exit_code), [probe.remedy or gateway.ROUTE_REMEDY]
    if probe.verdict == "model_unavailable":
        listing = f" ({probe.remedy.rstrip('.')})" if probe.listed is not None and probe.remedy else ""
        return (
            "gateway_failed",
            f"model not available: {probe.detail}",
            int(probe.exit_code),
            [f"gwconf profile set {profile.name} --model MODEL{listing}; every id: gwconf models"],
        )
    return (
        "gateway_failed",
        f"the gateway does not work with the profile's own base address and key: {probe.label}: {probe.detail}",
        int(probe.exit_code),
        [probe.remedy] if probe.remedy else [],
    )


def _wire_verdict(item: ClientReport, client: ClientAdapter, profile: Profile) -> None:
    """Chat works with the profile's values, the client's own protocol does not: the gateway's side."""
    probe = item.wire_probe
    assert probe is not None
    wire = gateway.WIRE_LABELS.get(client.wire, client.wire)
    item.exit_code = int(probe.exit_code)
    item.verdict = "key_rejected" if probe.verdict == "key_rejected" else "gateway_failed"
    item.summary = (
        f"the gateway answers chat completions, but not {wire}, which {client.name} uses "
        f"({probe.url}): {probe.label}."
    )
    if probe.verdict != "base_wrong":
        return
    if client.family in ("anthropic", "gemini"):
        option = f"--{client.family}-base-url"
        item.fixes = [
            f"gwconf profile add {profile.name} --base-url {profile.base_url} {option} URL --force  "
            f"(URL: the gateway's {client.family.capitalize()}-style address), then gwconf apply {client.id}"
        ]
    else:
        item.fixes = [
            f"{client.name} cannot work through a gateway without {wire} ({probe.url}): "
            "ask the gateway's operator whether it serves it"
        ]


class _Prober:
    """One request per distinct (wire, URL, key, model, header): several clients share the direct POST."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.sent: dict[tuple[str, ...], gateway.Probe] = {}

    def send(
        self,
        wire: str,
        base: str,
        key: str,
        model: str,
        *,
        auth_header: str = "bearer",
        base_form: str = "v1",
        key_origin: str = "the profile",
    ) -> gateway.Probe:
        cache_key = (wire, base, key, model, auth_header, base_form)
        if cache_key not in self.sent:
            self.sent[cache_key] = gateway.probe(
                wire,
                base,
                key,
                model,
                auth_header=auth_header,
                base_form=base_form,
                timeout=self.timeout,
                key_origin=key_origin,
            )
        return self.sent[cache_key]


# -- overrides from the environment -------------------------------------------------------------------


def environment_findings(
    client: ClientAdapter, env: Env, target: Target | None, key: str, known: list[Finding]
) -> list[Finding]:
    """Shell variables the client's family commonly reads: report (never unset) each one set.

    Skips variables the client's own findings already discuss: the module knows better.
    """
    said = " ".join(f"{f.message} {f.fix or ''}" for f in known)
    found: list[Finding] = []
    for name, kind in FAMILY_ENV.get(client.family, ()):
        value = env.get(name)
        if not value or name in said:
            continue
        unset = f"unset {name}  (and remove it from your shell start-up files)"
        if kind == "key":
            same = value == key
            found.append(
                Finding(
                    "info" if same else "warning",
                    "override",
                    f"${name} is set in this shell ({secrets.mask(value)}, "
                    f"{'the profile key' if same else 'not the profile key'}): "
                    f"{client.name} may send it instead of the key in its files.",
                    None if same else unset,
                )
            )
        elif kind == "base":
            same = target is not None and _same_url(value, target.base_url) is True
            found.append(
                Finding(
                    "info" if same else "warning",
                    "override",
                    f"${name} is set in this shell ({value}"
                    f"{', the profile address' if same else ''}): {client.name} may use it instead of its files.",
                    None if same else unset,
                )
            )
        else:
            found.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is set in this shell: it switches {client.family.capitalize()}-style clients "
                    "to another backend.",
                    unset,
                )
            )
    keys = [name for name, kind in FAMILY_ENV.get(client.family, ()) if kind == "key" and env.get(name)]
    if client.family == "anthropic" and len(keys) > 1 and "both" not in said:
        found.append(
            Finding(
                "warning",
                "override",
                f"both ${keys[0]} and ${keys[1]} are set in this shell: Anthropic-style clients then "
                "send both headers, and auth may not work as expected.",
                f"unset {keys[1]}",
            )
        )
    return found


def _same_host(a: str | None, b: str | None) -> bool:
    """Same scheme, host and port: the client's address differs from the profile's in its path only."""
    from urllib.parse import urlsplit

    if not a or not b:
        return False
    one, two = urlsplit(a.strip()), urlsplit(b.strip())
    return (one.scheme.lower(), one.netloc.lower()) == (two.scheme.lower(), two.netloc.lower())


def _same_url(a: str | None, b: str | None) -> bool | None:
    if not a or not b:
        return None
    return a.strip().rstrip("/").lower() == b.strip().rstrip("/").lower()


# -- running processes with old settings (spec 5.5) ---------------------------------------------------


def stale_processes(client: ClientAdapter, env: Env, proc: Path = processes.PROC) -> list[Finding]:
    """Processes of this client, for this home, started before its configuration last changed.

    Linux only (``/proc``); elsewhere nothing is reported. A process whose ``HOME`` is another
    folder reads other files and is left out; so are other users' processes (unreadable).
    """
    if not client.programs or not processes.available(env.platform, proc):
        return []
    mtimes = {}
    for file in client.files(env):
        try:
            mtimes[file.path] = file.path.stat().st_mtime
        except OSError:
            continue
    if not mtimes:
        return []
    newest = max(mtimes, key=lambda p: mtimes[p])
    changed = mtimes[newest]
    found = []
    for process in processes.processes(proc):
        program = _program(process.argv, client.programs)
        if program is None or not process.same_home(env.home):
            continue
        started = process.started()
        # btime is whole seconds: a start computed up to 1 s early must still be before the change
        if started is None or started >= changed - 1.0:
            continue
        found.append(
            Finding(
                "error",
                "process",
                f"`{program}` (pid {process.pid}) started before {display(newest, env)} last changed: "
                "it still runs with the old settings.",
                client.restart,
            )
        )
    return found


def _program(argv: list[str], programs: tuple[str, ...]) -> str | None:
    if not argv:
        return None
    names = [argv[0]]
    if len(argv) > 1 and Path(argv[0]).name.startswith(_INTERPRETERS):
        names.append(argv[1])
    for name in names:
        base = Path(name).name
        for suffix in _SCRIPT_SUFFIXES:
            base = base.removesuffix(suffix)
        if base in programs:
            return base
    return None


# -- helpers -----------------------------------------------------------------------------------------


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for f in findings:
        if (f.area, f.message) not in seen:
            seen.add((f.area, f.message))
            kept.append(f)
    order = {area: n for n, area in enumerate(AREAS)}
    return sorted(kept, key=lambda f: order.get(f.area, len(AREAS)))


def _unique(items: Any) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _clients_own_request(
    reading: Any, client: ClientAdapter, model: str, prober: _Prober
) -> gateway.Probe | None:
    """The request the client itself sends (its address, key, header and wire, as verify sends
    it); None when its key cannot be put in a header at all."""
    try:
        return prober.send(
            reading.wire or client.wire,
            reading.base_url,
            reading.api_key,
            reading.model or model,
            auth_header=reading.auth_header,
            base_form=client.base_form,
            key_origin=reading.key_origin or f"{client.name}'s files",
        )
    except GwconfError:
        return None
