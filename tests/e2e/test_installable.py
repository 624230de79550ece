"""Issue 33, item 5, in Chromium: the site is installable (no installability errors from
the DevTools protocol), its service worker activates and caches only static files and the
offline page, and without a connection a navigation shows the offline page, which says
that play needs the server and offers to try again (at 360x640 touch and 1280x800)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, expect

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, SIZES, Problems, start, watch
from tests.support.deals import WIN_DEAL
from tests.support.server import LiveServer


@pytest.fixture(params=list(SIZES))
def context(
    request: pytest.FixtureRequest, playwright: Playwright, tmp_path: Path
) -> Iterator[BrowserContext]:
    """A browser with a profile on disk: Chromium installs nothing from an incognito
    context, which is what an ordinary Playwright context is."""
    ctx = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        **SIZES[request.param],  # type: ignore[arg-type]
    )
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()


def worker_active(page: Page) -> str:
    """Wait for the service worker to be active and to control the page; its script URL."""
    url = page.evaluate(
        """async () => {
             // (page.evaluate has no timeout: a worker whose install failed never gets ready,
             // so the wait gives up after 15 s and says so instead of hanging the run)
             const late = new Promise(done => setTimeout(() => done(null), 15000));
             const reg = await Promise.race([navigator.serviceWorker.ready, late]);
             if (reg === null) return 'no active worker after 15 s';
             if (!navigator.serviceWorker.controller) {
               const claimed = new Promise(done =>
                 navigator.serviceWorker.addEventListener('controllerchange', done, {once: true}));
               if (await Promise.race([claimed.then(() => true), late]) === null)
                 return 'the worker did not control the page after 15 s';
             }
             return reg.active.state === 'activated' ? reg.active.scriptURL : reg.active.state;
           }"""
    )
    return str(url)


def test_installable_with_an_offline_page(context: BrowserContext, server: LiveServer) -> None:
    page = context.pages[0] if context.pages else context.new_page()
    problems = Problems()
    watch(page, problems)
    start(page, server, WIN_DEAL)
    game = page.url
    assert worker_active(page) == server.url + "/sw.js"
    problems.check()  # online, nothing failed: the manifest, its icons, the worker

    cdp = context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")
    assert errors["installabilityErrors"] == [], errors
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == server.url + "/manifest.webmanifest"
    assert not manifest.get("errors"), manifest

    # What the worker cached: this release's static files and the offline page, nothing of
    # a player (no game page, no API answer), however much was played.
    page.goto(server.url + "/stats")
    page.goto(game)
    cached = page.evaluate(
        """async () => {
             const names = await caches.keys();
             const urls = [];
             for (const name of names) {
               for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
             }
             return {names, urls};
           }"""
    )
    assert len(cached["names"]) == 1 and cached["names"][0].startswith("scorpion-static-")
    paths = [u.removeprefix(server.url) for u in cached["urls"]]
    assert "/offline" in paths
    assert all(p == "/offline" or re.fullmatch(r"/static/[\w./-]+", p) for p in paths), paths
    assert any(p.startswith("/static/css/app.") for p in paths)

    # Offline: a navigation shows the offline page (not a cached game), whose stylesheet
    # comes from the cache.
    context.set_offline(True)
    for url in (server.url + "/", server.url + "/stats", game):
        page.goto(url)
        expect(page.locator("h1")).to_have_text("You are offline")
        expect(page.locator("#offline")).to_contain_text("Play needs the server")
        assert page.url == url  # the address the player asked for, to try again
        assert page.locator("#board").count() == 0
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background != "rgba(0, 0, 0, 0)"  # the cached stylesheet applies
    # The JSON API is never answered from a cache: offline, it fails.
    failed = page.evaluate(
        "async () => { try { await fetch('/api/session'); return false; }"
        " catch (e) { return true; } }"
    )
    assert failed is True

    # Back online, "Try again" opens the page asked for.
    context.set_offline(False)
    with page.expect_navigation():
        page.locator("#retry").click()
    assert page.url == game
    expect(page.locator("#board")).to_be_visible()
