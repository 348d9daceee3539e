"""The one place clients are listed (pre-commit's ``all_languages.py``). Sorted by id."""

from __future__ import annotations

import importlib
from functools import cache

from gwconf.clients._base import ClientAdapter

# client id -> module under gwconf.clients
MODULES: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "continue": "continue_dev",
    "shell": "shell",
    "aichat": "aichat",
    "aider": "aider",
    "fabric": "fabric",
    "goose": "goose",
    "llm": "llm",
    "mods": "mods",
    "open-interpreter": "open_interpreter",
    "shell-gpt": "shell_gpt",
    "cline": "cline",
    "crush": "crush",
    "gemini-cli": "gemini_cli",
    "kilo": "kilo",
    "opencode": "opencode",
    "qwen-code": "qwen_code",
}

IDS: tuple[str, ...] = tuple(sorted(MODULES))


@cache
def get(client_id: str) -> ClientAdapter:
    """The adapter for ``client_id``; imported on first use so start-up stays fast."""
    return ClientAdapter(importlib.import_module(f"gwconf.clients.{MODULES[client_id]}"))


def all_clients() -> list[ClientAdapter]:
    return [get(client_id) for client_id in IDS]
