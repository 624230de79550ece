"""The solver for the rest of the family (every variant but the four plain ones, which
``search.py`` decides): three stages within one budget. Pure, no I/O.

1. The start is proved lost if ``proof.py``'s proof can: an answer at once.
2. ``winfirst.py``'s win-first phase gets ``win_first_share`` of a bounded budget: restarted,
   strongly and unsoundly pruned runs of the search, which may only answer "win".
3. The complete search of ``family_search.py`` (every reachable position up to exact
   symmetries, with the proofs of loss) has the rest: only it ever answers "loss".

A win's line is replayed through the engine by ``api.py`` before it is believed.
"""

from __future__ import annotations

from ..game import Game
from ..variants import Variant
from .family_search import FamilySearch
from .search import WALL_TIME, Clock, SearchResult, run_search
from .winfirst import phase_then_complete
from .winfirst import win_first as run_win_first

# The share of a bounded budget the win-first phase may spend first ...
WIN_FIRST_SHARE = 0.5
# ... but only 5% in Three Blind Mice, where four deals in five are lost (only the complete
# search proves that) and the complete search, with its sure joins, finds most wins as well.
# Measured on the ten deals of 1-5,000 left undecided at 10 s of CPU time with half the budget
# to the phase: with none, four were proved lost in 6.1-7.5 s each (with a tenth, 7.0-9.2 s);
# but with none, deal 4467 (a win the phase finds in 0.2 s) stayed undecided after 12 s.
# ``make bench-solver VARIANT=three-blind-mice``: 5 of 5,000 undecided at 10 s (10 before).
# ... and 90% in Double Scorpion, Triple Scorpion and Scorpion Tail, where the complete search
# decided 3, 0 and 1 of deals 1-5,000 in the second half of their 10 s, while the win-first
# phase, given 9 s instead of 5 s, wins 12, 9 and 10 more: ``make bench-solver VARIANT=...``,
# Double 91 -> 79 undecided, Triple 17 -> 8, Tail 101 -> 91, the same deals lost (93, 2 and
# 131), none left undecided that was decided before. (Farmer's Wife: 60 -> 59, kept at half.
# In Double a beam search given 4 s of the budget in the phase's place was tried: 84
# undecided, and only 4 of the deals it decided were not decided with the longer phase.)
WIN_FIRST_SHARES = {
    "three-blind-mice": 0.05,
    "double-scorpion": 0.9,
    "triple-scorpion": 0.9,
    "scorpion-tail": 0.9,
}


def win_first_share(variant: Variant) -> float:
    """The share of a bounded budget that ``variant``'s win-first phase gets first."""
    return WIN_FIRST_SHARES.get(variant.name, WIN_FIRST_SHARE)


def solve_family(
    game: Game,
    *,
    max_seconds: float | None = 10.0,
    max_nodes: int | None = None,
    prune: bool = True,
    win_first: float | None = None,
    clock: Clock = WALL_TIME,
) -> SearchResult:
    """Search ``game``'s position (any variant). A win's line is NOT verified here.

    After the proof of loss at the start, ``win_first`` of the budget (seconds and nodes
    alike; none when the budget is unbounded; ``None``: the variant's ``win_first_share``)
    goes to ``winfirst.py``'s incomplete search, which may only find a win; the complete
    search then has the rest. ``prune=False`` switches
    the proofs of loss, the sure joins and the win-first phase off (plain exhaustive
    search). ``clock`` counts the budget (``search.py``: wall or CPU time)."""
    start = clock()
    if win_first is None:
        win_first = win_first_share(game.variant)
    s = FamilySearch(game)
    s.prove = s.prove and prune
    s.sure_joins = s.sure_joins and prune
    s.run_joins = s.run_joins and prune
    s.cell_joins = s.cell_joins and prune
    won = s.done == s.runs_needed

    def complete(seconds: float | None, nodes: int | None, *, proved: bool) -> SearchResult:
        return run_search(
            s,
            seconds,
            nodes,
            won=won,
            prove=s.prove and not proved,  # proved: the start was checked
            stats=lambda: _stats(s),
            clock=clock,
        )

    if prune and not won and win_first > 0 and (max_seconds or max_nodes):
        reason = s.dead_reason()
        if reason:
            return SearchResult("loss", None, 0, clock() - start, reason)
        s.alive = True  # no proof of loss at the start (``FamilySearch._stays_alive``)
        return phase_then_complete(
            lambda end, cap: run_win_first(game, end, cap, clock),
            lambda seconds, nodes: complete(seconds, nodes, proved=True),
            start,
            max_seconds,
            max_nodes,
            win_first,
            clock,
        )
    return complete(max_seconds, max_nodes, proved=False)


def _stats(s: FamilySearch) -> dict[str, int]:
    return {
        "seen": len(s.seen),
        "dead_checks": s.dead_checks,
        "dead_cuts": s.dead_cuts,
        "alive_skips": s.alive_skips,
        "reserve_joins": s.reserve_joins_taken,
        "run_joins": s.run_joins_taken,
        "cell_joins": s.cell_joins_taken,
    }
