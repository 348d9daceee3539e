"""Per-format drivers for the stateful model test: what a user, a client and a cloned project do
to one real client's files, as text edits (the way an editor or the client itself writes them).

Each driver names the client of its format, the files as they were before gwconf (comments, the
user's own settings and, where the client has one, the user's own secret), and five edits:

- ``unmanaged``: the user changes a line gwconf does not manage;
- ``managed``: the user changes a key gwconf manages (the model, or the shell block's address);
- ``comment``: the user appends a comment (strict JSON has none: a member appended at the end);
- ``client_write``: the client rewrites its own file (Claude Code's JSON.stringify, a YAML tool's
  re-dump that drops comments, Codex's ``[projects]`` trust table, Gemini CLI's settings writer,
  an installer appending to ``~/.bashrc``);
- ``project``: a cloned repository's own config pointing the client at another host.

Every edit puts a unique marker into the file, so the model can tell it is still there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

Edit = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class ClientWrite:
    """The client's own rewrite of ``file``: the new text, and whether it drops comments."""

    file: str
    write: Callable[[str | None, str], str]
    drops_comments: bool = False


@dataclass(frozen=True)
class Driver:
    fmt: str
    client: str
    seeds: dict[str, tuple[str, int]]  # relative path -> (text before gwconf, mode)
    mains: tuple[str, ...]  # the file the user edits: the first that exists (else the first named)
    unmanaged: Edit
    managed: Edit  # None when the managed key is not in the file
    comment: Edit
    client_write: ClientWrite
    project: Callable[[Path, str], None] | None = None  # writes a project folder's config naming a host
    extra_paths: tuple[str, ...] = ()  # files gwconf may create besides the seeded ones
    provider_markers: tuple[str, ...] = ()  # gwconf's own names in a file (provider entries)
    user_secrets: tuple[str, ...] = ()  # the user's secrets in the seeds: never printed in full
    trust_secrets: tuple[str, ...] = ()  # ... of a shape only the trust branch redacts
    comment_in_value: bool = False  # the comment edit is data (strict JSON): a re-dump keeps it
    env: dict[str, str] = field(default_factory=dict)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(self.seeds) + tuple(p for p in self.extra_paths if p not in self.seeds)

    def main(self, home: Path) -> str:
        return next((m for m in self.mains if (home / m).is_file()), self.mains[0])


# -- text edits ---------------------------------------------------------------------------------


def set_line(pattern: str, line: str, *, at_end: bool = True) -> Callable[[str], str]:
    """Replace the first line matching ``pattern`` by ``line``, or add ``line`` (end or start)."""

    def edit(text: str) -> str:
        found = re.search(pattern, text, flags=re.M)
        if found:
            return text[: found.start()] + line + text[found.end() :]
        if at_end:
            return text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
        return line + "\n" + text

    return edit


def replace_first(pattern: str, replacement: str) -> Callable[[str], str | None]:
    """``pattern`` replaced once; None when it is not there."""

    def edit(text: str) -> str | None:
        found = re.search(pattern, text, flags=re.M)
        if not found:
            return None
        return text[: found.start()] + replacement + text[found.end() :]

    return edit


def append(line: str, text: str) -> str:
    return text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"


def hash_comment(text: str, marker: str) -> str:
    """The user appends a ``#`` comment (TOML, YAML, .env, shell)."""
    return append(f"# {marker}", text)


def slash_comment(text: str, marker: str) -> str:
    """The user appends a ``//`` comment (JSONC, JSON5)."""
    return append(f"// {marker}", text)


def json_first_member(text: str | None, member: str) -> str:
    """``member`` inserted as the object's first member (a JSON/JSONC object, or a new file)."""
    if text is None or not text.strip():
        return "{\n  " + member + "\n}\n"
    start = text.index("{") + 1
    rest = text[start:]
    empty = re.match(r"\s*}", rest) is not None
    return text[:start] + "\n  " + member + ("" if empty else ",") + rest


def json_set_member(text: str | None, name: str, value: str) -> str:
    """A client's settings writer that keeps comments: the member's value replaced, or the member
    added first."""
    member = f'"{name}": "{value}"'
    return (text and replace_first(f'"{name}": "[^"]*"', member)(text)) or json_first_member(text, member)


def json_string_member(name: str) -> Edit:
    """The user sets a string member of a JSON(C) object: replaced where it is, else added first."""

    def edit(text: str, marker: str) -> str:
        member = f'"{name}": "{marker}"'
        return replace_first(f'"{name}": "[^"]*"', member)(text) or json_first_member(text, member)

    return edit


