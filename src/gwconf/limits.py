"""A model's limits (context window and output tokens): from the profile, else the gateway, else unknown.

A client that does not know its model's window guesses (codex's fallback metadata, aider's "sane
defaults"), and so did gwconf (128000 in crush, goose and AnythingLLM). Where the numbers come
from, in this order (issue 22):

1. the profile: ``context_window`` / ``max_output_tokens`` (``profile add|set --context-window N
   --max-output-tokens N``);
2. the gateway, where it says, asked with the model list (``gwconf models``, ``profile add``,
   ``init``) and cached beside it (models.py). Shapes read here: an entry of ``GET {base}/models``
   with ``context_length`` and ``top_provider.max_completion_tokens`` (OpenRouter), ``context_window``
   or ``max_input_tokens``/``max_output_tokens``; LiteLLM's ``GET {base}/model/info``
   (``data[].model_name`` + ``model_info.max_input_tokens``/``max_output_tokens``);
3. otherwise unknown: a client that can do without gets nothing; one that demands a value gets
   ``DEFAULT_*`` below, and apply says so.
"""

from __future__ import annotations

from gwconf.records import record

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

# Written only where a client demands a number and none is known; named in apply's output.
DEFAULT_CONTEXT_WINDOW = 128000
DEFAULT_MAX_OUTPUT_TOKENS = 8192

# The largest token count taken from anywhere (gateway, cache, profile): the largest signed 32-bit
# integer. The longest real context windows are about 10 million tokens (2025), 200 times less;
# beyond it is a gateway's mistake or mischief, and a number some clients cannot even read (a
# client parsing it into an int32; TOML itself stops at 2**63 - 1, and codex could not start with
# 10**30 in its config.toml).
MAX_TOKENS = 2**31 - 1


@record(frozen=True)
class Limits:
    """The limits in effect for one model, and where they came from (for the user to see)."""

    context_window: int | None = None
    max_output_tokens: int | None = None
    source: str = ""  # "profile work", "gateway (GET /v1/model/info)", "" when unknown

    @property
    def known(self) -> bool:
        return self.context_window is not None or self.max_output_tokens is not None

    def describe(self) -> str:
        if not self.known:
            return "unknown"
        window = f"{self.context_window:,}" if self.context_window else "?"
        output = f"{self.max_output_tokens:,}" if self.max_output_tokens else "?"
        return f"context {window} tokens, output {output} (from {self.source})"

    def to_json(self) -> dict[str, Any]:
        return {
            "context_window": self.context_window,
            "max_output_tokens": self.max_output_tokens,
            "source": self.source or None,
        }


