"""The faster forms of the family's proof of loss give the very answers of the reference form.

``proof.py``'s ``clause_dead_reason`` builds every clause of the module docstring and runs
``least_fixpoint``; ``dead_reason_no_cells`` (what ``family_dead_reason`` runs without cells)
computes the same least fixpoint by a propagation over the card instances. Their answers (the
reason text included) must agree on every position: positions met by the family's search in
deals of every variant without cells (the search's own proof switched off, so that lost
positions are met as well), and random small positions with reserves, stock and face-down
cards.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter

import pytest

from app.engine import ALL_VARIANTS, Game, deal_from_number, get_variant
from app.engine.solver.family_search import FamilySearch
from app.engine.solver.proof import (
    CHILDREN,
    PARENTS,
    clause_dead_reason,
    dead_reason_no_cells,
)
from app.engine.solver.search import OutOfBudget
from app.engine.solver.winfirst import _WinFirst
from tests.support.brute import small_position

NO_CELLS = [
    name
    for name, v in ALL_VARIANTS.items()
    if not v.plain and not v.cells and not v.empty_accepts_any
]


def _both(s: FamilySearch, kept: bool = False) -> tuple[str, str]:
    args = (s.cols, s.hidden, s.reserve + s.cells, s.stock, s.parents, s.children)
    return clause_dead_reason(*args, len(s.cells), kept), dead_reason_no_cells(*args, kept)


class _Compare(FamilySearch):
    """The family's search, its own proof off, comparing the two forms on every position."""

    def __init__(self, game: Game, rng: random.Random, tally: Counter[str]) -> None:
        super().__init__(game)
        self.rng = rng
        self.tally = tally
        self.prove = False

    def gen_moves(self) -> list[tuple[int, int, int, int]]:
        answers = []
        for kept in (False, True):
            reference, fast = _both(self, kept)
            assert reference == fast, (kept, self.cols, self.hidden, self.reserve, self.stock)
            self.tally[reference.split(" ", 1)[1] if reference else ""] += 1
            answers.append(bool(reference))
        assert answers[1] or not answers[0]  # the kept game's proof includes the full game's
        self.tally["kept only"] += answers[1] and not answers[0]
        moves = super().gen_moves()
        self.rng.shuffle(moves)  # wander: the positions of one order are too much alike
        return moves


def test_the_variants_without_cells_are_covered() -> None:
    assert set(NO_CELLS) >= {"double-scorpion", "triple-scorpion", "scorpion-tail"}


@pytest.mark.parametrize("variant", NO_CELLS)
def test_no_cell_proof_equals_the_clause_proof_on_searched_positions(variant: str) -> None:
    tally: Counter[str] = Counter()
    for number in range(1, 7):
        game = Game.new(variant, deal_from_number(number, variant))
        s = _Compare(game, random.Random(number), tally)
        s.max_nodes = 400
        s.deadline = float("inf")
        s.seen.add(s.key())
        with contextlib.suppress(OutOfBudget):
            s.dfs()
    # both answers are met, and positions only the kept game's proof calls lost
    assert tally[""] > 30 and tally["can never join a card it fits on"] > 30, tally
    assert tally["kept only"] > 20 or variant != "double-scorpion", tally


@pytest.mark.parametrize("variant", NO_CELLS)
def test_no_cell_proof_equals_the_clause_proof_on_small_positions(variant: str) -> None:
    tally: Counter[str] = Counter()
    for seed in range(400):
        game = small_position(variant, seed, two=seed % 2 == 1, chain=(seed % 5) / 5)
        s = FamilySearch(game)
        reference, fast = _both(s)
        assert reference == fast, (variant, seed)
        tally[reference.split(" ", 1)[1] if reference else ""] += 1
    assert tally[""] > 20 and tally["can never join a card it fits on"] > 20, tally


def _random_layout(
    rng: random.Random, parents: tuple[tuple[int, ...], ...]
) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """Columns, face-down counts, reserve slots and stock drawn at random from one to three
    decks' worth of a few suits (Kings often, so that a King or a face-down card's cover is
    what cannot leave; cards laid on a parent often, face-down parents too): any layout,
    possible in a game or not, since both forms must agree."""
    suits = rng.sample(range(4), rng.randint(1, 4))
    top = rng.choice([1, 2, 4, 7, 13])  # the highest ranks only: more Kings
    cards = [s * 13 + r for s in suits for r in range(13 - top, 13)] * rng.randint(1, 3)
    rng.shuffle(cards)
    cards = cards[: rng.randint(1, min(len(cards), rng.choice([4, 8, 16, 100])))]
    stock = [cards.pop() for _ in range(min(len(cards) - 1, rng.choice([0, 0, 2, 4])))]
    slots = [cards.pop() if len(cards) > 1 and rng.random() < 0.5 else -1 for _ in range(2)]
    slots = slots if rng.random() < 0.3 else []
    cols: list[list[int]] = [[] for _ in range(rng.randint(2, 8))]
    chain = rng.random() ** 0.3
    for card in sorted(cards, key=lambda c: -(c % 13)) if chain > 0.5 else cards:
        fits = [c for c in cols if c and c[-1] in parents[card]]
        (rng.choice(fits) if fits and rng.random() < chain else rng.choice(cols)).append(card)
    deep = rng.random() < 0.3  # every column face down but its exposed card
    hidden = [
        (len(c) - 1 if deep else rng.randrange(len(c))) if c and rng.random() < 0.6 else 0
        for c in cols
    ]
    return cols, hidden, slots, stock


