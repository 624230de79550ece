"""A form that leads back to the play page says what it did there (issue 41: every answer is
seen): the restart, a new game. The 303 carries it in a cookie of that game's page alone, so
the address stays the page's own; the page shows it once and clears it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.support.deals import WIN_DEAL
from tests.support.html_client import Browser, csrf_of


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def message_of(html: str) -> str:
    start = html.index('id="message"')
    return html[start : html.index("</div>", start)]


def test_restart_and_new_game_say_so_once(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    assert "New game: a fresh deal is laid out." in message_of(browser.get(f"/games/{gid}").text)
    # Shown once: a reload says nothing.
    assert "New game" not in message_of(browser.get(f"/games/{gid}").text)

    assert browser.act(gid, ("deal",), version=1).status_code == 303
    r = browser.post(f"/games/{gid}/restart")
    again = r.headers["location"]  # (a restart is a new game of the same deal)
    assert r.status_code == 303 and again.startswith("/games/")
    cookie = r.headers["set-cookie"]
    assert "scorpion_said=restart" in cookie and f"Path={again}" in cookie, cookie
    page = browser.get(again)
    assert "Restarted: the deal is back at its opening layout." in message_of(page.text)
    assert "scorpion_said" not in browser.http.cookies
    assert "Restarted" not in message_of(browser.get(again).text)


def test_said_in_chinese_and_not_over_a_hint(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    # A hint asked for in the address is the answer shown (the cookie is cleared all the same).
    page = browser.get(f"/games/{gid}?hint=1").text
    assert "New game" not in message_of(page) and "useful move" in message_of(page)
    again = browser.post(f"/games/{gid}/restart").headers["location"]
    page = browser.get(again, headers={"Accept-Language": "zh-CN"}).text
    assert "已重新开始" in message_of(page)


def test_the_said_cookie_is_secure_where_the_player_cookie_is(app: FastAPI) -> None:
    for base, secure in (("https://testserver", True), ("http://testserver", False)):
        http = TestClient(app, base_url=base)
        first = http.get("/")
        (player,) = first.headers.get_list("set-cookie")
        assert ("; secure" in player.lower()) is secure, player
        form = {"csrf_token": csrf_of(first.text), "variant": "scorpion", "deal": WIN_DEAL}
        r = http.post("/games", data=form, follow_redirects=False)
        assert r.status_code == 303, r.text
        (said,) = [c for c in r.headers.get_list("set-cookie") if c.startswith("scorpion_said=")]
        assert ("; secure" in said.lower()) is secure, said