def token_count(value: Any) -> int | None:
    """A token count as a gateway or a file gives it, if it is one: a whole number from 1 to
    ``MAX_TOKENS`` (``128000.0`` is one; ``1.5``, ``true``, ``"128000"``, ``1e30`` are not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer() and 0 < value <= MAX_TOKENS:
        value = int(value)
    return value if isinstance(value, int) and 0 < value <= MAX_TOKENS else None


def from_entry(entry: dict[str, Any]) -> tuple[int | None, int | None]:
    """(window, output) from one model entry of a list, whichever known shape it has."""
    info_value, top_value = entry.get("model_info"), entry.get("top_provider")
    info: dict[str, Any] = info_value if isinstance(info_value, dict) else {}
    top: dict[str, Any] = top_value if isinstance(top_value, dict) else {}
    window = (
        token_count(entry.get("context_window"))
        or token_count(entry.get("context_length"))
        or token_count(entry.get("max_input_tokens"))
        or token_count(info.get("max_input_tokens"))
        or token_count(top.get("context_length"))
    )
    output = (
        token_count(entry.get("max_output_tokens"))
        or token_count(top.get("max_completion_tokens"))
        or token_count(info.get("max_output_tokens"))
    )
    return window, output


def from_list(data: Any) -> dict[str, tuple[int | None, int | None]]:
    """Per model id, the limits an OpenAI-style list (``data[]``) or LiteLLM's ``/model/info`` gives."""
    items = data.get("data") if isinstance(data, dict) else data if isinstance(data, list) else None
    found: dict[str, tuple[int | None, int | None]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        name = item.get("id") if isinstance(item.get("id"), str) else item.get("model_name")
        if not isinstance(name, str):
            continue
        window, output = from_entry(item)
        if window or output:
            old = found.get(name, (None, None))
            found[name] = (old[0] or window, old[1] or output)
    return found


def resolve(profile: Any, model: str | None, env: Any) -> Limits:
    """The profile's own numbers first, then what the gateway said about ``model`` (cached)."""
    window, output = token_count(profile.context_window), token_count(profile.max_output_tokens)
    if window or output:
        return Limits(window, output, f"profile {profile.name}")
    if not model:
        return Limits()
    from gwconf import models

    said = models.cached_limits(profile, env).get(model)
    if said is None:
        return Limits()
    window, output, source = said
    return Limits(token_count(window), token_count(output), f"the gateway ({source})")


def known_limits(target: Any, window_key: str | None, output_key: str | None) -> list[tuple[str, int]]:
    """(key, value) for each limit the target knows, under the client's own key names: what
    ``use`` rewrites in an entry gwconf already wrote (an unknown limit leaves the entry's own)."""
    found = []
    if window_key and target.limits.context_window:
        found.append((window_key, int(target.limits.context_window)))
    if output_key and target.limits.max_output_tokens:
        found.append((output_key, int(target.limits.max_output_tokens)))
    return found


def write_limits(doc: Any, entry: tuple[Any, ...], places: list[tuple[tuple[str, ...], int | None]]) -> None:
    """Set each limit under ``entry`` (an entry gwconf owns), or take it out when unknown, together
    with the tables that held only it (an empty ``samplingParams`` is not the same as none)."""
    for sub, value in places:
        if value:
            doc.set((*entry, *sub), int(value))
            continue
        doc.delete((*entry, *sub))
        for depth in range(len(sub) - 1, 0, -1):
            parent = doc.get((*entry, *sub[:depth]), None)
            if not (isinstance(parent, dict) and not parent):
                break
            doc.delete((*entry, *sub[:depth]))


def window_or_default(target: Any, client: str, notes: list[str]) -> int:
    """The context window for a client whose file demands one: the known one, else the stated
    default, which the apply output names (never a silent guess)."""
    window = target.limits.context_window
    if window:
        return int(window)
    notes.append(_default_note(client, "context window", DEFAULT_CONTEXT_WINDOW, target.profile_name))
    return DEFAULT_CONTEXT_WINDOW


def output_or_default(target: Any, client: str, notes: list[str]) -> int:
    """The output size for a client whose file demands one (as ``window_or_default``)."""
    output = target.limits.max_output_tokens
    if output:
        return int(output)
    notes.append(_default_note(client, "max output tokens", DEFAULT_MAX_OUTPUT_TOKENS, target.profile_name))
    return DEFAULT_MAX_OUTPUT_TOKENS


def _default_note(client: str, what: str, value: int, profile: str) -> str:
    option = "--context-window" if what == "context window" else "--max-output-tokens"
    return (
        f"{client} needs the model's {what} and neither the profile nor the gateway gives it: wrote "
        f"gwconf's default {value} (set the real one: gwconf profile set {profile} {option} N)"
    )


# Where each client reads the limits gwconf writes (issue 22), for ``gwconf clients --json``; a client
# not named here has no place for them. Kept beside the resolver, not as a hook in every module.
WRITTEN: dict[str, str] = {
    "codex": "~/.codex/config.toml model_context_window",
    "aider": "~/.aider.model.metadata.json openai/<model>.max_input_tokens, max_output_tokens",
    "opencode": "opencode.json provider.gwconf.models.<model>.limit.context, .output",
    "kilo": "kilo.json provider.gwconf.models.<model>.limit.context, .output",
    "continue": "config.yaml models[].defaultCompletionOptions.contextLength, maxTokens",
    "crush": "crush.json providers.gwconf.models[].context_window, default_max_tokens",
    "goose": "custom_providers/custom_gwconf.json models[].context_limit",
    "zed": "settings.json language_models.openai_compatible.gwconf.available_models[].max_tokens",
    "anythingllm": ".env GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT",
    "kimi-code": "config.toml models.<alias>.max_context_size",
    "openclaw": "openclaw.json models.providers.gwconf.models[].contextWindow, maxTokens",
    "pi": "~/.pi/agent/models.json providers.gwconf.models[].contextWindow, maxTokens",
    "factory-droid": (
        "~/.factory/settings.json customModels[gwconf].maxOutputTokens; "
        "compactionTokenLimitPerModel[custom:gwconf-N] (window - output)"
    ),
    "cline": (
        "~/.cline/data/settings/models.json providers.openai-compatible.models.<model>.contextWindow, "
        "maxTokens; globalState.json act/planModeOpenAiModelInfo"
    ),
    "roo-code": "roo-code-settings.json providerProfiles.apiConfigs.gwconf.openAiCustomModelInfo",
    "qwen-code": (
        "~/.qwen/settings.json modelProviders.openai[].generationConfig.contextWindowSize, "
        "samplingParams.max_tokens"
    ),
    "claude-code": "~/.claude/settings.json env CLAUDE_CODE_MAX_CONTEXT_TOKENS, CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "copilot": "chatLanguageModels.json gwconf group models[].maxInputTokens (window - output), maxOutputTokens",
    "open-interpreter": "profiles/default.yaml llm.context_window, llm.max_tokens",
    "openhands": "~/.openhands/agent_settings.json llm and condenser.llm max_input_tokens, max_output_tokens",
    "hermes": "~/.hermes/config.yaml model.context_length, model.max_tokens",
    "mistral-vibe": "~/.vibe/config.toml [[models]] (provider gwconf) max_context_length, max_output_tokens",
    "aichat": "config.yaml clients[gwconf].models[].max_input_tokens, max_output_tokens",
    "nanocoder": "agents.config.json nanocoder.providers[gwconf].contextWindow",
    "copilot-cli": "shell block COPILOT_PROVIDER_MAX_PROMPT_TOKENS (window - output), COPILOT_PROVIDER_MAX_OUTPUT_TOKENS",
}


def place(client_id: str) -> dict[str, str | None]:
    """Whether gwconf writes the limits into this client, and where (``clients --json``)."""
    where = WRITTEN.get(client_id)
    return {"limits": "written" if where else "none", "limits_where": where}


# Clients whose file demands a window (and those demanding an output size too): with the limits
# unknown they get ``DEFAULT_*`` (window_or_default / output_or_default in their modules).
DEMANDS_WINDOW = frozenset({"crush", "goose", "zed", "anythingllm", "kimi-code", "openclaw", "copilot"})
DEMANDS_OUTPUT = frozenset({"crush", "openclaw", "copilot"})


def in_effect(client_id: str, limits: Limits) -> dict[str, Any]:
    """The limits a client gets and where they came from: profile, gateway, default or unknown
    (for verify and doctor); ``written`` says whether gwconf puts them in its files at all."""
    if limits.known:
        kind = "profile" if limits.source.startswith("profile") else "gateway"
        window, output = limits.context_window, limits.max_output_tokens
    elif client_id in DEMANDS_WINDOW:
        kind, window = "default", DEFAULT_CONTEXT_WINDOW
        output = DEFAULT_MAX_OUTPUT_TOKENS if client_id in DEMANDS_OUTPUT else None
    else:
        kind, window, output = "unknown", None, None
    return {
        "context_window": window,
        "max_output_tokens": output,
        "source": kind,
        "from": limits.source or ("gwconf's default" if kind == "default" else None),
        "written": client_id in WRITTEN,
    }


def describe_in_effect(effect: dict[str, Any]) -> str:
    """One line for verify's and doctor's text output (how to set unknown ones: ``unknown_note``,
    once per command)."""
    if effect["source"] == "unknown":
        text = "unknown"
    else:
        window = f"{effect['context_window']:,}" if effect["context_window"] else "?"
        output = f"{effect['max_output_tokens']:,}" if effect["max_output_tokens"] else "?"
        text = f"context {window} tokens, output {output} (from {effect['from']})"
    return text if effect["written"] else text + "; this client has no place for them"


def unknown_for(effects: list[tuple[str, dict[str, Any] | None]]) -> list[str]:
    """The clients (of (client, ``in_effect``) pairs) with a place for the limits that get none:
    each falls back on its own guess. A client with no place for them is not one: it has nothing
    to gain from them."""
    return [c for c, e in effects if e is not None and e["source"] == "unknown" and e["written"]]


def unknown_note(profile_name: str, clients: list[str]) -> str:
    """The one line verify and doctor print for ``unknown_for``'s clients, with the command that
    sets the numbers for the profile they use."""
    return (
        f"the model's limits are unknown (neither profile {profile_name} nor the gateway gives them), "
        f"so {', '.join(clients)} {'guesses' if len(clients) == 1 else 'guess'}; set them: "
        f"gwconf profile set {profile_name} --context-window N --max-output-tokens N"
    )


# Where each client's file names the context window gwconf writes: (file role, key path). "<model>"
# is the model id; "*" is the entry (of a list, or a table's values) whose id/name/model is the model.
WINDOW_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "codex": ("config", ("model_context_window",)),
    "aider": ("metadata", ("openai/<model>", "max_input_tokens")),
    "opencode": ("config", ("provider", "gwconf", "models", "<model>", "limit", "context")),
    "kilo": ("config", ("provider", "gwconf", "models", "<model>", "limit", "context")),
    "continue": ("config", ("models", "*", "defaultCompletionOptions", "contextLength")),
    "crush": ("config", ("providers", "gwconf", "models", "*", "context_window")),
    "goose": ("provider", ("models", "*", "context_limit")),
    "zed": (
        "settings",
        ("language_models", "openai_compatible", "gwconf", "available_models", "*", "max_tokens"),
    ),
    "anythingllm": ("env", ("GENERIC_OPEN_AI_MODEL_TOKEN_LIMIT",)),
    "kimi-code": ("config", ("models", "*", "max_context_size")),
    "openclaw": ("config", ("models", "providers", "gwconf", "models", "*", "contextWindow")),
    "pi": ("models", ("providers", "gwconf", "models", "*", "contextWindow")),
    "cline": ("models", ("providers", "openai-compatible", "models", "<model>", "contextWindow")),
    "roo-code": (
        "import",
        ("providerProfiles", "apiConfigs", "gwconf", "openAiCustomModelInfo", "contextWindow"),
    ),
    "qwen-code": ("settings", ("modelProviders", "openai", "*", "generationConfig", "contextWindowSize")),
    "claude-code": ("settings", ("env", "CLAUDE_CODE_MAX_CONTEXT_TOKENS")),
    "open-interpreter": ("profile", ("llm", "context_window")),
    "openhands": ("agent", ("llm", "max_input_tokens")),
    "hermes": ("config", ("model", "context_length")),
    "mistral-vibe": ("config", ("models", "*", "max_context_length")),
    "aichat": ("config", ("clients", "*", "models", "*", "max_input_tokens")),
    "nanocoder": ("agents", ("nanocoder", "providers", "*", "contextWindow")),
}


def _holds(item: Any, model: str) -> bool:
    """Is ``item`` the entry for ``model``: named so, or a provider whose own model list has it."""
    if not isinstance(item, dict):
        return False
    if model in (item.get("id"), item.get("name"), item.get("model")):
        return True
    listed = item.get("models")
    return isinstance(listed, list) and any(m == model or _holds(m, model) for m in listed)


def window_in_file(client_id: str, docs: dict[str, Any], model: str | None) -> int | None:
    """The context window the client's own file names for ``model`` (None: none, or unknown shape);
    doctor compares it with the gateway's."""
    if client_id not in WINDOW_KEYS or not model:
        return None
    role, path = WINDOW_KEYS[client_id]
    doc = docs.get(role)
    if doc is None:
        return None
    value: Any = doc.get((path[0].replace("<model>", model),), None)
    for step in path[1:]:
        if step == "*":
            items = (
                value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
            )
            ours = [i for i in items if isinstance(i, dict) and "gwconf" in (i.get("name"), i.get("id"))]
            value = next((i for i in [*ours, *items] if _holds(i, model)), None)  # gwconf's entry first
        else:
            value = value.get(step.replace("<model>", model)) if isinstance(value, dict) else None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return token_count(value)
