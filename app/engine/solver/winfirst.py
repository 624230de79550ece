"""The family's win-first phase: an incomplete search that may only answer "win". Pure, no I/O.

``family_search.py``'s complete depth-first search decides a deal by exploring every reachable
position; on a winnable deal it often loses itself in a huge subtree below one early move (the
moves it tries first are not wrong, only endless), while a line exists a few hundred positions
away. Before it, ``solve_family`` gives this phase a share of the budget:

- **restarts**: the same depth-first search (``FamilySearch``'s, with its transposition set and its
  proofs of loss) run again and again from the start, each run with a node limit that grows
  with the run's number (the Luby sequence times a base), the first run in the complete
  search's own move order, every later one with the priorities shaken by seeded random noise.
  A run that meets its limit is abandoned and the next one starts; a run that exhausts its
  pruned tree ends the phase (every run explores the same pruned positions, only in another
  order), proving nothing.
- **the deal among the moves** (Double Scorpion, ``DEAL_PRIORITY``): the deal of the stock is
  scored and shaken like the other moves, so runs deal at different times; elsewhere it comes
  after every other move, as in the complete search (the 71 deals of 1-5,000 undecided at
  10 s before: 6 won now, none decided before lost, ``docs/odds.md``);
- **sure joins** where a lemma keeps a shortest winning line (How They Run's ``cell_join``,
  ``family_search.py``), taken as the only move, as in the complete search;
- **strong pruning** (unsound for a loss, harmless for a win): a face-up card that lies on a
  card it fits on is never picked up off it (the group keeps moving along with the card under
  it), and a column's exposed card goes into a free cell only when that turns a face-down card
  up, empties the column, or lays bare a card that can then move onto an exposed card or be
  built on by a loose card (one in a reserve or cell, or a face-up card not on a card it fits
  on); in Scorpion Head and How They Run (``DIG``: four and two cells) the rule looks
  deeper: the card may be the first of up to as many exposed cards as there are free cells,
  going into them one by one, when one of the cards they bare in turn is useful in that sense
  (or is a King lying on a card, which an empty column can take). With one look only, a
  card two deep was never dug out (docs/odds.md, "Scorpion Head's cells dig", 3 December:
  Scorpion Head's 87 deals of 1-5,000 the data file left undecided, 44 won at 10 s instead
  of 4);
- **the proof of loss of its own game**: ``proof.py``'s proof with ``kept`` (a face-up card on
  a face-up card it fits on never leaves it), which cuts the positions from which this phase
  can win nothing (Double Scorpion: it fires on ~40% of the positions it is tried on, the
  full game's proof on ~30%; of the 100 deals of 1-5,000 the odds file had left undecided, 29
  were won within 10 s of CPU time each instead of 23, none decided before was lost).
- **proofs spared** (Double Scorpion, ``SPARE_PROOFS``): after a step of a group led by g from a
  position the proof found nothing in, the proof is skipped when g's join is met from the
  start or every other copy of g lies on a parent (``_WinFirst._stays_alive``: a heuristic; it
  seldom fires there, and a skipped proof only misses a cut). Nearly the same runs in ~10%
  less CPU time (none of the 66 deals of 1-5,000 undecided at 10 s decided, ``docs/odds.md``).

Soundness: the phase answers only "win" (with the line of engine actions that got there,
which ``api.py`` replays through ``Game`` before believing it) or nothing. It never answers
"loss" and shares nothing with the complete search that follows, which alone may prove a loss.
The noise is seeded: the same position and budget give the same answer.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from ..cards import KING
from ..game import Action, Game
from .family_search import COL, DEAL, TO_CELL, FamilySearch
from .search import WALL_TIME, Clock, OutOfBudget, Searcher, SearchResult

BASE_NODES = 400  # the first run's node limit; run k gets luby(k) times this
NOISE = 300  # the largest random bonus added to a move's priority (priorities span ~200)
# Where the deal of the stock stands among the phase's moves: its priority, before the noise
# (a reveal scores 100, a join 10 less the group's size, a King into an empty column 20), in the
# variants listed; elsewhere the deal comes after every other move, as in the complete search.
DEAL_PRIORITY: dict[str, int] = {"double-scorpion": 0}
# The variants whose cell rule digs (``_WinFirst._cell_useful``; docs/odds.md, "Scorpion
# Head's cells dig"); elsewhere it looks at the card the move bares only.
DIG: set[str] = {"scorpion-head", "how-they-run"}
# The variants whose phase skips the proof of loss where it seldom fires (``_WinFirst.
# _stays_alive``): Double Scorpion (measured there only).
SPARE_PROOFS = frozenset({"double-scorpion"})


def luby(k: int) -> int:
    """The k-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ..."""
    k -= 1  # the classic algorithm counts from 0
    size, power = 1, 0
    while size < k + 1:
        size = 2 * size + 1
        power += 1
    while size - 1 != k:
        size = (size - 1) // 2
        power -= 1
        k %= size
    return 1 << power


class _WinFirst(FamilySearch):
    """``FamilySearch`` with the strong pruning and the seeded noise of the win-first phase."""

    # the two pruning rules (module docstring), switchable to measure what each gives
    keep_joined = True
    cell_rule = True
    # the cell rule looks past the exposed card, as deep as the free cells reach (``DIG``)
    dig = False

    def __init__(self, game: Game, rng: random.Random | None, noise: int) -> None:
        super().__init__(game)
        self.rng = rng
        self.noise = noise
        self.deal_priority = DEAL_PRIORITY.get(game.variant.name)
        self.dig = game.variant.name in DIG
        self.spare_proofs = game.variant.name in SPARE_PROOFS

    def gen_moves(self) -> list[tuple[int, int, int, int]]:
        if self.cell_joins:  # How They Run: a sure join keeps a shortest winning line
            join = self.cell_join()
            if join is not None:
                self.cell_joins_taken += 1
                return [join]
        cols, hidden, parents = self.cols, self.hidden, self.parents
        kept: list[tuple[float, tuple[int, int, int, int]]] = []
        loose: set[int] | None = None
        for prio, move in self.scored_moves():
            kind, a, i, _ = move
            if kind == COL:
                col = cols[a]
                if self.keep_joined and i > hidden[a] and col[i - 1] in parents[col[i]]:
                    continue  # never break a card off a card it fits on
            elif kind == TO_CELL and self.cell_rule:
                if loose is None:
                    loose = self._loose()
                if not self._cell_useful(a, loose):
                    continue
            kept.append((prio, move))
        if self.stock and self.deal_priority is not None:
            kept.append((self.deal_priority, (DEAL, 0, 0, 0)))
        if self.rng is not None:
            r, noise = self.rng.random, self.noise
            kept = [(p + noise * r(), m) for p, m in kept]
        kept.sort(key=lambda s: -s[0])
        return [m for _, m in kept]

    def _stays_alive(self, b: int, base: int) -> bool:
        """After a column step of a group led by g onto the exposed card of column b (g now at
        ``base``) from a position where the proof found nothing (``FamilySearch.dfs``): True
        when the proof of the phase's game is skipped (``SPARE_PROOFS`` variants only), which
        is when g's join is met from the start (a parent of g is in the stock or exposed in
        another column: ``FamilySearch._stays_alive``'s condition) or every other copy of g
        lies face up on a parent (so g's taking this parent costs no other copy one).

        A heuristic, not the full game's lemma (which fails here: the phase keeps g on its
        parent, so g's leaving no longer meets the clauses it met there). Skipping a proof only
        misses a cut, and this phase only ever answers "win" (its lines are replayed by
        ``api.py``). Measured in Double Scorpion (deals 63, 456, 1815, 4 s of the phase each,
        every proof run): of the steps from a position the proof found nothing in, the first
        condition held on 1.5-2% (the proof never fired there), the second on 25-36% (the
        proof fired on 0-1.4% of them)."""
        if not self.spare_proofs:
            return False
        if self._join_met(b, base):
            return True
        cols, hidden = self.cols, self.hidden
        g = cols[b][base]
        if g in self.stock:
            return False
        pg = self.parents[g]
        for c, col in enumerate(cols):
            if g in col:
                h = hidden[c]
                for j, x in enumerate(col):
                    if x == g and (c != b or j != base) and not (j > h and col[j - 1] in pg):
                        return False
        return True

    def _loose(self) -> set[int]:
        """The cards that may move somewhere once a card they fit on is bare: reserve and cell
        cards, and face-up cards that do not lie on a card they fit on."""
        out = {x for x in self.reserve if x >= 0} | {x for x in self.cells if x >= 0}
        parents = self.parents
        for col, h in zip(self.cols, self.hidden, strict=True):
            for i in range(h, len(col)):
                if i == 0 or i == h or col[i - 1] not in parents[col[i]]:
                    out.add(col[i])
        return out

    def _cell_useful(self, a: int, loose: set[int]) -> bool:
        col = self.cols[a]
        n = len(col)
        h = self.hidden[a]
        # ``dig``: the card may be the first of several exposed cards going into the free
        # cells one by one, as many as there are free cells, to reach a useful card
        depth = self.cells.count(-1) if self.dig else 1
        tops: set[int] | None = None
        for k in range(1, depth + 1):
            if n - k < h:
                return False  # only face-up cards go into cells
            if n == k or n - k == h:
                return True  # empties the column or turns a face-down card up
            bare = col[n - k - 1]
            moved = col[n - k :]
            if any(c in loose and c not in moved for c in self.children[bare]):
                return True
            if bare % 13 == KING:
                if self.dig and n - k - 1 > 0 and not all(self.cols):
                    return True  # a King bared on a card can go into an empty column
                continue
            if n - k - 1 > h and col[n - k - 2] in self.parents[bare]:
                continue  # the bared card stays where it is
            if tops is None:
                tops = {c[-1] for j, c in enumerate(self.cols) if c and j != a}
            if any(p in tops for p in self.parents[bare]):
                return True
        return False


def restarts(
    new_run: Callable[[int], Searcher],
    base_nodes: int,
    deadline: float,
    max_nodes: int | None,
    clock: Clock = WALL_TIME,
    first: int = 1,
) -> tuple[list[Action] | None, int]:
    """Run ``new_run(k)``'s searches for k = ``first``, ``first`` + 1, ... (each with
    ``base_nodes`` times ``luby(k)`` nodes, ``luby(1)`` for k < 1) until one wins, ``clock``
    passes ``deadline`` or ``max_nodes`` nodes are spent in all: (the winning line or None,
    nodes). Shared by the family's phase (below) and the plain variants' (``winfirst_plain``)."""
    total = 0
    run = first - 1
    limit_rec = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit_rec, 50_000))  # a path holds one frame per step
    try:
        while clock() < deadline and (max_nodes is None or total < max_nodes):
            run += 1
            s = new_run(run)
            limit = base_nodes * luby(max(run, 1))
            if max_nodes is not None:
                limit = min(limit, max_nodes - total)
            s.deadline = deadline
            s.clock = clock
            s.max_nodes = limit
            s.seen.add(s.key())
            try:
                found = s.dfs()
            except (OutOfBudget, RecursionError):
                total += s.nodes
                continue
            total += s.nodes
            # a run that ends on its own explored the whole pruned tree (in any order the
            # same positions): it won, or no later run can
            return (list(s.path) if found else None), total
    finally:
        sys.setrecursionlimit(limit_rec)
    return None, total


def phase_then_complete(
    phase: Callable[[float, int | None], tuple[list[Action] | None, int]],
    complete: Callable[[float | None, int | None], SearchResult],
    start: float,
    max_seconds: float | None,
    max_nodes: int | None,
    share: float,
    clock: Clock,
) -> SearchResult:
    """Give ``share`` of a bounded budget (seconds from ``start`` and nodes alike) to a
    win-first ``phase(deadline, node cap)``, then what is left to the ``complete`` search, which
    alone may answer "loss"; the answer counts the nodes and the time of both."""
    end = start + max_seconds * share if max_seconds else float("inf")
    cap = max(1, int(max_nodes * share)) if max_nodes else None
    line, spent = phase(end, cap)
    if line is not None:
        return SearchResult("win", line, spent, clock() - start)
    if max_seconds is not None:
        max_seconds = max(0.0, max_seconds - (clock() - start))
    if max_nodes is not None:
        max_nodes = max(1, max_nodes - spent)
    r = complete(max_seconds, max_nodes)
    r.nodes += spent
    r.seconds = clock() - start
    return r


def win_first(
    game: Game, deadline: float, max_nodes: int | None, clock: Clock = WALL_TIME
) -> tuple[list[Action] | None, int]:
    """Restarted, strongly pruned searches from ``game``'s position until one wins, ``clock``
    passes ``deadline`` or ``max_nodes`` nodes are spent: (the winning line or None, nodes)."""

    def new_run(k: int) -> Searcher:
        return _WinFirst(game, random.Random(k) if k > 1 else None, NOISE)

    return restarts(new_run, BASE_NODES, deadline, max_nodes, clock)
