"""The family in a real browser: the play page of every variant on a phone (360×640) and a
laptop (1280×800) fits without sideways scrolling and logs no error; reserve and cell moves work
by click, by drag and by keyboard."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from app.engine import ALL_VARIANTS, Game, deal_from_number, get_variant
from tests.support.browser import (
    Problems,
    animations_done,
    settled,
    shot,
    tap,
    version,
    wait_version,
    watch,
)
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e

VIEWPORTS = [(360, 640), (1280, 800)]


def _deal_with(variant: str, pile: str, to_pile: str = "column") -> tuple[int, Any]:
    for n in range(1, 500):
        game = Game.new(variant, deal_from_number(n, variant))
        for m in game.hints():
            if m.from_pile == pile and m.to_pile == to_pile:
                return n, m
    raise AssertionError(f"no {variant} deal with a {pile} move")


def _open(page: Page, server: LiveServer, variant: str, number: int) -> None:
    page.goto(server.url + "/")
    page.fill("#deal_number", str(number))
    page.select_option("#variant-n", variant)
    page.locator("#deal_number").locator("xpath=ancestor::form").locator(
        "button[type=submit]"
    ).click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect(page.locator("#game-head")).to_have_attribute("data-version", "1")
    settled(page)  # a fresh game deals its cards out of the stock first: no card is moving


def _fits(page: Page) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => {
              const cols = Array.from(document.querySelectorAll('#board .col'));
              const piles = Array.from(document.querySelectorAll('#piles .pile'));
              const boxes = cols.concat(piles).map(c => c.getBoundingClientRect());
              const right = Math.max(...boxes.map(b => b.right));
              const left = Math.min(...boxes.map(b => b.left));
              const w = cols.map(c => c.getBoundingClientRect().width);
              return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
                      right, left, cols: cols.length, minWidth: Math.min(...w)};
            }"""
        )
    )


@pytest.mark.parametrize("width,height", VIEWPORTS)
@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_every_layout_fits_the_screen(
    browser: Browser, server: LiveServer, variant: str, width: int, height: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(10_000)
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        _open(page, server, variant, 31)
        animations_done(page)  # the deal-in motion has ended
        v = get_variant(variant)
        fit = _fits(page)
        assert fit["cols"] == v.columns
        assert fit["scroll"] <= fit["inner"], fit
        assert fit["left"] >= 0 and fit["right"] <= fit["inner"], fit
        assert fit["minWidth"] >= (20 if width < 500 else 40), fit
        expect(page.locator(".foundation .fslot")).to_have_count(v.runs_needed)
        expect(page.locator("#piles a.card[data-pile='reserve']")).to_have_count(v.reserves)
        expect(page.locator("#piles .pile.cell")).to_have_count(v.cells)
        shot(page, f"family-{variant}-{width}x{height}")
    finally:
        ctx.close()
    problems.check()


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_a_reserve_card_moves_by_click(
    browser: Browser, server: LiveServer, width: int, height: int
) -> None:
    n, m = _deal_with("three-blind-mice", "reserve")
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(10_000)
    # Pick up and drop (the one-tap setting off): one tap is checked below.
    ctx.add_init_script("localStorage.setItem('scorpion.onetap', 'off')")
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        _open(page, server, "three-blind-mice", n)
        card = page.locator(f"#reserve-card-{m.from_column}")
        code = card.locator("use").get_attribute("href")  # its face: "#c-7H"
        assert card.get_attribute("data-pile") == "reserve"
        v = version(page)
        card.click()
        expect(card).to_have_class(re.compile(r"\bsel\b"))
        tap(page, f"#col-{m.to_column} .card.top")
        wait_version(page, v + 1)
        assert code
        expect(page.locator(f"#col-{m.to_column} .card.top use")).to_have_attribute("href", code)
        expect(page.locator(f"#reserve-card-{m.from_column}")).to_have_count(0)
        expect(page.locator("#message")).to_contain_text("reserve card")
        assert _fits(page)["scroll"] <= _fits(page)["inner"]
    finally:
        ctx.close()
    problems.check()


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_cells_out_and_in_by_click(
    browser: Browser, server: LiveServer, width: int, height: int
) -> None:
    n, m = _deal_with("how-they-run", "cell")
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(10_000)
    ctx.add_init_script("localStorage.setItem('scorpion.onetap', 'off')")
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        _open(page, server, "how-they-run", n)
        v = version(page)
        page.locator(f"#cell-card-{m.from_column}").click()
        tap(page, f"#col-{m.to_column} .card.top")
        wait_version(page, v + 1)
        slot = page.locator(f"#cell-{m.from_column} .cell-slot")
        expect(slot).to_be_visible()
        # Now the exposed card of another column into the empty cell.
        src = next(c for c in range(10) if c != m.to_column)
        top = page.locator(f"#col-{src} .card.top")
        code = top.locator("use").get_attribute("href") or ""
        top.click(position={"x": 8, "y": 8})
        expect(top).to_have_class(re.compile(r"\bsel\b"))
        slot.click()
        wait_version(page, v + 2)
        moved = page.locator(f"#cell-card-{m.from_column}")
        expect(moved).to_be_visible()
        if code:
            expect(moved.locator("use")).to_have_attribute("href", code)
        expect(page.locator("#message")).to_contain_text("free cell")
    finally:
        ctx.close()
    problems.check()


def test_a_reserve_card_moves_by_drag_and_a_cell_by_keyboard(
    browser: Browser, server: LiveServer
) -> None:
    n, m = _deal_with("three-blind-mice", "reserve")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(10_000)
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        _open(page, server, "three-blind-mice", n)
        v = version(page)
        src = page.locator(f"#reserve-card-{m.from_column}").bounding_box()
        dst = page.locator(f"#col-{m.to_column} .card.top").bounding_box()
        assert src and dst
        page.mouse.move(src["x"] + src["width"] / 2, src["y"] + 10)
        page.mouse.down()
        page.mouse.move(src["x"] + 40, src["y"] + 40, steps=4)
        page.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + 10, steps=8)
        page.mouse.up()
        wait_version(page, v + 1)
        expect(page.locator(f"#reserve-card-{m.from_column}")).to_have_count(0)

        # Scorpion Head: a column's exposed card into a free cell, by keyboard only.
        _open(page, server, "scorpion-head", 5)
        v = version(page)
        page.locator("#col-0 .card.top").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#col-0 .card.top")).to_have_class(re.compile(r"\bsel\b"))
        page.locator("#cell-0 .cell-slot").focus()
        page.keyboard.press("Enter")
        wait_version(page, v + 1)
        expect(page.locator("#cell-card-0")).to_be_visible()
    finally:
        ctx.close()
    problems.check()


def test_one_tap_plays_a_reserve_card_with_a_single_destination(
    page: Page, server: LiveServer
) -> None:
    for n in range(1, 500):
        game = Game.new("three-blind-mice", deal_from_number(n, "three-blind-mice"))
        moves = [m for m in game.hints() if m.from_pile == "reserve"]
        by_card: dict[int, list[Any]] = {}
        for m in moves:
            by_card.setdefault(m.from_column, []).append(m)
        single = [ms[0] for ms in by_card.values() if len(ms) == 1]
        if single:
            m = single[0]
            break
    _open(page, server, "three-blind-mice", n)
    v = version(page)
    page.locator(f"#reserve-card-{m.from_column}").click()
    wait_version(page, v + 1)
    expect(page.locator(f"#reserve-card-{m.from_column}")).to_have_count(0)
