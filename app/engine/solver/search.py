"""The search core of the solver: pure Python, no I/O.

A *position* is a full Scorpion position with every card known (the server side of a game):
seven columns (deepest card first), how many of each column's deepest cards are face down,
the stock (empty once dealt) and the suits already removed. ``solve`` explores the positions
reachable from it, depth first, and answers

- ``"win"`` with a line of engine actions (``("move", from_column, from_index, to_column)`` and
  ``("deal",)``) that wins from the position; the caller verifies it through ``Game``
  (``app.engine.solver.api`` does, always);
- ``"loss"`` when every reachable position was explored or proved lost by the sound rules
  below;
- ``"unknown"`` when the budget (seconds and/or nodes) ran out first.

Facts the search stands on (RULES.md):

- In Scorpion and Scorpion II a card other than a King lands only on its same-suit successor,
  and once there it never leaves it (it can only be carried along): its first pick-up *is* its
  join. Every card but a King must be joined to its successor for the game to be won.
- "Must leave first": for a card ``c`` to join ``c + 1``, whatever lies directly on ``c + 1``
  must leave first; a face-down ``c`` needs the card directly on it to leave first; and if
  ``c + 1`` lies above ``c`` in one column, one of the cards from just above ``c`` up to ``c + 1``
  must leave first. A card that is not a King leaves only by its own join, a King only into an
  empty column (which needs some column's deepest card to leave) or with its completed run.
  ``dead_reason`` computes the least fixpoint of these "can happen" facts; a required event
  outside it is a proof of loss. New constraints appear only when a moved group comes to lie
  above a card's predecessor in one column, when a King fills the last empty column, or with the
  deal, so the check runs at the start, after the deal and after such moves only (skipping a
  check can only miss a proof, never make a wrong one).
- Wasp and Wasp II: with an empty column every card can leave, so the proof fires only while no
  column is empty and no column's deepest card can ever leave (``PlainSearch.is_dead``, which
  computes it the fast way). It is asked after every move that fills the last empty column
  (most of the positions the search would otherwise explore are cut there), from the parent:
  ``PlainSearch.fills_stay_alive`` computes the parent's propagation with the empty column left
  out once, ``PlainSearch.fill_is_dead`` resumes it for each such move with the clauses the
  move relaxes (it tightens none), a card lifted off its successor can join it again at once.
- Wasp, stock dealt: a card lying on its face-up successor is moved into an empty column only
  when a face-up card under the successor has its own successor in the moved group
  (``PlainSearch.idle_lift``: some shortest winning line does without the other such lifts).
- Safe joins: a card joining a column that holds its suit's run from the King down to the
  successor is taken as a forced move (see ``PlainSearch.safe_joins``).
- Wasp, stock dealt: a join onto a column holding exactly its suit's run from the King down
  is taken as a forced move, and a card that such a run's open end would take is never moved
  into an empty column (``PlainSearch.forced_join``, ``PlainSearch.joins_instead``: a simulation
  shows the join wins at least one step sooner). Without the King run under the successor the
  general "a join is always safe" fails (a card under the successor may need to land on a
  card carried by the join), so these rules stay narrow.
- Transpositions: a position is keyed by "which card lies directly on which" (plus the
  face-down flags and the stock): columns are interchangeable once the stock is dealt, and
  columns 4-7 are interchangeable before.
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..cards import KING, RUNS, Card
from ..deals import Deal
from ..game import SNAPSHOT_VERSION, Action, Game
from ..variants import ALL_VARIANTS, Variant, get_variant
from .proof import least_fixpoint

Verdict = Literal["win", "loss", "unknown"]

NUM_COLUMNS = 7
STOCK_COLUMNS = 3

_KINGS = (KING, 13 + KING, 26 + KING, 39 + KING)

# Codes of the "lies on" array (one byte per card).
_BASE = 52  # 52 + column: the deepest card of that column
_IN_STOCK = 59
_REMOVED = 60
_FACE_DOWN = 64  # added to the code of a face-down card


def _table(first_equal_column: int) -> bytes:
    """A bytes.translate table mapping the base codes of columns >= first_equal_column to one."""
    t = list(range(256))
    for col in range(first_equal_column, NUM_COLUMNS):
        for flag in (0, _FACE_DOWN):
            t[_BASE + col + flag] = _BASE + first_equal_column + flag
    return bytes(t)


_KEY_BEFORE_DEAL = _table(STOCK_COLUMNS)  # columns 3..6 interchangeable
_KEY_AFTER_DEAL = _table(0)  # all columns interchangeable


def empty_targets(empties: list[int], stock_left: bool, nstock: int) -> list[int]:
    """The empty columns worth trying as targets: before the deal the columns it reaches
    (``< nstock``) differ from the others and from each other; the others, and after the deal
    all columns, are interchangeable, so only the first of them is tried."""
    if not stock_left:
        return empties[:1]
    targets = [t for t in empties if t < nstock]
    late = [t for t in empties if t >= nstock]
    if late:
        targets.append(late[0])
    return targets


# An item of ``PlainSearch.is_dead``'s propagation: (1 for a King, card, the card whose leaving
# turns it face up or -1, the card on its successor or -1, the cards between it and its successor
# above it in one column, one of which must leave, or None).
_Item = tuple[int, int, int, int, tuple[int, ...] | None]
# Where ``is_dead(skip_empty=True)`` ended: items, item by card (-1: none), by column the items
# still waiting for a card between them and their successor above them (index of the card, of
# its successor, item), the clauses unmet by item (bits: 1 face-down, 2 on its successor, 4
# between, 8 a King's run), items waiting for a card, the Kings' items, ok by card, done by item,
# joined and needed by suit, runs ok by suit, deepest cards.
_FillState = tuple[
    list[_Item],
    list[int],
    list[list[tuple[int, int, int]]],
    list[int],
    list[list[int]],
    list[int],
    list[bool],
    list[bool],
    list[int],
    list[int],
    list[bool],
    list[bool],
]


class SolverUnsupported(ValueError):
    """The solver does not cover this variant (yet): a clean refusal, not a defect."""


def check_solvable(variant: Variant) -> None:
    """Raise ``SolverUnsupported`` unless the solver covers ``variant``.

    Every variant of the family is covered: the four plain ones (Scorpion, Scorpion II, Wasp,
    Wasp II) by this module's search, the others by ``family.py``. Only a variant unknown to
    the engine is refused (kept for callers written when the solver covered fewer variants).
    """
    if variant.name not in ALL_VARIANTS or ALL_VARIANTS[variant.name] != variant:
        raise SolverUnsupported(f"The solver does not cover {variant.title}.")


def check_plain(variant: Variant) -> None:
    """Raise ``SolverUnsupported`` unless this module's fast search covers ``variant``
    (seven columns, one deck, same-suit building, no reserve or cell: ``Variant.plain``)."""
    if not variant.plain:
        raise SolverUnsupported(
            f"The fast search covers the plain variants only, not {variant.title} "
            "(app.engine.solver.api.solve_game decides every variant)."
        )


@dataclass(frozen=True, slots=True)
class Position:
    """A full position: every card known. Columns hold cards deepest first."""

    variant: Variant
    cols: tuple[tuple[Card, ...], ...]
    hidden: tuple[int, ...]
    stock: tuple[Card, ...]
    completed: tuple[int, ...] = ()  # suits of removed runs, in removal order

    @classmethod
    def from_deal(cls, variant: str | Variant, deal: Deal) -> Position:
        v = get_variant(variant) if isinstance(variant, str) else variant
        return cls.from_game(Game.new(v, deal))

    @classmethod
    def from_game(cls, game: Game) -> Position:
        check_plain(game.variant)
        return cls(
            variant=game.variant,
            cols=tuple(tuple(c) for c in game.cols),
            hidden=tuple(game.hidden),
            stock=tuple(game.stock),
            completed=tuple(game.completed),
        )

    def to_game(self) -> Game:
        """A ``Game`` in this position (empty history), for verification through the engine."""
        import json

        return Game.from_snapshot(
            json.dumps(
                {
                    "v": SNAPSHOT_VERSION,
                    "variant": self.variant.name,
                    "cols": [list(c) for c in self.cols],
                    "hidden": list(self.hidden),
                    "stock": list(self.stock),
                    "done": list(self.completed),
                    "hist": [],
                    "fut": [],
                }
            )
        )


@dataclass(slots=True)
class SearchResult:
    verdict: Verdict
    line: list[Action] | None
    nodes: int
    seconds: float
    reason: str = ""  # for a loss: how it was proved ("search" or the rule that fired)
    stats: dict[str, int] = field(default_factory=dict)


class OutOfBudget(Exception):
    """The search ran out of its time or node budget (raised deep in the search, caught by
    ``run_search``)."""


Clock = Callable[[], float]
# What a time budget counts. A player waiting for an answer counts wall time (the default);
# the offline commands (odds, catalogs, benchmarks) count the process's own CPU time, so a
# busy machine makes a run slower but never leaves a deal undecided that one core decides.
WALL_TIME: Clock = time.perf_counter
CPU_TIME: Clock = time.process_time


class Searcher(ABC):
    """What ``run_search`` (and ``winfirst.restarts``) drives: a depth-first search from its
    start, this module's ``PlainSearch`` or ``family_search.py``'s ``FamilySearch``. The
    driver sets the budget (``deadline`` by ``clock``, ``max_nodes``), puts the start's key
    in ``seen`` and reads ``path`` (the winning steps) and ``nodes``; ``dead_checks`` and
    ``dead_cuts`` count the proofs of loss tried and fired inside the search (its stats)."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.path: list[Action] = []
        self.nodes = 0
        self.dead_checks = 0
        self.dead_cuts = 0
        self.deadline = 0.0
        self.clock = WALL_TIME
        self.max_nodes = 0

    @abstractmethod
    def key(self) -> bytes:
        """The transposition key of the current position."""

    @abstractmethod
    def dfs(self) -> bool:
        """Search from the current position (its key already in ``seen``); True on a win,
        with the winning steps in ``path``."""

    @abstractmethod
    def dead_reason(self) -> str:
        """Why the current position is lost by the search's proof ("" if it proves nothing)."""


