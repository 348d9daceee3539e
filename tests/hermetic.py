"""The environment variables a hermetic run clears: they move a client's files or override its
provider. One list for the test suite (tests/conftest.py) and the benchmarks (bench/_util.py)."""

from __future__ import annotations

CLEARED_PREFIXES = (
    "OPENAI_",
    "ANTHROPIC_",
    "GEMINI_",
    "GOOGLE_",
    "CLAUDE_",
    "CODEX_",
    "QWEN_",
    "GWCONF_",
    "XDG_",
    "OPENCODE_",
    "KILO_",
    "CLINE_",
    "CRUSH_",
    "LLM_",
    "AIDER_",
)
CLEARED = (
    "CONTINUE_GLOBAL_DIR",
    "LLM_USER_PATH",
    "AIDER_OPENAI_API_BASE",
    "OPENCODE_CONFIG",
    "CRUSH_GLOBAL_CONFIG",
    "NO_COLOR",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "ZDOTDIR",
    "SOURCE_DATE_EPOCH",
)
