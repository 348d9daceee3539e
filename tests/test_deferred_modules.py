"""The console entry puts ``ipaddress``, ``ntpath`` and ``re`` off until something uses them (issue
15: ``pathlib`` imports all three, ``json`` and ``urllib.parse`` compile patterns at import, and
``re`` brings ``enum``; 6.7M and 15M instructions of every command, which almost none needs).
Whoever uses them must get the real modules, whichever way they reach them."""

from __future__ import annotations

import os
import subprocess
import sys

# what ``gwconf.cli.main`` does first, then the imports every command makes
DEFER = "import sys; from gwconf.cli import _defer_unused_modules; _defer_unused_modules(); import pathlib; "


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)


def _prints_ok(code: str) -> None:
    """``code`` runs in a fresh interpreter, prints ``ok`` and nothing else."""
    proc = _python(code)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


def test_pathlib_loads_neither_module() -> None:
    code = DEFER + "print(*(sorted(vars(sys.modules[n])) for n in ('ipaddress', 'ntpath')))"
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert "ip_address" not in proc.stdout and "splitdrive" not in proc.stdout


def test_every_way_of_using_them_reaches_the_real_modules() -> None:
    code = DEFER + (
        "import urllib.parse, ipaddress\n"
        "kept = ipaddress\n"  # a reference taken before the first use, as urllib.parse holds one
        "assert urllib.parse.urlsplit('http://[::1]:8080/v1').hostname == '::1'\n"  # uses ipaddress
        "from ipaddress import ip_address, IPv4Address\n"
        "import ipaddress as again\n"
        "assert ip_address('127.0.0.1').is_loopback and isinstance(ip_address('10.0.0.1'), kept.IPv4Address)\n"
        "assert kept.IPv4Address is again.IPv4Address is IPv4Address\n"
        "assert sys.modules['ipaddress'].__file__.endswith('ipaddress.py')\n"
        "assert str(pathlib.PureWindowsPath('C:/Users/me', 'x.json')) == 'C:\\\\Users\\\\me\\\\x.json'\n"
        "import ntpath\n"
        "assert ntpath.join('a', 'b') == 'a\\\\b'\n"
        "from gwconf import urls\n"
        "assert urls.is_loopback('::1') and urls.is_loopback('127.0.0.2') and not urls.is_loopback('10.0.0.1')\n"
        "print('ok')"
    )
    _prints_ok(code)


def test_a_listing_through_the_console_entry_loads_neither(profile: str) -> None:
    """``profile list`` and ``status`` as users run them: the modules stay deferred to the end
    (an atexit handler reports them, which also makes ``main`` exit the usual way)."""
    report = (
        "import atexit, sys; atexit.register(lambda: print(*(type(sys.modules[n]).__name__ "
        "for n in ('ipaddress', 'ntpath')), file=sys.stderr)); "
    )
    main = "from gwconf.cli import main; sys.argv = ['gwconf', *sys.argv[1:]]; main()"
    for args in (["profile", "list"], ["status"]):
        proc = _python(report + main, *args)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines()[-1] == "DeferredModule DeferredModule"


def test_status_of_clients_whose_addresses_are_names_loads_neither(gwconf, profile: str) -> None:
    """OpenClaw's reader asks whether the gateway is on a private network: a host name is no IP
    address, and asking ``ipaddress`` to be sure loaded it (4.7M instructions of ``status``)."""
    assert gwconf("apply", "openclaw", "codex").exit_code == 0
    report = (
        "import atexit, sys; atexit.register(lambda: print(type(sys.modules['ipaddress']).__name__, "
        "file=sys.stderr)); "
    )
    main = "from gwconf.cli import main; sys.argv = ['gwconf', *sys.argv[1:]]; main()"
    proc = _python(report + main, "status")
    assert proc.returncode == 0, proc.stderr
    assert "openclaw" in proc.stdout and proc.stderr.splitlines()[-1] == "DeferredModule"


