"""Difficulty grades of catalogued deals: scripted players and the measure (docs/difficulty.md).

A deal's grade says how hard it is for *people*, not for the solver. Three measures, each
higher for an easier deal, are taken on every catalogued deal of a variant:

- ``greedy``: the win rate of ``greedy_player`` (plays the engine's plain hints, scored with
  a one-step lookahead: prefer reveals, completed runs, building in sequence, mobility; a
  little noise; deals only when no new hint is left) over ``RUNS`` seeded games;
- ``random``: the win rate of ``random_player`` (a uniformly random new hint, the deal when
  none is left) over ``RUNS`` seeded games;
- ``opening``: the share of the opening actions (hints and the deal) after which the solver
  still finds a win within ``OPENING_NODES`` search nodes (an undecided answer counts half).

The score of a deal is the mean of its three percentile ranks within the variant's catalog;
the lower third of scores is ``hard``, the middle third ``medium``, the upper third ``easy``
(deals of equal score are split at a cut in a fixed pseudo-random order: ``grade_all``).
``cautious_player`` (a third, rule-based player) and fresh seeds are kept out of the measure:
they give the held-out evidence that the grades separate.

Everything here is deterministic per (deal, seed) and pure; the only I/O is the catalog file,
written by the ``grade`` command (``cli.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cards import KING
from ..deals import Deal, deal_from_number
from ..game import Action, Game, Move
from ..variants import Variant, get_variant
from .api import solve_game
from .family_search import fits_on

GRADING_METHOD = "rank-mean-v1"
RUNS = 32  # seeded games per player and deal in the measure
OPENING_NODES = 20_000  # solver nodes per opening action
MAX_STEPS = 400  # a scripted game that takes longer counts as lost
HELD_OUT_SEED = 1_000_003  # seeds of the held-out evidence start here (the measure uses 0..)

Policy = Callable[[Game, list[Move], random.Random], Move | None]


def _key(g: Game) -> tuple[object, ...]:
    return (
        tuple(map(tuple, g.cols)),
        tuple(g.hidden),
        len(g.stock),
        tuple(sorted(g.reserve)),
        tuple(sorted(g.cells)),
    )


def _disorder(g: Game) -> int:
    """Face-up neighbours out of sequence (a card not lying on a card it may land on: its
    successor of its suit, or of the other colour in alternate-colour variants)."""
    v = g.variant
    n = 0
    for col, h in zip(g.cols, g.hidden, strict=True):
        for k in range(max(h, 1), len(col)):
            if not fits_on(v, col[k], col[k - 1]):
                n += 1
    return n


def _kings_placed(g: Game) -> int:
    """Kings lying at the foot of a column (nothing under them can block them)."""
    return sum(1 for col in g.cols if col and col[0] % 13 == KING)


@dataclass(frozen=True, slots=True)
class _After:
    revealed: int
    runs: int
    disorder_drop: int
    empties: int
    kings: int
    mobility: int
    moved: int


def _after(g: Game, m: Move, before: tuple[int, int, int, int, int]) -> _After:
    """Play ``m`` on ``g``, measure, and take it back (a one-step lookahead)."""
    hidden0, runs0, disorder0, empties0, kings0 = before
    moved = len(g.cols[m.from_column]) - m.from_index if m.from_pile == "column" else 1
    g.move(*m)
    a = _After(
        revealed=hidden0 - sum(g.hidden),
        runs=len(g.completed) - runs0,
        disorder_drop=disorder0 - _disorder(g),
        empties=sum(1 for c in g.cols if not c) - empties0,
        kings=_kings_placed(g) - kings0,
        mobility=len(g.hints()),
        moved=moved,
    )
    g.undo()
    return a


def _before(g: Game) -> tuple[int, int, int, int, int]:
    return (
        sum(g.hidden),
        len(g.completed),
        _disorder(g),
        sum(1 for c in g.cols if not c),
        _kings_placed(g),
    )


def greedy_player(g: Game, moves: list[Move], rng: random.Random) -> Move | None:
    """The best-scoring new hint after one step of lookahead, with a little noise."""
    if rng.random() < 0.1:
        return rng.choice(moves)
    before = _before(g)
    best: Move | None = None
    best_score = float("-inf")
    for m in moves:
        a = _after(g, m, before)
        score = (
            10.0 * a.revealed
            + 20.0 * a.runs
            + 2.0 * a.disorder_drop
            + 1.5 * a.kings
            + (1.0 * a.empties if g.variant.empty_accepts_any else 0.5 * a.empties)
            + 0.3 * a.mobility
            + 2.0 * rng.random()
        )
        if score > best_score:
            best, best_score = m, score
    return best


def random_player(g: Game, moves: list[Move], rng: random.Random) -> Move | None:
    """Any new hint, uniformly at random."""
    return rng.choice(moves)


def cautious_player(g: Game, moves: list[Move], rng: random.Random) -> Move | None:
    """Rule-based (held out of the measure): only moves that make progress, then the deal.

    Priority: reveal a card, complete a run, put more cards in sequence, fewer cards moved;
    ties broken at random. Before the deal it plays only moves that reveal, complete or
    improve the order; when none is left it deals (``None``); afterwards any new hint.
    """
    before = _before(g)
    ranked: list[tuple[tuple[int, int, int, int, float], Move]] = []
    for m in moves:
        a = _after(g, m, before)
        progress = a.revealed > 0 or a.runs > 0 or a.disorder_drop > 0 or a.kings > 0
        if g.stock and not progress:
            continue
        ranked.append(((a.revealed, a.runs, a.disorder_drop + a.kings, -a.moved, rng.random()), m))
    if not ranked:
        return None
    return max(ranked)[1]


PLAYERS: dict[str, Policy] = {
    "greedy": greedy_player,
    "random": random_player,
    "cautious": cautious_player,
}


def play(
    variant: str | Variant, deal: Deal, policy: Policy, seed: int, max_steps: int = MAX_STEPS
) -> bool:
    """One scripted game: True if ``policy`` wins ``deal`` with ``random.Random(seed)``."""
    return play_log(variant, deal, policy, seed, max_steps)[0]


def play_log(
    variant: str | Variant, deal: Deal, policy: Policy, seed: int, max_steps: int = MAX_STEPS
) -> tuple[bool, list[Action]]:
    """One scripted game: (won, the actions taken).

    Each turn the player sees the engine's hints that lead to a position not seen before in
    this game (a hint that wins at once is always taken); it picks one, or ``None`` to deal.
    With no such hint it deals while the stock holds cards; otherwise the game is lost.
    Every step goes through the engine's checks.
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    g = Game.new(v, deal)
    rng = random.Random(seed)
    seen = {_key(g)}
    log: list[Action] = []
    for _ in range(max_steps):
        if g.won:  # the deal completed the last run
            return True, log
        fresh: list[Move] = []
        for m in g.hints():
            g.move(*m)
            if g.won:
                log.append(("move", *m))
                return True, log
            if _key(g) not in seen:
                fresh.append(m)
            g.undo()
        choice = policy(g, fresh, rng) if fresh else None
        if choice is None:
            if not g.can_deal:
                return False, log
            g.deal()
            log.append(("deal",))
        else:
            g.move(*choice)
            log.append(("move", *choice))
        seen.add(_key(g))
    return g.won, log


