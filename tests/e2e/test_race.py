"""A live race in two browsers: two players (two browser contexts, two cookies) race on one
challenge, and each sees the other's progress arrive on their page (htmx 4's SSE extension,
``hx-sse:connect``) without reloading: moves, suits completed, the finish. Never a card."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.support.browser import (
    Problems,
    left_behind,
    menu,
    play_line,
    shot,
    start,
)
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e


def watch_race_page(page: Page, problems: Problems) -> None:
    """Like ``tests.support.browser.watch``; a request cut off by leaving its page (an event
    stream, a live table's refresh: ``left_behind``) is not a failure, any other failed
    request or console error is."""

    def on_console(m: ConsoleMessage) -> None:
        if m.type == "error":
            problems.items.append(f"console error: {m.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: problems.items.append(f"page error: {e}"))

    def on_failed(r: object) -> None:
        url, failure = getattr(r, "url", ""), getattr(r, "failure", "")
        if left_behind(r):
            return
        problems.items.append(f"request failed: {url} {failure}")

    page.on("requestfailed", on_failed)
    page.on(
        "response",
        lambda r: problems.items.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
    )


@pytest.fixture()
def two_pages(browser: Browser) -> Iterator[tuple[Page, Page]]:
    problems = Problems()
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    pages = []
    for ctx in contexts:
        ctx.set_default_timeout(10_000)
        page = ctx.new_page()
        watch_race_page(page, problems)
        pages.append(page)
    yield pages[0], pages[1]
    for ctx in contexts:
        ctx.close()
    problems.check()


def set_name(page: Page, server: LiveServer, name: str) -> None:
    page.goto(server.url + "/privacy")
    page.fill("#display_name", name)
    page.locator("#profile-form button[type=submit]").click()
    expect(page.locator("#done")).to_contain_text("name")


def row_of(page: Page, name: str) -> object:
    return page.locator("#race-live .race-row", has_text=name)


def test_two_players_race_on_one_challenge(
    two_pages: tuple[Page, Page], server: LiveServer
) -> None:
    ann, bob = two_pages
    set_name(ann, server, "Ann")
    set_name(bob, server, "Bob")

    # Ann starts a deal and makes a challenge of it; Bob opens the link and plays.
    start(ann, server, WIN_DEAL)
    menu(ann, "#challenge-btn")
    ann.wait_for_url(re.compile(r"/challenge/[\w-]+$"))
    link = ann.locator("#challenge-url").input_value()
    assert link.endswith(ann.url.rsplit("/", 1)[1])
    bob.goto(link)
    bob.click("#challenge-play")
    bob.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect(bob.locator("#game-head")).to_have_attribute("data-version", "1")
    ann.click("#challenge-resume")
    ann.wait_for_url(re.compile(r"/games/[\w-]+$"))

    # Both play pages show the live race, each with both players.
    for page in (ann, bob):
        expect(page.locator("#race-live .race-row")).to_have_count(2)
    bob_sees_ann = bob.locator("#race-live .race-row:not(.me)")
    ann_sees_bob = ann.locator("#race-live .race-row:not(.me)")
    expect(bob_sees_ann).to_contain_text("Ann")
    expect(ann_sees_bob).to_contain_text("Bob")

    # Ann's moves appear on Bob's page, live; Bob's on Ann's.
    play_line(ann, WIN_LINE[:3])
    expect(bob_sees_ann).to_have_attribute("data-moves", "3")
    expect(bob_sees_ann).to_have_attribute("data-suits", "1")  # spades completed
    play_line(bob, WIN_LINE[:2])
    expect(ann_sees_bob).to_have_attribute("data-moves", "2")
    expect(bob.locator("#race-live .race-row.me")).to_have_attribute("data-moves", "2")

    # Ann finishes: Bob sees it, suits and all.
    play_line(ann, WIN_LINE[3:])
    expect(bob_sees_ann).to_have_attribute("data-status", "won")
    expect(bob_sees_ann).to_have_attribute("data-suits", "4")
    expect(bob_sees_ann).to_contain_text("won")
    shot(bob, "race-bob-sees-ann-win")
    shot(ann, "race-ann-won")

    # The race panel never shows a card: no card picture, no card code.
    panel = bob.locator("#race").inner_html()
    assert "<svg" not in panel and not re.search(r"\b[A2-9TJQK][SHDC]\b", panel)

    # The challenge page compares both games side by side, and stays live.
    ann.goto(link)
    bob_row = ann.locator("#compare tbody tr", has_text="Bob")
    expect(bob_row).to_contain_text("2")
    play_line(bob, WIN_LINE[2:3])
    expect(bob_row.locator("td").first).to_have_text("3")
    bob.goto(link)
    rows = bob.locator("#compare tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Ann")
    expect(rows.nth(0)).to_contain_text("finished: won")
    expect(rows.nth(1)).to_contain_text("Bob")
    expect(bob.locator(".lb-wins")).to_contain_text("Ann")


def test_a_restart_keeps_the_race_entry(two_pages: tuple[Page, Page], server: LiveServer) -> None:
    """Restart on a race's play page asks first and says the attempt goes on; afterwards the
    player is still in the race, the other player sees the same entry playing with its moves
    made, and the new game's board is the deal's opening layout."""
    ann, bob = two_pages
    set_name(ann, server, "Ann2")
    set_name(bob, server, "Bob2")
    start(ann, server, WIN_DEAL)
    menu(ann, "#challenge-btn")
    ann.wait_for_url(re.compile(r"/challenge/[\w-]+$"))
    link = ann.locator("#challenge-url").input_value()
    bob.goto(link)
    bob.click("#challenge-play")
    bob.wait_for_url(re.compile(r"/games/[\w-]+$"))
    first = bob.url
    ann.goto(link)
    bob_row = ann.locator("#compare tbody tr", has_text="Bob2")
    play_line(bob, WIN_LINE[:2])
    expect(bob.locator("#race-live .race-row.me")).to_have_attribute("data-moves", "2")

    menu(bob, "#restart-btn")
    dialog = bob.locator("#confirm-dlg[open]")
    expect(dialog).to_contain_text("Your attempt in the race goes on")
    expect(dialog).not_to_contain_text("counts as a loss")
    bob.click("#confirm-yes")
    bob.wait_for_url(lambda url: url != first and "/games/" in url)
    expect(bob.locator("#game-head")).to_have_attribute("data-version", "4")
    expect(bob.locator("#moves")).to_have_text("2")  # the moves made go on
    expect(bob.locator('#board [data-col="1"][data-idx="6"]')).to_have_attribute("data-card", "3H")
    me = bob.locator("#race-live .race-row.me")
    expect(me).to_have_attribute("data-moves", "2")
    expect(me).to_have_attribute("data-status", "playing")
    expect(bob.locator("#race-live .race-row")).to_have_count(2)  # one entry each
    expect(bob_row).not_to_contain_text("gave up")
    play_line(bob, WIN_LINE[:1])
    expect(me).to_have_attribute("data-moves", "3")
    expect(bob_row.locator("td").first).to_have_text("3")
