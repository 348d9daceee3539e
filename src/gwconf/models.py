"""The gateway's model list: ``GET {base}/models`` with the profile's key, cached per profile.

The gateway spec does not define ``/models``: a gateway that answers 404 (or 405) simply does
not list its models, and everything that uses the list (``profile add``'s choice, verify's "did
you mean", doctor's warning, ``init``) works without it. A rejected key gets verify's verdict
and exit code (3). The list is kept in ``<state>/models/<profile>.json`` with the base address it
came from, so other commands can use it without asking the gateway again; with it, the limits
(context window, output tokens) that the gateway tells about its models (limits.py: the list's own
entries, else LiteLLM's ``GET {base}/model/info``), which apply writes into the clients.

The request follows the rules of ``gateway``: the key goes only to the profile's host (never to
a vendor's official address, never through a redirect), httpx is imported only here, and
nothing in the environment (proxies, netrc) reroutes it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import urlsplit

from gwconf import __version__, secrets, urls
from gwconf.errors import ExitCode
from gwconf.paths import Env
from gwconf.profiles import Profile
from gwconf.records import field, record

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from typing import Any

# The most of a 200 answer read as a model list: OpenRouter's real list is about 1.3 MB (2025),
# ten times that is still a list; more is no list a gateway means (and stays a bounded read).
LIST_MAX_BODY = 16 << 20
ERROR_MAX_BODY = 1 << 20  # any other answer: only its first lines are shown


@record
class ModelList:
    """What ``GET {base}/models`` gave: the ids, or why there are none."""

    profile: str
    url: str
    key_mask: str
    verdict: str  # "ok", "not_listed", or one of gateway.VERDICTS
    ids: list[str] = field(default_factory=list)
    status: int | None = None
    detail: str = ""
    remedy: str | None = None
    body: list[str] = field(default_factory=list)
    # per model id: (context window, max output tokens, where the gateway said it)
    limits: dict[str, tuple[int | None, int | None, str]] = field(default_factory=dict)
    unusable: int = 0  # ids left out: a control character in a name no client could be given

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    @property
    def exit_code(self) -> int:
        if self.verdict in ("ok", "not_listed"):
            return int(ExitCode.OK)
        from gwconf.gateway import VERDICTS

        return int(VERDICTS[self.verdict][1])

    @property
    def label(self) -> str:
        if self.verdict in ("ok", "not_listed"):
            return {"ok": "ok", "not_listed": "not listed"}[self.verdict]
        from gwconf.gateway import VERDICTS

        return VERDICTS[self.verdict][0]

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "method": "GET",
            "url": self.url,
            "key": self.key_mask,
            "status": self.status,
            "verdict": self.verdict,
            "listed": self.verdict == "ok",
            "models": self.ids,
            "limits": {
                m: {"context_window": w, "max_output_tokens": o, "source": src}
                for m, (w, o, src) in sorted(self.limits.items())
            },
            "detail": self.detail,
            "remedy": self.remedy,
            "exit_code": self.exit_code,
        }


def setup_step(listed: ModelList, model: str | None) -> str:
    """What a new profile's setup (init) does after asking for the list. The list is a check, not
    the gateway's core (the spec does not define it), but nothing is saved or applied before one
    request has shown the key and the address work:

    - ``"save"``: the list answered with the key (the key and the address work);
    - ``"try_chat"``: anything else, and there is a model: a chat request with it decides (some
      gateways close their list to a key that may chat, or do not list at all);
    - ``"need_model"``: the same, without a model to try (init asks for one on a terminal; without
      one it stops);
    - ``"stop"``: nothing to save: the key could not be sent (a key no header can carry, a vendor's
      address), or nothing answers at the address at all.
    """
    if listed.verdict == "ok":
        return "save"
    if listed.status is None and listed.verdict in ("key_rejected", "base_wrong", "unreachable"):
        return "stop"  # nothing was sent, or nothing answers there
    return "try_chat" if model else "need_model"


def models_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/models"


def fetch(
    profile: Profile, env: Env, *, timeout: float = 15.0, key: str | None = None, unsaved: bool = False
) -> ModelList:
    """Ask the gateway for its models with the profile's key; cache the ids when it lists them.
    ``unsaved``: the profile is init's, not saved yet, so a remedy says to run init again (the
    newcomer sweep: "gwconf profile set local ..." answered "no profile named 'local'")."""
    from gwconf import gateway

    def fix(what: str, option: str) -> str:
        if unsaved:
            return f"{what}: run gwconf init again, with {option}"
        return f"{what}: gwconf profile set {profile.name} {option}"

    key = key if key is not None else profile.resolve_key(env)
    url = models_url(profile.base_url)
    result = ModelList(profile.name, url, secrets.mask(key), "ok")
    problem = gateway.unusable_key(key)
    if problem:
        result.verdict = "key_rejected"
        result.detail = f"the key {problem}: it cannot be sent as it is."
        result.remedy = fix("Give the key again", "--key-stdin")
        return result
    host = urlsplit(url).hostname or ""
    if urls.is_vendor_host(host):
        result.verdict = "base_wrong"
        result.detail = f"{host} is a vendor's official address, not the gateway; the key was not sent there."
        result.remedy = fix("Give the gateway's address", "--base-url URL")
        return result
    status, raw, content_type, failure = _get(url, key, timeout)
    result.status = status
    if failure is not None:
        result.verdict, result.detail = failure
        return result
    if status in (404, 405):
        result.verdict = "not_listed"
        result.detail = f"this gateway does not list its models (GET /models answered HTTP {status})."
        return result
    if status == 200 and len(raw) > LIST_MAX_BODY:
        result.verdict = "malformed"
        result.detail = (
            f"the model list is larger than {LIST_MAX_BODY >> 20} MiB: gwconf reads no more of it."
        )
        result.remedy = fix("Give the model by name", "--model MODEL")
        return result
    text = gateway.decoded(raw)
    data = gateway.json_body(text) if status == 200 else None
    if status == 200:
        listed = _ids_of(data)
        if listed is not None:
            result.ids, result.unusable = listed
            result.limits = _limits(data, url, profile.base_url, key, timeout)
            if not unsaved:  # init saves it with the profile, under the name it gets then
                save_cache(profile, env, result.ids, result.limits)
            result.detail = f"the gateway lists {len(result.ids)} model{'s' if len(result.ids) != 1 else ''}."
            return result
    # anything else: the same verdicts as verify (a 401 is key_rejected, exit 3)
    probe = gateway.Probe(
        wire="chat", url=url, key_mask=result.key_mask, model=None, verdict="ok", status=status
    )
    # an error sent as a 200 (one-api's {"code": 401, ...}) is classify's, as any other answer
    if status == 200 and not gateway.carries_error(data):  # JSON without a model list, or a web page
        gateway._fail(
            probe,
            "base_wrong" if gateway._is_html(text, content_type) else "malformed",
            text,
            key,
            "HTTP 200, but no model list (data[].id) in the answer: is this the gateway's API address?",
        )
    else:
        gateway.classify(probe, raw, content_type, None, key)
    result.verdict, result.detail, result.remedy, result.body = (
        probe.verdict,
        probe.detail,
        probe.remedy,
        probe.body,
    )
    return result


def _limits(
    data: Any, url: str, base_url: str, key: str, timeout: float
) -> dict[str, tuple[int | None, int | None, str]]:
    """The limits the list itself gives; else LiteLLM's ``GET {base}/model/info`` (one request)."""
    from gwconf import gateway, limits

    path = urlsplit(url).path
    found = _named(limits.from_list(data))
    if found:
        return {m: (w, o, f"GET {path}") for m, (w, o) in found.items()}
    info_url = base_url.rstrip("/") + "/model/info"
    status, raw, _, failure = _get(info_url, key, timeout)
    if failure is not None or status != 200 or len(raw) > LIST_MAX_BODY:
        return {}
    found = _named(limits.from_list(gateway.json_body(gateway.decoded(raw))))
    info_path = urlsplit(info_url).path
    return {m: (w, o, f"GET {info_path}") for m, (w, o) in found.items()}