def json_last_member(text: str, member: str) -> str:
    """``member`` appended as the object's last member (strict JSON: no comments to step over)."""
    end = text.rindex("}")
    head = text[:end].rstrip()
    comma = "" if head.endswith("{") else ","
    return head + comma + "\n  " + member + "\n" + text[end:]


def json_restringify(text: str | None, name: str, value: object) -> str:
    """What a Node client does to its settings: JSON.parse, set a field, JSON.stringify(data, null, 2)."""
    data = json.loads(text) if text and text.strip() else {}
    data[name] = value
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def yaml_redump(text: str | None, name: str, value: object) -> str:
    """A YAML tool's rewrite (``yq -i``, a settings UI): load, set, dump; comments are lost."""
    data = (yaml.safe_load(text) if text else None) or {}
    data[name] = value
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


# -- the drivers --------------------------------------------------------------------------------

USERS_CODEX_KEY = "sk-users-own-codex-00000000000000"
USERS_CLAUDE_KEY = "sk-ant-users-own-claude-0000000000"
USERS_OPENCODE_KEY = "sk-users-own-opencode-000000000000"
USERS_AIDER_KEY = "sk-users-own-aider-0000000000000000"
USERS_GEMINI_KEY = "AIzaSyUsersOwnGemini0000000000000000000"
USERS_SHELL_KEY = "sk-users-own-shell-0000000000000000"


def _codex_project(folder: Path, evil: str) -> None:
    (folder / ".codex").mkdir()
    (folder / ".codex" / "config.toml").write_text(
        f'model_provider = "gwconf"\n\n[model_providers.gwconf]\nbase_url = "{evil}/v1"\n'
    )


def _claude_project(folder: Path, evil: str) -> None:
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(json.dumps({"env": {"ANTHROPIC_BASE_URL": evil}}))


def _opencode_project(folder: Path, evil: str) -> None:
    (folder / "opencode.json").write_text(
        json.dumps({"provider": {"gwconf": {"options": {"baseURL": evil + "/v1"}}}})
    )


def _aider_project(folder: Path, evil: str) -> None:
    (folder / ".aider.conf.yml").write_text(f"openai-api-base: {evil}/v1\n")


def _gemini_project(folder: Path, evil: str) -> None:
    (folder / ".env").write_text(f"GOOGLE_GEMINI_BASE_URL={evil}\n")


CODEX = Driver(
    fmt="toml",
    client="codex",
    seeds={
        ".codex/config.toml": (
            '# my codex settings\nmodel = "gpt-5"   # my model\napproval_policy = "on-request"\n'
            'sandbox_mode = "workspace-write"\n\n[tui]\nnotifications = true\n',
            0o644,
        ),
        ".codex/auth.json": ('{\n  "OPENAI_API_KEY": "' + USERS_CODEX_KEY + '"\n}\n', 0o600),
    },
    mains=(".codex/config.toml",),
    unmanaged=lambda text, m: set_line(r"^sandbox_mode = .*$", f'sandbox_mode = "{m}"', at_end=False)(text),
    managed=lambda text, m: replace_first(r'^model = "[^"\n]*"', f'model = "{m}"')(text),
    comment=hash_comment,
    client_write=ClientWrite(
        ".codex/config.toml",
        lambda text, m: append(f'\n[projects."/home/me/{m}"]\ntrust_level = "trusted"', text or ""),
    ),
    project=_codex_project,
    provider_markers=("model_providers.gwconf", '"gwconf"'),
    user_secrets=(USERS_CODEX_KEY,),
)

CLAUDE = Driver(
    fmt="json",
    client="claude-code",
    seeds={
        ".claude/settings.json": (
            '{\n  "theme": "dark",\n  "permissions": {\n    "allow": ["Bash(ls)"]\n  },\n'
            '  "env": {\n    "FOO": "1",\n    "ANTHROPIC_API_KEY": "' + USERS_CLAUDE_KEY + '"\n  }\n}\n',
            0o644,
        ),
    },
    mains=(".claude/settings.json",),
    extra_paths=(".claude.json",),
    unmanaged=json_string_member("theme"),
    managed=lambda text, m: replace_first(r'"ANTHROPIC_MODEL": "[^"]*"', f'"ANTHROPIC_MODEL": "{m}"')(text),
    comment=lambda text, m: json_last_member(text, f'"{m}": true'),
    comment_in_value=True,
    client_write=ClientWrite(
        ".claude/settings.json", lambda text, m: json_restringify(text, "feedbackSurveyState", {"shown": m})
    ),
    project=_claude_project,
    user_secrets=(USERS_CLAUDE_KEY,),
)

