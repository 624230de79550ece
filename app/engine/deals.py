"""Deals: deal numbers, deal strings and the shuffle that links them.

A deal is a tuple of 52 cards in *deal order*: column 1 from its deepest card to its
open end (7 cards), then column 2, ..., column 7, then the 3 stock cards in the order
they are dealt (to columns 1, 2, 3). Written out, it is the 52 card codes separated by
single spaces (RULES.md, "Deals").

For every variant of the family (RULES.md, "The Scorpion family") a deal is the variant's
52, 104 or 156 cards (one, two or three decks; card values 0-51, each exactly ``decks``
times) in the same kind of order: the columns in order, each from its deepest card, then the
reserve cards in order, then the stock in dealing order.

The shuffle (a frozen contract: never change it, golden tests pin it)
--------------------------------------------------------------------
1. Start from the ordered deck: spades Ace..King, hearts Ace..King, diamonds Ace..King,
   clubs Ace..King (card ``i`` is ``RANKS[i % 13] + SUITS[i // 13]``). With two or three
   decks, the ordered decks one after the other (104 or 156 cards; position ``i`` holds card
   ``i % 52``).
2. Seed a SplitMix64 generator with the deal number: ``state = deal_number``. Each draw
   adds ``0x9E3779B97F4A7C15`` to the state (mod 2**64) and returns
   ``z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) *
   0x94D049BB133111EB; z ^ (z >> 31)``, all mod 2**64.
3. A uniform integer below ``n`` is drawn by rejection: draw ``x`` until
   ``x < 2**64 - (2**64 % n)``, then return ``x % n``.
4. Fisher-Yates: for ``i`` from N - 1 (51, 103 or 155) down to 1, ``j = uniform(i + 1)``,
   swap cards ``i`` and ``j``.
5. The shuffled deck, in that order, is the deal (deal order above).

It uses only 64-bit integer arithmetic, so it is the same on every machine and in any
language, and nothing of Python's ``random`` module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import DECK, RANKS, SUITS, Card, code, is_card_code, parse_card
from .errors import DealError

if TYPE_CHECKING:
    from .variants import Variant

MIN_DEAL_NUMBER = 1
MAX_DEAL_NUMBER = 4_294_967_295

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

Deal = tuple[Card, ...]


class SplitMix64:
    """The generator of the deal shuffle (see the module docstring)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def check_deal_number(number: int) -> None:
    if isinstance(number, bool) or not isinstance(number, int):
        raise DealError("A deal number is a whole number.")
    if not MIN_DEAL_NUMBER <= number <= MAX_DEAL_NUMBER:
        raise DealError(
            f"Deal numbers run from {MIN_DEAL_NUMBER} to {MAX_DEAL_NUMBER}; {number} is not one."
        )


def _decks_of(variant: str | Variant | None) -> tuple[int, str | None]:
    if variant is None:
        return 1, None
    from .variants import get_variant

    v = get_variant(variant) if isinstance(variant, str) else variant
    return v.decks, v.title


def deal_from_number(number: int, variant: str | Variant | None = None) -> Deal:
    """The deal that ``number`` (1 to 4294967295) stands for, on every machine, forever.

    Without ``variant`` (or for a one-deck variant): 52 cards. For Double or Triple Scorpion
    the shuffle runs over 104 or 156 cards (module docstring).
    """
    check_deal_number(number)
    decks, _ = _decks_of(variant)
    deck = list(DECK) * decks
    rng = SplitMix64(number)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def _positions(nums: list[int]) -> str:
    if len(nums) == 2:
        return f"{nums[0]} and {nums[1]}"
    return ", ".join(map(str, nums[:-1])) + f" and {nums[-1]}"


def parse_deal(text: str, variant: str | Variant | None = None) -> Deal:
    """Parse a deal string: the variant's card codes (52 for one deck) separated by spaces.

    Raises ``DealError`` naming the first problem and, where there is one, the 1-based
    position of the offending code. Without ``variant``: a one-deck deal.
    """
    decks, title = _decks_of(variant)
    total = 52 * decks
    if not isinstance(text, str):
        raise DealError(f"A deal is written as {total} card codes separated by spaces.")
    tokens = text.split()
    seen: dict[Card, list[int]] = {}
    cards: list[Card] = []
    for pos, token in enumerate(tokens, start=1):
        if not is_card_code(token):
            hint = ""
            if token.upper() != token and is_card_code(token.upper()):
                hint = f" (write it in capitals: {token.upper()})"
            elif token[:2] == "10":
                hint = " (a ten is written T, e.g. TH)"
            raise DealError(
                f"Card {pos} of the deal, {token!r}, is not a card code{hint}: a card code is a "
                f"rank from {RANKS} followed by a suit from {SUITS}, e.g. 7H.",
                pos,
            )
        card = parse_card(token)
        where = seen.setdefault(card, [])
        where.append(pos)
        if len(where) > decks:
            if decks == 1:
                raise DealError(
                    f"Card {pos} of the deal, {token}, appears twice (first as card {where[0]}).",
                    pos,
                )
            raise DealError(
                f"{token} appears {len(where)} times but {title} uses {decks} decks: positions "
                f"{_positions(where)}.",
                pos,
            )
        cards.append(card)
    if len(cards) != total:
        if title is None or decks == 1:
            raise DealError(f"A deal has exactly {total} cards; this one has {len(cards)}.")
        raise DealError(
            f"A {title} deal has exactly {total} cards ({decks} decks); this one has {len(cards)}."
        )
    return tuple(cards)


def format_deal(deal: Deal) -> str:
    """The deal string of ``deal`` (inverse of ``parse_deal``)."""
    return " ".join(code(c) for c in deal)


def check_deal(deal: Deal, decks: int = 1) -> None:
    """Raise ``DealError`` unless ``deal`` holds each of the 52 cards exactly ``decks`` times."""
    if len(deal) != 52 * decks or sorted(deal) != sorted(DECK * decks):
        if decks == 1:
            raise DealError("A deal holds each of the 52 cards exactly once.")
        raise DealError(
            f"A deal of {decks} decks holds each of the 52 cards exactly {decks} times."
        )