def _named(found: dict[str, tuple[int | None, int | None]]) -> dict[str, tuple[int | None, int | None]]:
    """``found`` without the ids the list leaves out (control characters), so the cache holds none."""
    return {m: v for m, v in found.items() if usable_id(m)}


def list_at(url: str, key: str | None, timeout: float) -> list[str] | None:
    """The ids ``GET url`` lists (with ``key`` as Bearer, or no key at all), or None: any other answer.

    verify's second look (gateway.second_look): the caller has already checked the host.
    """
    from gwconf import gateway

    status, raw, _, failure = _get(url, key, timeout)
    if failure is not None or status != 200 or len(raw) > LIST_MAX_BODY:
        return None
    listed = _ids_of(gateway.json_body(gateway.decoded(raw)))
    return listed[0] if listed is not None else None


def listing(model: str, ids: list[str], shown: int = 8) -> str:
    """``the gateway lists a, b, c … (12 in all; every id: gwconf models)``: the ids other than
    ``model``, closest first."""
    others = [i for i in dict.fromkeys(closest(model, ids) + ids) if i != model]
    if not others:
        return f"the gateway lists no other model for this key{' (only this one)' if ids else ''}"
    more = f" … ({len(others)} in all; every id: gwconf models)" if len(others) > shown else ""
    return "the gateway lists " + ", ".join(others[:shown]) + more