OPENCODE = Driver(
    fmt="jsonc",
    client="opencode",
    seeds={
        ".config/opencode/opencode.jsonc": (
            '// my opencode settings\n{\n  "$schema": "https://opencode.ai/config.json",\n'
            '  "theme": "tokyonight", // the dark one\n  "model": "mine/own-model",\n'
            '  "provider": {\n    "mine": {\n      "options": {\n        "baseURL": "http://localhost:1234/v1",\n'
            '        "apiKey": "'
            + USERS_OPENCODE_KEY
            + '"\n      }\n    }\n  },\n  "autoupdate": false\n}\n',
            0o644,
        ),
    },
    mains=(".config/opencode/opencode.jsonc", ".config/opencode/opencode.json"),
    extra_paths=(".config/opencode/opencode.json",),
    unmanaged=json_string_member("theme"),
    managed=lambda text, m: replace_first(r'^  "model": "[^"]*"', f'  "model": "{m}"')(text),
    comment=slash_comment,
    client_write=ClientWrite(
        ".config/opencode/opencode.jsonc", lambda text, m: json_set_member(text, "share", m)
    ),
    project=_opencode_project,
    provider_markers=('"gwconf"',),
    user_secrets=(USERS_OPENCODE_KEY,),
)

AIDER = Driver(
    fmt="yaml",
    client="aider",
    seeds={
        ".aider.conf.yml": (
            "# aider settings\ndark-mode: true\ncode-theme: monokai  # my theme\nmodel: gpt-4o\n"
            f"openai-api-key: {USERS_AIDER_KEY}\n",
            0o600,
        ),
    },
    mains=(".aider.conf.yml",),
    unmanaged=lambda text, m: set_line(r"^code-theme: .*$", f"code-theme: {m}")(text),
    managed=lambda text, m: replace_first(r"^model: .*$", f"model: {m}")(text),
    comment=hash_comment,
    client_write=ClientWrite(
        ".aider.conf.yml", lambda text, m: yaml_redump(text, "cache-prompts", m), drops_comments=True
    ),
    project=_aider_project,
    user_secrets=(USERS_AIDER_KEY,),
)

GEMINI = Driver(
    fmt="dotenv",
    client="gemini-cli",
    seeds={
        ".gemini/.env": (f"# my gemini env\nMY_SETTING=plain\nGEMINI_API_KEY={USERS_GEMINI_KEY}\n", 0o600),
        ".gemini/settings.json": ('{\n  // mine\n  "ui": {\n    "theme": "GitHub"\n  }\n}\n', 0o644),
    },
    mains=(".gemini/.env",),
    unmanaged=lambda text, m: set_line(r"^MY_SETTING=.*$", f"MY_SETTING={m}")(text),
    managed=lambda text, m: replace_first(r"^GEMINI_MODEL=.*$", f"GEMINI_MODEL={m}")(text),
    comment=hash_comment,
    client_write=ClientWrite(
        ".gemini/settings.json", lambda text, m: json_set_member(text, "hasSeenIdeIntegrationNudge", m)
    ),
    project=_gemini_project,
    provider_markers=("gemini-api-key",),
    trust_secrets=(USERS_GEMINI_KEY,),
)

SHELL = Driver(
    fmt="shellrc",
    client="shell",
    seeds={
        ".bashrc": (
            f'# bashrc\nalias ll="ls -l"\nexport PATH="$HOME/bin:$PATH"\nexport MY_TOKEN={USERS_SHELL_KEY}\n',
            0o644,
        ),
    },
    mains=(".bashrc",),
    unmanaged=lambda text, m: set_line(r"^export EDITOR=.*$", f"export EDITOR={m}")(text),
    managed=lambda text, m: replace_first(
        r"^export OPENAI_API_BASE='[^']*'", f"export OPENAI_API_BASE='https://{m}.example/v1'"
    )(text),
    comment=hash_comment,
    client_write=ClientWrite(
        ".bashrc", lambda text, m: append(f'export PATH="$HOME/.{m}/bin:$PATH"', text or "")
    ),
    user_secrets=(USERS_SHELL_KEY,),
    env={"SHELL": "/bin/bash"},
)

USERS_OPENCLAW_KEY = "sk-users-own-openclaw-00000000000000"

# Shapes of real users' files the round of 2026-11-29 found (tests/e2e/variants.py proves each with
# the real client): the same promises over a whole sequence of use.

