"""OpenAI Codex CLI (and Codex Desktop): ``$CODEX_HOME/config.toml`` + ``auth.json``.

Docs: https://developers.openai.com/codex/config-reference ; checked against @openai/codex 0.169.0
and 0.171.0 (run against a test gateway). A custom provider table with the fixed id
``gwconf`` (Codex files session history under the provider id), ``wire_api = "responses"`` (the
only value current Codex accepts). The key goes to ``auth.json`` with ``requires_openai_auth``
unless auth.json holds a ChatGPT login, which is kept, or ``cli_auth_credentials_store`` keeps the
login in the OS keyring (``keyring``: auth.json is never read; ``auto``: the keyring first): then
the table's bearer-token field.
``gwconf run codex`` writes nothing: ``-c key=value`` overrides (TOML values, above every config
layer) describe the same table with ``env_key``, and the key is set only in Codex's environment,
with its shell snapshot off and the variable blanked for the agent's commands (checked with 0.169:
``codex sandbox -- sh -c 'echo $GWCONF_API_KEY'`` prints the key without the override).
The model's context window, when known (profile or gateway, limits.py), goes to
``model_context_window`` (0.169 reads it; its ``model_max_output_tokens`` is ignored with a warning,
so it is not written); unknown, the key is taken out. Checked with the real 0.169: the window does
not silence "Model metadata for `<model>` not found. Defaulting to fallback metadata": that comes
from Codex's model catalog (``model_catalog_json``), which gwconf does not write: it is not safe.
openai/codex ``codex-rs/model-provider/src/provider.rs`` ``ConfiguredModelProvider::models_manager``:
with a configured catalog Codex uses a ``StaticModelsManager`` ("authoritative") instead of the
bundled models.json plus ``/models`` refresh, for every provider (the key is top-level), so the user's
OpenAI models leave the picker and lose their metadata (0.169 ``codex debug models``: 12 models
without it, 1 with a one-entry catalog). ``load_catalog_json`` parses it strictly: an entry that lacks
a field the running Codex requires (``shell_type``, checked with 0.169; a later Codex may add more)
stops Codex at startup ("failed to parse model_catalog_json"), and an entry needs behaviour metadata
(``base_instructions``, tools, reasoning levels) that gwconf would have to make up.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_detect_for,
    default_target_for,
    env_dir,
    env_override_findings,
    folders_to_project_root,
    get_str,
    load_other,
    merge_deep,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
)
from gwconf.clients._launch_types import LaunchSpec
from gwconf.formats import MISSING, Document, get_plain
from gwconf.paths import Env, display

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "codex"
NAME = "Codex CLI"
FAMILY = "openai"
WIRE = "responses"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("codex",)
DOCS = "https://developers.openai.com/codex/config-reference"
RESTART = (
    "Codex reads its configuration at start: start a new `codex` session (a running one keeps the old "
    "provider); Codex Desktop must be quit fully (Cmd-Q / File > Quit), not just closed."
)
RESTAMPED: tuple[str, ...] = ()

PROVIDER_ID = "gwconf"
TABLE = ("model_providers", PROVIDER_ID)
RESERVED_IDS = ("openai", "ollama", "lmstudio", "amazon-bedrock", "oss", "ollama-chat")
LAUNCH_KEY_VAR = "GWCONF_API_KEY"  # set only in the launched Codex's environment


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def codex_home(env: Env) -> Path:
    return env_dir(env, "CODEX_HOME", env.home / ".codex")


def files(env: Env) -> list[ConfigFile]:
    home = codex_home(env)
    return [
        ConfigFile("config", home / "config.toml", "toml"),
        ConfigFile("auth", home / "auth.json", "json", secret=True, strict=True),
    ]


def has_chatgpt_login(auth: Document) -> bool:
    return bool(auth.get(("tokens",), None)) or auth.get(("auth_mode",), None) == "chatgpt"


def _credential_store(config: Document) -> str | None:
    """``keyring`` or ``auto`` when config.toml's ``cli_auth_credentials_store`` keeps Codex's login
    out of auth.json (keyring), or looks in the keyring first (auto), which gwconf cannot read
    (codex-rs ``login/src/auth/storage.rs``); None for the file, the default."""
    store = config.get(("cli_auth_credentials_store",), None)
    return store if store in ("keyring", "auto") else None


def _keyring_login(store: str) -> str:
    """What a ``keyring``/``auto`` store means for the key, said the same in apply and status."""
    tail = " first" if store == "auto" else ", not auth.json"
    return f'cli_auth_credentials_store = "{store}": Codex reads its login from the OS keyring{tail}'


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config, auth = docs["config"], docs["auth"]
    notes: list[str] = []
    config.set(("model_provider",), PROVIDER_ID)
    if target.model:
        config.set(("model",), target.model)
    config.set((*TABLE, "name"), "gwconf gateway")
    config.set((*TABLE, "base_url"), target.base_url)
    config.set((*TABLE, "wire_api"), "responses")
    config.delete((*TABLE, "env_key"))  # gwconf places the key itself; env_key would shadow it
    if target.limits.context_window:
        # for a model its catalog does not know, Codex otherwise assumes a generic window
        config.set(("model_context_window",), target.limits.context_window)
    else:  # unknown for this model: a number left from another profile or model would be a guess
        config.delete(("model_context_window",))
    if config.get(("forced_login_method",), None) == "chatgpt":
        config.delete(("forced_login_method",))  # with it Codex deletes an auth.json that holds a key
        notes.append('removed forced_login_method = "chatgpt" (Codex would delete the key\'s auth.json)')
    store = _credential_store(config)
    if has_chatgpt_login(auth) or store:
        config.set((*TABLE, "experimental_bearer_token"), target.api_key)
        config.delete((*TABLE, "requires_openai_auth"))
        notes.append(
            f"{_keyring_login(store)}; the gateway key is in the gwconf provider table"
            if store
            else "kept your ChatGPT login in auth.json; the gateway key is in the gwconf provider table"
        )
    else:
        auth.set(("OPENAI_API_KEY",), target.api_key)
        config.set((*TABLE, "requires_openai_auth"), True)
        config.delete((*TABLE, "experimental_bearer_token"))
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    """Root ``-c`` overrides reach every subcommand (``exec`` too); a subcommand's own ``-c`` wins.
    ``env_key`` beats a bearer token or auth.json in Codex's key lookup."""
    table = f"model_providers.{PROVIDER_ID}"
    values: dict[str, str | bool] = {
        "model_provider": PROVIDER_ID,
        f"{table}.name": "gwconf gateway",
        f"{table}.base_url": target.base_url,
        f"{table}.wire_api": "responses",
        f"{table}.env_key": LAUNCH_KEY_VAR,
        f"{table}.requires_openai_auth": False,  # else the TUI may show its login screen
        # the key is in Codex's environment: keep it there. 0.169's shell snapshot dumps the
        # environment to $CODEX_HOME/shell_snapshots/ (a leftover ``.tmp-*`` kept the key on disk),
        # and its default shell_environment_policy hands every variable, ours included, to each
        # command the agent runs (a cloned repository's scripts among them). ``set`` is merged into
        # the user's own table (their excludes stay): the variable reaches those commands empty.
        "features.shell_snapshot": False,
        f"shell_environment_policy.set.{LAUNCH_KEY_VAR}": "",
    }
    if target.model:
        values["model"] = target.model
    import json

    argv = ["codex"]
    for key, value in values.items():
        literal = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value)
        argv += ["-c", f"{key}={literal}"]  # a JSON string is a valid TOML basic string
    # -c overrides rank above every config.toml, a trusted project's .codex/config.toml too
    return LaunchSpec(argv=[*argv, *args], env={LAUNCH_KEY_VAR: target.api_key}, beats_project=True)


