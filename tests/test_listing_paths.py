"""The listings' string shortcuts answer as the pathlib code they replace (issue 15).

``status`` and ``clients`` work out display names, gwconf's own folders and each client's
detection with ``str`` and ``os.path`` instead of ``Path`` objects (most of their per-client work
was pathlib). Each is held here to the pathlib answer it replaced, over generated paths and over
real folders made in a temporary home.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gwconf import registry
from gwconf.clients import _base
from gwconf.clients._base import _in_folders_by_pathlib, in_gwconf_folders
from gwconf.managers import scan
from gwconf.paths import Env, _display_by_pathlib, display

# path texts with the awkward cases: root, "//", relative, "..", names sharing a prefix
_PART = st.sampled_from(["h", "home", "h2", "u", ".config", "gwconf", "..", "a b", "state", "x.json"])
_PATH = st.builds(
    lambda lead, parts: lead + "/".join(parts),
    st.sampled_from(["/", "//", "", "/h/"]),
    st.lists(_PART, max_size=4),
).filter(bool)


@settings(max_examples=400, deadline=None)
@given(home=_PATH, path=_PATH)
def test_display_is_pathlibs_answer(home: str, path: str) -> None:
    env = Env(home=Path(home), platform="linux", environ={})
    assert display(Path(path), env) == _display_by_pathlib(Path(path), env)


@settings(max_examples=400, deadline=None)
@given(home=_PATH, path=_PATH)
def test_other_tools_relative_path_is_pathlibs_answer(home: str, path: str) -> None:
    """``managers._relative`` (which CC Switch and claude-code-router file a path is) by strings."""
    from gwconf.managers import _relative

    env = Env(home=Path(home), platform="linux", environ={})
    try:
        expected = Path(path).relative_to(Path(home)).as_posix()
    except ValueError:
        expected = ""
    assert _relative(Path(path), env) == expected


@settings(max_examples=400, deadline=None)
@given(gwconf_home=st.one_of(st.none(), _PATH), path=_PATH)
def test_gwconf_folders_are_pathlibs_answer(gwconf_home: str | None, path: str) -> None:
    environ = {} if gwconf_home is None else {"GWCONF_HOME": gwconf_home}
    env = Env(home=Path("/h"), platform="linux", environ=environ)
    assert in_gwconf_folders(Path(path), env) == _in_folders_by_pathlib(Path(path), env)


def _detect_by_pathlib(module: object, env: Env) -> bool:
    """``default_detect`` as it was before the string shortcut (Path objects throughout)."""
    if any(env.which(p) for p in module.PROGRAMS):  # type: ignore[attr-defined]
        return True
    shared = {env.home, env.xdg_config_home, env.appdata, env.xdg_data_home}
    return any(
        f.path.exists() or (f.path.parent not in shared and f.path.parent.is_dir())
        for f in module.files(env)  # type: ignore[attr-defined]
        if not _in_folders_by_pathlib(f.path, env)
    )


DEFAULT_DETECT = [
    client_id
    for client_id in registry.IDS
    if getattr(registry.get(client_id).module.detect, "default_for", None) is not None
]


def test_most_clients_use_the_default_detection() -> None:
    assert len(DEFAULT_DETECT) >= 25, DEFAULT_DETECT


@pytest.mark.parametrize("client_id", DEFAULT_DETECT)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_detection_with_known_files_is_the_pathlib_detection(client_id: str, data: st.DataObject) -> None:
    """In a home holding a generated choice of the client's files and folders (and a file in
    gwconf's own folder), detection from files worked out once answers as the pathlib code."""
    client = registry.get(client_id)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = Env(
            home=home,
            platform="linux",
            environ={"HOME": str(home), "GWCONF_HOME": str(Path(tmp) / "gw"), "PATH": tmp},
            cwd=home,
        )
        for file in client.files(env):
            made = data.draw(st.sampled_from(["nothing", "folder", "file"]), label=str(file.path))
            if made != "nothing":
                file.path.parent.mkdir(parents=True, exist_ok=True)
            if made == "file":
                file.path.write_text("{}\n")
        files = client.files(env)
        expected = _detect_by_pathlib(client.module, env)
        assert client.detect(env, files) == expected
        assert client.detect(env) == expected
        assert _base.default_detect_files(client.module, env, files) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        '{"a": 1}\n',
        "# BEGIN CCR managed\nexport X=1\n# END CCR managed\n",
        "  # BEGIN CCR managed (router)\nX=1\n",  # unclosed: runs to the end
        "# END CCR managed\n",
        "# --- model provider added by ZCF ---\n[model_providers.z]\nname = 'z'\n\nx = 1\n",
        "# --- MCP servers added by ZCF ---\n[mcp_servers.a]\n[other]\n",
        "x = '# BEGIN CCR managed'\n",
    ],
)
def test_other_tools_blocks_are_found_with_or_without_the_marker_shortcut(text: str, tmp_path: Path) -> None:
    """managers.scan looks for CCR's and ZCF's blocks only in text holding their marker: a file
    with a marker still shows its blocks, one without shows none."""
    env = Env(home=tmp_path, platform="linux", environ={"HOME": str(tmp_path)}, cwd=tmp_path)
    path = tmp_path / ".codex" / "config.toml"
    found = {s.manager.id: s for s in scan(path, text.encode(), env)}
    stripped = [line.strip() for line in text.splitlines()]
    ccr = [n for n, line in enumerate(stripped, 1) if line.startswith("# BEGIN CCR managed")]
    assert ("claude-code-router" in found) == bool(ccr)
    if ccr:
        assert found["claude-code-router"].blocks[0].first == ccr[0]
    zcf = [n for n, line in enumerate(stripped, 1) if line.startswith("# --- ") and "added by ZCF" in line]
    assert ("zcf" in found) == bool(zcf)
    if zcf:
        assert [b.first for b in found["zcf"].blocks] == zcf


