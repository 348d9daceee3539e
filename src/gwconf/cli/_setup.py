"""Questions asked on a terminal by ``profile add`` and ``init``: the model, from the gateway's list."""

from __future__ import annotations

from typing import Any

import click

from gwconf.cli import _output


def choose_model(profile: Any, env: Any, listed: Any = None) -> str | None:
    """Offer the gateway's models as a numbered choice; a gateway without a list gets a free answer.

    ``listed``: a ``models.ModelList`` already fetched (init checks the key with it first).
    """
    from gwconf import models
    from gwconf.errors import GwconfError

    if listed is None:
        try:
            listed = models.fetch(profile, env, timeout=10.0)
        except GwconfError as exc:
            _output.warn(f"could not ask the gateway for its models: {exc}")
            listed = None
    ids = listed.ids if listed is not None and listed.ok else []
    if not ids:
        if listed is not None and not listed.ok and listed.verdict != "not_listed":
            _output.warn(f"the gateway's model list: {listed.label}: {listed.detail}")
        answer = click.prompt("Model (Enter for none)", default="", show_default=False).strip()
        return answer or None
    shown = ids[:30]
    _output.out("The gateway serves:")
    for number, model_id in enumerate(shown, 1):
        _output.out(f"  {number:>2}. {model_id}")
    if len(ids) > len(shown):
        _output.out(f"  … and {len(ids) - len(shown)} more (type a name)")
    while True:
        answer = click.prompt("Model (number or name)", default="1").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(shown):
            return str(shown[int(answer) - 1])
        if answer in ids:
            return answer
        near = models.closest(answer, ids)
        _output.err("not one of them" + (f"; did you mean {', '.join(near)}?" if near else "."))
