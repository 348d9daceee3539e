"""A value of the wrong type anywhere in a client's file (a hand edit gone wrong): no crash.

Each client's readers (``status``, ``apply --dry-run``, ``doctor``) take the data where a value is a list
instead of text, an object instead of a list, a number, ``null``. They may report it or refuse
the file; they must not end in "unexpected error". A type fuzz over real users' files found
claude-code-router's reader taking a list for its provider's address.

Each file starts as gwconf writes it (an apply to an empty home), so every path gwconf reads is
there; then the value at each path, in turn, becomes one of the other types.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from gwconf import registry
from gwconf.paths import Env
from tests.formats.test_json import lookup, paths

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REPLACEMENTS: list[Any] = [[], {}, 7, None, "x", ["x"], {"k": "v"}, True]
PER_FILE = 14  # deeper paths changed per file, beside every path of the first two levels


def _replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(data))
    node = copy
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return copy


def _dumped(fmt: str, data: Any) -> str | None:
    if fmt in ("json", "jsonc", "json5"):
        return json.dumps(data, indent=2) + "\n"
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(data, sort_keys=False)
    if fmt == "toml":
        import tomlkit

        try:
            return tomlkit.dumps(data)
        except Exception:  # TOML has no null: that replacement is not a TOML file
            return None
    return None


def _clients() -> list[str]:
    env = Env(home=Path("/h"), platform="linux", environ={}, cwd=Path("/h"))
    return [
        c.id
        for c in registry.all_clients()
        if any(f.format in ("json", "jsonc", "json5", "yaml", "toml") for f in c.files(env))
    ]


@pytest.mark.parametrize("client_id", _clients())
def test_a_value_of_another_type_is_reported_not_a_crash(gwconf, home: Path, client_id: str) -> None:
    # a gateway address nothing listens on: doctor's direct request is refused at once, on loopback
    added = gwconf(
        "profile", "add", "work", "--base-url", "http://127.0.0.1:9/v1", "--model", "my-model",
        "--key-stdin", "--use", input="sk-test-0123456789abcdefWXYZ\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    applied = gwconf("apply", client_id, "--json")
    if applied.exit_code != 0:  # an app that makes its file on its first start (Chatbox): its fixture
        before = sorted((FIXTURES / client_id).glob("*/before"))
        if before:
            shutil.copytree(before[0], home, dirs_exist_ok=True)
        applied = gwconf("apply", client_id, "--json")
    assert applied.exit_code == 0, applied
    files = [
        Path(change["path"].replace("~", str(home), 1))
        for client in json.loads(applied.stdout)["clients"]
        for change in client["files"]
    ]
    env = Env(home=home, platform="linux", environ={}, cwd=home)
    formats = {f.path: f.format for f in registry.get(client_id).files(env)}
    rnd = random.Random(client_id)  # the same cases every run
    tried: list[tuple[Any, ...]] = []
    for path in files:
        fmt = formats.get(path)
        if fmt not in ("json", "jsonc", "json5", "yaml", "toml") or not path.is_file():
            continue
        from gwconf import formats as formats_module

        original = path.read_text(encoding="utf-8")
        data = formats_module.load(fmt, original, str(path)).data()
        found = [p for p in paths(data) if p]  # every value but the whole file
        shallow = [p for p in found if len(p) <= 2]
        deeper = [p for p in found if len(p) > 2]
        chosen = shallow + rnd.sample(deeper, min(len(deeper), PER_FILE))
        for where in chosen:
            value = rnd.choice([r for r in REPLACEMENTS if type(r) is not type(lookup(data, where))])
            text = _dumped(fmt, _replaced(data, where, value))
            if text is None:
                continue
            path.write_text(text, encoding="utf-8")
            tried.append(where)
            for args in (("status", client_id), ("apply", client_id, "--dry-run"), ("doctor", client_id)):
                result = gwconf(*args)
                if "unexpected error" in result.stderr:
                    log = home.parent / "gwconf" / "state" / "crash.log"
                    where_it_failed = log.read_text()[-700:] if log.is_file() else result.stderr
                    pytest.fail(f"{client_id} {path.name} {where} = {value!r}: {args[0]}: {where_it_failed}")
        path.write_text(original, encoding="utf-8")
    assert tried, "no value was changed: the test reached no file"


def test_a_key_written_as_a_number_is_reported_without_its_digits(gwconf, home: Path) -> None:
    """The finding names what kind of value stands there, never the value: a key typed without
    quotes is still a key."""
    added = gwconf(
        "profile", "add", "work", "--base-url", "http://127.0.0.1:9/v1", "--model", "my-model",
        "--key-stdin", "--use", input="sk-test-0123456789abcdefWXYZ\n",
    )  # fmt: skip
    assert added.exit_code == 0, added
    assert gwconf("apply", "witsy").exit_code == 0
    path = home / ".config" / "Witsy" / "settings.json"
    data = json.loads(path.read_text())
    data["engines"]["cgwconf"]["apiKey"] = 4711081512345678901
    path.write_text(json.dumps(data))
    doctor = gwconf("doctor", "witsy")
    assert "the key in the file is a number, not text" in doctor.stdout, doctor
    for result in (doctor, gwconf("status", "witsy", "--json"), gwconf("doctor", "witsy", "--json")):
        assert "4711081512345678901" not in result.stdout + result.stderr