def _project_layers_by_pathlib(env: Env, layout: object, skip: set[Path]) -> list[Path]:
    """opencode's project layers as before the string shortcut, keeping those that are files
    (the only ones ``layers`` ever read)."""
    from gwconf.clients.opencode import folders_to_project_root

    chain = folders_to_project_root(env, stop_at_home=True)[0]
    groups = layout.project_groups  # type: ignore[attr-defined]
    found = [folder / name for group in groups for folder in reversed(chain) for name in group]
    homes = [] if env.home in chain else [env.home]  # the home folder's hidden folders always count
    found += [
        folder / hidden / name
        for folder in [*reversed(chain), *homes]
        for hidden in layout.project_dirs  # type: ignore[attr-defined]
        for name in layout.dir_names  # type: ignore[attr-defined]
    ]
    return [path for path in found if path not in skip and path.is_file()]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_opencode_project_layers_are_the_pathlib_layers(data: st.DataObject) -> None:
    """Files, folders under the same names, a git root and the global folder inside the project
    (its files are skipped): the same layers, in the same order, for opencode and Kilo."""
    from gwconf.clients import kilo, opencode

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        work = home / "repo" / "sub" / "deeper"
        work.mkdir(parents=True)
        if data.draw(st.booleans(), label="git root"):
            (home / "repo" / ".git").mkdir()
        for layout in (opencode.OPENCODE, kilo.LAYOUT):
            for folder in (home, home / "repo", work.parent, work):
                for hidden in ("", *layout.project_dirs):
                    for name in sorted({*layout.dir_names, *(n for g in layout.project_groups for n in g)}):
                        kind = data.draw(st.sampled_from(["none", "none", "file", "folder"]))
                        path = folder / hidden / name
                        if kind == "file" and not path.exists():
                            path.parent.mkdir(parents=True, exist_ok=True)
                            path.write_text("{}\n")
                        elif kind == "folder" and not path.exists():
                            path.mkdir(parents=True)
        env = Env(home=home, platform="linux", environ={"HOME": str(home)}, cwd=work)
        for layout in (opencode.OPENCODE, kilo.LAYOUT):
            skip = {work.parent / name for name in layout.global_names}
            assert opencode.project_layers(env, layout, skip) == _project_layers_by_pathlib(env, layout, skip)