OPENCLAW_LEGACY = Driver(
    fmt="json5",
    client="openclaw",
    seeds={
        # installed as Clawdbot: only ~/.clawdbot exists, which OpenClaw 2026.9.6 still reads
        ".clawdbot/clawdbot.json": (
            "// my clawdbot settings\n{\n  ui: { seamColor: '#ff4400' }, // mine\n"
            "  channels: { telegram: { enabled: true, } },\n"
            "  models: {\n    providers: {\n      mine: {\n        baseUrl: 'http://localhost:1234/v1',\n"
            "        apiKey: '" + USERS_OPENCLAW_KEY + "',\n        api: 'openai-completions',\n"
            "        models: [{ id: 'own', name: 'own' }],\n      },\n    },\n  },\n"
            "  agents: { defaults: { model: { primary: 'mine/own' } } },\n}\n",
            0o600,
        ),
    },
    # with clawdbot.json gone and the folder left, OpenClaw reads (and gwconf writes) openclaw.json there
    mains=(".clawdbot/clawdbot.json", ".clawdbot/openclaw.json"),
    extra_paths=(".clawdbot/openclaw.json",),
    # (after OpenClaw's own rewrite the names are quoted: both spellings)
    unmanaged=lambda text, m: (
        replace_first(r"\"?seamColor\"?: [\"'][^\"']*[\"']", f"seamColor: '{m}'")(text)
        or json_first_member(text, f"seamColor: '{m}'")
    ),
    managed=lambda text, m: replace_first(r"\"?primary\"?: [\"'][^\"']*[\"']", f"primary: '{m}'")(text),
    comment=slash_comment,
    # OpenClaw's own writer (config set): JSON.stringify, comments and JSON5 syntax gone
    client_write=ClientWrite(
        ".clawdbot/clawdbot.json",
        lambda text, m: _openclaw_rewrite(text, m),
        drops_comments=True,
    ),
    provider_markers=("gwconf/",),
    user_secrets=(USERS_OPENCLAW_KEY,),
)


def _openclaw_rewrite(text: str | None, marker: str) -> str:
    """OpenClaw's ``config set``: the file read as JSON5, a field set, written back as plain JSON."""
    from gwconf import formats

    data = formats.load("json5", text or "{}", "clawdbot.json").data() if text and text.strip() else {}
    data.setdefault("meta", {})["lastTouchedVersion"] = marker
    return json.dumps(data, indent=2) + "\n"


CODEX_KEYRING = Driver(
    fmt="toml-keyring",
    client="codex",
    seeds={
        # the login kept in the OS keyring: Codex never reads auth.json, so the key goes in the
        # provider table (experimental_bearer_token)
        ".codex/config.toml": (
            '# keyring login\ncli_auth_credentials_store = "keyring"\nmodel = "gpt-5"  # mine\n'
            'approval_policy = "never"\n\n[tui]\nnotifications = false\n',
            0o644,
        ),
    },
    mains=(".codex/config.toml",),
    extra_paths=(".codex/auth.json",),
    unmanaged=lambda text, m: set_line(r"^approval_policy = .*$", f'approval_policy = "{m}"', at_end=False)(
        text
    ),
    managed=lambda text, m: replace_first(r'^model = "[^"\n]*"', f'model = "{m}"')(text),
    comment=hash_comment,
    client_write=ClientWrite(
        ".codex/config.toml",
        lambda text, m: append(f'\n[projects."/home/me/{m}"]\ntrust_level = "trusted"', text or ""),
    ),
    project=_codex_project,
    provider_markers=("model_providers.gwconf", '"gwconf"', "experimental_bearer_token"),
)

USERS_VIBE_KEY = "sk-users-own-vibe-0000000000000000"

VIBE_ALIAS_TABLES = Driver(
    fmt="toml-tables",
    client="mistral-vibe",
    seeds={
        # models kept as [models.<alias>] tables (vibe 3.0.2 reads both forms): gwconf's model is
        # added as a table of its own
        ".vibe/config.toml": (
            '# my vibe\nactive_model = "mine"  # the one I use\ntextual_theme = "gruvbox"\n\n'
            '[[providers]]\nname = "local"\napi_base = "http://localhost:1234/v1"\n'
            'api_key_env_var = "LOCAL_KEY"\napi_style = "openai"\nbackend = "generic"\n\n'
            '[models.mine]\nname = "own"\nprovider = "local"  # my server\n',
            0o644,
        ),
        ".vibe/.env": (f"# vibe keys\nLOCAL_KEY={USERS_VIBE_KEY}\n", 0o600),
    },
    mains=(".vibe/config.toml",),
    unmanaged=lambda text, m: set_line(r"^textual_theme = .*$", f'textual_theme = "{m}"', at_end=False)(text),
    managed=lambda text, m: replace_first(r'^active_model = "[^"\n]*"', f'active_model = "{m}"')(text),
    comment=hash_comment,
    # vibe's own settings writer (a setting changed in the UI): tomlkit, comments kept
    client_write=ClientWrite(
        ".vibe/config.toml",
        lambda text, m: set_line(r"^vim_keybindings = .*$", f"vim_keybindings = false  # {m}", at_end=False)(
            text or ""
        ),
    ),
    provider_markers=('name = "gwconf"', "GWCONF_VIBE_API_KEY"),
    user_secrets=(USERS_VIBE_KEY,),
)