def _get(url: str, key: str | None, timeout: float) -> tuple[int | None, bytes, str, tuple[str, str] | None]:
    """(status, body, content type, (verdict, detail) when no answer came). A 200's body longer
    than ``LIST_MAX_BODY`` comes back cut just past it: the caller can tell it was too large."""
    import httpx

    headers = {"Accept": "application/json", "User-Agent": f"gwconf/{__version__} (models)"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    from gwconf.gateway import ACCEPTED_ENCODINGS, Deadline, read_body, tls_trust

    deadline = Deadline(timeout)  # the whole exchange, body included (a dripping gateway)
    try:
        with (
            deadline,
            httpx.Client(
                trust_env=False,
                follow_redirects=False,
                timeout=httpx.Timeout(timeout),
                verify=tls_trust(url),
                headers=ACCEPTED_ENCODINGS,
            ) as client,
            client.stream("GET", url, headers=headers, extensions={"trace": deadline.trace}) as response,
        ):
            # a list can be long (OpenRouter's is 1.3 MB); an error page needs only its first lines
            limit = LIST_MAX_BODY if response.status_code == 200 else ERROR_MAX_BODY
            raw, undecodable = read_body(response, limit + 1, deadline)
            if deadline.expired:
                return None, b"", "", ("timeout", f"no answer within {timeout:g} s.")
            if 300 <= response.status_code < 400:
                return (
                    response.status_code,
                    bytes(raw),
                    "",
                    (
                        "base_wrong",
                        f"HTTP {response.status_code}: redirected (a login page?); gwconf does not follow it.",
                    ),
                )
            if undecodable is not None and response.status_code == 200:
                detail = f"HTTP 200, but the list could not be unpacked ({undecodable})."
                return response.status_code, b"", "", ("malformed", detail)
            return response.status_code, bytes(raw), response.headers.get("content-type", ""), None
    except httpx.TimeoutException:
        return None, b"", "", ("timeout", f"no answer within {timeout:g} s.")
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        return None, b"", "", ("base_wrong", f"the address cannot be used: {exc}")
    except httpx.HTTPError as exc:
        from gwconf.gateway import _network_detail

        if deadline.expired:  # the deadline shut the socket
            return None, b"", "", ("timeout", f"no answer within {timeout:g} s.")

        return None, b"", "", ("unreachable", _network_detail(exc, urlsplit(url).hostname or ""))


def usable_id(model_id: str) -> bool:
    """Whether a listed id can be a model name at all: not empty, no control character (C0, DEL,
    C1). An id with one is no model a client could use, and written into a client's file or shown
    on a terminal it could do harm (escape sequences that retitle, clear or write the clipboard)."""
    return bool(model_id.strip()) and not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in model_id)


def _ids_of(data: Any) -> tuple[list[str], int] | None:
    """The ids of an OpenAI-style list (``{"data": [{"id": ...}]}``), sorted, and how many were left
    out as unusable; None if it is not one. ``{"data": null}`` is an empty list (Ollama with no
    model pulled answers so), unless the answer is an error."""
    from gwconf.gateway import carries_error

    if carries_error(data):  # one-api's 200 {"code": 401, "msg": "invalid token", "data": null}
        return None
    items = data.get("data") if isinstance(data, dict) else data if isinstance(data, list) else None
    if items is None and isinstance(data, dict) and "data" in data and not data.get("error"):
        items = []
    if not isinstance(items, list):
        return None
    found = {item["id"] for item in items if isinstance(item, dict) and isinstance(item.get("id"), str)}
    usable = sorted(i for i in found if usable_id(i))
    return usable, len(found) - len(usable)


