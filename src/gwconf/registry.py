"""The one place clients are listed (pre-commit's ``all_languages.py``). Sorted by id."""

from __future__ import annotations

import importlib
from functools import cache

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
    return ClientAdapter(importlib.import_module(f"gwconf.clients.{MODULES[client_id]}"))


def all_clients() -> list[ClientAdapter]:
    return [get(client_id) for client_id in IDS]
