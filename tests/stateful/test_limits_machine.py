"""A stateful model of the model's limits (issue 22): profiles with different limits, ``use``
rewrites them, the user's own model entries beside gwconf's stay untouched, restore takes gwconf's
limits back.

Five clients of four shapes share one HOME: Codex (a TOML top-level key, over the user's own value),
opencode (a JSON model entry beside the user's provider), Qwen Code (a JSONC list entry beside the
user's own entry with its own ``generationConfig``), Claude Code (an env block beside the user's
variables) and Cline (a ``models.json`` gwconf may create, beside the user's Ollama entry). The user
edits their own entries between gwconf's commands; after every step the files must say the limits
of the profile in effect (nothing when it has none) and hold the user's values.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.conftest import invoke
from tests.stateful.machine import fast_base, home_as

CLIENTS = ("codex", "opencode", "qwen-code", "claude-code", "cline")
MODEL = "gw-model"
# numbers nobody else writes: found in a file after restore, they can only be gwconf's
LIMITS: dict[str, tuple[int, int] | None] = {"big": (1048577, 65537), "small": (32001, 4001), "none": None}
CODEX = ".codex/config.toml"
OPENCODE = ".config/opencode/opencode.json"
QWEN = ".qwen/settings.json"
CLAUDE = ".claude/settings.json"
CLINE = ".cline/data/settings/models.json"
SEEDS = {
    CODEX: '# mine\nmodel_context_window = 8000  # my own window\n\n[model_providers.mine]\nname = "mine-0"\n',
    OPENCODE: json.dumps(
        {"provider": {"other": {"models": {"x": {"limit": {"context": 1000, "output": 100}}}}}}
    ),
    QWEN: '// mine\n{\n  "modelProviders": {\n    "openai": [\n      {"id": "local", "envKey": "MY_KEY",'
    ' "generationConfig": {"contextWindowSize": 4096, "samplingParams": {"temperature": 0.1}}}\n    ]\n  }\n}\n',
    CLAUDE: json.dumps({"env": {"CLAUDE_CODE_MAX_TURNS": "40"}}, indent=2) + "\n",
    CLINE: json.dumps(
        {"version": 1, "providers": {"ollama": {"models": {"qwen3": {"contextWindow": 32768}}}}}
    ),
}
STEPS = 8
EXAMPLES = int(os.environ.get("GWCONF_LIMITS_EXAMPLES", "20"))


def _strip_jsonc(text: str) -> Any:
    return json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))


# where each file keeps the user's own value, read and written as the user's editor would
def _user_value(rel: str, text: str) -> Any:
    if rel == CODEX:
        return tomllib.loads(text)["model_providers"]["mine"]["name"]
    data = _strip_jsonc(text)
    if rel == OPENCODE:
        return data["provider"]["other"]["models"]["x"]["limit"]["context"]
    if rel == QWEN:
        [mine] = [e for e in data["modelProviders"]["openai"] if e.get("envKey") == "MY_KEY"]
        return mine["generationConfig"]
    if rel == CLAUDE:
        return data["env"]["CLAUDE_CODE_MAX_TURNS"]
    return data["providers"]["ollama"]["models"]["qwen3"]["contextWindow"]


def _set_user_value(rel: str, text: str, n: int) -> tuple[str, Any]:
    if rel == CODEX:
        return re.sub(r'name = "mine-\d+"', f'name = "mine-{n}"', text), f"mine-{n}"
    data = _strip_jsonc(text)
    if rel == OPENCODE:
        data["provider"]["other"]["models"]["x"]["limit"]["context"] = value = 1000 + n
    elif rel == QWEN:
        [mine] = [e for e in data["modelProviders"]["openai"] if e.get("envKey") == "MY_KEY"]
        mine["generationConfig"]["contextWindowSize"] = 4096 + n
        value = mine["generationConfig"]
    elif rel == CLAUDE:
        data["env"]["CLAUDE_CODE_MAX_TURNS"] = value = str(40 + n)
    else:
        data["providers"]["ollama"]["models"]["qwen3"]["contextWindow"] = value = 32768 + n
    return json.dumps(data, indent=2) + "\n", value


def _limits_in(home: Path) -> dict[str, Any]:
    """What each client's file says about gwconf's model's limits (None: nothing)."""
    codex = tomllib.loads((home / CODEX).read_text())
    opencode = json.loads((home / OPENCODE).read_text())["provider"]["gwconf"]["models"][MODEL]
    qwen = _strip_jsonc((home / QWEN).read_text())["modelProviders"]["openai"]
    [ours] = [e for e in qwen if e.get("envKey") == "GWCONF_API_KEY"]
    claude = json.loads((home / CLAUDE).read_text())["env"]
    cline = json.loads((home / CLINE).read_text())["providers"].get("openai-compatible", {})
    return {
        "codex": codex.get("model_context_window"),
        "opencode": opencode.get("limit"),
        "qwen-code": ours.get("generationConfig"),
        "claude-code": (
            claude.get("CLAUDE_CODE_MAX_CONTEXT_TOKENS"),
            claude.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS"),
        ),
        "cline": cline.get("models", {}).get(MODEL),
    }


