"""Cline: fixtures through the CLI (CLI + extension files), updatedAt, and the running-app guard."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from functools import partial
from pathlib import Path

import pytest

from gwconf.clients import cline
from gwconf.paths import Env
from tests.clients._env import clean_client_env, verify_request  # noqa: F401
from tests.clients._harness import check_case, messages, reading_of
from tests.conftest import TEST_KEY
from tests.gateway_server import VALID_KEY

EPOCH = "1795000000"  # 2026-11-18T11:06:40Z: updatedAt in the after/ fixtures


@pytest.fixture
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


@pytest.mark.parametrize("case", ["cli-and-extension", "fresh-home"])
def test_fixture(case: str, gwconf, home: Path, profile: str, fixed_time: None) -> None:
    check_case("cline", case, gwconf, home)


def data(home: Path) -> Path:
    return home / ".cline" / "data"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


reading = partial(reading_of, "cline")


def test_status_reads_back_and_secrets_are_private(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "cline").exit_code == 0
    status = json.loads(gwconf("status", "cline", "--json").stdout)["clients"][0]
    assert (status["base_url"], status["key"], status["model"]) == (
        "https://gw.example.com/v1",
        "sk-…WXYZ",
        "my-model",
    )
    assert status["profile"] == "work" and reading().findings == []
    for name in ("settings/providers.json", "secrets.json"):
        assert (data(home) / name).stat().st_mode & 0o777 == 0o600
    assert TEST_KEY not in (data(home) / "globalState.json").read_text()


def test_updated_at_changes_only_with_the_entry(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795000000")
    assert gwconf("apply", "cline").exit_code == 0
    entry = load(data(home) / "settings" / "providers.json")["providers"]["openai-compatible"]
    assert (entry["updatedAt"], entry["tokenSource"]) == ("2026-11-18T11:06:40.000Z", "manual")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795000100")
    again = json.loads(gwconf("apply", "cline", "--json").stdout)["clients"][0]
    assert not again["changed"]
    assert gwconf("apply", "cline", "--model", "other").exit_code == 0
    entry = load(data(home) / "settings" / "providers.json")["providers"]["openai-compatible"]
    assert entry["updatedAt"] == "2026-11-18T11:08:20.000Z" and entry["settings"]["model"] == "other"
    state = load(data(home) / "globalState.json")
    assert state["actModeOpenAiModelId"] == state["planModeOpenAiModelId"] == "other"


def test_entry_without_updated_at_is_reported(home: Path) -> None:
    (data(home) / "settings").mkdir(parents=True)
    (data(home) / "settings" / "providers.json").write_text(
        json.dumps(
            {
                "version": 1,
                "lastUsedProvider": "openai-compatible",
                "providers": {
                    "openai-compatible": {"settings": {"provider": "openai-compatible", "apiKey": "sk-x"}}
                },
            }
        )
    )
    result = reading()
    assert not result.provider_is_gwconf
    assert "has no valid updatedAt" in messages(result)


def test_extension_only_view_and_plan_mode(home: Path) -> None:
    data(home).mkdir(parents=True)
    (data(home) / "globalState.json").write_text(
        json.dumps(
            {
                "actModeApiProvider": "openai",
                "planModeApiProvider": "cline",
                "openAiBaseUrl": "https://g/v1",
                "actModeOpenAiModelId": "m",
            }
        )
    )
    (data(home) / "secrets.json").write_text(json.dumps({"openAiApiKey": TEST_KEY}))
    result = reading()
    assert (result.base_url, result.api_key, result.model) == ("https://g/v1", TEST_KEY, "m")
    assert "planModeApiProvider is 'cline'" in messages(result)


def test_old_extension_is_reported(gwconf, home: Path, profile: str) -> None:
    (home / ".vscode" / "extensions" / "saoudrizwan.claude-dev-3.20.1").mkdir(parents=True)
    applied = gwconf("apply", "cline")
    assert applied.exit_code == 0 and "update the extension to 3.66" in applied.stdout
    assert "Cline 3.20.1 is installed" in messages(reading())


def test_model_is_required(gwconf, home: Path) -> None:
    added = gwconf("profile", "add", "bare", "--base-url", "https://gw.example.com/v1", "--key-stdin", "--use",
                   input=TEST_KEY + "\n")  # fmt: skip
    assert added.exit_code == 0
    result = gwconf("apply", "cline")
    assert result.exit_code == 1 and "--model" in result.output


def test_cline_dir_variables_move_the_files(gwconf, home: Path, profile: str, monkeypatch) -> None:
    monkeypatch.setenv("CLINE_DIR", str(home / "c"))
    assert gwconf("apply", "cline").exit_code == 0
    assert (home / "c" / "data" / "settings" / "providers.json").is_file()
    monkeypatch.setenv("CLINE_DATA_DIR", str(home / "d"))
    monkeypatch.setenv("CLINE_PROVIDER_SETTINGS_PATH", str(home / "p.json"))
    assert gwconf("apply", "cline").exit_code == 0
    assert (home / "d" / "globalState.json").is_file() and (home / "p.json").is_file()


def test_malformed_providers_file_is_refused_and_left_alone(gwconf, home: Path, profile: str) -> None:
    (data(home) / "settings").mkdir(parents=True)
    bad = data(home) / "settings" / "providers.json"
    bad.write_text('{\n  "version": 1,\n  "providers": {\n}\n')
    before = bad.read_bytes()
    result = gwconf("apply", "cline")
    assert result.exit_code == 1 and "~/.cline/data/settings/providers.json:" in result.stderr
    assert bad.read_bytes() == before and not (data(home) / "globalState.json").exists()


def test_command_lines_are_classified() -> None:
    assert cline.classify(["/usr/share/code/code", "--type=utility"]) == "VS Code"
    assert cline.classify(["/opt/idea/bin/idea.sh"]) == "JetBrains IDE"
    assert cline.classify(["/opt/jbr/bin/java", "-Didea.paths.selector=PyCharm2026.1"]) == "JetBrains IDE"
    assert cline.classify(["node", "/usr/lib/node_modules/cline/bin/cline", "--cline-hub-daemon"]) == "cline"
    assert cline.classify(["/usr/bin/python3", "code.py"]) is None


@pytest.fixture
def fake_vscode(tmp_path: Path, home: Path):
    """A real process whose command line reads like VS Code's, with HOME = the test home."""
    if not Path("/proc/self/cmdline").exists():
        pytest.skip("needs /proc")
    sleep = shutil.which("sleep")
    assert sleep
    binary = tmp_path / "bin" / "code"
    binary.parent.mkdir()
    binary.symlink_to(sleep)
    process = subprocess.Popen([str(binary), "60"], env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    for _ in range(100):  # until exec has replaced the command line
        if Path(f"/proc/{process.pid}/cmdline").read_bytes().startswith(str(binary).encode()):
            break
        time.sleep(0.01)
    yield process
    os.kill(process.pid, signal.SIGTERM)
    process.wait()


def test_running_vscode_with_cline_refuses_unless_forced(
    gwconf, home: Path, profile: str, fake_vscode
) -> None:
    (home / ".vscode" / "extensions" / "saoudrizwan.claude-dev-4.1.13").mkdir(parents=True)
    refused = gwconf("apply", "cline")
    assert refused.exit_code == 1
    assert f"VS Code (pid {fake_vscode.pid})" in refused.stderr and "Quit VS Code" in refused.stderr
    assert not data(home).exists()
    forced = gwconf("apply", "cline", "--force")
    assert forced.exit_code == 0 and "--force" in forced.stdout
    assert (data(home) / "globalState.json").is_file()


def test_vscode_without_cline_or_for_another_home_is_ignored(
    gwconf, home: Path, profile: str, fake_vscode
) -> None:
    assert cline.running_hosts(Env.current()) == []  # no Cline extension installed
    (home / ".vscode" / "extensions" / "saoudrizwan.claude-dev-4.1.13").mkdir(parents=True)
    assert [kind for _, kind in cline.running_hosts(Env.current())] == ["VS Code"]
    other = Env(
        home=home / "elsewhere", platform="linux", environ={"HOME": str(home / "elsewhere")}, cwd=home
    )
    (home / "elsewhere" / ".vscode" / "extensions" / "saoudrizwan.claude-dev-4.1.13").mkdir(parents=True)
    assert cline.running_hosts(other) == []


def test_verify_sends_a_chat_request_with_the_key(gwconf, gateway, gateway_profile) -> None:
    entry, request = verify_request(gwconf, gateway, "cline")
    assert entry["verdict"] == "ok" and entry["wire"] == "chat"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {VALID_KEY}"


def test_another_entry_without_updated_at_is_noted_not_rewritten(gwconf, home: Path, profile: str) -> None:
    (data(home) / "settings").mkdir(parents=True)
    broken = {"settings": {"provider": "anthropic", "apiKey": "sk-ant-0000000000000000"}}
    (data(home) / "settings" / "providers.json").write_text(
        json.dumps({"version": 1, "providers": {"anthropic": broken}}, indent=2)
    )
    applied = gwconf("apply", "cline")
    assert applied.exit_code == 0 and "providers.anthropic has no valid updatedAt" in applied.stdout
    assert load(data(home) / "settings" / "providers.json")["providers"]["anthropic"] == broken


def test_restore_takes_the_entry_back_after_cline_re_stamped_it(gwconf, home: Path, profile: str) -> None:
    """Cline rewrites providers.json on every run with a new updatedAt (and empty `modes`): that is
    Cline's own bookkeeping, not an edit of the user's, so restore still removes gwconf's entry and key."""
    assert gwconf("apply", "cline").exit_code == 0
    path = home / ".cline" / "data" / "settings" / "providers.json"
    data = json.loads(path.read_text())
    for entry in data["providers"].values():
        entry["updatedAt"] = "2030-01-01T00:00:00.000Z"
        entry["modes"] = {}
    path.write_text(json.dumps(dict(reversed(list(data.items()))), indent=1))
    assert json.loads(gwconf("status", "cline", "--json").stdout)["clients"][0]["changed_by_hand"] == []
    result = gwconf("restore", "cline")
    assert result.exit_code == 0 and "left as it is" not in result.output
    assert TEST_KEY not in (path.read_text() if path.exists() else "")


def test_restore_keeps_an_entry_the_user_edited(gwconf, home: Path, profile: str) -> None:
    assert gwconf("apply", "cline").exit_code == 0
    path = home / ".cline" / "data" / "settings" / "providers.json"
    data = json.loads(path.read_text())
    entry = next(iter(data["providers"].values()))
    entry["settings"] = {**entry.get("settings", {}), "userChoice": "kept"}
    path.write_text(json.dumps(data, indent=1))
    result = gwconf("restore", "cline")
    assert result.exit_code == 0, result
    text = path.read_text()
    assert "userChoice" in text, "what the user added inside gwconf's entry stays (issue 13)"
    assert TEST_KEY not in text and "gw.example.com" not in text, "gwconf's own values go"


def test_an_offset_stamp_is_one_cline_refuses(gwconf, home: Path, profile: str) -> None:
    """Cline 3.0.65's schema takes updatedAt as zod 4 ``string().datetime()``: UTC with "Z" only.
    A stamp with an offset makes the whole providers.json read as empty: noted on another entry,
    made again on gwconf's."""
    (data(home) / "settings").mkdir(parents=True)
    other = {"settings": {"provider": "anthropic"}, "updatedAt": "2026-11-18T12:06:40+01:00"}
    (data(home) / "settings" / "providers.json").write_text(
        json.dumps({"version": 1, "providers": {"anthropic": other}}, indent=2)
    )
    applied = gwconf("apply", "cline")
    assert applied.exit_code == 0 and "providers.anthropic has no valid updatedAt" in applied.stdout
    path = data(home) / "settings" / "providers.json"
    written = load(path)
    written["providers"]["anthropic"]["updatedAt"] = "2026-11-18T11:06:40Z"
    mine = written["providers"]["openai-compatible"]
    mine["updatedAt"] = "2026-11-18T12:06:40.000+01:00"
    path.write_text(json.dumps(written, indent=2))
    assert "providers.openai-compatible has no valid updatedAt" in messages(reading())
    assert gwconf("apply", "cline").exit_code == 0
    assert load(path)["providers"]["openai-compatible"]["updatedAt"].endswith("Z")
    assert "no valid updatedAt" not in messages(reading())