# the administrator's layer (unix): merged over config.toml, so it wins (codex-rs
# ``config_loader/layer_io.rs`` CODEX_MANAGED_CONFIG_SYSTEM_PATH; 0.171.0: "legacy
# managed_config.toml", still read). macOS's MDM preferences are not read.
MANAGED_CONFIG = Path("/etc/codex/managed_config.toml")


class _Layered:
    """config.toml's data with the administrator's merged over it (``merge_toml_values``: tables key
    by key, anything else replaced), read as a document."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def data(self) -> Any:
        return self._data

    def get(self, path: tuple[Any, ...], default: Any = MISSING) -> Any:
        value = get_plain(self._data, tuple(path))
        return default if value is MISSING else value


def _managed(config: Document, env: Env) -> tuple[Any, list[Finding]]:
    """``config`` as Codex reads it under ``MANAGED_CONFIG``, and what that layer overrules."""
    if env.platform == "win32" or not MANAGED_CONFIG.is_file():
        return config, []
    doc = load_other(MANAGED_CONFIG, "toml", env)
    data = doc.data() if doc is not None else None
    if not isinstance(data, dict) or not data:
        return config, []
    wins = [k for k in ("model_provider", "model", "model_providers") if k in data]
    where = display(MANAGED_CONFIG, env)
    found = (
        [
            Finding(
                "error",
                "override",
                f"{where} (managed by an administrator) sets {', '.join(wins)}: it wins over "
                f"{display(codex_home(env) / 'config.toml', env)}.",
                f"ask the administrator of {where} to change it: users cannot",
                administrator=True,
            )
        ]
        if wins
        else []
    )
    return _Layered(merge_deep(config.data(), data)), found


def read(docs: dict[str, Document], env: Env) -> Reading:
    config, managed_findings = _managed(docs["config"], env)
    auth = docs["auth"]
    provider = get_str(config, ("model_provider",)) or "openai"
    reading = Reading(
        provider=provider,
        provider_is_gwconf=provider == PROVIDER_ID,
        model=get_str(config, ("model",)),
        wire=WIRE,
    )
    reading.findings += managed_findings
    table = config.get(("model_providers", provider), None)
    auth_file = display(codex_home(env) / "auth.json", env)
    if provider in RESERVED_IDS or not isinstance(table, dict):
        reading.base_url = get_str(config, ("openai_base_url",)) or urls.OFFICIAL_OPENAI_BASE
        reading.api_key = auth.get(("OPENAI_API_KEY",), None) or env.get("CODEX_API_KEY")
        reading.key_origin = "auth.json OPENAI_API_KEY"
        reading.findings.append(
            Finding(
                "error",
                "provider",
                f'model_provider is "{provider}" (the built-in provider), not gwconf\'s entry.'
                if provider in RESERVED_IDS
                else f'model_provider "{provider}" has no [model_providers.{provider}] table.',
                "gwconf apply codex",
            )
        )
        return reading
    reading.base_url = table.get("base_url")
    if table.get("wire_api") == "chat":
        reading.findings.append(
            Finding(
                "error", "provider", 'wire_api = "chat" is refused by current Codex.', "gwconf apply codex"
            )
        )
    if table.get("env_key"):  # before the bearer token (model-provider/src/auth.rs): unset is an error
        name = table["env_key"]
        reading.api_key = env.get(name)
        reading.key_origin = f"${name} (env_key)"
        if not reading.api_key:
            reading.findings.append(
                Finding(
                    "error",
                    "key",
                    f"env_key names ${name}, which is not set in this shell.",
                    f"export {name}=sk-...",
                )
            )
    elif table.get("experimental_bearer_token"):
        reading.api_key = table["experimental_bearer_token"]
        reading.key_origin = f"config.toml [model_providers.{provider}] experimental_bearer_token"
    else:
        reading.api_key = auth.get(("OPENAI_API_KEY",), None)
        reading.key_origin = f"{auth_file} OPENAI_API_KEY"
        store = _credential_store(config)
        if store:
            reading.findings.append(
                Finding(
                    "error" if store == "keyring" else "warning",
                    "key",
                    _keyring_login(store)
                    + ("; a login there wins over auth.json." if store == "auto" else "."),
                    "gwconf apply codex",
                )
            )
        if has_chatgpt_login(auth):
            reading.findings.append(
                Finding(
                    "error",
                    "provider",
                    "auth.json holds a ChatGPT login: Codex sends the account token instead of the key.",
                    "gwconf apply codex  (moves the key into the provider table and keeps the login)",
                )
            )
    if get_str(config, ("forced_login_method",)) == "chatgpt":
        reading.findings.append(
            Finding(
                "error",
                "provider",
                'forced_login_method = "chatgpt": Codex deletes an auth.json that holds a key.',
                "gwconf apply codex",
            )
        )
    if config.get(("profiles",), None) is not None or config.get(("profile",), None) is not None:
        reading.findings.append(
            Finding(
                "error",
                "other",
                "config.toml has legacy `profile =` / [profiles.*]; current Codex refuses to start.",
                "move those settings into $CODEX_HOME/<name>.config.toml",
            )
        )
    reading.findings += env_override_findings(
        env, ("OPENAI_BASE_URL",), "Codex ignores it since 0.119; only config.toml counts"
    )
    reading.findings += _project_override(env)
    return reading


def _project_override(env: Env) -> list[Finding]:
    """A trusted project's ``.codex/config.toml`` may set its own model (it cannot change the provider)."""
    for candidate in folders_to_project_root(env)[0]:
        project = candidate / ".codex" / "config.toml"
        if project.is_file() and project.parent != codex_home(env):
            return [
                Finding(
                    "info",
                    "override",
                    f"{project} exists: when this project is trusted, its `model` wins over yours.",
                )
            ]
    return []