_SEGMENT = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(
            ["", "set -gx ", "set -g ", "export ", "  ", "- ", "+", "$env:", '"', "{", ", ", "?", "&"]
        ),
        st.sampled_from(["API_KEY", "token", "apiKey", "name", "secret", "x"]),
        st.sampled_from(["", '"', "'"]),
        st.sampled_from([" ", "=", ": ", " = ", "", ":"]),
        st.sampled_from(["sk-abcdef123456", '"sk-abc123456789"', "'secret-value-123'", "x", "$KEY", ""]),
        st.sampled_from(["", "\n", ", ", "}", " # c", "&"]),
    ),
)
_SECRETISH = st.lists(_SEGMENT, min_size=1, max_size=3).map("".join)


@settings(max_examples=300, deadline=None)
@given(line=_SECRETISH)
@example(line="set -gx API_KEY sk-abcdef123456")
@example(line="  - set -gx OPENAI_API_KEY 'sk-abcdef123456'")
@example(line="https://gw.example.com/v1/models?api_key=sk-abcdef123456&x=1")
@example(line="GET /v1/models?api_key=sk-abcdef123456&x=1")
@example(line='{"apiKey": "sk-abc123456789", token: sk-abcdef123456}')
@example(line="export TOKEN=sk-abcdef123456 # mine")
def test_name_patterns_skipped_by_their_shortcut_would_have_changed_nothing(line: str) -> None:
    """secrets applies each name pattern only to a line holding the text the pattern needs;
    applying all four to every line (as before) masks exactly the same."""
    from gwconf import secrets

    every = line
    for pattern, _needs in secrets._NAME_PATTERNS:
        every = pattern.sub(secrets._mask_value, every)
    assert secrets._named_values(line) == every


_KEY = st.text(alphabet="ab'\"\\$`%/ +-_k", min_size=0, max_size=12).map(lambda s: "sk-" + s)


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.one_of(_KEY, st.sampled_from(["", "abc", "abcd"])), max_size=3),
    text=st.text(max_size=60),
)
def test_redact_with_kept_replacements_masks_as_working_them_out_each_time(
    keys: list[str], text: str
) -> None:
    """``redact`` keeps each key list's encodings (every printed line passes the same keys):
    twice in a row, and after other key lists, it answers as the table built afresh would."""
    from gwconf import secrets

    def afresh(text: str) -> str:
        forms: dict[str, str] = {}
        for key in keys:
            if key and len(key) >= 4:
                for form in secrets.encodings(key):
                    forms.setdefault(form, secrets.mask(key))
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, forms[form])
        return secrets.redact(text)  # the name and shape patterns, with no key table

    for line in (text, text + " " + "".join(keys), "".join(reversed(keys)) + text):
        expected = afresh(line)
        assert secrets.redact(line, keys) == expected
        assert secrets.redact(line, tuple(keys)) == expected  # kept
        secrets.redact(line, [*keys, "sk-other-key-0000"])
        assert secrets.redact(line, keys) == expected


# JSON texts with what the editor's mask and json's decoder disagree or agree about: comments,
# trailing commas, keys twice, NaN, deep values, a BOM, blanks, strings holding "//" and ","
_JSON_PIECE = st.sampled_from(
    ['"a"', '"b"', '"a/b"', '"//x"', '",]"', "1", "-0.0", "1e400", "true", "null", "NaN", "Infinity",
     "[]", "{}", '{"a": 1}', '{"a": 1, "a": 2}', '{"b": {"a": [1, 2]}}', '"\\u00e9\\/\\ud800\\n"', "1E+2", "-0",
     "12345678901234567890", '"\u2028"', "0.1e-7"]
)  # fmt: skip
_GAP = st.sampled_from(["", " ", "\n", "// c\n", "/* c */", ",", "\t"])


