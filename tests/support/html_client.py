"""A browser without JavaScript for the HTML page tests (its own cookies and CSRF token),
and the page checks they share: no face-down or stock card in a page, the game's version."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.engine import Game, code, name

HTMX = {"HX-Request": "true"}


class Browser:
    """One browser without JavaScript: its own cookies, and the CSRF token of its pages."""

    def __init__(self, app: FastAPI) -> None:
        self.http = TestClient(app)
        page = self.http.get("/")
        assert page.status_code == 200
        self.token = csrf_of(page.text)

    def get(self, path: str, **kw: Any) -> Any:
        return self.http.get(path, **kw)

    def post(self, path: str, data: dict[str, Any] | None = None, **kw: Any) -> Any:
        form = {"csrf_token": self.token, **(data or {})}
        return self.http.post(path, data=form, follow_redirects=False, **kw)

    def new_game(self, variant: str = "scorpion", **data: Any) -> str:
        r = self.post("/games", {"variant": variant, **data})
        assert r.status_code == 303, r.text
        m = re.fullmatch(r"/games/([\w-]+)", r.headers["location"])
        assert m, r.headers["location"]
        return m.group(1)

    def act(self, gid: str, action: tuple[Any, ...], version: int, **kw: Any) -> Any:
        if action[0] == "move":
            _, a, i, b = action
            data = {"from_column": a, "from_index": i, "to_column": b, "version": version}
            return self.post(f"/games/{gid}/move", data, **kw)
        return self.post(f"/games/{gid}/{action[0]}", {"version": version}, **kw)

    def act_htmx(self, gid: str, game: Game, action: tuple[Any, ...], version: int) -> Any:
        """``action`` on game ``gid`` as htmx sends it, and on ``game``, its mirror in the
        engine: the answer, a 200 with the blocks the action changed."""
        r = self.act(gid, action, version, headers=HTMX)
        assert r.status_code == 200 and "<hx-partial" in r.text, r.text[:300]
        game.apply(action)
        return r


def next_action(game: Game, k: int) -> tuple[Any, ...] | None:
    """The ``k``-th useful move in turn (round robin over the hints), the deal when none is
    left, None when neither is."""
    hints = game.hints()
    if hints:
        m = hints[k % len(hints)]
        return ("move", m.from_column, m.from_index, m.to_column)
    return ("deal",) if game.can_deal else None


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert m, "no csrf_token field in the page"
    return m.group(1)


def version_of(html: str) -> int:
    m = re.search(r'data-version="(\d+)"', html)
    assert m
    return int(m.group(1))


def shown_cards(html: str) -> list[str]:
    """The card codes drawn face up in the page: each card's picture names its face, a symbol
    of the page's sprite (``<use href="#c-7H"/>``)."""
    return re.findall(r'class="card [SHDC][^"]*"[^>]*><svg[^>]*><use href="#c-(\w\w)"/>', html)


def without_sprite(html: str) -> str:
    """``html`` without the card sprite (partials/sprite.html), asserting it is the one every
    page carries: the 52 faces of the deck, the same for every game, so it tells nothing of
    a position. Whatever else names a card is the page's own."""
    from app.web.site.templating import templates

    sprite = templates.env.get_template("partials/sprite.html").render()
    assert html.count('class="sprite"') == html.count(sprite) <= 1, "a sprite that differs"
    return html.replace(sprite, "")


def hidden_cards(game: Game) -> list[int]:
    """The face-down cards and the stock cards of the position (the test knows the deal)."""
    down = [col[k] for col, h in zip(game.cols, game.hidden, strict=True) for k in range(h)]
    return down + list(game.stock)


def assert_no_hidden_card(html: str, game: Game, *, whole_board: bool = True) -> None:
    """No face-down or stock card, by code or by name, anywhere in ``html``; and the cards
    drawn face up are exactly the face-up cards of the position (or some of them, for an
    answer that re-draws only some columns)."""
    html = without_sprite(html)
    for c in hidden_cards(game):
        assert not re.search(rf"\b{code(c)}\b", html), f"hidden card {code(c)} in the page"
        assert name(c) not in html, f"hidden card {name(c)} in the page"
    visible = [c for col in game.public_view().columns for c in col if c]
    drawn = shown_cards(html)
    if whole_board:
        assert sorted(drawn) == sorted(visible)
    else:
        assert set(drawn) <= set(visible) and len(drawn) == len(set(drawn))