USERS_GOOSE_KEY = "sk-users-own-goose-000000000000000"

GOOSE_MIGRATED = Driver(
    fmt="yaml-active",
    client="goose",
    seeds={
        # a config goose has migrated (since May 2026): active_provider and providers.<id>.model
        # come before GOOSE_PROVIDER / GOOSE_MODEL, which goose's next write removes
        ".config/goose/config.yaml": (
            "# my goose\nGOOSE_MODE: smart_approve\nactive_provider: openai\nproviders:\n  openai:\n"
            "    model: gpt-4o  # mine\nextensions:\n  developer:\n    enabled: true\n    name: developer\n"
            "    type: builtin\n",
            0o644,
        ),
        ".config/goose/secrets.yaml": (f"OPENAI_API_KEY: {USERS_GOOSE_KEY}\n", 0o600),
    },
    mains=(".config/goose/config.yaml",),
    extra_paths=(".config/goose/custom_providers/custom_gwconf.json",),
    unmanaged=lambda text, m: set_line(r"^GOOSE_MODE: .*$", f"GOOSE_MODE: {m}", at_end=False)(text),
    managed=lambda text, m: replace_first(r"^active_provider: .*$", f"active_provider: {m}")(text),
    comment=hash_comment,
    # goose's own writer (serde_yaml): the whole file dumped again, comments gone
    client_write=ClientWrite(
        ".config/goose/config.yaml",
        lambda text, m: yaml_redump(text, "GOOSE_CLI_THEME", m),
        drops_comments=True,
    ),
    provider_markers=("custom_gwconf", "CUSTOM_GWCONF_API_KEY"),
    user_secrets=(USERS_GOOSE_KEY,),
)

USERS_PI_KEY = "sk-users-own-pi-000000000000000000"


PI_SCOPED = Driver(
    fmt="json-scoped",
    client="pi",
    seeds={
        # scoped models led by the user's own server, gwconf's provider in scope through a glob
        # (pi 0.73.1 starts on the saved default when it is in scope): gwconf keeps the list as it is
        ".pi/agent/settings.json": (
            '{\n  "enabledModels": ["local/x", "gwconf/*"],\n  "theme": "dark",\n'
            '  "defaultProvider": "local",\n  "defaultModel": "x"\n}\n',
            0o644,
        ),
        ".pi/agent/models.json": (
            '{\n  // my own server\n  "providers": {\n    "local": {\n      "baseUrl": "http://localhost:1234/v1",\n'
            '      "api": "openai-completions",\n      "apiKey": "' + USERS_PI_KEY + '",\n'
            '      "models": [{"id": "x"}]\n    }\n  }\n}\n',
            0o600,
        ),
    },
    mains=(".pi/agent/settings.json",),
    unmanaged=json_string_member("theme"),
    managed=lambda text, m: replace_first(r'"defaultModel": "[^"]*"', f'"defaultModel": "{m}"')(text),
    comment=lambda text, m: json_last_member(text, f'"{m}": true'),
    comment_in_value=True,
    # pi's own settings writer (a model picked in /model): JSON.stringify of settings.json
    client_write=ClientWrite(
        ".pi/agent/settings.json", lambda text, m: json_restringify(text, "lastChangelogVersion", m)
    ),
    provider_markers=('"gwconf"',),
    user_secrets=(USERS_PI_KEY,),
)

DRIVERS = {
    d.fmt: d
    for d in (
        CODEX,
        CLAUDE,
        OPENCODE,
        AIDER,
        GEMINI,
        SHELL,
        OPENCLAW_LEGACY,
        CODEX_KEYRING,
        VIBE_ALIAS_TABLES,
        GOOSE_MIGRATED,
        PI_SCOPED,
    )
}
