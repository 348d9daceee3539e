"""Differential test: gwconf's editors against the readers the clients themselves use (issue 23).

Readers: npm ``jsonc-parser`` (VS Code; the JSONC dialect of Zed, opencode, Gemini CLI), npm
``dotenv`` and PyPI ``python-dotenv``, installed pinned by scripts/readers-install into the e2e
cache (as the real clients are), plus ``tomllib`` and PyYAML in this process.

Documents come from a seeded generator (``GWCONF_DIFF_SEED``, ``GWCONF_DIFF_N`` documents per
format), in the categories of the public conformance suites (JSONTestSuite, toml-test,
yaml-test-suite) but written here: comments everywhere, blank lines, CRLF, lone CR, tabs,
duplicate keys first, in the middle and last, nested and as the parent of what is edited, every
string escape. Each document is edited by gwconf's editor; the checks:

- gwconf reads every document as the reference reader does (or refuses it, only where noted);
- the reference reader reads the edited text as the original data with exactly that edit made
  (the edited value, and every other value unchanged);
- every ``.env`` value gwconf writes reads the same in npm dotenv, python-dotenv and a POSIX shell.

All documents of a run go to one node process and one python-dotenv process.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import MISSING, get_plain, load, replay
from gwconf.formats.dotenv import quote

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SEED = int(os.environ.get("GWCONF_DIFF_SEED", "23"))
N = int(os.environ.get("GWCONF_DIFF_N", "300"))


def _cache() -> Path:
    if os.environ.get("GWCONF_E2E_CACHE"):
        return Path(os.environ["GWCONF_E2E_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ["HOME"], ".cache")
    return Path(base) / "gwconf-e2e"


CACHE = _cache()  # at import: the hermetic fixture moves HOME later


@pytest.fixture(scope="session")
def readers() -> dict[str, str]:
    """name -> installed location (or a skip reason), from readers.tsv; installs on a cold cache."""
    manifest = CACHE / "readers.tsv"
    if not manifest.exists():
        subprocess.run(
            ["bash", str(REPO / "scripts" / "readers-install")],
            capture_output=True,
            timeout=900,
            env={**os.environ, "GWCONF_E2E_CACHE": str(CACHE)},
        )
    found: dict[str, str] = {}
    if manifest.exists():
        for line in manifest.read_text().splitlines()[1:]:
            name, version, status, detail = [*line.split("\t"), "", "", "", ""][:4]
            found[name] = detail if status == "ok" else f"SKIP {name} {version} did not install: {detail}"
    return found


def _need(readers: dict[str, str], *names: str) -> None:
    for name in names:
        where = readers.get(name)
        if where is None:
            pytest.skip(f"reference reader {name} is not installed (bash scripts/readers-install)")
        if where.startswith("SKIP "):
            pytest.skip(where[5:])


def _node(readers: dict[str, str], docs: list[dict[str, str]]) -> list[Any]:
    prefix = str(Path(readers["jsonc-parser"]).parents[1])
    out = subprocess.run(
        ["node", str(HERE / "reference_readers.js")],
        input=json.dumps({"prefix": prefix, "docs": docs}),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def _python_dotenv(readers: dict[str, str], tmp: Path, texts: list[str]) -> list[Any]:
    paths = []
    for i, text in enumerate(texts):
        path = tmp / f"{i}.env"
        path.write_bytes(text.encode())
        paths.append(str(path))
    out = subprocess.run(
        [readers["python-dotenv"], str(HERE / "reference_dotenv.py")],
        input=json.dumps(paths),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


# -- JSONC -------------------------------------------------------------------------------------

KEYS = ["a", "b", "model", "env", "ключ", "k 1", "", "x.y", "emoji😀", 'q"uote', "tab\tkey", "\\back", "/"]
STRINGS = [
    "",
    "plain",
    "é ß 中 😀",
    'q"uote',
    "back\\slash",
    "line\nbreak",
    "tab\t",
    "/*not*/",
    "//not",
    "\u2028",
]


class JsoncGen:
    """One random JSONC document: data rendered in a random layout, with duplicates and comments."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.eol = rng.choice(["\n", "\n", "\r\n", "\r"])
        self.unit = rng.choice(["  ", "    ", "\t"])
        self.trailing = rng.random() < 0.4
        self.dups = rng.random() < 0.5

    def scalar(self) -> Any:
        rng = self.rng
        kind = rng.randrange(6)
        if kind == 0:
            return rng.choice(STRINGS)
        if kind == 1:
            return rng.randrange(-1000, 1000)
        if kind == 2:
            return rng.choice([1.5, -0.25, 1e3, 2.5e-3])
        if kind == 3:
            return rng.choice([True, False])
        if kind == 4:
            return None
        return "".join(rng.choice('aZ9 é"\\/\n\t😀') for _ in range(rng.randrange(6)))

    def string(self, value: str) -> str:
        text = json.dumps(value, ensure_ascii=self.rng.random() < 0.3)
        if self.rng.random() < 0.2:
            text = text.replace("/", "\\/")
        return text

    def comment(self, inline: bool) -> str:
        rng = self.rng
        if inline or rng.random() < 0.5:
            return rng.choice(["/* c */", "/**/", "/* ключ */", "/* a // b */", "/* *x* */"])
        return rng.choice(
            ["// note", "// ключ: значение 😀", "//", "// /* not a block", "// trailing, comma"]
        )

    def gap(self) -> str:
        return " " + self.comment(True) + " " if self.rng.random() < 0.12 else ""

    def value(self, depth: int) -> Any:
        rng = self.rng
        if depth < 3 and rng.random() < 0.35:
            if rng.random() < 0.7:
                return {rng.choice(KEYS): self.value(depth + 1) for _ in range(rng.randrange(5))}
            return [self.value(depth + 1) for _ in range(rng.randrange(4))]
        return self.scalar()

    def members(self, data: dict[str, Any], depth: int) -> list[tuple[str, Any]]:
        """The data's members, with earlier duplicates of some keys that the last one overrides."""
        items = list(data.items())
        if not self.dups or not items:
            return items
        out: list[tuple[str, Any]] = []
        for key, value in items:
            if self.rng.random() < 0.3:  # a dead earlier copy, right before or further up
                out.insert(self.rng.randrange(len(out) + 1), (key, self.value(depth + 1)))
            out.append((key, value))
        return out

    def render(self, value: Any, indent: str, depth: int) -> str:
        rng = self.rng
        if isinstance(value, dict):
            pairs = self.members(value, depth)
            if not pairs:
                return "{" + self.gap() + "}"
            members = [
                f"{self.string(k)}{self.gap()}:{rng.choice([' ', '', chr(9)])}{self.render(v, indent + self.unit, depth + 1)}"
                for k, v in pairs
            ]
            return self.block("{", "}", members, indent)
        if isinstance(value, list):
            if not value:
                return "[" + self.gap() + "]"
            items = [self.render(v, indent + self.unit, depth + 1) for v in value]
            return self.block("[", "]", items, indent)
        if isinstance(value, str):
            return self.string(value)
        return json.dumps(value)

    def block(self, open_: str, close: str, items: list[str], indent: str) -> str:
        rng, eol = self.rng, self.eol
        if rng.random() < 0.3:  # one line
            return open_ + self.gap() + ", ".join(items) + ("," if self.trailing else "") + self.gap() + close
        inner = indent + self.unit
        out = open_ + (" " + self.comment(False) if rng.random() < 0.1 else "") + eol
        for i, item in enumerate(items):
            if rng.random() < 0.2:
                out += inner + self.comment(False) + eol
            if rng.random() < 0.1:
                out += eol  # a blank line
            last = i == len(items) - 1
            comma = "," if not last or self.trailing else ""
            tail = " " + self.comment(False) if rng.random() < 0.2 else ""
            out += inner + item + comma + tail + eol
        if rng.random() < 0.1:
            out += inner + self.comment(False) + eol
        return out + indent + close

    def document(self) -> tuple[str, Any]:
        data = {self.rng.choice(KEYS): self.value(1) for _ in range(self.rng.randrange(1, 7))}
        head = self.comment(False) + self.eol if self.rng.random() < 0.4 else ""
        end = self.eol if self.rng.random() < 0.8 else ""
        return head + self.render(data, "", 0) + end, data


