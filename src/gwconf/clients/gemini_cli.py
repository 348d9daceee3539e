"""Gemini CLI: ``~/.gemini/.env`` (address, key, model) + ``~/.gemini/settings.json`` (auth type).

Docs: https://geminicli.com/docs/get-started/authentication ;
checked against @google/gemini-cli 0.61.0 (run against a test gateway) and the
google-gemini/gemini-cli source (``findEnvFile``/``loadEnvironment`` in
``packages/cli/src/config/settings.ts``, ``checkPathTrust`` in ``packages/core/src/utils/trust.ts``).
Gemini-style family: ``GOOGLE_GEMINI_BASE_URL`` is the root (the SDK appends
``/v1beta/models/...``), the key travels as ``x-goog-api-key``. settings.json has no field for the
address or the key, so they go in ``~/.gemini/.env`` (0600) next to ``GEMINI_MODEL``, and
``security.auth.selectedType = "gemini-api-key"`` leaves the Google login (without it Gemini CLI
picks the ``gateway`` auth type and headless runs fail). ``GEMINI_CLI_HOME`` replaces the home
folder (``$GEMINI_CLI_HOME/.gemini``); the folder is ``.gemini`` under the home on every OS.

Gemini CLI loads exactly one ``.env``: walking up from the current folder, ``.gemini/.env`` (only
in a trusted folder) then ``.env`` in each folder, then ``~/.gemini/.env`` (trusted only) and
``~/.env``; values never override variables already exported. In an untrusted folder only
``GEMINI_API_KEY``, ``GOOGLE_API_KEY``, ``GOOGLE_CLOUD_PROJECT`` and ``GOOGLE_CLOUD_LOCATION``
are taken. ``read`` reports what a trusted folder gets and says when the current one is not.

``gwconf run gemini-cli`` points ``GEMINI_CLI_HOME`` at a temporary home whose ``.gemini`` stands in
for the user's (its entries linked; settings.json and .env as ``render()`` edits them, so a stored
Google login cannot win) and sets the address, key and model as variables as well (they win over
any .env, in trusted and untrusted folders alike).
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
    env_override_findings,
    load_other,
    no_import_link,
    no_preflight,
    no_steps,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ParseError
from gwconf.formats import Document
from gwconf.paths import Env, display

ID = "gemini-cli"
NAME = "Gemini CLI"
FAMILY = "gemini"
WIRE = "gemini"
TIER = 1
BASE_FORM = "root"
PROGRAMS = ("gemini",)
DOCS = "https://geminicli.com/docs/get-started/authentication"
RESTART = (
    "Gemini CLI reads settings.json and ~/.gemini/.env when it starts: /quit every running `gemini` "
    "session and start a new one (in a folder Gemini CLI trusts, or ~/.gemini/.env is not read)."
)
RESTAMPED: tuple[str, ...] = ()

AUTH_TYPE = "gemini-api-key"
MANAGED = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY", "GEMINI_MODEL")
UNTRUSTED_ALLOWED = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")
AUTH_SWITCHES = ("GOOGLE_GENAI_USE_GCA", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_API_KEY")
SYSTEM_SETTINGS = {
    "linux": "/etc/gemini-cli/settings.json",
    "darwin": "/Library/Application Support/GeminiCli/settings.json",
    "win32": "C:\\ProgramData\\gemini-cli\\settings.json",
}


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
import_link = no_import_link


def cli_home(env: Env) -> Path:
    value = env.get("GEMINI_CLI_HOME")
    return env.as_given(value) if value else env.home  # no ~ expanded


def gemini_dir(env: Env) -> Path:
    return cli_home(env) / ".gemini"


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("settings", gemini_dir(env) / "settings.json", "jsonc"),
        ConfigFile("env", gemini_dir(env) / ".env", "dotenv-npm", secret=True),
    ]


def project_scope_files(env: Env) -> list[ConfigFile]:
    """``.gemini/settings.json`` and ``.gemini/.env`` in the current folder: Gemini CLI 0.61's
    ``loadSettings(process.cwd())`` reads ``<cwd>/.gemini/settings.json`` (``Storage.
    getWorkspaceSettingsPath``), and ``findEnvFile`` takes the nearest ``.gemini/.env`` walking up
    from the current folder before ``~/.gemini/.env`` (in a trusted folder)."""
    folder = env.cwd / ".gemini"
    return [
        ConfigFile("settings", folder / "settings.json", "jsonc"),
        ConfigFile("env", folder / ".env", "dotenv-npm", secret=True),
    ]


def _unreadable(settings: Document, env: Env) -> tuple[int, int, str] | None:
    """What in settings.json Gemini CLI cannot read (it strips comments, then ``JSON.parse``:
    no trailing comma, no byte-order mark; 0.61's bundle), where gwconf's JSONC reader reads on.
    Asked before any edit, so ``dump()`` is the file's text (its mark, which the reader takes
    off, is looked for in the file)."""
    if not settings.data():
        return None
    from gwconf.fileio import read_plain
    from gwconf.formats.json import strict_json_problem

    try:
        marked = read_plain(gemini_dir(env) / "settings.json")[:3] == b"\xef\xbb\xbf"
    except OSError:
        marked = False
    return (1, 1, "a byte-order mark") if marked else strict_json_problem(settings.dump())


STRICT = "Gemini CLI reads settings.json as JSON with comments only and refuses to start on it"


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    settings, dotenv = docs["settings"], docs["env"]
    problem = _unreadable(settings, env)
    if problem is not None:  # gwconf's keys would go into a file Gemini CLI does not start with
        line, column, what = problem
        raise ParseError(
            settings.source,
            f"{what}: {STRICT}",
            line,
            column,
            hint=f"Remove {what.replace('a ', 'the ', 1)}, then run gwconf again.",
        )
    settings.set(("security", "auth", "selectedType"), AUTH_TYPE)
    dotenv.set(("GOOGLE_GEMINI_BASE_URL",), target.base_url)
    dotenv.set(("GEMINI_API_KEY",), target.api_key)
    if target.model:
        dotenv.set(("GEMINI_MODEL",), target.model)
    notes = []
    exported = [name for name in MANAGED if env.get(name)]
    if exported:
        notes.append(
            f"{', '.join('$' + n for n in exported)} exported in this shell win over ~/.gemini/.env "
            "(unset them, or they keep pointing Gemini CLI elsewhere)"
        )
    if folder_trust_enabled(settings, env) and trusted(env, settings) is not True:
        notes.append(
            f"Gemini CLI reads ~/.gemini/.env only in folders it trusts; {display(env.cwd, env)} is not "
            "trusted yet: answer 'Trust folder' when Gemini CLI asks (or run `gemini --skip-trust`)"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    variables: dict[str, str | TempPath] = {
        "GEMINI_CLI_HOME": TempPath("home"),
        "GOOGLE_GEMINI_BASE_URL": target.base_url,
        "GEMINI_API_KEY": target.api_key,
    }
    if target.model:
        variables["GEMINI_MODEL"] = target.model
    return LaunchSpec(
        argv=["gemini", *args],
        env=variables,
        copies={"home/.gemini": gemini_dir(env)},
        render={"settings": "home/.gemini/settings.json", "env": "home/.gemini/.env"},
        beats_project=True,  # a .env never overrides an exported variable
    )


# -- reading ----------------------------------------------------------------------------------


def system_settings(env: Env) -> Document | None:
    path = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or SYSTEM_SETTINGS.get(
        env.platform, SYSTEM_SETTINGS["linux"]
    )
    return load_other(Path(path), "jsonc", env)


def project_settings(env: Env) -> Document | None:
    path = env.cwd / ".gemini" / "settings.json"
    if path == gemini_dir(env) / "settings.json":
        return None
    return load_other(path, "jsonc", env)


def folder_trust_enabled(settings: Document, env: Env) -> bool:
    """``security.folderTrust.enabled`` (default on); system settings override the user's."""
    value = settings.get(("security", "folderTrust", "enabled"), True)
    system = system_settings(env)
    if system is not None:
        value = system.get(("security", "folderTrust", "enabled"), value)
    return value is not False


