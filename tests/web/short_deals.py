"""Hand-built deals with short, known lines, shared by the HTML and browser tests.

Columns are numbered 0-6 as in the engine; within a column index 0 is the deepest card.
Each line is a list of engine actions; ``tests/web/test_short_deals.py`` plays them in the
engine, so a test that relies on them fails loudly if a line ever stops being legal.
"""

from __future__ import annotations

from app.engine import Action


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
