"""The site in Chinese in a real browser (issue 33), on a phone (360x640, touch) and a desktop
(1280x800): a browser set to zh-CN gets the play page in Chinese; a move is told on the
aria-live line in Chinese; the footer's switch changes the language and it stays changed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import (
    click_move,
    open_device,
    shot,
    start,
    tap,
    wait_version,
)
from tests.support.deals import WIN_DEAL
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_play_page_in_chinese_and_the_switch(
    browser: Browser, server: LiveServer, size: str
) -> None:
    d = open_device(browser, size, locale="zh-CN")
    page = d.page
    try:
        start(page, server, WIN_DEAL)
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
        expect(page).to_have_title(re.compile(r"蝎子纸牌"))
        expect(page.locator("#undo-btn")).to_contain_text("撤销")
        expect(page.locator("#col-0")).to_have_attribute("aria-label", re.compile(r"^第 1 列"))

        # Deal, then a one-tap move: the message line (aria-live) tells it in Chinese.
        page.click("#deal-btn")
        wait_version(page, 2)
        expect(page.locator("#message")).to_contain_text("已把牌堆发到第 1、2、3 列")
        click_move(page, 0, 3, 4)
        expect(page.locator("#message")).to_have_attribute("aria-live", "polite")
        expect(page.locator("#message")).to_contain_text(re.compile(r"已将黑桃6.*第 1 列"))
        expect(page.locator("#message")).to_contain_text("翻开了第 1 列的黑桃A")

        # A card with nowhere to go says so, and one picked up (by the keyboard) says so too:
        # in Chinese (board.js reads the page's texts).
        tap(page, "#board a[href='?select=3-3']")
        expect(page.locator("#message")).to_contain_text("梅花K现在不能移动")
        page.focus("#board a[href='?select=3-3']")
        page.keyboard.press("Enter")
        expect(page.locator("#board a.sel")).to_have_count(1)
        expect(page.locator("#message")).to_contain_text("已拿起梅花K")
        page.keyboard.press("Escape")
        expect(page.locator("#message")).to_contain_text("已放回")
        shot(page, f"i18n-zh-{size}")

        # Chinese text fits the screen sideways on every page, as the English does.
        width = page.viewport_size["width"] if page.viewport_size else 0
        game_url = page.url
        for path in ("/", "/rules", "/privacy", "/stats", "/daily/scorpion"):
            page.goto(server.url + path)
            expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        page.goto(game_url)

        # The switch at the bottom of the page: English, and the same game.
        url = page.url
        page.locator("#lang-switch #lang-en").click()
        page.wait_for_url(url)
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("#undo-btn")).to_contain_text("Undo")
        expect(page.locator("#col-0")).to_have_attribute("aria-label", re.compile(r"^Column 1"))
        expect(page.locator("#lang-en")).to_have_attribute("aria-pressed", "true")
        # It stays English on every page, though the browser asks for Chinese.
        page.goto(server.url + "/rules")
        expect(page.locator("h1")).to_have_text("How to play Scorpion")
        # And back to Chinese.
        page.locator("#lang-zh-CN").click()
        page.wait_for_url(server.url + "/rules")
        expect(page.locator("h1")).to_have_text("蝎子纸牌怎么玩")
    finally:
        d.ctx.close()
    d.problems.check()
