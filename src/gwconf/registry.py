"""The one place clients are listed (pre-commit's ``all_languages.py``). Sorted by id."""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache
from types import ModuleType

from gwconf import _bytecode
from gwconf.clients._base import ClientAdapter

# client id -> module under gwconf.clients
MODULES: dict[str, str] = {
    "aichat": "aichat",
    "aider": "aider",
    "anythingllm": "anythingllm",
    "chatbox": "chatbox",
    "cherry-studio": "cherry_studio",
    "claude-code": "claude_code",
    "claude-code-router": "claude_code_router",
    "cline": "cline",
    "codex": "codex",
    "continue": "continue_dev",
    "copilot": "copilot",
    "copilot-cli": "copilot_cli",
    "crush": "crush",
    "cursor": "cursor",
    "elia": "elia",
    "fabric": "fabric",
    "factory-droid": "factory_droid",
    "gemini-cli": "gemini_cli",
    "goose": "goose",
    "gptme": "gptme",
    "grok-cli": "grok_cli",
    "hermes": "hermes",
    "jan": "jan",
    "jetbrains-ai": "jetbrains_ai",
    "kilo": "kilo",
    "kimi-code": "kimi_code",
    "librechat": "librechat",
    "llm": "llm",
    "lobechat": "lobechat",
    "mini-swe-agent": "mini_swe_agent",
    "mistral-vibe": "mistral_vibe",
    "mods": "mods",
    "msty": "msty",
    "nanocoder": "nanocoder",
    "open-interpreter": "open_interpreter",
    "open-webui": "open_webui",
    "openclaw": "openclaw",
    "opencode": "opencode",
    "openhands": "openhands",
    "oterm": "oterm",
    "pi": "pi",
    "qwen-code": "qwen_code",
    "roo-code": "roo_code",
    "shell": "shell",
    "shell-gpt": "shell_gpt",
    "warp": "warp",
    "witsy": "witsy",
    "zed": "zed",
}

IDS: tuple[str, ...] = tuple(sorted(MODULES))

# the tier-3 clients (configured in the app itself; each module's ``TIER``): ``status`` shows one
# only when the ledger names it, so it imports none of them otherwise (issue 15);
# tests/test_registry_tiers.py holds this set to the modules
TIER_3: frozenset[str] = frozenset({"cursor", "jan", "jetbrains-ai", "msty", "warp"})

# Clients that cannot be pointed at a gateway, and why (each line names what the client lacks). The
# README's client section carries the same lines; typing one of these ids prints its line.
UNSUPPORTED: dict[str, str] = {
    "amp": (
        "Amp (ampcode.com) cannot be supported: it signs in to ampcode.com and picks its models itself; "
        "there is no setting for another model service."
    ),
    "auggie": (
        "Augment's auggie cannot be supported: it needs an Augment login, and its own-key settings are "
        "forwarded to Augment's servers, with no setting for another address."
    ),
    "qoder": (
        "Qoder CLI cannot be supported: its custom-model (BYOK) setting is unlocked only by a Qoder account "
        "switch after a Qoder login."
    ),
}
UNSUPPORTED_ALIASES: dict[str, str] = {
    "ampcode": "amp",
    "augment": "auggie",
    "qoder-cli": "qoder",
    "qodercli": "qoder",
}


def unsupported(client_id: str) -> str | None:
    """Why ``client_id`` (or a common other name of it) is not supported, or None for any other id."""
    return UNSUPPORTED.get(UNSUPPORTED_ALIASES.get(client_id, client_id))


@cache
def get(client_id: str) -> ClientAdapter:
    """The adapter for ``client_id``; imported on first use so start-up stays fast."""
    name = f"gwconf.clients.{MODULES[client_id]}"
    module = sys.modules.get(name) or _from_bytecode(name) or importlib.import_module(name)
    return ClientAdapter(module)


def _from_bytecode(name: str) -> ModuleType | None:
    """The client module ``name`` loaded from its up-to-date ``__pycache__`` file, or None to let
    ``importlib`` import it.

    ``clients``, ``status`` and ``apply --all`` load every client module. ``importlib``'s finder
    and loader cost about 0.35M instructions a module beyond unmarshalling and running its code:
    10M of the 159M ``clients`` costs on a home with nothing applied (issue 15). The file to load
    is known, so this takes the path ``importlib`` would take in a few steps: the bytecode only
    when it is the timestamp-checked kind and matches the source's mtime and size (what
    ``SourceLoader`` checks), the same spec, loader, attributes and parent binding. Anything else
    (no bytecode, hash-checked or optimised bytecode, a pycache prefix, a package folder that is
    not one plain folder) goes to ``importlib``, as does every later import of the module."""
    if not _bytecode.usable():
        return None
    package = sys.modules.get("gwconf.clients")
    folders = list(getattr(package, "__path__", ()))
    if package is None or len(folders) != 1:
        return None
    leaf, sep = name.rpartition(".")[2], os.sep  # joined as importlib joins them
    source = f"{folders[0]}{sep}{leaf}.py"
    cached = f"{folders[0]}{sep}__pycache__{sep}{leaf}.{sys.implementation.cache_tag}.pyc"
    code = _bytecode.checked_code(source, cached)
    if code is None:
        return None
    from importlib import _bootstrap, _bootstrap_external

    loader = _bootstrap_external.SourceFileLoader(name, source)
    spec = _bootstrap.ModuleSpec(name, loader, origin=source)
    spec.has_location = True
    spec.cached = cached
    module = ModuleType(name)  # the attributes importlib's module_from_spec sets, set directly
    module.__spec__, module.__loader__, module.__package__ = spec, loader, package.__name__
    module.__file__, module.__cached__ = source, cached  # type: ignore[attr-defined]
    spec._initializing = True  # type: ignore[attr-defined]  # (importlib's mark while it runs)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        spec._initializing = False  # type: ignore[attr-defined]
    setattr(package, leaf, module)
    return sys.modules[name]


def all_clients() -> list[ClientAdapter]:
    return [get(client_id) for client_id in IDS]
