"""Issue 33, item 5, "installable": the web app manifest and its icons, the service worker
(its precache list is this release's hashed static URLs, its cache is versioned) and the
offline page, linked from every page and allowed by the security headers."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web import pwa
from tests.support.deals import WIN_DEAL
from tests.support.html_client import Browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def precache_of(code: str) -> list[str]:
    found = re.search(r"const PRECACHE = (\[.*?\]);", code, re.S)
    assert found
    urls = json.loads(found.group(1))
    assert isinstance(urls, list)
    return [str(u) for u in urls]


def test_the_manifest_names_the_app_and_its_icons(browser: Browser) -> None:
    r = browser.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == "application/manifest+json"
    m = r.json()
    assert m["name"] == "Scorpion solitaire" and m["short_name"] == "Scorpion"
    assert m["start_url"] == "/" and m["scope"] == "/" and m["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    sizes = {}
    for icon in m["icons"]:
        assert re.fullmatch(r"/static/icons/[\w-]+\.[0-9a-f]{12}\.png", icon["src"]), icon
        got = browser.get(icon["src"])
        assert got.status_code == 200
        assert got.headers["content-type"] == "image/png"
        assert "immutable" in got.headers["cache-control"]
        width, height = png_size(got.content)
        assert icon["sizes"] == f"{width}x{height}" and icon["type"] == "image/png"
        sizes[(icon["sizes"], icon.get("purpose", "any"))] = icon["src"]
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= set(sizes)


def test_the_committed_icons_are_what_the_script_draws() -> None:
    """The PNGs in static/icons come from scripts/make_icons.py (the favicon's spade): the
    script's outline of the favicon's path is closed and inside its 100 x 100 box."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_icons", ROOT / "scripts/make_icons.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, _, ink, d = module.favicon_parts((ROOT / "static/favicon.svg").read_text())
    outline = module.flatten(d)
    assert len(outline) > 50
    assert all(0 <= x <= 100 and 0 <= y <= 100 for x, y in outline)
    assert abs(outline[0][0] - outline[-1][0]) < 0.01 and abs(outline[0][1] - outline[-1][1]) < 0.01
    for name, size in (("icon-192.png", 192), ("icon-512.png", 512), ("maskable-512.png", 512)):
        assert png_size((ROOT / "static/icons" / name).read_bytes()) == (size, size)


def test_every_page_links_the_manifest_and_registers_the_worker(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    for path in ("/", "/rules", "/stats", "/privacy", f"/games/{gid}", "/games/nothing"):
        page = browser.get(path).text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, path
        assert re.search(r'<script src="/static/js/sw-register\.[0-9a-f]{12}\.js" defer>', page)


def test_the_worker_precaches_this_releases_static_files(browser: Browser) -> None:
    r = browser.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == "text/javascript"
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["service-worker-allowed"] == "/"
    assert "worker-src 'self'" in r.headers["content-security-policy"]
    urls = precache_of(r.text)
    assert "/offline" in urls
    # Every static file a page loads is precached, at the very URL the page uses.
    page = browser.get("/").text + browser.get("/rules").text
    used = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page))
    assert used and used <= set(urls), used - set(urls)
    for url in urls:
        assert browser.get(url).status_code == 200, url
        assert not url.startswith(("/api", "/games")), url
    assert not any(u.endswith((".md", ".txt")) for u in urls)
    cache = re.search(r'const CACHE = "(scorpion-static-[0-9a-f]{12})";', r.text)
    assert cache
    # The worker's code: network-only for everything but the precached files and the
    # offline page on a failed navigation; old caches deleted on activation.
    assert 'request.method !== "GET"' in r.text
    assert 'request.mode === "navigate"' in r.text
    assert "caches.delete(name)" in r.text and "name !== CACHE" in r.text


def test_a_new_release_gets_a_new_cache() -> None:
    code = (ROOT / "templates/sw.js").read_text()
    offline = pwa.offline_html()
    urls = pwa.precache_urls()
    _, now = pwa.build_worker(urls, code, offline)
    assert pwa.build_worker(list(urls), code, offline)[1] == now
    changed = [u.replace("/static/css/app.", "/static/css/app.0") for u in urls]
    assert pwa.build_worker(changed, code, offline)[1] != now
    assert pwa.build_worker(urls, code + "\n", offline)[1] != now
    assert pwa.build_worker(urls, code, offline + " ")[1] != now


def test_the_offline_page_says_play_needs_the_server(app: FastAPI, browser: Browser) -> None:
    r = browser.get("/offline")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    assert "You are offline" in page
    assert "Play needs the server" in page
    assert 'id="retry"' in page and "Try again" in page
    # The same page for everyone, with nothing of a player in it (it is cached once).
    assert "csrf_token" not in page
    other = TestClient(app).get("/offline").text
    assert other == page
    # Its static files are precached too: it shows when nothing can be fetched.
    urls = set(precache_of(browser.get("/sw.js").text))
    assert set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page)) <= urls


@pytest.mark.parametrize("first", ["zh-CN", "en"])
def test_the_worker_is_the_same_whatever_the_first_requests_language(
    app: FastAPI, first: str
) -> None:
    """Every worker process writes the same /sw.js (issue 39): its cache name does not depend
    on the language of the request that first asked for it."""
    pwa.worker.cache_clear()
    try:
        before = TestClient(app).get("/sw.js", headers={"Accept-Language": first}).text
        pwa.worker.cache_clear()
        other = "en" if first == "zh-CN" else "zh-CN"
        after = TestClient(app).get("/sw.js", headers={"Accept-Language": other}).text
    finally:
        pwa.worker.cache_clear()
    assert before == after


def test_the_offline_page_says_its_own_language(app: FastAPI) -> None:
    zh = TestClient(app).get("/offline", headers={"Accept-Language": "zh-CN"})
    en = TestClient(app).get("/offline", headers={"Accept-Language": "en"})
    assert '<html lang="zh-CN">' in zh.text and "You are offline" not in zh.text
    assert zh.headers["content-language"] == "zh-CN"
    assert '<html lang="en">' in en.text and "You are offline" in en.text
    assert en.headers["content-language"] == "en"