@st.composite
def _json_texts(draw: st.DrawFn) -> str:
    members = draw(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "a/*"]), _JSON_PIECE), max_size=5))
    body = ", ".join(f'"{k}": {v}{draw(_GAP)}' for k, v in members)
    text = draw(_GAP) + "{" + draw(_GAP) + body + draw(_GAP) + "}" + draw(_GAP)
    return draw(st.sampled_from(["", "\ufeff"])) + draw(
        st.sampled_from([text, text, "[1, 2]", "  ", "", "{"])
    )


_GET_PATH = st.lists(st.one_of(st.sampled_from(["a", "b", "c", "a/*"]), st.integers(-2, 2)), max_size=3).map(
    tuple
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=_json_texts(), fmt=st.sampled_from(["json", "jsonc", "json5"]), paths=st.lists(_GET_PATH, max_size=4)
)
def test_listing_reads_a_json_file_as_the_editor_does(
    text: str, fmt: str, paths: list[tuple], tmp_path: Path
) -> None:
    """``status`` and ``clients`` read JSON, JSONC and JSON5 files with ``operations.listing_file``:
    plain ``json`` where it reads the text, data-answered ``get``. The same data, the same values at any path,
    the same error as ``plan.load_file``."""
    from gwconf import operations, plan
    from gwconf.clients._base import ConfigFile
    from gwconf.errors import GwconfError

    env = Env(home=tmp_path, platform="linux", environ={})
    file = ConfigFile("config", tmp_path / "c.json", fmt)
    file.path.write_text(text, encoding="utf-8")

    def outcome(load: object) -> tuple[object, ...]:
        try:
            item = load(file, env)  # type: ignore[operator]
        except GwconfError as exc:
            return ("error", type(exc).__name__, str(exc))
        return ("data", item.data, item.had_bom, item.snapshot.data, [item.doc.get(p, "-") for p in paths])

    assert repr(outcome(operations.listing_file)) == repr(outcome(plan.load_file))  # NaN: by its text


def test_listing_reads_a_missing_file_as_the_editor_does(tmp_path: Path) -> None:
    from gwconf import operations, plan
    from gwconf.clients._base import ConfigFile

    env = Env(home=tmp_path, platform="linux", environ={})
    for fmt in ("json", "jsonc", "toml", "yaml", "dotenv", "shellrc"):
        file = ConfigFile("config", tmp_path / "none" / "c", fmt)
        fast, full = operations.listing_file(file, env), plan.load_file(file, env)
        assert (fast.data, fast.snapshot.data, fast.doc.get(("a",), "-")) == (full.data, None, "-")


def test_status_leaves_a_damaged_profile_out(profile: str, tmp_path: Path) -> None:
    """``status`` reads the saved profiles with ``ProfileStore.readable`` (no ``operations``): a
    damaged one is left out, the others read whole."""
    from gwconf.profiles import ProfileStore

    store = ProfileStore(Env.current())
    (store.folder / "broken.toml").write_text("base_url = [\n", encoding="utf-8")
    found = store.readable()
    assert [p.name for p in found] == [profile]
    assert found[0].key == store.load(profile).key


