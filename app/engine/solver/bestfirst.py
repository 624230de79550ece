"""A best-first search for the win-first phase: it may only answer "win". Pure, no I/O.

The win-first phase's restarted depth-first runs (``winfirst.py``) follow one line at a time
and abandon it only when their node limit is met. Strong FreeCell solvers search best-first
instead: every position met is scored, and the best one not yet expanded is expanded next,
whatever its depth. This module does that for the family, on the phase's own pruned moves
(``winfirst._WinFirst.gen_moves``: a face-up card never leaves a card it fits on, a card goes
into a free cell only when that is useful) and with a transposition set:

- the score of a position (lower is better, ``score``) counts what is still to be done: the
  face-down cards, the face-up cards that do not lie on a card they fit on (each needs at
  least one more move, unless it is a King at the bottom of its column), the cards in free
  cells (each holds a cell), the cards lying above one of their own lower cards in the same
  column (one of them must leave through a cell or another column), and takes off the empty
  columns and the cards already in a column's run from the King down (or removed);
- children are scored when their parent is expanded; a child's own position is rebuilt only
  when it comes out of the queue (its parent's position and the move), so memory holds one
  position per expanded node;
- the depth counts a little (``DEPTH_WEIGHT``), so that among equals the shorter line wins.

Soundness: it answers only "win", with the line of engine actions from the start (``api.py``
replays it through ``Game`` before believing it), or nothing; it never answers "loss", and it
shares nothing with the complete search that follows.
"""

from __future__ import annotations

import heapq
import random

from ..cards import KING
from ..game import Action, Game
from .family_search import CELL, DEAL, RES
from .search import WALL_TIME, Clock
from .winfirst import NOISE, _WinFirst

# The score's weights (``score``), chosen on Scorpion Head's hard deals (docs/odds.md).
W_HIDDEN = 6  # a face-down card
W_LOOSE = 4  # a face-up card not on a card it fits on (not a King at its column's bottom)
W_CELL = 3  # a card in a free cell (on top of its being loose)
W_BLOCK = 2  # a card lying above a lower card of its own suit in its column
W_EMPTY = 3  # an empty column (taken off)
W_HOME = 1  # a card in a King-down run at a column's bottom, or removed (taken off)
DEPTH_WEIGHT = 0.5  # a step already taken
LIFO = 0  # among equal scores, the newest first


_Snap = tuple[
    tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, tuple[int, ...]
]


