"""The search of the rest of the family: one generic search for every variant. Pure, no I/O.

``search.py`` keeps its fast, specialised search for the four plain variants (seven columns,
one deck, same-suit building, a three-card stock). This module searches the others (Scorpion
Tail, Scorpion Head, Three Blind Mice, Farmer's Wife, How They Run, Double and Triple Scorpion)
with a search written from the engine's own move rules (``app/engine/game.py``) and nothing
more:

- a column move: any face-up card with everything on it, onto the exposed card it fits (the
  next higher card of its suit, or of the other colour where building is in alternate colours)
  or, for a King (any card in Wasp), into an empty column;
- a reserve or cell card onto a column where it fits (a King also into an empty column);
- the exposed card of a column, alone, into an empty cell;
- the deal of the stock onto the first columns;
- after every step the engine's automatic consequences, in the engine's order: a completed run
  at a column's open end leaves, the card left exposed on a face-down card turns up.

The position is compact and mutable (make/undo of the columns a step touched). Cards are
*logical* (``physical id % 52``): the identical cards of two or three decks are interchangeable,
so the copies never multiply the positions; the winning line names piles and indexes only, so
it replays on the engine's physical ids unchanged.

Soundness (every claim below is an exact symmetry of the rules, never a guess):

- ``"win"``: the line is a sequence of the engine's own actions (``("move", a, i, b)``,
  ``("move", k, 0, b, "reserve" | "cell", "column")``, ``("move", a, i, k, "column", "cell")``,
  ``("deal",)``); ``api.py`` replays it through ``Game`` before believing it.
- ``"loss"``: only when the depth-first search has explored every position reachable from the
  start (a visited set, so each position is expanded once; a position met again is skipped
  because its moves are, or will be, explored where it was first met). The only moves left out
  lead to positions identical up to a symmetry of the rules, and the transposition key merges
  exactly those: columns are interchangeable once no stock is left to deal (the deal is the only
  rule that tells columns apart), and the columns the deal does not reach are interchangeable
  among themselves before; empty columns are all alike, so only the first suitable one is tried
  as a target; free cells are interchangeable (only the first empty one is tried) and so are
  reserve slots (keys hold them as multisets); a whole column moved into an empty column only
  renames the column, and is tried only while the stock holds cards and one of the two columns
  is reached by the deal.
- Sure joins are taken as the only move, each where its lemma holds (a shortest winning line
  stays reachable): in Three Blind Mice a reserve card onto its successor at a column's open
  end (``FamilySearch.reserve_join``); in Three Blind Mice, How They Run and Scorpion Head a
  card onto its successor at the open end of a King-down run longer than the cells can hold
  (``FamilySearch.king_run_join``); in How They Run a cell card onto its successor lying on
  its own successor (``FamilySearch.cell_join``).
- A position proved lost by ``proof.py`` (a "must leave first" proof that holds in every
  variant: alternate colours, several decks, reserves, cells) is not expanded. The proof runs
  at the start, after a deal and after a step onto a card or into the last empty column (no
  other step can add one of its constraints; skipping a check only misses a proof), where it
  seldom fires on only every 2nd to 16th of those positions (``_prove``), and not after a
  step from a position without a proof when a lemma shows the new one has none either
  (``_stays_alive``). (Three Blind Mice also tried ``search.py``'s ``dead_reason_of`` first,
  whose premises hold there, until it was measured: on every one of the ~400,000 positions
  checked in four of its hardest deals it fired only where ``proof.py``'s fires too, and
  trying it first made deal 2's complete search take 10.8 s of CPU time instead of 8.8 s.)
- ``"unknown"``: the budget (seconds and/or nodes) ran out first.

"""

from __future__ import annotations

from ..cards import KING, RUNS
from ..game import Action, Game
from ..variants import Variant
from .proof import CHILDREN as _CHILDREN
from .proof import PARENTS as _PARENTS
from .proof import family_dead_reason
from .search import (
    OutOfBudget,
    Searcher,
    empty_targets,
)

# Column key bytes: cards are 0-51; a column's key ends with 100 + its face-down count.
_HIDDEN_MARK = 100
_EMPTY_SLOT = 60
_GROUP_SEP = b"\xfe"
_SEP = b"\xff"