def _scalar_paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _scalar_paths(v, (*prefix, k))] or [prefix]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _scalar_paths(v, (*prefix, i))] or [prefix]
    return [prefix]


def _containers(data: Any, kind: type, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if isinstance(data, kind) else []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        found += _containers(value, kind, (*prefix, key))
    return found


def _edit(rng: random.Random, doc: Any, data: Any, value: Any) -> None:
    """One random edit of the kinds gwconf makes: set a value, add a key, delete a key, append."""
    kind = rng.randrange(4)
    if kind == 0:
        path = rng.choice(_scalar_paths(data))
        if path:
            doc.set(path, value)
            return
    if kind == 1 or kind == 0:
        where = rng.choice(_containers(data, dict))
        doc.set((*where, rng.choice(["gwconf", "new key", "ключ", *KEYS])), value)
        return
    if kind == 2:
        keyed = [p for p in _scalar_paths(data) if p and isinstance(p[-1], str)]
        if keyed:
            doc.delete(rng.choice(keyed))
            return
    lists = _containers(data, list)
    if lists:
        doc.append(rng.choice(lists), value)
    else:
        doc.set(("gwconf",), value)


def test_jsonc_reads_and_edits_as_vs_codes_jsonc_parser(readers: dict[str, str]) -> None:
    _need(readers, "jsonc-parser")
    rng = random.Random(SEED)
    cases = []
    for i in range(N):
        gen = JsoncGen(rng)
        text, _ = gen.document()
        doc = load("jsonc", text, f"doc{i}.jsonc")
        before = doc.data()
        value = rng.choice([gen.scalar(), {"base_url": "https://gw.example.com/v1", "k": [1, "x"]}])
        _edit(rng, doc, before, value)
        if rng.random() < 0.5:
            _edit(rng, doc, replay(before, doc.ops), gen.scalar())
        cases.append((text, before, doc.dump(), replay(before, doc.ops)))
    results = _node(readers, [{"kind": "jsonc", "text": t} for c in cases for t in (c[0], c[2])])
    problems = []
    for n, (text, before, edited, intended) in enumerate(cases):
        original, after = results[2 * n], results[2 * n + 1]
        if original["errors"]:
            problems.append(("generator wrote a document jsonc-parser rejects", text, original["errors"]))
        elif original["value"] != before:
            problems.append(("gwconf reads it differently", text, original["value"], before))
        elif after["errors"] or after["value"] != intended:
            problems.append(("the edit reads differently in jsonc-parser", text, edited, after, intended))
    assert not problems, f"{len(problems)} of {len(cases)}: {problems[:3]!r}"


# -- dotenv ------------------------------------------------------------------------------------

ENV_NAMES = ["A", "B", "KEY_1", "OPENAI_API_KEY", "MY-VAR", "a.b"]
ENV_TOKENS = [
    "v",
    "",
    "sk-1.2_x/y:z@w+v",
    "'single q'",
    "'multi\nline'",
    '"double"',
    '"esc \\" \\\\ \\n \\t \\$"',
    '"multi\nline"',
    "`back tick`",
    "x#y",
    "a b  ",
    "'it''s'",
    "é ß 中 😀",
    "'a\\\\b'",
    '"\\t"',
    "$HOME",
]
ENV_VALUES = [
    "sk-new",
    "",
    "two words",
    "it's",
    'say "hi"',
    "$HOME $(id)",
    "`id`",
    "a\\b",
    "it's a\\d",
    "line1\nline2",
    " #lead",
    "ünïcödé 🚀",
    "tab\there",
    "it's $x",
    "a\\\\b",
    "${HOME}",
    'it\'s "q"',
]


def _env_document(rng: random.Random, npm: bool) -> str:
    eol = rng.choice(["\n", "\n", "\r\n"])
    lines = []
    for _ in range(rng.randrange(1, 9)):
        kind = rng.random()
        if kind < 0.15:
            lines.append(rng.choice(["# comment", "#", "  # indented é", "# A=commented"]))
        elif kind < 0.25:
            lines.append(rng.choice(["", "  ", "\t"]))
        elif kind < 0.3:
            lines.append("export " + rng.choice(ENV_NAMES[:4]))  # bare: sets nothing
        else:
            name = rng.choice(ENV_NAMES)  # names repeat: duplicates in every position
            prefix = rng.choice(["", "", "export ", "  ", "\t"])
            eq = rng.choice(["=", "=", " = ", "= ", "=\t"])
            token = rng.choice(ENV_TOKENS)
            tail = rng.choice(["", "", "  # note", " #", "\t# tab"])
            if not token and tail and not npm:
                tail = ""  # python-dotenv reads `A=  # note` as "# note": allowed, but not this case
            lines.append(f"{prefix}{name}{eq}{token}{tail}")
    text = eol.join(lines)
    return text + eol if rng.random() < 0.8 else text


def _env_cases(rng: random.Random, fmt: str) -> list[tuple[str, Any, str, Any, bool]]:
    cases = []
    for i in range(N):
        text = _env_document(rng, fmt == "dotenv-npm")
        try:
            doc = load(fmt, text, f"{i}.env")
        except ParseError:
            cases.append((text, None, "", None, False))  # the reference must refuse it too
            continue
        before = doc.data()
        refused = False
        for _ in range(rng.randrange(1, 3)):
            name = rng.choice([*before, "NEW_KEY", "OPENAI_API_KEY"]) if before else "NEW_KEY"
            try:
                if rng.random() < 0.25 and name in before:
                    doc.delete((name,))
                else:
                    doc.set((name,), rng.choice(ENV_VALUES))
            except WriteRefused:
                refused = True
        cases.append((text, before, doc.dump(), replay(before, doc.ops), refused))
    return cases


@pytest.mark.parametrize("fmt", ["dotenv", "dotenv-npm"])
def test_dotenv_reads_and_edits_as_the_clients_library(
    readers: dict[str, str], tmp_path: Path, fmt: str
) -> None:
    _need(readers, "python-dotenv" if fmt == "dotenv" else "dotenv")
    rng = random.Random(SEED + (fmt == "dotenv-npm"))
    cases = _env_cases(rng, fmt)
    texts = [t for c in cases for t in (c[0], c[2])]
    if fmt == "dotenv":
        results = [(r["values"], r["errors"]) for r in _python_dotenv(readers, tmp_path, texts)]
    else:
        results = [(r["value"], []) for r in _node(readers, [{"kind": "dotenv", "text": t} for t in texts])]
    problems = []
    for n, (text, before, edited, intended, _) in enumerate(cases):
        (original, errors), (after, after_errors) = results[2 * n], results[2 * n + 1]
        if before is None:
            if fmt == "dotenv" and not errors:
                problems.append(("gwconf refuses what python-dotenv reads", text, original))
            continue
        if errors:
            problems.append(("gwconf reads what python-dotenv cannot", text, errors))
        elif original != before:
            problems.append(("gwconf reads it differently", text, original, before))
        elif after_errors or after != intended:
            problems.append(("the edit reads differently", text, edited, after, intended))
    assert not problems, f"{len(problems)} of {len(cases)}: {problems[:3]!r}"
    assert sum(c[1] is not None for c in cases) > N * 0.8  # most documents were edited, not refused


def _sh(tmp: Path, text: str, names: list[str]) -> dict[str, str]:
    path = tmp / "sh.env"
    path.write_bytes(text.encode())
    script = 'set -a; . "$1"; shift; for n in "$@"; do eval "printf \'%s\\0\' \\"\\${$n}\\""; done'
    out = subprocess.run(
        ["sh", "-c", script, "sh", str(path), *names],
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.stderr == b"", out.stderr
    return dict(zip(names, out.stdout.decode().split("\0")[:-1], strict=True))


def test_every_written_env_value_reads_the_same_in_npm_dotenv_python_dotenv_and_sh(
    readers: dict[str, str], tmp_path: Path
) -> None:
    """Issue 18 item 5: a value gwconf writes is the same string for every reader of the file;
    one that has no such spelling is refused, never written in a form one of them misreads."""
    _need(readers, "dotenv", "python-dotenv")
    rng = random.Random(SEED)
    alphabet = "aZ9 _-.:/é😀'\"#\\$`={}\t\n!*?~;&|<>()"
    values = [
        *ENV_VALUES,
        *("".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(N)),
    ]
    texts, expected, refused = [], [], 0
    for start in range(0, len(values), 20):
        chunk = values[start : start + 20]
        doc = load("dotenv", "# gwconf's values\n", "w.env")
        written = {}
        for i, value in enumerate(chunk):
            try:
                doc.set((f"V{i}",), value)
                written[f"V{i}"] = value
            except WriteRefused:
                refused += 1
                with pytest.raises(WriteRefused):
                    quote(value)
        texts.append(doc.dump())
        expected.append(written)
    npm = [r["value"] for r in _node(readers, [{"kind": "dotenv", "text": t} for t in texts])]
    python = [r["values"] for r in _python_dotenv(readers, tmp_path, texts)]
    for text, want, by_npm, by_python in zip(texts, expected, npm, python, strict=True):
        assert by_npm == want, text
        assert by_python == want, text
        assert _sh(tmp_path, text, list(want)) == want, text
    assert refused < len(values) / 2


# -- TOML (tomllib) and YAML (PyYAML), in this process --------------------------------------------

TOML_STRINGS = [
    '"plain"',
    '"esc \\" \\\\ \\n \\t \\u00e9"',
    "'literal \\n'",
    '"""\nmulti\nline"""',
    "'''\nraw\\n'''",
    '"é 😀"',
]
TOML_VALUES = ["1", "-7", "1.5", "true", "1979-05-27", "[1, 2]", '["a", "b",]', "{ x = 1 }"]


def _toml_document(rng: random.Random) -> str:
    eol = rng.choice(["\n", "\n", "\r\n"])
    out: list[str] = []

    def comment() -> None:
        if rng.random() < 0.3:
            out.append(rng.choice(["# comment", "# ключ é 😀", "#", "\t# tabbed"]))
        if rng.random() < 0.15:
            out.append("")

    def pairs(prefix: str) -> None:
        used: set[str] = set()
        for _ in range(rng.randrange(4)):
            key = rng.choice(["model", "base_url", "name", '"quoted key"', "dotted.key", "k-1", '"ключ"'])
            if key in used or key.split(".")[0] in {u.split(".")[0] for u in used if "." in u or "." in key}:
                continue
            used.add(key)
            comment()
            value = rng.choice(TOML_STRINGS + TOML_VALUES)
            tail = rng.choice(["", "", "  # note", "\t#x"])
            out.append(
                f"{rng.choice(['', '  ', chr(9)]) if prefix else ''}{key}{rng.choice([' = ', '=', ' =  '])}{value}{tail}"
            )

    comment()
    pairs("")
    if rng.random() < 0.5:
        out.append(
            f'gw = {{ name = {rng.choice(TOML_STRINGS[:3])}, base_url = "http://x"{rng.choice([" ", ""])}}}'
        )
    for table in rng.sample(
        ["tui", "model_providers.mine", "profiles.fast", "mcp_servers.x"], rng.randrange(3)
    ):
        comment()
        out.append(f"[{table}]" + rng.choice(["", "  # table"]))
        pairs(table)
    if rng.random() < 0.3:
        out += ["[[aot]]", "n = 1", "[[aot]]", "n = 2"]
    text = eol.join(out)
    return text + eol if rng.random() < 0.8 else text


def _yaml_document(rng: random.Random) -> str:
    eol = rng.choice(["\n", "\n", "\r\n"])
    out: list[str] = []
    scalars = [
        "plain",
        "'single ''q'''",
        '"double \\" \\t é"',
        "1",
        "true",
        "null",
        "~",
        "1.5",
        "é 😀",
        "'# not'",
    ]
    for _ in range(rng.randrange(1, 6)):
        if rng.random() < 0.25:
            out.append(rng.choice(["# comment", "# ключ", ""]))
        key = rng.choice(
            ["name", "model", "apiBase", "schema", "ключ", "'q k'", "k_" + str(rng.randrange(99))]
        )
        if any(line.startswith(key + ":") for line in out):
            continue
        kind = rng.randrange(5)
        tail = rng.choice(["", "", "  # note"])
        if kind == 0:
            out.append(f"{key}: {rng.choice(scalars)}{tail}")
        elif kind == 1:
            style = rng.choice(["|", ">", "|-", ">+", "|2"])
            body = ["  line one", "  ", "    more", "", "  end"][: rng.randrange(1, 6)]
            if rng.random() < 0.4:
                body.append("  " + " " * rng.randrange(3))  # an indented blank line last
            if body[0].strip() == "":
                body[0] = "  first"
            out += [f"{key}: {style}{tail}", *body]
        elif kind == 2:
            out.append(f"{key}:{tail}")
            for _ in range(rng.randrange(1, 4)):
                out.append(f"  - {rng.choice(scalars)}")
        elif kind == 3:
            out.append(f"{key}:{tail}")
            used = set()
            for sub in rng.sample(["provider", "model", "apiKey", "roles"], rng.randrange(1, 4)):
                used.add(sub)
                out.append(f"  {sub}: {rng.choice(scalars)}")
        else:
            out.append(f"{key}: {rng.choice(['[a, b]', '{x: 1, y: [2]}', '[]', '{}'])}{tail}")
    if rng.random() < 0.2:
        out.insert(0, "%YAML 1.1" + eol + "---")
    text = eol.join(out)
    return text + eol if rng.random() < 0.8 else text


@pytest.mark.parametrize("fmt", ["toml", "yaml"])
def test_toml_and_yaml_read_and_edit_as_tomllib_and_pyyaml(fmt: str) -> None:
    rng = random.Random(SEED)
    reader = tomllib.loads if fmt == "toml" else (lambda text: yaml.safe_load(text) or {})
    problems, edited_count = [], 0
    for i in range(N):
        text = _toml_document(rng) if fmt == "toml" else _yaml_document(rng)
        try:
            reference = reader(text)
        except (tomllib.TOMLDecodeError, yaml.YAMLError):
            continue  # the generator wrote something invalid: not this test's subject
        doc = load(fmt, text, f"{i}.{fmt}")
        if doc.data() != reference:
            problems.append(("gwconf reads it differently", text, doc.data(), reference))
            continue
        value = rng.choice(["sk-new", 'it\'s "q" # not', 7, {"base_url": "https://gw/v1", "n": [1]}, "é\n😀"])
        try:
            _edit(rng, doc, reference, value)
        except WriteRefused as exc:
            problems.append(("refused", text, str(exc)))
            continue
        edited_count += 1
        intended = replay(reference, doc.ops)
        try:
            after = reader(doc.dump())
        except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
            problems.append(("the edit does not parse", text, doc.dump(), str(exc)))
            continue
        if after != intended:
            problems.append(("the edit reads differently", text, doc.dump(), after, intended))
    assert not problems, f"{len(problems)} of {N}: {problems[:3]!r}"
    assert edited_count > N * 0.7


def test_the_differential_readers_agree_on_a_known_answer(readers: dict[str, str], tmp_path: Path) -> None:
    """The harness itself: known documents give the known readings (a broken runner is no pass)."""
    _need(readers, "jsonc-parser", "dotenv", "python-dotenv")
    text = '{"a": 1, // c\r"a": 2,}'
    assert _node(readers, [{"kind": "jsonc", "text": text}])[0] == {"value": {"a": 2}, "errors": []}
    assert load("jsonc", text, "x").data() == {"a": 2}
    env = "MY-VAR=1\r\nA=\"x\" y\nB='a\\\\b'\n"
    assert _node(readers, [{"kind": "dotenv", "text": env}])[0]["value"] == {
        "MY-VAR": "1",
        "A": '"x" y',
        "B": "a\\\\b",
    }
    python = _python_dotenv(readers, tmp_path, [env])[0]
    assert python == {"values": {"MY-VAR": "1", "B": "a\\b"}, "errors": [2]}
    assert get_plain(load("dotenv-npm", env, "x").data(), ("A",)) == '"x" y'
    assert get_plain(load("dotenv", "B='a\\\\b'\n", "x").data(), ("B",)) == "a\\b" != MISSING