class PlainSearch(Searcher):
    """The plain variants' search state with make/unmake moves (``winfirst_plain.py`` builds
    its incomplete search on it)."""

    def __init__(self, pos: Position, prune: bool) -> None:
        super().__init__()
        self.wasp = pos.variant.empty_accepts_any
        self.prune = prune
        self.cols: list[list[int]] = [list(c) for c in pos.cols]
        self.hidden: list[int] = list(pos.hidden)
        self.stock: list[int] = list(pos.stock)
        self.done = len(pos.completed)
        self.col_of = [-1] * 52
        self.idx_of = [-1] * 52
        under = bytearray([_REMOVED] * 52)
        for ci, col in enumerate(self.cols):
            h = self.hidden[ci]
            for k, card in enumerate(col):
                self.col_of[card] = ci
                self.idx_of[card] = k
                u = col[k - 1] if k else _BASE + ci
                under[card] = u + (_FACE_DOWN if k < h else 0)
        for card in self.stock:
            under[card] = _IN_STOCK
        self.under = under
        # ``is_dead(skip_empty=True)``'s propagation, where it ended (``fills_stay_alive``)
        self.fill_state: _FillState | None = None
        # Safe joins (Scorpion and Scorpion II, pruning on): when column t holds exactly its
        # suit's run from the King (its deepest card, face up) down to its exposed card p, the
        # move of p - 1 (with all on it) onto p is taken as the only move. Every card below p
        # is joined and never leaves alone (only the King may carry the whole column into an
        # empty column, which stays legal), so nothing that could be done without the move is
        # lost by doing it now: the cards that came with p - 1 can still leave from the top,
        # the card uncovered in the source column is a bonus. The tops of columns 1-3 (where
        # the deal lands) must not change while the stock holds cards.
        self.safe_joins = prune and not self.wasp
        # Wasp, stock dealt (pruning on): a card whose successor is, or would be once the card
        # leaves, at the open end of a King run (a column holding exactly its suit's run from
        # the King down) is never moved into an empty column (see ``PlainSearch.joins_instead``).
        self.merge_first = prune and self.wasp
        # Wasp, stock empty (pruning on): a join onto a King run is the only move tried (see
        # ``PlainSearch.forced_join``).
        self.wasp_joins = prune and self.wasp
        # Wasp, stock empty (pruning on): a card is lifted off its successor into an empty
        # column only when a card under it could use that (see ``PlainSearch.idle_lift``).
        self.lift_rule = prune and self.wasp

    def _king_run(self, t: int, n: int) -> bool:
        """The ``n`` deepest cards of column t are face up and form their suit's run from the
        King (column t's deepest card) down."""
        col = self.cols[t]
        return (
            0 < n <= len(col)
            and self.hidden[t] == 0
            and col[0] % 13 == KING
            and col[:n] == RUNS[col[0] // 13][:n]
        )

    def joins_instead(self, c: int, i: int) -> bool:
        """``merge_first`` (Wasp, stock empty): True when the move of the card x = ``cols[c][i]``
        (with everything on it) into an empty column is skipped, because x + 1 lies at the open
        end of a column holding exactly its suit's run from the King (deepest, face up) down to
        x + 1, or x lies directly on such a column's x + 1.

        The move leads to a position Q where x (not a King) is the deepest card of a column and
        x + 1 lies at the open end of such a King run; moving x back onto x + 1 from Q gives
        P' = P (x lay on x + 1) or P' = P after the join of x onto x + 1 (a legal move from P).
        By the lemma of ``forced_join`` (with no card under x), if a shortest winning line from
        P (n steps) began with the skipped move, Q would win in n - 1 steps, P' in n - 2 and P
        in n - 1 at most: a contradiction. So shortest winning lines never use such moves.
        """
        x = self.cols[c][i]
        if x % 13 == KING:
            return False
        sc = self.col_of[x + 1]
        si = self.idx_of[x + 1]
        if sc < 0:
            return False
        if sc != c:
            return si == len(self.cols[sc]) - 1 and self._king_run(sc, si + 1)
        return si == i - 1 and self._king_run(c, i)

    def idle_lift(self, c: int, i: int) -> bool:
        """``lift_rule`` (Wasp, stock empty): True when the move of x = ``cols[c][i]`` (with the
        cards on it, G) into an empty column is skipped: x lies on x + 1, face up, and no
        face-up card v from the column's first face-up card up to x + 1 (``cols[c][:i]``) has
        v + 1 in G (v not a King); i > 0.

        Lemma: from every winnable position some shortest winning line moves no such card
        ("skipped lifts"). By induction on the length n of a shortest win from P. If a
        shortest line starts with a move that is not a skipped lift, the induction applies to
        the next position. Else it starts with the lift m of G into the empty column E; let Q*
        run along a shortest winning line of P.m without skipped lifts (by induction) and P*
        along a line from P, keeping "P* is Q* with G (as it changes) lying on x + 1 instead of
        at the bottom of E, E empty": in Q* nothing lands on x + 1 (only x could), so x + 1
        stays at its column's top; a card of G is picked up with the same cards on it, a card
        under x + 1 (or x + 1) carries G along in P* only, a group landing on G's top card lands
        on the same card, P* has every empty column of Q* and E, the same face-down cards (x +
        1 is face up) and a run removed in Q* is removed in P* (it lies within G above x, x is
        no King). Each step of Q* is the same step in P* until (a) x moves onto x + 1 (P*
        skips it: equal positions); (b) x moves into another empty column F (P* does nothing;
        the relation goes on with F for E); (c) a card v under x + 1 (or x + 1) moves onto v +
        1 at G's top: P* lifts G into E first (not skipped: v + 1 is in G), then moves v too:
        equal positions; (d) a run completes in P* through x + 1 and x: P* is then Q* without
        that suit (K..x + 1 at a column's top and x..A alone in E), which wins as soon as Q*
        does (its cards lie only on each other, at columns' tops: Q*'s steps without them are
        legal, with every empty column and face-up card of Q*), and, won sooner, by induction
        without skipped lifts. The steps copied stay free of skipped lifts (a lift of a card z
        in Q* is one in P*, with at least the cards of Q* under z + 1 and on z). So P has a
        line of at most n steps without skipped lifts. The stock must be empty (a deal lands on
        different cards). The combination with the other pruning holds: this is a shortest
        line whose first move is a shortest line's (``joins_instead``) or a forced join.
        """
        col = self.cols[c]
        col_of, idx_of = self.col_of, self.idx_of
        x = col[i]
        h = self.hidden[c]
        if i <= h or x % 13 == KING or col[i - 1] != x + 1:
            return False  # not a lift off a face-up successor
        for k in range(h, i):
            v = col[k]
            if v % 13 != KING and col_of[v + 1] == c and idx_of[v + 1] >= i:
                return False
        return True

    def forced_join(self, a: int, i: int) -> bool:
        """``wasp_joins`` (Wasp, stock empty): the join of the face-up card x = ``cols[a][i]``
        (with everything on it) onto x + 1, at the open end of a column holding exactly its
        suit's run from the King (deepest, face up) down to x + 1, is taken as the only move
        unless the card y directly under x is an Ace (the caller checks the King run).

        Lemma. Let Q be a position with the stock empty, x (not a King) face up in column Y on
        the card y (or deepest in Y) where y is not an Ace, and x + 1 at the open end of a column
        holding its suit's run from the King (deepest, face up) down to x + 1. Let P' be Q after
        the move of x (with its group G, x and the cards on it) onto x + 1. If Q wins in n steps,
        P' wins in at most n - 1.

        Proof, by induction on n, simulating Q's winning line step by step from P' while the
        relation "P* is Q* with G laid on x + 1 (at the open end of its column in Q*) instead of
        on y, y face up" holds. The cards under x + 1 are always cards of its suit above it
        (x + 1, or a piece of the run carrying it, lands only on its successor or into an empty
        column, and nothing but x lands on x + 1), and G never holds one of them (a card lands
        only on its successor): so no card under x + 1 ever lands on a card of G. Nothing lands
        on y in Q* (x covers it), and a picked-up group is checked only by its leading card
        (which must be face up: P* has every face-up card of Q*, and y more), so every step of
        Q* is legal in P*, which has the same empty columns and one more when x was the deepest
        card of Y (the column of y holds y on both sides; x + 1's column holds x + 1), and keeps
        the relation: a card of G other than x is picked up from x + 1's column with the same
        cards on it; x + 1 or a card under it carries G along in P*; y or a card under it
        carries G along in Q* only; a card laid on G's open end is laid on the same card. A run
        completing in Q* lies within G above x (x is not a King and lies on y, not on x + 1) and
        completes in P* too, shrinking G. The relation ends only when (a) Q* moves x onto x + 1:
        P* is Q*'s next position, one step saved; (b) Q* moves x into an empty column F: P*
        moves G from x + 1 to F and both reach the same position; (c) a run completes in P*
        through x + 1 and x but not in Q*: P*'s next position is Q*'s next followed by the join
        of x onto x + 1 (legal: x + 1 is still at its open end), so by induction it wins in
        fewer steps than Q* has left. No run can complete in P* at y's open end (y is not an
        Ace, and P* lays nothing on y). Q* cannot win while the relation holds (x is not in a
        run). Each step of Q maps to at most one step of P', and (a)-(c) save at least one.

        So from Q the join alone keeps a win that is at least one step shorter: taking it as the
        only move (a rule depending on the position only) keeps every shortest winning line
        reachable, and the depth-first search, which explores every position reachable by the
        moves it keeps, still finds a win when there is one; a "loss" stays exact. The stock
        must be empty: a deal would land on different cards on the two sides. Without the King
        run under x + 1 the lemma fails: a card under x + 1 may need to land on a card of G
        (``test_wasp_a_join_is_not_always_safe``).
        """
        return i == 0 or self.cols[a][i - 1] % 13 != 0

    # -- keys ---------------------------------------------------------------------------

    def key(self) -> bytes:
        return bytes(self.under).translate(_KEY_BEFORE_DEAL if self.stock else _KEY_AFTER_DEAL)

    # -- making and unmaking steps ------------------------------------------------------

    def _remove_run(self, c: int) -> int:
        """Remove a completed run at the open end of column c: its suit, or -1."""
        col = self.cols[c]
        n = len(col)
        if n < 13 or col[-1] % 13 != 0 or n - 13 < self.hidden[c]:
            return -1
        suit = col[-1] // 13
        run = RUNS[suit]
        if col[-13:] != run:
            return -1
        del col[-13:]
        under, col_of = self.under, self.col_of
        for card in run:
            col_of[card] = -1
            under[card] = _REMOVED
        self.done += 1
        return suit

    def _restore_run(self, c: int, suit: int) -> None:
        col = self.cols[c]
        base = len(col)
        col.extend(RUNS[suit])
        under, col_of, idx_of = self.under, self.col_of, self.idx_of
        prev = col[base - 1] if base else _BASE + c
        for k, card in enumerate(RUNS[suit], base):
            col_of[card] = c
            idx_of[card] = k
            under[card] = prev
            prev = card
        self.done -= 1

    def _settle(self, c: int) -> int:
        """After cards left or arrived at column c: remove a completed run, reveal a card.

        Returns flags for ``_unsettle``: bit 0 a run was removed (its suit in bits 4-5),
        bit 1 a card was revealed, bits 2-3 how many runs went after the first (as in the
        engine: a run removed may leave another completed run at the open end, which goes
        too), their suits in bits 6-7, 8-9 and 10-11.
        """
        flags = 0
        col = self.cols[c]
        if col and col[-1] % 13 == 0:
            suit = self._remove_run(c)
            if suit >= 0:
                flags = 1 | (suit << 4)
                shift = 6
                while col and col[-1] % 13 == 0:
                    suit = self._remove_run(c)
                    if suit < 0:
                        break
                    flags += 4
                    flags |= suit << shift
                    shift += 2
        if col and len(col) == self.hidden[c]:
            self.hidden[c] -= 1
            self.under[col[-1]] -= _FACE_DOWN
            flags |= 2
        return flags

    def make_move(self, a: int, i: int, b: int) -> tuple[int, int, int, int, int, int]:
        cols, col_of, idx_of, under = self.cols, self.col_of, self.idx_of, self.under
        src, dst = cols[a], cols[b]
        group = src[i:]
        del src[i:]
        x = group[0]
        old = under[x]
        under[x] = dst[-1] if dst else _BASE + b
        base = len(dst)
        dst.extend(group)
        for k, card in enumerate(group, base):
            col_of[card] = b
            idx_of[card] = k
        fa = self._settle(a) if src else 0
        fb = self._settle(b) if group[-1] % 13 == 0 else 0
        return (a, i, b, len(group), old, fa | (fb << 16))

    def unmake_move(self, rec: tuple[int, int, int, int, int, int]) -> None:
        a, i, b, n, old, flags = rec
        fa, fb = flags & 0xFFFF, flags >> 16
        self._unsettle(b, fb)
        self._unsettle(a, fa)
        cols, col_of, idx_of = self.cols, self.col_of, self.idx_of
        dst, src = cols[b], cols[a]
        group = dst[-n:]
        del dst[-n:]
        base = len(src)
        src.extend(group)
        for k, card in enumerate(group, base):
            col_of[card] = a
            idx_of[card] = k
        self.under[group[0]] = old

    def _unsettle(self, c: int, flags: int) -> None:
        if flags & 2:
            col = self.cols[c]
            self.hidden[c] += 1
            self.under[col[-1]] += _FACE_DOWN
        if flags & 1:
            for k in range(flags >> 2 & 3, -1, -1):  # the last removed first
                self._restore_run(c, flags >> (4 + 2 * k) & 3)

    def make_deal(self) -> tuple[int, ...]:
        cols, col_of, idx_of, under = self.cols, self.col_of, self.idx_of, self.under
        stock = self.stock
        flags = []
        for c, card in enumerate(stock):
            col = cols[c]
            under[card] = col[-1] if col else _BASE + c
            col_of[card] = c
            idx_of[card] = len(col)
            col.append(card)
        self.stock = []
        for c in range(STOCK_COLUMNS):
            flags.append(self._settle(c))
        return (*stock, *flags)

    def unmake_deal(self, rec: tuple[int, ...]) -> None:
        stock, flags = list(rec[:3]), rec[3:]
        for c in range(STOCK_COLUMNS - 1, -1, -1):
            self._unsettle(c, flags[c])
        for c in range(STOCK_COLUMNS - 1, -1, -1):
            card = self.cols[c].pop()
            self.col_of[card] = -1
            self.idx_of[card] = -1
            self.under[card] = _IN_STOCK
        self.stock = stock

    # -- moves --------------------------------------------------------------------------

    def gen_moves(self) -> list[tuple[int, int, int]]:
        """Moves worth trying, those that reveal a face-down card first."""
        cols, hidden, col_of, idx_of = self.cols, self.hidden, self.col_of, self.idx_of
        first: list[tuple[int, int, int]] = []
        rest: list[tuple[int, int, int]] = []
        empties: list[int] = []
        for t in range(NUM_COLUMNS):
            dst = cols[t]
            if not dst:
                empties.append(t)
                continue
            p = dst[-1]
            if p % 13 == 0:
                continue
            a = col_of[p - 1]
            if a < 0 or a == t:
                continue
            i = idx_of[p - 1]
            h = hidden[a]
            if i < h:
                continue
            if (
                self.safe_joins
                and not hidden[t]
                and len(dst) == 12 - (p - 1) % 13
                and dst == RUNS[p // 13][: len(dst)]
                and (not self.stock or (a >= STOCK_COLUMNS and t >= STOCK_COLUMNS))
            ):
                # Column t is its suit's run from the King down to p: joining p - 1 to it
                # loses nothing (see ``PlainSearch.safe_joins``); try that move alone.
                return [(a, i, t)]
            if (
                self.wasp_joins
                and not self.stock
                and self._king_run(t, len(dst))
                and self.forced_join(a, i)
            ):
                return [(a, i, t)]  # loses nothing (see ``PlainSearch.forced_join``)
            if i == h and h:
                first.append((a, i, t))
            else:
                rest.append((a, i, t))
        if empties:
            stock = bool(self.stock)
            targets = empty_targets(empties, stock, STOCK_COLUMNS)
            if self.wasp:
                leaders = [
                    (c, i) for c in range(NUM_COLUMNS) for i in range(hidden[c], len(cols[c]))
                ]
            else:
                leaders = []
                for k in _KINGS:
                    c = col_of[k]
                    if c >= 0 and idx_of[k] >= hidden[c]:
                        leaders.append((c, idx_of[k]))
            merge = self.merge_first and not stock
            lifts = self.lift_rule and not stock
            for c, i in leaders:
                if merge and self.joins_instead(c, i):
                    continue
                if lifts and i and self.idle_lift(c, i):
                    continue
                for t in targets:
                    if c == t:
                        continue
                    if i == 0:
                        # A whole column changes only where the deal lands.
                        if not stock or (c >= STOCK_COLUMNS and t >= STOCK_COLUMNS):
                            continue
                        rest.append((c, i, t))
                    elif i == hidden[c]:
                        first.append((c, i, t))
                    else:
                        rest.append((c, i, t))
        if first:
            first.extend(rest)
            return first
        return rest

    def needs_check(self, b: int, base: int) -> bool:
        """After a move onto column b at index base: must the loss proof run again?

        Only a moved card now lying above its predecessor in column b adds a "must leave
        first" constraint (one of the cards between them must leave). When some card between
        them can leave right now (it is face up and its successor is exposed elsewhere, or it is
        a King, or any card in Wasp, and a column is empty) the new constraint is met from the
        start and the proof of the parent position still holds: no need to run it.
        """
        cols, hidden, col_of, idx_of = self.cols, self.hidden, self.col_of, self.idx_of
        col = cols[b]
        n = len(col)
        h = hidden[b]
        has_empty = -1
        for k in range(base, n):
            g = col[k]
            if not g % 13:
                continue
            w = g - 1
            if col_of[w] != b:
                continue
            iw = idx_of[w]
            if iw >= base:
                continue
            if has_empty < 0:
                has_empty = 1 if any(not c for c in cols) else 0
            for j in range(max(iw + 1, h), k + 1):
                e = col[j]
                if e % 13 == KING or self.wasp:
                    if has_empty:
                        break
                    if self.wasp and e % 13 == KING:
                        continue
                if e % 13 == KING or col[j - 1] == e + 1:
                    continue
                c2 = col_of[e + 1]
                if c2 >= 0 and c2 != b and idx_of[e + 1] == len(cols[c2]) - 1:
                    break
            else:
                return True
        return False

    # -- the loss proof -----------------------------------------------------------------

    def dead_reason(self) -> str:
        """A non-empty reason when the position is proved lost ("must leave first")."""
        return dead_reason_of(self.cols, self.hidden, self.stock, self.wasp)

    def is_dead(self, skip_empty: bool = False) -> bool:
        """``dead_reason() != ""``, computed faster (``skip_empty``: Wasp only, see
        ``fills_stay_alive``).

        In Wasp and Wasp II (``dead_reason_of`` with ``wasp``) the proof can fire only while no
        column is empty and no column's deepest card can ever leave: once E (some column
        empty) is in the fixpoint, every card's leaving is (a face-up card leaves into the
        empty column, M; a face-down one once the card on it has, from the top down), hence
        every join's clauses are met (the cards between a card and its successor above it
        include the successor itself). Before E, a card other than a King leaves only by its
        join and a King only with its run, and a joined card never leaves: Scorpion's
        propagation with no empty column. So the Wasp answer is that propagation, ended as
        "alive" as soon as a deepest card can leave (or at once when a column is empty).
        """
        wasp = self.wasp
        cols, hidden, col_of, idx_of, under = (
            self.cols,
            self.hidden,
            self.col_of,
            self.idx_of,
            self.under,
        )
        ok = [False] * 52
        items: list[_Item] = []
        need = [0, 0, 0, 0]
        covered: list[int] = []  # cards lying on a face-down King or face-down joined card
        bases: list[int] = []
        empty = False
        for ci in range(NUM_COLUMNS):
            col = cols[ci]
            if not col:
                if wasp:
                    if skip_empty:
                        continue
                    return False
                empty = True
                continue
            bases.append(col[0])
            h = hidden[ci]
            for k in range(len(col) - 1, -1, -1):
                x = col[k]
                fd = col[k + 1] if k < h else -1
                if x % 13 == KING:
                    items.append((1, x, fd, -1, None))
                    if fd >= 0:
                        covered.append(fd)
                    continue
                if k and col[k - 1] == x + 1:  # joined: never leaves
                    if fd >= 0:
                        covered.append(fd)
                    continue
                need[x // 13] += 1
                s = x + 1
                if under[s] == _IN_STOCK:
                    items.append((0, x, fd, -1, None))  # its successor's place is unknown
                    continue
                sc = col_of[s]
                si = idx_of[s]
                scol = cols[sc]
                on = scol[si + 1] if si + 1 < len(scol) else -1
                alts: tuple[int, ...] | None = None
                if sc == ci and k < si:
                    alts = tuple(
                        e
                        for j, e in enumerate(col[k + 1 : si + 1], k + 1)
                        if e % 13 == KING or col[j - 1] != e + 1
                    )
                    if not alts and not wasp:  # (in Wasp only until a column is empty)
                        return True
                items.append((0, x, fd, on, alts))
        # Propagation: an item is looked at again only when one of the cards it waits
        # for has become able to leave (or, for a King, an empty column or its run has).
        n_items = len(items)
        waiting: list[list[int]] = [[] for _ in range(52)]
        kings: list[int] = []
        for j, (kind, _x, fd, on, alts) in enumerate(items):
            if fd >= 0:
                waiting[fd].append(j)
            if kind:
                kings.append(j)
                continue
            if on >= 0:
                waiting[on].append(j)
            if alts is not None:
                for e in alts:
                    waiting[e].append(j)
        is_base = [False] * 52
        for c in bases:
            is_base[c] = True
        got = [0, 0, 0, 0]
        okr = [n == 0 for n in need]
        done = [False] * n_items
        left = 0  # cards other than Kings that cannot (yet) join
        for it in items:
            left += it[0] == 0
        stack = list(range(n_items - 1, -1, -1))
        while stack:
            j = stack.pop()
            if done[j]:
                continue
            kind, x, fd, on, alts = items[j]
            if fd >= 0 and not ok[fd]:
                continue
            if kind:
                if not (empty or okr[x // 13]):
                    continue
            else:
                if on >= 0 and not ok[on]:
                    continue
                if alts is not None:
                    for e in alts:
                        if ok[e]:
                            break
                    else:
                        continue
                left -= 1
                su = x // 13
                got[su] += 1
                if got[su] == need[su]:
                    okr[su] = True
                    stack.extend(kings)
            done[j] = True
            ok[x] = True
            stack.extend(waiting[x])
            if not empty and is_base[x]:
                if wasp:
                    return False
                empty = True
                stack.extend(kings)
        if skip_empty:
            index = [-1] * 52
            parted: list[list[tuple[int, int, int]]] = [[] for _ in range(NUM_COLUMNS)]
            unmet = [0] * n_items  # by item: which of its clauses are unmet (bits, see below)
            for j, it in enumerate(items):
                index[it[1]] = j
                if done[j]:
                    continue
                kind, x, fd, on, alts = it
                unmet[j] = (
                    (fd >= 0 and not ok[fd])
                    | (on >= 0 and not ok[on]) << 1
                    | (alts is not None and not any(ok[e] for e in alts)) << 2
                    | (kind and not okr[x // 13]) << 3
                )
                if alts is not None:  # its successor above it, in one column
                    parted[col_of[x]].append((idx_of[x], idx_of[x + 1], j))
            self.fill_state = (
                items,
                index,
                parted,
                unmet,
                waiting,
                kings,
                ok,
                done,
                got,
                need,
                okr,
                is_base,
            )
        if left:
            return True
        return any(not ok[c] for c in covered)

    def fills_stay_alive(self) -> _FillState | None:
        """Wasp, one column empty: None when no move filling it can lead to a position the
        proof of loss calls lost (spare those checks); else where this propagation ended, for
        ``fill_is_dead`` to answer for each such move.

        It is Wasp's proof (``is_dead``) on this position with the empty column left out: the
        events it finds can happen before any column is empty. ``fill_is_dead`` gives the
        move of the group G led by the face-up card x, lying on a card y that is not its
        successor, into the empty column (no run removed: y not an Ace): that move relaxes
        clauses of the propagation and tightens none. Whatever lies on a successor stays
        (but y is bare: the card y - 1 no longer waits for x); the cards between a card and
        its successor above it in one column stay, or, for a card under x whose successor is
        in G, are parted (no clause left); y may turn face up (no longer waiting for x); no
        card is joined or parted from its successor (x did not lie on x + 1), so each run has
        the same cards to join; every deepest card stays one and x becomes one. So the events
        found here are found there too (with x one of the deepest cards: True if any deepest
        card is among them), and the propagation resumed from here with the relaxed clauses
        reaches that position's own fixpoint.
        """
        self.fill_state = None
        if not self.is_dead(skip_empty=True):
            return None
        return self.fill_state

    def fill_is_dead(self, state: _FillState, a: int, i: int) -> bool:
        """Is the position after the move of ``cols[a][i:]`` into the empty column lost by the
        proof (``is_dead``)? ``state``: what ``fills_stay_alive`` returned here. x =
        ``cols[a][i]`` is face up and lies on y = ``cols[a][i - 1]``, not its successor; the
        move removes no run (see ``fills_stay_alive``)."""
        items, index, parted, unmet, waiting, kings, ok, done, got, need, okr, is_base = state
        col = self.cols[a]
        x = col[i]
        if ok[x]:
            return False  # x, a deepest card there, can leave
        y = col[i - 1]
        # the clauses the move drops, by item: 1 y turns face up, 2 y is bare (y - 1 no longer
        # waits for x), 4 a successor in G leaves the column (no card between must leave)
        dropped: dict[int, int] = {}
        j = index[y - 1] if y % 13 else -1
        if j >= 0 and not done[j] and items[j][3] == x:
            dropped[j] = 2
        j = index[y] if i == self.hidden[a] else -1
        if j >= 0 and not done[j]:
            dropped[j] = 1
        for kw, ks, j in parted[a]:
            if kw < i <= ks:
                dropped[j] = dropped.get(j, 0) | 4
        for j, bits in dropped.items():
            if not unmet[j] & ~bits:
                break  # this item's other clauses are met: it happens there
        else:
            return True  # nothing new happens there: the propagation ends where it ended here
        relaxed: dict[int, _Item] = {}
        for j, bits in dropped.items():
            kind, c, fd, on, alts = items[j]
            relaxed[j] = (
                kind,
                c,
                -1 if bits & 1 else fd,
                -1 if bits & 2 else on,
                None if bits & 4 else alts,
            )
        copied = False  # the state is the parent's: copied before the first change
        stack = list(relaxed)
        while stack:
            j = stack.pop()
            if done[j]:
                continue
            kind, c, fd, on, alts = relaxed.get(j) or items[j]
            if fd >= 0 and not ok[fd]:
                continue
            if kind:
                if not okr[c // 13]:
                    continue
            elif (on >= 0 and not ok[on]) or (alts is not None and not any(ok[e] for e in alts)):
                continue
            if is_base[c] or c == x:
                return False  # a deepest card there can leave
            if not copied:
                copied = True
                ok, done, got, okr = ok[:], done[:], got[:], okr[:]
            # the item happens: the same step as ``is_dead``'s, kept inline in both loops (a
            # call per item would cost more than the step)
            if not kind:
                su = c // 13
                got[su] += 1
                if got[su] == need[su]:
                    okr[su] = True
                    stack.extend(kings)
            done[j] = True
            ok[c] = True
            stack.extend(waiting[c])
        return True

    def _fills(self) -> tuple[int, _FillState | None]:
        """``dfs``: what moves filling the last empty column need (its ``fills``)."""
        if sum(not c for c in self.cols) != 1:
            return 3, None
        state = self.fills_stay_alive()
        return (1, None) if state is None else (2, state)

    def _fill(self, state: _FillState | None, a: int, i: int) -> int:
        """``dfs``: the proof after the move of ``cols[a][i:]`` (i > 0) into the last empty
        column, from the parent (1 lost, 0 nothing found), unless a run is removed."""
        col = self.cols[a]
        x = col[i]
        if state is None or (col[i - 1] == x + 1 and x % 13 != KING):
            # nothing to find, or x can join x + 1 again at once (x, a column's deepest card,
            # lies bare at its column's top): a column can be emptied
            return 0
        self.dead_checks += 1
        dead = self.fill_is_dead(state, a, i)
        self.dead_cuts += dead
        return int(dead)

    # -- the search ---------------------------------------------------------------------

    def dfs(self) -> bool:
        """Search from the current position (its key already in ``seen``); True on a win,
        with the winning steps in ``path``."""
        self.nodes += 1
        if not self.nodes & 1023 and (
            self.nodes >= self.max_nodes or self.clock() >= self.deadline
        ):
            raise OutOfBudget
        seen = self.seen
        under = self.under
        path = self.path
        prune = self.prune
        cols = self.cols
        table = _KEY_BEFORE_DEAL if self.stock else _KEY_AFTER_DEAL
        fills = 0  # Wasp, filling the last empty column: 1 no check needed, 2 see
        # ``fill_is_dead``, 3 no such move (``fills_stay_alive``, asked at the first one)
        fill_state: _FillState | None = None
        for a, i, b in self.gen_moves():
            src = cols[a]
            dst = cols[b]
            base = len(dst)
            fill = -1  # the proof after the move: 1 lost, 0 finds nothing, -1 not known
            if not base and i and prune and self.wasp:
                if not fills:
                    fills, fill_state = self._fills()
                if fills < 3:
                    fill = self._fill(fill_state, a, i)
            if src[-1] % 13 and not (i and src[i - 1] % 13 == 0):
                # No run can be removed: the child's key is known without making the move.
                if fill > 0:
                    continue  # lost (not remembered: asking again costs no more)
                k = bytearray(under)
                k[src[i]] = dst[-1] if dst else _BASE + b
                if i and i == self.hidden[a]:
                    k[src[i - 1]] -= _FACE_DOWN
                key = bytes(k).translate(table)
                if key in seen:
                    continue
                rec = self.make_move(a, i, b)
            else:
                rec = self.make_move(a, i, b)
                if self.done == 4:
                    path.append(("move", a, i, b))
                    return True
                if fill >= 0 and rec[5] & 1:  # a run removed: not what ``fill`` is about
                    self.dead_cuts -= fill
                    fill = -1
                key = bytes(under).translate(table)
                if key in seen:
                    if fill > 0:
                        self.dead_cuts -= 1  # not a position of the search
                    self.unmake_move(rec)
                    continue
            seen.add(key)  # a position proved lost is remembered as explored, too
            if fill > 0:
                self.unmake_move(rec)
                continue
            if prune and (
                self.needs_check(b, base)
                or (base == 0 and fill < 0 and all(cols))  # filled the last empty column
            ):
                self.dead_checks += 1
                if self.is_dead():
                    self.dead_cuts += 1
                    self.unmake_move(rec)
                    continue
            path.append(("move", a, i, b))
            if self.dfs():
                return True
            path.pop()
            self.unmake_move(rec)
        if self.stock:
            rec2 = self.make_deal()
            if self.done == 4:
                path.append(("deal",))
                return True
            key = bytes(under).translate(_KEY_AFTER_DEAL)
            if key not in seen:
                seen.add(key)
                dead = False
                if prune:
                    self.dead_checks += 1
                    dead = self.is_dead()
                    self.dead_cuts += dead
                if not dead:
                    path.append(("deal",))
                    if self.dfs():
                        return True
                    path.pop()
            self.unmake_deal(rec2)
        return False


def dead_reason_of(cols: list[list[int]], hidden: list[int], stock: list[int], wasp: bool) -> str:
    """Prove a position lost by the "must leave first" rule; "" when no proof is found.

    Events (each happens at most once, "first time"): J[c] card c joins c + 1 (ids 0-51);
    L[x] card x leaves its place, picked up or removed with its run (52 + x); E some column is
    empty (104); R[s] the run of suit s can be removed (105 + s); M[x] x can be picked up into
    an empty column (wasp only, 109 + x). Each event needs all of its clauses, a clause any one
    of its events, to have happened before it. The events that can ever happen are the least
    fixpoint; a required event outside it proves the position lost. Stock cards are unknown
    places: events that involve them are left unconstrained.
    """
    n_ev = 161
    clauses: list[list[int]] = []  # each clause: the events any one of which satisfies it
    owner: list[int] = []  # clause -> event
    exists = [False] * n_ev
    col_of = [-1] * 52
    idx_of = [-1] * 52
    for ci, col in enumerate(cols):
        for k, card in enumerate(col):
            col_of[card] = ci
            idx_of[card] = k
    in_stock = [False] * 52
    for card in stock:
        in_stock[card] = True

    def add(ev: int, alts: list[int]) -> None:
        clauses.append(alts)
        owner.append(ev)

    any_empty = any(not col for col in cols)
    required: list[int] = []
    for ci, col in enumerate(cols):
        h = hidden[ci]
        for k, x in enumerate(col):
            above = col[k + 1] if k + 1 < len(col) else -1
            fd = k < h
            lx = 52 + x
            exists[lx] = True
            king = x % 13 == KING
            joined = not king and k > 0 and col[k - 1] == x + 1
            if fd and above >= 0:
                # a face-down card needs the card on it to leave (it always has one)
                required.append(52 + above)
            if not king and not joined:
                # J[x]
                exists[x] = True
                required.append(x)
                s = x + 1
                if fd and above >= 0:
                    add(x, [52 + above])
                if not in_stock[s]:
                    sc = col_of[s]
                    si = idx_of[s]
                    sc_col = cols[sc]
                    if si + 1 < len(sc_col):
                        add(x, [52 + sc_col[si + 1]])
                    if sc == ci and k < si:
                        alts = []
                        for e in sc_col[k + 1 : si + 1]:
                            # a joined card (on its successor) never leaves, but in Wasp
                            if (
                                e % 13 == KING
                                or wasp
                                or not (col_of[e + 1] == sc and idx_of[e + 1] == idx_of[e] - 1)
                            ):
                                alts.append(52 + e)
                        add(x, alts)
                # L[x]
                if wasp:
                    mx = 109 + x
                    exists[mx] = True
                    if fd and above >= 0:
                        add(mx, [52 + above])
                    add(mx, [104])
                    add(lx, [x, mx])
                else:
                    add(lx, [x])
            elif king:
                if fd and above >= 0:
                    add(lx, [52 + above])
                add(lx, [104, 105 + x // 13])
            else:  # joined, not a King
                if wasp:
                    if fd and above >= 0:
                        add(lx, [52 + above])
                    add(lx, [104])
                else:
                    add(lx, [])  # never leaves (its run would need it face up, on its place)
    # R[s]: every card of the suit joined (stock cards: unknown, unconstrained)
    for s in range(4):
        r = 105 + s
        exists[r] = True
        for x in range(s * 13, s * 13 + 12):
            if exists[x]:
                add(r, [x])
    # E: some column empty
    exists[104] = True
    if not any_empty:
        add(104, [52 + col[0] for col in cols])
    ok = least_fixpoint(n_ev, owner, clauses, exists)
    for ev in required:
        if not ok[ev]:
            if ev < 52:
                from ..cards import code

                return f"{code(ev)} can never join {code(ev + 1)}"
            from ..cards import code

            return f"a face-down card stays covered by {code(ev - 52)} for good"
    return ""


def solve(
    pos: Position,
    *,
    max_seconds: float | None = 10.0,
    max_nodes: int | None = None,
    prune: bool = True,
    clock: Clock = WALL_TIME,
    proved: bool = False,
) -> SearchResult:
    """Search ``pos``. The line of a win is NOT verified here (``app.engine.solver.api`` does).
    ``proved``: the caller already tried the proof of loss on ``pos``."""
    s = PlainSearch(pos, prune)
    return run_search(
        s,
        max_seconds,
        max_nodes,
        won=s.done == 4,
        prove=prune and not proved,
        stats=lambda: _stats(s),
        clock=clock,
    )


def run_search(
    s: Searcher,
    max_seconds: float | None,
    max_nodes: int | None,
    *,
    won: bool,
    prove: bool,
    stats: Callable[[], dict[str, int]],
    clock: Clock = WALL_TIME,
) -> SearchResult:
    """Run a search from its start: already won, proved lost at once (``prove``: the position's
    ``dead_reason``), or the depth-first search within the budget (``max_seconds`` counted by
    ``clock``, which also times the result); a path deeper than the stack allows ends
    undecided, like a spent budget."""
    start = clock()
    s.clock = clock
    s.deadline = start + (max_seconds if max_seconds is not None else 1e12)
    s.max_nodes = max_nodes if max_nodes is not None else 1 << 62
    if won:
        return SearchResult("win", [], 0, 0.0)
    if prove:
        reason = s.dead_reason()
        if reason:
            return SearchResult("loss", None, 0, clock() - start, reason)
    s.seen.add(s.key())
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50_000))  # a path holds one frame per step
    try:
        found = s.dfs()
    except (OutOfBudget, RecursionError):
        return SearchResult("unknown", None, s.nodes, clock() - start, stats=stats())
    finally:
        sys.setrecursionlimit(limit)
    elapsed = clock() - start
    if found:
        return SearchResult("win", list(s.path), s.nodes, elapsed, stats=stats())
    return SearchResult("loss", None, s.nodes, elapsed, "search", stats=stats())


def _stats(s: PlainSearch) -> dict[str, int]:
    return {"seen": len(s.seen), "dead_checks": s.dead_checks, "dead_cuts": s.dead_cuts}


def dead_reason(pos: Position) -> str:
    """Why ``pos`` is lost by the "must leave first" rule ("" if the rule proves nothing)."""
    return dead_reason_of(
        [list(c) for c in pos.cols],
        list(pos.hidden),
        list(pos.stock),
        pos.variant.empty_accepts_any,
    )
