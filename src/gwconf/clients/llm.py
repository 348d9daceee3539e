"""llm (Simon Willison's): ``extra-openai-models.yaml`` + ``keys.json`` + ``default_model.txt``
in llm's user folder.

Docs: https://llm.datasette.io/en/stable/other-models.html#openai-compatible-models ; checked
against llm 0.36 (run against a test gateway, and ``llm/__init__.py``
``user_dir``/``get_key``, ``llm/default_plugins/openai_models.py``). The user folder is
``$LLM_USER_PATH``, else ``click.get_app_dir("io.datasette.llm")``: ``$XDG_CONFIG_HOME`` (or
``~/.config``) on Linux, ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows.
gwconf owns the ``extra-openai-models.yaml`` entry whose ``api_key_name`` is ``gwconf``
(``model_id``, ``model_name``, ``api_base``), the ``gwconf`` key in ``keys.json`` (without
``api_key_name`` llm sends ``Bearer DUMMY_KEY`` to a custom ``api_base``) and the default model.
``gwconf run llm`` points ``LLM_USER_PATH`` at a temporary stand-in for the user folder (its entries
linked, so logs.db keeps recording; the three files as ``render()`` edits them).
"""

from __future__ import annotations

from pathlib import Path

from gwconf import urls
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    as_list,
    default_detect_for,
    default_target_for,
    no_doctor,
    no_import_link,
    no_preflight,
    no_project_scope_files,
    no_steps,
    shown,
)
from gwconf.clients._launch_types import LaunchSpec, TempPath
from gwconf.errors import ClientError
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

ID = "llm"
NAME = "llm"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("llm",)
DOCS = "https://llm.datasette.io/en/stable/other-models.html#openai-compatible-models"
RESTART = (
    "llm reads its files on every run: nothing to restart (`llm -m <model>` or $LLM_MODEL still pick "
    "another model than the default)."
)
RESTAMPED: tuple[str, ...] = ()

KEY_NAME = "gwconf"
KEYS_NOTE = ("// Note", "This file stores secret API credentials. Do not share!")
LLM_DEFAULT_MODEL = "gpt-5.6-luna"  # llm 0.36 DEFAULT_MODEL, without default_model.txt


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def user_dir(env: Env) -> Path:
    """Where llm keeps its files, computed the way ``llm.user_dir()`` does."""
    moved = env.get("LLM_USER_PATH")
    if moved:
        return env.as_given(moved)  # llm takes it as it is: no ~
    if env.platform == "win32":  # click.get_app_dir(roaming=True)
        appdata = env.get("APPDATA")
        return (Path(appdata) if appdata else env.home) / "io.datasette.llm"
    if env.platform == "darwin":
        return env.home / "Library" / "Application Support" / "io.datasette.llm"
    return env.xdg_config_home / "io.datasette.llm"


def files(env: Env) -> list[ConfigFile]:
    folder = user_dir(env)
    return [
        ConfigFile("models", folder / "extra-openai-models.yaml", "yaml"),
        ConfigFile("keys", folder / "keys.json", "json", secret=True, strict=True, key_store=True),
        ConfigFile("default", folder / "default_model.txt", "text"),
    ]


def _entries(models: Document) -> list[Any]:
    data = models.data()
    if data in (None, {}):
        return []
    if not isinstance(data, list):
        raise ClientError(
            f"{models.source} is not a YAML list of models, so llm cannot read it either.",
            "Make it a list of `- model_id: ...` entries (or move it aside), then run gwconf again.",
        )
    return data