# -- the cache ---------------------------------------------------------------------------------------


def cache_file(env: Env, profile_name: str) -> Path:
    """The model list's cache for a profile. A name that is no saved profile's (a profile file's
    own ``name``, a file's stem) is made a file name by its hash: ``name = "../../.claude/settings"``
    in a shared file wrote the list over ``~/.claude/settings.json`` (found by the round's sweep)."""
    from gwconf import binding

    if not binding.valid_name(profile_name):
        import hashlib

        profile_name = (
            "file-" + hashlib.sha256(profile_name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        )
    return env.state_dir / "models" / f"{profile_name}.json"


def save_cache(
    profile: Profile,
    env: Env,
    ids: list[str],
    limits: dict[str, tuple[int | None, int | None, str]] | None = None,
) -> None:
    from gwconf.fileio import forget_viewed, write_private

    data: dict[str, Any] = {"base_url": profile.base_url, "fetched_at": int(time.time()), "models": ids}
    if limits:
        data["limits"] = {
            m: {"context_window": w, "max_output_tokens": o, "source": src}
            for m, (w, o, src) in sorted(limits.items())
        }
    path = cache_file(env, profile.name)
    try:
        write_private(path, (json.dumps(data, indent=2) + "\n").encode())
    except OSError:
        pass  # a cache: the list was still shown
    forget_viewed(_view_key(path))


def _cache_data(env: Env, profile_name: str) -> Any:
    """The cache file's data (None when missing or unreadable), read once per command's view:
    apply asks it for each client's limits, 37 reads of a list that can hold hundreds of models."""
    from gwconf.fileio import viewed

    path = cache_file(env, profile_name)

    def load() -> Any:
        try:
            from gwconf.fileio import read_plain

            return json.loads(read_plain(path))
        except (OSError, ValueError, RecursionError):
            return None

    return viewed(_view_key(path), load)


def _view_key(path: Path) -> tuple[str, str]:
    """What the cache file's data is kept under in a command's view (read, and forgotten on save)."""
    return ("models cache", str(path))


def cached(profile: Profile, env: Env) -> list[str] | None:
    """The last list fetched for this profile at its current address, or None."""
    data = _cache_data(env, profile.name)
    if not isinstance(data, dict) or data.get("base_url") != profile.base_url:
        return None
    ids = data.get("models")
    return [i for i in ids if isinstance(i, str) and usable_id(i)] if isinstance(ids, list) else None


def cached_limits(profile: Profile, env: Env) -> dict[str, tuple[int | None, int | None, str]]:
    """What the gateway said about its models' limits, from the cache (empty when it said nothing)."""
    from gwconf import limits

    data = _cache_data(env, profile.name)
    if not isinstance(data, dict) or data.get("base_url") != profile.base_url:
        return {}
    found: dict[str, tuple[int | None, int | None, str]] = {}
    table = data.get("limits")
    for model, entry in table.items() if isinstance(table, dict) else []:
        if not isinstance(entry, dict):
            continue
        window = limits.token_count(entry.get("context_window"))  # a cache is a file: it can say anything
        output = limits.token_count(entry.get("max_output_tokens"))
        if window or output:
            found[model] = (window, output, str(entry.get("source") or "the model list"))
    return found


def closest(model: str, ids: list[str], n: int = 3) -> list[str]:
    """The ids nearest to ``model`` (other case, a typo, another version, another vendor prefix).

    An id that is ``model`` but for case comes first, then one that differs only in its vendor
    prefix: the suggestion to make, never a silent replacement (a gateway may tell ``GPT-4o``
    from ``gpt-4o``)."""
    import difflib

    lowered = model.lower()
    wanted = lowered.rsplit("/", 1)[-1]
    found = [i for i in ids if i.lower() == lowered]
    found += [i for i in ids if i not in found and i.lower().rsplit("/", 1)[-1] == wanted]
    bare: dict[str, list[str]] = {}  # every id under its lower-case name without a prefix
    for i in ids:
        bare.setdefault(i.rsplit("/", 1)[-1].lower(), []).append(i)
    for match in difflib.get_close_matches(wanted, list(bare), n=n, cutoff=0.5):
        found += [i for i in bare[match] if i not in found]
    for i in ids:
        if len(found) >= n:
            break
        if i not in found and (wanted in i.lower() or i.lower().rsplit("/", 1)[-1] in wanted):
            found.append(i)
    return found[:n]
