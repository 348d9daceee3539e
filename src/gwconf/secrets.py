"""Key hygiene: masks and redaction. A full key or other credential is never printed or logged.

``redact`` is the one function every output passes through (the CLI's text and ``--json``,
gateway bodies, crash messages). It masks, in this order:

1. the keys this command knows (the profile's, a client's), in every encoding gwconf writes them:
   JSON/TOML/YAML double-quoted escapes, YAML single quotes, dotenv and shell quoting, Python's
   repr, and URL-encoded (a gateway's 401 body may echo the key that way);
2. every value whose *name* says it is a secret (``key``, ``token``, ``secret``, ``password``,
   ``auth``, ``credential``, ``sig`` in any case or spelling: ``apiKey``, ``API-KEY``, ``refresh_token``),
   in ``name: value`` / ``name = value`` / ``"name": "value"`` / ``?name=value`` forms, a YAML
   tag before the value (``!!str``), an option's value (``"--api-key", "value"``,
   ``--token=value``) and a header inside one string (``"x-api-key: value"``). Names
   ending in a word that says the value is *about* a secret (``key_origin``, ``api_key_env``,
   ``auth_header``) and values that are references (``$VAR``, ``{env:X}``, an ``ENV_NAME``,
   a path) are left as they are, but for what a key command echoes (``"apiKeyHelper": "echo <secret>"``);
3. the password in an address's user part (``https://user:password@host``);
4. every value of a known credential shape wherever it stands: ``sk-``, ``AIza``, GitHub's
   ``ghp_``/``gho_``/``github_pat_``, Slack's ``xox?-``, JWTs, and long base64 or hex strings.

Threat model and reasons: docs/security.md.
"""

from __future__ import annotations

import codecs
import re
from urllib.parse import quote, quote_plus

from gwconf.lazyre import LazyPattern, lazy

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    from typing import Any

KEY_PATTERN = lazy(r"sk-[A-Za-z0-9_\-]{6,}")

