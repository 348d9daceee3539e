"""CC Switch links read into a profile: ``ccswitch://v1/import?resource=provider&app=…&name=…&endpoint=…&apiKey=…&model=…``.

Gateway consoles (new-api's "CC Switch" button and others) generate this link for a key. Field
names as CC Switch's own parser reads them (``src-tauri/src/deeplink/parser.rs``). A link is
untrusted input: every field is checked; duplicate, malformed or unsafe fields refuse the whole
link; fields gwconf does not use (notes, icons, usage scripts, embedded configs, config URLs) are
named and ignored, never run or fetched. The other direction (apps' import links built from a
profile) is ``links.py``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from gwconf import secrets, urls
from gwconf.errors import ProfileError
from gwconf.lazyre import lazy
from gwconf.records import field, record

CCSWITCH_APPS = {  # app -> the protocol family its endpoint speaks
    "claude": "anthropic",
    "codex": "openai",
    "gemini": "gemini",
    "opencode": "openai",
    "qwen": "openai",
    "openclaw": "openai",
}
USED = {"resource", "app", "name", "endpoint", "apiKey", "model", "homepage", "enabled"}
IGNORED = {
    "notes": "a note",
    "icon": "an icon name",
    "haikuModel": "a Claude tier model",
    "sonnetModel": "a Claude tier model",
    "opusModel": "a Claude tier model",
    "configFormat": "the format of an embedded configuration",
}
REFUSED_CONTENT = {  # carried, never used: named in a warning
    "config": "an embedded configuration (gwconf takes only the fields it checks)",
    "configUrl": "a configuration URL (gwconf never fetches it)",
    "usageEnabled": "a usage-query setting",
    "usageScript": "a usage-query script (gwconf never runs code from a link)",
    "usageApiKey": "a second key for usage queries",
    "usageBaseUrl": "a usage-query address",
    "usageAccessToken": "an access token for usage queries",
    "usageUserId": "a user id for usage queries",
    "usageAutoInterval": "a usage-query interval",
}
MAX_LINK = 16 * 1024
MAX_FIELDS = 64
_FIELD_NAME = lazy(r"[A-Za-z][A-Za-z0-9_]{0,39}\Z")
_KEY_CHARS = lazy(r"[A-Za-z0-9_\-.:+/=~]+\Z")


@record
class CCSwitchImport:
    app: str
    name: str
    base_url: str
    api_key: str
    model: str | None = None
    anthropic_base_url: str | None = None
    gemini_base_url: str | None = None
    homepage: str | None = None
    warnings: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def profile_name(self) -> str:
        return slug(self.name)

    def public_dict(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "name": self.name,
            "profile": self.profile_name(),
            "base_url": self.base_url,
            "anthropic_base_url": self.anthropic_base_url,
            "gemini_base_url": self.gemini_base_url,
            "model": self.model,
            "key": secrets.mask(self.api_key),
            "homepage": self.homepage,
            "warnings": self.warnings,
            "ignored": self.ignored,
        }


def _refuse(message: str, hint: str | None = None) -> ProfileError:
    return ProfileError(
        f"CC Switch link refused: {message}",
        hint
        or "Copy the link again from your gateway's console, or add the profile by hand: gwconf profile add",
    )


def _unsafe_char(text: str) -> str | None:
    for ch in text:
        if ord(ch) < 32 or ord(ch) == 127 or unicodedata.category(ch) in ("Cf", "Cs", "Co", "Zl", "Zp"):
            return f"U+{ord(ch):04X}"
    return None


def _text_field(params: dict[str, str], name: str, limit: int) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    bad = _unsafe_char(value)
    if bad:
        raise _refuse(f"field {name!r} contains the control or invisible character {bad}.")
    value = value.strip()
    if len(value) > limit:
        raise _refuse(f"field {name!r} is {len(value)} characters long (at most {limit}).")
    return value or None


def parse_ccswitch(link: str) -> CCSwitchImport:
    """Check a ``ccswitch://v1/import`` provider link field by field; raise ``ProfileError`` if unsafe."""
    text = link.strip()
    if len(text) > MAX_LINK:
        raise _refuse(f"it is {len(text)} characters long (at most {MAX_LINK}).")
    bad = _unsafe_char(text)
    if bad or any(ch.isspace() for ch in text):
        raise _refuse(f"it contains {'the character ' + bad if bad else 'white space'} (links have none).")
    parts = urlsplit(text)
    if parts.scheme.lower() != "ccswitch":
        raise _refuse(
            f"it starts with {parts.scheme or '(nothing)'}:// instead of ccswitch://.",
            "gwconf imports CC Switch provider links (ccswitch://v1/import?...).",
        )
    if parts.netloc != "v1" or parts.path != "/import":
        raise _refuse(f"expected ccswitch://v1/import, found ccswitch://{parts.netloc}{parts.path}.")
    if parts.fragment:
        raise _refuse("it has a #fragment, which CC Switch links never carry.")
    try:
        pairs = parse_qsl(
            parts.query, keep_blank_values=True, strict_parsing=True, max_num_fields=MAX_FIELDS, separator="&"
        )
    except ValueError as exc:
        raise _refuse(f"its query is malformed ({exc}).") from None
    params: dict[str, str] = {}
    for name, value in pairs:
        if not _FIELD_NAME.match(name):
            raise _refuse(f"it has a field with an unusable name {name[:40]!a}.")
        if name in params:
            raise _refuse(f"field {name!r} appears twice: the link is ambiguous.")
        params[name] = value
    resource = params.get("resource")
    if resource != "provider":
        raise _refuse(
            f"resource is {resource!r}, not 'provider'." if resource else "it has no resource=provider.",
            "gwconf imports provider links only (not prompts, MCP servers or skills).",
        )
    app = params.get("app", "")
    if app not in CCSWITCH_APPS:
        raise _refuse(f"app {app!r} is not one CC Switch knows ({', '.join(CCSWITCH_APPS)}).")
    provider_name = _text_field(params, "name", 100)
    if not provider_name:
        raise _refuse("it has no provider name.")
    result = _endpoint(params, app)
    result.name = provider_name
    result.api_key = _api_key(params)
    result.model = _text_field(params, "model", 200)
    result.homepage = _homepage(params, result)
    enabled = params.get("enabled")
    if enabled not in (None, "true", "false"):
        result.warnings.append(f"enabled={enabled[:20]!a} is neither true nor false; ignored.")
    elif enabled == "true":
        result.ignored.append("enabled=true (a link cannot make a profile active: pass --use)")
    for field_name in sorted(params):
        if field_name in USED:
            continue
        if field_name in IGNORED:
            _text_field(params, field_name, 2000)  # still refuse hidden characters
            result.ignored.append(f"{field_name} ({IGNORED[field_name]})")
        elif field_name in REFUSED_CONTENT:
            result.warnings.append(f"the link carries {field_name}: {REFUSED_CONTENT[field_name]}; ignored.")
        else:
            result.warnings.append(f"unknown field {field_name!r}; ignored.")
    return result


