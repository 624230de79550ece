"""Issue 41 item 7 in Chromium: the chosen card back and table felt are what the player sees
(pixels of the screen, computed colours); the sounds play only when switched on (an
AudioContext spy: nothing is made or started while they are off); the illustrated courts are
painted; and the weight of the site as a browser fetches it: a first visit under 300 KB
transferred, a later page under 60 KB (the court sprite is fetched once, then cached)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.support.browser import click_move, pixels_near, settled, start
from tests.support.deals import WIN_DEAL
from tests.support.server import LiveServer

RED_BACK = (142, 27, 43)  # --back-1 of the red back (#8e1b2b)
BLUE_BACK = (43, 74, 156)  # today's light blue back (#2b4a9c)
GREY_FELT = (59, 66, 73)  # #3b4249
GREEN_FELT = (23, 97, 63)  # today's light felt (#17613f)
KB = 1000

SPY = """
window.__audio = { contexts: 0, oscillators: 0, noises: 0 };
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...a) { super(...a); window.__audio.contexts++; }
};
const realStart = AudioScheduledSourceNode.prototype.start;
AudioScheduledSourceNode.prototype.start = function (...a) {
  if (this instanceof OscillatorNode) window.__audio.oscillators++; else window.__audio.noises++;
  return realStart.apply(this, a);
};
"""


def choose(page: Page, server: LiveServer, **form: Any) -> None:
    page.goto(server.url + "/privacy")
    page.locator(f"#back-{form['back']}").check()
    page.locator(f"#felt-{form['felt']}").check()
    page.locator("#sounds").set_checked(form["sounds"])
    page.locator("#theme-light").check()
    page.locator("#deck-form button[type=submit]").click()
    page.wait_for_url("**/privacy?done=deck")


def audio(page: Page) -> dict[str, int]:
    return dict(page.evaluate("window.__audio"))


def test_back_and_felt_are_painted_and_sounds_play_only_when_on(
    browser: Browser, server: LiveServer
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(10_000)
    ctx.add_init_script(SPY)
    page = ctx.new_page()
    try:
        choose(page, server, back="blue", felt="green", sounds=False)  # the light theme
        start(page, server, WIN_DEAL)
        game = page.url
        # Today's deck: a blue back on the face-down cards, the green felt.
        assert pixels_near(page, "#board .card.down", BLUE_BACK) > 50
        assert pixels_near(page, "#board .card.down", RED_BACK) == 0
        body = "getComputedStyle(document.body).backgroundColor"
        assert page.evaluate(body) == "rgb(23, 97, 63)"
        # The illustrated court: the king of spades's strip shows Kennard's yellow crown
        # (#FC4), which no card of the old deck had.
        king = "#board a.card[data-card='KS']"
        assert page.locator(king).count() == 1
        assert pixels_near(page, king, (255, 204, 68)) > 10
        # Sounds off (the default): a deal and a move make no sound, no AudioContext at all.
        v = int(page.locator("#game-head").get_attribute("data-version") or "0")
        page.click("#deal-btn")
        expect(page.locator("#game-head")).to_have_attribute("data-version", str(v + 1))
        click_move(page, 0, 3, 4)
        settled(page)
        assert audio(page) == {"contexts": 0, "oscillators": 0, "noises": 0}

        choose(page, server, back="red", felt="grey", sounds=True)
        page.goto(game)
        settled(page)
        # The red back on every face-down card the player sees, none of the blue one.
        assert pixels_near(page, "#board .card.down", RED_BACK) > 50
        assert pixels_near(page, "#board .card.down", BLUE_BACK) == 0
        assert page.evaluate(body) == "rgb(59, 66, 73)"
        # The felt as painted beside the board: a pixel of the page's screenshot.
        box = page.locator("#board").bounding_box()
        assert box
        x, y = int(box["x"] + box["width"] - 2), int(box["y"] + box["height"] - 2)
        assert page.evaluate(f"document.elementFromPoint({x}, {y}) !== null")
        assert pixels_near(page, "#board", GREY_FELT) > 1000
        assert pixels_near(page, "#board", GREEN_FELT) == 0
        # Sounds on: the move that completes the spades plays the run's notes.
        assert audio(page) == {"contexts": 0, "oscillators": 0, "noises": 0}
        click_move(page, 0, 2, 4)
        expect(page.locator(".foundation .fslot.done")).to_have_count(1)
        page.wait_for_function("window.__audio.oscillators >= 3")
        assert audio(page)["contexts"] == 1
    finally:
        ctx.close()


def transferred(page: Page, url: str) -> tuple[int, list[str]]:
    """Bytes received over the network (headers and encoded bodies) while ``url`` loads and
    settles, and the URLs that came from the network (not the cache)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    sizes: dict[str, int] = {}
    urls: dict[str, str] = {}
    cached: set[str] = set()
    cdp.on(
        "Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"])
    )
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"])),
    )
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(300)
    cdp.detach()
    fetched = [urls[r] for r, n in sizes.items() if r in urls and r not in cached and n > 0]
    return sum(sizes.values()), fetched


def test_a_first_visit_and_a_later_page_weigh_little(browser: Browser, server: LiveServer) -> None:
    # The pages' own requests, through the browser's HTTP cache: the service worker is kept
    # out (its precache of the static files reads the same HTTP cache, and a page it controls
    # is fetched by the worker, out of this page's sight).
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    page = ctx.new_page()
    try:
        # A first visit: the page, its styles and scripts, and the court sprite once.
        first, fetched = transferred(page, server.url + "/")
        assert any("/static/cards/courts." in u for u in fetched), fetched
        print(f"first visit: {first} bytes")
        assert first < 300 * KB, (first, fetched)
        # A later page, and a board with its courts: the static files come from the cache.
        later, fetched = transferred(page, server.url + "/rules")
        print(f"later page: {later} bytes")
        assert later < 60 * KB, (later, fetched)
        start(page, server, WIN_DEAL)
        board, fetched = transferred(page, page.url)
        assert page.locator("#board a.card").count() > 20
        assert not [u for u in fetched if "/static/" in u], fetched
        print(f"later board: {board} bytes")
        assert board < 60 * KB, (board, fetched)
    finally:
        ctx.close()
