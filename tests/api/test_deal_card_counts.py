"""A deal string of a variant with n decks holds each of the 52 cards exactly n times
(RULES.md, "Deal strings"; issue 34): one card an extra time (in place of another), a card
missing, or a wrong length is a ``422`` with a ``detail`` naming the problem, in every one of
the eleven variants, through the JSON API (``POST /api/games``) and the home page's form, and
starts no game."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from app.engine import ALL_VARIANTS, deal_from_number, format_deal
from tests.support.api_client import Player, assert_error, count_rows
from tests.support.html_client import Browser


def bad_deals(variant: str) -> list[tuple[str, str, str]]:
    """(what is wrong, deal string, words its detail holds) for ``variant``."""
    decks = ALL_VARIANTS[variant].decks
    codes = format_deal(deal_from_number(11, variant)).split()
    assert len(codes) == 52 * decks and all(codes.count(c) == decks for c in codes)
    first = codes[0]
    other = next(i for i, c in enumerate(codes) if c != first)
    extra = list(codes)
    extra[other] = first  # the first card once more, in the place of another card
    assert extra.count(first) == decks + 1 and len(extra) == len(codes)
    times = "appears twice" if decks == 1 else f"{first} appears {decks + 1} times"
    missing = codes[:other] + codes[other + 1 :]  # one card fewer: that card is missing
    total = f"exactly {52 * decks} cards"
    return [
        ("a card one time too many", " ".join(extra), times),
        ("a card missing", " ".join(missing), total),
        ("one card too many", " ".join(codes + [first]), times),
        ("a deck short", " ".join(codes[:-52]) if decks > 1 else " ".join(codes[:-1]), total),
        ("one deck too many", " ".join(codes + codes[:52]), "appears"),
    ]


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_each_card_exactly_once_per_deck_through_the_api(
    app: FastAPI, engine: Engine, variant: str
) -> None:
    p = Player(app)
    for what, deal, words in bad_deals(variant):
        r = p.post("/api/games", {"variant": variant, "deal": deal})
        detail = assert_error(r, 422)
        assert words in detail, (what, detail)
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == 0
    # the deal itself, each card exactly n times, is a game
    good = format_deal(deal_from_number(11, variant))
    assert p.post("/api/games", {"variant": variant, "deal": good}).status_code == 201


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_each_card_exactly_once_per_deck_through_the_page(app: FastAPI, variant: str) -> None:
    browser = Browser(app)
    for what, deal, words in bad_deals(variant)[:2]:
        r = browser.post("/games", {"variant": variant, "deal": deal})
        assert r.status_code == 422, (what, r.status_code)
        assert words in r.text, (what, r.text[:500])