def _endpoint(params: dict[str, str], app: str) -> CCSwitchImport:
    raw = _text_field(params, "endpoint", 2000)
    if not raw:
        raise _refuse(
            "it has no endpoint (links that carry only an embedded config are not imported).",
        )
    candidates = [c.strip() for c in raw.split(",") if c.strip()]
    warnings = []
    if len(candidates) > 1:
        warnings.append(f"the link lists {len(candidates)} endpoints; gwconf uses the first: {candidates[0]}")
    endpoint = candidates[0]
    try:
        normalized = urls.normalize_base_url(endpoint)
    except ProfileError as exc:
        raise _refuse(f"its endpoint: {exc.message}") from None
    host = urlsplit(endpoint).hostname or ""
    try:
        host.encode("ascii")
    except UnicodeEncodeError:
        raise _refuse(
            f"the endpoint's host {host!r} has non-ASCII characters (it may imitate another host)."
        ) from None
    if urls.is_vendor_host(host):
        raise _refuse(
            f"the endpoint {host} is a vendor's official address, not a gateway: a gateway key is rejected "
            "there."
        )
    warnings += [w for w in normalized.warnings if "non-ASCII" not in w]
    family = CCSWITCH_APPS[app]
    result = CCSwitchImport(app=app, name="", base_url=normalized.url, api_key="", warnings=warnings)
    if family in ("anthropic", "gemini"):
        root = urls.normalize_family_url(endpoint)
        if family == "anthropic":
            result.anthropic_base_url = root
        else:
            result.gemini_base_url = root
        result.warnings.append(
            f"the link was made for {app}: its endpoint {root} is the {family.title()}-style address; gwconf "
            f"assumes the OpenAI-style base {normalized.url} (check with: gwconf verify)."
        )
    return result


def _api_key(params: dict[str, str]) -> str:
    key = params.get("apiKey")
    if not key:
        raise _refuse(
            "it carries no apiKey.", "Create the profile by hand: gwconf profile add NAME --base-url URL"
        )
    problems = secrets.key_problems(key)
    if problems:
        raise _refuse(
            f"its apiKey ({secrets.mask(key)}) {'; '.join(problems)}.",
            "Gateway keys start with sk- and hold no spaces or quotes; copy the link again from the console.",
        )
    if len(key) > 512 or not _KEY_CHARS.match(key):
        raise _refuse(f"its apiKey ({secrets.mask(key)}) has characters keys never have, or is too long.")
    return key


def _homepage(params: dict[str, str], result: CCSwitchImport) -> str | None:
    homepage = _text_field(params, "homepage", 2000)
    if not homepage:
        return None
    parts = urlsplit(homepage)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _refuse(f"its homepage {homepage[:80]!a} is not an http(s) address.")
    endpoint_host = urlsplit(result.base_url).hostname or ""
    if _site(parts.hostname) != _site(endpoint_host):
        result.warnings.append(
            f"the link's homepage is {parts.hostname} but the key would go to {endpoint_host}: make sure the "
            "link came from your gateway."
        )
    return homepage


def _site(host: str) -> str:
    labels = host.lower().rstrip(".").split(".")
    return ".".join(labels[-2:])


def slug(name: str) -> str:
    """A profile name from a link's provider name: ASCII letters, digits, '.', '_' and '-'."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", ascii_name).strip("-._")[:64].strip("-._")
    return cleaned or "imported"
