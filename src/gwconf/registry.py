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
    "cline": "cline",
    "codex": "codex",
    "continue": "continue_dev",
    "copilot": "copilot",
    "crush": "crush",
    "cursor": "cursor",
    "elia": "elia",
    "fabric": "fabric",
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
    "opencode": "opencode",
    "openhands": "openhands",
    "oterm": "oterm",
    "qwen-code": "qwen_code",
    "roo-code": "roo_code",
    "shell": "shell",
    "shell-gpt": "shell_gpt",
    "warp": "warp",
    "witsy": "witsy",
    "zed": "zed",
}

IDS: tuple[str, ...] = tuple(sorted(MODULES))


@cache
def get(client_id: str) -> ClientAdapter:
    """The adapter for ``client_id``; imported on first use so start-up stays fast."""
    return ClientAdapter(importlib.import_module(f"gwconf.clients.{MODULES[client_id]}"))


def all_clients() -> list[ClientAdapter]:
    return [get(client_id) for client_id in IDS]
