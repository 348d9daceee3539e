"""gwconf models: the model ids the gateway serves, asked with the profile's key."""

from __future__ import annotations

import click

from gwconf.cli import _common, _output


@click.command(
    "models",
    epilog="""\b
Examples:
  gwconf models                  # the active profile's gateway
  gwconf models --profile work --json
""",
)
@_common.profile_option
@_common.json_option
@_common.timeout_option("Give up on the gateway after this long.")
def command(profile_ref: str | None, as_json: bool, timeout: float) -> int:
    """List the model ids the gateway serves (GET {base}/models with the profile's key).

    A gateway that does not list its models (404) is not an error: pass the model by name.
    A rejected key exits 3, as verify does. The list is remembered for the profile, for
    verify's and doctor's suggestions.
    """
    from gwconf import models
    from gwconf.profiles import ProfileStore

    env = _common.env()
    profile = ProfileStore(env).load(profile_ref)
    key = profile.resolve_key(env)
    _output.remember_key(key)
    listed = models.fetch(profile, env, timeout=timeout, key=key)
    if as_json:
        _output.emit_json(listed.to_json())
        return listed.exit_code
    render(listed, profile.model, profile.name)
    return listed.exit_code


def render(listed: object, current: str | None, profile_name: str = "NAME") -> None:
    """Text form of a ``models.ModelList``: the ids one a line, or the verdict and what to do;
    ``profile_name`` goes into the commands it suggests (init's profile has none yet)."""
    from gwconf.models import ModelList, closest

    assert isinstance(listed, ModelList)
    out = _output.out
    if listed.verdict == "not_listed":
        out(f"this gateway does not list its models (GET {listed.url}: HTTP {listed.status}).")
        out(f"Give the model by name: gwconf profile set {profile_name} --model MODEL")
        return
    if not listed.ok:
        _output.err(f"GET      {listed.url}")
        _output.err(f"key      {listed.key_mask}")
        _output.err(f"status   {listed.status if listed.status is not None else 'no HTTP answer'}")
        _output.err(f"verdict  {listed.label}: {listed.detail}")
        for n, line in enumerate(listed.body):
            _output.err(f"{'body' if n == 0 else '':<8} | {line}")
        if listed.remedy:
            _output.err(f"remedy   {listed.remedy}")
        return
    if not listed.ids:
        _output.warn("the gateway lists no models for this key (an empty list).")
    if listed.unusable:
        _output.warn(
            f"left out {_output.plural(listed.unusable, 'listed id')} with a control character in it:"
            " no client can be given such a name."
        )
    for model_id in listed.ids:
        mark = "  (the profile's model)" if model_id == current else ""
        said = listed.limits.get(model_id)
        if said is not None:
            window, output, _ = said
            mark = (
                f"  context {f'{window:,}' if window else '?'}, output {f'{output:,}' if output else '?'}"
                + mark
            )
        out(model_id + mark, quiet_ok=True)
    sources = sorted({src for _, _, src in listed.limits.values()})
    if sources:
        out(f"(limits as the gateway gives them: {', '.join(sources)}; a profile's own beat them)")
    if current and current not in listed.ids:
        near = closest(current, listed.ids)
        _output.warn(
            f"the profile's model {current!r} is not among them"
            + (f"; closest: {', '.join(near)}" if near else "")
            + f". Change it with: gwconf profile set {profile_name} --model MODEL"
        )
