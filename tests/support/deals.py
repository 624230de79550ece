"""Hand-built deals with short, known lines, shared by the HTML and browser tests.

Columns are numbered 0-6 as in the engine; within a column index 0 is the deepest card.
Each line is a list of engine actions; the tests that use them (tests/services, tests/web,
tests/e2e) play them through the app, so a test fails loudly if a line ever stops being legal.
"""

from __future__ import annotations

from typing import Any

from app.engine import Action, Game, deal_from_number


def _deal(columns: list[str], stock: str) -> str:
    cards = " ".join(columns).split() + stock.split()
    assert len(cards) == 52
    return " ".join(cards)


# Every suit nearly in place: 17 steps win it. Column 1 hides the ace of spades under the
# spade group (a reveal to undo); column 4 hides A-2-3 of clubs under the King of clubs.
WIN_DEAL = _deal(
    [
        "4C 5C AS 6S 5S 4S 3S",
        "6C 7C AH 6H 5H 4H 3H",
        "8C 9C AD 6D 5D 4D 3D",
        "AC 2C 3C KC QC JC TC",
        "KS QS JS TS 9S 8S 7S",
        "KH QH JH TH 9H 8H 7H",
        "KD QD JD TD 9D 8D 7D",
    ],
    "2S 2H 2D",
)

WIN_LINE: list[Action] = [
    ("deal",),
    ("move", 0, 3, 4),  # 6S..2S onto 7S: the ace of spades turns up in column 1
    ("move", 0, 2, 4),  # AS: spades complete; 5C turns up
    ("move", 1, 3, 5),
    ("move", 1, 2, 5),  # hearts complete; 7C turns up
    ("move", 2, 3, 6),
    ("move", 2, 2, 6),  # diamonds complete; 9C turns up
    ("move", 2, 1, 3),  # 9C onto TC; 8C turns up
    ("move", 2, 0, 3),  # 8C: column 3 empty
    ("move", 1, 1, 3),  # 7C
    ("move", 1, 0, 3),  # 6C: column 2 empty
    ("move", 0, 1, 3),  # 5C
    ("move", 0, 0, 3),  # 4C: column 1 empty
    ("move", 3, 3, 0),  # KC..4C into the empty column 1: 3C turns up
    ("move", 3, 2, 0),  # 3C
    ("move", 3, 1, 0),  # 2C
    ("move", 3, 0, 0),  # AC: clubs complete, the game is won
]

# Column 1 can be emptied before the deal (6S.. onto 7S, then 9C, 8C, 7C onto TC): the deal
# then puts the two of spades into the empty column.
EMPTY_DEAL = _deal(
    [
        "7C 8C 9C 6S 5S 4S 3S",
        "6C 5C AH 6H 5H 4H 3H",
        "4C AS AD 6D 5D 4D 3D",
        "AC 2C 3C KC QC JC TC",
        "KS QS JS TS 9S 8S 7S",
        "KH QH JH TH 9H 8H 7H",
        "KD QD JD TD 9D 8D 7D",
    ],
    "2S 2H 2D",
)

EMPTY_LINE: list[Action] = [
    ("move", 0, 3, 4),
    ("move", 0, 2, 3),
    ("move", 0, 1, 3),
    ("move", 0, 0, 3),  # column 1 is empty
    ("deal",),  # the two of spades lands in the empty column 1
]

# From the Solvitaire anchors (tests/engine/test_solver_data/solvitaire-scorpion-200.jsonl).
# Seed 1: the C++ solver proves it unsolvable; ours proves it lost without a search.
LOST_DEAL = (
    "JS TC QH TD 3C KH 7D QC TH 6C 4H KS 5S 3D JD 8S 9S 9D 2S AS KC QS 7H 8D KD AH 9H JC "
    "8H 4C 6D 2D 5D 6S AC 2H 4S 2C 7S 7C AD QD 3S 5H 3H 6H 8C 4D 5C TS JH 9C"
)
# Scorpion deal 119,787, the hardest of 1-400,000: lost, and the compiled search needs about
# 9 s of CPU and 6 million positions to exhaust it (with its proof of loss): no budget a test
# sets decides it. (Was Solvitaire's seed 151, which the proof of loss now decides in 0.06 s.)
HARD_DEAL = (
    "6C TS 4C TD 6H QD KC QH AC 8D 4D 6D 5H 5D 3D 4S 7D 2H 4H 8H TC AS AH 7H 3S AD 3H QC 9H KH "
    "JS 3C 5C 9D 5S 7S KS JC KD 2D 9C TH 2S 7C JH 6S 8S JD QS 2C 8C 9S"
)

# Deal number 2893: no useful move at the opening; after the deal, no move at all.
NO_MOVE_DEAL = 2893


def set_daily_deal(variant: str, day: object, deal: str, winnable: bool = True) -> None:
    """Make ``deal`` the daily deal of ``variant`` on ``day`` (as if the day's race had taken
    it from the private pool), so that a test can win the daily deal with a known line."""
    from datetime import date

    from app.db.session import get_sessionmaker
    from app.services import daily
    from app.services.common import write_tx

    assert isinstance(day, date)
    with get_sessionmaker()() as db, write_tx(db):
        assert daily.insert_race(db, variant, day, deal, winnable), "the day already has a deal"


def deal_with_pile_move(variant: str, pile: str) -> tuple[int, Any]:
    """A deal number of ``variant`` whose opening layout offers a move from ``pile``
    (``"reserve"`` or ``"cell"``), and that move."""
    for n in range(1, 500):
        game = Game.new(variant, deal_from_number(n, variant))
        for m in game.hints():
            if m.from_pile == pile:
                return n, m
    raise AssertionError(f"no {variant} deal with a {pile} move")


# Long columns (issue 12, the htmx answer's size): every column from the fifth on, then the
# fourth, card by card as it turns up, joins column 1 (35 cards, 32 face up); the deal then
# changes three columns holding 43 face-up cards (and the 9 face-down ones), and column 1's
# whole face-up part (33 cards) goes onto column 2 (41 cards, 38 face up).
LONG_DEAL = _deal(
    [
        "AS 2S 3S 4C 4S 5S QS",
        "TS KS AH 2H 4H 5H 6H",
        "7H 8H 9H TH KH AD 3D",
        "6S 7S 8S JH 4D 5D 9S",
        "JS 6D 7D 8D 9D TD QD",
        "JD KD AC 2C 3C 6C QC",
        "JC 7C 8C 9C TC KC QH",
    ],
    "2D 5C 3H",
)

LONG_LINE: list[Action] = [
    ("move", 4, 0, 0),  # JS..QD onto QS: column 5 empty
    ("move", 5, 0, 0),  # JD..QC onto QD
    ("move", 6, 0, 0),  # JC..QH onto QC
    ("move", 3, 3, 0),  # JH..9S onto QH: 8S turns up
    ("move", 3, 2, 0),  # 8S: 7S turns up
    ("move", 3, 1, 0),  # 7S: 6S turns up
    ("move", 3, 0, 0),  # 6S: column 4 empty; column 1 holds 35 cards
    ("deal",),  # onto columns 1-3: 43 face-up cards in the three
    ("move", 0, 3, 1),  # 4C and the 32 cards on it onto 5C
    ("undo",),
    ("redo",),
    ("undo",),
    ("undo",),  # the deal back into the stock
    ("redo",),
]