# Credential shapes, masked wherever they appear. Each is anchored so it does not start mid-word.
# These and ``_HINT`` are compiled on first use (``_SHAPES_RE`` and friends, below): each is
# looked for only in a text holding what any match of it must hold, so a command whose output
# has none never compiles them (3.7M instructions of a listing's 150-190M, issue 15).
# tests/test_secrets_prefilter.py holds each such test to its pattern.
_SHAPES = (
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-[A-Za-z0-9_\-]{6,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abposr]-[A-Za-z0-9\-]{8,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r")"
)
_HEX = r"(?<![A-Za-z0-9_\-./])[0-9a-fA-F]{32,}(?![A-Za-z0-9_\-])"
_B64 = r"(?<![A-Za-z0-9_\-+/=.])[A-Za-z0-9+/_\-]{32,}={0,2}(?![A-Za-z0-9_\-+/=])"
# a match of either holds 32 characters in a row of _B64's run (hex digits are among them): with
# every other ASCII character made a space, such a run is part of one word of 32 or more
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_RUN_BREAKS = {code: " " for code in range(128) if chr(code) not in _RUN_CHARS}
# the same, with "." kept: both patterns look behind for a "." (a run right after one matches
# neither, but for a hex run after a "+" inside it, which _HEX does not look behind for)
_RUN_BREAKS_BUT_DOT = {code: space for code, space in _RUN_BREAKS.items() if code != ord(".")}
# both as byte tables for ``_long_runs``: ``bytes.translate`` looks a byte up in 256, where
# ``str.translate`` with a dict asks the dict for every character (23M instructions of a dry
# run's 51 KB of output, issue 15)
_RUN_TABLE = bytes(ord(_RUN_BREAKS.get(code, chr(code))) for code in range(128)) + bytes(range(128, 256))
_RUN_TABLE_BUT_DOT = bytes(ord(_RUN_BREAKS_BUT_DOT.get(code, chr(code))) for code in range(128)) + bytes(
    range(128, 256)
)
# every ASCII character but a hex digit made a space (``_may_hold_hex``)
_NOT_HEX = {code: " " for code in range(128) if chr(code) not in "0123456789abcdefABCDEF"}

# Words that make a name a secret's, and last words that make it a name *about* one.
SECRET_WORDS = frozenset(
    {"key", "apikey", "token", "secret", "password", "passwd", "passphrase", "auth", "authorization",
     "credential", "credentials", "pat", "sig", "signature", "cookie", "jwt", "secrets", "passwords"}
)  # fmt: skip
_ABOUT = frozenset(
    {"origin", "source", "sources", "env", "var", "variable", "name", "names", "header", "helper",
     "cmd", "command", "file", "path", "type", "method", "mode", "id", "url", "uri", "endpoint",
     "keyring", "required", "hint", "count", "length", "kind", "format", "style", "field", "ref",
     "location", "label", "provider", "status", "expires", "expiry", "at", "ttl", "mask", "shape",
     "problems", "findings", "store", "sent", "storage", "scheme", "verdict", "version"}
)  # fmt: skip
# last words of a setting that holds a command printing a secret (Claude Code's ``apiKeyHelper``,
# mods' ``api-key-cmd``): the command is no secret, a literal ``echo``/``printf`` prints is one
_COMMAND_WORDS = frozenset({"helper", "cmd", "command"})
_WORDS = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NAME = r"[A-Za-z_][A-Za-z0-9_\-]*"
# a line that may hold a secret's name (``is_secret_name`` decides): only those lines meet the
# name patterns, so the many other lines of a big diff cost one quick search each
_HINT_WORDS = ("key", "token", "secret", "pass", "auth", "credential", "pat", "sig", "cookie", "jwt")
_HINT = "|".join(_HINT_WORDS)  # searched in the lowered text
# each compiled on first use, and only for a text that could match it (``redact``)
_SHAPES_RE, _HEX_RE, _B64_RE, _HINT_RE = (LazyPattern(source) for source in (_SHAPES, _HEX, _B64, _HINT))
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# TOML's one-line multi-line strings first: ''' then x then ''' was read as '' and hid nothing
_QUOTED_VALUE = (
    r"'''(?:[^'\n]|'(?!''))*'''"
    r'|"""(?:[^"\\\n]|\\.|"(?!""))*"""'
    r"|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
)
# a bare value must end its line, item or comment-less clause: "key: the key in …" is prose
_BARE_CHAR = r"[^\s\"',;#}\]]"
_BARE_VALUE = rf"(?:(?:Bearer|Basic|Token)[ \t]+)?{_BARE_CHAR}+(?=[ \t]*(?:$|[,;}}\]&#\"']))"
_ANSI = r"(?:\x1b\[[0-9;]*m)*"
# a YAML tag before a value (``api_key: !!str value``): kept, the value after it masked
_TAG = r"(?:![!A-Za-z0-9_\-]*[ \t]+)?"
# "name": value  /  'name': value  anywhere (JSON, YAML flow, Python reprs)
_QUOTED_NAME = rf"(?P<pre>(?P<q>[\"'])(?P<name>{_NAME})(?P=q)[ \t]*[:=][ \t]*)(?P<val>{_TAG}(?:{_QUOTED_VALUE}|{_BARE_VALUE}))"
# name: value / name = value / NAME=value at a line's start (after a diff marker, colour, a YAML
# item's dash, export, $env:, set -gx) or after "{" / "," (inline tables, flow mappings). Else,
# at a "{" whose value failed, a match with no name (``_mask_value`` leaves it) passes over the
# value's run up to the run's last "{": that run ends no clause and holds no "&" past its start,
# so every "{name=" in it but the last fails too, each only after reading the rest of the run
# ("{token=a" * n + " end" took O(n²): 16 s for 80 KB). The last "{" is tried: its "name =" or
# "Token x" may go on past.
# A line commented out keeps its secret (``#openai-api-key: ...``, ``# GEMINI_API_KEY=...``, an
# ini's ``;``): a diff shows it as context. A dotted TOML key (``http_headers.Authorization =``)
# is named by its last part. A shell's ``declare -x`` / ``typeset -x`` / ``local`` / ``readonly``
# sets a variable as ``export`` does.
_COMMENTED = r"(?:(?:#+|;+|//)[ \t]*)?"
_SHELL_SETS = r"(?:(?:export|declare|typeset|local|readonly)(?:[ \t]+-[A-Za-z]+)*[ \t]+|\$env:)?"
_DOTTED = rf"(?:(?:{_NAME}|\"[^\"\n]*\"|'[^'\n]*')[ \t]*\.[ \t]*)*"
_BARE_NAME = (
    rf"(?P<pre>(?:^{_ANSI}[-+ ]?[ \t]*{_COMMENTED}(?:-[ \t]+)?{_SHELL_SETS}|[{{,][ \t]*)"
    rf"{_DOTTED}(?P<name>{_NAME})[ \t]*[:=][ \t]*)(?P<val>{_TAG}(?:{_QUOTED_VALUE}|{_BARE_VALUE}))"
    rf"|\{{[ \t]*{_NAME}[ \t]*[:=][ \t]*{_BARE_CHAR}*(?=\{{)"
)
# fish's ``set -gx`` / ``-Ux`` / ``-x`` and csh's ``setenv``: the name, a blank, the value
_FISH = (
    rf"(?P<pre>^{_ANSI}[-+ ]?[ \t]*{_COMMENTED}(?:set(?:[ \t]+-[A-Za-z]+)+|setenv)[ \t]+(?P<name>{_NAME})[ \t]+)"
    rf"(?P<val>{_QUOTED_VALUE}|{_BARE_VALUE})"
)
# NAME=value as a shell word anywhere on a line: a second assignment after ``export EDITOR=vim``,
# ``alias ai="OPENAI_API_KEY=... aider"``, ``NAME=value cmd``, a header list's ``a=b,Authorization=
# Bearer x`` (OpenTelemetry's), one after a ``\n`` escape; its value may join quoted pieces
# (``"ab"'cd'``), where one quoted piece alone hid only the first
_SHELL_WORD = (
    rf"(?P<pre>(?:(?<![^\s\"';&|(,])|(?<=\\n))(?P<name>{_NAME})=)"
    rf"(?P<val>(?:(?:Bearer|Basic|Token)[ \t]+)?(?:{_QUOTED_VALUE}|[^\s\"'`;&|()<>,\\])+)"
)
# PowerShell's [Environment]::SetEnvironmentVariable("NAME", "value", ...)
_SET_ENVIRONMENT = (
    rf"(?P<pre>SetEnvironmentVariable\([ \t]*(?P<q>[\"'])(?P<name>{_NAME})(?P=q)[ \t]*,[ \t]*)"
    rf"(?P<val>{_QUOTED_VALUE})"
)
_QUERY = rf"(?P<pre>[?&](?P<name>{_NAME})=)(?P<val>[^&\s#\"'<>]+)"
# a command line's option and its value: args = ["--api-key", "value"], "x --token value",
# --password=value (a value that is itself an option is the next option, not a secret)
_OPTION = (
    rf"(?P<pre>(?<![A-Za-z0-9_\-])--(?P<name>{_NAME})(?:[\"'][ \t]*,[ \t]*|[ \t]+|=))"
    rf"(?P<val>(?![\"']?-)(?:{_QUOTED_VALUE}|[^\s\"',;\[\]()]+))"
)
# a header written inside one string: "x-api-key: value", 'Authorization: Bearer value'
# (or the next header of the same string, after a ``\n`` escape: Claude Code's
# ANTHROPIC_CUSTOM_HEADERS holds "X-Team: a\nAuthorization: Bearer ...")
_HEADER_STRING = (
    rf"(?P<pre>(?:[\"']|\\n)(?P<name>{_NAME})[ \t]*:[ \t]*)"
    rf"(?P<val>(?:(?:Bearer|Basic|Token)[ \t]+)?[^\s\"'\\]+)(?=[\"']|\\[rn])"
)
_ENV_NAME = lazy(r"[A-Z][A-Z0-9_]*\Z")
# the user part of an address (a client's base address, a database URL in an env block): read
# from a client's file, shown by status, doctor and every diff. Its password may hold a raw "@"
# (the last "@" before the host ends it), and a user part alone may be a token
# (``https://<token>@host``, as Git hosts take one)
_URL_PASSWORD = lazy(
    r"(?P<pre>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^\s/?#@:\"'<>]*)(?::(?P<password>[^\s/?#\"'<>]+))?"
    r"(?=@[^\s/?#@\"'<>]*(?:[/?#\s\"'<>]|$))"
)
_TOKEN_USER = 12  # a user part this long, with no password, is taken for a token


def _masked_user_part(match: re.Match[str]) -> str:
    user, password = match.group("user"), match.group("password")
    if password is not None:
        return match.group("pre") + user + ":" + mask(password)
    if len(user) >= _TOKEN_USER and "…" not in user:
        return match.group("pre") + mask(user)
    return match.group()


# The name patterns above compile on first use: a printed line meets them only when it holds a
# secret-ish word and the character each needs, so most commands never compile them (2 ms of
# ``status``, issue 15). Each with what it cannot match without: (pattern, texts of which the
# line must hold one).
_NAME_PATTERNS = (
    (lazy(_QUOTED_NAME), (":", "=")),
    (lazy(_SHELL_WORD), ("=",)),  # before _BARE_NAME: its value joins the pieces that one splits
    # again inside a quoted value that a first match took whole (``alias ai="KEY=... aider"``)
    (lazy(_SHELL_WORD.replace(r"(?<![^\s\"';&|(,])", r"(?<=[\"'])", 1)), ("=",)),
    (lazy(_BARE_NAME, re.MULTILINE), (":", "=")),
    (lazy(_FISH, re.MULTILINE), ("set",)),
    (lazy(_SET_ENVIRONMENT), ("SetEnvironmentVariable",)),
    (lazy(_QUERY), ("=",)),
    (lazy(_OPTION), ("--",)),
    (lazy(_HEADER_STRING), (":",)),
)
# values that are no secret: words, and "{" or "[" alone, the opening of the object or list a
# secret-ish name holds (``"auth": { "mode": "token" }`` showed as ``"auth": … "mode"``)
_PLAIN_WORDS = frozenset(
    {"true", "false", "null", "none", "inline", "yes", "no", "bearer", "basic", "token", "~", "", "{", "["}
    # and the small words of prose after a flag: gwconf's own "add --show-key to print it in
    # full" showed as "--show-key … print it", in every dry run with a client set up in its app
    | {
        "to",
        "and",
        "or",
        "but",
        "not",
        "the",
        "a",
        "an",
        "for",
        "with",
        "in",
        "on",
        "of",
        "if",
        "as",
        "at",
        "by",
        "from",
        "into",
        "then",
        "than",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "is",
        "are",
        "be",
        "so",
        "when",
        "which",
        "where",
        "what",
        "who",
        "all",
        "any",
        "each",
        "only",
        "also",
        "see",
        "use",
        "run",
        "now",
    }
)


def mask(key: str | None) -> str:
    """``sk-…last4``: enough to tell keys apart, useless to an attacker."""
    if not key:
        return "(none)"
    key = key.strip()
    tail = key[-4:] if len(key) >= 12 else ""
    prefix = "sk-" if key.startswith("sk-") else ""
    return f"{prefix}…{tail}" if tail else f"{prefix}…"


def is_secret_name(name: str) -> bool:
    """Whether a setting called ``name`` holds a secret: ``apiKey``, ``API-KEY``, ``refresh_token``
    yes; ``key_origin``, ``api_key_env``, ``max_tokens`` no."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] in _ABOUT:
        return False
    return any(w in SECRET_WORDS for w in words)


_secret_names: dict[str, bool] = {}


def may_name_a_secret(name: str) -> bool:
    """``is_secret_name``, after a test for the words any such name holds, and remembered: a
    diff's data walk asks it of every key of every file (``operations._named_secrets``)."""
    known = _secret_names.get(name)
    if known is None:
        known = _secret_names[name] = _may_hint(name.lower()) and is_secret_name(name)
    return known


# after a name, what gives it a list or a table: ``": [``, `` = {``, ``:`` ending its line (a YAML
# block below)
_CONTAINER_AFTER = lazy(r"[\"']?[ \t]*[:=][ \t]*(?:[\[{]|\r?\n|\Z)")
_TABLE_HEADER = lazy(r"^[ \t]*\[\[?[ \t]*([^\]\r\n]+)\]", re.MULTILINE)  # TOML's [a.secrets]
_HEADER_PART = lazy(r"[A-Za-z_][\w\-]*")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def names_a_secret_container(text: str, fmt: str) -> bool:
    """Whether ``text`` gives a secret's name a list or a table (or a YAML block, or a TOML
    table named so): the data walk that masks what such a container holds
    (``operations._named_secrets``) is needed only then; a secret's name with a value on its
    line is a line pattern's. Looked for only where a word of a secret's name stands, found with
    ``str.find`` (a regex over every position of a dry run's 400 KB was 10 ms; every file gwconf
    edits names its own key, so the words alone would walk them all, 12 ms)."""
    lowered = text.lower()  # each character at its place, but for U+0130 (``_named_lines``)
    if len(lowered) != len(text):
        lowered = text.translate(_ASCII_LOWER)
    chars, find = _NAME_CHARS, lowered.find
    for word in _HINT_WORDS:
        at = find(word)
        while at >= 0:
            start, end = at, at + len(word)
            while start and text[start - 1] in chars:
                start -= 1
            while end < len(text) and text[end] in chars:
                end += 1
            if _CONTAINER_AFTER.match(text, end) and may_name_a_secret(text[start:end]):
                return True
            at = find(word, end)
    return fmt == "toml" and any(
        may_name_a_secret(part)
        for m in _TABLE_HEADER.finditer(text)
        for part in _HEADER_PART.findall(m.group(1))
    )


def is_reference(value: str) -> bool:
    """A value that names where a secret is (or is no secret): shown as it is."""
    if "…" in value or value.lower() in _PLAIN_WORDS or value.startswith("("):
        return True
    if value.startswith(
        ("$", "{env:", "{{", "env:", "cmd:", "op://", "keyring:", "~/", "/", "./", "http://", "https://")
    ):
        return True
    return bool(_ENV_NAME.match(value)) or value.replace(".", "", 1).isdigit()


_SHELL_QUOTED = lazy(r"([\\\"$`])")  # what a backslash escapes inside shell and dotenv double quotes
_PERCENT_ESCAPE = lazy(r"%[0-9A-F]{2}")


def _backslashed(match: re.Match[str]) -> str:
    """``_SHELL_QUOTED``'s replacement: a function, not a template (``_sre`` hands a template to
    ``re`` to parse, which imports it: ``lazyre``)."""
    return "\\" + match.group(1)


def encodings(key: str) -> set[str]:
    """``key`` as each format gwconf writes (or a gateway echoes) may spell it."""
    forms = {key, repr(key)[1:-1]}
    if not (key.isascii() and key.isprintable() and '"' not in key and "\\" not in key):
        import json  # else JSON spells it as it is (json's import is 5.7M instructions of a listing)

        forms.update((json.dumps(key, ensure_ascii=False)[1:-1], json.dumps(key)[1:-1]))
    forms.add(key.replace("'", "''"))  # YAML single-quoted
    forms.add(_SHELL_QUOTED.sub(_backslashed, key))  # dotenv / shell double-quoted
    forms.add(key.replace("'", "'\\''"))  # POSIX shell single-quoted
    forms.add(key.replace("\\", "\\\\").replace("'", "\\'"))  # fish
    raw = key.encode(
        "utf-8", "surrogateescape"
    )  # a value from the environment may hold bytes that are no UTF-8
    for url in (quote(raw, safe=""), quote(raw), quote_plus(raw)):
        forms.update((url, _PERCENT_ESCAPE.sub(lambda m: m.group().lower(), url)))
    # as a gateway may echo it: JSON with "/" escaped (PHP's default), a form-decoded "+" (a
    # space), or without its ``sk-`` (a body quoting the part after a prefix it checked)
    if "/" in key:
        forms.update([form.replace("/", "\\/") for form in forms])
    if "+" in key:
        forms.add(key.replace("+", " "))
    if key.startswith("sk-") and len(key) >= 3 + 16:
        forms.update(encodings(key[3:]))
    forms.add("".join(f"\\u{ord(c):04x}" for c in key))  # each character \u-escaped (an echo
    # a gateway made so: cut only by the body's trim, the hostile-gateway sweep)
    return {f for f in forms if len(f) >= 4}


_AUTH_SCHEME = lazy(r"(?:Bearer|Basic|Token)[ \t]+")
_SHELL_PIECE = lazy(r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\"']+")
_YAML_TAG = lazy(_TAG)


def _mask_value(match: re.Match[str]) -> str:
    name, value = match.group("name"), match.group("val")
    if name is None or not is_secret_name(name):  # None: a run ``_BARE_NAME`` passes over
        return match.group(0)
    tag = _YAML_TAG.match(value) if value[:1] == "!" else None
    if tag is not None:
        value = value[tag.end() :]
    quote_char = (
        value[:3] if value[:3] in ('"""', "'''") and len(value) >= 6 and value.endswith(value[:3]) else ""
    )
    if not quote_char and value[:1] in "\"'" and len(value) >= 2 and value[-1] == value[0]:
        quote_char = value[0]
    inner = value[len(quote_char) : len(value) - len(quote_char)]
    if not quote_char and value[:1] in "\"'":  # shell pieces joined: "ab"'cd' is abcd
        pieces = _SHELL_PIECE.findall(value)
        if len(pieces) > 1:
            quote_char, inner = '"', "".join(p[1:-1] if p[:1] in "\"'" else p for p in pieces)
    lead = ""
    scheme = _AUTH_SCHEME.match(inner)
    if scheme:
        lead, inner = scheme.group(), inner[scheme.end() :]
    if is_reference(inner):
        return match.group(0)
    return match.group("pre") + (tag.group() if tag else "") + quote_char + lead + mask(inner) + quote_char


def _b64(match: re.Match[str]) -> str:
    text = match.group()
    if "/" in text and ("-" in text or "_" in text):
        return text  # a path, not base64 (which never mixes "/" with "-" or "_")
    upper = sum(c.isupper() for c in text)
    lower = sum(c.islower() for c in text)
    digits = sum(c.isdigit() for c in text)
    return mask(text) if upper >= 2 and lower >= 2 and digits >= 2 else text


def redact(text: str, keys: list[str] | tuple[str, ...] = ()) -> str:
    """``text`` with every known key (in any encoding), every secret-named value and every
    credential-shaped value replaced by its mask. Idempotent: a mask is never masked again."""
    for form, masked in _spellings(tuple(keys)):
        if form in text:
            text = text.replace(form, masked)
    text = _named_lines(text)
    if "@" in text and "://" in text:  # a password in an address: https://user:password@host
        text = _URL_PASSWORD.sub(_masked_user_part, text)
    # once a pattern is compiled, running it costs less than asking whether to
    if _SHAPES_RE.is_compiled or _may_hold_shape(text):
        text = _SHAPES_RE.sub(lambda m: mask(m.group()), text)
    # each run pattern only where it could change the text: compiling both is 1.2M instructions
    runs = _long_runs(text)
    if runs is None or runs:
        if _may_hold_hex(runs):
            text = _HEX_RE.sub(lambda m: mask(m.group()), text)
            runs = _long_runs(text)
        if _may_mask_b64(runs):
            text = _B64_RE.sub(_b64, text)
    return text


def _may_hold_shape(text: str) -> bool:
    """False only when ``_SHAPES`` cannot match ``text``: none of the literal starts its
    matches begin with is in it ("github_pat_" holds no "gh")."""
    return (
        "sk-" in text
        or "AIza" in text
        or "gh" in text
        or "github_pat_" in text
        or "xox" in text
        or "eyJ" in text
    )


def _may_hint(lowered: str) -> bool:
    """False only when ``_HINT`` cannot match ``lowered``: none of its words is in it."""
    return (
        "key" in lowered
        or "token" in lowered
        or "secret" in lowered
        or "pass" in lowered
        or "auth" in lowered
        or "credential" in lowered
        or "pat" in lowered
        or "sig" in lowered
        or "cookie" in lowered
        or "jwt" in lowered
    )


def _long_runs(text: str) -> list[str] | None:
    """The runs of 32 or more of ``_B64``'s characters either pattern could match in, or None
    for "any" (a text outside ASCII, holding such a run: a character outside ASCII counts as
    one of them there, which can only say yes). A run right after a "." is left out unless it
    holds a "+": both patterns look behind for the ".", and only _HEX not for a "+". ``clients``
    prints paths such as ``~/.config/github-copilot/intellij/mcp.json`` (a 34-character run,
    after a "."), and ran both patterns over its table: 2.3M instructions (issue 15)."""
    if len(text) < 32:
        return []
    if not text.isascii():  # each character outside ASCII as one byte: a run's unless a space
        spelled = text.encode("ascii", _RUN_CHAR)
        return None if max(map(len, spelled.translate(_RUN_TABLE).split()), default=0) >= 32 else []
    found = []
    for word in text.encode("ascii").translate(_RUN_TABLE_BUT_DOT).split():
        if len(word) >= 32:
            first, *after_dots = word.split(b".")
            if len(first) >= 32:
                found.append(first.decode("ascii"))
            found += [run.decode("ascii") for run in after_dots if len(run) >= 32 and b"+" in run]
    return found


def _run_char(error: UnicodeError) -> tuple[str, int]:
    """The encoding error handler ``_long_runs`` spells a character outside ASCII with: a space
    for one ``str.split`` splits at (U+3000, U+2028, ...), else a run's character ("A")."""
    assert isinstance(error, UnicodeEncodeError)
    chars = error.object[error.start : error.end]
    return "".join(" " if char.isspace() else "A" for char in chars), error.end


_RUN_CHAR = "gwconf.secrets.run-char"
codecs.register_error(_RUN_CHAR, _run_char)


def _may_hold_hex(runs: list[str] | None) -> bool:
    """False only when ``_HEX`` matches in none of ``runs``: none holds 32 hex digits in a row."""
    return runs is None or any(
        max(map(len, run.translate(_NOT_HEX).split()), default=0) >= 32 for run in runs
    )


def _may_mask_b64(runs: list[str] | None) -> bool:
    """False only when ``_b64`` masks no ``_B64`` match in ``runs``: it masks a match holding
    two digits or more, and none of them does (a match lies in one run)."""
    return runs is None or any(sum(map(run.count, "0123456789")) >= 2 for run in runs)


_spelled: dict[tuple[str, ...], list[tuple[str, str]]] = {}


def _spellings(keys: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every spelling of ``keys`` with its mask, longest first (a spelling inside a longer one is
    replaced after it). Made once per set of keys: a dry run redacts each of its 184 lines of
    output with the same keys, and their encodings were a fifth of that (issue 15)."""
    found = _spelled.get(keys)
    if found is None:
        forms: dict[str, str] = {}
        for key in keys:
            if key and len(key) >= 4:
                for form in encodings(key):
                    forms.setdefault(form, mask(key))
        found = _spelled[keys] = [(form, forms[form]) for form in sorted(forms, key=len, reverse=True)]
    return found


def _named_lines(text: str) -> str:
    """``text`` with the name patterns applied to the lines that hold a secret-ish word only."""
    pieces: list[str] = []
    done = 0
    # lowered, each character at its place: ``lower`` lengthens only U+0130 (translating ASCII
    # alone was 3 ms for a 46 KB dry run holding other letters); letters it lowers besides ASCII's
    # can only add lines to look at, which the patterns then leave as they are
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text.translate(_ASCII_LOWER)
    if text.find("\n", 0, len(text) - 1) < 0:  # one line (what ``out`` prints): the patterns' own
        # line if it holds a hint word (``_may_hint`` looks for _HINT's very words), without
        # compiling _HINT for it: ``clients`` prints "auth.json"
        return _named_values(text) if _may_hint(lowered) else text
    if not _HINT_RE.is_compiled and not _may_hint(lowered):  # no line for the patterns
        return text
    for hint in _HINT_RE.finditer(lowered):
        if hint.start() < done:
            continue
        start = text.rfind("\n", 0, hint.start()) + 1
        end = text.find("\n", hint.start())
        end = len(text) if end < 0 else end + 1
        pieces.append(text[done:start])
        pieces.append(_named_values(text[start:end]))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _named_values(line: str) -> str:
    for pattern, needs in _NAME_PATTERNS:
        if any(text in line for text in needs):
            line = pattern.sub(_mask_value, line)
    if "echo" in line or "printf" in line:
        line = _echoed_literals(line, named=True)
    return line


# what ``echo`` / ``printf`` prints in a command: the word after it and its options (and after
# printf's '%s' format), quoted or not, up to where the shell word ends
_ECHOED = lazy(
    r"(?<![A-Za-z0-9_\-])(?:echo|printf)(?:[ \t]+-[A-Za-z]+)*[ \t]+"
    r"(?:(?:\\?[\"'])?%s(?:\\{1,2}n)?(?:\\?[\"'])?[ \t]+)?"
    r"(?P<val>\\?[\"']?[^\s\"'\\;|&)`]+)"
)
# the setting a command stands in: the last name given a value before it on its line
_NAME_BEFORE = lazy(rf"(?P<name>{_NAME})[\"']?[ \t]*[:=]")
_COMMAND_REACH = 200  # characters before an ``echo`` looked through for its setting's name


def is_command_name(name: str) -> bool:
    """Whether a setting called ``name`` holds a command that prints a secret: ``apiKeyHelper``,
    ``api-key-cmd``, ``token_command`` yes; ``command``, ``key_file`` no."""
    words = [w.lower() for w in _WORDS.findall(name)]
    return len(words) > 1 and words[-1] in _COMMAND_WORDS and any(w in SECRET_WORDS for w in words[:-1])


def _echoed_literals(text: str, *, named: bool) -> str:
    """``text`` with the literal an ``echo`` or ``printf`` prints masked: ``"apiKeyHelper": "echo
    <secret>"`` put the secret itself in the file, where the command's setting is otherwise no
    secret (``cat ~/.key``, ``op read op://...``). ``named``: only where the name before the
    command on its line is a command setting's (``is_command_name``); else ``text`` is such a
    setting's value. References (``$KEY``) and options are left as they are."""

    def masked(match: re.Match[str]) -> str:
        start = match.start()
        if named:
            names = list(_NAME_BEFORE.finditer(text, max(0, start - _COMMAND_REACH), start))
            if not names or not is_command_name(names[-1].group("name")):
                return match.group()
        value = match.group("val")
        inner = value.lstrip("\\\"'")
        if len(inner) < 4 or inner.startswith("-") or is_reference(inner):
            return match.group()
        return text[start : match.start("val")] + value[: len(value) - len(inner)] + mask(inner)

    return _ECHOED.sub(masked, text)


def command_shown(command: str) -> str:
    """A key command as gwconf prints it (``profile list``, ``show``, its errors): what an ``echo``
    or ``printf`` in it prints masked. ``--key-cmd 'echo <key>'`` puts the key itself in the
    profile, and every listing printed it beside its own mask (found by the round's sweep)."""
    if "echo" not in command and "printf" not in command:
        return command
    return _echoed_literals(command, named=False)


_FRAGMENT = 12  # characters of a secret in a row that give it away


def mask_fragments(text: str, secrets: list[str]) -> str:
    """``text`` with every run of ``_FRAGMENT`` or more characters of one of ``secrets`` (not the
    whole of it: ``redact`` masks that, in every encoding) made "…". A file may write a key over
    two lines (a YAML backslash continuation, a TOML multi-line string), and a diff then shows
    each line's piece of it, which neither the key's spellings nor a pattern meets. Every whole
    one is masked first: two keys may share a piece (``-0123456789abcd``), and a piece of one cut
    out of the other made the output depend on the order of ``secrets``. A secret of several lines
    (a YAML block scalar, a multi-line ``.env`` value) is taken line by line: masked whole, it
    joined the diff's lines into one the file does not hold (the round's sweep)."""
    secrets = [
        piece
        for secret in secrets
        for piece in (secret.splitlines() if "\n" in secret or "\r" in secret else [secret])
        if len(piece.strip()) >= 8
    ]
    for secret in secrets:
        text = text.replace(secret, mask(secret))  # whole: its last four, as ``redact`` shows it
    for secret in secrets:
        i = 0
        while i + _FRAGMENT <= len(secret):
            at = text.find(secret[i : i + _FRAGMENT])
            if at < 0:
                i += 1
                continue
            start, first, end, last = at, i, at + _FRAGMENT, i + _FRAGMENT
            while start and first and text[start - 1] == secret[first - 1]:
                start, first = start - 1, first - 1
            while end < len(text) and last < len(secret) and text[end] == secret[last]:
                end, last = end + 1, last + 1
            text = text[:start] + "…" + text[end:]
    return text


def redact_data(value: Any, keys: list[str] | tuple[str, ...] = ()) -> Any:
    """``redact`` for a JSON-able structure: a secret-named entry's string is masked whole, every
    other string is redacted (so nothing depends on how the JSON text escapes it)."""
    if isinstance(value, dict):
        return {
            k: (
                mask(v)
                if isinstance(k, str) and isinstance(v, str) and is_secret_name(k) and not is_reference(v)
                else redact(_echoed_literals(v, named=False), keys)
                if isinstance(k, str) and isinstance(v, str) and is_command_name(k)
                else redact_data(v, keys)
            )
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_data(v, keys) for v in value]
    if isinstance(value, str):
        return redact(value, keys)
    return value


# Characters gateways use in keys: letters, digits and the URL-safe / base64 punctuation.
_KEY_CHARS = lazy(r"[A-Za-z0-9._~+/=:\-]")


def key_problems(key: str) -> list[str]:
    """Spec 5.2 / 5.4: the usual ways a pasted key is wrong."""
    problems: list[str] = []
    if key != key.strip():
        problems.append("has leading or trailing whitespace (copied with characters extra?)")
    if any(ch in key for ch in "\r\n\t"):
        problems.append("contains a line break or tab")
    elif " " in key.strip():
        problems.append("contains a space")
    if any(ch in key for ch in "\"'`"):
        problems.append("contains quotes (copied with characters extra?)")
    odd = sorted({ch for ch in key.strip() if not _KEY_CHARS.match(ch) and ch not in "\"'` \t\r\n"})
    if odd:
        shown = " ".join(ch if ch.isprintable() else repr(ch) for ch in odd)
        problems.append(f"contains characters no gateway issues in a key ({shown})")
    if not key.strip().startswith("sk-"):
        problems.append("does not start with `sk-` (gateway keys do)")
    return problems
