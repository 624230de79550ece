"""Issue 12: an htmx answer to a move of the base game stays under 8 KB, long columns
included. The answer re-sends the columns the action changed, from their first changed card
(``data-keep``: the deepest cards that stay are the page's own, put back by static/js/board.js),
and a face-up card costs little: its picture is one symbol of the page's sprite (``#c-7H``)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.engine import Game, deal_from_number, parse_deal
from tests.support.cards import make_game
from tests.support.deals import LONG_DEAL, LONG_LINE
from tests.support.html_client import HTMX, Browser, next_action, shown_cards, version_of

LIMIT = 8 * 1024  # bytes of the answer's body


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def changed_columns(body: str) -> list[str]:
    return re.findall(r'<hx-partial hx-target="(#col-\d+)"', body)


def kept(body: str) -> dict[int, int]:
    """By changed column, how many of its deepest cards the answer leaves to the page
    (``data-keep``; 0 when it sends them all)."""
    out = {}
    for c, attrs in re.findall(r'<div class="col[^"]*" id="col-(\d+)"([^>]*)>', body):
        m = re.search(r"data-keep=(\d+)", attrs)
        out[int(c)] = int(m.group(1)) if m else 0
    return out


def check_kept(body: str, before: list[list[str | None]], after: list[list[str | None]]) -> int:
    """Every card a changed column of the answer leaves out is one the page shows already,
    as it stays (the same card at the same place, and not the open end before or after), and
    every face-up card above those is drawn. The face-up cards the answer draws."""
    expected = 0
    for c, keep in kept(body).items():
        assert keep == 0 or (keep < len(before[c]) and keep < len(after[c])), (c, keep)
        assert before[c][:keep] == after[c][:keep], (c, keep)
        expected += sum(1 for x in after[c][keep:] if x)
    assert len(shown_cards(body)) == expected
    return expected


def test_long_columns_answer_under_8_kb(browser: Browser) -> None:
    """A deal built for long columns: one column grows to 35 cards, then the deal changes
    three columns holding 43 face-up cards (and 9 face-down ones), a move changes two holding
    39; undo and redo re-send the same columns. Every answer is under 8 KB."""
    gid = browser.new_game(deal=LONG_DEAL)
    game = Game.new("scorpion", parse_deal(LONG_DEAL))
    version = 1
    most = (0, 0)  # (face-up cards re-sent, bytes) of the answer re-sending the most cards
    for action in LONG_LINE:
        before = game.public_view().columns
        r = browser.act_htmx(gid, game, action, version)
        version += 1
        cards = check_kept(r.text, before, game.public_view().columns)
        assert len(r.content) < LIMIT, f"{action}: {len(r.content)} bytes, {cards} face-up cards"
        most = max(most, (cards, len(r.content)))
    assert most[0] >= 5, most  # a column re-sent from its first face-up card
    assert "data-version" in r.text and version_of(r.text) == version


@pytest.mark.parametrize("number", [57, 15])  # columns of 31 and 30 cards
def test_hints_round_robin_answers_under_8_kb(browser: Browser, number: int) -> None:
    """A deal played by its useful moves in turn (the first, then the second, ...), which
    builds long columns, dealing when none is left: every answer is under 8 KB."""
    gid = browser.new_game(deal_number=number)
    game = Game.new("scorpion", deal_from_number(number))
    version = version_of(browser.get(f"/games/{gid}").text)
    sizes = []
    for k in range(150):
        action = next_action(game, k)
        if action is None:
            break
        r = browser.act_htmx(gid, game, action, version)
        version += 1
        sizes.append(len(r.content))
        assert len(r.content) < LIMIT, f"{action}: {len(r.content)} bytes"
        if game.public_view().status != "playing":
            break
    assert len(sizes) >= 25


def test_every_card_face_up_in_three_changed_columns(browser: Browser, engine: Engine) -> None:
    """The deal onto three columns that hold all 52 cards face up (49 of them before the deal),
    its undo and redo: each answer re-sends only the cards at the columns' open ends, the 46
    under them stay on the page. The position is built (tests/support/cards.py) and written
    as the game's state."""
    gid = browser.new_game(deal=LONG_DEAL)
    deck = [r + s for s in "SHDC" for r in "KQJT98765432A"]
    rest = [c for c in deck if c not in ("2D", "5C", "3H")]
    rest = rest[1::2] + rest[0::2]  # no two cards of a suit in sequence: no run completes
    built = make_game(
        {0: " ".join(rest[:21]), 1: " ".join(rest[21:35]), 2: " ".join(rest[35:])},
        stock="2D 5C 3H",
        filler_column=0,
    )
    assert sum(1 for col in built.public_view().columns for c in col if c) == 49
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE games SET snapshot = :s WHERE id = :id"),
            {"s": built.to_snapshot(), "id": gid},
        )
    version = 1
    for action in [("deal",), ("undo",), ("redo",)]:
        before = built.public_view().columns
        r = browser.act(gid, action, version, headers=HTMX)
        assert r.status_code == 200 and "<hx-partial" in r.text, r.text[:300]
        built.apply(action)
        version += 1
        assert changed_columns(r.text) == ["#col-0", "#col-1", "#col-2"]
        cards = check_kept(r.text, before, built.public_view().columns)
        # the deal re-sends each column's old open end and the card dealt onto it, its undo
        # the card that is the open end again: the 49 cards under them stay on the page
        assert cards == (6 if action != ("undo",) else 3)
        assert kept(r.text) == ({0: 20, 1: 13, 2: 13})
        assert len(r.content) < LIMIT, f"{action}: {len(r.content)} bytes, {cards} face-up cards"
