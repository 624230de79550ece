"""Issue 33, "your deck", in Chromium at 360x640 (touch) and 1280x800: the four-colour deck,
the dark theme (auto follows the system, light and dark override it) and larger cards,
chosen on the privacy page, kept across reloads, shown on every page; the suits' colours as
a player sees them; no horizontal scrolling on a phone, even for the widest variants; axe-core
clean (colour contrast included) in every combination."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import Device, pixels_near, settled, shot, start
from tests.support.deals import WIN_DEAL
from tests.support.server import LiveServer

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLUE = (27, 79, 174)  # --blue of the dark palette (#1b4fae)
LIGHT_BLUE = (20, 80, 184)  # --blue of the light one (#1450b8)
GREEN_DARK = (13, 110, 49)  # #0d6e31
GREEN_LIGHT = (15, 122, 54)  # #0f7a36


def set_deck(page: Page, server: LiveServer, *, four: bool, theme: str, large: bool) -> None:
    """Choose the deck on the privacy page, as a player does, and wait for the saved page."""
    page.goto(server.url + "/privacy")
    page.locator("#four_colour").set_checked(four)
    page.locator("#large_cards").set_checked(large)
    page.locator(f"#theme-{theme}").check()
    page.locator("#deck-form button[type=submit]").click()
    page.wait_for_url("**/privacy?done=deck")
    expect(page.locator("#done")).to_have_text("Your deck and theme are saved.")


def html_classes(page: Page) -> set[str]:
    return set((page.locator("html").get_attribute("class") or "").split())


def background(page: Page) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def symbol_fill(page: Page, code: str) -> str:
    """The fill a face's symbol in the sprite computes (var(--suit-...))."""
    return str(page.evaluate(f"getComputedStyle(document.getElementById('c-{code}')).fill"))


def rgb(colour: tuple[int, int, int]) -> str:
    return f"rgb({colour[0]}, {colour[1]}, {colour[2]})"


def no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # type: ignore[index]


def columns_apart(page: Page) -> None:
    """Every column of the tableau on the screen, side by side, none over another."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('#board .col')].map(c => {
             const r = c.getBoundingClientRect(); return [r.left, r.right, r.width]; })"""
    )
    assert boxes
    for (_, right, width), (next_left, _, _) in itertools.pairwise(boxes):
        assert width > 10 and right <= next_left + 0.5, boxes
    assert boxes[0][0] >= 0 and boxes[-1][1] <= page.viewport_size["width"]  # type: ignore[index]


def test_the_deck_is_kept_and_coloured(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    game = page.url
    normal_width = page.locator("#board .col").first.bounding_box()["width"]  # type: ignore[index]
    light = background(page)
    assert symbol_fill(page, "7D") == symbol_fill(page, "7H")  # two colours: diamonds red
    assert symbol_fill(page, "7C") == symbol_fill(page, "7S")

    set_deck(page, server, four=True, theme="dark", large=True)
    page.reload()
    assert html_classes(page) == {"four-colour", "large-cards", "theme-dark"}
    assert page.locator("#four_colour").is_checked() and page.locator("#large_cards").is_checked()
    assert page.locator("#theme-dark").is_checked()
    for path in ("/", "/rules", "/stats"):
        page.goto(server.url + path)
        assert html_classes(page) == {"four-colour", "large-cards", "theme-dark"}, path
    page.goto(game)
    settled(page)
    assert html_classes(page) == {"four-colour", "large-cards", "theme-dark"}
    assert background(page) != light
    assert symbol_fill(page, "7D") == rgb(BLUE)
    assert symbol_fill(page, "KD") == rgb(BLUE)
    assert symbol_fill(page, "7C") == rgb(GREEN_DARK)
    assert symbol_fill(page, "AC") == rgb(GREEN_DARK)
    # What the player sees: a diamond on the board is blue, a club green, a heart neither.
    assert page.locator("#board .card.D").count() and page.locator("#board .card.C").count()
    assert pixels_near(page, "#board .card.D", BLUE) > 20
    assert pixels_near(page, "#board .card.C", GREEN_DARK) > 20
    assert pixels_near(page, "#board .card.H", BLUE) == 0
    # Larger cards: at least as wide as before (a phone has little to give), never past the
    # screen's width.
    large_width = page.locator("#board .col").first.bounding_box()["width"]  # type: ignore[index]
    assert large_width > normal_width
    no_horizontal_scroll(page)
    columns_apart(page)
    shot(page, f"deck-dark-four-large-{device.name}")

    # Back to two colours and the light theme: the diamonds are red again.
    set_deck(page, server, four=False, theme="light", large=False)
    page.goto(game)
    settled(page)
    assert html_classes(page) == {"theme-light"}
    assert symbol_fill(page, "7D") == symbol_fill(page, "7H")
    assert pixels_near(page, "#board .card.D", LIGHT_BLUE) == 0
    assert background(page) == light


def test_auto_follows_the_system_and_a_chosen_theme_overrides_it(
    device: Device, server: LiveServer
) -> None:
    page = device.page
    page.emulate_media(color_scheme="light")
    page.goto(server.url + "/rules")
    light = background(page)
    page.emulate_media(color_scheme="dark")
    dark = background(page)
    assert light != dark  # auto: the system's dark mode
    set_deck(page, server, four=False, theme="light", large=False)
    assert background(page) == light  # chosen light, on a dark system
    page.emulate_media(color_scheme="light")
    set_deck(page, server, four=False, theme="dark", large=False)
    assert background(page) == dark  # chosen dark, on a light system
    set_deck(page, server, four=False, theme="auto", large=False)
    assert background(page) == light


@pytest.mark.parametrize("variant", ["triple-scorpion", "how-they-run", "farmers-wife"])
def test_the_widest_variants_fit_with_larger_cards(
    device: Device, server: LiveServer, variant: str
) -> None:
    page = device.page
    page.goto(server.url + "/")
    set_deck(page, server, four=True, theme="auto", large=True)
    s = page.request.get(server.url + "/api/session").json()
    r = page.request.post(
        server.url + "/api/games",
        data={"variant": variant},
        headers={"X-CSRF-Token": s["csrf_token"]},
    )
    assert r.status == 201, r.text()
    page.goto(f"{server.url}/games/{r.json()['id']}")
    settled(page)
    assert "large-cards" in html_classes(page)
    no_horizontal_scroll(page)
    columns_apart(page)
    shot(page, f"deck-large-{variant}-{device.name}")


def _axe(page: Page) -> list[str]:
    page.evaluate(AXE.read_text())
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
             .filter(v => v.impact === 'serious' || v.impact === 'critical')
             .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))"""
    )
    return list(found)


def test_axe_is_clean_in_every_combination(device: Device, server: LiveServer) -> None:
    """Light and dark, two and four colours, normal and larger cards: axe-core (colour
    contrast included) on the play page, home, rules, statistics and privacy."""
    page = device.page
    start(page, server, WIN_DEAL)
    game = page.url.removeprefix(server.url)
    problems: set[str] = set()
    for theme, four, large in itertools.product(("light", "dark"), (False, True), (False, True)):
        set_deck(page, server, four=four, theme=theme, large=large)
        combo = f"{theme}/{'four' if four else 'two'}/{'large' if large else 'normal'}"
        for path in (game, "/", "/rules", "/stats", "/privacy"):
            page.goto(server.url + path)
            if path == game:
                settled(page)
            problems |= {f"{combo} {path}: {x}" for x in _axe(page)}
    assert not problems, sorted(problems)