def test_re_stays_deferred_through_every_command_of_the_benchmark(gwconf, profile: str, home) -> None:
    """A listing, a dry run, a real apply, ``use`` and ``restore``, as users run them: neither
    ``re`` nor ``enum`` is imported (a replacement template, a glob, an ``IntEnum`` imported
    them). Files in four formats, a shell file and a .env among them."""
    import shutil
    from pathlib import Path

    fixtures = Path(__file__).parent / "fixtures"
    for client in ("codex", "continue", "aichat"):
        shutil.copytree(fixtures / client / "user-config" / "before", home, dirs_exist_ok=True)
    other = (
        "--base-url",
        "https://gw2.example.com/v1",
        "--model",
        "other-model",
        "--key",
        "sk-other-0123456789abcdef",
    )
    assert gwconf("profile", "add", "other", *other).exit_code == 0
    report = (
        "import atexit, sys; atexit.register(lambda: print(type(sys.modules['re']).__name__, "
        "'enum' in sys.modules, file=sys.stderr)); "
    )
    main = "from gwconf.cli import main; sys.argv = ['gwconf', *sys.argv[1:]]; main()"
    clients = ("codex", "continue", "aichat", "claude-code", "shell")
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    config = home / ".codex" / "config.toml"
    edit = b"\n# the user's own line, added between apply and use\n"
    for args in (
        ("apply", *clients, "--dry-run"),
        ("apply", *clients),
        ("status",),
        ("clients",),
        ("use", "other"),
        ("restore", "--all"),
    ):
        proc = _python(report + main, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stderr.splitlines()[-1] == "DeferredRe False", args
        if args == ("clients",):  # the user edits a file gwconf wrote, then switches profile
            config.write_bytes(config.read_bytes() + edit)
    before[config] += edit  # the restore gives back the original with the user's edit
    after = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert after == before


def test_the_stand_in_answers_as_re_and_hands_over_to_it() -> None:
    """Its flags are re's; the standard library's patterns (json's, bytes too; urllib.parse's;
    difflib's) work as compiled ones; any other use of ``re``, a template or ``from re import``
    among them, gets the real module, and a pattern asked for elsewhere is a real one."""
    code = r"""
import sys
from gwconf.lazyre import DeferredRe, LazyPattern, defer_re, real_re
defer_re()
stand_in = sys.modules['re']
assert type(stand_in) is DeferredRe
import json, urllib.parse, difflib, fnmatch, pathlib
assert type(json.decoder.WHITESPACE) is LazyPattern and type(json.encoder.HAS_UTF8) is LazyPattern
assert json.loads(' {"a": ["\\u00e9\\n", 1.5e3, -0]} ') == {"a": ["\u00e9\n", 1500.0, 0]}
assert json.dumps({"k": "\u00e9\x01"}, indent=1) == '{\n "k": "\\u00e9\\u0001"\n}'
assert urllib.parse.unquote("a%C3%A9%20b") == "a\u00e9 b" and urllib.parse.urlsplit("https://h:1/v1").port == 1
assert list(difflib.unified_diff(["a\n"], ["b\n"], lineterm=""))[-2:] == ["-a\n", "+b\n"]
assert json.decoder.WHITESPACE.match("  x").end() == 2
assert type(sys.modules['re']) is DeferredRe  # none of that needed re
pattern = stand_in.compile(r"(a)(b)?")  # asked for here, not by the standard library
assert type(sys.modules['re']) is not DeferredRe
import re
assert isinstance(pattern, re.Pattern) and pattern.sub(r"<\1\2>", "ab a") == "<ab> <a>"
from re import escape, IGNORECASE
assert escape("a.b") == "a\\.b" and stand_in.sub is re.sub and real_re() is re
assert fnmatch.fnmatchcase("a[1].json", "a[[]1].json")
flags = ("A", "ASCII", "DEBUG", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "NOFLAG", "S",
         "DOTALL", "U", "UNICODE", "X", "VERBOSE")
fresh = DeferredRe()
assert [f for f in flags if fresh.__dict__[f] != getattr(re, f)] == []
print("ok")
"""
    _prints_ok(code)


def test_a_template_on_a_lazy_pattern_brings_the_real_re() -> None:
    """``_sre`` hands a replacement template to ``re`` to parse: with the stand-in in place, that
    must load the real module, not fail."""
    code = (
        "import sys; from gwconf.lazyre import defer_re, lazy; defer_re()\n"
        "p = lazy(r'(x+)')\n"
        "assert p.sub(r'[\\1]', 'axxb') == 'a[xx]b'\n"
        "assert type(sys.modules['re']).__name__ == 'module'\n"
        "print('ok')"
    )
    _prints_ok(code)
