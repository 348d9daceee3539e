"""The console entry puts ``ipaddress`` and ``ntpath`` off until something uses them (issue 15:
``pathlib`` imports both, 6.7M instructions of every command that almost none needs). Whoever
uses them must get the real modules, whichever way they reach them."""

from __future__ import annotations

import os
import subprocess
import sys

# what ``gwconf.cli.main`` does first, then the imports every command makes
DEFER = "import sys; from gwconf.cli import _defer_unused_modules; _defer_unused_modules(); import pathlib; "


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)


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
    proc = _python(code)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


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
        assert proc.stderr.splitlines()[-1] == "_DeferredModule _DeferredModule"


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
    assert "openclaw" in proc.stdout and proc.stderr.splitlines()[-1] == "_DeferredModule"