class BestFirst:
    """A best-first search from ``game``'s position over the win-first phase's moves."""

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.s = _WinFirst(game, random.Random(seed) if seed is not None else None, NOISE)
        self.s.rng = None  # the order of the children does not matter here
        self.parents = self.s.parents
        self.nodes = 0
        self.colcache: dict[bytes, int] = {}
        self.trace: list[tuple[int, int, int, int]] | None = None

    # -- the score ------------------------------------------------------------------------

    def _colscore(self, c: int) -> int:
        s = self.s
        ck = s.colkey[c]
        v = self.colcache.get(ck)
        if v is not None:
            return v
        col, h = s.cols[c], s.hidden[c]
        parents = self.parents
        n = len(col)
        v = W_HIDDEN * h
        if n == 0:
            v -= W_EMPTY
        else:
            home = 0
            if h == 0 and col[0] % 13 == KING:
                home = 1
                while home < n and col[home - 1] in parents[col[home]]:
                    home += 1
            v -= W_HOME * home
            for i in range(max(h, home), n):
                card = col[i]
                if i == 0:
                    if card % 13 != KING:
                        v += W_LOOSE
                elif i == h or col[i - 1] not in parents[card]:
                    v += W_LOOSE
            # a card above a lower card of its own suit (face up or down) blocks it
            low: set[int] = set()
            for i in range(n):
                card = col[i]
                if i >= max(h, home):
                    suit, rank = divmod(card, 13)
                    if any(x // 13 == suit and x % 13 < rank for x in low):
                        v += W_BLOCK
                low.add(card)
        self.colcache[ck] = v
        return v

    def score(self) -> int:
        s = self.s
        v = sum(self._colscore(c) for c in range(s.ncols))
        for x in s.cells:
            if x >= 0:
                v += W_CELL + W_LOOSE
        for x in s.reserve:
            if x >= 0:
                v += W_LOOSE
        v -= W_HOME * 13 * s.done
        return v

    # -- positions ------------------------------------------------------------------------

    def _snap(self) -> _Snap:
        s = self.s
        return (
            tuple(tuple(c) for c in s.cols),
            tuple(s.hidden),
            tuple(s.cells),
            tuple(s.reserve),
            s.done,
            tuple(s.stock),
        )

    def _load(self, snap: _Snap) -> None:
        s = self.s
        cols, hidden, cells, reserve, done, stock = snap
        s.cols = [list(c) for c in cols]
        s.hidden = list(hidden)
        s.cells = list(cells)
        s.reserve = list(reserve)
        s.done = done
        s.stock = list(stock)
        s.colkey = [s._colkey(c) for c in range(s.ncols)]

    def run(
        self, deadline: float, max_nodes: int | None, clock: Clock = WALL_TIME
    ) -> list[Action] | None:
        """Expand positions best first until a win (its line), the queue runs dry, ``clock``
        passes ``deadline`` or ``max_nodes`` positions are expanded (None)."""
        s = self.s
        if s.done == s.runs_needed:
            return []
        seen = s.seen
        seen.add(s.key())
        # node i: its parent, the move that reached it, its depth, its position once expanded
        parent: list[int] = [-1]
        moves: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]
        depth: list[int] = [0]
        snaps: dict[int, _Snap] = {}
        queue: list[tuple[float, int]] = [(0.0, 0)]
        start_snap = self._snap()
        runs_needed = s.runs_needed
        while queue:
            if not self.nodes & 63 and (
                clock() >= deadline or (max_nodes is not None and self.nodes >= max_nodes)
            ):
                return None
            _, node = heapq.heappop(queue)
            node = abs(node)
            self.nodes += 1
            if node == 0:
                self._load(start_snap)
            else:
                self._load(snaps[parent[node]])
                kind, a, i, b = moves[node]
                if kind == DEAL:
                    s.make_deal()
                else:
                    s.make(kind, a, i, b)
            snap = self._snap()
            snaps[node] = snap
            if self.trace is not None:
                self.trace.append((self.score(), s.done, sum(s.hidden), depth[node]))
            d = depth[node] + 1
            gen = s.gen_moves()
            if s.stock:
                gen.append((DEAL, 0, 0, 0))
            for move in gen:
                kind, a, i, b = move
                if kind == DEAL:
                    saved = s.make_deal()
                else:
                    card = -1
                    if kind in (RES, CELL):
                        card = (s.reserve if kind == RES else s.cells)[a]
                    saved = s.make(kind, a, i, b)
                won = s.done == runs_needed
                key = s.key()
                fresh = key not in seen
                if fresh:
                    seen.add(key)
                    child = len(parent)
                    parent.append(node)
                    moves.append(move)
                    depth.append(d)
                    if won:
                        return self._line(child, parent, moves)
                    heapq.heappush(queue, (self.score() + DEPTH_WEIGHT * d, -child if LIFO else child))
                if kind == DEAL:
                    s.undo_deal(saved)
                else:
                    s._undo(kind, a, b, card, saved)
        return None

    def _line(
        self, node: int, parent: list[int], moves: list[tuple[int, int, int, int]]
    ) -> list[Action]:
        out: list[Action] = []
        while node > 0:
            kind, a, i, b = moves[node]
            out.append(("deal",) if kind == DEAL else self.s._action(kind, a, i, b))
            node = parent[node]
        out.reverse()
        return out


def best_first(
    game: Game, deadline: float, max_nodes: int | None, clock: Clock = WALL_TIME
) -> tuple[list[Action] | None, int]:
    """A best-first search from ``game``'s position: (the winning line or None, nodes)."""
    b = BestFirst(game)
    line = b.run(deadline, max_nodes, clock)
    return line, b.nodes