# TOML lines: what plaintoml takes and what it must leave to tomllib (tables twice, headers
# into arrays or values, escapes, dates, underscores, dotted keys, forbidden characters...)
_TOML_HEADER = st.sampled_from(
    ["[a]", "[a.b]", "[ a . 'b c' ]", '["a"]', "[[a]]", "[[a.b]]", "[b]", "[a.b.c]", "[a]]", "[[a]",
     "[a] # c", "[a] x", "[]", "[ [a] ]", '[p."/home/me"]', "[a.c]", "[[b]]", "[ a . b ]", "[[a.b] ]", "[a.b]]",
     "[[ a ]]#c", "[a-1.b_2]"]
)  # fmt: skip
_TOML_KEY = st.sampled_from(["a", "b", "c", '"a"', "'b'", '""', "a.b", "c-d", "é", "x", "b c"])
_TOML_VALUE = st.sampled_from(
    ['"x"', "'y'", '"x\\"y"', '"a\\nb"', "'c\\d'", '"""x"""', "''' y '''", "1", "+1", "-0", "0.5", "-0.0", "1e5", "1E-02",
     "1_000", "0x1f", "01", "00.5", "1.", ".5", "inf", "nan", "true", "false", "truex", '[1, "a"]',
     "[1,]", "[,]", "[[1], [2]]", "[ ]", "{x = 1}", "{x = 1, x = 2}", "{x = 1,}", "{}", '{ "k" = \'v\', L = 2 }',
     "{a.b = 1}", "1979-05-27", '"a"b', "99999999999999999999", "1e400", '"tab\there"', '"a # b"',
     "12:00:00", "[1", "{x = [1, {y = true}]}", '"\x7f"', '"\x01"', "+inf", '"é"', "",
     '["a", "b",]', '["a,b", "c"]', '[ "x" ]', '["a" "b"]', '["a",,]', '["a\\"]', "{ a = \"x = 'y'\", b = 1 }",
     '{ "a.b" = 1 }', "{a = 01}", "{a = +0, b = -1}", "{a = 'x', }", "{ 'k' = true, k = false }", '{a = "#"} # c']
)  # fmt: skip
_TOML_TAIL = st.sampled_from(["", " # c", "#c", " x", "\t", " # \x01"])
_TOML_LINE = st.one_of(
    _TOML_HEADER,
    st.builds(lambda k, sep, v, t: f"{k}{sep}{v}{t}", _TOML_KEY, st.sampled_from([" = ", "=", " =\t", " "]), _TOML_VALUE, _TOML_TAIL),
    st.sampled_from(["", "# comment", "  ", "\t# x", "\r"]),
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(lines=st.lists(_TOML_LINE, max_size=8), eol=st.sampled_from(["\n", "\r\n"]))
@example(lines=["[a.b]", "x = 1", "[a]", "y = 2", "[a.c]"], eol="\n")
@example(
    lines=['a = "a\\nb"  # an escape: tomllib reads it', "b = 'c\\d'", "c = -0", "d = 'x' # c"], eol="\n"
)
@example(lines=["[a]", "[[a.b]]", "x = 1", "[[a.b]]", "x = 2"], eol="\n")
@example(lines=["[[a.b]]", "[a]", "x = {}"], eol="\r\n")
@example(lines=["[a.b]", "[a]", "[a.b]"], eol="\n")
@example(lines=["[a]", "b = 1", "[a.b]"], eol="\n")
@example(lines=["[a]", "b = {}", "[a.b.c]"], eol="\n")
@example(lines=["[a.b.c]", "[a]", "b = 1"], eol="\n")
def test_plain_toml_reads_as_tomllib_or_leaves_the_file_to_it(lines: list[str], eol: str) -> None:
    """Whatever ``plaintoml.read`` answers is what ``tomllib.loads`` gives for the same text, the
    key order included (marshal's bytes); where tomllib refuses a text, so does it."""
    import marshal
    import tomllib

    from gwconf import plaintoml

    text = eol.join(lines)
    found = plaintoml.read(text)
    if found is None:
        return
    assert marshal.dumps(found) == marshal.dumps(tomllib.loads(text))


def test_plain_toml_takes_the_usual_client_file() -> None:
    from gwconf import plaintoml

    text = (
        '# mine\nmodel = "m"  # the one\nnotify = ["a", \'b\']\n\n[model_providers.gw]\nname = "gw"\n'
        'base_url = "https://gw.example.com/v1"\nrequires_openai_auth = true\ntemperature = 0.2\n'
        '[mcp_servers.docs]\nenv = { "TOKEN" = "abc", LEVEL = \'debug\' }\n[[models]]\nn = 1\n[[models]]\nn = 2\n'
    )
    assert plaintoml.read(text) == {
        "model": "m",
        "notify": ["a", "b"],
        "model_providers": {"gw": {"name": "gw", "base_url": "https://gw.example.com/v1",
                                   "requires_openai_auth": True, "temperature": 0.2}},
        "mcp_servers": {"docs": {"env": {"TOKEN": "abc", "LEVEL": "debug"}}},
        "models": [{"n": 1}, {"n": 2}],
    }  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_TOML_LINE, max_size=6), paths=st.lists(_GET_PATH, max_size=4))
