"""Cherry Studio: no file gwconf may write; its own import link ``cherrystudio://providers/api-keys``.

Docs: https://docs.cherry-ai.com/ ; checked against CherryHQ/cherry-studio
``src/main/services/urlschema/handle-providers.ts`` @1bf07218 (app
version UNVERIFIED). Cherry Studio keeps providers in its renderer's database, so gwconf
writes nothing: ``gwconf link cherry-studio`` builds the link (provider ``gwconf``, type
``openai``, base address with a trailing slash ``…/v1/`` so every Cherry Studio generation uses it
as given) and ``--open`` hands it to the app, which asks the user to confirm. The link carries no
models: enable the model in the provider's list after importing. Importing a link whose key is
already in the list is refused by the app (``UrlSchemaInfoPopup.tsx`` @02600a9d, ``keyAlreadyExists``);
a link with another key (a rotated one) is added to the list, comma-separated, and Cherry Studio
takes the keys in turn: the old key must be removed by hand.
"""

from __future__ import annotations

from gwconf import secrets
from gwconf.clients import _desktop
from gwconf.clients._base import (
    ConfigFile,
    Finding,
    Reading,
    Target,
    default_target_for,
    no_doctor,
    no_launch,
    no_preflight,
    no_project_scope_files,
)
from gwconf.formats import Document
from gwconf.paths import Env

TYPE_CHECKING = False  # typing costs ~6 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from gwconf.links import Link

ID = "cherry-studio"
NAME = "Cherry Studio"
FAMILY = "openai"
WIRE = "chat"
TIER = 2
BASE_FORM = "slash"
PROGRAMS = ("cherry-studio", "CherryStudio")
DOCS = "https://docs.cherry-ai.com/"
RESTART = "Nothing to restart: Cherry Studio applies the import as soon as you confirm its popup."
RESTAMPED: tuple[str, ...] = ()

APP = "CherryStudio"


# hooks this client leaves to the shared defaults (ClientModule in _base.py)
target = default_target_for(__name__)
preflight = no_preflight
launch = no_launch
doctor = no_doctor
project_scope_files = no_project_scope_files


def import_link(target: Target) -> Link:
    """``cherrystudio://providers/api-keys?v=1&data=…``: provider ``gwconf``, type ``openai``."""
    from gwconf import links  # only `gwconf link` needs it

    payload = {
        "id": links.PROVIDER_ID,
        "name": links.PROVIDER_NAME,
        "type": "openai",
        "baseUrl": target.base_url,
        "apiKey": target.api_key,
    }
    return links.make(ID, "cherrystudio", "providers/api-keys?v=1", "data", payload)


def files(env: Env) -> list[ConfigFile]:
    return []


def detect(env: Env) -> bool:
    return _desktop.user_data(env, APP).is_dir() or any(env.which(p) for p in PROGRAMS)


def render(docs: dict[str, Document], target: Target, env: Env) -> list[str]:
    return ["Cherry Studio keeps providers in its own database: gwconf writes nothing, it imports by link"]


def steps(target: Target, show_key: bool) -> list[str]:
    key = target.api_key if show_key else secrets.mask(target.api_key)
    return [
        "Run: gwconf link cherry-studio --open  (Cherry Studio opens an import popup; the link carries the key).",
        "Confirm the popup: provider 'gwconf gateway', type OpenAI, address " + target.base_url,
        f"Settings > Model Provider > gwconf gateway > Models: add and enable {target.model or 'your model'} "
        "(the link carries no models).",
        "Without the link: Settings > Model Provider > + Add, type 'OpenAI', API key "
        f"{key}, API address {target.base_url} (keep the trailing slash).",
        "Importing with a new key adds it beside the old one (Cherry Studio uses the keys in turn): "
        "remove the old key in Settings > Model Provider > gwconf.",
    ]


def read(docs: dict[str, Document], env: Env) -> Reading:
    return Reading(
        wire=WIRE,
        findings=[
            Finding(
                "info",
                "provider",
                "Cherry Studio keeps providers in its own database; gwconf cannot read what it uses.",
                "check Settings > Model Provider in the app",
            )
        ],
    )