def trusted(env: Env, settings: Document) -> bool | None:
    """Gemini CLI's trust decision for the current folder: True, False, or None (no rule: untrusted)."""
    flag = env.get("GEMINI_CLI_TRUST_WORKSPACE")
    if flag in ("true", "false"):
        return flag == "true"
    if not folder_trust_enabled(settings, env):
        return True
    rules_path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_dir(env) / "trustedFolders.json")
    rules = load_other(rules_path, "jsonc", env)
    data = rules.data() if rules is not None else {}
    best, verdict = -1, None
    here = env.cwd.resolve()
    for rule, level in (data or {}).items():
        if not isinstance(rule, str):
            continue
        folder = Path(rule).parent if level == "TRUST_PARENT" else Path(rule)
        try:
            inside = here == folder.resolve() or folder.resolve() in here.parents
        except OSError:
            continue
        if inside and len(rule) > best:
            best, verdict = len(rule), level
    if verdict == "DO_NOT_TRUST":
        return False
    if verdict in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True
    return None


def env_file(env: Env, settings: Document, is_trusted: bool) -> Path | None:
    """``findEnvFile``: the one .env Gemini CLI loads for the current folder."""
    home = cli_home(env)
    ignore_local = bool(settings.get(("advanced", "ignoreLocalEnv"), False))
    folder = env.cwd
    while True:
        if is_trusted and (folder / ".gemini" / ".env").is_file():
            return folder / ".gemini" / ".env"
        if (folder / ".env").is_file() and (not ignore_local or folder == home):
            return folder / ".env"
        if folder.parent == folder:
            break
        folder = folder.parent
    if is_trusted and (home / ".gemini" / ".env").is_file():
        return home / ".gemini" / ".env"
    if (home / ".env").is_file():
        return home / ".env"
    return None