def win_rate(variant: str, deal: Deal, player: str, seeds: Sequence[int]) -> float:
    policy = PLAYERS[player]
    return sum(play(variant, deal, policy, s) for s in seeds) / len(seeds)


def opening_share(variant: str, deal: Deal, max_nodes: int = OPENING_NODES) -> float:
    """Share of the opening actions after which the deal is still winnable (solver).

    A win counts 1, an undecided search (node budget spent) 1/2, a proved loss 0.
    """
    g = Game.new(variant, deal)
    outcomes: list[float] = []
    actions: list[Move | None] = [*g.hints(), *([None] if g.can_deal else [])]
    for m in actions:
        if m is None:
            g.deal()
        else:
            g.move(*m)
        # the complete search alone, as when the shipped catalogs were graded: the family's
        # win-first phase would take half of these few nodes and change the measure
        # (the pure-Python search: the measure was defined by its node counts)
        r = solve_game(g, max_seconds=None, max_nodes=max_nodes, win_first=False, compiled=False)
        outcomes.append({"win": 1.0, "unknown": 0.5}.get(r.verdict, 0.0))
        g.undo()
    return sum(outcomes) / len(outcomes) if outcomes else 0.0


@dataclass(frozen=True, slots=True)
class Measures:
    greedy: float
    random: float
    opening: float

    def as_list(self) -> list[float]:
        return [round(self.greedy, 4), round(self.random, 4), round(self.opening, 4)]


