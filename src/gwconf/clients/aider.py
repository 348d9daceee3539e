"""Aider: ``~/.aider.conf.yml`` (YAML; the same under ``%USERPROFILE%`` on Windows).

Docs: https://aider.chat/docs/config/aider_conf.html and /docs/llms/openai-compat.html ; checked
against aider-chat 0.86.2 (run against a test gateway, and ``aider/main.py``,
``aider/args.py`` at 0.86.3.dev). Managed keys: ``openai-api-base``, ``openai-api-key`` and
``model: openai/<model>`` (the ``openai/`` prefix sends litellm down its OpenAI-compatible route).
When the model's limits are known (profile or gateway, limits.py), the entry ``openai/<model>`` of
``~/.aider.model.metadata.json`` in litellm's shape (``max_input_tokens``, ``max_output_tokens``,
``max_tokens``, zero costs, ``litellm_provider: openai``, ``mode: chat``; aider 0.86.2
``aider/models.py`` ``ModelInfoManager``/``register_litellm_models`` reads it from the home folder,
the git root and the current folder, as JSON5: comments and trailing commas stay); unknown,
nothing is written there.

Aider's own precedence, which ``read`` follows: ``.aider.conf.yml`` in the home folder, then the
git root, then the current folder (closer wins); ``AIDER_*`` variables win over every file;
``.env`` files (home, git root, current folder) are loaded with override=True, so they beat the
shell. ``openai-api-key`` / ``openai-api-base`` are then copied into ``OPENAI_API_KEY`` /
``OPENAI_API_BASE``, and litellm prefers ``OPENAI_BASE_URL`` over ``OPENAI_API_BASE``: an
``OPENAI_BASE_URL`` in the shell or a ``.env`` wins over the YAML's base address.

``gwconf run aider`` passes the model and address as ``--model`` / ``--openai-api-base`` (flags beat
every file and variable) and the key as ``AIDER_OPENAI_API_KEY`` (not on the command line, where
other users could see it), plus the ``OPENAI_*`` names litellm reads, in the environment and in a
temporary ``--env-file``: aider loads that file after the user's ``.env`` files, all with
override=True, so a key or address in theirs no longer wins.
"""

from __future__ import annotations

from pathlib import Path

from gwconf import formats, urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_list,
    default_target_for,
    get_str,
    no_doctor,
    no_import_link,
    no_preflight,
    no_steps,
    project_folder,
    project_root,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath, fresh_document
from gwconf.errors import ClientError, GwconfError
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "aider"
NAME = "Aider"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("aider",)
DOCS = "https://aider.chat/docs/config/aider_conf.html"
RESTART = (
    "Start a new aider session; a running one keeps the old settings. A .aider.conf.yml or .env in the "
    "project (git root or current folder) still wins over your home file."
)
RESTAMPED: tuple[str, ...] = ()

CONF = ".aider.conf.yml"
PREFIX = "openai/"
METADATA = ".aider.model.metadata.json"  # litellm's model metadata, read from home, git root, cwd


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
import_link = no_import_link


def files(env: Env) -> list[ConfigFile]:
    return [
        ConfigFile("config", env.home / CONF, "yaml", secret=True),
        # JSON5: aider reads it with ``json5.loads`` (``register_litellm_models``, since 0.63.0), and
        # users comment out keys in it (seen in dotfiles): strict JSON refused those files
        ConfigFile("metadata", env.home / METADATA, "json5"),
    ]


def project_scope_files(env: Env) -> list[ConfigFile]:
    """``.aider.conf.yml`` at the git root (else the current folder): aider's ``main()`` reads it
    from the current folder, the git root and the home folder, the nearest winning."""
    return [ConfigFile("config", project_folder(env) / CONF, "yaml", secret=True)]


