"""Every registered client module satisfies ``ClientModule`` (issue 16, pre-commit's Language protocol).

Nothing is looked up with ``getattr``: a module declares each constant and each hook, assigning
the shared default by name where it has none of its own. So a misspelled hook (``def raed``) is a
missing ``read`` here, not a default that silently runs instead.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import types
from typing import Any

import pytest

from gwconf import registry
from gwconf.clients import _base
from gwconf.clients._base import FAMILIES, WIRES, ClientModule

HOOKS = sorted(
    name
    for name, value in vars(ClientModule).items()
    if inspect.isfunction(value) and not name.startswith("_")
)
CONSTANTS = sorted(ClientModule.__annotations__)
BASE_FORMS = ("v1", "root", "slash", "chat_endpoint")


def _parameters(function: Any, *, drop_self: bool = False) -> list[tuple[str, Any, Any]]:
    params = list(inspect.signature(function).parameters.values())
    if drop_self:
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def protocol_problems(module: Any) -> list[str]:
    """Everything about ``module`` that does not match ``ClientModule``, in words."""
    problems = []
    for name in CONSTANTS:
        if not hasattr(module, name):
            problems.append(f"constant {name} is not declared")
    for name in ("ID", "NAME", "FAMILY", "WIRE", "RESTART", "BASE_FORM", "DOCS"):
        if hasattr(module, name) and not isinstance(getattr(module, name), str):
            problems.append(f"{name} is not a string")
    if hasattr(module, "TIER") and module.TIER not in (1, 2, 3):
        problems.append("TIER is not 1, 2 or 3")
    for name in ("PROGRAMS", "RESTAMPED"):
        value = getattr(module, name, ())
        if not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)):
            problems.append(f"{name} is not a tuple of strings")
    if getattr(module, "FAMILY", FAMILIES[0]) not in FAMILIES:
        problems.append("FAMILY is not a known family")
    if getattr(module, "WIRE", WIRES[0]) not in WIRES:
        problems.append("WIRE is not a known wire")
    if getattr(module, "BASE_FORM", "v1") not in BASE_FORMS:
        problems.append("BASE_FORM is not a known form")
    for name in HOOKS:
        hook = getattr(module, name, None)
        if hook is None:
            problems.append(f"hook {name} is not declared")
        elif not callable(hook):
            problems.append(f"hook {name} is not callable")
        elif _parameters(hook) != _parameters(getattr(ClientModule, name), drop_self=True):
            problems.append(f"hook {name}{inspect.signature(hook)} does not match the protocol")
    # a public function named almost like a hook is a misspelling the declared default hides
    for name, value in vars(module).items():
        own = inspect.isfunction(value) and value.__module__ == module.__name__
        if own and name not in HOOKS and not name.startswith("_"):
            close = [h for h in HOOKS if sorted(h) == sorted(name)]  # letters swapped
            close = close or difflib.get_close_matches(name, HOOKS, n=1, cutoff=0.8)
            if close:
                problems.append(f"function {name} looks like a misspelled {close[0]}")
    return problems


@pytest.mark.parametrize("client_id", registry.IDS)
def test_every_client_module_satisfies_the_protocol(client_id: str) -> None:
    module = importlib.import_module(f"gwconf.clients.{registry.MODULES[client_id]}")
    assert protocol_problems(module) == []


def test_the_protocol_names_every_hook_the_adapter_calls() -> None:
    adapter_methods = {
        name
        for name, value in vars(_base.ClientAdapter).items()
        if inspect.isfunction(value) and name[0] != "_"
    }
    assert adapter_methods == set(HOOKS)
    assert {
        "ID",
        "NAME",
        "FAMILY",
        "WIRE",
        "TIER",
        "RESTART",
        "BASE_FORM",
        "PROGRAMS",
        "DOCS",
        "RESTAMPED",
    } == set(CONSTANTS)


def _module(source: str) -> types.ModuleType:
    """A client module made from ``source`` on top of a complete one (aider's)."""
    module = types.ModuleType("gwconf.clients.fake")
    complete = importlib.import_module("gwconf.clients.aider")
    module.__dict__.update({k: v for k, v in vars(complete).items() if not k.startswith("__")})
    exec(source, module.__dict__)
    return module


def test_a_misspelled_hook_is_reported_not_silently_defaulted() -> None:
    module = _module("del read\ndef raed(docs, env):\n    return None\n")
    assert protocol_problems(module) == [
        "hook read is not declared",
        "function raed looks like a misspelled read",
    ]
    module = _module("def doctr(docs, env, reading):\n    return []\n")  # doctor = no_doctor still there
    assert protocol_problems(module) == ["function doctr looks like a misspelled doctor"]


def test_a_hook_with_the_wrong_parameters_or_a_missing_constant_is_reported() -> None:
    module = _module("def preflight(env):\n    return []\ndel RESTAMPED\nFAMILY = 'cohere'\n")
    problems = protocol_problems(module)
    assert "constant RESTAMPED is not declared" in problems
    assert "FAMILY is not a known family" in problems
    assert "hook preflight(env) does not match the protocol" in problems


def test_the_shared_defaults_do_what_their_names_say(home: Any) -> None:
    from gwconf.paths import Env

    env = Env(home=home, platform="linux", environ={"HOME": str(home)}, cwd=home)
    codex = importlib.import_module("gwconf.clients.codex")
    assert codex.detect(env) is False  # nothing installed, no ~/.codex
    (home / ".codex").mkdir()
    assert codex.detect(env) is True
    assert _base.no_preflight(env, False) == [] and _base.no_steps(None, False) is None  # type: ignore[arg-type]
    assert _base.no_launch(None, env, []) is None  # type: ignore[arg-type]