def test_no_cell_proof_equals_the_clause_proof_on_random_layouts() -> None:
    tally: Counter[str] = Counter()
    for seed in range(6000):
        rng = random.Random(seed)
        alternate = rng.random() < 0.4
        cols, hidden, slots, stock = _random_layout(rng, PARENTS[alternate])
        tables = (PARENTS[alternate], CHILDREN[alternate])
        for kept in (False, True):
            reference = clause_dead_reason(cols, hidden, slots, stock, *tables, 0, kept)
            fast = dead_reason_no_cells(cols, hidden, slots, stock, *tables, kept)
            assert fast == reference, (seed, kept)
            tally[reference.split(" ", 1)[1] if reference else ""] += 1
    assert min(tally.values()) > 50 and len(tally) == 3, tally


class _CheckSkips(FamilySearch):
    """The family's search, checking each proof ``_stays_alive`` spares: it finds nothing."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        super().__init__(game)
        self.rng = rng
        self.checked = 0

    def _stays_alive(self, b: int, base: int) -> bool:
        spared = super()._stays_alive(b, base)
        if spared:
            assert self.dead_reason() == "", (self.cols, self.hidden, self.stock)
            self.checked += 1
        return spared

    def gen_moves(self) -> list[tuple[int, int, int, int]]:
        moves = super().gen_moves()
        self.rng.shuffle(moves)
        return moves

    def _prove(self) -> bool:
        # every other proof skipped: positions not known to be alive are searched too, and
        # no proof may be spared below them
        self.turn = getattr(self, "turn", 0) + 1
        return bool(self.turn % 2) and super()._prove()


@pytest.mark.parametrize("variant", NO_CELLS)
def test_a_proof_spared_after_a_step_would_find_nothing(variant: str) -> None:
    checked = 0
    for number in range(1, 9):
        s = _CheckSkips(Game.new(variant, deal_from_number(number, variant)), random.Random(number))
        s.alive = s.dead_reason() == ""
        s.max_nodes = 600
        s.deadline = float("inf")
        s.seen.add(s.key())
        with contextlib.suppress(OutOfBudget, RecursionError):  # a path too deep ends a run
            s.dfs()
        checked += s.checked
        assert s.alive_skips == s.checked
    print(variant, checked)
    # one deck in one suit: g's only parent is the card it lies on (no stock to hold one)
    v = get_variant(variant)
    assert checked > 50 or (v.decks == 1 and not v.alternate), checked


# -- the proof for the win-first phase's game (``kept``) ---------------------------------------


def _kept_game_won(game: Game) -> bool | None:
    """Does the win-first phase's game (``keep_joined``, no noise) win from ``game``? Its
    exhaustive search, the proof off; None when it is too large."""
    s = _WinFirst(game, None, 0)
    s.prove = False
    s.max_nodes = 20_000
    s.deadline = float("inf")
    s.seen.add(s.key())
    try:
        return s.dfs()
    except (OutOfBudget, RecursionError):
        return None


@pytest.mark.parametrize("variant", NO_CELLS)
def test_the_kept_proof_never_calls_a_position_the_phase_can_win_lost(variant: str) -> None:
    # Small positions decided by the exhaustive search of the phase's own game: wherever the
    # proof for that game fires, the phase cannot win; it fires wherever the full game's
    # proof does. (Where it fires alone is seldom met in positions this small; it is, in the
    # searches above, where the two forms of the proof agree on it.)
    judged = fired = fired_full = 0
    for seed in range(120):
        game = small_position(variant, 500 + seed, two=seed % 2 == 1, chain=0.3 + seed % 3 / 5)
        won = _kept_game_won(game)
        if won is None:
            continue
        judged += 1
        s = _WinFirst(game, None, 0)
        kept = s.dead_reason()
        full = FamilySearch(game).dead_reason()
        assert not (kept and won), (variant, seed, kept)
        assert kept or not full, (variant, seed, full)
        fired += bool(kept)
        fired_full += bool(full)
    assert judged >= 60 and fired >= 10, (judged, fired)