def detect(env: Env) -> bool:
    """The program, its home file, or ``~/.aider/`` (caches, analytics): not just "a home folder exists"."""
    return bool(env.which("aider")) or (env.home / CONF).exists() or (env.home / ".aider").is_dir()


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    config = docs["config"]
    if not target.model:
        raise ClientError(
            "Aider needs a model name (without one it picks an OpenAI or Anthropic default by itself).",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    model = target.model if target.model.startswith(PREFIX) else PREFIX + target.model
    config.set(("openai-api-base",), target.base_url)
    config.set(("openai-api-key",), target.api_key)
    config.set(("model",), model)
    limits = target.limits
    if limits.known and "metadata" in docs:
        # litellm's entry shape (aider loads it over litellm's own list): with it aider knows the
        # window and prints no "Unknown context window size and costs"; unknown, nothing is written
        entry: dict[str, Any] = {}
        if limits.context_window:
            entry["max_input_tokens"] = limits.context_window
        if limits.max_output_tokens:
            entry["max_output_tokens"] = entry["max_tokens"] = limits.max_output_tokens
        entry.update(input_cost_per_token=0, output_cost_per_token=0, litellm_provider="openai", mode="chat")
        docs["metadata"].set((model,), entry)
    return []


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    config = fresh_document("yaml", CONF)
    render({"config": config}, target, env)  # the same model check and openai/ prefix
    base = target.base_url
    variables = {
        "AIDER_OPENAI_API_KEY": target.api_key,
        "OPENAI_API_KEY": target.api_key,
        "OPENAI_API_BASE": base,
        "OPENAI_BASE_URL": base,
    }
    # aider loads every .env (home, git root, current folder) with override=True, then the one
    # --env-file names, last: that one holds the launch's variables, so a .env's cannot win
    env_file = fresh_document("dotenv", LAUNCH_ENV)
    for name, value in variables.items():
        env_file.set((name,), value)
    return LaunchSpec(
        argv=[
            "aider",
            "--model",
            config.get(("model",)),
            "--openai-api-base",
            base,
            "--env-file",
            TempPath(LAUNCH_ENV),
            *args,
        ],
        env=dict(variables),
        files={LAUNCH_ENV: env_file.dump()},
        beats_project=True,  # options win over every .aider.conf.yml and .env (command line first)
    )


LAUNCH_ENV = "aider.env"


# -- read: aider's precedence ---------------------------------------------------------------------


def _peek(path: Path, fmt: str) -> tuple[Document | None, str | None]:
    """Another file aider reads (never written): its document, or why it could not be read."""
    from gwconf.fileio import read_plain

    try:
        raw = read_plain(path)
    except OSError:
        return None, None
    try:
        text, _ = formats.decode(raw, str(path))
        return formats.load(fmt, text, str(path)), None
    except GwconfError as exc:
        return None, exc.message


def _layers(env: Env, home_doc: Document) -> list[tuple[Path, Any]]:
    """Config files in load order (later wins): home, git root, current folder."""
    home_path = env.home / CONF
    layers: list[tuple[Path, Any]] = [(home_path, home_doc.data())]
    root = project_root(env)
    for folder in ([root] if root else []) + [env.cwd]:
        path = folder / CONF
        if path == home_path or any(p == path for p, _ in layers):
            continue
        doc, _ = _peek(path, "yaml")
        if doc is not None:
            layers.append((path, doc.data()))
    return layers


def _dotenv_files(env: Env) -> list[Path]:
    """The .env files aider loads, each over the ones before (0.86.2 ``load_dotenv_files``): the
    search list is home, git root, cwd, then ``--env-file`` (the git root's by default), each kept
    at its last place, so the git root's comes after the current folder's and wins over it."""
    root = project_root(env)
    found: list[Path] = [env.home / ".env"]
    found += [root / ".env"] if root else []
    found += [env.cwd / ".env", (root or env.cwd) / ".env"]
    unique: list[Path] = []
    for path in reversed(found):  # the last place of each
        if path not in unique:
            unique.insert(0, path)
    oauth = env.home / ".aider" / "oauth-keys.env"
    return [oauth, *(path for path in unique if path != oauth)]


def read(docs: dict[str, Document], env: Env) -> Reading:
    config = docs["config"]
    reading = Reading(wire=WIRE)
    f = reading.findings
    # The environment aider ends up with: the shell, then every .env with override=True.
    environ: dict[str, str] = {k: v for k, v in env.environ.items() if v}
    origin: dict[str, str] = {k: f"${k}" for k in environ}
    dotenv_labels: set[str] = set()
    for path in _dotenv_files(env):
        doc, problem = _peek(path, "dotenv")
        if problem:
            f.append(Finding("warning", "files", f"cannot read {shown(path, env)}: {problem}"))
        if doc is None:
            continue
        label = shown(path, env)
        dotenv_labels.add(label)
        for name, value in (doc.data() or {}).items():
            if value:
                environ[name], origin[name] = value, label
    # Options: conf files (closer wins), then AIDER_* variables.
    options: dict[str, Any] = {}
    where: dict[str, str] = {}
    layers = _layers(env, config)
    for path, data in layers:
        if not isinstance(data, dict):
            continue
        for key in ("model", "openai-api-key", "openai-api-base", "api-key", "set-env"):
            if data.get(key) not in (None, ""):
                options[key], where[key] = data[key], f"{shown(path, env)} {key}"
        if path != env.home / CONF and any(k in data for k in ("model", "openai-api-key", "openai-api-base")):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"{shown(path, env)} sets {', '.join(k for k in ('model', 'openai-api-key', 'openai-api-base') if k in data)}"
                    " and wins over ~/.aider.conf.yml in this folder.",
                    f"remove those keys from {shown(path, env)} (or run aider elsewhere)",
                )
            )
    for key, var in (("model", "AIDER_MODEL"), ("openai-api-key", "AIDER_OPENAI_API_KEY")):
        if environ.get(var):
            options[key], where[key] = environ[var], origin[var]
    if environ.get("AIDER_OPENAI_API_BASE"):
        options["openai-api-base"] = environ["AIDER_OPENAI_API_BASE"]
        where["openai-api-base"] = origin["AIDER_OPENAI_API_BASE"]
    # What main() then does to the environment, and what litellm reads from it: set-env's
    # NAME=value first (aider 0.86 main.py; an OPENAI_BASE_URL there beats openai-api-base,
    # which status missed: found by the round's sweep), then api-key, then the openai-* options.
    settings = options.get("set-env")
    for item in [settings] if isinstance(settings, str) else as_list(settings):
        name, sep, value = str(item).partition("=")
        if sep and name.strip():
            if value.strip():
                environ[name.strip()], origin[name.strip()] = value.strip(), where["set-env"]
            else:  # set empty: litellm reads "" as not set
                environ.pop(name.strip(), None)
    pairs = options.get("api-key")  # a list in the YAML, or one "provider=key" as text
    for item in [pairs] if isinstance(pairs, str) else as_list(pairs):
        provider, _, value = str(item).partition("=")
        if provider.strip().lower() == "openai" and value:
            environ["OPENAI_API_KEY"], origin["OPENAI_API_KEY"] = value.strip(), where["api-key"]
    if options.get("openai-api-key"):
        environ["OPENAI_API_KEY"] = str(options["openai-api-key"])
        origin["OPENAI_API_KEY"] = where["openai-api-key"]
    if options.get("openai-api-base"):
        environ["OPENAI_API_BASE"] = str(options["openai-api-base"])
        origin["OPENAI_API_BASE"] = where["openai-api-base"]
    if environ.get("OPENAI_BASE_URL"):
        reading.base_url = environ["OPENAI_BASE_URL"]
        if environ.get("OPENAI_API_BASE") and environ["OPENAI_API_BASE"] != reading.base_url:
            f.append(
                Finding(
                    "error",
                    "base",
                    f"OPENAI_BASE_URL ({origin['OPENAI_BASE_URL']}) wins over openai-api-base in aider "
                    "(litellm reads it first).",
                    f"unset OPENAI_BASE_URL, or remove it from {origin['OPENAI_BASE_URL']}",
                )
            )
    else:
        reading.base_url = environ.get("OPENAI_API_BASE") or urls.OFFICIAL_OPENAI_BASE
    reading.api_key = environ.get("OPENAI_API_KEY")
    reading.key_origin = origin.get("OPENAI_API_KEY", "")
    base_from = origin.get("OPENAI_BASE_URL" if environ.get("OPENAI_BASE_URL") else "OPENAI_API_BASE", "")
    for what, came_from in (
        ("key", reading.key_origin),
        ("base address", base_from),
        ("model", where.get("model", "")),
    ):
        if came_from in dotenv_labels:
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"the {what} comes from {came_from}, a .env aider loads over your shell and ~/.aider.conf.yml.",
                    f"remove it from {came_from}",
                )
            )
        elif came_from.startswith("$AIDER_"):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"the {what} comes from {came_from} in this shell, which wins over ~/.aider.conf.yml.",
                    f"unset {came_from[1:]}  (or remove it from your shell start-up files)",
                )
            )
    model = options.get("model")
    model = str(model) if model is not None else None
    if model and model.startswith(PREFIX):
        reading.model = model[len(PREFIX) :]
        reading.provider = "openai-compatible (litellm openai/ route)"
        reading.provider_is_gwconf = True
    else:
        reading.model = model
        reading.provider = f"litellm's own routing for {model!r}" if model else "aider's default model"
        f.append(
            Finding(
                "error",
                "provider",
                f"model {model!r} has no openai/ prefix: litellm may send it to its vendor instead of the base address."
                if model
                else "no model is set: aider picks a vendor default from the keys it finds.",
                "gwconf apply aider",
            )
        )
    if get_str(config, ("weak-model",)) or get_str(config, ("editor-model",)):
        f.append(
            Finding(
                "info",
                "other",
                "~/.aider.conf.yml also names a weak-model / editor-model: the gateway must serve those too.",
            )
        )
    return reading