# Move kinds (the first field of a generated move).
COL = 0  # (a, i, b): column a from index i onto column b
RES = 1  # (k, 0, b): reserve k onto column b
CELL = 2  # (k, 0, b): cell k onto column b
TO_CELL = 3  # (a, i, k): the exposed card of column a into cell k
# (0, 0, 0): the deal of the stock, as a move among the others (only the win-first phase's
# ``gen_moves`` lists it, ``winfirst.DEAL_PRIORITY``; else the deal comes after every move)
DEAL = 4

_PILE_NAME = {RES: "reserve", CELL: "cell"}


class ProofSchedule:
    """When a proof of loss is tried: on every position offered while it fires often, on
    every 2nd, 4th, ... up to every 16th while it seldom does (on fewer than 1 in 32 of its
    last 256 tries). Skipping a proof only misses a cut, never makes a wrong one."""

    __slots__ = ("every", "skip", "tries", "cuts")

    def __init__(self) -> None:
        self.every = 1
        self.skip = 0
        self.tries = 0
        self.cuts = 0

    def due(self) -> bool:
        self.skip += 1
        if self.skip < self.every:
            return False
        self.skip = 0
        return True

    def record(self, fired: bool) -> None:
        self.tries += 1
        self.cuts += fired
        if self.tries == 256:
            self.every = min(16, 2 * self.every) if self.cuts * 32 < 256 else 1
            self.tries = self.cuts = 0


def fits_on(variant: Variant, card: int, top: int) -> bool:
    """True when ``card`` (physical or logical) may land on ``top`` in ``variant``."""
    return top % 52 in _PARENTS[variant.alternate][card % 52]


