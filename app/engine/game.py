"""The Scorpion game: a position, the actions on it, and its history.

A game is its deal plus its action log; the position after every step is a pure function
of the two (``Game.replay``). For speed, a ``Game`` is mutated in place and keeps, for
each step taken, a small *step record* of the step's automatic consequences (reveals and
removed runs) so that undo restores the earlier arrangement exactly without replaying.
``to_snapshot`` writes the whole state (position, undo and redo stacks) in a compact,
versioned form the server stores, so applying the next action never replays the log.

Columns are numbered 0-6 (column 1 of RULES.md is column 0 here). Within a column, index
0 is the deepest card. The face-down cards of a column are always its deepest ones, so a
column's face-down part is just a count: ``hidden[c]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, NamedTuple

from .cards import KING, SUITS, Card, code, name, run_of
from .deals import Deal, check_deal
from .errors import (
    GameFinished,
    IllegalMove,
    NothingToRedo,
    NothingToUndo,
    SnapshotError,
    StockEmpty,
)
from .variants import Variant, get_variant

NUM_COLUMNS = 7
STOCK_COLUMNS = 3  # the deal reaches columns 0, 1, 2
SNAPSHOT_VERSION = 1

# Completed runs, indexed by suit: King (deepest) down to Ace.
_RUNS = tuple(run_of(s) for s in range(4))


class Move(NamedTuple):
    """Pick up the card at ``from_index`` of ``from_column`` (and all on it) for ``to_column``."""

    from_column: int
    from_index: int
    to_column: int


# Builds a Move without the keyword handling of the NamedTuple constructor (hot path).
_new_move = tuple.__new__

# An action of the log: ("move", from_column, from_index, to_column), ("deal",),
# ("undo",) or ("redo",).
Action = tuple[str, ...] | tuple[str, int, int, int]

Status = Literal["playing", "won"]

# Step records (packed ints) -------------------------------------------------------------
# bit 0: kind (0 move, 1 deal).
# move: bits 1-3 from_column, 4-9 from_index, 10-12 to_column, 13-18 count,
#       bit 19 run removed from source, 20 reveal in source,
#       bit 21 run removed from target, 22 reveal in target.
# deal: bits 1-6: for columns 0,1,2 a pair (run removed, reveal).


def _pack_move(a: int, i: int, b: int, n: int, sr: int, sv: int, tr: int, tv: int) -> int:
    return (
        (a << 1)
        | (i << 4)
        | (b << 10)
        | (n << 13)
        | (sr << 19)
        | (sv << 20)
        | (tr << 21)
        | (tv << 22)
    )


@dataclass(frozen=True, slots=True)
class PublicView:
    """What a player may see of a game: no face-down or stock card identity, ever.

    This is the only thing the web layer renders or serialises.
    """

    variant: str
    columns: list[list[str | None]]  # card codes; None for a face-down card
    stock: int
    completed: list[str]  # suit letters of removed runs, in removal order
    moves: int
    can_undo: bool
    can_redo: bool
    status: Status


class Game:
    """A game of Scorpion (or one of its variants) in progress."""

    __slots__ = (
        "variant",
        "cols",
        "hidden",
        "stock",
        "completed",
        "history",
        "future",
        "where_col",
        "where_idx",
    )

    def __init__(self, variant: Variant, deal: Deal) -> None:
        check_deal(deal)
        self.variant = variant
        self.cols: list[list[Card]] = [list(deal[7 * c : 7 * c + 7]) for c in range(NUM_COLUMNS)]
        self.hidden: list[int] = list(variant.face_down)
        self.stock: list[Card] = list(deal[49:52])
        self.completed: list[int] = []
        self.history: list[int] = []  # step records of steps taken, oldest first
        self.future: list[int] = []  # step records of undone steps, next redo last
        self.where_col: list[int] = [-1] * 52
        self.where_idx: list[int] = [-1] * 52
        self._index_all()

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new(cls, variant: str | Variant, deal: Deal) -> Game:
        v = get_variant(variant) if isinstance(variant, str) else variant
        return cls(v, deal)

    @classmethod
    def replay(cls, variant: str | Variant, deal: Deal, actions: list[Action]) -> Game:
        """The game after applying ``actions`` in order to the opening layout of ``deal``."""
        game = cls.new(variant, deal)
        for action in actions:
            game.apply(action)
        return game

    def _index_all(self) -> None:
        wc, wi = self.where_col, self.where_idx
        for c in range(52):
            wc[c] = -1
            wi[c] = -1
        for ci, col in enumerate(self.cols):
            for i, card in enumerate(col):
                wc[card] = ci
                wi[card] = i

    # -- state --------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        return "won" if len(self.completed) == 4 else "playing"

    @property
    def won(self) -> bool:
        return len(self.completed) == 4

    @property
    def moves(self) -> int:
        """Steps taken (moves and the deal), net of undo."""
        return len(self.history)

    @property
    def can_undo(self) -> bool:
        return bool(self.history) and not self.won

    @property
    def can_redo(self) -> bool:
        return bool(self.future) and not self.won

    @property
    def can_deal(self) -> bool:
        return bool(self.stock) and not self.won

    # -- actions ------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action of the log."""
        kind = action[0]
        if kind == "move":
            _, a, i, b = action
            self.move(int(a), int(i), int(b))
        elif kind == "deal":
            self.deal()
        elif kind == "undo":
            self.undo()
        elif kind == "redo":
            self.redo()
        else:
            raise ValueError(f"unknown action {kind!r}")

    def check_move(self, a: int, i: int, b: int) -> None:
        """Raise ``IllegalMove`` (or ``GameFinished``) unless the move is legal."""
        if self.won:
            raise GameFinished("This game is won and finished: start a new game.")
        cols = self.cols
        if not (0 <= a < NUM_COLUMNS and 0 <= b < NUM_COLUMNS):
            raise IllegalMove("There is no such column: columns are numbered 0 to 6.")
        src = cols[a]
        if not 0 <= i < len(src):
            if not src:
                raise IllegalMove(f"Column {a + 1} is empty: there is no card to pick up.")
            raise IllegalMove(f"Column {a + 1} has no card at position {i}.")
        if i < self.hidden[a]:
            raise IllegalMove("A face-down card cannot be moved.")
        if a == b:
            raise IllegalMove("The card is already in that column.")
        card = src[i]
        dst = cols[b]
        if not dst:
            if self.variant.empty_accepts_any or card % 13 == KING:
                return
            raise IllegalMove(
                f"Only a King, or a group led by a King, can go into an empty column; "
                f"the {name(card)} cannot."
            )
        if card % 13 == KING:
            raise IllegalMove(
                f"The {name(card)} cannot go on another card: a King can only move to an "
                f"empty column."
            )
        if dst[-1] != card + 1:
            raise IllegalMove(
                f"The {name(card)} can only go on the {name(card + 1)}, not on the {name(dst[-1])}."
            )

    def move(self, a: int, i: int, b: int) -> None:
        """Move the card at index ``i`` of column ``a``, with all on it, to column ``b``."""
        self.check_move(a, i, b)
        self.history.append(self._do_move(a, i, b))
        self.future.clear()

    def _do_move(self, a: int, i: int, b: int) -> int:
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        src, dst = cols[a], cols[b]
        group = src[i:]
        del src[i:]
        base = len(dst)
        dst.extend(group)
        for k, card in enumerate(group, base):
            wc[card] = b
            wi[card] = k
        # Source: a face-down card left exposed turns up; or a run left at the open end goes.
        sr = sv = 0
        if src:
            if len(src) == hidden[a]:
                hidden[a] -= 1
                sv = 1
            elif self._remove_run(a):
                sr = 1
                if src and len(src) == hidden[a]:
                    hidden[a] -= 1
                    sv = 1
        tr = tv = 0
        if self._remove_run(b):
            tr = 1
            if dst and len(dst) == hidden[b]:
                hidden[b] -= 1
                tv = 1
        return _pack_move(a, i, b, len(group), sr, sv, tr, tv)

    def _remove_run(self, c: int) -> bool:
        """Remove a completed run at the open end of column ``c``; True if there was one."""
        col = self.cols[c]
        n = len(col)
        if n < 13 or col[-1] % 13 != 0 or n - 13 < self.hidden[c]:
            return False
        suit = col[-1] // 13
        if col[-13:] != _RUNS[suit]:
            return False
        del col[-13:]
        wc, wi = self.where_col, self.where_idx
        for card in _RUNS[suit]:
            wc[card] = -1
            wi[card] = -1
        self.completed.append(suit)
        return True

    def _restore_run(self, c: int) -> None:
        suit = self.completed.pop()
        col = self.cols[c]
        base = len(col)
        col.extend(_RUNS[suit])
        wc, wi = self.where_col, self.where_idx
        for k, card in enumerate(_RUNS[suit], base):
            wc[card] = c
            wi[card] = k

    def deal(self) -> None:
        """Deal the stock: one face-up card onto each of columns 0, 1, 2, in order."""
        if self.won:
            raise GameFinished("This game is won and finished: start a new game.")
        if not self.stock:
            raise StockEmpty("The stock is empty: its cards have already been dealt.")
        self.history.append(self._do_deal())
        self.future.clear()

    def _do_deal(self) -> int:
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        for c, card in enumerate(self.stock):
            wc[card] = c
            wi[card] = len(cols[c])
            cols[c].append(card)
        self.stock = []
        rec = 1
        for c in range(STOCK_COLUMNS):
            if self._remove_run(c):
                rec |= 1 << (1 + 2 * c)
                if cols[c] and len(cols[c]) == hidden[c]:
                    hidden[c] -= 1
                    rec |= 1 << (2 + 2 * c)
        return rec

    def undo(self) -> None:
        """Step back one step; a card revealed by it turns face down again."""
        if self.won:
            raise GameFinished("This game is won and finished: it cannot be undone.")
        if not self.history:
            raise NothingToUndo("There is nothing to undo: this is the opening layout.")
        rec = self.history.pop()
        self._undo_record(rec)
        self.future.append(rec)

    def _undo_record(self, rec: int) -> None:
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        if rec & 1:  # deal
            for c in range(STOCK_COLUMNS - 1, -1, -1):
                if rec >> (2 + 2 * c) & 1:
                    hidden[c] += 1
                if rec >> (1 + 2 * c) & 1:
                    self._restore_run(c)
            stock = [cols[c].pop() for c in range(STOCK_COLUMNS)]
            for card in stock:
                wc[card] = -1
                wi[card] = -1
            self.stock = stock
            return
        a = rec >> 1 & 7
        b = rec >> 10 & 7
        n = rec >> 13 & 63
        if rec >> 22 & 1:
            hidden[b] += 1
        if rec >> 21 & 1:
            self._restore_run(b)
        if rec >> 20 & 1:
            hidden[a] += 1
        if rec >> 19 & 1:
            self._restore_run(a)
        dst, src = cols[b], cols[a]
        group = dst[-n:]
        del dst[-n:]
        base = len(src)
        src.extend(group)
        for k, card in enumerate(group, base):
            wc[card] = a
            wi[card] = k

    def redo(self) -> None:
        """Take again the step that the last undo took back."""
        if self.won:
            raise GameFinished("This game is won and finished: start a new game.")
        if not self.future:
            raise NothingToRedo("There is nothing to redo.")
        rec = self.future.pop()
        if rec & 1:
            self.history.append(self._do_deal())
        else:
            self.history.append(self._do_move(rec >> 1 & 7, rec >> 4 & 63, rec >> 10 & 7))

    # -- help ---------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, useful or not, ordered by (to_column, from_column, from_index)."""
        return self._moves(useful_only=False)

    def hints(self) -> list[Move]:
        """Every legal, useful move (RULES.md, "Help for the player").

        Moving a whole column into an empty column only changes which column the deal will
        reach: it is offered only while the stock holds cards and one of the two columns is
        among the first three.
        """
        return self._moves(useful_only=True)

    def _moves(self, useful_only: bool) -> list[Move]:
        if len(self.completed) == 4:
            return []
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        out: list[Move] = []
        empties: list[int] = []
        for t in range(NUM_COLUMNS):
            dst = cols[t]
            if not dst:
                empties.append(t)
                continue
            top = dst[-1]
            if top % 13 == 0:
                continue  # nothing lands on an Ace
            p = top - 1
            c = wc[p]
            if c >= 0 and c != t:
                i = wi[p]
                if i >= hidden[c]:
                    out.append(_new_move(Move, (c, i, t)))
        if empties:
            stock_left = bool(self.stock)
            if self.variant.empty_accepts_any:
                leaders = [
                    (c, i) for c in range(NUM_COLUMNS) for i in range(hidden[c], len(cols[c]))
                ]
            else:
                leaders = []
                for s in range(4):
                    k = s * 13 + KING
                    c = wc[k]
                    if c >= 0 and wi[k] >= hidden[c]:
                        leaders.append((c, wi[k]))
            for t in empties:
                for c, i in leaders:
                    if c == t:
                        continue
                    if (
                        i == 0
                        and useful_only
                        and not (stock_left and (c < STOCK_COLUMNS or t < STOCK_COLUMNS))
                    ):
                        continue
                    out.append(_new_move(Move, (c, i, t)))
        return out

    @property
    def stuck(self) -> bool:
        """True when no useful move is left and the stock is empty (or the game is won)."""
        return not self.can_deal and not self.hints()

    # -- views and storage --------------------------------------------------------------

    def public_view(self) -> PublicView:
        cols: list[list[str | None]] = []
        for ci, col in enumerate(self.cols):
            h = self.hidden[ci]
            cols.append([None if k < h else code(card) for k, card in enumerate(col)])
        return PublicView(
            variant=self.variant.name,
            columns=cols,
            stock=len(self.stock),
            completed=[SUITS[s] for s in self.completed],
            moves=len(self.history),
            can_undo=self.can_undo,
            can_redo=self.can_redo,
            status=self.status,
        )

    def position_key(self) -> tuple[object, ...]:
        """Everything that makes up the position (not the history), for comparisons."""
        return (
            self.variant.name,
            tuple(tuple(c) for c in self.cols),
            tuple(self.hidden),
            tuple(self.stock),
            tuple(self.completed),
        )

    def to_snapshot(self) -> str:
        """A compact, versioned serialisation of the whole game state (stable across versions)."""
        return json.dumps(
            {
                "v": SNAPSHOT_VERSION,
                "variant": self.variant.name,
                "cols": self.cols,
                "hidden": self.hidden,
                "stock": self.stock,
                "done": self.completed,
                "hist": self.history,
                "fut": self.future,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_snapshot(cls, snapshot: str) -> Game:
        """Rebuild a game from ``to_snapshot`` output."""
        try:
            data = json.loads(snapshot)
            if not isinstance(data, dict):
                raise SnapshotError("a snapshot is a JSON object")
            if data.get("v") != SNAPSHOT_VERSION:
                raise SnapshotError(f"unknown snapshot version {data.get('v')!r}")
            game = cls.__new__(cls)
            game.variant = get_variant(data["variant"])
            game.cols = [list(map(int, c)) for c in data["cols"]]
            game.hidden = list(map(int, data["hidden"]))
            game.stock = list(map(int, data["stock"]))
            game.completed = list(map(int, data["done"]))
            game.history = list(map(int, data["hist"]))
            game.future = list(map(int, data["fut"]))
        except SnapshotError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SnapshotError(f"unreadable snapshot: {exc}") from exc
        if len(game.cols) != NUM_COLUMNS or len(game.hidden) != NUM_COLUMNS:
            raise SnapshotError("a snapshot holds seven columns")
        cards = sorted(
            [c for col in game.cols for c in col]
            + game.stock
            + [c for s in game.completed for c in _RUNS[s]]
        )
        if cards != list(range(52)):
            raise SnapshotError("a snapshot holds each card exactly once")
        game.where_col = [-1] * 52
        game.where_idx = [-1] * 52
        game._index_all()
        return game

    def copy(self) -> Game:
        return Game.from_snapshot(self.to_snapshot())

    def all_cards(self) -> list[Card]:
        """Every card of the game wherever it is (columns, stock, removed runs)."""
        return (
            [c for col in self.cols for c in col]
            + list(self.stock)
            + [c for s in self.completed for c in _RUNS[s]]
        )