def measure(
    variant: str, number: int, runs: int = RUNS, opening_nodes: int = OPENING_NODES
) -> Measures:
    """The three measures of deal ``number`` (seeds ``0 .. runs - 1``; ``opening_nodes``
    solver nodes per opening action)."""
    deal = deal_from_number(number, variant)
    seeds = range(runs)
    return Measures(
        greedy=win_rate(variant, deal, "greedy", seeds),
        random=win_rate(variant, deal, "random", seeds),
        opening=opening_share(variant, deal, opening_nodes),
    )


def held_out(variant: str, number: int, runs: int = RUNS) -> dict[str, float]:
    """Win rates of every scripted player on seeds never used by the measure."""
    deal = deal_from_number(number, variant)
    seeds = range(HELD_OUT_SEED, HELD_OUT_SEED + runs)
    return {p: win_rate(variant, deal, p, seeds) for p in PLAYERS}


def _percentile_ranks(values: Sequence[float]) -> list[float]:
    """Mid-ranks in [0, 1] (ties share their average rank)."""
    n = len(values)
    order = sorted(range(n), key=lambda k: values[k])
    ranks = [0.0] * n
    k = 0
    while k < n:
        j = k
        while j + 1 < n and values[order[j + 1]] == values[order[k]]:
            j += 1
        mid = (k + j) / 2 / max(n - 1, 1)
        for t in range(k, j + 1):
            ranks[order[t]] = mid
        k = j + 1
    return ranks


def scores(measures: dict[int, Measures]) -> dict[int, float]:
    """The combined ease score of every deal: the mean of its three percentile ranks."""
    numbers = sorted(measures)
    cols = [
        _percentile_ranks([getattr(measures[n], f) for n in numbers])
        for f in ("greedy", "random", "opening")
    ]
    return {n: round(sum(c[k] for c in cols) / 3, 6) for k, n in enumerate(numbers)}


def _tie_break(number: int) -> int:
    """A fixed pseudo-random order among deals of equal score (not the deal number's order)."""
    return (number * 2654435761) % (1 << 32)


def grade_all(measures: dict[int, Measures]) -> tuple[dict[int, str], tuple[float, float]]:
    """Grades of every measured deal and the thresholds (the scores at the two cuts).

    Deals are ordered by score (ties in a fixed pseudo-random order, ``_tie_break``): the
    first third is hard, the last third easy, the rest medium. So the grades stay balanced
    even where many deals share a score (Wasp); a score below the first threshold is always
    hard and one above the second always easy.
    """
    ease = scores(measures)
    order = sorted(ease, key=lambda n: (ease[n], _tie_break(n)))
    n = len(order)
    low, high = n // 3, (2 * n) // 3
    grades = {
        d: "hard" if k < low else "easy" if k >= high else "medium" for k, d in enumerate(order)
    }
    cuts = (ease[order[low]], ease[order[high]]) if n >= 3 else (0.0, 0.0)
    return grades, cuts