@example(lines=['a.b = "x"', "[a.c]", "[a.b]"], paths=[])  # tomlkit parses it, fails on its data
def test_listing_reads_a_toml_file_as_the_editor_does(
    lines: list[str], paths: list[tuple], tmp_path: Path
) -> None:
    """``listing_file`` on a TOML file: the editor's data, values at any path and error."""
    from gwconf import operations, plan
    from gwconf.clients._base import ConfigFile
    from gwconf.errors import GwconfError

    env = Env(home=tmp_path, platform="linux", environ={})
    file = ConfigFile("config", tmp_path / "c.toml", "toml")
    file.path.write_text("\n".join(lines), encoding="utf-8")

    def outcome(load: object) -> tuple[object, ...]:
        try:
            item = load(file, env)  # type: ignore[operator]
        except GwconfError as exc:
            return ("error", type(exc).__name__, str(exc))
        return ("data", item.data, item.had_bom, item.snapshot.data, [item.doc.get(p, "-") for p in paths])

    assert repr(outcome(operations.listing_file)) == repr(outcome(plan.load_file))  # NaN: by its text


# YAML lines at a few indents: what plainyaml takes and what it must leave to PyYAML (numbers
# and dates of YAML 1.1, booleans' spellings, flow collections, anchors, tags, block scalars'
# indicators, multi-line scalars, keys twice, document markers, tabs...)
_YAML_KEY = st.sampled_from(
    ["a", "b", "c d", '"q"', "'r'", "on", "1", "-x", "~x", "a#b", "key ", "a_b-1", "Null", "_"]
)
_YAML_SCALAR = st.sampled_from(
    ["x", "hello world", "1", "-1", "+0", "007", "1.0", "1.0.0", "1.", "1e5", "1.0e+5", "0o7", "0x1f",
     "1_000", "1:30", "190:20:30.15", "-", "- a", ".", ".5", ".inf", "-.inf", ".NaN", "yes", "No", "OFF",
     "y", "null", "Null", "~", "", "~/x", "${{ secrets.X }}", "a: b", "a #c", "a#b", "http://x:1", "x:",
     '"x"', "'it''s'", '"a\\n"', '"a" # c', '"a"b', "'unclosed", "[a, 'b', 1]", "[]", "[a,]", "[a, [b]]",
     '["x" , y]  # c', "{}", "{} # c", "{a: 1}", "&x a", "*x", "!!str 1", "2001-12-14", "2001-12-14 21:59:43.10 -5",
     "<<", "=", "@x", "%x", "?", "`x`", "é", "a\u00a0b", "--flag", "a, b", "x]", "$x", "/tmp/x", "a,b", "a{b",
     "x # c", "'a' # c", '"a: b"', '"#"', "''", '""', "'a''b'", "~ # c", "yes # c", "a#", "_x"]
)  # fmt: skip
_YAML_BLOCK = st.sampled_from([">-", ">", "|", "|-", ">+", "|2", "> # c", ">-x"])
_YAML_LINE = st.builds(
    lambda indent, piece: " " * indent + piece,
    st.sampled_from([0, 0, 2, 4]),
    st.one_of(
        st.builds(lambda k, v: f"{k}: {v}".rstrip(), _YAML_KEY, _YAML_SCALAR),
        st.builds(lambda k: f"{k}:", _YAML_KEY),
        st.builds(lambda k, b: f"{k}: {b}", _YAML_KEY, _YAML_BLOCK),
        st.builds(lambda v: f"- {v}".rstrip(), _YAML_SCALAR),
        st.builds(lambda k, v: f"- {k}: {v}".rstrip(), _YAML_KEY, _YAML_SCALAR),
        st.sampled_from(["-", "# comment", "", "text line", "  more text", "---", "...", "\tx: 1", "- - a", "x: 1 "]),
    ),
)  # fmt: skip


