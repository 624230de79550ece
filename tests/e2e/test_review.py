"""The review of a game in a real browser (issue 40): asked for under the replay, its strip
of verdicts is painted in the viewport, the move that lost a winnable game marked on it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.support.api_client import KNOWN_WIN
from tests.support.browser import shot, start
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e


def _painted(page: Page, selector: str) -> None:
    """The element lies inside the viewport and is what is painted at its centre."""
    hit = page.locator(selector).evaluate(
        """e => { const r = e.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const inView = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
                && r.right <= innerWidth && r.bottom <= innerHeight;
            const top = document.elementFromPoint(x, y);
            return inView && (top === e || e.contains(top)); }"""
    )
    assert hit, f"{selector} is not painted in the viewport"


def test_the_review_strip_is_painted_with_the_losing_move(page: Page, server: LiveServer) -> None:
    start(page, server, KNOWN_WIN["deal"])
    page.click("#deal-btn")  # the stock dealt before any move: this winnable deal is lost
    expect(page.locator("#game-head")).to_have_attribute("data-version", "2")
    gid = page.url.rstrip("/").rsplit("/", 1)[1]
    page.goto(f"{server.url}/games/{gid}/replay")
    page.click("#review-start")
    strip = page.locator("#review .review-strip")
    expect(strip.locator("li")).to_have_count(2)
    expect(page.locator("#review-verdict")).to_contain_text("step 1", timeout=60_000)
    expect(strip.locator("li.rv-win")).to_have_count(1)
    expect(strip.locator("li.rv-loss.losing")).to_have_count(1)
    strip.scroll_into_view_if_needed()
    _painted(page, "#review .review-strip li.rv-win a")
    _painted(page, "#review .review-strip li.losing a")
    colour = page.locator("#review .review-strip li.losing a").evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert re.fullmatch(r"rgb\(200, 55, 45\)", colour), colour
    shot(page, "review-strip-1280x800")
    page.click("#review .review-strip li.losing a")
    page.wait_for_url(re.compile(r"/replay\?step=1$"))
    expect(page.locator("#step")).to_have_text("1 / 1")