def find_entry(entries: list[Any]) -> int | None:
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("api_key_name") == KEY_NAME:
            return index
    return None


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    models, keys, default = docs["models"], docs["keys"], docs["default"]
    if not target.model:
        raise ClientError(
            "llm needs a model id for gwconf's entry in extra-openai-models.yaml.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    entries = _entries(models)
    index = find_entry(entries)
    entry = {
        "model_id": target.model,
        "model_name": target.model,
        "api_base": target.base_url,
        "api_key_name": KEY_NAME,
    }
    if index is None and not entries:
        models.set((), [entry])  # a new or empty file becomes the list llm expects
    elif index is None:
        models.append((), entry)
    else:
        for key, value in entry.items():
            models.set((index, key), value)
    if not keys.data():
        keys.set((KEYS_NOTE[0],), KEYS_NOTE[1])
    keys.set((KEY_NAME,), target.api_key)
    default.set((), target.model)
    notes = []
    others = [e for e in entries if isinstance(e, dict) and e.get("model_id") == target.model]
    if others and (index is None or len(others) > 1):
        notes.append(f"another entry in extra-openai-models.yaml also has model_id {target.model!r}")
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    return LaunchSpec(
        argv=["llm", *args],
        env={"LLM_USER_PATH": TempPath("llm")},
        unset=("LLM_MODEL",),  # it would win over the default model
        copies={"llm": user_dir(env)},
        render={
            "models": "llm/extra-openai-models.yaml",
            "keys": "llm/keys.json",
            "default": "llm/default_model.txt",
        },
    )


def read(docs: dict[str, Document], env: Env) -> Reading:
    models, keys, default = docs["models"], docs["keys"], docs["default"]
    folder = user_dir(env)
    reading = Reading(wire=WIRE)
    f = reading.findings
    stored = keys.data() if isinstance(keys.data(), dict) else {}
    try:
        entries = _entries(models)
    except ClientError as exc:
        f.append(Finding("error", "other", exc.message, exc.hint))
        entries = []
    chosen = env.get("LLM_MODEL") or default.get((), None) or LLM_DEFAULT_MODEL
    if env.get("LLM_MODEL"):
        f.append(
            Finding(
                "warning",
                "override",
                f"$LLM_MODEL={chosen} selects the model instead of default_model.txt.",
                "unset LLM_MODEL",
            )
        )
    reading.model = chosen
    entry = None
    for candidate in entries:  # later registrations win in llm's alias table
        if isinstance(candidate, dict) and (
            candidate.get("model_id") == chosen or chosen in as_list(candidate.get("aliases"))
        ):
            entry = candidate
    if entry is None:
        reading.provider = f"built-in OpenAI model {chosen!r}"
        reading.base_url = env.get("OPENAI_BASE_URL") or urls.OFFICIAL_OPENAI_BASE
        reading.api_key, reading.key_origin = _key(stored, "openai", env, folder)
        f.append(
            Finding(
                "error",
                "provider",
                f"the default model {chosen!r} is not gwconf's entry in extra-openai-models.yaml: llm calls OpenAI.",
                "gwconf apply llm",
            )
        )
        return reading
    reading.model = entry.get("model_name") or entry.get("model_id")
    reading.provider = f"extra-openai-models.yaml {entry.get('model_id')!r}"
    reading.provider_is_gwconf = entry.get("api_key_name") == KEY_NAME
    if entry.get("responses"):
        reading.wire = "responses"
        f.append(
            Finding(
                "warning", "provider", f"{entry.get('model_id')!r} has responses: true (the Responses API)."
            )
        )
    reading.base_url = entry.get("api_base") or env.get("OPENAI_BASE_URL") or urls.OFFICIAL_OPENAI_BASE
    name = entry.get("api_key_name")
    if name and not isinstance(name, str):  # a list or an object: no key name llm can look up
        f.append(
            Finding(
                "error", "key", "api_key_name is not text: llm cannot look the key up.", "gwconf apply llm"
            )
        )
        name = None
    if name:
        reading.api_key, reading.key_origin = _key(stored, str(name), env, folder)
        if name not in stored:
            f.append(
                Finding(
                    "error" if not reading.api_key else "warning",
                    "key",
                    f"keys.json has no {name!r} key: llm falls back to $OPENAI_API_KEY.",
                    f"llm keys set {name}  (or: gwconf apply llm)",
                )
            )
    elif entry.get("api_base"):
        reading.api_key, reading.key_origin = "DUMMY_KEY", "llm's placeholder (no api_key_name)"
        f.append(
            Finding(
                "error",
                "key",
                f"{entry.get('model_id')!r} has api_base but no api_key_name: llm sends `Bearer DUMMY_KEY`.",
                "gwconf apply llm",
            )
        )
    else:
        reading.api_key, reading.key_origin = _key(stored, "openai", env, folder)
    return reading


def _key(stored: dict[str, Any], name: str, env: Env, folder: Path) -> tuple[str | None, str]:
    """``llm.get_key``: the stored alias first, then ``$OPENAI_API_KEY``."""
    if isinstance(stored.get(name), str):
        return stored[name], f"{shown(folder / 'keys.json', env)} {name}"
    if env.get("OPENAI_API_KEY"):
        return env.get("OPENAI_API_KEY"), "$OPENAI_API_KEY"
    return None, f"{shown(folder / 'keys.json', env)} {name} (missing)"