@settings(max_examples=1200, deadline=None)
@given(lines=st.lists(_YAML_LINE, min_size=1, max_size=8), end=st.sampled_from(["\n", ""]))
@example(lines=["a:", "- x", "- y", "b: 1"], end="\n")
@example(lines=["- a: 1", "  b:", "  - x", "- c"], end="\n")
@example(lines=["a: >-", "  folded", "  text", "b: |", "  kept", "  lines"], end="")
@example(lines=["a: |", "  one", "", "  two"], end="\n")
@example(lines=["a: >", "  last"], end="")
@example(lines=["a: |", "  one", "", "", "b: 1"], end="\n")
@example(lines=["a: |-", "  one", "", "", "  two"], end="\n")
@example(lines=["a:", "  b: |", "    one", "", "  c: 1", "", "d: >", "    x", ""], end="")
@example(lines=["a:", "  b: 1", "  b: 2"], end="\n")
@example(lines=["a: >-", "  a:", "    "], end="\n")  # a blank line past the indent: PyYAML keeps its spaces
@example(lines=["a: >-", "  a:", "", "    "], end="\n")
@example(lines=["version: 1.0.0", "temp: 1.0", "cwd: .", "x: [a, 'b']", "y: {}"], end="\n")
def test_plain_yaml_reads_as_pyyaml_or_leaves_the_file_to_it(lines: list[str], end: str) -> None:
    """Whatever ``plainyaml.read`` answers is what ``yaml.safe_load`` gives for the same text,
    key order and types included (marshal's bytes); where PyYAML refuses a text, so does it."""
    import marshal

    import yaml

    from gwconf import plainyaml

    text = "\n".join(lines) + end
    found = plainyaml.read(text)
    if found is None:
        return
    assert marshal.dumps(found) == marshal.dumps(yaml.safe_load(text))


def test_plain_yaml_looks_at_each_line_a_bounded_number_of_times() -> None:
    """Blank lines after ``|`` and ``>`` blocks: the lines after them are looked at in place.
    A copy of the rest of the file for each such block made a listing quadratic (750 KB of
    them took 2.2 s, 4 MB about a minute). Counted, not timed: every look at a line counts."""
    from gwconf import plainyaml

    class Counted(list):
        looks = 0

        def __getitem__(self, index: Any) -> Any:
            found = super().__getitem__(index)
            Counted.looks += len(found) if isinstance(index, slice) else 1
            return found

        def __iter__(self) -> Any:
            for line in super().__iter__():
                Counted.looks += 1
                yield line

    blocks = 2000
    text = "".join(f"k{i}: |\n  line {i}\n\n\n" for i in range(blocks))
    reader = plainyaml._Reader(text)
    lines = len(reader.raw)
    reader.raw = Counted(reader.raw)
    found = reader.document()
    assert found == {f"k{i}": f"line {i}\n" for i in range(blocks)}
    assert Counted.looks <= 4 * lines


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_YAML_LINE, min_size=1, max_size=6), paths=st.lists(_GET_PATH, max_size=4))
@example(lines=["a:", "  b: 1", "  b: 2"], paths=[("a",)])
@example(lines=["a:", "  a: 2001-12-14"], paths=[("a",)])  # a date inside a table: no marshal
def test_listing_reads_a_yaml_file_as_the_editor_does(
    lines: list[str], paths: list[tuple], tmp_path: Path
) -> None:
    """``listing_file`` on a YAML file: the editor's data, values at any path and error."""
    from gwconf import operations, plan
    from gwconf.clients._base import ConfigFile
    from gwconf.errors import GwconfError

    env = Env(home=tmp_path, platform="linux", environ={})
    file = ConfigFile("config", tmp_path / "c.yaml", "yaml")
    file.path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def outcome(load: object) -> tuple[object, ...]:
        try:
            item = load(file, env)  # type: ignore[operator]
        except GwconfError as exc:
            return ("error", type(exc).__name__, str(exc))
        return ("data", item.data, item.had_bom, item.snapshot.data, [item.doc.get(p, "-") for p in paths])

    assert repr(outcome(operations.listing_file)) == repr(outcome(plan.load_file))  # NaN: by its text


