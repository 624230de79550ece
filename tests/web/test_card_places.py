"""Every face-up card on the play page says where it lies and what it is, as the JSON API
numbers them (issue 34): ``data-col`` (the column, from 0), ``data-idx`` (its index from the
column's deepest card, 0) and ``data-card`` ("7H"), on the full page and in the columns an htmx
answer re-sends, in every variant. A face-down card carries none of them. Checked by parsing
the HTML."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from fastapi import FastAPI

from app.engine import ALL_VARIANTS, Game, deal_from_number
from tests.support.html_client import HTMX, Browser, version_of

NUMBER = 7  # a deal number every variant deals by


class _Cards(HTMLParser):
    """Every card element of the board (``class="card ..."``) with its attributes."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.cards: list[dict[str, str | None]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if "card" in (a.get("class") or "").split():
            self.cards.append({"tag": tag, **a})


def board(html: str) -> str:
    """The tableau form of the page (the columns and the piles), not the win panel."""
    start = html.index('<form id="board"')
    return html[start : html.index("</form>", start)]


def places(html: str) -> dict[tuple[int, int], str]:
    """(column, index) -> card code of every face-up column card, each carrying all three
    attributes; no face-down card carries any of them."""
    out: dict[tuple[int, int], str] = {}
    for card in _Cards(html).cards:
        classes = (card.get("class") or "").split()
        if "down" in classes:
            assert {"data-card", "data-col", "data-idx"}.isdisjoint(card), card
            continue
        assert card.get("data-card"), card
        if card.get("data-pile"):  # a reserve card or a free cell's: its pile and place
            continue
        col, idx = int(card["data-col"] or ""), int(card["data-idx"] or "")
        assert (col, idx) not in out
        out[col, idx] = card["data-card"] or ""
        assert card.get("href") == f"?select={col}-{idx}"
    return out


def face_up(game: Game) -> dict[tuple[int, int], str]:
    view = game.public_view()
    return {(c, i): x for c, col in enumerate(view.columns) for i, x in enumerate(col) if x}


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_every_face_up_card_carries_its_place_and_code(app: FastAPI, variant: str) -> None:
    browser = Browser(app)
    game = Game.new(variant, deal_from_number(NUMBER, variant))
    gid = browser.new_game(variant, deal_number=NUMBER)
    page = browser.get(f"/games/{gid}").text
    assert places(board(page)) == face_up(game)
    piles = [c for c in _Cards(board(page)).cards if c.get("data-pile")]
    view = game.public_view()
    assert sorted(str(c["data-card"]) for c in piles) == sorted(
        x for x in view.reserves + view.cells if x
    )

    # an htmx answer: the columns it re-sends carry the same attributes
    hints = game.hints()
    action = (
        ("move", hints[0].from_column, hints[0].from_index, hints[0].to_column)
        if hints and hints[0].from_pile == "column" and hints[0].to_pile == "column"
        else ("deal",)
    )
    if action == ("deal",) and not game.can_deal:
        pytest.fail(f"deal {NUMBER} of {variant} has neither a column move nor a deal")
    data: dict[str, object] = {"version": version_of(page)}
    if action[0] == "move":
        data |= {"from_column": action[1], "from_index": action[2], "to_column": action[3]}
    r = browser.post(f"/games/{gid}/{action[0]}", data, headers=HTMX)
    assert r.status_code == 200 and "<hx-partial" in r.text, r.text[:300]
    game.apply(action)
    sent = places(r.text)
    assert sent, "the answer re-sends no face-up card"
    assert sent.items() <= face_up(game).items()
    # and the page reloaded still matches the game
    assert places(board(browser.get(f"/games/{gid}").text)) == face_up(game)


def test_base_deal_top_of_column_two_is_addressable(app: FastAPI) -> None:
    """The selector the independent check uses: ``[data-col="1"][data-idx="6"]`` is the open
    card of the second column (numbered 1 in the API) of a fresh base deal, face up over its
    three face-down cards (RULES.md: the first four columns deal three cards face down)."""
    browser = Browser(app)
    gid = browser.new_game("scorpion", deal_number=NUMBER)
    view = Game.new("scorpion", deal_from_number(NUMBER)).public_view()
    assert view.columns[1][:3] == [None, None, None] and view.columns[1][6]
    cards = _Cards(board(browser.get(f"/games/{gid}").text)).cards
    found = [c for c in cards if c.get("data-col") == "1" and c.get("data-idx") == "6"]
    assert len(found) == 1 and found[0]["tag"] == "a"
    assert found[0]["data-card"] == view.columns[1][6]
    downs = [c for c in cards if "down" in (c.get("class") or "").split()]
    assert len(downs) == 12 and all("data-card" not in c for c in downs)
