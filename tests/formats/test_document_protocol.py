"""Every format editor declares every member of ``Document`` (issue 16).

The write gate (``formats.checked_edit``) calls ``reads_as`` and ``reread`` on every edited
document; an editor without a faster way assigns the shared defaults by name, so a misspelled
hook is a failure here rather than a shortcut the gate silently skips.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from gwconf import formats
from gwconf.formats._base import Document, never_reads_as, no_spelling, reread_from_scratch

SAMPLES = {
    "toml": 'model = "m"  # kept\n',
    "json": '{"model": "m"}\n',
    "jsonc": '{\n  // kept\n  "model": "m",\n}\n',
    "json5": "{\n  // kept\n  model: 'm',\n}\n",
    "yaml": "model: m  # kept\n",
    "dotenv": "MODEL=m # kept\n",
    "dotenv-npm": "MODEL=m # kept\n",
    "shellrc": "alias ll='ls -l'\n# >>> gwconf >>>\nexport MODEL='m'\n# <<< gwconf <<<\n",
    "fish": "# >>> gwconf >>>\nset -gx MODEL 'm'\n# <<< gwconf <<<\n",
    "powershell": "# >>> gwconf >>>\n$env:MODEL = 'm'\n# <<< gwconf <<<\n",
    "text": "m\n",
}
METHODS = sorted(
    name for name, value in vars(Document).items() if inspect.isfunction(value) and not name.startswith("_")
)

PROPERTIES = sorted(name for name, value in vars(Document).items() if isinstance(value, property))


def test_every_format_has_a_sample() -> None:
    assert set(SAMPLES) == set(formats.FORMATS)
    assert PROPERTIES == ["eol", "ops"]  # read-only members the checks below must also find


def _parameters(function: Any) -> list[str]:
    """Parameter names after the instance's own (``self``, or ``doc`` for a shared default)."""
    return [p.name for p in inspect.signature(function).parameters.values()][1:]


def _declares_the_whole_interface(doc: Any, fmt: str) -> None:
    for name in [*Document.__annotations__, *PROPERTIES]:
        assert hasattr(doc, name), name
    assert doc.fmt == fmt
    for name in METHODS:
        method = getattr(type(doc), name)
        assert _parameters(method) == _parameters(getattr(Document, name)), name


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_every_editor_declares_the_whole_interface(fmt: str) -> None:
    _declares_the_whole_interface(formats.load(fmt, SAMPLES[fmt], "sample"), fmt)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_the_write_gate_hooks_agree_with_a_fresh_parse(fmt: str) -> None:
    doc = formats.load(fmt, SAMPLES[fmt], "sample")
    path = ("MODEL",) if fmt in ("dotenv", "dotenv-npm", "shellrc", "fish", "powershell") else ("model",)
    if fmt == "text":
        path = ()
    doc.set(path, "other")
    fresh = formats.load(fmt, doc.dump(), "sample").data()
    assert doc.reread() == fresh
    assert doc.reads_as(fresh) in (True, False)  # False only means "not shown this way"
    assert formats.verify_edit(fmt, formats.load(fmt, SAMPLES[fmt], "sample"), doc) == doc.dump()


def test_only_the_json_toml_and_yaml_editors_have_their_own_write_gate_hooks() -> None:
    own = {
        fmt
        for fmt in SAMPLES
        if type(formats.load(fmt, SAMPLES[fmt], "s")).reads_as is not never_reads_as
        or type(formats.load(fmt, SAMPLES[fmt], "s")).reread is not reread_from_scratch
    }
    # TOML reuses the read-back its dump() made; YAML reads a window of whole entries back
    assert own == {"json", "jsonc", "json5", "toml", "yaml"}


def test_the_file_editors_keep_spellings_for_a_restore() -> None:
    """``spelling`` and ``put_back``: a restore gives back a .env value as the user quoted it, a
    JSON, TOML or YAML scalar with the user's escapes and style; the shell block and the plain
    text file write a value back their own way (``set``): gwconf wrote all of it."""
    own = {fmt for fmt in SAMPLES if type(formats.load(fmt, SAMPLES[fmt], "s")).spelling is not no_spelling}
    assert own == {"dotenv", "dotenv-npm", "json", "jsonc", "json5", "toml", "yaml"}


@pytest.mark.parametrize("fmt", ["json", "jsonc"])
def test_the_windowed_json_document_declares_the_whole_interface(fmt: str) -> None:
    """``json_windows.WindowedJson`` stands in for the JSON editor on a big file: the same members,
    the same parameters."""
    from gwconf.formats import json_windows

    text = "{\n" + "".join(f'  "k{n}": {n},\n' for n in range(50)) + '  "last": 0\n}\n'
    doc = json_windows.load(text.encode(), "sample", fmt, window=64)
    assert doc is not None
    _declares_the_whole_interface(doc, fmt)