_YAML_WORD_KEY = st.sampled_from(["a", "b", "name", "api_key", "base-url", '"q"', "'r s'", "c d"])
_YAML_LEAF = st.one_of(_YAML_SCALAR, _YAML_BLOCK.map(lambda b: (b, ["text", "more text"])))


def _yaml_node(depth: int) -> st.SearchStrategy:
    if depth >= 3:
        return _YAML_LEAF
    inner = st.deferred(lambda: _yaml_node(depth + 1))
    return st.one_of(
        _YAML_LEAF,
        st.lists(st.tuples(_YAML_WORD_KEY, inner), min_size=1, max_size=3).map(dict),
        st.lists(inner, min_size=1, max_size=3),
    )


def _render_yaml(node: object, indent: int, flags: st.DataObject) -> list[str]:
    """Block YAML for ``node`` (a dict, a list, or a leaf: a scalar's text or a block scalar)."""
    pad = " " * indent
    out: list[str] = []

    def leaf_lines(prefix: str, leaf: object, deeper: int) -> list[str]:
        if isinstance(leaf, tuple):
            header, body = leaf
            return [prefix + header] + [" " * deeper + line for line in body]
        return [(prefix + str(leaf)).rstrip()]

    if isinstance(node, dict):
        for key, value in node.items():
            if flags.draw(st.booleans(), label="comment"):
                out.append(pad + "# note")
            if isinstance(value, (dict, list)):
                out.append(f"{pad}{key}:")
                same = isinstance(value, list) and flags.draw(st.booleans(), label="indentless")
                out += _render_yaml(value, indent if same else indent + 2, flags)
            else:
                out += leaf_lines(f"{pad}{key}: ", value, indent + 2)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                lines = _render_yaml(item, indent + 2, flags)
                out.append(pad + "- " + lines[0][indent + 2 :])
                out += lines[1:]
            elif isinstance(item, list):
                out.append(pad + "-")
                out += _render_yaml(item, indent + 2, flags)
            else:
                out += leaf_lines(pad + "- ", item, indent + 2)
    else:
        out += leaf_lines(pad, node, indent + 2)
    return out


@settings(max_examples=800, deadline=None)
@given(
    tree=st.lists(st.tuples(_YAML_WORD_KEY, _yaml_node(0)), min_size=1, max_size=4).map(dict), data=st.data()
)
def test_plain_yaml_reads_generated_block_documents_as_pyyaml(tree: dict, data: st.DataObject) -> None:
    """Nested block mappings and sequences (some at their key's indent), comments between
    entries, folded and literal blocks: plainyaml's answer, when it gives one, is PyYAML's."""
    import marshal

    import yaml

    from gwconf import plainyaml

    text = "\n".join(_render_yaml(tree, 0, data)) + "\n"
    found = plainyaml.read(text)
    if found is None:
        return
    assert marshal.dumps(found) == marshal.dumps(yaml.safe_load(text))


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(
        st.one_of(_SECRETISH, st.sampled_from(["\u212aey: sk-abcdef123456", "İ", "ＫEY=x", "名前"])),
        max_size=4,
    )
)
def test_the_lines_redaction_skips_hold_no_secret_name(lines: list[str]) -> None:
    """``_named_lines`` meets the name patterns only with lines holding a secret-ish word (found in
    ``str.lower``'s text, which lowers more than ASCII and lengthens U+0130): applying them to
    every line masks exactly the same."""
    from gwconf import secrets

    text = "\n".join(lines)
    every = "".join(secrets._named_values(line) for line in text.splitlines(keepends=True))
    assert secrets._named_lines(text) == every
