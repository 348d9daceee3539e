"""plan.load_file keeps ``doc.data()`` as the file's data before any edit, without a deep copy
(on a big file the copy cost as much as parsing it: bench/scale.py). That is only right while no
editor changes, in a later edit, a value its ``data()`` handed out; these tests hold every format
to it, and check the plan built on it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gwconf import formats, plan
from gwconf.clients._base import ConfigFile
from gwconf.paths import Env

# format -> (text, edits): nested mappings and lists where the format has them
CASES: dict[str, tuple[str, list[tuple[str, tuple[Any, ...], Any]]]] = {
    "toml": (
        'top = 1\nlist = [1, 2]\n\n[table]\nkey = "x"  # comment\n',
        [("set", ("table", "key"), "y"), ("set", ("table", "new"), 2), ("append", ("list",), 3),
         ("delete", ("top",), None)],
    ),
    "json": (
        '{"top": 1, "list": [1, 2], "table": {"key": "x"}}\n',
        [("set", ("table", "key"), "y"), ("set", ("table", "new"), 2), ("append", ("list",), 3),
         ("delete", ("top",), None)],
    ),
    "jsonc": (
        '// settings\n{\n\t"top": 1,\n\t"list": [1, 2,],\n\t"table": {"key": "x", /* c */},\n}\n',
        [("set", ("table", "key"), "y"), ("set", ("table", "new"), 2), ("append", ("list",), 3),
         ("delete", ("top",), None)],
    ),
    "yaml": (
        "top: 1  # comment\nlist:\n  - 1\n  - 2\ntable:\n  key: x\n",
        [("set", ("table", "key"), "y"), ("set", ("table", "new"), 2), ("append", ("list",), 3),
         ("delete", ("top",), None)],
    ),
    "dotenv": ("# env\nOPENAI_API_KEY=k\nOPENAI_BASE_URL=u\n", [("set", ("OPENAI_BASE_URL",), "v"),
               ("set", ("OTHER",), "w"), ("delete", ("OPENAI_API_KEY",), None)]),
}  # fmt: skip
CASES["dotenv-npm"] = CASES["dotenv"]
CASES["json5"] = ("// openclaw\n{\n  top: 1,\n  list: [1, 2,],\n  table: {key: 'x'},\n}\n", CASES["jsonc"][1])
for _fmt in ("shellrc", "fish", "powershell"):
    _doc = formats.load(_fmt, "", "rc")
    _doc.set(("OPENAI_API_KEY",), "k")
    _doc.set(("OPENAI_BASE_URL",), "u")
    CASES[_fmt] = (
        "# rc file\n" + _doc.dump(),
        [("set", ("OPENAI_BASE_URL",), "v"), ("delete", ("OPENAI_API_KEY",), None)],
    )
CASES["text"] = ("my-model\n", [("set", (), "other-model")])


def _edit(doc: Any, kind: str, path: tuple[Any, ...], value: Any) -> None:
    if kind == "set":
        doc.set(path, value)
    elif kind == "append":
        doc.append(path, value)
    else:
        doc.delete(path)


def test_every_format_is_covered() -> None:
    assert set(CASES) == set(formats.FORMATS)


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_data_handed_out_never_changes_under_later_edits(fmt: str) -> None:
    text, edits = CASES[fmt]
    doc = formats.load(fmt, text, "file")
    before = doc.data()
    frozen = copy.deepcopy(before)
    for kind, path, value in edits:
        _edit(doc, kind, path, value)
        assert before == frozen, f"{fmt}: {kind} {path} changed data() handed out earlier"
    assert doc.data() != frozen, "the edits must change the document"


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_plan_keeps_the_data_before_the_edit(fmt: str, tmp_path: Path) -> None:
    text, edits = CASES[fmt]
    path = tmp_path / f"file.{fmt}"
    path.write_text(text, encoding="utf-8")
    env = Env(home=tmp_path, platform="linux", environ={}, cwd=tmp_path)
    loaded = plan.load_file(ConfigFile("config", path, fmt), env)
    expected = formats.load(fmt, text, "file").data()
    for kind, edit_path, value in edits:
        _edit(loaded.doc, kind, edit_path, value)
    assert loaded.data == expected
    change = plan._change_from_edit("bench", loaded)
    assert change is not None and change.after is not None
    assert formats.load(fmt, change.after.decode(), "file").data() == formats.replay(expected, loaded.doc.ops)