def _expected(limits: tuple[int, int] | None) -> dict[str, Any]:
    if limits is None:
        return {
            "codex": None,
            "opencode": None,
            "qwen-code": None,
            "claude-code": (None, None),
            "cline": None,
        }
    window, output = limits
    return {
        "codex": window,
        "opencode": {"context": window, "output": output},
        "qwen-code": {"contextWindowSize": window, "samplingParams": {"max_tokens": output}},
        "claude-code": (str(window), str(output)),
        "cline": {"contextWindow": window, "maxTokens": output},
    }


def _template(root: Path) -> Path:
    template = root / "template"
    home = template / "home"
    for rel, text in SEEDS.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    (template / "work").mkdir(parents=True)
    with home_as(home, template / "gwconf"):
        for name, limits in LIMITS.items():
            args = ["profile", "add", name, "--base-url", "https://gw.example.com/v1", "--model", MODEL]
            if limits:
                args += ["--context-window", str(limits[0]), "--max-output-tokens", str(limits[1])]
            done = invoke(*args, "--key-stdin", input="sk-limits-0123456789abcdefLMTS\n")
            assert done.exit_code == 0, done
        assert invoke("use", "big", "--no-apply").exit_code == 0
    return template


class LimitsMachine(RuleBasedStateMachine):
    template: Path

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="ex-", dir=self.template.parent))
        for part in ("home", "gwconf", "work"):
            shutil.copytree(self.template / part, self.root / part)
        self.home = self.root / "home"
        self._saved = {k: os.environ.get(k) for k in ("HOME", "GWCONF_HOME")}
        self._cwd = os.getcwd()
        os.environ.update(HOME=str(self.home), GWCONF_HOME=str(self.root / "gwconf"))
        os.chdir(self.root / "work")
        self.active = "big"
        self.applied = False
        self.n = 0
        self.user = {rel: _user_value(rel, text) for rel, text in SEEDS.items()}
        self.snapshot: dict[str, str] = {}  # the files before the first apply
        self.edited = False  # the user edited a file since the first apply

    def teardown(self) -> None:
        os.chdir(self._cwd)
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.root, ignore_errors=True)

    def texts(self) -> dict[str, str]:
        return {rel: (self.home / rel).read_text() for rel in SEEDS}

    def run(self, *args: str) -> None:
        done = invoke(*args)
        assert done.exit_code == 0, (args, done.stdout, done.stderr)

    @rule(profile=st.sampled_from(sorted(LIMITS)))
    def apply(self, profile: str) -> None:
        if not self.applied:
            self.snapshot, self.edited = self.texts(), False
        self.run("apply", *CLIENTS, "-p", profile)
        self.active, self.applied = profile, True

    @precondition(lambda self: self.applied)
    @rule(profile=st.sampled_from(sorted(LIMITS)))
    def use(self, profile: str) -> None:
        self.run("use", profile)
        self.active = profile

    @precondition(lambda self: self.applied)
    @rule()
    def restore(self) -> None:
        self.run("restore", *CLIENTS)
        now = self.texts()
        if not self.edited:
            assert now == self.snapshot, (
                "only gwconf wrote since the first apply: restore must give the bytes back"
            )
        for rel, text in now.items():
            for number in [n for limits in LIMITS.values() if limits for n in limits]:
                assert str(number) not in text, f"{rel}: gwconf's limit {number} left after restore:\n{text}"
        codex = tomllib.loads(now[CODEX])
        assert codex["model_context_window"] == 8000, "restore did not give back the user's own window"
        assert MODEL not in json.loads(now[CLINE])["providers"].get("openai-compatible", {}).get("models", {})
        self.applied = False

    @rule(rel=st.sampled_from(sorted(SEEDS)))
    def user_edits_own_entry(self, rel: str) -> None:
        self.n += 1
        text, self.user[rel] = _set_user_value(rel, (self.home / rel).read_text(), self.n)
        (self.home / rel).write_text(text)
        self.edited = True

    @invariant()
    def users_entries_untouched(self) -> None:
        for rel, value in self.user.items():
            assert _user_value(rel, (self.home / rel).read_text()) == value, (
                f"{rel}: the user's own entry changed"
            )

    @invariant()
    def files_say_the_limits_in_effect(self) -> None:
        if self.applied:
            assert _limits_in(self.home) == _expected(LIMITS[self.active]), self.active


@pytest.fixture(scope="module")
def template() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="gwconf-limits-", dir=fast_base()))
    try:
        yield _template(root)
    finally:
        shutil.rmtree(root)


def test_limits_follow_the_profile_and_restore_takes_them_back(template: Path) -> None:
    machine = type("LimitsMachineRun", (LimitsMachine,), {"template": template})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            derandomize=not os.environ.get("GWCONF_STATEFUL_RANDOM"),  # new sequences while hunting
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
