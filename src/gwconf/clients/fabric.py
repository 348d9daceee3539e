"""fabric: ``~/.config/fabric/.env`` (godotenv), through its ``LiteLLM`` vendor.

Docs: https://github.com/danielmiessler/fabric#environment-variables ; checked against fabric
v1.4.261 source (``internal/cli/initialization.go``,
``internal/plugins/ai/openai/openai.go``, ``openai_compatible/providers_config.go``). The folder is
``os.UserHomeDir()/.config/fabric`` on every OS. fabric's ``OpenAI`` vendor speaks the Responses
API only; its ``LiteLLM`` vendor is a plain OpenAI-compatible Chat Completions client with a
settable base address, which is what the gateway specifies (``POST {base}/chat/completions``), and
it leaves the user's own ``OPENAI_*`` vendor settings alone. Managed keys: ``DEFAULT_VENDOR``,
``DEFAULT_MODEL``, ``LITELLM_API_BASE_URL``, ``LITELLM_API_KEY`` (env names are
``<VENDOR>_<QUESTION>`` upper-cased). godotenv does not override variables already exported;
``fabric --setup`` rewrites the whole file from its settings (comments are lost, values kept).
``gwconf run fabric`` exports the same four names to fabric alone (exported values win).
"""

from __future__ import annotations

import re
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
from gwconf.lazyre import lazy
from gwconf.paths import Env

_MODEL_LINE = lazy(r"^model:\s*(\S.*?)\s*$", re.M)  # a pattern file's own model line

ID = "fabric"
NAME = "fabric"
FAMILY = "openai"
WIRE = "chat"
TIER = 1
BASE_FORM = "v1"
PROGRAMS = ("fabric",)
DOCS = "https://github.com/danielmiessler/fabric#environment-variables"
RESTART = (
    "fabric reads ~/.config/fabric/.env on every run: nothing to restart; a `fabric --serve` server must be "
    "restarted. Variables already exported in your shell win over the file."
)
RESTAMPED: tuple[str, ...] = ()

VENDOR = "LiteLLM"
PREFIX = "LITELLM_"
MANAGED = ("DEFAULT_VENDOR", "DEFAULT_MODEL", f"{PREFIX}API_BASE_URL", f"{PREFIX}API_KEY")
VENDOR_DEFAULT_BASE = "http://localhost:4000"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
detect = default_detect_for(__name__)
target = default_target_for(__name__)
preflight = no_preflight
steps = no_steps
doctor = no_doctor
project_scope_files = no_project_scope_files
import_link = no_import_link


def folder(env: Env) -> Path:
    return env.home / ".config" / "fabric"


def files(env: Env) -> list[ConfigFile]:
    return [ConfigFile("env", folder(env) / ".env", "dotenv", secret=True)]


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    doc = docs["env"]
    if not target.model:
        raise ClientError(
            "fabric needs a model name for DEFAULT_MODEL.",
            'Pass --model NAME, or add model = "..." to the profile.',
        )
    notes = []
    previous = doc.get(("DEFAULT_VENDOR",), None)
    doc.set(("DEFAULT_VENDOR",), VENDOR)
    doc.set(("DEFAULT_MODEL",), target.model)
    doc.set((f"{PREFIX}API_BASE_URL",), target.base_url)
    doc.set((f"{PREFIX}API_KEY",), target.api_key)
    if previous and previous != VENDOR:
        notes.append(
            f"default vendor {previous} -> {VENDOR} (fabric's OpenAI-compatible Chat Completions vendor); "
            f"your {previous} settings are kept"
        )
    return notes


def launch(target: Target, env: Env, args: list[str]) -> LaunchSpec:
    doc = fresh_document("dotenv", ".env")
    render({"env": doc}, target, env)
    return LaunchSpec(argv=["fabric", *args], env=dict(doc.data()))


def read(docs: dict[str, Document], env: Env) -> Reading:
    data = docs["env"].data()
    data = data if isinstance(data, dict) else {}
    where = shown(folder(env) / ".env", env)

    def value(name: str) -> tuple[str | None, str]:
        if env.get(name):  # godotenv.Load never overrides the environment
            return env.get(name), f"${name}"
        return data.get(name) or None, f"{where} {name}"

    config = folder(env) / "config.yaml"
    try:  # fabric's own settings, read once: its model line and disableResponsesAPI
        settings = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        settings = ""
    vendor, _ = value("DEFAULT_VENDOR")
    reading = Reading(wire=WIRE, provider=vendor or "(none)")
    reading.model, _ = value("DEFAULT_MODEL")
    f = reading.findings
    if vendor and vendor.lower() != "openai":
        prefix = "_".join(vendor.upper().split()) + "_"
        base, _ = value(f"{prefix}API_BASE_URL")
        reading.base_url = base or (VENDOR_DEFAULT_BASE if prefix == PREFIX else None)
        reading.api_key, reading.key_origin = value(f"{prefix}API_KEY")
        reading.provider_is_gwconf = prefix == PREFIX
    else:
        reading.base_url, _ = value("OPENAI_API_BASE_URL")
        reading.base_url = reading.base_url or urls.OFFICIAL_OPENAI_BASE
        reading.api_key, reading.key_origin = value("OPENAI_API_KEY")
        reading.wire = "responses"
        if vendor and _responses_disabled(settings):
            reading.wire = "chat"  # disableResponsesAPI (flags.go) keeps the vendor on Chat Completions
        else:
            f.append(
                Finding(
                    "error" if vendor else "warning",
                    "provider",
                    "fabric's OpenAI vendor uses the Responses API (POST /responses), not Chat Completions."
                    if vendor
                    else f"{where} sets no DEFAULT_VENDOR.",
                    "gwconf apply fabric  (switches to the LiteLLM vendor, an OpenAI-compatible chat client)",
                )
            )
    for name in MANAGED:
        if env.get(name) and data.get(name) not in (None, env.get(name)):
            f.append(
                Finding(
                    "warning",
                    "override",
                    f"${name} is exported in this shell and wins over {where} (godotenv does not override).",
                    f"unset {name}  (or remove it from your shell start-up files)",
                )
            )
    match = _MODEL_LINE.search(settings)
    if match:
        f.append(
            Finding(
                "warning",
                "override",
                f"{shown(config, env)} sets model: {match.group(1)}, which wins over DEFAULT_MODEL.",
                f"remove `model:` from {shown(config, env)}",
            )
        )
    return reading


def _responses_disabled(text: str) -> bool:
    """``disableResponsesAPI: true`` in fabric's config.yaml ``text`` (v1.4.261
    ``internal/cli/flags.go``): its OpenAI vendor then speaks Chat Completions."""
    return any(
        line.split("#", 1)[0].replace(" ", "").lower() == "disableresponsesapi:true"
        for line in text.splitlines()
    )
