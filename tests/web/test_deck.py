"""Issue 33, "your deck": the four-colour deck, the theme (auto / light / dark) and larger
cards, kept in the player's settings and applied on every page as classes of ``<html>``
(rendered by the server: no flash of the wrong theme); the sprite colours its faces through
CSS custom properties, the same sprite for every player."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.support.deals import WIN_DEAL
from tests.support.html_client import Browser, csrf_of

ROOT = Path(__file__).resolve().parents[2]
HTML_TAG = re.compile(r"<html[^>]*>")
COLOR_SCHEME = re.compile(r'<meta name="color-scheme" content="([^"]*)">')


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def html_classes(page: str) -> set[str]:
    tag = HTML_TAG.search(page)
    assert tag, page[:200]
    found = re.search(r'class="([^"]*)"', tag.group(0))
    return set(found.group(1).split()) if found else set()


def pages_of(browser: Browser) -> dict[str, str]:
    """Every kind of page a player sees, as HTML (a game, an error page among them)."""
    gid = browser.new_game(deal=WIN_DEAL)
    paths = ["/", "/rules", "/stats", "/privacy", "/daily", f"/games/{gid}", "/deal/77"]
    out = {path: browser.get(path).text for path in paths}
    missing = browser.get("/games/no-such-game")
    assert missing.status_code == 404
    out["404"] = missing.text
    return out


def test_defaults_follow_the_system(browser: Browser) -> None:
    for path, page in pages_of(browser).items():
        assert html_classes(page) == set(), path
        assert COLOR_SCHEME.search(page).group(1) == "light dark", path  # type: ignore[union-attr]
    privacy = browser.get("/privacy").text
    assert 'id="theme-auto" checked>' in privacy
    assert 'id="four_colour">' in privacy and 'id="large_cards">' in privacy


def test_the_deck_is_saved_and_shown_on_every_page(browser: Browser) -> None:
    r = browser.post("/settings/deck", {"four_colour": "on", "theme": "dark", "large_cards": "on"})
    assert r.status_code == 303
    assert r.headers["location"] == "/privacy?done=deck"
    for path, page in pages_of(browser).items():
        assert html_classes(page) == {"four-colour", "large-cards", "theme-dark"}, path
        assert COLOR_SCHEME.search(page).group(1) == "dark", path  # type: ignore[union-attr]
    privacy = browser.get("/privacy?done=deck").text
    assert "Your deck and theme are saved." in privacy
    assert 'id="four_colour" checked>' in privacy
    assert 'id="large_cards" checked>' in privacy
    assert 'id="theme-dark" checked>' in privacy

    # Light, two colours, normal cards: only the theme's class is left.
    assert browser.post("/settings/deck", {"theme": "light"}).status_code == 303
    page = browser.get("/").text
    assert html_classes(page) == {"theme-light"}
    assert COLOR_SCHEME.search(page).group(1) == "light"  # type: ignore[union-attr]
    # No theme field at all (a form without the radio buttons): auto.
    assert browser.post("/settings/deck", {"four_colour": "on"}).status_code == 303
    assert html_classes(browser.get("/rules").text) == {"four-colour"}


def test_the_deck_belongs_to_the_player_not_the_browser(app: FastAPI, browser: Browser) -> None:
    """Kept on the server: the same player's cookie in another client (another device of
    the player) shows it; another player does not get it; the other settings stay."""
    browser.post("/settings", {"save_games": "on"})  # statistics off
    browser.post("/settings/deck", {"four_colour": "on", "theme": "dark"})
    other_device = TestClient(app)
    other_device.cookies.update(browser.http.cookies)
    assert html_classes(other_device.get("/stats").text) == {"four-colour", "theme-dark"}
    privacy = browser.get("/privacy").text
    assert 'id="record_stats">' in privacy and 'id="save_games" checked>' in privacy
    assert html_classes(Browser(app).get("/").text) == set()


@pytest.mark.parametrize(
    "form,message",
    [
        ({"theme": "purple", "four_colour": "on"}, "Unknown theme &#39;purple&#39;"),
        ({"theme": "dark", "four_colour": "yes"}, "Four-colour cards: send"),
        ({"theme": "dark", "large_cards": "1"}, "Larger cards: send"),
        ({"theme": "DARK"}, "Unknown theme"),
    ],
)
def test_a_bad_value_is_refused_and_changes_nothing(
    browser: Browser, form: dict[str, str], message: str
) -> None:
    browser.post("/settings/deck", {"large_cards": "on", "theme": "light"})
    r = browser.post("/settings/deck", form)
    assert r.status_code == 422
    assert 'id="deck-error"' in r.text and message in r.text
    assert "Nothing changed." in r.text
    page = browser.get("/privacy").text
    assert html_classes(page) == {"large-cards", "theme-light"}
    assert 'id="theme-light" checked>' in page


def test_the_deck_form_needs_its_csrf_token(app: FastAPI) -> None:
    client = TestClient(app)
    token = csrf_of(client.get("/").text)
    r = client.post("/settings/deck", data={"theme": "dark"}, follow_redirects=False)
    assert r.status_code == 403
    assert html_classes(client.get("/").text) == set()
    client.post("/settings/deck", data={"theme": "dark", "csrf_token": token})
    assert html_classes(client.get("/").text) == {"theme-dark"}


def test_the_sprite_is_the_same_for_everyone_and_colours_by_suit(
    app: FastAPI, browser: Browser
) -> None:
    def sprite(page: str) -> str:
        found = re.search(r'<svg class="sprite".*?</svg>', page, re.S)
        assert found
        return found.group(0)

    plain = sprite(browser.get("/").text)
    browser.post("/settings/deck", {"four_colour": "on", "theme": "dark", "large_cards": "on"})
    assert sprite(browser.get("/").text) == plain
    faces = re.findall(r'<symbol id="c-([A2-9TJQK])([SHDC])" class="s([SHDC])"', plain)
    assert len(faces) == 52
    assert all(suit == cls for _, suit, cls in faces)


def test_the_stylesheet_colours_suits_through_custom_properties() -> None:
    css = (ROOT / "static/css/app.css").read_text()
    for suit, name in (("S", "spades"), ("H", "hearts"), ("D", "diamonds"), ("C", "clubs")):
        assert f".s{suit} {{ fill: var(--suit-{name}); }}" in css
    four = re.search(r":root\.four-colour \{(.*?)\}", css, re.S)
    assert four
    assert "--suit-diamonds: var(--blue)" in four.group(1)
    assert "--suit-clubs: var(--green)" in four.group(1)
    # The dark palette is written twice (the system's dark mode; the chosen dark theme):
    # the same colours in both.
    auto = re.search(r":root:not\(\.theme-light\) \{(.*?)\}", css, re.S)
    chosen = re.search(r":root\.theme-dark \{(.*?)\}", css, re.S)
    assert auto and chosen

    def declarations(block: str) -> list[str]:
        return sorted(d.strip() for d in block.split(";") if d.strip().startswith("--"))

    assert declarations(auto.group(1)) == declarations(chosen.group(1))
    assert len(declarations(auto.group(1))) > 10
