"""The Scorpion game: a position, the actions on it, and its history.

A game is its deal plus its action log; the position after every step is a pure function
of the two (``Game.replay``). For speed, a ``Game`` is mutated in place and keeps, for
each step taken, a small *step record* of the step's automatic consequences (reveals and
removed runs) so that undo restores the earlier arrangement exactly without replaying.
``to_snapshot`` writes the whole state (position, undo and redo stacks) in a compact,
versioned form the server stores, so applying the next action never replays the log.

Columns are numbered from 0 (column 1 of RULES.md is column 0 here). Within a column, index
0 is the deepest card. The face-down cards of a column are always its deepest ones, so a
column's face-down part is just a count: ``hidden[c]``.

Every variant of the family is data (``Variant``): the number of decks and columns, the
heights and face-down counts, the stock, reserves and free cells, same-suit or alternate-colour
building. Reserves (``reserve``) and cells (``cells``) are lists of slots holding a card or -1
(empty). Identical cards of two or three decks are told apart by physical ids (``cards.py``);
card codes never say which deck.

Piles: a move names its source and target piles as in API.md's ``from_pile``/``to_pile``
(``"column"``, ``"reserve"``, ``"cell"``), each kind numbered from 0. A column-to-column move
is a plain ``Move`` (three fields, as always); a move from or to a reserve or cell is a
``PileMove`` (a ``Move`` with ``from_pile`` and ``to_pile`` as two more fields). Both carry
``from_pile``/``to_pile`` attributes, and ``game.move(*m)`` and ``("move", *m)`` work for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, cast

import orjson

from .cards import CODES, KING, RANK_NAMES, RUNS, SUITS, Card, is_red, name
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

NUM_COLUMNS = 7  # the base game's columns (a variant's own count: ``Variant.columns``)
STOCK_COLUMNS = 3  # the base game's deal reaches columns 0, 1, 2
SNAPSHOT_VERSION = 1
PILES = ("column", "reserve", "cell")
# Where a card lies (``where_col``): a column index >= 0, or one of these.
_GONE = -1  # in the stock or in a removed run
_IN_RESERVE = -2
_IN_CELL = -3


class Move(NamedTuple):
    """Pick up the card at ``from_index`` of ``from_column`` (and all on it) for ``to_column``.

    A column-to-column move. Moves from or to a reserve or a cell are ``PileMove``s.
    """

    from_column: int
    from_index: int
    to_column: int

    @property
    def from_pile(self) -> str:
        return "column"

    @property
    def to_pile(self) -> str:
        return "column"


class PileMove(Move):
    """A move from a reserve or cell, or to a cell: ``Move``'s three fields then the piles.

    ``from_column``/``to_column`` number the pile's own kind from 0; ``from_index`` is 0 for a
    reserve or cell (and the exposed card's index for a column). As a tuple it is
    ``(from_column, from_index, to_column, from_pile, to_pile)``, so ``game.move(*m)`` and
    ``("move", *m)`` work for it as for a ``Move``.
    """

    __slots__ = ()

    def __new__(
        cls, from_column: int, from_index: int, to_column: int, from_pile: str, to_pile: str
    ) -> PileMove:
        return tuple.__new__(cls, (from_column, from_index, to_column, from_pile, to_pile))

    @property
    def from_pile(self) -> str:
        return cast(str, tuple.__getitem__(self, 3))

    @property
    def to_pile(self) -> str:
        return cast(str, tuple.__getitem__(self, 4))

    def __repr__(self) -> str:
        return (
            f"PileMove(from_column={self.from_column!r}, from_index={self.from_index!r}, "
            f"to_column={self.to_column!r}, from_pile={self.from_pile!r}, "
            f"to_pile={self.to_pile!r})"
        )

    def _asdict(self) -> dict[str, Any]:
        return dict(zip((*Move._fields, "from_pile", "to_pile"), self, strict=True))

    def __getnewargs__(self) -> tuple[Any, ...]:  # type: ignore[override]
        return tuple(self)


def pile_move(
    from_pile: str, from_column: int, from_index: int, to_pile: str, to_column: int
) -> Move:
    """The move between two piles: a plain ``Move`` when both are columns, else a ``PileMove``."""
    if from_pile == "column" and to_pile == "column":
        return Move(from_column, from_index, to_column)
    return PileMove(from_column, from_index, to_column, from_pile, to_pile)


# Builds a Move without the keyword handling of the NamedTuple constructor (hot path).
_new_move = tuple.__new__

# An action of the log: ("move", from_column, from_index, to_column), ("deal",),
# ("undo",) or ("redo",); a move from or to a reserve or cell:
# ("move", from_column, from_index, to_column, from_pile, to_pile) (that is, ("move", *m)).
Action = tuple[str, ...] | tuple[str, int, int, int] | tuple[str, int, int, int, str, str]

Status = Literal["playing", "won"]

# Step records (packed ints) -------------------------------------------------------------
# bit 0: kind (0 move, 1 deal).
# move: bits 1-3 from_column, 4-9 from_index, 10-12 to_column, 13-18 count,
#       bit 19 run removed from source, 20 reveal in source,
#       bit 21 run removed from target, 22 reveal in target;
#       (the family) bits 23-24 from_pile (0 column, 1 reserve, 2 cell), 25-26 to_pile,
#       27-28 from_column >> 3, 29-30 to_column >> 3, 31-33 from_index >> 6, 34-36 count >> 6
#       (all zero in the base game, whose records are unchanged).
#       bits 37-40 / 41-44: further runs removed from source / target (a completed run
#       that the removal of another one left at the open end goes too).
# deal: for each stock column k, bit 1 + 2k run removed, bit 2 + 2k reveal, bits 40 + 4k to
#       43 + 4k further runs removed.
_PILE_CODE = {"column": 0, "reserve": 1, "cell": 2}


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


def _pack_wide(a: int, i: int, b: int, n: int, fp: int, tp: int) -> int:
    """The family's extension bits of a move record (0 for every base-game move)."""
    return (
        (fp << 23)
        | (tp << 25)
        | ((a >> 3) << 27)
        | ((b >> 3) << 29)
        | ((i >> 6) << 31)
        | ((n >> 6) << 34)
    )


def _pack_more(sr: int, tr: int) -> int:
    """The bits of a move record for runs removed beyond the first (``sr``, ``tr``: how many
    runs went from the source and the target; 0 in nearly every move)."""
    more = 0
    if sr > 1:
        more |= (sr - 1) << 37
    if tr > 1:
        more |= (tr - 1) << 41
    return more


def _unpack(rec: int) -> tuple[int, int, int, int, int, int]:
    """(from_column, from_index, to_column, count, from_pile, to_pile) of a move record."""
    a = (rec >> 1 & 7) | (rec >> 27 & 3) << 3
    i = (rec >> 4 & 63) | (rec >> 31 & 7) << 6
    b = (rec >> 10 & 7) | (rec >> 29 & 3) << 3
    n = (rec >> 13 & 63) | (rec >> 34 & 7) << 6
    return a, i, b, n, rec >> 23 & 3, rec >> 25 & 3


class _Rules:
    """A variant's rules as lookup tables, built once per variant (internal)."""

    __slots__ = ("feeders", "kings", "run_mode", "ncards")

    def __init__(self, v: Variant) -> None:
        n = 52 * v.decks
        self.ncards = n
        feeders: list[tuple[int, ...]] = []
        for top in range(n):
            rank = top % 13
            if rank == 0:
                feeders.append(())
                continue
            suit = top // 13 % 4
            if v.alternate:
                suits = [s for s in range(4) if is_red(s * 13) != is_red(top)]
            else:
                suits = [suit]
            feeders.append(tuple(d * 52 + s * 13 + rank - 1 for s in suits for d in range(v.decks)))
        self.feeders = tuple(feeders)
        self.kings = tuple(d * 52 + s * 13 + KING for s in range(4) for d in range(v.decks))
        # 0: one deck, same suit (cards compared as they are); 1: same suit, several decks
        # (compared modulo 52); 2: alternate colours.
        self.run_mode = 2 if v.alternate else (1 if v.decks > 1 else 0)


_RULES: dict[str, _Rules] = {}


def _rules(v: Variant) -> _Rules:
    r = _RULES.get(v.name)
    if r is None:
        r = _RULES[v.name] = _Rules(v)
    return r


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
    # The family (API.md, "Extensions"): face-up reserve and cell cards (None for an empty
    # slot; empty lists where the variant has none) and the runs that win.
    reserves: list[str | None] = field(default_factory=list)
    cells: list[str | None] = field(default_factory=list)
    runs_needed: int = 4


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
        "reserve",
        "cells",
        "runs",
        "ncols",
        "nstock",
        "runs_needed",
        "_feeders",
        "_kings",
        "_run_mode",
        "_wide",
    )

    def __init__(self, variant: Variant, deal: Deal) -> None:
        check_deal(deal, variant.decks)
        self._setup(variant)
        # Physical ids: the k-th copy of a card (in deal order) belongs to deck k.
        if variant.decks == 1:
            cards = list(deal)
        else:
            copies = [0] * 52
            cards = []
            for card in deal:
                cards.append(card + 52 * copies[card])
                copies[card] += 1
        cols: list[list[Card]] = []
        pos = 0
        for h in variant.heights:
            cols.append(cards[pos : pos + h])
            pos += h
        self.cols = cols
        self.hidden: list[int] = list(variant.face_down)
        dealt = cards[pos : pos + variant.dealt_reserves]
        pos += variant.dealt_reserves
        if variant.cells_start_full:
            self.reserve: list[int] = []
            self.cells: list[int] = dealt + [-1] * (variant.cells - len(dealt))
        else:
            self.reserve = dealt
            self.cells = [-1] * variant.cells
        self.stock: list[Card] = cards[pos:]
        self.completed: list[int] = []
        self.runs: list[tuple[Card, ...]] = []  # the cards of removed runs, in removal order
        self.history: list[int] = []  # step records of steps taken, oldest first
        self.future: list[int] = []  # step records of undone steps, next redo last
        self._index_all()

    def _setup(self, variant: Variant) -> None:
        rules = _rules(variant)
        self.variant = variant
        self.ncols = variant.columns
        self.nstock = variant.stock
        self.runs_needed = variant.runs_needed
        self._feeders = rules.feeders
        self._kings = rules.kings
        self._run_mode = rules.run_mode
        # Step records need the family's extension bits (more than 8 columns or 64 cards).
        self._wide = variant.columns > 8 or variant.decks > 1

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
        n = 52 * self.variant.decks
        wc = self.where_col = [_GONE] * n
        wi = self.where_idx = [-1] * n
        for ci, col in enumerate(self.cols):
            for i, card in enumerate(col):
                wc[card] = ci
                wi[card] = i
        for k, card in enumerate(self.reserve):
            if card >= 0:
                wc[card] = _IN_RESERVE
                wi[card] = k
        for k, card in enumerate(self.cells):
            if card >= 0:
                wc[card] = _IN_CELL
                wi[card] = k

    # -- state --------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        return "won" if len(self.completed) == self.runs_needed else "playing"

    @property
    def won(self) -> bool:
        return len(self.completed) == self.runs_needed

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
            if len(action) == 6:
                self.move(
                    int(action[1]),
                    int(action[2]),
                    int(action[3]),
                    str(action[4]),
                    str(action[5]),
                )
            else:
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

    def _no_column(self) -> IllegalMove:
        return IllegalMove(f"There is no such column: columns are numbered 0 to {self.ncols - 1}.")

    def check_move(
        self, a: int, i: int, b: int, from_pile: str = "column", to_pile: str = "column"
    ) -> None:
        """Raise ``IllegalMove`` (or ``GameFinished``) unless the move is legal."""
        if from_pile != "column" or to_pile != "column":
            self._check_pile_move(from_pile, a, i, to_pile, b)
        else:
            self._check_columns(a, i, b)

    def _check_columns(self, a: int, i: int, b: int) -> None:
        self._refuse_if_won()
        cols = self.cols
        n = self.ncols
        if not (0 <= a < n and 0 <= b < n):
            raise self._no_column()
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
        if dst:
            if card % 13 != KING and card in self._feeders[dst[-1]]:
                return
        elif card % 13 == KING or self.variant.empty_accepts_any:
            return
        self._check_landing(card, b, "group")

    def _check_landing(self, card: int, b: int, what: str) -> None:
        """Raise ``IllegalMove`` unless ``card`` (leading a group) may land on column ``b``."""
        dst = self.cols[b]
        if not dst:
            if self.variant.empty_accepts_any or card % 13 == KING:
                return
            led = ", or a group led by a King," if what == "group" else ""
            raise IllegalMove(
                f"Only a King{led} can go into an empty column; the {name(card)} cannot."
            )
        if card % 13 == KING:
            raise IllegalMove(
                f"The {name(card)} cannot go on another card: a King can only move to an "
                f"empty column."
            )
        top = dst[-1]
        if card not in self._feeders[top]:
            if self.variant.alternate:
                colour = "black" if is_red(card) else "red"
                raise IllegalMove(
                    f"The {name(card)} can only go on a {colour} {RANK_NAMES[card % 13 + 1]}, "
                    f"not on the {name(top)}."
                )
            raise IllegalMove(
                f"The {name(card)} can only go on the {name(card + 1)}, not on the {name(top)}."
            )

    def _check_pile_move(self, fp: str, a: int, i: int, tp: str, b: int) -> None:
        self._refuse_if_won()
        for pile in (fp, tp):
            if pile not in PILES:
                raise IllegalMove(
                    f"There is no pile called {pile!r}: a pile is a column, a reserve or a cell."
                )
        if tp == "reserve":
            raise IllegalMove("Nothing can ever be put onto a reserve card.")
        if (fp == "reserve") and not self.reserve:
            raise IllegalMove(f"{self.variant.title} has no reserve cards.")
        if "cell" in (fp, tp) and not self.cells:
            raise IllegalMove(f"{self.variant.title} has no free cells.")
        if fp == "column":  # to a cell
            if not 0 <= a < self.ncols:
                raise self._no_column()
            src = self.cols[a]
            if not src:
                raise IllegalMove(f"Column {a + 1} is empty: there is no card to pick up.")
            if not 0 <= i < len(src):
                raise IllegalMove(f"Column {a + 1} has no card at position {i}.")
            if i != len(src) - 1:
                raise IllegalMove(
                    "Only the exposed card of a column, alone, can go into a free cell."
                )
            if not 0 <= b < len(self.cells):
                raise IllegalMove(
                    f"There is no such free cell: cells are numbered 0 to {len(self.cells) - 1}."
                )
            if self.cells[b] >= 0:
                raise IllegalMove(f"Free cell {b + 1} already holds a card: a cell holds one.")
            return
        slots = self.reserve if fp == "reserve" else self.cells
        label = "reserve" if fp == "reserve" else "free cell"
        if not 0 <= a < len(slots):
            raise IllegalMove(f"There is no such {label}: they are numbered 0 to {len(slots) - 1}.")
        if i != 0:
            raise IllegalMove(f"A {label} holds one card: its index is 0.")
        card = slots[a]
        if card < 0:
            raise IllegalMove(f"The {label} {a + 1} is empty: there is no card to pick up.")
        if tp == "cell":
            if fp == "cell":
                raise IllegalMove("A card never moves from one free cell to another.")
            raise IllegalMove("A reserve card can only be played onto the tableau.")
        if not 0 <= b < self.ncols:
            raise self._no_column()
        self._check_landing(card, b, "card")

    def move(
        self,
        from_column: int,
        from_index: int,
        to_column: int,
        from_pile: str = "column",
        to_pile: str = "column",
    ) -> None:
        """Move the card at ``from_index`` of a pile, with all on it, to another pile.

        Without piles: the card at index ``from_index`` of column ``from_column`` with all on
        it, to column ``to_column``. ``from_pile`` may be ``"column"``, ``"reserve"`` or
        ``"cell"``; ``to_pile`` ``"column"`` or ``"cell"`` (API.md, "Extensions").
        """
        if from_pile == "column" and to_pile == "column":
            self._check_columns(from_column, from_index, to_column)
            self.history.append(self._do_move(from_column, from_index, to_column))
        else:
            self._check_pile_move(from_pile, from_column, from_index, to_pile, to_column)
            self.history.append(
                self._do_pile_move(
                    _PILE_CODE[from_pile], from_column, from_index, _PILE_CODE[to_pile], to_column
                )
            )
        self.future.clear()

    def _do_move(self, a: int, i: int, b: int) -> int:
        src = self.cols[a]
        group = src[i:]
        del src[i:]
        self._place(b, group)
        sr, sv = self._settle_source(a)
        tr, tv = self._settle_target(b)
        n = len(group)
        more = _pack_more(sr, tr) if sr > 1 or tr > 1 else 0
        if sr > 1:
            sr = 1
        if tr > 1:
            tr = 1
        if self._wide:
            return (
                _pack_move(a & 7, i & 63, b & 7, n & 63, sr, sv, tr, tv)
                | _pack_wide(a, i, b, n, 0, 0)
                | more
            )
        return _pack_move(a, i, b, n, sr, sv, tr, tv) | more

    def _do_pile_move(self, fp: int, a: int, i: int, tp: int, b: int) -> int:
        """A move from a reserve or cell to a column, or from a column to a cell."""
        sr = sv = tr = tv = 0
        if tp == 2:  # the exposed card of column a into cell b
            card = self.cols[a].pop()
            self.cells[b] = card
            self.where_col[card] = _IN_CELL
            self.where_idx[card] = b
            sr, sv = self._settle_source(a)
        else:  # a reserve or cell card onto column b
            slots = self.reserve if fp == 1 else self.cells
            card = slots[a]
            slots[a] = -1
            self._place(b, (card,))
            tr, tv = self._settle_target(b)
        more = _pack_more(sr, tr)
        return (
            _pack_move(a & 7, i & 63, b & 7, 1, min(sr, 1), sv, min(tr, 1), tv)
            | _pack_wide(a, i, b, 1, fp, tp)
            | more
        )

    def _refuse_if_won(self, instead: str = "start a new game") -> None:
        if self.won:
            raise GameFinished(f"This game is won and finished: {instead}.")

    def _place(self, c: int, cards: Sequence[int]) -> None:
        """Put ``cards`` on the open end of column ``c``, noting where each now lies."""
        col = self.cols[c]
        wc, wi = self.where_col, self.where_idx
        for k, card in enumerate(cards, len(col)):
            wc[card] = c
            wi[card] = k
        col.extend(cards)

    def _reveal(self, c: int) -> int:
        """Turn up the exposed card of column ``c`` if it is face down; 1 if it was."""
        if self.cols[c] and len(self.cols[c]) == self.hidden[c]:
            self.hidden[c] -= 1
            return 1
        return 0

    def _settle_target(self, c: int) -> tuple[int, int]:
        """A run completed at the open end of column ``c`` goes, which may expose a face-down
        card to turn up: (runs removed, card revealed). Nearly always at most one run goes;
        but when the run removed lay on another completed run (one built under it, with it
        carried along), that one is now a completed run at the open end, and goes too."""
        if self._remove_run(c):
            n = 1
            while self._remove_run(c):
                n += 1
            return n, self._reveal(c)
        return 0, 0

    def _settle_source(self, c: int) -> tuple[int, int]:
        """Column ``c`` after cards left it: a face-down card left exposed turns up; or else
        a run left at the open end goes, as ``_settle_target``."""
        if self._reveal(c):
            return 0, 1
        return self._settle_target(c)

    def _remove_run(self, c: int) -> bool:
        """Remove a completed run at the open end of column ``c``; True if there was one."""
        col = self.cols[c]
        n = len(col)
        if n < 13 or col[-1] % 13 != 0 or n - 13 < self.hidden[c]:
            return False
        mode = self._run_mode
        if mode == 0:
            suit = col[-1] // 13
            if col[-13:] != RUNS[suit]:
                return False
        else:
            top = col[-13:]
            if mode == 1:
                suit = col[-1] // 13 % 4
                if [card % 52 for card in top] != RUNS[suit]:
                    return False
            else:
                red = is_red(top[0])
                for k, card in enumerate(top):
                    if card % 13 != 12 - k or is_red(card) != red:
                        return False
                    red = not red
                suit = top[0] // 13 % 4  # a mixed run is named by its King's suit
        run = tuple(col[-13:])
        del col[-13:]
        wc, wi = self.where_col, self.where_idx
        for card in run:
            wc[card] = _GONE
            wi[card] = -1
        self.completed.append(suit)
        self.runs.append(run)
        return True

    def _restore_runs(self, c: int, n: int) -> None:
        """Put the last ``n`` removed runs back on column ``c``, the last removed first."""
        for _ in range(n):
            self.completed.pop()
            self._place(c, self.runs.pop())

    def deal(self) -> None:
        """Deal the stock: one face-up card onto each of the first columns, in order."""
        self._refuse_if_won()
        if not self.stock:
            if not self.nstock:
                raise StockEmpty(f"{self.variant.title} has no stock to deal.")
            raise StockEmpty("The stock is empty: its cards have already been dealt.")
        self.history.append(self._do_deal())
        self.future.clear()

    def _do_deal(self) -> int:
        for c, card in enumerate(self.stock):
            self._place(c, (card,))
        self.stock = []
        rec = 1
        for c in range(self.nstock):
            removed, revealed = self._settle_target(c)
            if removed > 1:
                rec |= (removed - 1) << (40 + 4 * c)
                removed = 1
            rec |= removed << (1 + 2 * c) | revealed << (2 + 2 * c)
        return rec

    def undo(self) -> None:
        """Step back one step; a card revealed by it turns face down again."""
        self._refuse_if_won("it cannot be undone")
        if not self.history:
            raise NothingToUndo("There is nothing to undo: this is the opening layout.")
        rec = self.history.pop()
        self._undo_record(rec)
        self.future.append(rec)

    def _undo_record(self, rec: int) -> None:
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        if rec & 1:  # deal
            for c in range(self.nstock - 1, -1, -1):
                if rec >> (2 + 2 * c) & 1:
                    hidden[c] += 1
                if rec >> (1 + 2 * c) & 1:
                    self._restore_runs(c, 1 + (rec >> (40 + 4 * c) & 15))
            stock = [cols[c].pop() for c in range(self.nstock)]
            for card in stock:
                wc[card] = _GONE
                wi[card] = -1
            self.stock = stock
            return
        if self._wide or rec >> 23:
            a, _i, b, n, fp, tp = _unpack(rec)
        else:
            a = rec >> 1 & 7
            b = rec >> 10 & 7
            n = rec >> 13 & 63
            fp = tp = 0
        if rec >> 22 & 1:
            hidden[b] += 1
        if rec >> 21 & 1:
            self._restore_runs(b, 1 + (rec >> 41 & 15))
        if rec >> 20 & 1:
            hidden[a] += 1
        if rec >> 19 & 1:
            self._restore_runs(a, 1 + (rec >> 37 & 15))
        if tp == 2:  # back from cell b to column a
            card = self.cells[b]
            self.cells[b] = -1
            self._place(a, (card,))
            return
        if fp:  # back from column b to its reserve or cell
            card = cols[b].pop()
            if fp == 1:
                self.reserve[a] = card
                wc[card] = _IN_RESERVE
            else:
                self.cells[a] = card
                wc[card] = _IN_CELL
            wi[card] = a
            return
        dst = cols[b]
        group = dst[-n:]
        del dst[-n:]
        self._place(a, group)

    def redo(self) -> None:
        """Take again the step that the last undo took back."""
        self._refuse_if_won()
        if not self.future:
            raise NothingToRedo("There is nothing to redo.")
        rec = self.future.pop()
        if rec & 1:
            self.history.append(self._do_deal())
            return
        a, i, b, _n, fp, tp = _unpack(rec)
        if fp or tp:
            self.history.append(self._do_pile_move(fp, a, i, tp, b))
        else:
            self.history.append(self._do_move(a, i, b))

    # -- help ---------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, useful or not: column targets first (by column), then cells."""
        return self._moves(useful_only=False)

    def hints(self) -> list[Move]:
        """Every legal, useful move (RULES.md, "Help for the player").

        Moving a whole column into an empty column only changes which column the deal will
        reach: it is offered only while the stock holds cards and one of the two columns is
        among those the deal reaches (never in a variant without a stock).
        """
        return self._moves(useful_only=True)

    def _moves(self, useful_only: bool) -> list[Move]:
        if len(self.completed) == self.runs_needed:
            return []
        cols, hidden, wc, wi = self.cols, self.hidden, self.where_col, self.where_idx
        feeders = self._feeders
        out: list[Move] = []
        empties: list[int] = []
        for t in range(self.ncols):
            dst = cols[t]
            if not dst:
                empties.append(t)
                continue
            for p in feeders[dst[-1]]:
                c = wc[p]
                if c >= 0:
                    if c != t:
                        i = wi[p]
                        if i >= hidden[c]:
                            out.append(_new_move(Move, (c, i, t)))
                elif c != _GONE:
                    out.append(
                        _new_move(
                            PileMove,
                            (wi[p], 0, t, "reserve" if c == _IN_RESERVE else "cell", "column"),
                        )
                    )
        if empties:
            stock_left = bool(self.stock)
            nstock = self.nstock
            piles: list[tuple[int, str]] = []
            if self.variant.empty_accepts_any:
                leaders = [
                    (c, i) for c in range(self.ncols) for i in range(hidden[c], len(cols[c]))
                ]
                piles = [(k, "reserve") for k, x in enumerate(self.reserve) if x >= 0]
                piles += [(k, "cell") for k, x in enumerate(self.cells) if x >= 0]
            else:
                leaders = []
                for k in self._kings:
                    c = wc[k]
                    if c >= 0:
                        if wi[k] >= hidden[c]:
                            leaders.append((c, wi[k]))
                    elif c != _GONE:
                        piles.append((wi[k], "reserve" if c == _IN_RESERVE else "cell"))
            for t in empties:
                for c, i in leaders:
                    if c == t:
                        continue
                    if i == 0 and useful_only and not (stock_left and (c < nstock or t < nstock)):
                        continue
                    out.append(_new_move(Move, (c, i, t)))
                for k, kind in piles:
                    out.append(_new_move(PileMove, (k, 0, t, kind, "column")))
        cells = self.cells
        if cells:
            free = [k for k, x in enumerate(cells) if x < 0]
            if free:
                for c in range(self.ncols):
                    n = len(cols[c])
                    if n:
                        for k in free:
                            out.append(_new_move(PileMove, (c, n - 1, k, "column", "cell")))
        return out

    @property
    def stuck(self) -> bool:
        """True when no useful move is left and the stock is empty (or the game is won)."""
        return not self.can_deal and not self.hints()

    # -- views and storage --------------------------------------------------------------

    def public_view(self) -> PublicView:
        # (a table of the codes, not a call of ``code`` per card: every request makes a view)
        codes = CODES
        cols: list[list[str | None]] = [
            [*[None] * h, *[codes[c] for c in col[h:]]] if h else [codes[c] for c in col]
            for col, h in zip(self.cols, self.hidden, strict=True)
        ]
        return PublicView(
            variant=self.variant.name,
            columns=cols,
            stock=len(self.stock),
            completed=[SUITS[s] for s in self.completed],
            moves=len(self.history),
            can_undo=self.can_undo,
            can_redo=self.can_redo,
            status=self.status,
            reserves=[None if c < 0 else codes[c] for c in self.reserve],
            cells=[None if c < 0 else codes[c] for c in self.cells],
            runs_needed=self.runs_needed,
        )

    def position_key(self) -> tuple[object, ...]:
        """Everything that makes up the position (not the history), for comparisons."""
        return (
            self.variant.name,
            tuple(tuple(c) for c in self.cols),
            tuple(self.hidden),
            tuple(self.stock),
            tuple(self.completed),
            tuple(self.reserve),
            tuple(self.cells),
        )

    def to_snapshot(self) -> str:
        """A compact, versioned serialisation of the whole game state (stable across versions).

        The base game's form is unchanged; a variant with reserves, cells, several decks or
        alternate-colour runs adds only the fields it needs: ``res`` and ``cells`` (slots, -1
        for an empty one) and ``runs`` (the cards of each removed run).
        """
        data: dict[str, Any] = {
            "v": SNAPSHOT_VERSION,
            "variant": self.variant.name,
            "cols": self.cols,
            "hidden": self.hidden,
            "stock": self.stock,
            "done": self.completed,
            "hist": self.history,
            "fut": self.future,
        }
        v = self.variant
        if v.reserves:
            data["res"] = self.reserve
        if v.cells:
            data["cells"] = self.cells
        if self._run_mode:
            data["runs"] = self.runs
        return orjson.dumps(data).decode()  # (the same text as json's compact form, faster)

    @classmethod
    def from_snapshot(cls, snapshot: str) -> Game:
        """Rebuild a game from ``to_snapshot`` output."""
        try:
            data = orjson.loads(snapshot)
            if not isinstance(data, dict):
                raise SnapshotError("a snapshot is a JSON object")
            if data.get("v") != SNAPSHOT_VERSION:
                raise SnapshotError(f"unknown snapshot version {data.get('v')!r}")
            game = cls.__new__(cls)
            v = get_variant(data["variant"])
            game._setup(v)
            game.cols = [list(map(int, c)) for c in data["cols"]]
            game.hidden = list(map(int, data["hidden"]))
            game.stock = list(map(int, data["stock"]))
            game.completed = list(map(int, data["done"]))
            game.history = list(map(int, data["hist"]))
            game.future = list(map(int, data["fut"]))
            game.reserve = list(map(int, data.get("res", [])))
            game.cells = list(map(int, data.get("cells", [])))
            if game._run_mode:
                game.runs = [tuple(map(int, r)) for r in data["runs"]]
            else:
                game.runs = [tuple(RUNS[s]) for s in game.completed]
        except SnapshotError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            raise SnapshotError(f"unreadable snapshot: {exc}") from exc
        if len(game.cols) != v.columns or len(game.hidden) != v.columns:
            words = {7: "seven", 10: "ten", 13: "thirteen"}
            raise SnapshotError(f"a snapshot holds {words.get(v.columns, v.columns)} columns")
        if len(game.reserve) != v.reserves or len(game.cells) != v.cells:
            raise SnapshotError(f"a snapshot of {v.title} holds its reserves and cells")
        if len(game.runs) != len(game.completed) or any(len(r) != 13 for r in game.runs):
            raise SnapshotError("a snapshot's removed runs hold thirteen cards each")
        cards = sorted(game.all_cards())
        if cards != list(range(52 * v.decks)):
            raise SnapshotError("a snapshot holds each card exactly once")
        game._index_all()
        return game

    def copy(self) -> Game:
        return Game.from_snapshot(self.to_snapshot())

    def all_cards(self) -> list[Card]:
        """Every card of the game wherever it is (columns, reserves, cells, stock, runs).

        Physical ids: in a game of several decks, ``card % 52`` is the card.
        """
        return (
            [c for col in self.cols for c in col]
            + [c for c in self.reserve if c >= 0]
            + [c for c in self.cells if c >= 0]
            + list(self.stock)
            + [c for run in self.runs for c in run]
        )
