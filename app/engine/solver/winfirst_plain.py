"""The win-first phase of the plain variants' search (Wasp II only): an incomplete search that
may only answer "win". Pure, no I/O.

``search.py``'s complete depth-first search decides a Wasp deal by exploring every reachable
position up to its sound pruning; since an empty column takes any card, a winnable deal often
sends it into a huge subtree below an early move (not a wrong move, only an endless one) while
a winning line lies a few thousand positions away. ``solve_plain`` gives this phase a share of
a bounded budget first, after the proof of loss at the start (``search.dead_reason``):

- **a short first try**: the complete search itself, ``BASE_NODES`` nodes (the strong pruning
  below cuts the one line of some easy deals: Wasp II deal 148 is won by the complete search in
  60 positions and was not won by the pruned runs in 0.5 s);
- **restarts**: ``PlainSearch``'s own depth-first search (its transposition set, its proof of loss
  and its sound forced moves) run again and again from the start, each run with a node limit
  that grows with the run's number (the Luby sequence times ``BASE_NODES``, as in the
  family's ``winfirst.py``), the first run in the complete search's own move order, every
  later one with the order shaken by seeded random noise. A run that meets its limit is
  abandoned and the next one starts; a run that exhausts its pruned tree ends the phase (every
  run explores the same pruned positions, only in another order), proving nothing.
- **strong pruning** (unsound for a loss, harmless for a win): a card lying on its successor
  is never picked up off it into an empty column (the join is kept; the group moves only along
  with the card under it), and a group goes into an empty column only when that turns a
  face-down card up, moves a King off the card under it, or lays bare a card whose
  predecessor is face up and can then join it.

Soundness: the phase answers only "win" (with the line of engine actions that got there, which
``api.py`` replays through ``Game`` before believing it) or nothing. It never answers "loss"
and shares nothing with the complete search that follows, which alone may prove a loss. The
noise is seeded: the same position and budget give the same answer.
"""

from __future__ import annotations

import random

from ..cards import KING
from ..game import Action
from .search import (
    WALL_TIME,
    Clock,
    PlainSearch,
    Position,
    Searcher,
    SearchResult,
    dead_reason,
    solve,
)
from .winfirst import phase_then_complete, restarts

# The share of a bounded budget the win-first phase may spend first.
WIN_FIRST_SHARE = 0.25
# The variants that use it. Scorpion and Scorpion II: the complete search alone decides ~99.99%
# of their deals within 10 s. Wasp: measured, it does not pay (1 December 2026, 10 s, 40 deals
# left undecided by a first pass: no deal newly decided, 5 losses and 1 win pushed past the
# budget by the quarter it takes; deals 1-200 at 2 s: 2 losses lost): Wasp's undecided deals
# are mostly losses, which only the complete search can prove. Wasp II: 20 such deals at 10 s,
# 4 -> 9 decided (5 wins found in 0.2-2.0 s), deals 1-200 at 2 s unchanged (docs/odds.md).
VARIANTS = frozenset({"wasp-ii"})
BASE_NODES = 2_000  # the first run's node limit; run k gets luby(k) times this
NOISE = 2.0  # the largest random bonus added to a move's priority (a reveal scores 1)


class _WinFirstPlain(PlainSearch):
    """``PlainSearch`` with the strong pruning and the seeded noise of the win-first phase."""

    keep_joined = True  # never pick a card off its successor into an empty column
    empty_rule = True  # a group goes into an empty column only when it pays at once
    # (both switched off for the first try, which is the complete search's own)

    def __init__(self, pos: Position, rng: random.Random | None, noise: float) -> None:
        super().__init__(pos, True)
        self.rng = rng
        self.noise = noise

    def gen_moves(self) -> list[tuple[int, int, int]]:
        moves = super().gen_moves()
        if len(moves) <= 1:
            return moves  # a forced move (sound) or none
        cols, hidden = self.cols, self.hidden
        kept: list[tuple[float, tuple[int, int, int]]] = []
        for move in moves:
            a, i, b = move
            src = cols[a]
            reveal = 0 < i == hidden[a]
            if not cols[b]:  # into an empty column
                x = src[i]
                if i and self.keep_joined and src[i - 1] == x + 1:
                    continue
                if self.empty_rule and not self._empty_useful(a, i, reveal):
                    continue
            kept.append((1.0 if reveal else 0.0, move))
        if self.rng is not None:
            r, noise = self.rng.random, self.noise
            kept = [(p + noise * r(), m) for p, m in kept]
            kept.sort(key=lambda s: -s[0])
        return [m for _, m in kept]

    def _empty_useful(self, a: int, i: int, reveal: bool) -> bool:
        """The move of ``cols[a][i:]`` into an empty column turns a face-down card up, moves a
        King (or a whole column, before the deal) or bares a card whose predecessor is face up
        elsewhere (so it may join it next)."""
        if reveal or i == 0:
            return True
        src = self.cols[a]
        if src[i] % 13 == KING:
            return True
        bare = src[i - 1]
        if bare % 13 == 0:
            return False  # an Ace takes nothing
        p = bare - 1
        c = self.col_of[p]
        return c >= 0 and c != a and self.idx_of[p] >= self.hidden[c]


def win_first(
    pos: Position, deadline: float, max_nodes: int | None, clock: Clock = WALL_TIME
) -> tuple[list[Action] | None, int]:
    """Restarted, strongly pruned searches from ``pos`` until one wins, ``clock`` passes
    ``deadline`` or ``max_nodes`` nodes are spent: (the winning line or None, nodes). Run 0 is
    the complete search's own pruning and order (``BASE_NODES`` nodes)."""

    def new_run(k: int) -> Searcher:
        s = _WinFirstPlain(pos, random.Random(k) if k > 1 else None, NOISE)
        if k == 0:
            s.keep_joined = s.empty_rule = False
        return s

    return restarts(new_run, BASE_NODES, deadline, max_nodes, clock, first=0)


def solve_plain(
    pos: Position,
    *,
    max_seconds: float | None = 10.0,
    max_nodes: int | None = None,
    prune: bool = True,
    win_first_share: float = WIN_FIRST_SHARE,
    clock: Clock = WALL_TIME,
) -> SearchResult:
    """Search a plain variant's position: in the ``VARIANTS`` (``prune`` on, a bounded budget),
    the proof of loss at the start, then ``win_first_share`` of the budget (seconds and nodes
    alike) to the win-first phase, then ``search.solve`` (the complete search) with the rest.
    The other plain variants go to ``search.solve`` directly. A win's line is NOT verified
    here (``api.py`` does)."""
    if (
        not prune
        or pos.variant.name not in VARIANTS
        or win_first_share <= 0
        or not (max_seconds or max_nodes)
        or len(pos.completed) == 4
    ):
        return solve(pos, max_seconds=max_seconds, max_nodes=max_nodes, prune=prune, clock=clock)
    start = clock()
    reason = dead_reason(pos)
    if reason:
        return SearchResult("loss", None, 0, clock() - start, reason)
    return phase_then_complete(
        lambda end, cap: win_first(pos, end, cap, clock),
        lambda seconds, nodes: solve(
            pos, max_seconds=seconds, max_nodes=nodes, prune=True, clock=clock, proved=True
        ),
        start,
        max_seconds,
        max_nodes,
        win_first_share,
        clock,
    )
