"""How each real client is run in the end-to-end tests: data, one entry per client.

Per client: its one-shot command (shared/reference/clients-terminal.md, "One-shot command"), the
path its wire uses on the gateway, the offline switches a machine without internet needs (process
environment, or files seeded into the fresh HOME before ``gwconf apply``: telemetry, update
checks, folder trust; never anything about the gateway), the client's own retry setting for the
wrong-key run, how its provider is set back to the vendor's official one, and how it is run
after ``gwconf restore`` (network settings pointed at a closed port on 127.0.0.1), or why not.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PROMPT = "say pong"
CHAT = "/v1/chat/completions"

# Switches every run gets: no telemetry, no update notices, no colour codes in what we assert on.
COMMON_ENV = {
    "DO_NOT_TRACK": "1",
    "NO_UPDATE_NOTIFIER": "1",
    "npm_config_update_notifier": "false",
    "NO_COLOR": "1",
    "TERM": "dumb",
    "CI": "1",
}


@dataclass(frozen=True)
class E2EClient:
    id: str  # gwconf's id
    program: str
    args: tuple[str, ...]  # the one-shot command's arguments, prompt included
    wire_path: str  # where the gateway must see the request
    verify_path: str | None = None  # where `gwconf verify` probes that wire, when not wire_path
    env: dict[str, str] = field(default_factory=dict)  # offline switches
    seed: Callable[[Path, Path], None] | None = None  # (home, cwd): offline switches as files
    wrong_key_args: tuple[str, ...] = ()  # the client's own retry settings, for the 401 run
    wrong_key_env: dict[str, str] = field(default_factory=dict)
    # what the client prints when it exits 0 although the gateway refused the key
    wrong_key_text: str | None = None
    to_vendor: Callable[[Path], None] | None = None  # set the provider back to the vendor's official one
    rewrites: tuple[str, ...] = ()  # names of gwconf-managed files the client itself rewrites when it runs
    # after restore: env that points every address the client would use at ``dead`` (a closed
    # port on 127.0.0.1) ...
    restored_env: Callable[[str], dict[str, str]] | None = None
    # ... or why the restored client is not run
    restored_skip: str | None = None
    # how long the restored client may keep retrying the closed port before it is ended (it can
    # no longer know where the gateway is, so a run that is ended early proves as much)
    restored_timeout: float = 120
    timeout: float = 180
    # where the client leaves its reply when it prints none (home, cwd) -> text
    reply: Callable[[Path, Path], str] | None = None
    # paths the client asks the gateway for besides its wire (discovery probes): not the wire's checks
    probes: tuple[str, ...] = ()
    # a full-screen client: run in tmux, the screen read as its output; steps of (text to wait for,
    # tmux keys to send then) before the reply is awaited; a key "click:TEXT" clicks where TEXT shows,
    # "!TEXT" waits until TEXT is gone, and a key "sleep:N" waits N seconds
    tui: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    # started from bash after sourcing ~/.bashrc: a client whose settings are shell variables
    via_bashrc: bool = False
    # a file in the run folder (written by ``seed``) fed to the client's standard input
    stdin_file: str | None = None
    # (what the client prints when its run is over, why it may stay running after that): seen, not
    # guessed. Such a run is ended ``LINGER_GRACE`` seconds after that text and counts as finished
    # if the gateway answered it (its reply may be printed only at the exit). None: it must exit.
    lingers: tuple[str, str] | None = None

    @property
    def done_text(self) -> str | None:
        """What ``Processes.run`` watches for (``lingers``' text), or None."""
        return self.lingers[0] if self.lingers else None


# -- file helpers ---------------------------------------------------------------------------------


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_json(path: Path, data: object) -> None:
    write(path, json.dumps(data, indent=2) + "\n")


def edit_json(path: Path, change: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n")


def replace_line(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}:\n{text}"
    path.write_text(text.replace(old, new))


def drop_lines(path: Path, prefix: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    kept = [line for line in lines if not line.lstrip().startswith(prefix)]
    assert kept != lines, f"no line starting {prefix!r} in {path}"
    path.write_text("".join(kept))


def openai_env(dead: str) -> dict[str, str]:
    """The OpenAI SDK's variables pointed at nothing."""
    return {
        "OPENAI_BASE_URL": dead + "/v1",
        "OPENAI_API_BASE": dead + "/v1",
        "OPENAI_API_KEY": "sk-e2e-nowhere",
    }


# -- codex ----------------------------------------------------------------------------------------


def seed_codex(home: Path, cwd: Path) -> None:
    write(
        home / ".codex" / "config.toml",
        "# offline switches for the e2e run\n"
        'approval_policy = "never"\n'
        'sandbox_mode = "read-only"\n'
        "check_for_update_on_startup = false\n"
        "\n"
        "[analytics]\n"
        "enabled = false\n"
        "\n"
        "[features]\n"
        "plugins = false\n"
        "apps = false\n",
    )


CODEX = E2EClient(
    id="codex",
    program="codex",
    args=("exec", "--skip-git-repo-check", "--color", "never", PROMPT),
    wire_path="/v1/responses",
    seed=seed_codex,
    # Codex retries a 401 five times with back-off; its own provider settings turn that off
    wrong_key_args=(
        "-c",
        "model_providers.gwconf.request_max_retries=0",
        "-c",
        "model_providers.gwconf.stream_max_retries=0",
    ),
    to_vendor=lambda home: replace_line(
        home / ".codex" / "config.toml", 'model_provider = "gwconf"', 'model_provider = "openai"'
    ),
    restored_skip=(
        "restored Codex uses its built-in OpenAI provider, whose address no environment variable moves "
        "(OPENAI_BASE_URL is ignored since 0.119): running it would try api.openai.com"
    ),
)


# -- claude-code ----------------------------------------------------------------------------------

CLAUDE_OFFLINE = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}

CLAUDE_CODE = E2EClient(
    id="claude-code",
    program="claude",
    args=("-p", PROMPT, "--output-format", "text"),
    wire_path="/v1/messages",
    env=CLAUDE_OFFLINE,
    # Claude Code retries a 401 ten times over ~2.5 minutes; CLAUDE_CODE_MAX_RETRIES is its own switch
    wrong_key_env={"CLAUDE_CODE_MAX_RETRIES": "0"},
    rewrites=(".claude.json",),  # its live state file (start-up counters, caches)
    to_vendor=lambda home: edit_json(
        home / ".claude" / "settings.json", lambda d: d["env"].pop("ANTHROPIC_BASE_URL")
    ),
    restored_env=lambda dead: {
        "ANTHROPIC_BASE_URL": dead,
        "ANTHROPIC_API_KEY": "sk-e2e-nowhere",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    },
)


# -- gemini-cli -----------------------------------------------------------------------------------


def seed_gemini(home: Path, cwd: Path) -> None:
    write_json(
        home / ".gemini" / "settings.json",
        {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False},
        },
    )
    # the run folder is trusted, as the TUI's "Trust folder" answer would record it
    write_json(home / ".gemini" / "trustedFolders.json", {str(cwd): "TRUST_FOLDER"})


GEMINI_CLI = E2EClient(
    id="gemini-cli",
    program="gemini",
    args=("-p", PROMPT, "--output-format", "text"),
    wire_path="/v1beta/models/my-model:streamGenerateContent",
    verify_path="/v1beta/models/my-model:generateContent",  # verify asks for one answer, not a stream
    seed=seed_gemini,
    to_vendor=lambda home: edit_json(
        home / ".gemini" / "settings.json",
        lambda d: d["security"]["auth"].update(selectedType="oauth-personal"),
    ),
    restored_env=lambda dead: {"GOOGLE_GEMINI_BASE_URL": dead, "GEMINI_API_KEY": "sk-e2e-nowhere"},
)


# -- qwen-code ------------------------------------------------------------------------------------


def seed_qwen(home: Path, cwd: Path) -> None:
    write_json(
        home / ".qwen" / "settings.json",
        {
            "security": {"folderTrust": {"enabled": False}},
            "general": {"enableAutoUpdate": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False},
            "$version": 4,  # what qwen itself adds on first start; seeded so it need not rewrite the file
        },
    )


QWEN_CODE = E2EClient(
    id="qwen-code",
    program="qwen",
    args=(PROMPT,),
    wire_path=CHAT,
    seed=seed_qwen,
    to_vendor=lambda home: edit_json(
        home / ".qwen" / "settings.json", lambda d: d["security"]["auth"].update(selectedType="qwen-oauth")
    ),
    restored_env=lambda dead: {**openai_env(dead), "OPENAI_MODEL": "e2e-nowhere"},
    # qwen retries a refused connection 7 times with back-off (~100 s); its generationConfig.maxRetries
    # does not shorten that
    restored_timeout=20,
)


# -- opencode -------------------------------------------------------------------------------------


def seed_opencode(home: Path, cwd: Path) -> None:
    write_json(
        home / ".config" / "opencode" / "opencode.json",
        {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled"},
    )
    # opencode's embedded npm installs @opencode-ai/plugin at every start; no opencode switch stops it
    write(home / ".npmrc", "offline=true\n")


OPENCODE = E2EClient(
    id="opencode",
    program="opencode",
    args=("run", PROMPT),
    wire_path=CHAT,
    env={
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    },
    seed=seed_opencode,
    to_vendor=lambda home: edit_json(
        home / ".config" / "opencode" / "opencode.json",
        lambda d: d.update(model="openai/gpt-5.4", small_model="openai/gpt-5.4-nano"),
    ),
    restored_skip=(
        "restored opencode has no provider of ours and picks a vendor's (its own Zen service or "
        "OpenAI's Responses API); running it would try their hosts"
    ),
)


# -- crush ----------------------------------------------------------------------------------------

CRUSH = E2EClient(
    id="crush",
    program="crush",
    args=("run", "-q", PROMPT),
    wire_path=CHAT,
    env={"CRUSH_DISABLE_METRICS": "1", "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE": "1"},
    restored_skip="crush does not install on this machine (see XFAIL in conftest.py)",
)


# -- continue -------------------------------------------------------------------------------------

CONTINUE = E2EClient(
    id="continue",
    program="cn",
    args=("-p", PROMPT),
    wire_path=CHAT,
    # telemetry off; its version check (api.continue.dev at import) has no switch and fails offline
    env={"CONTINUE_CLI_ENABLE_TELEMETRY": "0", "CONTINUE_METRICS_ENABLED": "0"},
    to_vendor=lambda home: drop_lines(home / ".continue" / "config.yaml", "apiBase:"),
    restored_skip=(
        "restored `cn` has no local config.yaml and loads its default assistant from the Continue hub "
        "(api.continue.dev)"
    ),
)


# -- cline ----------------------------------------------------------------------------------------


def seed_cline(home: Path, cwd: Path) -> None:
    write_json(
        home / ".cline" / "data" / "settings" / "global-settings.json",
        {"version": "1", "telemetryOptOut": True, "autoUpdateEnabled": False},
    )


CLINE = E2EClient(
    id="cline",
    program="cline",
    args=(PROMPT,),
    wire_path=CHAT,
    env={"CLINE_NO_AUTO_UPDATE": "1"},
    seed=seed_cline,
    rewrites=("providers.json",),  # Cline writes it whole at every start (same data, its own key order)
    to_vendor=lambda home: edit_json(
        home / ".cline" / "data" / "settings" / "providers.json", lambda d: d.update(lastUsedProvider="cline")
    ),
    restored_skip="restored Cline falls back to its own cloud provider (api.cline.bot)",
)


# -- aider ----------------------------------------------------------------------------------------


def seed_aider(home: Path, cwd: Path) -> None:
    write(
        home / ".aider.conf.yml",
        "# offline, headless switches for the e2e run\n"
        "check-update: false\n"
        "analytics-disable: true\n"
        "show-model-warnings: false\n"
        "show-release-notes: false\n"
        "git: false\n"
        "pretty: false\n"
        "fancy-input: false\n"
        "detect-urls: false\n"
        "suggest-shell-commands: false\n"
        "yes-always: true\n",
    )
    # Model metadata so neither litellm nor aider fetches its price list from GitHub; it names the
    # profile's model but says nothing about where the gateway is.
    write_json(
        home / ".aider.model.metadata.json",
        {
            "openai/my-model": {
                "max_input_tokens": 128000,
                "max_output_tokens": 8192,
                "max_tokens": 8192,
                "input_cost_per_token": 0,
                "output_cost_per_token": 0,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        },
    )


AIDER = E2EClient(
    id="aider",
    program="aider",
    args=("--message", PROMPT),
    wire_path=CHAT,
    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    seed=seed_aider,
    # aider 0.86.2 --message exits 0 after a 401 (the reference said rc 1)
    wrong_key_text="The API provider is not able to authenticate you",
    to_vendor=lambda home: drop_lines(home / ".aider.conf.yml", "openai-api-base:"),
    # the model the seeded metadata knows, so aider fetches no price list for it
    restored_env=lambda dead: {**openai_env(dead), "AIDER_MODEL": "openai/my-model"},
    # aider retries a refused connection for 60 s (a constant, no switch)
    restored_timeout=20,
)


# -- llm ------------------------------------------------------------------------------------------

LLM = E2EClient(
    id="llm",
    program="llm",
    args=(PROMPT,),
    wire_path=CHAT,
    to_vendor=lambda home: write(
        home / ".config" / "io.datasette.llm" / "default_model.txt", "gpt-4o-mini\n"
    ),
    restored_env=openai_env,
)


# -- shell-gpt ------------------------------------------------------------------------------------


def seed_shell_gpt(home: Path, cwd: Path) -> None:
    """The file sgpt writes at its first start (every default key, so it never rewrites it), with
    its caches in this HOME instead of the shared temp folder, and no markdown rendering."""
    folder = home / ".config" / "shell_gpt"
    write(
        folder / ".sgptrc",
        f"CHAT_CACHE_PATH={home}/.cache/shell_gpt/chat_cache\n"
        f"CACHE_PATH={home}/.cache/shell_gpt/cache\n"
        "CHAT_CACHE_LENGTH=100\n"
        "CACHE_LENGTH=100\n"
        "REQUEST_TIMEOUT=60\n"
        "DEFAULT_MODEL=gpt-5.4-mini\n"
        "DEFAULT_COLOR=magenta\n"
        f"ROLE_STORAGE_PATH={folder}/roles\n"
        "DEFAULT_EXECUTE_SHELL_CMD=false\n"
        "DISABLE_STREAMING=false\n"
        "CODE_THEME=dracula\n"
        f"OPENAI_FUNCTIONS_PATH={folder}/functions\n"
        "OPENAI_USE_FUNCTIONS=true\n"
        "SHOW_FUNCTIONS_OUTPUT=false\n"
        "API_BASE_URL=default\n"
        "PRETTIFY_MARKDOWN=false\n"
        "USE_LITELLM=false\n"
        "SHELL_INTERACTION=true\n"
        "OS_NAME=auto\n"
        "SHELL_NAME=auto\n",
    )


SHELL_GPT = E2EClient(
    id="shell-gpt",
    program="sgpt",
    args=("--no-md", "--no-cache", PROMPT),  # the cache would answer a repeated prompt with no request
    wire_path=CHAT,
    seed=seed_shell_gpt,
    to_vendor=lambda home: replace_line(
        home / ".config" / "shell_gpt" / ".sgptrc",
        next(
            line
            for line in (home / ".config" / "shell_gpt" / ".sgptrc").read_text().splitlines()
            if line.startswith("API_BASE_URL=")
        ),
        "API_BASE_URL=default",
    ),
    restored_env=openai_env,
)


# -- clients of 2026, second half (issue 14) --------------------------------------------------------


# -- gptme ----------------------------------------------------------------------------------------

GPTME = E2EClient(
    id="gptme",
    program="gptme",
    # one prompt is 4 requests: the turn, two "no tool call" auto-replies, then a title
    args=("--non-interactive", "--no-confirm", PROMPT),
    wire_path=CHAT,
    # (it looks up openaipublic.blob.core.windows.net for tiktoken and falls back when that fails)
    to_vendor=lambda home: replace_line(
        home / ".config" / "gptme" / "config.toml", 'MODEL = "gwconf/my-model"', 'MODEL = "openai/gpt-4o"'
    ),
    # restored: no config.toml, so its built-in openai provider, whose OpenAI SDK reads OPENAI_BASE_URL
    restored_env=lambda dead: {**openai_env(dead), "MODEL": "openai/gpt-4o"},
    restored_timeout=60,
    timeout=300,
)


# -- mini-swe-agent -------------------------------------------------------------------------------


def mini_reply(home: Path, cwd: Path) -> str:
    """mini always asks for a bash tool call and takes a plain answer for a format error it does not
    print; the answer is in the trajectory file it writes (-o traj.json)."""
    path = cwd / "traj.json"
    return path.read_text() if path.exists() else ""


MINI_SWE_AGENT = E2EClient(
    id="mini-swe-agent",
    program="mini",
    args=(
        "-y",
        "-t",
        PROMPT,
        "-c",
        "mini.yaml",
        "-c",
        "agent.step_limit=1",
        "--exit-immediately",
        "-o",
        "traj.json",
    ),
    wire_path=CHAT,
    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT": "1"},
    reply=mini_reply,
    to_vendor=lambda home: replace_line(
        home / ".config" / "mini-swe-agent" / ".env",
        "MSWEA_MODEL_NAME=openai/my-model",
        "MSWEA_MODEL_NAME=anthropic/claude-sonnet-4-5",
    ),
    # restored: no .env; the shell's variables as a user of the OpenAI route would have them
    restored_env=lambda dead: {
        **openai_env(dead),
        "MSWEA_MODEL_NAME": "openai/my-model",
        "MSWEA_CONFIGURED": "true",
        "MSWEA_COST_TRACKING": "ignore_errors",
    },
    restored_timeout=300,
    timeout=600,  # importing litellm alone takes tens of seconds on a loaded 2-core machine
)


# -- hermes ---------------------------------------------------------------------------------------


def seed_hermes(home: Path, cwd: Path) -> None:
    """Its run-time download of the tirith scanner off, and a context size so it does not ask
    openrouter.ai for one (gwconf writes neither)."""
    write(
        home / ".hermes" / "config.yaml",
        "# offline switches for the e2e run\nsecurity:\n  tirith_enabled: false\nmodel:\n  context_length: 128000\n",
    )


HERMES = E2EClient(
    id="hermes",
    program="hermes",
    args=("chat", "-Q", "-q", PROMPT, "--max-turns", "1"),
    wire_path=CHAT,
    seed=seed_hermes,
    # on a custom endpoint it probes for Ollama, LM Studio and llama.cpp, then lists the models
    # (and, since gwconf writes model.context_length, /v1/models/<model> and, after a 401, /models)
    probes=(
        "/api/v1/models",
        "/api/tags",
        "/v1/props",
        "/props",
        "/version",
        "/v1/models",
        "/api/show",
        "/v1/models/my-model",
        "/models",
    ),
    to_vendor=lambda home: replace_line(
        home / ".hermes" / "config.yaml", "provider: custom", "provider: openrouter"
    ),
    # restored: no provider set, so hermes's default, OpenRouter, whose address a variable moves
    restored_env=lambda dead: {
        "OPENROUTER_BASE_URL": dead + "/api/v1",
        "OPENROUTER_API_KEY": "sk-e2e-nowhere",
    },
    restored_timeout=120,
    timeout=600,
)


# -- nanocoder ------------------------------------------------------------------------------------

NANOCODER = E2EClient(
    id="nanocoder",
    program="nanocoder",
    # no --provider/--model: it starts from the lastProvider and providerModels gwconf wrote
    args=("--trust-directory", "run", PROMPT),
    wire_path=CHAT,
    rewrites=("nanocoder-preferences.json",),  # it writes lastProvider/lastModel back at every start
    to_vendor=lambda home: (
        edit_json(
            home / ".config" / "nanocoder" / "nanocoder-preferences.json",
            lambda d: d.update(lastProvider="openrouter"),
        )
        or edit_json(
            home / ".config" / "nanocoder" / "agents.config.json",
            lambda d: d["nanocoder"]["providers"].insert(
                0,
                {
                    "name": "openrouter",
                    "baseUrl": "https://openrouter.ai/api/v1",
                    "models": ["x"],
                    "apiKey": "sk-or-x",
                },
            ),
        )
    ),
    # restored: no provider at all; it must stop without a request ("No providers configured")
    restored_env=lambda dead: {},
    restored_timeout=120,
    timeout=300,
)


# -- kimi-code ------------------------------------------------------------------------------------


def seed_kimi(home: Path, cwd: Path) -> None:
    write(home / ".kimi-code" / "tui.toml", "[upgrade]\nauto_install = false\n")


KIMI_CODE = E2EClient(
    id="kimi-code",
    program="kimi",  # under Node 24 (scripts/e2e-install): 2.1.0 needs node:zlib's zstd
    args=("-p", PROMPT),
    wire_path=CHAT,
    # every start looks up code.kimi.com (its update CDN) unless this is set
    env={"KIMI_CODE_NO_AUTO_UPDATE": "1", "KIMI_DISABLE_TELEMETRY": "1"},
    seed=seed_kimi,
    to_vendor=lambda home: replace_line(
        home / ".kimi-code" / "config.toml",
        'default_model = "gwconf/my-model"',
        'default_model = "kimi-code/k2"',
    ),
    # restored: no config.toml; its one documented way to a model without a login, pointed at nothing
    restored_env=lambda dead: {
        "KIMI_MODEL_NAME": "e2e-nowhere",
        "KIMI_MODEL_API_KEY": "sk-e2e-nowhere",
        "KIMI_MODEL_BASE_URL": dead + "/v1",
        "KIMI_MODEL_PROVIDER_TYPE": "openai",
    },
    restored_timeout=60,
    timeout=300,
)


# -- grok-cli -------------------------------------------------------------------------------------

GROK_CLI = E2EClient(
    id="grok-cli",
    program="grok",
    # --model: grok writes .grok/settings.json {"model": "grok-code-fast-1"} into the folder it runs in,
    # and that beats the user file's defaultModel (checked: without the flag it sent grok-code-fast-1;
    # gwconf's doctor names that file)
    args=("--prompt", PROMPT, "--model", "my-model", "--max-tool-rounds", "1"),
    wire_path=CHAT,
    # 0.0.34 exits 0 after a 401 (the reference said rc 1): the error is its answer's text
    wrong_key_text="Grok API error: 401",
    to_vendor=lambda home: edit_json(
        home / ".grok" / "user-settings.json", lambda d: d.update(baseURL="https://api.x.ai/v1")
    ),
    restored_env=lambda dead: {"GROK_BASE_URL": dead + "/v1", "GROK_API_KEY": "sk-e2e-nowhere"},
    restored_timeout=60,
    timeout=300,
)


# -- oterm ----------------------------------------------------------------------------------------


def oterm_to_vendor(home: Path) -> None:
    """Only Ollama again: the ``openaiCompatible`` endpoint gwconf added is gone."""
    path = home / ".local" / "share" / "oterm" / "config.json"
    data = json.loads(path.read_text())
    data.get("openaiCompatible", {}).pop("gwconf", None)
    path.write_text(json.dumps(data))


OTERM = E2EClient(
    id="oterm",
    program="oterm",
    args=(),
    wire_path=CHAT,
    # The model cannot be preset (the module's docstring): a new chat is made in its dialog (Ctrl+N),
    # provider picked from the list, the model typed (the list needs /v1/models, which the wrong-key
    # run does not get), then Save and the prompt.
    tui=(
        ("^n new chat", ("C-n",)),  # (the footer: a second start opens the last chat, no welcome text)
        ("Type model name", ("sleep:3",)),  # the dialog mounted and its provider list focused
        ("Type model name", ("Enter",)),  # opens the provider list: Ollama, then gwconf (the last)
        ("Type model name", ("sleep:2",)),
        # by key (a second run's list already shows gwconf, and the list wraps): first, then the next
        ("Type model name", ("Home", "Down", "Enter")),
        ("Type model name", ("sleep:2",)),
        ("Type model name", ("click:Type model name",)),
        ("Type model name", ("-l", "my-model")),
        ("my-model", ("Tab",)),  # leaving the field commits the model
        ("Model: my-model", ("click:Save",)),
        ("!Cancel", ("sleep:3",)),  # the dialog gone (a chat may be open behind it), the new chat's
        ("submit", ("-l", PROMPT)),  # input given time to take the focus
        (PROMPT, ("Enter",)),
    ),
    probes=("/v1/models", "/api/v0/models"),
    wrong_key_text="There was an error running your request",  # a toast, shown for about 5 s
    to_vendor=oterm_to_vendor,
    restored_skip="after restore config.json has no openaiCompatible.gwconf, so the new-chat dialog "
    "offers only Ollama: there is no gateway left to pick (status's reading is the proof)",
    timeout=240,
)


# -- elia -----------------------------------------------------------------------------------------

ELIA = E2EClient(
    id="elia",
    program="elia",
    args=(PROMPT,),  # opens a chat with the prompt sent; the reply is read off the screen
    wire_path=CHAT,
    tui=(),
    # (litellm fails to fetch its cost map offline and uses its bundled copy; elia does not price replies)
    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    wrong_key_text="AuthenticationError",
    to_vendor=lambda home: replace_line(
        home / ".config" / "elia" / "config.toml", 'default_model = "gwconf"', 'default_model = "elia-gpt-4o"'
    ),
    restored_env=lambda dead: {**openai_env(dead), "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    restored_timeout=90,
    timeout=300,
)


# -- mistral-vibe ---------------------------------------------------------------------------------


def seed_vibe(home: Path, cwd: Path) -> None:
    write(
        home / ".vibe" / "config.toml",
        "# offline switches for the e2e run\nenable_telemetry = false\nenable_update_checks = false\n"
        "enable_auto_update = false\n",
    )


MISTRAL_VIBE = E2EClient(
    id="mistral-vibe",
    program="vibe",
    # (3.0.2 is a Rust front end that gives its Python app-server 120 s to start: on a loaded machine
    # the first, uncached start can miss that; a later one passed)
    args=("-p", PROMPT, "--output", "text", "--trust", "--max-turns", "1"),
    wire_path=CHAT,
    seed=seed_vibe,
    to_vendor=lambda home: replace_line(
        home / ".vibe" / "config.toml", 'active_model = "my-model"', 'active_model = "devstral-2"'
    ),
    restored_skip="restored vibe uses its built-in Mistral provider (api.mistral.ai); no variable moves that address",
    timeout=400,
)


# -- openhands ------------------------------------------------------------------------------------

OPENHANDS = E2EClient(
    id="openhands",
    program="openhands",
    args=("--headless", "-t", PROMPT, "--exit-without-confirmation"),
    wire_path=CHAT,
    # (every start also tries `git clone github.com/OpenHands/extensions` and pypi.org: no switch found;
    # both fail offline and it goes on)
    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENHANDS_SUPPRESS_BANNER": "1"},
    # a 401 is not reported: the conversation ends with "Goodbye!", exit 0, and no reply
    wrong_key_text="Goodbye!",
    to_vendor=lambda home: edit_json(
        home / ".openhands" / "agent_settings.json",
        lambda d: d["llm"].update(model="anthropic/claude-sonnet-4-5"),
    ),
    # restored: no saved agent; headless mode stops without one (LLM_* count only with --override-with-envs)
    restored_env=lambda dead: {},
    restored_timeout=300,
    timeout=600,
)


# -- pi -------------------------------------------------------------------------------------------


def seed_pi(home: Path, cwd: Path) -> None:
    write_json(
        home / ".pi" / "agent" / "settings.json",
        {"enableInstallTelemetry": False, "quietStartup": True, "lastChangelogVersion": "0.73.1"},
    )


PI = E2EClient(
    id="pi",
    program="pi",
    args=("-p", "--no-session", PROMPT),
    wire_path=CHAT,
    env={"PI_SKIP_VERSION_CHECK": "1", "PI_OFFLINE": "1"},
    seed=seed_pi,
    to_vendor=lambda home: edit_json(
        home / ".pi" / "agent" / "settings.json",
        lambda d: d.update(defaultProvider="anthropic", defaultModel="claude-sonnet-4-5"),
    ),
    # restored pi has no default provider and, with no vendor key in its environment, no model at all
    restored_env=lambda dead: {},
)


# -- openclaw -------------------------------------------------------------------------------------


def seed_openclaw(home: Path, cwd: Path) -> None:
    """JSON5 on purpose, with the user's own local provider (not running: port 9) as the default."""
    write(
        home / ".openclaw" / "openclaw.json",
        "// OpenClaw configuration of the e2e HOME\n"
        "{\n"
        "  update: { checkOnStart: false, },\n"
        "  models: {\n"
        "    providers: {\n"
        "      // the user's own server, not running during the test\n"
        "      local: {\n"
        "        baseUrl: 'http://127.0.0.1:9/v1',\n"
        "        apiKey: 'local',\n"
        "        api: 'openai-completions',\n"
        "        models: [{ id: 'local-model', name: 'local-model', contextWindow: 32768, maxTokens: 4096 }],\n"
        "      },\n"
        "    },\n"
        "  },\n"
        "  agents: { defaults: { model: { primary: 'local/local-model' } } },\n"
        "}\n",
    )


OPENCLAW = E2EClient(
    id="openclaw",
    program="openclaw",
    args=("agent", "exec", PROMPT),
    wire_path=CHAT,
    env={"OPENCLAW_NO_AUTO_UPDATE": "1"},
    seed=seed_openclaw,
    to_vendor=lambda home: replace_line(
        home / ".openclaw" / "openclaw.json",
        "primary: 'gwconf/my-model'",
        "primary: 'anthropic/claude-opus-4-6'",
    ),
    # restored, its default is the user's own provider again (port 9, closed)
    restored_env=lambda dead: {},
    restored_timeout=90,
    lingers=(
        "ended with stopReason=stop",
        "OpenClaw 2026.9.6 logs this when the model's answer is in, then cleans up (workers, its "
        "SQLite state, the state lock) and only then prints the reply and exits, 3-6 s later here; "
        "once in CI (2026-11-29, `gwconf run openclaw`) it was still running 160 s after the log "
        "line. Twelve runs here, three at a time, all exited.",
    ),
)


# -- copilot-cli ----------------------------------------------------------------------------------

COPILOT_CLI = E2EClient(
    id="copilot-cli",
    program="copilot",
    args=("-p", PROMPT, "-s"),
    wire_path=CHAT,
    # no GitHub API, telemetry or auto-update (it looks up api.github.com even in BYOK mode otherwise)
    env={"COPILOT_OFFLINE": "true"},
    via_bashrc=True,
    to_vendor=lambda home: drop_lines(home / ".bashrc", "export COPILOT_PROVIDER_BASE_URL="),
    # restored: no BYOK variables, and COPILOT_OFFLINE without a provider stops before any request
    restored_env=lambda dead: {},
)


# -- claude-code-router -----------------------------------------------------------------------------


def seed_ccr(home: Path, cwd: Path) -> None:
    """Claude Code past its onboarding and quiet; the router's own switches on a free port."""
    import socket

    with socket.socket() as probe:  # the router's default 3456 may be taken on a shared machine
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    write_json(home / ".claude.json", {"hasCompletedOnboarding": True, "theme": "dark"})
    write_json(home / ".claude" / "settings.json", {"env": CLAUDE_OFFLINE})
    write_json(
        home / ".claude-code-router" / "config.json",
        {
            "LOG": False,
            "NON_INTERACTIVE_MODE": True,
            "HOST": "127.0.0.1",
            "PORT": port,
            "Providers": [],
            "Router": {},
        },
    )


CLAUDE_CODE_ROUTER = E2EClient(
    id="claude-code-router",
    program="ccr",
    args=("code", "-p", PROMPT, "--output-format", "text"),
    wire_path=CHAT,
    env=CLAUDE_OFFLINE,
    seed=seed_ccr,
    # Claude Code retries a 401 ten times (11 requests reached the gateway in the reference run)
    wrong_key_env={"CLAUDE_CODE_MAX_RETRIES": "0"},
    to_vendor=lambda home: edit_json(
        home / ".claude-code-router" / "config.json",
        lambda d: d["Router"].update(default="deepseek,deepseek-chat"),
    ),
    # restored: no route at all, and Claude Code is pointed at the local router only
    restored_env=lambda dead: {"CLAUDE_CODE_MAX_RETRIES": "0"},
    restored_timeout=60,
)


# -- factory-droid ----------------------------------------------------------------------------------

FACTORY_DROID = E2EClient(
    id="factory-droid",
    program="droid",
    args=("exec", PROMPT),  # no -m: sessionDefaultSettings.model picks gwconf's custom model
    wire_path=CHAT,
    # no api.factory.ai, telemetry or OTel collector (the binary's airgap switch)
    env={"FACTORY_AIRGAP_ENABLED": "1", "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false"},
    to_vendor=lambda home: edit_json(
        home / ".factory" / "settings.json",
        lambda d: d["sessionDefaultSettings"].update(model="claude-sonnet-4-5"),
    ),
    # restored: no custom model; Factory's own models need a login, which airgap mode refuses
    restored_env=lambda dead: {},
    restored_timeout=60,
)


# -- kilo -----------------------------------------------------------------------------------------


def seed_kilo(home: Path, cwd: Path) -> None:
    # Kilo's own gateway catalogue (api.kilo.ai) stops only with its provider disabled (reference 3.5)
    write_json(
        home / ".config" / "kilo" / "kilo.jsonc",
        {"$schema": "https://app.kilo.ai/config.json", "autoupdate": False, "disabled_providers": ["kilo"]},
    )
    write(home / ".npmrc", "offline=true\n")  # as opencode, whose fork it is: no plugin install at start


KILO = E2EClient(
    id="kilo",
    program="kilo",
    args=("run", PROMPT),
    wire_path=CHAT,
    env={
        "KILO_TELEMETRY_LEVEL": "off",
        "KILO_DISABLE_AUTOUPDATE": "1",
        "KILO_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    },
    seed=seed_kilo,
    rewrites=("kilo.jsonc",),  # it adds its own settings to the file it runs with
    to_vendor=lambda home: edit_json(
        home / ".config" / "kilo" / "kilo.jsonc",
        lambda d: d.update(model="anthropic/claude-sonnet-4-5", small_model="anthropic/claude-haiku-4-5"),
    ),
    restored_skip=(
        "restored Kilo has no provider of ours and picks its own Kilo gateway (api.kilo.ai) or a vendor's; "
        "running it would try their hosts"
    ),
)


# -- open-interpreter -------------------------------------------------------------------------------


def seed_open_interpreter(home: Path, cwd: Path) -> None:
    write(
        home / ".config" / "open-interpreter" / "profiles" / "default.yaml",
        "# offline, headless switches for the e2e run\n"
        "version: 0.2.5\n"
        "offline: true\n"
        "auto_run: true\n"
        "llm:\n"
        "  supports_functions: false\n",
    )
    write(cwd / "prompt.txt", PROMPT + "\n")


OPEN_INTERPRETER = E2EClient(
    id="open-interpreter",
    program="interpreter",
    args=("--stdin", "--plain"),
    wire_path=CHAT,
    env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    seed=seed_open_interpreter,
    stdin_file="prompt.txt",
    to_vendor=lambda home: drop_lines(
        home / ".config" / "open-interpreter" / "profiles" / "default.yaml", "api_base:"
    ),
    restored_env=openai_env,
    restored_timeout=60,
)


CLIENTS: dict[str, E2EClient] = {
    c.id: c
    for c in (
        CODEX,
        CLAUDE_CODE,
        GEMINI_CLI,
        QWEN_CODE,
        OPENCODE,
        CRUSH,
        CONTINUE,
        CLINE,
        AIDER,
        LLM,
        SHELL_GPT,
        GPTME,
        MINI_SWE_AGENT,
        HERMES,
        NANOCODER,
        KIMI_CODE,
        GROK_CLI,
        ELIA,
        OTERM,
        MISTRAL_VIBE,
        OPENHANDS,
        PI,
        OPENCLAW,
        COPILOT_CLI,
        CLAUDE_CODE_ROUTER,
        FACTORY_DROID,
        KILO,
        OPEN_INTERPRETER,
    )
}
