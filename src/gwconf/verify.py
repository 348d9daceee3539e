"""verify's orchestration: read back what a client (or a profile) will really send, then send it once.

The wire protocols and their verdicts live in ``gateway``; this module decides *what* to send
(the client's own precedence, through ``operations.read_client``) and gathers one ``Check`` per
client for the CLI to render.
"""

from __future__ import annotations

from typing import Any

from gwconf import urls
from gwconf.clients._base import ClientAdapter, Finding
from gwconf.errors import ClientError, ExitCode, GwconfError
from gwconf.gateway import Probe, probe
from gwconf.operations import read_client
from gwconf.paths import Env
from gwconf.profiles import Profile
from gwconf.records import field, record
from gwconf.trust import Trust, project_override, untrusted


@record
class Check:
    """verify's answer for one client, or for a profile on its own (``client_id`` None)."""

    client_id: str | None
    name: str
    key_origin: str = ""
    probe: Probe | None = None
    error: GwconfError | None = None
    findings: list[Finding] = field(default_factory=list)  # what the client's files say is wrong
    notes: list[str] = field(default_factory=list)
    limits: dict[str, Any] | None = None  # limits.in_effect: the model's limits for this client
    key: str | None = field(default=None, repr=False)  # for the CLI's redaction only; never serialised

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return int(self.error.exit_code)
        return int(self.probe.exit_code) if self.probe else int(ExitCode.ERROR)

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client_id,
            "name": self.name,
            "key_origin": self.key_origin,
            **(self.probe.to_json() if self.probe else {"verdict": None, "sent": False}),
            "findings": [f.to_json() for f in self.findings],
            "notes": self.notes,
            "limits": self.limits,
            "error": None if self.error is None else {"message": self.error.message, "hint": self.error.hint},
            "exit_code": self.exit_code,
        }


def verify_client(
    client: ClientAdapter,
    env: Env,
    *,
    model: str | None = None,
    fallback_model: str | None = None,
    timeout: float = 30.0,
    trust: Trust | None = None,
    profile: Profile | None = None,
) -> Check:
    """Read back what ``client`` will send (its own precedence) and send exactly that, once; only to
    an address ``trust`` allows (every saved profile's unless given). With ``profile``, also the
    model's limits in effect (limits.py) for the model the client sends."""
    check = Check(client.id, client.name)
    if client.tier == 3:
        check.error = ClientError(
            f"{client.name} keeps its settings inside the app: gwconf cannot read what it sends.",
            "Test the gateway with the profile's own values: gwconf verify --profile NAME",
        )
        return check
    try:
        reading = read_client(client, env)
    except GwconfError as exc:
        check.error = exc
        return check
    check.key_origin = reading.key_origin
    check.key = reading.api_key
    check.findings = [f for f in reading.findings if f.level == "error"]
    if not reading.base_url:
        # the client's own remedy when it names one (OpenClaw: an agent's own vendor model, which
        # apply does not edit); else apply, which writes the address
        remedy = reading.fix_for(("base", "provider"))
        check.error = ClientError(
            f"{client.name} has no base address in its files.", remedy or f"gwconf apply {client.id}"
        )
        return check
    if not reading.api_key:
        # the client's own remedy when it names one (Zed: a key only in the environment or the
        # keychain, which apply never writes); else apply, which writes the key where it is read.
        # A provider other than gwconf's that the client's own setting picks (opencode's default
        # agent with a vendor model of its own) has no key because of that setting: apply, which
        # leaves the setting alone, would not help (found over real opencode and Kilo files)
        remedy = reading.fix_for(("key",), errors_only=False)
        where = f"({reading.key_origin})" if reading.key_origin else "(its files name none)"
        message = f"{client.name} has no key where it reads it {where}."
        provider_fix = None if reading.provider_is_gwconf else reading.fix_for(("provider",))
        if provider_fix:
            remedy = provider_fix
            message = (
                f"{client.name} has no key where it reads it {where}: it uses provider "
                f"{reading.provider or 'another one'}, not gwconf's."
            )
        check.error = ClientError(message, remedy or f"gwconf apply {client.id}")
        return check
    chosen = model or reading.model
    if not chosen and fallback_model:
        chosen = fallback_model
        check.notes.append(
            f"{client.name} names no model in its files; tested with the profile's {chosen!r}."
        )
    if not chosen:
        check.error = ClientError(
            f"{client.name} names no model, and there is no profile model to test with.",
            f"Pass --model NAME (or gwconf apply {client.id} --model NAME).",
        )
        return check
    trust = trust if trust is not None else Trust.of(env)
    if profile is not None:
        from gwconf import limits

        called = gateway_profile(client, reading.base_url, profile, trust.profiles, env)
        check.limits = limits.in_effect(client.id, limits.resolve(called, chosen, env))
        check.limits["profile"] = called.name
    vendor = urls.is_vendor_host(urls.host_of(reading.base_url))  # probe refuses those itself, more precisely
    if not vendor and not trust.allows(reading.base_url):
        override = project_override(client, env, reading)
        if override is None or not trust.project:
            check.error = untrusted(client, env, reading.base_url, override)
            return check
        check.notes.append(
            f"--trust-project: sent to {override.host}, which {override.where(env)} in this folder chose."
        )
    try:
        check.probe = probe(
            reading.wire or client.wire,
            reading.base_url,
            reading.api_key,
            chosen,
            auth_header=reading.auth_header,
            base_form=client.base_form,
            timeout=timeout,
            key_origin=reading.key_origin,
        )
    except GwconfError as exc:
        check.error = exc
    return check


def gateway_profile(
    client: ClientAdapter, base_url: str, profile: Profile, saved: list[Profile], env: Env
) -> Profile:
    """The profile whose gateway the client's files call (``base_url``, read back): ``profile``
    when its address is that one, else the first saved profile whose address is, else
    ``profile``. The model's limits are that gateway's (its profile's numbers, its cached model
    list): a client applied with ``-p home`` while ``work`` is active was shown work's numbers,
    and told to set them on work, which that client never reads."""
    from gwconf.operations import at_address

    for candidate, _ in at_address(client, base_url, [profile, *saved], env):
        return candidate
    return profile


def verify_profile(profile: Profile, env: Env, *, model: str | None = None, timeout: float = 30.0) -> Check:
    """The chat request of spec 4.1 with the profile's own base address, key and model."""
    check = Check(
        None, f"profile {profile.name}", key_origin=f"profile {profile.name} ({profile.key_source})"
    )
    try:
        key = profile.resolve_key(env)
    except GwconfError as exc:
        check.error = exc
        return check
    check.key = key
    chosen = model or profile.model
    if not chosen:
        check.error = ClientError(
            f"profile {profile.name!r} has no model to test with.",
            "Pass --model NAME, or save one: gwconf profile add ... --model NAME --force",
        )
        return check
    try:
        check.probe = probe(
            "chat", profile.base_url, key, chosen, timeout=timeout, key_origin=check.key_origin
        )
    except GwconfError as exc:
        check.error = exc
    return check
