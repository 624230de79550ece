"""Issue 41 item 7, "a deck as fine as the best sites'": the card back, the table felt and the
sounds chosen on the settings page (classes of ``<html>`` on every page, kept per player);
the illustrated court cards, one static sprite file (hashed name, cached for good) that
holds every court, drawn in the page's sprite at each court's face."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.support.html_client import Browser
from tests.web.test_deck import html_classes, pages_of

ROOT = Path(__file__).resolve().parents[2]
COURTS = ROOT / "static/cards/courts.svg"


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def test_back_felt_and_sounds_are_saved_and_shown_on_every_page(
    app: FastAPI, browser: Browser
) -> None:
    privacy = browser.get("/privacy").text
    # Today's deck for everyone until they choose: blue back, green felt, silent.
    assert 'id="back-blue" checked>' in privacy and 'id="felt-green" checked>' in privacy
    assert 'id="sounds">' in privacy
    form = {"theme": "auto", "card_back": "red", "felt": "grey", "sounds": "on"}
    r = browser.post("/settings/deck", form)
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=deck"
    for path, page in pages_of(browser).items():
        assert html_classes(page) == {"back-red", "felt-grey", "sounds"}, path
    privacy = browser.get("/privacy").text
    assert 'id="back-red" checked>' in privacy and 'id="felt-grey" checked>' in privacy
    assert 'id="sounds" checked>' in privacy
    # Another device of the player shows them; another player does not.
    other_device = TestClient(app)
    other_device.cookies.update(browser.http.cookies)
    assert html_classes(other_device.get("/stats").text) == {"back-red", "felt-grey", "sounds"}
    assert html_classes(Browser(app).get("/").text) == set()
    # A form without them (an older page still open): today's deck again, sounds off.
    assert browser.post("/settings/deck", {"four_colour": "on"}).status_code == 303
    assert html_classes(browser.get("/").text) == {"four-colour"}


@pytest.mark.parametrize(
    "form,message",
    [
        ({"card_back": "purple"}, "Unknown card back &#39;purple&#39;"),
        ({"felt": "Green"}, "Unknown felt &#39;Green&#39;"),
        ({"sounds": "yes"}, "Sounds: send"),
    ],
)
def test_a_bad_choice_is_refused_and_changes_nothing(
    browser: Browser, form: dict[str, str], message: str
) -> None:
    browser.post("/settings/deck", {"card_back": "black", "felt": "blue"})
    r = browser.post("/settings/deck", {"theme": "dark", **form})
    assert r.status_code == 422
    assert 'id="deck-error"' in r.text and message in r.text and "Nothing changed." in r.text
    assert html_classes(browser.get("/").text) == {"back-black", "felt-blue"}


def test_the_settings_page_reads_in_chinese(browser: Browser) -> None:
    page = browser.get("/privacy", headers={"Accept-Language": "zh-CN"}).text
    for text in ("牌背", "桌面绒布", "音效"):
        assert text in page


def test_the_court_sprite_holds_every_court_illustrated(browser: Browser) -> None:
    svg = COURTS.read_text()
    symbols = dict(re.findall(r'<symbol id="([JQK][SHDC])" viewBox="([^"]+)"', svg))
    assert sorted(symbols) == sorted(r + s for r in "JQK" for s in "SHDC")
    assert set(symbols.values()) == {"-120 -168 240 336"}  # the site's 60x84 card, x4
    for code in symbols:
        body = svg.split(f'<symbol id="{code}"', 1)[1].split("\n", 1)[0]
        # Kennard's figures: a drawing of its own (thousands of path bytes), in the design's
        # colours, the suit beside it in the deck's colour; no ids of another court.
        assert len(body) > 15_000, code
        assert 'fill="#FC4"' in body and 'stroke="#44F"' in body, code
        suit = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[code[1]]
        assert f"var(--suit-{suit}," in body, code
        assert set(re.findall(r'id="([A-Z]{2})-', body)) == {code}, code
    assert "CC0" in svg and "Kennard" in svg
    licence = (ROOT / "static/cards/README.md").read_text()
    assert "CC0 1.0" in licence and "@letele/playing-cards" in licence

    # Every page's sprite draws each court from the file, under the card's own rank.
    page = browser.get("/").text
    url = re.search(r'href="(/static/cards/courts\.[0-9a-f]+\.svg)#KH"', page)
    assert url, "the king of hearts is not drawn from the court sprite"
    for code in symbols:
        face = re.search(rf'<symbol id="c-{code}" [^>]*>(.*?)</symbol>', page, re.S)
        assert face and f'href="{url.group(1)}#{code}"' in face.group(1), code
    assert page.count("courts.") == 12  # referenced, never inlined
    served = browser.get(url.group(1))
    assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg")
    assert "immutable" in served.headers["cache-control"]
    assert served.content == COURTS.read_bytes()
