"""Property tests for every format editor, through the bytes gwconf really reads and writes.

What tests/formats/ already covers (random layouts and edits for JSON, TOML, YAML and dotenv) is
not repeated. Added here, for all seven editors the same way:

- files as bytes: a BOM or none, LF or CRLF, a final newline or none, unicode keys and values,
  comments and odd spacing, one level of nesting where the format has it;
- random set/delete, then: the result parses, reads (with another parser where there is one:
  json, tomllib, PyYAML) as exactly the intended data, keeps its BOM and line endings, and every
  line no edit touched is still there, in order;
- random sets undone the way ``gwconf restore`` undoes them (a new key removed from its first
  new parent, an old value set back) give back the original bytes exactly.
- shellrc (POSIX, fish, PowerShell blocks) and the one-value text file get the same treatment.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gwconf import formats
from gwconf.formats import MISSING, get_plain

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOM = b"\xef\xbb\xbf"

# values that every renderer below can write (no DEL: TOML forbids it raw) and hostile ones to set
TEXT = st.text(alphabet=list("aZ9 _-.:/éß中😀'\"#\\$={}[],*\n\t"), max_size=10)
SAFE_TEXT = st.text(alphabet=list("aZ9_-.:/"), max_size=10)


def _plain_in_yaml(text: str) -> bool:
    try:
        return bool(yaml.safe_load(f"k: {text}") == {"k": text})
    except yaml.YAMLError:
        return False


# what gwconf itself writes into a managed key: addresses, keys, model and provider names, flags.
# Known limit, not tested: a value that needs other quoting than the old one ("0", "yes" or "a:"
# over a plain YAML value) leaves its quotes behind when the old value is set back (same data).
MANAGED_TEXT = st.builds(
    lambda head, rest: head + rest,
    st.sampled_from(list("abcXYZ")),
    st.text(alphabet=list("abcXYZ019-._:/"), max_size=11),
).filter(lambda t: _plain_in_yaml(t))
SCALARS = TEXT | st.integers(-1000, 10**6) | st.booleans()
NESTED_KEYS = ["a", "b_c", "x-y", "k.z", "ключ", "中", "url"]
ENV_NAMES = ["A", "B_C", "OPENAI_API_KEY", "X1", "NEW_ONE"]


@dataclass
class Rendered:
    """A file as text, the data it holds, and which key path each line belongs to."""

    lines: list[tuple[str, tuple[Any, ...] | None]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def add(self, text: str, owner: tuple[Any, ...] | None) -> None:
        self.lines.append((text, owner))


# -- renderers: one per format ---------------------------------------------------------------------


def _comment(draw: Any, mark: str) -> list[str]:
    return draw(st.lists(st.sampled_from([f"{mark} note ✓", f"{mark} ключ: x = 1", f"{mark}"]), max_size=1))


def render_json(draw: Any, jsonc: bool, escapes: bool) -> Rendered:
    out = Rendered()
    data = draw(
        st.dictionaries(
            st.sampled_from(NESTED_KEYS),
            SCALARS | st.dictionaries(st.sampled_from(NESTED_KEYS), SCALARS, min_size=1, max_size=3),
            max_size=4,
        )
    )
    out.data = data
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    sep = draw(st.sampled_from([": ", ":", " : "]))
    if not data:  # an empty object as json.dumps and JSON.stringify write it; "{\n}" comes back as "{}"
        out.add("{}", ())
        return out
    out.add("{", ())
    items = list(data.items())
    for number, (key, value) in enumerate(items):
        if jsonc:
            for c in _comment(draw, "//"):
                out.add(unit + c, None)
        comma = "," if number < len(items) - 1 or (jsonc and draw(st.booleans())) else ""
        head = unit + json.dumps(key, ensure_ascii=False) + sep
        if isinstance(value, dict):
            out.add(head + "{", (key,))
            inner = list(value.items())
            for i, (k, v) in enumerate(inner):
                c2 = "," if i < len(inner) - 1 else ""
                out.add(
                    unit * 2
                    + json.dumps(k, ensure_ascii=False)
                    + sep
                    + json.dumps(v, ensure_ascii=False)
                    + c2,
                    (key, k),
                )
            out.add(unit + "}" + comma, (key,))
        else:
            tail = "  // trailing, }" if jsonc and draw(st.booleans()) else ""
            ascii_only = escapes and draw(st.booleans())
            out.add(head + json.dumps(value, ensure_ascii=ascii_only) + comma + tail, (key,))
    out.add("}", ())
    return out


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any, draw: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if "'" not in value and "\n" not in value and draw(st.booleans()):
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False)


def render_toml(draw: Any) -> Rendered:
    out = Rendered()
    top = draw(st.dictionaries(st.sampled_from(NESTED_KEYS), SCALARS, max_size=3))
    tables = draw(
        st.dictionaries(
            st.sampled_from(["tui", "model_providers", "ключи"]),
            st.dictionaries(st.sampled_from(NESTED_KEYS), SCALARS, max_size=3),
            max_size=2,
        )
    )
    out.data = {**top, **tables}
    eq = draw(st.sampled_from([" = ", "=", "   =  ", "\t= "]))
    for c in _comment(draw, "#"):
        out.add(c, None)
    for key, value in top.items():
        tail = "  # mine ✓" if draw(st.booleans()) else ""
        out.add(_toml_key(key) + eq + _toml_value(value, draw) + tail, (key,))
    for name, table in tables.items():
        out.add("", None)
        out.add(f"[{_toml_key(name)}]", (name,))
        for key, value in table.items():
            out.add(_toml_key(key) + eq + _toml_value(value, draw), (name, key))
    return out


_YAML_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_YAML_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if _YAML_PLAIN.match(value) and value.lower() not in _YAML_SPECIAL:
        return value
    return json.dumps(value, ensure_ascii=False)


def render_yaml(draw: Any) -> Rendered:
    out = Rendered()
    data = draw(
        st.dictionaries(
            st.sampled_from(NESTED_KEYS),
            SCALARS | st.dictionaries(st.sampled_from(NESTED_KEYS), SCALARS, min_size=1, max_size=3),
            max_size=4,
        )
    )
    out.data = data
    unit = draw(st.sampled_from(["  ", "    "]))
    for c in _comment(draw, "#"):
        out.add(c, None)
    for key, value in data.items():
        if isinstance(value, dict):
            out.add(f"{key}:", (key,))
            for k, v in value.items():
                out.add(f"{unit}{k}: {_yaml_value(v)}", (key, k))
        else:
            tail = "   # mine ✓" if draw(st.booleans()) else ""
            out.add(f"{key}: {_yaml_value(value)}{tail}", (key,))
    return out


def render_dotenv(draw: Any) -> Rendered:
    out = Rendered()
    data = draw(st.dictionaries(st.sampled_from(ENV_NAMES[:-1]), SAFE_TEXT, max_size=4))
    out.data = data
    for c in _comment(draw, "#"):
        out.add(c, None)
    for key, value in data.items():
        style = draw(st.sampled_from(["{}={}", "export {}={}", "{}='{}'", '{}="{}"', "{} = {}"]))
        tail = "  # mine é" if draw(st.booleans()) else ""
        if not value and "'" not in style and '"' not in style:
            tail = ""  # python-dotenv reads `A=  # mine` as "# mine": a value, not a comment
        out.add(style.format(key, value) + tail, (key,))
        if draw(st.booleans()):
            out.add("", None)
    return out


USER_RC = ["# my rc ✓", 'alias ll="ls -l"', 'export PATH="$HOME/bin:$PATH"', "", "if true; then :; fi"]


def render_rc(draw: Any, fmt: str) -> Rendered:
    """User lines; the gwconf block (if any) is made by the editor itself, as on a real machine."""
    out = Rendered()
    for line in draw(st.lists(st.sampled_from(USER_RC), max_size=4)):
        out.add(line, None)
    out.data = draw(st.dictionaries(st.sampled_from(ENV_NAMES[:-1]), TEXT, max_size=2))
    return out


@st.composite
def files(draw: Any, fmt: str, undo: bool) -> tuple[bytes, Rendered]:
    # Known limit, not tested for undo: a value written as "\u00df" is set back as "ß" (the same
    # string; the editor writes new strings unescaped).
    rendered = {
        "json": lambda: render_json(draw, False, not undo),
        "jsonc": lambda: render_json(draw, True, not undo),
        "toml": lambda: render_toml(draw),
        "yaml": lambda: render_yaml(draw),
        "dotenv": lambda: render_dotenv(draw),
        "shellrc": lambda: render_rc(draw, "shellrc"),
        "fish": lambda: render_rc(draw, "fish"),
        "powershell": lambda: render_rc(draw, "powershell"),
        "text": lambda: Rendered(
            [(v, ()) for v in [draw(TEXT.filter(lambda t: t.strip() == t and t and "\n" not in t))]]
        ),
    }[fmt]()
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(line for line, _ in rendered.lines)
    if rendered.lines and draw(st.booleans()):
        text += eol
    if fmt in ("shellrc", "fish", "powershell") and rendered.data:  # the block gwconf wrote earlier
        doc = formats.load(fmt, text, "rc")
        for key, value in rendered.data.items():
            doc.set((key,), value)
        block = formats.verify_edit(fmt, formats.load(fmt, text, "rc"), doc)
        user = [line for line in text.split(eol) if line]
        rendered.lines = [(line, None if line in user else ("block",)) for line in block.split(eol) if line]
        text = block
    if fmt == "text":
        rendered.data = text.removesuffix(eol) if text else None  # type: ignore[assignment]
    raw = (BOM if draw(st.booleans()) else b"") + text.encode()
    return raw, rendered


# -- checks -----------------------------------------------------------------------------------------


def _independent(fmt: str, text: str) -> Any:
    """The data as another parser reads it (None where there is no other parser)."""
    if fmt == "json":
        return json.loads(text) if text.strip() else {}
    if fmt == "toml":
        return tomllib.loads(text)
    if fmt == "yaml":
        return yaml.safe_load(text) or {}
    return None


def _normal(line: str, fmt: str) -> str:
    """JSON's commas move when a neighbour is added or removed: compare lines without them."""
    return line.replace(",", "").rstrip() if fmt in ("json", "jsonc") else line


