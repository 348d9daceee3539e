"""A file's POSIX ACL survives gwconf's write, except where it could widen a key file's 0600.

gwconf writes a new file and renames it over the old one; the ACL (an extended attribute) was
left behind with the old file, so a config shared with a teammate by ``setfacl -m u:bob:r`` lost
bob's access at the first apply. The ACL here is written as ``setfacl`` writes it (the kernel's
``system.posix_acl_access`` format), through ``os.setxattr``: the machines running the tests
have no ``setfacl``.
"""

from __future__ import annotations

import json
import os
import stat
import struct
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY

ACL = "system.posix_acl_access"
# the owner rw, user 1234 r, the group r, mask r, others nothing: ``setfacl -m u:1234:r`` on a 0640 file
_ENTRIES = (
    (0x01, 6, 0xFFFFFFFF),
    (0x02, 4, 1234),
    (0x04, 4, 0xFFFFFFFF),
    (0x10, 4, 0xFFFFFFFF),
    (0x20, 0, 0xFFFFFFFF),
)
SHARED = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in _ENTRIES)


def _with_acl(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o640)
    try:
        os.setxattr(path, ACL, SHARED)
    except OSError as exc:  # a file system without ACLs
        pytest.skip(f"no POSIX ACLs here: {exc}")


pytestmark = pytest.mark.skipif(not hasattr(os, "setxattr") or sys.platform != "linux", reason="Linux ACLs")


def test_apply_and_restore_keep_the_acl_of_a_file_without_a_key(gwconf, home, profile) -> None:
    config = home / ".codex" / "config.toml"
    _with_acl(config, '# shared with bob\nmodel = "o3"\n')
    assert gwconf("apply", "codex").exit_code == 0
    assert "gw.example.com" in config.read_text() and TEST_KEY not in config.read_text()
    assert os.getxattr(config, ACL) == SHARED
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o640
    assert gwconf("restore", "codex").exit_code == 0
    assert os.getxattr(config, ACL) == SHARED and config.read_text() == '# shared with bob\nmodel = "o3"\n'


def test_a_file_that_gets_the_key_loses_the_acl_with_its_wider_mode(gwconf, home, profile) -> None:
    auth = home / ".codex" / "auth.json"
    _with_acl(auth, "{}\n")
    result = gwconf("apply", "codex")
    assert result.exit_code == 0, result
    assert json.loads(auth.read_text())  # the key went in
    assert TEST_KEY in auth.read_text()
    assert stat.S_IMODE(os.stat(auth).st_mode) == 0o600
    assert ACL not in os.listxattr(auth), "user 1234 could read the key"


def test_other_extended_attributes_stay_with_the_old_file(gwconf, home, profile) -> None:
    """A user attribute may describe the old bytes (a checksum): only permissions carry over."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "o3"\n')
    try:
        os.setxattr(config, "user.checksum", b"of-the-old-bytes")
    except OSError as exc:
        pytest.skip(f"no user attributes here: {exc}")
    assert gwconf("apply", "codex").exit_code == 0
    assert "user.checksum" not in os.listxattr(config)


@pytest.mark.parametrize("edited", [False, True])
def test_restore_gives_a_key_file_back_its_acl(gwconf, home, profile, edited: bool) -> None:
    """The key made gwconf drop the ACL; restore takes the key out and puts the file back as it
    was, ACL and mode (the backup still has the ACL; its mask, which the backup's own 0600 mode
    narrowed, is the mode's group bits, given back with the mode). Edited since: gwconf's key
    comes out of the user's text, which stays."""
    auth = home / ".codex" / "auth.json"
    _with_acl(auth, "{}\n")
    assert gwconf("apply", "codex").exit_code == 0
    assert ACL not in os.listxattr(auth)
    if edited:
        data = json.loads(auth.read_text())
        auth.write_text(json.dumps({**data, "mine": 1}, indent=2) + "\n")
    result = gwconf("restore", "codex")
    assert result.exit_code == 0, result
    assert json.loads(auth.read_text()) == ({"mine": 1} if edited else {})
    assert stat.S_IMODE(os.stat(auth).st_mode) == 0o640
    assert os.getxattr(auth, ACL) == SHARED


def test_restore_keeps_an_acl_the_user_set_after_gwconfs_write(gwconf, home, profile) -> None:
    """Set by hand since gwconf's write (with a mode of its own): the user's, kept."""
    auth = home / ".codex" / "auth.json"
    _with_acl(auth, "{}\n")
    assert gwconf("apply", "codex").exit_code == 0
    mine = struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", *entry)
        for entry in (
            (0x01, 6, 0xFFFFFFFF),
            (0x02, 4, 99),
            (0x04, 0, 0xFFFFFFFF),
            (0x10, 4, 0xFFFFFFFF),
            (0x20, 0, 0xFFFFFFFF),
        )
    )
    os.setxattr(auth, ACL, mine)  # u:99:r, mode now 0640
    assert gwconf("restore", "codex").exit_code == 0
    assert os.getxattr(auth, ACL) == mine


def test_restore_leaves_out_an_acl_the_user_took_off_a_file_gwconf_kept_it_on(gwconf, home, profile) -> None:
    """gwconf kept the ACL of a file without a key; the user removed it since: theirs, kept."""
    config = home / ".codex" / "config.toml"
    _with_acl(config, 'model = "o3"\n')
    assert gwconf("apply", "codex").exit_code == 0
    assert os.getxattr(config, ACL) == SHARED
    os.removexattr(config, ACL)
    os.chmod(config, 0o640)  # the mode gwconf wrote, as before
    assert gwconf("restore", "codex").exit_code == 0
    assert config.read_text() == 'model = "o3"\n'
    assert ACL not in os.listxattr(config)
