"""Saved gateway profiles: one TOML file each in ``<config>/profiles``, 0600 in a 0700 folder.

A profile names a base address (canonical ``…/v1``), where its key comes from (inline, an
environment variable, or a command's output), a default model, optional Anthropic-/Gemini-style
addresses, per-client model overrides and, optionally, the model's limits (context window and
output tokens: they beat what the gateway says, see ``limits``). ``profiles/example.toml`` shows the format.
"""

from __future__ import annotations

import marshal
import os
import re
from contextlib import AbstractContextManager
from pathlib import Path

from gwconf import binding, secrets, urls
from gwconf.errors import GwconfError, ParseError, ProfileError
from gwconf.fileio import decode_text, exclusive_lock, read_plain, read_snapshot, remove_file, write_private
from gwconf.lazyre import lazy
from gwconf.paths import Env
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs about 3 ms to import; only type checkers need it here
if TYPE_CHECKING:
    from typing import Any

# \Z, not $: "$" also matches before a final newline ("work\n" would name a file "work\n.toml").
# Both compile on first use: a listing never needs them, and each compile was 0.4M instructions of
# it (issue 15); names are checked by ``binding.valid_name``, held to the pattern by
# tests/test_profile_names.py.
NAME_PATTERN = lazy(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
KEY_ENV_PATTERN = lazy(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


# key commands already run by this command, by command line: each runs at most once per command
# (``gwconf.cli.run`` forgets them between commands)
_command_keys: dict[str, str] = {}


def forget_command_keys() -> None:
    _command_keys.clear()


def key_from_command_output(profile: str, command: str, output: str) -> str:
    """The key a ``key_cmd`` printed: its first line, line ending stripped (the ``pass`` and ``op
    read`` convention: a ``pass`` entry's later lines hold ``user:``/``url:`` and other secrets).

    Refuses empty output and a first line holding whitespace or control characters; the error names
    the command and never shows what it printed (that may be any secret)."""
    first = output.split("\n", 1)[0].removesuffix("\r")
    if not output.strip():
        problem = "printed nothing"
    elif not first:
        problem = "printed an empty first line (gwconf takes the key from the first line)"
    elif any(ch.isspace() for ch in first):
        problem = "printed a first line holding whitespace (gwconf takes the key from the first line)"
    elif any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in first):
        problem = "printed a first line holding control characters"
    else:
        return first
    raise ProfileError(
        f"profile {profile!r}: the key command `{secrets.command_shown(command)}` {problem}; its output is not shown.",
        "Run the command by hand: the key must be alone on its first line.",
    )


@record
class Profile:
    name: str
    base_url: str
    model: str | None = None
    key: str | None = None  # inline key
    key_env: str | None = None  # or: the environment variable that holds it
    key_cmd: str | None = None  # or: a command that prints it
    key_keyring: str | None = None  # or: "service/user" in the OS keychain (the keyring extra)
    anthropic_base_url: str | None = None
    gemini_base_url: str | None = None
    client_models: dict[str, str] = field(default_factory=dict)
    # the model's limits in tokens, when the user states them (above what the gateway says)
    context_window: int | None = None
    max_output_tokens: int | None = None
    source: Path | None = None
    chosen: Any = None  # binding.Choice: what chose this profile (--profile, GWCONF_PROFILE, a folder...)

    # -- the key ---------------------------------------------------------------------------
    @property
    def key_source(self) -> str:
        if self.key is not None:
            return "inline"
        if self.key_env:
            return f"env:{self.key_env}"
        if self.key_cmd:
            return f"cmd:{secrets.command_shown(self.key_cmd)}"
        if self.key_keyring:
            return f"keyring:{self.key_keyring}"
        return "none"

    def resolve_key(self, env: Env) -> str:
        """The key itself, from wherever the profile says it comes from."""
        if self.key is not None:
            return self.key
        if self.key_env:
            value = env.environ.get(self.key_env)
            if not value:
                raise ProfileError(
                    f"profile {self.name!r} takes its key from ${self.key_env}, which is not set.",
                    f"export {self.key_env}=sk-... (or change the profile: gwconf profile add {self.name} ...)",
                )
            return _as_text(self.name, f"${self.key_env}", value)
        if self.key_cmd:
            if self.key_cmd in _command_keys:  # one `pass` / `op read` prompt per command, not per client
                return _command_keys[self.key_cmd]
            import shlex
            import subprocess  # only a key command needs it (it costs about 4 ms to import)

            try:
                done = subprocess.run(
                    self.key_cmd if _needs_shell(self.key_cmd) else shlex.split(self.key_cmd),
                    shell=_needs_shell(self.key_cmd),
                    capture_output=True,
                    text=True,
                    errors="surrogateescape",  # bytes that are no text: refused by _as_text
                    timeout=30,
                    env=dict(env.environ),
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ProfileError(
                    f"profile {self.name!r}: the key command failed to run ({type(exc).__name__}).",
                    "Check the command with: gwconf profile show " + self.name,
                ) from None
            if done.returncode != 0:
                raise ProfileError(
                    f"profile {self.name!r}: the key command exited {done.returncode} and printed no key.",
                    "Run the command by hand to see why.",
                )
            value = _as_text(self.name, "the key command's output", done.stdout)
            value = key_from_command_output(self.name, self.key_cmd, value)
            _command_keys[self.key_cmd] = value
            return value
        if self.key_keyring:
            return _from_keyring(self.name, self.key_keyring)
        raise ProfileError(
            f"profile {self.name!r} has no key.",
            f"gwconf profile add {self.name} --base-url {self.base_url} --key-stdin",
        )

    def cheap_key(self, env: Env) -> str | None:
        """The key when reading it costs nothing (inline, or a set variable); None for a key command."""
        if self.key is not None:
            return self.key
        if self.key_env:
            return env.environ.get(self.key_env) or None
        return None

    def model_for(self, client_id: str) -> str | None:
        return self.client_models.get(client_id) or self.model

    # -- family addresses -------------------------------------------------------------------
    def anthropic_root(self) -> tuple[str, bool]:
        """(address, derived?): the Anthropic-style root, or the base without /v1."""
        if self.anthropic_base_url:
            return self.anthropic_base_url, False
        return urls.root(self.base_url), True

    def gemini_root(self) -> tuple[str, bool]:
        if self.gemini_base_url:
            return self.gemini_base_url, False
        return urls.root(self.base_url), True

    def other_hosts(self) -> list[str]:
        """The hosts of the Anthropic- and Gemini-style addresses that are not the base address's:
        the key goes there too (``profile import`` asks before a shared file sends it to one)."""
        own = urls.origin(self.base_url)
        found = [urls.origin(url) for url in (self.anthropic_base_url, self.gemini_base_url) if url]
        return sorted({host for host in found if host != own})

    # -- serialisation ------------------------------------------------------------------------
    def to_toml(self, include_key: bool = True) -> str:
        import tomlkit

        doc = tomlkit.document()
        doc.add(tomlkit.comment(f"gwconf profile {self.name!r}: see the README's 'Profiles' section"))
        doc.add("base_url", self.base_url)
        for name in (*_TEXT_FIELDS[1:], *_TOKEN_FIELDS):
            value = getattr(self, name)
            if (value is not None and include_key) if name == "key" else value:
                doc.add(name, value)
        if self.client_models:
            table = tomlkit.table()
            for client_id, model in sorted(self.client_models.items()):
                table.add(client_id, model)
            doc.add("models", table)
        return tomlkit.dumps(doc)

    def public_dict(self, show_key: bool = False, env: Env | None = None) -> dict[str, Any]:
        key_value: str | None = None
        if env is not None:
            try:
                key_value = self.resolve_key(env)
            except ProfileError:
                key_value = None
        elif self.key is not None:
            key_value = self.key
        return {
            "name": self.name,
            "base_url": self.base_url,
            "model": self.model,
            "key_source": self.key_source,
            "key": (key_value if show_key else secrets.mask(key_value)) if key_value else None,
            "anthropic_base_url": self.anthropic_root()[0],
            "anthropic_base_url_derived": self.anthropic_root()[1],
            "gemini_base_url": self.gemini_root()[0],
            "gemini_base_url_derived": self.gemini_root()[1],
            "models": dict(self.client_models),
            "context_window": self.context_window,
            "max_output_tokens": self.max_output_tokens,
            "path": str(self.source) if self.source else None,
        }


def _keyring_ref(value: str | None, source: str) -> str | None:
    """``service/user``: both parts non-empty (the user may hold further slashes)."""
    if value is None:
        return None
    service, _, user = value.partition("/")
    if not service.strip() or not user.strip():
        raise ProfileError(
            f"{source}: key_keyring {value!r} is not service/user.",
            'Write the keychain entry as service/user: key_keyring = "gateway/work"',
        )
    return value


def _from_keyring(profile: str, reference: str) -> str:
    """The key from the OS keychain through ``keyring`` (an optional extra, imported only here)."""
    service, _, user = reference.partition("/")
    try:
        import keyring  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ProfileError(
            f"profile {profile!r} takes its key from the keychain, which needs the keyring package.",
            "Install it beside gwconf: pipx inject gwconf keyring  (or: pip install 'gwconf[keyring]')",
        ) from None
    try:
        value = keyring.get_password(service, user)
    except Exception as exc:  # keyring's backends raise their own errors (locked, no backend...)
        raise ProfileError(
            f"profile {profile!r}: the keychain did not give the key ({type(exc).__name__}).",
            f"Check the entry by hand: keyring get {service} {user}",
        ) from None
    if not value:
        raise ProfileError(
            f"profile {profile!r}: the keychain has no entry {service}/{user}.",
            f"Store it: keyring set {service} {user}",
        )
    return str(value).strip()


def _as_text(name: str, where: str, value: str) -> str:
    """``value`` when it is text; a key from the environment or a command may hold bytes that are
    not UTF-8 (Python holds each as a lone surrogate), which no file gwconf writes can hold and no
    HTTP header can carry: no gateway issued such a key. Nothing of it is shown."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ProfileError(
            f"profile {name!r}: {where} holds bytes that are not UTF-8 text, so it is no key a gateway "
            "issued (a key pasted from a document in another encoding?).",
            "Copy the key again from the gateway's own page and set it once more.",
        ) from None
    return value


def _needs_shell(command: str) -> bool:
    return any(ch in command for ch in "|&;<>$`")


# The fields of a profile file, in the order ``to_toml`` writes them (then the [models] table).
_TEXT_FIELDS = (
    "base_url",
    "model",
    "key",
    "key_env",
    "key_cmd",
    "key_keyring",
    "anthropic_base_url",
    "gemini_base_url",
)
_TOKEN_FIELDS = ("context_window", "max_output_tokens")
_KNOWN_KEYS = {"name", *_TEXT_FIELDS, *_TOKEN_FIELDS, "models"}


def _max_tokens() -> int:
    from gwconf.limits import MAX_TOKENS

    return MAX_TOKENS


def parse_profile(text: str, source: str, name: str, parsed: ParsedTexts | None = None) -> Profile:
    """Validate a profile file's content; every field is checked, unknown fields are refused.
    ``parsed``: what tomllib made of texts read before (see ``ParsedTexts``)."""
    data = parsed.get(text) if parsed is not None else None
    if data is None:
        data = _toml_loads(text, source)
        if parsed is not None:
            parsed.put(text, data)
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ProfileError(
            f"{source}: unknown field(s) {', '.join(unknown)}.",
            "Allowed: " + ", ".join(sorted(_KNOWN_KEYS)),
        )
    for key in (*_TEXT_FIELDS, "name"):
        if key in data and not isinstance(data[key], str):
            raise ProfileError(f"{source}: {key} must be a string.", f'Quote the value: {key} = "..."')
    if "base_url" not in data:
        raise ProfileError(f"{source}: base_url is missing.", 'Add: base_url = "https://gw.example.com/v1"')
    if "name" in data and not binding.valid_name(data["name"]):  # a shared file's name names files
        raise ProfileError(
            f"{source}: name {data['name']!r} is not allowed.",
            NAME_RULE,
        )
    normalized = urls.normalize_base_url(data["base_url"])
    sources = [k for k in ("key", "key_env", "key_cmd", "key_keyring") if k in data]
    if len(sources) > 1:
        raise ProfileError(
            f"{source}: set only one of key, key_env, key_cmd, key_keyring (found {', '.join(sources)}).",
            "Keep the one this profile should use and delete the other lines.",
        )
    if "key_env" in data and not KEY_ENV_PATTERN.match(data["key_env"]):
        raise ProfileError(
            f"{source}: key_env {data['key_env']!r} is not a valid variable name.",
            'Use letters, digits and _, not starting with a digit: key_env = "GWCONF_API_KEY"',
        )
    models = data.get("models", {})
    if not isinstance(models, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in models.items()
    ):
        raise ProfileError(
            f"{source}: [models] must map client ids to model names.",
            'Write a [models] table with lines such as: codex = "my-model"  (ids: gwconf clients)',
        )
    for key in _TOKEN_FIELDS:
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ProfileError(
                f"{source}: {key} must be a whole number of tokens, 1 or more.",
                f"Write it without quotes: {key} = 200000",
            )
        if value is not None and value > _max_tokens():
            raise ProfileError(
                f"{source}: {key} {value} is more tokens than any model has (at most {_max_tokens()}).",
                f"Write the model's real number: {key} = 200000",
            )
    model = data.get("model")
    if model is not None and (not model.strip() or any(ch in model for ch in "\r\n")):
        raise ProfileError(
            f"{source}: model must be a non-empty single line.",
            'Write the model name on one line: model = "my-model"',
        )
    return Profile(
        name=data.get("name") or name,
        base_url=normalized.url,
        model=model,
        key=data.get("key"),
        key_env=data.get("key_env"),
        key_cmd=data.get("key_cmd"),
        key_keyring=_keyring_ref(data.get("key_keyring"), source),
        anthropic_base_url=urls.normalize_family_url(data["anthropic_base_url"])
        if data.get("anthropic_base_url")
        else None,
        gemini_base_url=urls.normalize_family_url(data["gemini_base_url"])
        if data.get("gemini_base_url")
        else None,
        client_models=dict(models),
        context_window=data.get("context_window"),
        max_output_tokens=data.get("max_output_tokens"),
    )


def _toml_loads(text: str, source: str) -> dict[str, Any]:
    """``tomllib.loads``; a profile of plain lines is read by ``plaintoml`` (tomllib's data for it)
    without importing tomllib (8 ms), which a command with no parsed copy of its profile paid."""
    from gwconf import plaintoml

    data = plaintoml.read(text)
    if data is not None:
        return data
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, col = _toml_position(str(exc))
        raise ParseError(source, str(exc).split(" (at")[0], line, col) from None


class ParsedTexts:
    """Profile texts already parsed, with what tomllib made of them: ``<state>/profiles.parsed``.

    tomllib's import costs about 7 ms (its patterns, ``datetime``, ``string``), a third of
    ``gwconf profile list`` beyond Python's own start-up (issue 15), and every command that loads
    a profile paid it. The profile file is still read every time and looked up by its whole text,
    so an entry is never stale: an edited profile is a new text, parsed anew.

    It holds no key, nor any text that ``secrets.redact`` would mask. A profile with an inline
    key is kept as the text before the key's value and the text after it, with the data less the
    key. A text matches when it has that beginning and end and, between them, only characters
    that stand for themselves inside a TOML basic string (``_KEY_VALUE``): it then parses to the
    same data with that key (proven when the entry is made, by parsing it with a probe key in
    that place), and the key is read from the profile's own text. A key written any other way
    (escaped, a literal string, also named elsewhere) leaves its text unkept, parsed each time.

    Only gwconf's own changes to the profiles write it (``save``, ``remove``, ``rename``), never
    a command that reads them: a dry run or ``status`` writes nothing. Each write keeps only the
    profiles saved then. Values other than JSON's kinds (tomllib's dates) are not kept, and an
    unreadable file counts as empty, as does one written by a Python whose ``marshal`` differs.

    It is ``marshal``'s bytes, not JSON: ``marshal`` is built into the interpreter, and importing
    ``json`` (its patterns) was 5.7M instructions of a listing that reads no other JSON (issue
    15). What it loads is taken only as plain data (``_json_safe``), never as code. The JSON file
    of gwconf 0.1's first releases (``profiles.parsed.json``) is removed at the next write.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[dict[str, Any]] = []
        self.added = False
        try:
            loaded = marshal.loads(read_plain(path))
        except FileNotFoundError:
            loaded = self._earlier_release_file()
        except (OSError, ValueError, EOFError, TypeError, RecursionError):
            return
        if isinstance(loaded, list):
            self.entries = [e for e in loaded if _well_formed_entry(e)]

    def _earlier_release_file(self) -> Any:
        """The JSON file earlier releases kept, read until gwconf next writes this one: a home
        upgraded from them is otherwise parsed (and its text redacted) by every listing until a
        profile is saved, as no command that only reads writes the cache."""
        import json

        try:
            return json.loads(read_plain(self.path.with_name(self.path.name + ".json")))
        except (OSError, ValueError, RecursionError):
            return None

    def get(self, text: str) -> dict[str, Any] | None:
        for entry in self.entries:
            data = _read_as(entry, text)
            if data is not None:
                return data
        return None

    def put(self, text: str, data: dict[str, Any]) -> None:
        if not _json_safe(data) or self.get(text) is not None:
            return
        key = data.get("key")
        if key is None:
            entry: dict[str, Any] = {"text": text, "data": data}
        else:
            place = _INLINE_KEY.search(text) if isinstance(key, str) else None
            if place is None or place.group("value") != key or text.count(key) != 1:
                return  # written some other way: parsed each time
            rest = {k: v for k, v in data.items() if k != "key"}
            before, after = text[: place.start("value")], text[place.end("value") :]
            try:  # proof that the span is the key's value and nothing else: another key there
                probed = _toml_loads(before + _PROBE + after, "probe")
            except ParseError:
                return
            if probed != {**rest, "key": _PROBE}:
                return
            entry = {"before": before, "after": after, "data": rest}
        kept_text = entry["text"] if "text" in entry else entry["before"] + entry["after"]
        if secrets.redact(kept_text) != kept_text:  # a secret elsewhere (a key command's own key)
            return
        self.entries.append(entry)
        self.added = True

    def keep_only(self, texts: set[str]) -> None:
        """Write the file again with only the entries of ``texts`` (the profiles saved now)."""
        kept = [e for e in self.entries if any(_read_as(e, text) is not None for text in texts)]
        if kept == self.entries and not self.added:
            return
        self.entries, self.added = kept, False
        try:
            if kept:
                write_private(self.path, marshal.dumps(kept))
            else:
                remove_file(self.path)
            legacy = self.path.with_name(self.path.name + ".json")
            if legacy.exists():
                remove_file(legacy)
        except OSError:  # a read-only state folder: every command parses, as before
            pass


# the characters a key may have (secrets.key_problems: what gateways issue) that stand for
# themselves inside a TOML basic string
_KEY_VALUE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=:-")
_PROBE = "gwconf-probe-0123456789"
# ``key = "…"`` alone on its line, as ``Profile.to_toml`` writes it
_INLINE_KEY = lazy(r'^key[ \t]*=[ \t]*"(?P<value>[A-Za-z0-9._~+/=:\-]+)"[ \t]*\r?$', re.MULTILINE)


def _read_as(entry: dict[str, Any], text: str) -> dict[str, Any] | None:
    """What ``text`` parses to by ``entry`` (a fresh dict), or None when the entry is not its."""
    if "text" in entry:
        return dict(entry["data"]) if entry["text"] == text else None
    before, after = entry["before"], entry["after"]
    if len(text) > len(before) + len(after) and text.startswith(before) and text.endswith(after):
        key = text[len(before) : len(text) - len(after)]
        if key and all(c in _KEY_VALUE for c in key):  # [A-Za-z0-9._~+/=:\-]+, without compiling it
            return {**entry["data"], "key": key}
    return None


def _well_formed_entry(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict) or "key" in entry["data"]:
        return False
    if not _json_safe(entry["data"]):
        return False
    if "text" in entry:
        return isinstance(entry["text"], str)
    before, after = entry.get("before"), entry.get("after")
    return (
        isinstance(before, str) and isinstance(after, str) and before.endswith('"') and after.startswith('"')
    )


def _json_safe(value: Any) -> bool:
    """Whether ``value`` reads back from JSON as itself (tomllib also makes dates and times)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_safe(v) for v in value)
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, (str, int, bool))


def _toml_position(message: str) -> tuple[int | None, int | None]:
    match = re.search(r"line (\d+), column (\d+)", message)
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


NAME_RULE = "Use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit."


def validate_name(name: str) -> str:
    if not binding.valid_name(name or ""):
        raise ProfileError(
            f"profile name {name!r} is not allowed.",
            NAME_RULE,
        )
    return name


class ProfileStore:
    """The saved profiles and which one is active."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.folder = env.profiles_dir
        self.active_file = env.config_dir / "active"
        self._parsed: ParsedTexts | None = None

    @property
    def parsed(self) -> ParsedTexts:
        if self._parsed is None:
            self._parsed = ParsedTexts(self.env.state_dir / "profiles.parsed")
        return self._parsed

    def _settle_parsed(self) -> None:
        """After a parse or a change of the saved profiles: keep what the profiles hold now."""
        parsed = self._parsed
        if parsed is None:
            return
        texts = set()
        for name in self.names():
            try:
                text = decode_text(self.path_for(name).read_bytes(), name)[0]
                if parsed.get(text) is None:  # kept already: no second parse
                    parsed.put(text, _toml_loads(text, name))
            except (OSError, ParseError):  # unreadable or broken: read (and reported) when loaded
                continue
            texts.add(text)
        parsed.keep_only(texts)

    def path_for(self, name: str) -> Path:
        return self.folder / f"{validate_name(name)}.toml"

    def names(self) -> list[str]:
        # os.listdir, not Path.glob: glob compiles a pattern and makes a Path per entry
        try:
            entries = os.listdir(self.folder)
        except OSError:  # missing, not a folder, unreadable: glob saw nothing there either
            return []
        return sorted(n[:-5] for n in entries if n.endswith(".toml") and binding.valid_name(n[:-5]))

    def readable(self) -> list[Profile]:
        """Every saved profile that can be read; a damaged one is left out (the listings show
        what they can; ``profile list`` names the damaged one)."""
        loaded = []
        for name in self.names():
            try:
                loaded.append(self.load(name))
            except GwconfError:
                continue
        return loaded

    def exists(self, name: str) -> bool:
        return self.path_for(name).exists()

    def choose(self, name_or_path: str | None) -> binding.Choice:
        """Which profile a command uses and why (``binding.resolve``: --profile, GWCONF_PROFILE,
        the nearest .gwconf.toml, the active profile); a refused binding is a ProfileError."""
        try:
            return binding.resolve(
                name_or_path, self.env.environ, str(self.env.cwd), str(self.env.home), self.active()
            )
        except binding.BindingError as exc:
            raise ProfileError(exc.message, exc.hint) from None

    def load(self, name_or_path: str | None) -> Profile:
        """A saved name, a path to a profile file, or (None) the profile the binding order chooses:
        GWCONF_PROFILE, the nearest .gwconf.toml, the active profile."""
        choice = self.choose(name_or_path)
        profile = self._load(choice.name, choice)
        profile.chosen = choice
        return profile

    def _load(self, name_or_path: str | None, choice: binding.Choice) -> Profile:
        if name_or_path is None:
            active = self.active()
            if active is None:
                saved = self.names()
                raise ProfileError(
                    "no active profile.",
                    f"Choose one: gwconf use {saved[0]}  (saved: {', '.join(saved[:10])}"
                    + (", …)" if len(saved) > 10 else ")")
                    if saved
                    else "Start with: gwconf init  (or gwconf profile add NAME --base-url URL --use)",
                )
            name_or_path = active
        if _looks_like_path(name_or_path):
            path = Path(name_or_path).expanduser()
            if not path.is_file():
                raise ProfileError(
                    f"profile file {name_or_path} does not exist.",
                    "Check the path, or name a saved profile (see: gwconf profile list).",
                )
            name = path.stem
        else:
            path = self.path_for(name_or_path)
            name = name_or_path
            if not path.is_file() and _packaged(name_or_path) is not None:
                path = _packaged(name_or_path)  # type: ignore[assignment]
            if not path.is_file():
                import difflib

                saved = self.names()
                close = difflib.get_close_matches(name_or_path, saved, n=1, cutoff=0.5)
                known = ", ".join(saved) or "none yet"
                named_by = (
                    ""
                    if choice.source in (binding.FLAG, binding.ACTIVE)
                    else f" ({choice.describe()} names it)"
                )
                raise ProfileError(
                    f"no profile named {name_or_path!r}{named_by}"
                    + (f". Did you mean {close[0]!r}?" if close else f" (saved: {known})."),
                    f"gwconf use {close[0]}"
                    if close
                    else f"Create it: gwconf profile add {name_or_path} --base-url URL",
                )
        snap = read_snapshot(path)
        text, _ = decode_text(snap.data or b"", str(path))
        in_store = path.parent == self.folder  # a profile file elsewhere is parsed each time
        profile = parse_profile(text, str(path), name, self.parsed if in_store else None)
        profile.source = path
        return profile

    def save(self, profile: Profile) -> Path:
        path = self.path_for(profile.name)
        text = profile.to_toml()
        # never save what load would refuse (a model with a newline)
        parse_profile(text, str(path), profile.name, self.parsed)
        with self._locked():
            write_private(path, text.encode())
            self.parsed.added = True  # the old text (and a key it held) goes
            self._settle_parsed()
        return path

    def _locked(self) -> AbstractContextManager[None]:
        """gwconf's lock: a killed run's temp files can then be swept safely (plan.repair)."""
        return exclusive_lock(self.env.state_dir / "gwconf.lock")

    def remove(self, name: str) -> None:
        path = self.path_for(name)
        if not path.exists():
            self.load(name)  # the error, with the closest saved name
            raise ProfileError(f"no profile named {name!r}.", "See: gwconf profile list")
        remove_file(path)
        self.parsed.added = True  # its text (and a key it held) goes
        self._settle_parsed()
        if self.active() == name:
            remove_file(self.active_file)

    def rename(self, old: str, new: str) -> None:
        profile = self.load(old)
        if self.exists(new):
            raise ProfileError(f"a profile named {new!r} already exists.", f"gwconf profile remove {new}")
        profile.name = validate_name(new)
        self.save(profile)
        remove_file(self.path_for(old))
        self.parsed.added = True
        self._settle_parsed()
        if self.active() == old:
            self.set_active(new)

    def active(self) -> str | None:
        try:
            name = read_plain(self.active_file, 4096).decode("utf-8").strip()
        except (OSError, ValueError):  # missing, unreadable or not text: no active profile
            return None
        return name if name and binding.valid_name(name) else None

    def set_active(self, name: str) -> None:
        if not self.exists(name):
            raise ProfileError(f"no profile named {name!r}.", "See: gwconf profile list")
        with self._locked():
            write_private(self.active_file, (name + "\n").encode())


def _packaged(name: str) -> Path | None:
    """A profile shipped inside the package (``example``): ``--profile example`` works after
    ``pipx install``, without a checkout. A saved profile of the same name wins."""
    path = Path(__file__).parent / "examples" / f"{name}.toml"
    return path if path.is_file() else None


def _looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.endswith(".toml")