def read(docs: dict[str, Document], env: Env) -> Reading:
    settings, dotenv = docs["settings"], docs["env"]
    reading = Reading(wire=WIRE, auth_header="x-goog-api-key")
    f = reading.findings
    problem = _unreadable(settings, env)
    if problem is not None:
        line, column, what = problem
        f.append(
            Finding(
                "error",
                "files",
                f"{display(gemini_dir(env) / 'settings.json', env)}:{line}:{column}: {what}: {STRICT}.",
                f"remove {what.replace('a ', 'the ', 1)} there",
            )
        )
    ours = gemini_dir(env) / ".env"
    verdict = trusted(env, settings)
    # What a trusted folder gets; the trust finding below says when the current folder is not one.
    loaded = env_file(env, settings, True)
    if loaded is None or loaded == ours:
        file_values = dotenv.data() or {}
    else:
        other = load_other(loaded, "dotenv-npm", env)
        file_values = (other.data() if other is not None else None) or {}
        shadowed = [n for n in MANAGED if dotenv.get((n,), None)]
        if shadowed:
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{display(loaded, env)} is the .env Gemini CLI loads here: it shadows ~/.gemini/.env "
                    f"({', '.join(shadowed)} there are ignored; Gemini CLI reads only one .env).",
                    f"copy those lines into {display(loaded, env)}, or work outside this folder",
                )
            )
    origin_file = display(loaded, env) if loaded else "~/.gemini/.env"

    def value(name: str) -> tuple[str | None, str]:
        if env.get(name):
            return env.get(name), f"shell ${name}"
        got = file_values.get(name)
        return (got, f"{origin_file} {name}") if got else (None, "")

    base, _ = value("GOOGLE_GEMINI_BASE_URL")
    reading.base_url = base or urls.OFFICIAL_GEMINI_BASE
    reading.api_key, reading.key_origin = value("GEMINI_API_KEY")
    if not reading.api_key:
        reading.key_origin = f"{origin_file} GEMINI_API_KEY (not set)"
    model, _ = value("GEMINI_MODEL")
    layered = [settings, project_settings(env) if verdict is not False else None, system_settings(env)]
    selected = enforced = settings_model = None
    for doc in layered:  # user < project < system (system settings override)
        if doc is None:
            continue
        selected = doc.get(("security", "auth", "selectedType"), None) or selected
        settings_model = doc.get(("model", "name"), None) or settings_model
        enforced = doc.get(("security", "auth", "enforcedType"), None) or enforced
    reading.model = model or settings_model  # GEMINI_MODEL beats model.name
    if model and settings_model and model != settings_model:
        f.append(
            Finding(
                "info",
                "other",
                f'GEMINI_MODEL ("{model}") wins over model.name ("{settings_model}") in settings.json: a model '
                "picked with /model does not stick while GEMINI_MODEL is set.",
                "gwconf apply gemini-cli --model NAME",
            )
        )
    reading.provider = selected or "(auth type not chosen)"
    at_gateway = bool(base) and not urls.is_vendor_host(urls.host_of(base))
    reading.provider_is_gwconf = selected == AUTH_TYPE and at_gateway
    if selected != AUTH_TYPE:
        f.append(
            Finding(
                "error",
                "provider",
                f"security.auth.selectedType is {f'{selected!r}' if selected else 'not set'}, not "
                f'"{AUTH_TYPE}": Gemini CLI '
                + (
                    "uses the Google login."
                    if selected == "oauth-personal"
                    else "does not use the key and address."
                )
                + (
                    " (A project .gemini/settings.json or the system settings may set it.)"
                    if selected
                    else ""
                ),
                "gwconf apply gemini-cli",
            )
        )
    if enforced and enforced != AUTH_TYPE:
        f.append(
            Finding(
                "error",
                "provider",
                f'the system settings enforce security.auth.enforcedType = "{enforced}": gwconf cannot switch '
                "the auth type.",
                "ask the administrator, or use another machine",
                administrator=True,
            )
        )
    if not at_gateway:
        f.append(
            Finding(
                "error",
                "base",
                "GOOGLE_GEMINI_BASE_URL is not set where Gemini CLI reads it: requests go to Google.",
                "gwconf apply gemini-cli",
            )
        )
    elif base and base.rstrip("/").endswith(("/v1", "/v1beta")):
        f.append(
            Finding(
                "error",
                "base",
                f"GOOGLE_GEMINI_BASE_URL ends in {base.rstrip('/').rsplit('/', 1)[1]}: Gemini CLI appends "
                "/v1beta/models/... itself (404).",
                "gwconf apply gemini-cli",
            )
        )
    if verdict is not True:
        f.append(
            Finding(
                "warning",
                "override",
                f"{display(env.cwd, env)} is "
                + ("marked 'do not trust'" if verdict is False else "not a folder Gemini CLI trusts")
                + ": there ~/.gemini/.env is not read (no gateway address; the key only from ~/.env).",
                "trust the folder when Gemini CLI asks, or run `gemini --skip-trust` "
                "(GEMINI_CLI_TRUST_WORKSPACE=true)",
            )
        )
    for name in MANAGED:
        if env.get(name) and dotenv.get((name,), None) and env.get(name) != dotenv.get((name,), None):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is exported in this shell and wins over ~/.gemini/.env (they differ).",
                    f"unset {name}",
                )
            )
    f += env_override_findings(env, AUTH_SWITCHES, "it redirects Gemini CLI's authentication")
    return reading


def doctor(docs: dict[str, Document], env: Env, reading: Reading) -> list[Finding]:
    """Variables that change how the key is sent or which auth type the /auth dialog offers."""
    found = []
    if env.get("GEMINI_API_KEY_AUTH_MECHANISM") == "bearer":
        found.append(
            Finding(
                "info",
                "key",
                "GEMINI_API_KEY_AUTH_MECHANISM=bearer: Gemini CLI sends the key as x-goog-api-key and as "
                "Authorization: Bearer.",
            )
        )
    if env.get("GEMINI_DEFAULT_AUTH_TYPE") not in (None, AUTH_TYPE):
        found.append(
            Finding(
                "warning",
                "provider",
                f"$GEMINI_DEFAULT_AUTH_TYPE is {env.get('GEMINI_DEFAULT_AUTH_TYPE')!r}: the /auth dialog "
                "preselects that type.",
                "unset GEMINI_DEFAULT_AUTH_TYPE",
            )
        )
    return found