def _kept_in_order(rendered: Rendered, touched: list[tuple[Any, ...]], out: str, fmt: str) -> None:
    def is_touched(owner: tuple[Any, ...] | None) -> bool:
        if owner is None:
            return False
        return any(owner[: len(p)] == p or p[: len(owner)] == owner for p in touched)

    kept = [_normal(line, fmt) for line, owner in rendered.lines if not is_touched(owner)]
    remaining = iter(_normal(line, fmt) for line in re.split(r"\r?\n", out))
    missing = [line for line in kept if not any(line == other for other in remaining)]
    assert not missing, f"untouched lines changed or moved: {missing!r}\n{out}"


def _load(fmt: str, raw: bytes) -> tuple[str, bool, formats.Document]:
    text, had_bom = formats.decode(raw, "f")
    return text, had_bom, formats.load(fmt, text, "f")


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The scalar values' paths (gwconf's managed keys are scalars)."""
    if not isinstance(data, dict):
        return [prefix] if prefix else []
    found = []
    for key, value in data.items():
        if isinstance(value, dict):
            found += _paths(value, (*prefix, key))
        else:
            found.append((*prefix, key))
    return found


def _new_path(fmt: str, data: Any, draw: Any) -> tuple[Any, ...]:
    """A key that is not there yet."""
    if fmt in ("dotenv", "shellrc", "fish", "powershell"):
        free_names = [n for n in ENV_NAMES if n not in (data or {})]
        return (draw(st.sampled_from(free_names)),) if free_names else (ENV_NAMES[0],)
    if fmt == "text":
        return ()
    tables = [k for k, v in data.items() if isinstance(v, dict)] if isinstance(data, dict) else []
    where = draw(st.sampled_from([(), ("new-table",), *[(t,) for t in tables]]))
    taken = get_plain(data, where)
    free = [k for k in [*NESTED_KEYS, "gwconf", "新"] if not isinstance(taken, dict) or k not in taken]
    return (*where, draw(st.sampled_from(free)))


def _value(fmt: str, draw: Any, undo: bool, old: Any) -> Any:
    """Any value for the edit test; for the undo test what gwconf writes over a value of that type."""
    flat = fmt in ("dotenv", "shellrc", "fish", "powershell", "text")
    if not undo:
        if fmt == "text":
            return draw(TEXT.filter(lambda t: "\n" not in t))  # one line: the file holds one value
        if fmt == "dotenv":  # a value no .env spelling reads the same everywhere is refused
            return draw(TEXT.filter(_dotenv_writable))
        return draw(TEXT) if flat else draw(SCALARS)
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return old + 1
    if old is MISSING and not flat:
        return draw(MANAGED_TEXT | st.booleans())
    return draw(MANAGED_TEXT.filter(lambda t: t != old))


def _dotenv_writable(value: str) -> bool:
    from gwconf.errors import WriteRefused
    from gwconf.formats.dotenv import quote

    try:
        quote(value)
    except WriteRefused:
        return False
    return True


def _first_missing(data: Any, path: tuple[Any, ...]) -> tuple[Any, ...]:
    for length in range(1, len(path) + 1):
        if get_plain(data, path[:length]) is MISSING:
            return path[:length]
    return path


def _blocked(data: Any, path: tuple[Any, ...]) -> bool:
    """A set under a value that is not a mapping: not a request gwconf makes."""
    node = data
    for part in path[:-1]:
        if not isinstance(node, dict):
            return True
        if part not in node:
            return False
        node = node[part]
    return not isinstance(node, dict)


ALL = ["json", "jsonc", "toml", "yaml", "dotenv", "shellrc", "fish", "powershell", "text"]


def _edit_and_check(fmt: str, data: st.DataObject, *, undo: bool) -> None:
    raw, rendered = data.draw(files(fmt, undo), label="file")
    text, had_bom, doc = _load(fmt, raw)
    original = doc.data()
    if fmt == "text":
        assert original == rendered.data
    elif fmt not in ("shellrc", "fish", "powershell"):
        assert original == rendered.data, text
    touched: list[tuple[Any, ...]] = []
    undo_steps: list[tuple[tuple[Any, ...], Any]] = []
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        current = doc.data()
        existing = _paths(current) if fmt != "text" else ([()] if current is not None else [])
        kind = data.draw(
            st.sampled_from(["set-old", "set-new", "delete"] if not undo else ["set-old", "set-new"])
        )
        if kind in ("set-old", "delete") and existing:
            path = data.draw(st.sampled_from(existing), label="path")
        else:
            path = _new_path(fmt, current, data.draw)
            if fmt != "text" and get_plain(current, path) is not MISSING:
                continue  # no key left that is not there yet
        if kind == "delete" and existing:
            doc.delete(path)
        else:
            if fmt != "text" and _blocked(current, path):
                continue
            before = (
                get_plain(current, path) if fmt != "text" else (current if current is not None else MISSING)
            )
            undo_steps.append((path if before is not MISSING else _first_missing(current, path), before))
            doc.set(path, _value(fmt, data.draw, undo, before))
        touched.append(path if fmt != "text" else ())
    out = formats.verify_edit(fmt, formats.load(fmt, text, "f"), doc)  # parses, reads as intended
    intended = formats.replay(original, doc.ops)
    other = _independent(fmt, out)
    if other is not None:
        assert other == (intended if intended is not None else {}), out
    written = formats.encode(out, had_bom)
    assert written.startswith(BOM) == raw.startswith(BOM)
    # (a value holding a newline is written with it as it is: bare LF inside quotes is the value)
    if "\r\n" in text and not re.search(r"(?<!\r)\n", text) and "\\n" not in json.dumps(intended):
        assert not re.search(rb"(?<!\r)\n", written), "a bare LF in a CRLF file"
    if fmt in ("shellrc", "fish", "powershell") and touched:
        touched = [("block",)]  # the block is gwconf's: only the user's lines must stay
    _kept_in_order(rendered, touched, out, fmt)
    if not undo:
        return
    for path, before in reversed(undo_steps):
        if before is MISSING:
            doc.delete(path)
        else:
            doc.set(path, before)
    back = formats.verify_edit(fmt, formats.load(fmt, text, "f"), doc)
    assert formats.encode(back, had_bom) == raw, (
        f"undo did not give back the original bytes:\n{back!r}\n{text!r}"
    )


def _make(fmt: str, undo: bool) -> Any:
    @SETTINGS
    @given(st.data())
    def test(data: st.DataObject) -> None:
        _edit_and_check(fmt, data, undo=undo)

    return test


for _fmt in ALL:
    globals()[f"test_{_fmt}_random_edits_keep_bytes_endings_and_other_lines"] = _make(_fmt, False)
    globals()[f"test_{_fmt}_undoing_random_sets_gives_back_the_original_bytes"] = _make(_fmt, True)
