"""The installable web app (issue 33, item 5): the manifest, the service worker and the
offline page.

- ``/manifest.webmanifest``: name, start URL, scope, standalone display, colours and the
  icons (``static/icons``, drawn by ``scripts/make_icons.py``), at their content-hashed URLs;
- ``/sw.js``: the service worker, at the root so that its scope is the whole site. It is
  written here, not kept as a static file: its precache list is the static files' hashed
  URLs of this release plus ``/offline``, and its cache's name is a hash of that list, of
  the worker's own code and of the offline page in every language of the site (never only
  the language of the request that first asked for it: every worker process writes the same
  bytes), so a new release installs a new cache and deletes the old ones. The
  worker answers only GET requests for the precached files (from its cache) and navigations
  (from the network; the offline page when the network fails). Everything else, the game
  pages, their actions and the JSON API included, goes to the network untouched: nothing
  that carries a player's state is ever cached;
- ``/offline``: what a navigation shows without a connection. The same page for everyone
  of a language (no player, no form, the system's theme; ``<html lang>`` and
  ``Content-Language`` say which): it is cached once by every browser, in the language of
  the request that installed the worker.

``static/js/sw-register.js`` (every page) registers the worker.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app import i18n
from app.web.assets import static_files, static_url
from app.web.templating import ROOT, templates

router = APIRouter(include_in_schema=False)

NAME = "Scorpion solitaire"
SHORT_NAME = "Scorpion"
THEME_COLOUR = "#17613f"  # the felt (static/css/app.css --felt)
BACKGROUND_COLOUR = "#f4f1ea"  # the light page (--bg)
OFFLINE_PATH = "/offline"
CACHE_PREFIX = "scorpion-static-"
# The static files a page may load (no documentation or licence texts).
PRECACHED_SUFFIXES = (".css", ".js", ".svg", ".png")
WORKER_CODE = ROOT / "templates" / "sw.js"  # (plain JavaScript, not a Jinja template)
SHORT_CACHE = "public, max-age=300"


def manifest() -> dict[str, Any]:
    url = static_url
    return {
        "id": "/",
        "name": NAME,
        "short_name": SHORT_NAME,
        "description": "Scorpion solitaire and its family: exact rules, honest statistics, "
        "private by design.",
        "lang": "en",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "categories": ["games"],
        "icons": [
            {"src": url("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": url("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": url("icons/maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


def precache_urls() -> list[str]:
    """The hashed URLs of this release's static files, and the offline page."""
    files = sorted(path for path in static_files().paths if path.endswith(PRECACHED_SUFFIXES))
    return [static_url(path) for path in files] + [OFFLINE_PATH]


def offline_html(locale: str | None = None) -> str:
    """The offline page in ``locale`` (default: the request's language)."""
    if locale is None:
        return templates.env.get_template("offline.html").render()
    token = i18n.current_locale.set(locale)
    try:
        return templates.env.get_template("offline.html").render()
    finally:
        i18n.current_locale.reset(token)


def offline_pages() -> str:
    """The offline page in every language of the site, one after the other (what the worker's
    cache name depends on)."""
    return "".join(offline_html(locale) for locale in i18n.LOCALES)


def build_worker(urls: list[str], code: str, offline_page: str) -> tuple[str, str]:
    """(the service worker's code, its cache's name) for the precache list ``urls``, the
    worker's ``code`` and the offline page: the name changes when any of them does."""
    digest = hashlib.sha256()
    for part in (json.dumps(urls), code, offline_page):
        digest.update(part.encode())
    cache = CACHE_PREFIX + digest.hexdigest()[:12]
    head = (
        "// Written by app/web/pwa.py for this release: its cache and what it holds.\n"
        f"const CACHE = {json.dumps(cache)};\n"
        f"const CACHE_PREFIX = {json.dumps(CACHE_PREFIX)};\n"
        f"const OFFLINE = {json.dumps(OFFLINE_PATH)};\n"
        f"const PRECACHE = {json.dumps(urls, indent=0)};\n"
    )
    return head + code, cache


@lru_cache(maxsize=1)
def worker() -> tuple[str, str]:
    """This release's service worker and cache name (``build_worker``)."""
    return build_worker(precache_urls(), WORKER_CODE.read_text(), offline_pages())


@router.get("/manifest.webmanifest")
def web_manifest() -> Response:
    body = json.dumps(manifest(), ensure_ascii=False, separators=(",", ":"))
    return Response(
        body,
        media_type="application/manifest+json",
        headers={"Cache-Control": SHORT_CACHE},
    )


@router.get("/sw.js")
def service_worker() -> Response:
    """Never cached by HTTP (``no-cache``: the browser asks each time it checks for an
    update), scoped to the whole site (it is served from the root)."""
    code, _ = worker()
    return Response(
        code,
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get(OFFLINE_PATH, response_class=HTMLResponse)
def offline(request: Request) -> Response:
    headers = {
        "Cache-Control": "no-cache",
        "Content-Language": i18n.current_locale.get(),
        "Vary": "Accept-Language",
    }
    return HTMLResponse(offline_html(), headers=headers)
