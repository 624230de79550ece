"""Small example positions of every variant for the rules page (server-rendered cards).

Each is a hand-made fragment of a position that shows what sets the variant apart, with a
caption saying which move it allows. ``None`` in a column is a face-down card (drawn as a
back: these are pictures, not a game).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine import ALL_VARIANTS
from app.i18n import N_


@dataclass(frozen=True, slots=True)
class Example:
    columns: list[list[str | None]]
    caption: str
    reserves: list[str] = field(default_factory=list)
    cells: list[str | None] = field(default_factory=list)


EXAMPLES: dict[str, Example] = {
    "scorpion": Example(
        [[None, None, "9S", "8D"], ["3C", "9D"], []],
        N_(
            "The 8♦ may go onto the 9♦ (same suit, one higher); only a King, or a group led by "
            "one, may go into the empty column."
        ),
    ),
    "scorpion-ii": Example(
        [[None, None, None, "6C", "TD"], ["2H", "7C"], ["KH", "QH"]],
        N_(
            "Face-down cards only in columns 1-3. The 6♣ may go onto the 7♣, taking the 10♦ on it "
            "along."
        ),
    ),
    "wasp": Example(
        [[None, None, "5D", "JS"], ["QS", "3H"], []],
        N_(
            "Any card or group may go into the empty column: the J♠ alone, or the 5♦ with the J♠ "
            "on it."
        ),
    ),
    "wasp-ii": Example(
        [[None, None, None, "4H"], ["8C", "2S"], []],
        N_(
            "As Wasp, with face-down cards only in columns 1-3: the 2♠ may go into the empty "
            "column."
        ),
    ),
    "scorpion-tail": Example(
        [["4D", "8S"], ["AC", "7H"], ["KD", "QC", "JH"]],
        N_(
            "Alternate colours: the 7♥ may go onto the 8♠ (one higher, the other colour); a run is "
            "King to Ace, red and black in turn, like K♦ Q♣ J♥."
        ),
    ),
    "scorpion-head": Example(
        [["9C", "5S"], [None, None, None, None, "JH"]],
        N_(
            "Four free cells: the exposed 5♠ may go into an empty cell; the 10♥ in a cell may go "
            "onto the J♥."
        ),
        cells=["TH", None, None, None],
    ),
    "three-blind-mice": Example(
        [["2D", "9C"], [None, None, None, "KD", "QD"]],
        N_(
            "Two reserve cards beside the tableau: the 8♣ may be played onto the 9♣. Nothing is "
            "ever put onto a reserve."
        ),
        reserves=["8C", "3S"],
    ),
    "farmers-wife": Example(
        [["2D", "9C"], [None, None, None, "KD", "QS"]],
        N_(
            "Three Blind Mice in alternate colours: the reserve 8♥ may go onto the 9♣, the J♦ onto "
            "the Q♠."
        ),
        reserves=["8H", "JD"],
    ),
    "how-they-run": Example(
        [["2D", "9C"], [None, None, None, "6H"]],
        N_(
            "The two reserve cards are free cells that start full: the 8♣ may go onto the 9♣, and "
            "the empty cell then takes any exposed card, like the 6♥."
        ),
        cells=["8C", None],
    ),
    "double-scorpion": Example(
        [[None, None, None, None, "JS"], ["QS"], ["4D", "QS"]],
        N_(
            "Two decks: every card twice, ten columns, a stock of four for columns 1-4; the J♠ may "
            "go onto either Q♠. Eight runs win."
        ),
    ),
    "triple-scorpion": Example(
        [[None, None, None, None, None, "5C"], ["6C"], ["9H", "6C"], ["KS", "6C"]],
        N_(
            "Three decks: every card three times, thirteen columns of twelve, no stock; the 5♣ may "
            "go onto any of the three 6♣. Twelve runs win."
        ),
    ),
}

assert list(EXAMPLES) == list(ALL_VARIANTS)


def variant_example(variant: str) -> Example | None:
    return EXAMPLES.get(variant)
