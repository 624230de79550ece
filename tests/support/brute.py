"""Small positions of every variant and an exhaustive search through the engine alone.

``small_position`` removes all but one or two runs' worth of cards and lays the rest out at
random (face-down cards, reserves, cells and the stock where the variant has them);
``brute_force`` decides a position with nothing but ``Game`` (``legal_moves``, ``apply``,
``undo``): the judge the solver and its proofs of loss are compared with.
"""

from __future__ import annotations

import json
import random
import sys

from app.engine import Game, get_variant
from app.engine.cards import is_red, run_of
from app.engine.game import SNAPSHOT_VERSION

BRUTE_LIMIT = 400_000


def alternate_run(king_suit: int, partner: int | None = None) -> list[int]:
    """The alternate-colour run from the King of ``king_suit`` down, the suit ``partner`` (by
    default the other suit of the other colour: spades with hearts, diamonds with clubs) at
    the ranks of the other colour."""
    if partner is None:
        partner = {0: 1, 1: 0, 2: 3, 3: 2}[king_suit]
    out = [(king_suit if (12 - r) % 2 == 0 else partner) * 13 + r for r in range(12, -1, -1)]
    assert all(is_red(out[k]) != is_red(out[k + 1]) for k in range(12))
    return out


def _left_and_removed(
    variant: str, rng: random.Random, two: bool
) -> tuple[list[int], list[list[int]]]:
    """The physical cards left in play and the removed runs: one run's cards, or (``two``)
    two runs' cards such that some cards have two parents in play (alternate colours: two
    runs from Kings of one colour; two or three decks: two copies of one suit)."""
    v = get_variant(variant)
    if v.alternate:
        if not two:
            return alternate_run(3), [alternate_run(0), alternate_run(1), alternate_run(2)]
        # Kings of one colour left (spades and clubs), the red Kings' runs removed
        left = alternate_run(0, 1) + alternate_run(3, 2)
        return left, [alternate_run(1, 0), alternate_run(2, 3)]
    suit = rng.randrange(4)
    copies = 2 if two and v.decks > 1 else 1
    left = [c + 52 * d for d in range(copies) for c in run_of(suit)]
    removed = [
        [c + 52 * d for c in run_of(s)]
        for d in range(v.decks)
        for s in range(4)
        if not (s == suit and d < copies)
    ]
    return left, removed


def small_position(variant: str, seed: int, *, two: bool = False, chain: float = 0.0) -> Game:
    """A random small position of ``variant``: one run's cards in play (``two``: two runs'
    cards, see ``_left_and_removed``), laid out at random; ``chain`` is the chance that a card
    is laid on a column whose exposed card it fits on (smaller searches, more joined cards)."""
    v = get_variant(variant)
    rng = random.Random(seed)
    left, runs = _left_and_removed(variant, rng, two)
    cards = list(left)
    rng.shuffle(cards)
    stock = [cards.pop() for _ in range(v.stock)] if v.stock and rng.random() < 0.5 else []
    reserve = [-1] * v.reserves
    for k in range(v.reserves):
        if rng.random() < 0.6:
            reserve[k] = cards.pop()
    cells = [-1] * v.cells
    for k in range(v.cells):
        if rng.random() < (0.9 if v.cells > 2 else 0.7):
            cells[k] = cards.pop()
    cols: list[list[int]] = [[] for _ in range(v.columns)]
    # four cells make thirteen cards easy: in Scorpion Head they lie in two or three columns,
    # mostly face down, so that some positions are lost
    spread = rng.randint(2, 3) if v.cells > 2 else rng.randint(3, 5)
    used = rng.sample(range(v.columns), k=min(v.columns, spread))
    for card in cards:
        fits = [
            c
            for c in used
            if cols[c]
            and cols[c][-1] % 13 == card % 13 + 1
            and (
                is_red(cols[c][-1]) != is_red(card)
                if v.alternate
                else cols[c][-1] // 13 % 4 == card // 13 % 4
            )
        ]
        if chain and fits and rng.random() < chain:
            cols[rng.choice(fits)].append(card)
        else:
            cols[rng.choice(used)].append(card)
    deep = 0.9 if v.cells > 2 else 0.0
    hidden = [
        (len(c) - 1 if rng.random() < deep else rng.randrange(len(c)))
        if len(c) > 1 and rng.random() < 0.5 + deep / 2
        else 0
        for c in cols
    ]
    done = [run[0] // 13 % 4 for run in runs]
    snap = {
        "v": SNAPSHOT_VERSION,
        "variant": variant,
        "cols": cols,
        "hidden": hidden,
        "stock": stock,
        "done": done,
        "hist": [],
        "fut": [],
        "res": reserve,
        "cells": cells,
        "runs": runs,
    }
    return Game.from_snapshot(json.dumps(snap))


def brute_force(game: Game, limit: int = BRUTE_LIMIT) -> bool:
    """Exhaustive search through the engine alone: True when some line wins. Raises
    ``AssertionError`` past ``limit`` positions (too large a position for the brute force)."""
    g = game.copy()
    seen = {g.position_key()}
    nodes = 0

    def search() -> bool:
        nonlocal nodes
        nodes += 1
        assert nodes < limit, "position too large for the brute force"
        steps: list[tuple[str, ...] | tuple[object, ...]] = [("move", *m) for m in g.legal_moves()]
        if g.can_deal:
            steps.append(("deal",))
        for step in steps:
            g.apply(step)  # type: ignore[arg-type]
            if g.won:
                return True
            key = g.position_key()
            if key not in seen:
                seen.add(key)
                if search():
                    return True
            g.undo()
        return False

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 50_000))
    try:
        return search()
    finally:
        sys.setrecursionlimit(old)
