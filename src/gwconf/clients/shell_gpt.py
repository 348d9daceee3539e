"""shell-gpt (``sgpt``): ``~/.config/shell_gpt/.sgptrc`` (``KEY=value`` lines).

Docs: https://github.com/TheR1D/shell_gpt#runtime-configuration-file ; checked against shell-gpt
1.5.1 (run against a test gateway, and ``sgpt/config.py`` /
``sgpt/handlers/handler.py`` at 1.5.1). The path is fixed (``~`` expanded, no XDG, the same on
Windows). Managed keys: ``API_BASE_URL``, ``OPENAI_API_KEY``, ``DEFAULT_MODEL`` (and
``USE_LITELLM`` back to ``false`` when it was ``true``: litellm cannot route a bare gateway model
name). sgpt's own reader is not a dotenv parser: it splits each non-``#`` line at the first ``=``
and keeps quotes and trailing comments as part of the value, and any variable of the same name in
the environment wins over the file. ``read`` follows exactly that.

``gwconf run shell-gpt`` sets those variables for one run. sgpt writes its defaults, taken from
the environment, into a missing .sgptrc or for keys the file lacks (``Config.__init__``): when that
would put this launch's ``API_BASE_URL``, ``DEFAULT_MODEL`` or ``USE_LITELLM`` into the user's
file, the launch is refused.
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
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, fresh_document
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.paths import Env

ID = "shell-gpt"
NAME = "shell-gpt"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("sgpt",)
DOCS = "https://github.com/TheR1D/shell_gpt#runtime-configuration-file"
RESTART = (
    "sgpt reads .sgptrc on every run: nothing to restart. An OPENAI_API_KEY, API_BASE_URL or DEFAULT_MODEL "
    "exported in your shell still wins over the file; sgpt may answer a repeated prompt from its cache "
    "(use --no-cache to test)."
)
RESTAMPED: tuple[str, ...] = ()

MANAGED = ("API_BASE_URL", "OPENAI_API_KEY", "DEFAULT_MODEL")
# sgpt 1.5.1 DEFAULT_CONFIG (the PyPI release's sgpt/config.py): when the file lacks any of these,
# sgpt rewrites it whole (comments lost)
DEFAULT_KEYS = (
    "CHAT_CACHE_PATH",
    "CACHE_PATH",
    "CHAT_CACHE_LENGTH",
    "CACHE_LENGTH",
    "REQUEST_TIMEOUT",
    "DEFAULT_MODEL",
    "DEFAULT_COLOR",
    "ROLE_STORAGE_PATH",
    "DEFAULT_EXECUTE_SHELL_CMD",
    "DISABLE_STREAMING",
    "CODE_THEME",
    "OPENAI_FUNCTIONS_PATH",
    "OPENAI_USE_FUNCTIONS",
    "SHOW_FUNCTIONS_OUTPUT",
    "API_BASE_URL",
    "PRETTIFY_MARKDOWN",
    "USE_LITELLM",
    "SHELL_INTERACTION",
    "OS_NAME",
    "SHELL_NAME",
)


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def config_path(env: Env) -> Path:
    return env.home / ".config" / "shell_gpt" / ".sgptrc"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("config", config_path(env), "dotenv", secret=True)]


def sgpt_view(text: str) -> dict[str, str]:
    """The file as sgpt reads it: ``line.strip().split("=", 1)`` for every non-``#`` line."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#") and "=" in line:
            key, value = line.strip().split("=", 1)
            values[key] = value
    return values


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    doc = docs["config"]
    if not target.model:
        raise ClientError(
            "shell-gpt needs a model name for DEFAULT_MODEL (its built-in default is an OpenAI model).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    notes: list[str] = []
    raw = sgpt_view(doc.dump())
    wanted = {
        "API_BASE_URL": target.base_url,
        "OPENAI_API_KEY": target.api_key,
        "DEFAULT_MODEL": target.model,
    }
    for name, value in wanted.items():
        parsed = doc.get((name,), None)
        if parsed is not None and raw.get(name) != parsed:
            # quoted or commented: sgpt would send the quotes too. The value goes in bare where
            # it stands (a restore then puts the quotes back there), or, a comment after it, on
            # a line of its own at the end.
            doc.put_back((name,), value, value)
            if sgpt_view(doc.dump()).get(name) != value:
                doc.delete((name,))
                doc.set((name,), value)
            notes.append(f"rewrote {name} without quotes or comment (sgpt reads them as part of the value)")
        else:
            doc.set((name,), value)
    if raw.get("USE_LITELLM", "").strip() == "true":
        doc.set(("USE_LITELLM",), "false")
        notes.append("set USE_LITELLM=false (through litellm a bare gateway model name is not routed)")
    missing = [k for k in DEFAULT_KEYS if k not in raw and k not in wanted]
    if missing and any(line.lstrip().startswith("#") for line in doc.dump().splitlines()):
        notes.append(
            f"sgpt rewrites .sgptrc on its next run to add {len(missing)} missing default keys, dropping its "
            "comments (the values gwconf wrote stay)"
        )
    return notes


LAUNCH_VARS = ("API_BASE_URL", "DEFAULT_MODEL", "USE_LITELLM")  # set by a launch; sgpt defaults them from env


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    path = config_path(env)
    try:
        present = sgpt_view(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        present = None
    if present is None or any(k not in present for k in LAUNCH_VARS):
        raise ClientError(
            f"shell-gpt writes its missing settings into {shown(path, env)} from the environment when it "
            "starts: this launch's address and model would end up in that file.",
            "Run `sgpt` once by itself (it completes the file), then try again; or: gwconf apply shell-gpt",
        )
    doc = fresh_document("dotenv", ".sgptrc")
    render({"config": doc}, target, env)
    return LaunchSpec(argv=["sgpt", *args], env={**doc.data(), "USE_LITELLM": "false"})


def read(docs: dict[str, Document], env: Env) -> Reading:
    doc = docs["config"]
    raw = sgpt_view(doc.dump())
    where = shown(config_path(env), env)
    reading = Reading(wire=WIRE)

    def value(name: str) -> tuple[str | None, str]:
        if env.get(name):
            return env.get(name), f"${name}"
        return raw.get(name) or None, f"{where} {name}"

    base, base_origin = value("API_BASE_URL")
    if base in (None, "default"):
        base = env.get("OPENAI_BASE_URL") or urls.OFFICIAL_OPENAI_BASE
        base_origin = (
            "$OPENAI_BASE_URL (API_BASE_URL=default)" if env.get("OPENAI_BASE_URL") else "SDK default"
        )
    reading.base_url = base
    reading.api_key, reading.key_origin = value("OPENAI_API_KEY")
    reading.model, _ = value("DEFAULT_MODEL")
    litellm = (value("USE_LITELLM")[0] or "false").strip() == "true"
    reading.provider = "litellm" if litellm else "openai SDK"
    reading.provider_is_gwconf = not litellm and base_origin.endswith("API_BASE_URL")
    f = reading.findings
    for name in (*MANAGED, "USE_LITELLM"):
        if env.get(name) and raw.get(name) not in (None, env.get(name)):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is set in this shell and sgpt prefers it over {where}.",
                    f"unset {name}  (or remove it from your shell start-up files)",
                )
            )
    if base_origin == "SDK default":
        f.append(
            Finding(
                "error",
                "base",
                f"API_BASE_URL is missing or 'default' in {where} and OPENAI_BASE_URL is not set: sgpt calls OpenAI.",
                "gwconf apply shell-gpt",
            )
        )
    if litellm:
        f.append(
            Finding(
                "error",
                "provider",
                "USE_LITELLM=true: sgpt goes through litellm, which cannot route a bare gateway model name.",
                "gwconf apply shell-gpt",
            )
        )
    parsed = doc.data() if isinstance(doc.data(), dict) else {}
    for name in MANAGED:
        if name in raw and name in parsed and raw[name] != parsed[name]:
            f.append(
                Finding(
                    "error" if name != "DEFAULT_MODEL" else "warning",
                    "key" if name == "OPENAI_API_KEY" else "base",
                    f"{where}: {name} is quoted or carries a comment; sgpt sends those characters as well.",
                    "gwconf apply shell-gpt  (rewrites the line plainly)",
                )
            )
        elif name in raw and raw[name] != raw[name].strip():
            f.append(
                Finding("warning", "other", f"{where}: {name} has blanks around its value; sgpt keeps them.")
            )
    if any(line.startswith("export ") for line in doc.dump().splitlines()):
        f.append(
            Finding(
                "warning",
                "other",
                f"{where} has `export NAME=` lines: sgpt reads them as a key named 'export NAME' and ignores them.",
                "remove the word export from those lines",
            )
        )
    return reading
