"""Issue 18 item 14: ``gwconf run`` keeps what the client wrote in its stand-in config folder.

``gwconf run llm`` (and gemini-cli, qwen-code, aichat, crush, mods) points the client at a
temporary stand-in for its config folder: links to the user's entries plus gwconf's rendered
files. The folder is removed afterwards, and with it everything the client created there (llm's
``logs.db``, a first ``aliases.json``) or updated by temp + rename. A fake client program, run
for real, writes such files; afterwards the user's folder holds them, while gwconf's rendered
files (holding the gateway's key) never land there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY

FAKE = """
import os, sys
root = os.path.join(os.environ[sys.argv[1]], sys.argv[2])
os.makedirs(os.path.join(root, "plugins"), exist_ok=True)
with open(os.path.join(root, "logs.db"), "wb") as f:        # a new file
    f.write(b"SQLite format 3\\x00 prompt log")
with open(os.path.join(root, "plugins", "new.txt"), "w") as f:  # a new folder and file
    f.write("plugin")
for name, text in (("aliases.json", '{"fast": "my-model"}'), (sys.argv[3], "CLIENT REWROTE ITS CONFIG")):
    tmp = os.path.join(root, "." + name + ".tmp")              # temp + rename, as many clients update
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(root, name))
with open(os.path.join(root, "history.txt"), "a") as f:        # in place, through the link
    f.write("second line\\n")
"""

CASES = {
    # client: (program, variable, sub-folder of the stand-in, user's folder under HOME, a rendered file)
    "llm": ("llm", "LLM_USER_PATH", "", ".config/io.datasette.llm", "keys.json"),
    "qwen-code": ("qwen", "QWEN_HOME", "", ".qwen", "settings.json"),
    "gemini-cli": ("gemini", "GEMINI_CLI_HOME", ".gemini", ".gemini", "settings.json"),
    "aichat": ("aichat", "AICHAT_CONFIG_DIR", "", ".config/aichat", "config.yaml"),
    "crush": ("crush", "CRUSH_GLOBAL_CONFIG", "", ".config/crush", "crush.json"),
    "mods": ("mods", "XDG_CONFIG_HOME", "mods", ".config/mods", "mods.yml"),
}


def every_text(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("client", sorted(CASES))
def test_run_carries_back_what_the_client_wrote(
    client: str, gwconf, profile, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program, variable, sub, user_folder, rendered = CASES[client]
    bin_dir = home / "bin"
    bin_dir.mkdir()
    fake = bin_dir / program
    fake.write_text(f"#!{sys.executable}\n" + FAKE.replace("sys.argv[1]", repr(variable)).replace(
        "sys.argv[2]", repr(sub)).replace("sys.argv[3]", repr(rendered)))  # fmt: skip
    fake.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("TMPDIR", str(temp))
    folder = home / user_folder
    folder.mkdir(parents=True)
    (folder / "aliases.json").write_text("{}")
    (folder / "history.txt").write_text("first line\n")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    result = gwconf("run", client, "--", "hello")
    assert result.exit_code == 0, result

    assert (folder / "logs.db").read_bytes() == b"SQLite format 3\x00 prompt log"
    assert (folder / "plugins" / "new.txt").read_text() == "plugin"
    assert (folder / "aliases.json").read_text() == '{"fast": "my-model"}'
    assert (folder / "history.txt").read_text() == "first line\nsecond line\n"
    assert not (folder / rendered).exists() or (folder / rendered) in before  # gwconf's file stays out
    assert "CLIENT REWROTE" not in every_text(folder)
    assert TEST_KEY not in every_text(home), "the key reached the user's folders"
    assert list(temp.iterdir()) == []  # the stand-in is gone
    assert not any(p.name.endswith(".tmp") for p in folder.rglob("*"))
