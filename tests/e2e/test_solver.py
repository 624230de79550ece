"""The solver in a real browser: "Is this still winnable?", "Solver hint" (htmx and without
JavaScript) and "New winnable deal"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine.solver import winnable_deals
from tests.support.browser import (
    Problems,
    menu,
    shot,
    start,
    watch,
)
from tests.support.deals import WIN_DEAL
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e


def test_is_it_winnable_and_the_solver_hint(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    menu(page, "#winnable-btn")
    message = page.locator("#message")
    expect(message).to_contain_text("Still winnable")
    expect(message).to_contain_text("marked as assisted")
    menu(page, "#solver-hint-btn")
    expect(message).to_contain_text("Solver hint: ")
    expect(message).to_contain_text("This keeps the game winnable.")
    # One move (a card and a column) or the deal is highlighted, like a normal hint.
    cards = page.locator("#board .card.hint-src").count()
    columns = page.locator("#board .col.hint-dst").count()
    deal = page.locator("#deal-btn.hint-src").count()
    assert (cards, columns, deal) in ((1, 1, 0), (0, 0, 1)), (cards, columns, deal)
    shot(page, "solver-hint-1280x800")


def test_new_winnable_deal_from_the_home_page(page: Page, server: LiveServer) -> None:
    catalogued = set(winnable_deals("scorpion"))
    assert catalogued, "the shipped catalog of winnable Scorpion deals is empty"
    page.goto(server.url + "/")
    expect(page.locator("#winnable-scorpion")).to_have_attribute(
        "title", re.compile("proved winnable by our solver")
    )
    page.click("#winnable-scorpion")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    number = (page.locator("#share-link").text_content() or "").strip().lstrip("#")
    assert int(number) in catalogued


def test_solver_buttons_without_javascript(browser: Browser, server: LiveServer) -> None:
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        start(page, server, WIN_DEAL)
        menu(page, "#winnable-btn")
        page.wait_for_url(re.compile(r"/solver\?r="))
        expect(page.locator("#message")).to_contain_text("Still winnable")
        menu(page, "#solver-hint-btn")
        page.wait_for_url(re.compile(r"/solver\?r="))
        expect(page.locator("#message")).to_contain_text("Solver hint: ")
    finally:
        ctx.close()
    problems.check()
