"""A dealt layout nobody touched is not a game yet (issue 41): the play page's clock stands
still at 0:00, and "New game" (the button and N) replaces the layout without the question
that guards a game in progress; after the first move the clock runs and the question is back."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser import Device, in_view, menu, play_line, start
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer


def test_an_untouched_layout_asks_nothing_and_its_clock_waits(
    device: Device, server: LiveServer
) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    first = page.url
    clock, dlg = page.locator("#clock"), page.locator("#confirm-dlg")
    expect(page.locator("#game-head")).to_have_attribute("data-started", "false")
    page.wait_for_timeout(1500)
    expect(clock).to_have_text("0:00")

    # "New game" on the untouched layout: a new layout at once, no question.
    menu(page, "#new-btn")
    page.wait_for_url(lambda u: u != first)
    expect(dlg).to_have_count(0)
    second = page.url
    page.keyboard.press("n")  # the key too
    page.wait_for_url(lambda u: u != second)
    expect(dlg).to_have_count(0)

    # The first move starts the game and its clock; now "New game" asks first.
    start(page, server, WIN_DEAL)
    expect(dlg).to_have_count(0)  # (the untouched layout before it was replaced unasked)
    played = page.url
    play_line(page, WIN_LINE[:1])
    expect(page.locator("#game-head")).to_have_attribute("data-started", "true")
    expect(clock).to_have_text(re.compile(r"^0:0[1-9]$"), timeout=5000)
    menu(page, "#new-btn")
    expect(dlg).to_be_visible()
    expect(dlg).to_contain_text("This gives up the game: it counts as a loss.")
    in_view(page, "#confirm-dlg")
    page.keyboard.press("Escape")
    expect(dlg).to_be_hidden()
    assert page.url == played