class FamilySearch(Searcher):
    """The complete depth-first search's mutable state (``winfirst.py`` builds its incomplete
    search on it)."""

    # True in the win-first phase (``winfirst.py``): a face-up card lying on a face-up parent is
    # never picked up off it there, and the proof of loss proves positions lost in that game.
    keep_joined = False

    def __init__(self, game: Game) -> None:
        super().__init__()
        v = game.variant
        self.variant = v
        self.ncols = v.columns
        self.nstock = v.stock
        self.any_empty = v.empty_accepts_any
        self.runs_needed = v.runs_needed
        self.parents = _PARENTS[v.alternate]
        self.children = _CHILDREN[v.alternate]
        self.cols: list[list[int]] = [[c % 52 for c in col] for col in game.cols]
        self.hidden: list[int] = list(game.hidden)
        self.stock: list[int] = [c % 52 for c in game.stock]
        self.reserve: list[int] = [c % 52 if c >= 0 else -1 for c in game.reserve]
        self.cells: list[int] = [c % 52 if c >= 0 else -1 for c in game.cells]
        self.done = len(game.completed)
        self.colkey: list[bytes] = [self._colkey(c) for c in range(self.ncols)]
        # proof.py's (see ``_worth_proving``): it assumes empty columns take Kings only
        self.prove = not v.empty_accepts_any
        # Three Blind Mice: a sure join is the only move tried (``reserve_join``,
        # ``king_run_join``); their lemmas need one deck, same-suit building, no stock, no
        # cell and empty columns for Kings only
        self.sure_joins = (
            v.decks == 1
            and not v.alternate
            and not v.cells
            and not v.stock
            and not v.empty_accepts_any
        )
        # How They Run: a cell card joins its successor lying on its own parent, as the only
        # move (``cell_join``); its lemma needs one deck, same-suit building, no stock, no
        # reserve, at most two cells and empty columns for Kings only
        self.cell_joins = (
            v.decks == 1
            and not v.alternate
            and 0 < v.cells <= 2
            and not v.reserves
            and not v.stock
            and not v.empty_accepts_any
        )
        # ``king_run_join`` (its lemma needs one deck, same-suit building, no stock, empty
        # columns for Kings only, and a King run longer than the cells can hold): Three Blind
        # Mice, How They Run, Scorpion Head
        self.run_joins = (
            v.decks == 1 and not v.alternate and not v.stock and not v.empty_accepts_any
        )
        self.reserve_joins_taken = 0
        self.run_joins_taken = 0
        self.cell_joins_taken = 0
        # the position searched is known to have no proof of loss (``_stays_alive``), and how
        # many proofs that knowledge spared
        self.alive = False
        self.alive_skips = 0
        # when the proof is tried on a position worth proving (see ``_prove``)
        self.proof = ProofSchedule()

    # -- keys -----------------------------------------------------------------------------

    def _colkey(self, c: int) -> bytes:
        return bytes(self.cols[c]) + bytes((_HIDDEN_MARK + self.hidden[c],))

    def key(self) -> bytes:
        ck = self.colkey
        if self.stock:
            n = self.nstock
            cols = _SEP.join(ck[:n]) + _GROUP_SEP + _SEP.join(sorted(ck[n:]))
        else:
            cols = _SEP.join(sorted(ck))
        slots = bytes(sorted(x if x >= 0 else _EMPTY_SLOT for x in self.reserve))
        slots += _GROUP_SEP + bytes(sorted(x if x >= 0 else _EMPTY_SLOT for x in self.cells))
        return cols + _GROUP_SEP + slots + (b"s" if self.stock else b"")

    # -- the engine's automatic consequences ----------------------------------------------

    def _remove_run(self, c: int) -> bool:
        col = self.cols[c]
        n = len(col)
        if n < 13 or col[-1] % 13 != 0 or n - 13 < self.hidden[c]:
            return False
        parents = self.parents
        for k in range(n - 1, n - 13, -1):
            if col[k - 1] not in parents[col[k]]:
                return False
        del col[-13:]
        self.done += 1
        return True

    def _settle_source(self, a: int) -> None:
        src = self.cols[a]
        # as the engine: a face-down card left exposed turns up; else a run left at the open
        # end leaves (and the card then exposed turns up if face down)
        if src and (
            len(src) == self.hidden[a] or (self._remove_runs(a) and len(src) == self.hidden[a])
        ):
            self.hidden[a] -= 1

    def _settle_target(self, b: int) -> None:
        dst = self.cols[b]
        if self._remove_runs(b) and len(dst) == self.hidden[b]:
            self.hidden[b] -= 1

    def _remove_runs(self, c: int) -> bool:
        """Remove the completed runs at the open end of column ``c`` (as the engine: a run
        removed may leave another completed run there, which goes too); True if some went
        and the column still holds cards."""
        if not self._remove_run(c):
            return False
        while self._remove_run(c):
            pass
        return bool(self.cols[c])

    # -- make and undo --------------------------------------------------------------------

    def _save(self, *columns: int) -> tuple[object, ...]:
        return (
            [(c, self.cols[c][:], self.hidden[c], self.colkey[c]) for c in columns],
            self.done,
        )

    def _restore(self, saved: tuple[object, ...]) -> None:
        columns, done = saved
        assert isinstance(columns, list) and isinstance(done, int)
        for c, col, h, ck in columns:
            self.cols[c] = col
            self.hidden[c] = h
            self.colkey[c] = ck
        self.done = done

    def make(self, kind: int, a: int, i: int, b: int) -> tuple[object, ...]:
        """Take one step; returns what ``undo`` needs."""
        cols = self.cols
        if kind == COL:
            saved = self._save(a, b)
            src = cols[a]
            cols[b].extend(src[i:])
            del src[i:]
            self._settle_source(a)
            self._settle_target(b)
            self.colkey[a] = self._colkey(a)
            self.colkey[b] = self._colkey(b)
        elif kind == TO_CELL:
            saved = self._save(a)
            self.cells[b] = cols[a].pop()
            self._settle_source(a)
            self.colkey[a] = self._colkey(a)
        else:
            saved = self._save(b)
            slots = self.reserve if kind == RES else self.cells
            cols[b].append(slots[a])
            slots[a] = -1
            self._settle_target(b)
            self.colkey[b] = self._colkey(b)
        return saved

    def make_deal(self) -> tuple[object, ...]:
        n = len(self.stock)
        saved = self._save(*range(n))
        stock = self.stock
        for c, card in enumerate(stock):
            self.cols[c].append(card)
        self.stock = []
        for c in range(n):
            self._settle_target(c)
            self.colkey[c] = self._colkey(c)
        return (saved, stock)

    def undo_deal(self, rec: tuple[object, ...]) -> None:
        saved, stock = rec
        assert isinstance(saved, tuple) and isinstance(stock, list)
        self._restore(saved)
        self.stock = stock

    # -- moves ----------------------------------------------------------------------------

    def gen_moves(self) -> list[tuple[int, int, int, int]]:
        """Every move worth trying (module docstring), best first; a sure join alone."""
        if self.sure_joins:
            join = self.reserve_join()
            if join is not None:
                self.reserve_joins_taken += 1
                return [join]
        if self.run_joins:
            join = self.king_run_join()
            if join is not None:
                self.run_joins_taken += 1
                return [join]
        if self.cell_joins:
            join = self.cell_join()
            if join is not None:
                self.cell_joins_taken += 1
                return [join]
        scored = self.scored_moves()
        scored.sort(key=lambda s: -s[0])
        return [m for _, m in scored]

    def reserve_join(self) -> tuple[int, int, int, int] | None:
        """``sure_joins`` (Three Blind Mice: one deck, same suit, no cells, no stock): the move
        of a reserve card x onto its successor x + 1 lying at a column's open end, taken as the
        only move.

        Lemma. Let Q be such a position and P' be Q after that move. If Q wins in n steps, P'
        wins in at most n - 1. Proof, simulating Q's winning line step by step from P' while
        "P* is Q* with x on x + 1 instead of in the reserve" holds. x is not a King (a King
        has no successor), so in Q* it can only ever leave the reserve onto x + 1; nothing
        lands on x while it is in the reserve, and nothing but x lands on x + 1 (one deck,
        same suit; there is no stock to deal onto it and no cell to take it): x + 1 stays at
        its column's open end in Q* until x comes. Every step of Q* is legal in P*: a group is
        checked by its leading card only, so x + 1 picked up alone in Q* is picked up with x
        on it in P* (to the same column); every other card lies on the same card on both
        sides. The relation ends only when (a) Q* moves x onto x + 1: P* is Q*'s next
        position, one step saved; (b) a run completes in P* through x + 1 and x but not in
        Q* (x is an Ace): P*'s next position is Q*'s next followed by the move of x onto x + 1
        (legal in it: x + 1 is still at its open end), so by induction it wins in fewer steps
        than Q* has left. Q* cannot win while the relation holds (x is in no run). So taking
        the move alone (a rule depending on the position only) keeps a shortest winning line
        reachable, and a "loss" of the complete search stays exact (``search.py``'s
        ``PlainSearch.forced_join`` argues the same way). With cells the lemma fails (x + 1
        may need to go into a cell, which it cannot do with x on it), and with alternate
        colours or several decks x + 1 takes other cards than x.
        """
        cols = self.cols
        for k, x in enumerate(self.reserve):
            if x < 0:
                continue
            for p in self.parents[x]:
                for b in range(self.ncols):
                    col = cols[b]
                    if col and col[-1] == p:
                        return (RES, k, 0, b)
        return None

    def king_run_join(self) -> tuple[int, int, int, int] | None:
        """``run_joins``: the move of the face-up card x (with everything on it) onto its
        successor x + 1, at the open end of a column holding exactly its suit's run from the
        King (deepest, face up) down to x + 1, longer than the cells can hold, taken as the
        only move, unless the card under x is an Ace. ``search.py``'s
        ``PlainSearch.forced_join`` proves its lemma (a shortest winning line stays reachable)
        for Wasp with the stock dealt; it holds here word for word: nothing but x lands on
        x + 1 (one deck, same suit, no stock), the cards under x + 1 never land on a card of
        x's group (each lies on its only successor and leaves only with the King carrying the
        column into an empty column, legal on both sides), and a reserve or cell card only
        ever lands on a column's exposed card, which the join leaves exposed or bares (a
        column emptied by it is one more empty column for a King). With cells, a card of the
        run may also go into a cell, which it cannot do under x's group; a shortest line never
        does that: the run's cards take nothing but one another, so such a card only ever
        comes back onto the card it left, and dropping the two steps leaves every other step
        legal (more cells free), unless the whole run went into the cells and emptied its
        column, which a run longer than the cells can hold cannot do. Where x's group stood,
        the card under x is bare in the join's position and covered in the other: one more
        choice, never one less (x leaves its place only onto x + 1, or alone into a cell)."""
        cols, hidden = self.cols, self.hidden
        ncols = self.ncols
        ncells = len(self.cells)
        for t in range(ncols):
            run = cols[t]
            m = len(run)
            # a whole run (m == 13, down to the Ace) has left already; nothing joins an Ace;
            # a run the cells can hold may be taken apart into them to empty its column
            if not ncells < m < 13 or hidden[t] or run != RUNS[run[0] // 13][:m]:
                continue
            x = run[-1] - 1
            for a in range(ncols):
                col = cols[a]
                if a != t and x in col:
                    i = col.index(x)
                    if i >= hidden[a] and (i == 0 or col[i - 1] % 13 != 0):
                        return (COL, a, i, t)
                    break  # one deck: x lies nowhere else
        return None

    def cell_join(self) -> tuple[int, int, int, int] | None:
        """``cell_joins`` (How They Run: one deck, same suit, at most two cells, no stock, no
        reserve): the move of a cell card x onto its successor x + 1 lying at a column's open
        end on its own successor x + 2 (face up), taken as the only move.

        Lemma. Let Q be such a position and P' be Q after that move. If Q wins in n steps, P'
        wins in at most n - 1. Proof, as ``reserve_join``'s: simulate a shortest winning line
        of Q step by step from P' while "P* is Q* with x on x + 1 instead of in its cell"
        holds. x is not a King, so in Q* it leaves its cell only onto x + 1 (no cell-to-cell
        step, empty columns take Kings only); nothing but x lands on x + 1 (one deck, same
        suit, no stock); x + 1 lies on x + 2 and leaves it only into a cell (x + 2 is its only
        parent) or with a group it leads onto x + 2 again, which cannot happen while it lies
        there. The one step of Q* that P* cannot copy is x + 1 alone into a cell (P* would
        need two steps), and a shortest line never takes it while x is in a cell: then both
        cells are full (x and x + 1) until x + 1 comes back onto x + 2, the only way either
        card leaves its cell; meanwhile no card goes into a cell, nothing but x + 1 lands on
        x + 2, and x + 2 moves exactly as it would with x + 1 on it, so dropping the two steps
        gives a shorter line. Every other step of Q* is legal in P* (a group is checked by its
        leading card only; P* has every cell Q* has free, and x's cell too); the relation ends
        as in ``reserve_join`` ((a) Q* lays x on x + 1: one step saved; (b) a run completes
        through x + 1 and x in P* only, x an Ace: by induction). With three cells or more the
        lemma fails (x + 2 could go into a third cell), as it does with a stock, several
        decks or alternate colours (x + 1 takes other cards than x)."""
        cols, hidden, parents = self.cols, self.hidden, self.parents
        for k, x in enumerate(self.cells):
            if x < 0:
                continue
            for p in parents[x]:
                for b in range(self.ncols):
                    col = cols[b]
                    n = len(col)
                    if n >= 2 and col[-1] == p and n - 2 >= hidden[b] and col[-2] in parents[p]:
                        return (CELL, k, 0, b)
        return None

    def scored_moves(self) -> list[tuple[int, tuple[int, int, int, int]]]:
        """Every move worth trying (module docstring), each with its priority (higher first)."""
        cols, hidden, parents = self.cols, self.hidden, self.parents
        ncols = self.ncols
        tops: dict[int, list[int]] = {}
        empties: list[int] = []
        for t in range(ncols):
            col = cols[t]
            if col:
                tops.setdefault(col[-1], []).append(t)
            else:
                empties.append(t)
        stock = bool(self.stock)
        nstock = self.nstock
        targets = empty_targets(empties, stock, nstock) if empties else []
        scored: list[tuple[int, tuple[int, int, int, int]]] = []
        any_empty = self.any_empty
        # the cards that fit on some exposed card, and the columns they may go to
        wanted: dict[int, list[int]] = {}
        children = self.children
        for top, ts in tops.items():
            for child in children[top]:
                wanted.setdefault(child, []).extend(ts)
        for a in range(ncols):
            col = cols[a]
            h = hidden[a]
            n = len(col)
            for i in range(h, n):
                card = col[i]
                dests = wanted.get(card)
                to_empty = targets and (any_empty or card % 13 == KING)
                if dests is None and not to_empty:
                    continue
                # priorities: a reveal first; breaking a sequence last
                prio = 0
                if i == h and h:
                    prio += 100
                elif i and col[i - 1] in parents[card] and i - 1 >= h:
                    prio -= 50
                if i == 0:
                    prio += 30  # empties a column
                if dests is not None:
                    for b in dests:
                        if b != a:
                            scored.append((prio + 10 - (n - i), (COL, a, i, b)))
                if to_empty:
                    for b in targets:
                        if b == a:
                            continue
                        if i == 0 and not (stock and (a < nstock or b < nstock)):
                            continue  # a whole column only renames its column
                        scored.append((prio + (20 if i else -20), (COL, a, i, b)))
        for kind, slots in ((RES, self.reserve), (CELL, self.cells)):
            for k, card in enumerate(slots):
                if card < 0:
                    continue
                for p in parents[card]:
                    for b in tops.get(p, ()):
                        scored.append((60, (kind, k, 0, b)))
                if targets and (any_empty or card % 13 == KING):
                    for b in targets:
                        scored.append((50, (kind, k, 0, b)))
        if self.cells:
            free = next((k for k, x in enumerate(self.cells) if x < 0), -1)
            if free >= 0:
                for a in range(ncols):
                    col = cols[a]
                    n = len(col)
                    if n:
                        prio = -80 + (100 if n - 1 == hidden[a] and hidden[a] else 0)
                        if n == 1:
                            prio += 15
                        scored.append((prio, (TO_CELL, a, n - 1, free)))
        return scored

    # -- the search -----------------------------------------------------------------------

    def _action(self, kind: int, a: int, i: int, b: int) -> Action:
        if kind == COL:
            return ("move", a, i, b)
        if kind == TO_CELL:
            return ("move", a, i, b, "column", "cell")
        return ("move", a, 0, b, _PILE_NAME[kind], "column")

    def dfs(self) -> bool:
        """Search from the current position (its key already seen); True on a win."""
        self.nodes += 1
        if not self.nodes & 63 and (self.nodes >= self.max_nodes or self.clock() >= self.deadline):
            raise OutOfBudget
        seen, path = self.seen, self.path
        alive = self.alive
        dealt = False
        for kind, a, i, b in self.gen_moves():
            if kind == DEAL:
                dealt = True
                if self._deal_child():
                    return True
                continue
            card = -1
            if kind in (RES, CELL):
                card = (self.reserve if kind == RES else self.cells)[a]
            base = len(self.cols[b]) if kind != TO_CELL else 0
            done = self.done
            saved = self.make(kind, a, i, b)
            if self.done == self.runs_needed:
                path.append(self._action(kind, a, i, b))
                return True
            key = self.key()
            if key not in seen:
                seen.add(key)  # a position proved lost is remembered as explored, too
                self.alive = False
                if self.prove and self._worth_proving(kind, base):
                    if alive and kind == COL and self.done == done and self._stays_alive(b, base):
                        self.alive = True
                        self.alive_skips += 1
                    elif self._prove():
                        self._undo(kind, a, b, card, saved)
                        continue
                path.append(self._action(kind, a, i, b))
                if self.dfs():
                    return True
                path.pop()
            self._undo(kind, a, b, card, saved)
        # the deal last, unless ``gen_moves`` placed it among the moves (``DEAL``)
        return bool(self.stock) and not dealt and self._deal_child()

    def _deal_child(self) -> bool:
        """Deal the stock and search from there (unless seen or proved lost); True on a win."""
        seen, path = self.seen, self.path
        rec = self.make_deal()
        if self.done == self.runs_needed:
            path.append(("deal",))
            return True
        key = self.key()
        if key not in seen:
            seen.add(key)
            if self.prove:
                self.dead_checks += 1
                if self.dead_reason():
                    self.dead_cuts += 1
                    self.undo_deal(rec)
                    return False
            self.alive = self.prove
            path.append(("deal",))
            if self.dfs():
                return True
            path.pop()
        self.undo_deal(rec)
        return False

    def _prove(self) -> bool:
        """Try the proof of loss on the position just reached, if its turn has come on
        ``self.proof`` (a ``ProofSchedule``): True when it is proved lost. Skipping a check
        only misses a proof (measured: Triple Scorpion's search spent 84% of its time in the
        proof on deals where it never fires, when it was tried on every position)."""
        if not self.proof.due():
            return False
        self.dead_checks += 1
        if not self.dead_checks & 15 and self.clock() >= self.deadline:
            raise OutOfBudget  # a proof costs more than a node: watch the clock
        dead = bool(self.dead_reason())
        self.dead_cuts += dead
        self.proof.record(dead)
        self.alive = not dead
        return dead

    def _stays_alive(self, b: int, base: int) -> bool:
        """After a column step of a group led by g onto the exposed card t of column b (g now
        at ``base``; no run left the table) from a position that has no proof of loss: True
        when g's join is met from the start in the new position (a parent of g is in the stock
        or exposed in another column, the card g left included), and then the new position
        has no proof of loss either: its proof need not run.

        Lemma (no cells; ``proof.py``'s clauses). Let P be the position before, C after, X the
        events that can happen in P (its least fixpoint; no required event of P is outside
        it). Both have the same card instances. Every clause of C is P's, or weaker (fewer
        constraints or more alternatives: the card s g left is bare, turned up if it was face
        down, so the cards fitting on s are freed and s's cover clause is gone; cards below g's
        old place no longer have its group above them; a column emptied makes E free), except:
        the join clauses of the cards fitting on t (t bare was a free alternative, now the
        alternative is L[g]); those of the cards below t in b whose parent lies in g's group
        (now above them: one of the cards from just above them up to that parent must leave,
        and g is one of those); and g's own join clause (t, the card it lies on, no longer
        counts). When g's join is met from the start, L[g] (g is face up, not a King) happens
        from the start in C, which meets each of those clauses too; so every clause of C is
        met wherever P's was, by induction along P's derivation: C's least fixpoint holds X.
        C requires no event P does not (g now lies on a parent; s is no longer face down):
        the proof finds nothing in C. Skipping it only saves time (and a skipped proof may
        only miss a cut anyway); ``tests/engine/test_solver_proof.py`` checks the claim
        against the proof itself. The lemma holds for the full game's proof only: with
        ``keep_joined`` (the win-first phase) g, laid on t, is kept there, and its leaving no
        longer meets the clauses it has to meet, so nothing is spared here (``winfirst.py``'s
        phase spares some proofs by a heuristic of its own, ``_WinFirst._stays_alive``)."""
        if self.keep_joined:
            return False
        return self._join_met(b, base)

    def _join_met(self, b: int, base: int) -> bool:
        """Is the join of g (the card at ``base`` of column b, just laid there) met from the
        start: a parent of g in the stock or exposed in another column?"""
        cols = self.cols
        stock = self.stock
        for p in self.parents[cols[b][base]]:
            if p in stock:
                return True
            for c, col in enumerate(cols):
                if c != b and col and col[-1] == p:
                    return True
        return False

    def _worth_proving(self, kind: int, base: int) -> bool:
        """May the step just made have added a constraint of the proofs? A step onto a card
        may; a King into an empty column only when it fills the last one. With free cells any
        exposed card may leave for one once a cell is empty: there the proof is tried at the
        start only (skipping a check only misses a proof). Measured on How They Run: tried
        also after every step onto a card or into a cell (and ``_prove``'s schedule), it fires
        only while every cell is full (2% to 43% of those positions on the deals undecided at
        2 s), but makes a position cost 3 to 4 times as much; deals 1-500 at 2 s of CPU time
        each: 40 undecided became 50, no loss was added (every loss there is proved at the
        start), the time went from 108 s to 153 s."""
        if self.cells:
            return False
        return bool(base) or all(self.cols)

    def dead_reason(self) -> str:
        """Why the position is lost ("" if no proof is found): ``proof.py``'s proof, for the
        game this search plays (with ``keep_joined``, the win-first phase's: a position it
        proves lost has no win that phase could find, so it is not searched; it may still be
        won in the full game, which only the complete search decides)."""
        return family_dead_reason(
            self.cols,
            self.hidden,
            self.reserve + self.cells,
            self.stock,
            self.parents,
            self.children,
            len(self.cells),
            self.keep_joined,
        )

    def _undo(self, kind: int, a: int, b: int, card: int, saved: tuple[object, ...]) -> None:
        if kind == TO_CELL:
            self.cells[b] = -1
        elif kind == RES:
            self.reserve[a] = card
        elif kind == CELL:
            self.cells[a] = card
        self._restore(saved)
