"""Cards as small integers.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank_index``, suits in the order
spades, hearts, diamonds, clubs (``S H D C``) and rank indexes 0 (Ace) to 12 (King).
With this encoding the card one rank higher in the same suit is ``card + 1`` and the
card one lower is ``card - 1`` (within a suit), which keeps the hot paths cheap.

In a game of two or three decks the engine tells identical cards apart internally by a
*physical* id ``card + 52 * deck`` (deck 0, 1, 2, in the order the copies are dealt). The
rank is still ``id % 13``, the suit ``id // 13 % 4`` and the card ``id % 52``; ``code`` and
``name`` accept physical ids and never say which deck a card came from.
"""

from __future__ import annotations

SUITS = "SHDC"
RANKS = "A23456789TJQK"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = (
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
)
ACE = 0
KING = 12
DECK = tuple(range(52))

Card = int

_CODES = tuple(r + s for s in SUITS for r in RANKS)
_BY_CODE = {code: i for i, code in enumerate(_CODES)}


# Indexed by physical id (up to three decks): the code never names the deck.
CODES = _CODES * 3
MAX_DECKS = 3


def code(card: Card) -> str:
    """The two-character code of a card (or physical id), e.g. ``"7H"``, ``"TS"``."""
    return CODES[card]


def parse_card(text: str) -> Card:
    """Parse a card code such as ``"7H"``; raises ``ValueError`` for anything else."""
    try:
        return _BY_CODE[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a card code") from None


def is_card_code(text: str) -> bool:
    return text in _BY_CODE


def name(card: Card) -> str:
    """A name a player reads: ``"seven of hearts"``."""
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13 % 4]}"


def run_of(suit: int) -> list[Card]:
    """The thirteen cards of a completed run of ``suit``, King (deepest) down to Ace."""
    return [suit * 13 + r for r in range(12, -1, -1)]


# Each suit's completed run (``run_of``), indexed by suit. Lists, so that a column's slice
# compares equal to one; never change them.
RUNS: tuple[list[Card], ...] = tuple(run_of(s) for s in range(4))


def is_red(card: Card) -> bool:
    """Hearts and diamonds are red; spades and clubs black (any physical id)."""
    return card // 13 % 4 in (1, 2)
