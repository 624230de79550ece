# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The solver's compiled core (Cython): the complete depth-first search of every variant.

The same search as the pure-Python ``family_search.FamilySearch`` (which stays the reference,
``core.py`` chooses): every reachable position is explored once, depth first, moves in the
same priority order, until a win is found (its line of engine actions is returned, and
``api.py`` replays it through ``Game`` before believing it), every position has been explored
("loss") or the budget is spent ("unknown"). What changes is the representation, all C:

- a position is flat C arrays: cards as ``uint8`` (logical ids, ``card % 52``: the copies of
  two or three decks are interchangeable), columns as fixed arrays with their lengths and
  face-down counts, the reserve and cells as small arrays, the stock as a flag and its cards;
- a move is a packed ``int`` (kind << 24 | from << 16 | index << 8 | to); make and undo touch
  only the columns the move touched (a completed run goes to a stack of removed runs and comes
  back from it);
- the position key is a 128-bit hash kept incrementally: each column has an additive Zobrist
  hash of (depth in the column, card) pairs plus its face-down count, updated as cards come and
  go; the key sums a 64-bit mix of each column's hash (a sum: the interchangeable columns are
  a multiset, exactly the symmetry of the Python keys; the columns the deal reaches while the
  stock holds cards are mixed with their index, so they stay apart), plus the multisets of the
  reserve and of the cells and a flag for the stock;
- the transposition set is an open-addressing table of those keys in C;
- the search loop is an explicit stack of frames (no recursion), its moves in one buffer.

Soundness. A win is a line of engine actions, replayed by the caller. A loss is claimed only
when every position reachable from the start with the moves kept has been explored. The moves
left out are the same exact symmetries as ``family_search.py``'s (only the first empty column
where empty columns are alike, the first free cell, a whole column into an empty column only
while the stock holds cards and one of the two columns is reached by the deal) and the sure
joins whose lemmas ``family_search.py`` and ``search.py`` prove (``sure_joins`` flags, taken
as the only move exactly where the Python search takes them). A position ``proof.py``'s proof
of loss proves lost (``Search._dead``, its ``dead_reason_no_cells`` ported, tried at every
position expanded where its premises hold: empty columns for Kings only, no cell) is not
expanded: no winning line passes through a lost position, so a loss is still claimed only when
no win was left unexplored (``prove=False`` or ``prune=False`` turns it off). The transposition set compares
128-bit hashes, not the positions themselves: two different positions share a key with
probability about 2^-128 per pair (the hashes of different positions are independent uniform
draws for practical purposes), so over the at most 2^25 positions a search may store the chance
that a false merge ever occurs is below 2^-78; a false merge is the only way a hash could make
a search skip a position it has not explored.
"""

from libc.stdint cimport uint8_t, uint64_t, int32_t
from libc.stdlib cimport malloc, realloc, free, calloc
from libc.string cimport memset

cdef enum:
    MAXC = 13      # columns
    MAXL = 160     # cards in one column (3 decks: 156)
    MAXSLOT = 4    # reserve cards or cells
    MAXSTOCK = 4
    MAXRUNS = 12
    MAXI = MAXC * 13 + MAXSLOT + 4   # card instances on the table (3 decks: 156) and slots

    COL = 0
    RES = 1
    CELL = 2
    TO_CELL = 3
    DEAL = 4

cdef uint64_t Z1[MAXL][52]
cdef uint64_t Z2[MAXL][52]
cdef uint64_t ZH1[MAXL + 1]
cdef uint64_t ZH2[MAXL + 1]
cdef uint64_t ZC1[MAXC]
cdef uint64_t ZC2[MAXC]
cdef uint64_t ZR1[52]
cdef uint64_t ZR2[52]
cdef uint64_t ZL1[52]
cdef uint64_t ZL2[52]
cdef uint64_t ZS1, ZS2

cdef uint64_t _seed = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _next() noexcept:
    global _seed
    _seed += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = _seed
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t mix1(uint64_t z) noexcept:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t mix2(uint64_t z) noexcept:
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDULL
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ULL
    return z ^ (z >> 33)


cdef void _init_tables() noexcept:
    global ZS1, ZS2
    cdef int k, c
    for k in range(MAXL):
        for c in range(52):
            Z1[k][c] = _next()
            Z2[k][c] = _next()
    for k in range(MAXL + 1):
        ZH1[k] = _next()
        ZH2[k] = _next()
    for k in range(MAXC):
        ZC1[k] = _next()
        ZC2[k] = _next()
    for c in range(52):
        ZR1[c] = _next()
        ZR2[c] = _next()
        ZL1[c] = _next()
        ZL2[c] = _next()
    ZS1 = _next()
    ZS2 = _next()


_init_tables()


cdef inline bint is_red(int card) noexcept:
    cdef int s = card // 13
    return s == 1 or s == 2


cdef struct Rec:
    int kind
    int a
    int i
    int b
    int n
    int fa
    int fb
    int card
    int deal[MAXSTOCK]


cdef inline int _meet(
    int x, uint8_t *sat, uint8_t *need, uint8_t *ok, int *stack, int sp
) noexcept:
    """``Search._dead``'s one step: instance x's clause ``sat`` is met (once); when it was
    x's last clause waited for, x's events can happen (``ok``) and x is pushed for the
    propagation. The stack's new size. (Inlined by the C compiler: no call per step.)"""
    if not sat[x]:
        sat[x] = 1
        need[x] -= 1
        if not need[x]:
            ok[x] = 1
            stack[sp] = x
            sp += 1
    return sp


cdef class Search:
    """One search's state (module docstring). Built from a game's position; ``run`` searches."""

    cdef uint8_t cols[MAXC][MAXL]
    cdef int lens[MAXC]
    cdef int hid[MAXC]
    cdef uint64_t ch1[MAXC]
    cdef uint64_t ch2[MAXC]
    cdef int ncols
    cdef int nstock
    cdef uint8_t stock[MAXSTOCK]
    cdef bint stocked
    cdef int res[MAXSLOT]
    cdef int nres
    cdef int cell[MAXSLOT]
    cdef int ncell
    cdef int done
    cdef int runs_needed
    cdef bint any_empty
    cdef bint alternate
    cdef int decks
    # parents[card]: the logical cards it may land on
    cdef int par[52][2]
    cdef int npar[52]
    cdef int chi[52][2]
    cdef int nchi[52]
    # removed runs (13 cards each, as they lay)
    cdef uint8_t runstack[MAXRUNS * 13 + 13]
    cdef int nrun
    # transposition table
    cdef uint64_t *t1
    cdef uint64_t *t2
    cdef long long tcap
    cdef long long tfill
    cdef long long tmax
    # moves and frames
    cdef int32_t *moves
    cdef int *scores
    cdef long long mcap
    cdef int *fstart
    cdef int *fcount
    cdef int *fnext
    cdef Rec *recs
    cdef long long fcap
    # sure joins (flags as in family_search.FamilySearch / search.PlainSearch)
    cdef bint sure_joins
    cdef bint run_joins
    cdef bint cell_joins
    cdef bint safe_joins
    # the win-first phase's runs (``core.compiled_win_first``): never pick a face-up card off
    # a face-up card it fits on (unsound for a loss: such a run never claims one), and add a
    # seeded random bonus below ``noise`` to each move's priority
    cdef bint keep_joined
    cdef int noise
    cdef bint deal_scored
    cdef bint dig
    cdef int deal_priority
    cdef uint64_t rng
    # proof.py's proof of loss (``dead_reason_no_cells``) at every node (``_dead``)
    cdef bint prove
    cdef public long long nodes
    cdef public long long joins_taken
    cdef public long long dead_checks
    cdef public long long dead_cuts

    def __cinit__(self):
        self.t1 = NULL
        self.t2 = NULL
        self.moves = NULL
        self.scores = NULL
        self.fstart = NULL
        self.fcount = NULL
        self.fnext = NULL
        self.recs = NULL

    def __dealloc__(self):
        free(self.t1)
        free(self.t2)
        free(self.moves)
        free(self.scores)
        free(self.fstart)
        free(self.fcount)
        free(self.fnext)
        free(self.recs)

    def __init__(
        self,
        list cols,
        list hidden,
        list stock,
        list reserve,
        list cells,
        int done,
        int nstock,
        bint any_empty,
        bint alternate,
        int decks,
        int runs_needed,
        bint prune=True,
        long long max_entries=1 << 25,
        bint keep_joined=False,
        int noise=0,
        unsigned long long seed=0,
        object deal_priority=None,
        bint dig=False,
        bint prove=True,
    ):
        cdef int c, k, card, s, r
        self.ncols = len(cols)
        if self.ncols > MAXC or len(reserve) > MAXSLOT or len(cells) > MAXSLOT:
            raise ValueError("position too large for the compiled core")
        if nstock > MAXSTOCK:
            raise ValueError("stock too large for the compiled core")
        self.nstock = nstock
        self.any_empty = any_empty
        self.alternate = alternate
        self.decks = decks
        self.runs_needed = runs_needed
        self.done = done
        self.nrun = 0
        self.nodes = 0
        self.keep_joined = keep_joined
        self.dig = dig
        # the deal scored among the moves (``winfirst.DEAL_PRIORITY``), else after them all
        self.deal_scored = deal_priority is not None
        self.deal_priority = deal_priority if deal_priority is not None else 0
        self.noise = noise
        self.rng = mix1(seed + 0x632BE59BD9B4E019ULL)
        self.joins_taken = 0
        self.dead_checks = 0
        self.dead_cuts = 0
        for card in range(52):
            self.npar[card] = 0
            self.nchi[card] = 0
        for card in range(52):
            r = card % 13
            if r == 12:
                continue
            if alternate:
                for s in range(4):
                    if is_red(s * 13) != is_red(card):
                        self.par[card][self.npar[card]] = s * 13 + r + 1
                        self.npar[card] += 1
            else:
                self.par[card][0] = card + 1
                self.npar[card] = 1
        for card in range(52):
            for k in range(self.npar[card]):
                s = self.par[card][k]
                self.chi[s][self.nchi[s]] = card
                self.nchi[s] += 1
        for c in range(self.ncols):
            col = cols[c]
            if len(col) > MAXL:
                raise ValueError("column too long for the compiled core")
            self.lens[c] = 0
            self.ch1[c] = 0
            self.ch2[c] = 0
            for card in col:
                self._push(c, card % 52)
            self.hid[c] = hidden[c]
            self.ch1[c] += ZH1[self.hid[c]]
            self.ch2[c] += ZH2[self.hid[c]]
        self.stocked = len(stock) > 0
        for k in range(len(stock)):
            self.stock[k] = stock[k] % 52
        self.nres = len(reserve)
        for k in range(self.nres):
            self.res[k] = reserve[k] % 52 if reserve[k] >= 0 else -1
        self.ncell = len(cells)
        for k in range(self.ncell):
            self.cell[k] = cells[k] % 52 if cells[k] >= 0 else -1
        one = decks == 1 and not alternate and not any_empty and nstock == 0
        self.sure_joins = prune and one and self.ncell == 0
        self.run_joins = prune and one
        self.cell_joins = prune and one and 0 < self.ncell <= 2 and self.nres == 0
        # search.PlainSearch.safe_joins: Scorpion and Scorpion II
        self.safe_joins = (
            prune and decks == 1 and not alternate and not any_empty and self.ncols == 7
            and nstock == 3 and self.nres == 0 and self.ncell == 0
        )
        # proof.py's premises (its module docstring): an empty column takes only a King or a
        # King-led group (not Wasp, Wasp II); the port is ``dead_reason_no_cells``: no cell
        # (not Scorpion Head, How They Run). Every other variant, reserves and several decks
        # and alternate colours included; off with ``prune=False`` (plain exhaustive search)
        self.prove = prove and prune and not any_empty and self.ncell == 0
        self.tcap = 1 << 16
        self.tfill = 0
        self.tmax = max_entries
        self.t1 = <uint64_t *> calloc(self.tcap, sizeof(uint64_t))
        self.t2 = <uint64_t *> calloc(self.tcap, sizeof(uint64_t))
        self.mcap = 1 << 14
        self.moves = <int32_t *> malloc(self.mcap * sizeof(int32_t))
        self.scores = <int *> malloc(self.mcap * sizeof(int))
        self.fcap = 1 << 12
        self.fstart = <int *> malloc(self.fcap * sizeof(int))
        self.fcount = <int *> malloc(self.fcap * sizeof(int))
        self.fnext = <int *> malloc(self.fcap * sizeof(int))
        self.recs = <Rec *> malloc(self.fcap * sizeof(Rec))
        if (
            self.t1 == NULL or self.t2 == NULL or self.moves == NULL or self.scores == NULL
            or self.fstart == NULL or self.fcount == NULL or self.fnext == NULL
            or self.recs == NULL
        ):
            raise MemoryError()

    # -- cards in columns (the column hashes follow) ------------------------------------

    cdef inline void _push(self, int c, int card) noexcept:
        cdef int k = self.lens[c]
        self.cols[c][k] = card
        self.ch1[c] += Z1[k][card]
        self.ch2[c] += Z2[k][card]
        self.lens[c] = k + 1

    cdef inline int _pop(self, int c) noexcept:
        cdef int k = self.lens[c] - 1
        cdef int card = self.cols[c][k]
        self.ch1[c] -= Z1[k][card]
        self.ch2[c] -= Z2[k][card]
        self.lens[c] = k
        return card

    cdef inline void _set_hidden(self, int c, int h) noexcept:
        self.ch1[c] += ZH1[h] - ZH1[self.hid[c]]
        self.ch2[c] += ZH2[h] - ZH2[self.hid[c]]
        self.hid[c] = h

    # -- the engine's automatic consequences ---------------------------------------------

    cdef inline bint _remove_run(self, int c) noexcept:
        cdef int n = self.lens[c]
        cdef int k, card, red
        if n < 13 or self.cols[c][n - 1] % 13 != 0 or n - 13 < self.hid[c]:
            return False
        cdef uint8_t *top = &self.cols[c][n - 13]
        if self.alternate:
            red = is_red(top[0])
            for k in range(13):
                card = top[k]
                if card % 13 != 12 - k or is_red(card) != red:
                    return False
                red = not red
        else:
            card = top[0]
            if card % 13 != 12:
                return False
            for k in range(1, 13):
                if top[k] != card - k:
                    return False
        cdef uint8_t *dst = &self.runstack[self.nrun * 13]
        for k in range(12, -1, -1):
            dst[k] = self._pop(c)
        self.nrun += 1
        self.done += 1
        return True

    cdef inline bint _reveal(self, int c) noexcept:
        if self.lens[c] and self.lens[c] == self.hid[c]:
            self._set_hidden(c, self.hid[c] - 1)
            return True
        return False

    cdef inline int _settle_target(self, int c) noexcept:
        cdef int n = 0
        while self._remove_run(c):
            n += 1
        if n:
            return n | (16 if self._reveal(c) else 0)
        return 0

    cdef inline int _settle_source(self, int c) noexcept:
        if self._reveal(c):
            return 16
        return self._settle_target(c)

    cdef inline void _unsettle(self, int c, int flags) noexcept:
        cdef int r, k
        cdef uint8_t *src
        if flags & 16:
            self._set_hidden(c, self.hid[c] + 1)
        for r in range(flags & 15):
            self.nrun -= 1
            self.done -= 1
            src = &self.runstack[self.nrun * 13]
            for k in range(13):
                self._push(c, src[k])

    # -- make and undo --------------------------------------------------------------------

    cdef void _make(self, int32_t m, Rec *rec) noexcept:
        cdef int kind = m >> 24
        cdef int a = (m >> 16) & 255
        cdef int i = (m >> 8) & 255
        cdef int b = m & 255
        cdef int k, n, card
        rec.kind = kind
        rec.a = a
        rec.i = i
        rec.b = b
        rec.fa = 0
        rec.fb = 0
        if kind == COL:
            n = self.lens[a] - i
            rec.n = n
            for k in range(i, i + n):
                self._push(b, self.cols[a][k])
            for k in range(n):
                self._pop(a)
            rec.fa = self._settle_source(a)
            rec.fb = self._settle_target(b)
        elif kind == TO_CELL:
            card = self._pop(a)
            self.cell[b] = card
            rec.fa = self._settle_source(a)
        elif kind == RES or kind == CELL:
            if kind == RES:
                card = self.res[a]
                self.res[a] = -1
            else:
                card = self.cell[a]
                self.cell[a] = -1
            rec.card = card
            self._push(b, card)
            rec.fb = self._settle_target(b)
        else:  # DEAL
            for k in range(self.nstock):
                self._push(k, self.stock[k])
            self.stocked = False
            for k in range(self.nstock):
                rec.deal[k] = self._settle_target(k)

    cdef void _undo(self, Rec *rec) noexcept:
        cdef int kind = rec.kind
        cdef int k, n
        cdef int a = rec.a
        cdef int b = rec.b
        if kind == COL:
            self._unsettle(b, rec.fb)
            self._unsettle(a, rec.fa)
            n = rec.n
            base = self.lens[b] - n
            for k in range(base, base + n):
                self._push(a, self.cols[b][k])
            for k in range(n):
                self._pop(b)
        elif kind == TO_CELL:
            self._unsettle(a, rec.fa)
            self._push(a, self.cell[b])
            self.cell[b] = -1
        elif kind == RES or kind == CELL:
            self._unsettle(b, rec.fb)
            self._pop(b)
            if kind == RES:
                self.res[a] = rec.card
            else:
                self.cell[a] = rec.card
        else:
            for k in range(self.nstock - 1, -1, -1):
                self._unsettle(k, rec.deal[k])
            for k in range(self.nstock - 1, -1, -1):
                self._pop(k)
            self.stocked = True

    # -- keys and the transposition table -------------------------------------------------

    cdef inline void _key(self, uint64_t *k1, uint64_t *k2) noexcept:
        cdef uint64_t a1 = 0, a2 = 0
        cdef int c, x
        for c in range(self.ncols):
            if self.stocked and c < self.nstock:
                a1 += mix1(self.ch1[c] + ZC1[c])
                a2 += mix2(self.ch2[c] + ZC2[c])
            else:
                a1 += mix1(self.ch1[c])
                a2 += mix2(self.ch2[c])
        for c in range(self.nres):
            x = self.res[c]
            if x >= 0:
                a1 += ZR1[x]
                a2 += ZR2[x]
        for c in range(self.ncell):
            x = self.cell[c]
            if x >= 0:
                a1 += ZL1[x]
                a2 += ZL2[x]
        if self.stocked:
            a1 += ZS1
            a2 += ZS2
        if a1 == 0:
            a1 = 1
        k1[0] = a1
        k2[0] = a2

    cdef int _grow(self) noexcept:
        cdef long long ncap = self.tcap * 2
        cdef uint64_t *n1 = <uint64_t *> calloc(ncap, sizeof(uint64_t))
        cdef uint64_t *n2 = <uint64_t *> calloc(ncap, sizeof(uint64_t))
        cdef long long j, h, mask = ncap - 1
        if n1 == NULL or n2 == NULL:
            free(n1)
            free(n2)
            return 0
        for j in range(self.tcap):
            if self.t1[j]:
                h = <long long> (self.t1[j] & <uint64_t> mask)
                while n1[h]:
                    h = (h + 1) & mask
                n1[h] = self.t1[j]
                n2[h] = self.t2[j]
        free(self.t1)
        free(self.t2)
        self.t1 = n1
        self.t2 = n2
        self.tcap = ncap
        return 1

    cdef int _insert(self, uint64_t k1, uint64_t k2) noexcept:
        """1 inserted, 0 already there, -1 the table is full (the search must stop)."""
        cdef long long mask = self.tcap - 1
        cdef long long h = <long long> (k1 & <uint64_t> mask)
        while self.t1[h]:
            if self.t1[h] == k1 and self.t2[h] == k2:
                return 0
            h = (h + 1) & mask
        if 2 * (self.tfill + 1) > self.tcap:
            if self.tcap * 2 <= self.tmax and self._grow():
                return self._insert(k1, k2)
            if 10 * (self.tfill + 1) > 9 * self.tcap:
                return -1
        self.t1[h] = k1
        self.t2[h] = k2
        self.tfill += 1
        return 1

    def key(self):
        """The position's 128-bit key (for tests)."""
        cdef uint64_t k1, k2
        self._key(&k1, &k2)
        return (k1, k2)

    # -- moves ------------------------------------------------------------------------

    cdef inline int _ensure_moves(self, long long need) noexcept:
        if need <= self.mcap:
            return 1
        cdef long long ncap = self.mcap
        while ncap < need:
            ncap *= 2
        cdef int32_t *nm = <int32_t *> realloc(self.moves, ncap * sizeof(int32_t))
        if nm == NULL:
            return 0
        self.moves = nm
        cdef int *ns = <int *> realloc(self.scores, ncap * sizeof(int))
        if ns == NULL:
            return 0
        self.scores = ns
        self.mcap = ncap
        return 1

    cdef int _forced(self, int32_t *out) noexcept:
        """A sure join to take as the only move, or 0 (module docstring)."""
        cdef int k, x, p, b, n, t, m, a, i, j, top
        cdef bint ok, found
        cdef uint8_t *col
        if self.sure_joins:
            # family_search.FamilySearch.reserve_join
            for k in range(self.nres):
                x = self.res[k]
                if x < 0:
                    continue
                for j in range(self.npar[x]):
                    p = self.par[x][j]
                    for b in range(self.ncols):
                        n = self.lens[b]
                        if n and self.cols[b][n - 1] == p:
                            out[0] = (RES << 24) | (k << 16) | b
                            return 1
        if self.run_joins:
            # family_search.FamilySearch.king_run_join
            for t in range(self.ncols):
                m = self.lens[t]
                col = self.cols[t]
                if not (self.ncell < m < 13) or self.hid[t]:
                    continue
                top = col[0]
                if top % 13 != 12:
                    continue
                ok = True
                for j in range(1, m):
                    if col[j] != top - j:
                        ok = False
                        break
                if not ok:
                    continue
                x = col[m - 1] - 1
                found = False
                for a in range(self.ncols):
                    if a == t:
                        continue
                    for i in range(self.lens[a]):
                        if self.cols[a][i] == x:
                            found = True
                            if i >= self.hid[a] and (i == 0 or self.cols[a][i - 1] % 13 != 0):
                                out[0] = (COL << 24) | (a << 16) | (i << 8) | t
                                return 1
                            break
                    if found:
                        break
        if self.cell_joins:
            # family_search.FamilySearch.cell_join
            for k in range(self.ncell):
                x = self.cell[k]
                if x < 0:
                    continue
                for j in range(self.npar[x]):
                    p = self.par[x][j]
                    for b in range(self.ncols):
                        n = self.lens[b]
                        if n >= 2 and self.cols[b][n - 1] == p and n - 2 >= self.hid[b]:
                            top = self.cols[b][n - 2]
                            if self.npar[p] and (
                                self.par[p][0] == top or (self.npar[p] > 1 and self.par[p][1] == top)
                            ):
                                out[0] = (CELL << 24) | (k << 16) | b
                                return 1
        return 0

    cdef int _gen(self, long long start) noexcept:
        """Write the moves worth trying from the position at ``moves[start:]``, best first
        (``family_search.FamilySearch.scored_moves``'s priorities); their count, -1 when out
        of memory."""
        cdef int wanted[52]
        cdef int targets[MAXC]
        cdef int ntargets = 0
        cdef int t, a, i, n, h, card, b, k, j, prio, p, cnt, late
        cdef int32_t mv
        cdef int32_t forced
        cdef int ncols = self.ncols
        cdef bint stocked = self.stocked
        cdef int nstock = self.nstock
        cdef bint to_empty
        cdef int mask
        cdef bint ok
        cdef uint8_t loose[52]
        cdef int free
        cdef int32_t *moves
        cdef int *scores
        if not self._ensure_moves(start + 4096):
            return -1
        moves = self.moves + start
        scores = self.scores + start
        if self.safe_joins:
            # search.PlainSearch.safe_joins (Scorpion, Scorpion II)
            for t in range(ncols):
                n = self.lens[t]
                if not n or self.hid[t]:
                    continue
                p = self.cols[t][n - 1]
                if p % 13 == 0 or n != 12 - (p - 1) % 13 or self.cols[t][0] % 13 != 12:
                    continue
                ok = True
                for j in range(1, n):
                    if self.cols[t][j] != self.cols[t][0] - j:
                        ok = False
                        break
                if not ok:
                    continue
                for a in range(ncols):
                    if a == t:
                        continue
                    for i in range(self.hid[a], self.lens[a]):
                        if self.cols[a][i] == p - 1:
                            if not stocked or (a >= nstock and t >= nstock):
                                moves[0] = (COL << 24) | (a << 16) | (i << 8) | t
                                self.joins_taken += 1
                                return 1
        if self._forced(&forced):
            moves[0] = forced
            self.joins_taken += 1
            return 1
        memset(wanted, 0, sizeof(wanted))
        late = -1
        for t in range(ncols):
            n = self.lens[t]
            if n:
                p = self.cols[t][n - 1]
                for j in range(self.nchi[p]):
                    wanted[self.chi[p][j]] |= 1 << t
            elif not stocked:
                if ntargets == 0:
                    targets[0] = t
                    ntargets = 1
            elif t < nstock:
                targets[ntargets] = t
                ntargets += 1
            elif late < 0:
                late = t
        if stocked and late >= 0:
            targets[ntargets] = late
            ntargets += 1
        cnt = 0
        for a in range(ncols):
            n = self.lens[a]
            h = self.hid[a]
            for i in range(h, n):
                card = self.cols[a][i]
                mask = wanted[card] & ~(1 << a)
                to_empty = ntargets > 0 and (self.any_empty or card % 13 == 12)
                if not mask and not to_empty:
                    continue
                prio = 0
                if i == h and h:
                    prio += 100
                elif i and i - 1 >= h and self._fits(card, self.cols[a][i - 1]):
                    if self.keep_joined:
                        continue
                    prio -= 50
                if i == 0:
                    prio += 30
                if mask:
                    for b in range(ncols):
                        if mask & (1 << b):
                            moves[cnt] = (COL << 24) | (a << 16) | (i << 8) | b
                            scores[cnt] = prio + 10 - (n - i)
                            cnt += 1
                if to_empty:
                    for k in range(ntargets):
                        b = targets[k]
                        if b == a:
                            continue
                        if i == 0 and not (stocked and (a < nstock or b < nstock)):
                            continue
                        moves[cnt] = (COL << 24) | (a << 16) | (i << 8) | b
                        scores[cnt] = prio + (20 if i else -20)
                        cnt += 1
        for j in range(2):
            for k in range(self.nres if j == 0 else self.ncell):
                card = self.res[k] if j == 0 else self.cell[k]
                if card < 0:
                    continue
                for p in range(self.npar[card]):
                    for b in range(ncols):
                        n = self.lens[b]
                        if n and self.cols[b][n - 1] == self.par[card][p]:
                            moves[cnt] = ((RES if j == 0 else CELL) << 24) | (k << 16) | b
                            scores[cnt] = 60
                            cnt += 1
                if ntargets and (self.any_empty or card % 13 == 12):
                    for i in range(ntargets):
                        moves[cnt] = ((RES if j == 0 else CELL) << 24) | (k << 16) | targets[i]
                        scores[cnt] = 50
                        cnt += 1
        if self.ncell:
            k = -1
            free = 0
            for j in range(self.ncell):
                if self.cell[j] < 0:
                    free += 1
                    if k < 0:
                        k = j
            if k >= 0 and self.keep_joined:
                self._loose(loose)
            if k >= 0:
                for a in range(ncols):
                    n = self.lens[a]
                    if n and (
                        not self.keep_joined
                        or self._cell_useful(a, loose, free if self.dig else 1)
                    ):
                        prio = -80 + (100 if n - 1 == self.hid[a] and self.hid[a] else 0)
                        if n == 1:
                            prio += 15
                        moves[cnt] = (TO_CELL << 24) | (a << 16) | ((n - 1) << 8) | k
                        scores[cnt] = prio
                        cnt += 1
        if stocked and self.deal_scored:
            moves[cnt] = DEAL << 24
            scores[cnt] = self.deal_priority
            cnt += 1
        if self.noise > 0:
            for i in range(cnt):
                self.rng ^= self.rng << 13
                self.rng ^= self.rng >> 7
                self.rng ^= self.rng << 17
                scores[i] += <int> (self.rng % <uint64_t> self.noise)
        # stable insertion sort, higher scores first
        for i in range(1, cnt):
            mv = moves[i]
            p = scores[i]
            j = i - 1
            while j >= 0 and scores[j] < p:
                moves[j + 1] = moves[j]
                scores[j + 1] = scores[j]
                j -= 1
            moves[j + 1] = mv
            scores[j + 1] = p
        if stocked and not self.deal_scored:
            moves[cnt] = DEAL << 24  # the deal last
            cnt += 1
        return cnt

    cdef void _loose(self, uint8_t *loose) noexcept:
        """``winfirst._WinFirst._loose``: the cards that may move somewhere once a card they
        fit on is bare (reserve and cell cards, face-up cards not on a card they fit on)."""
        cdef int c, i, h, x
        memset(loose, 0, 52)
        for c in range(self.nres):
            if self.res[c] >= 0:
                loose[self.res[c]] = 1
        for c in range(self.ncell):
            if self.cell[c] >= 0:
                loose[self.cell[c]] = 1
        for c in range(self.ncols):
            h = self.hid[c]
            for i in range(h, self.lens[c]):
                x = self.cols[c][i]
                if i == 0 or i == h or not self._fits(x, self.cols[c][i - 1]):
                    loose[x] = 1

    cdef bint _cell_useful(self, int a, uint8_t *loose, int depth) noexcept:
        """``winfirst._WinFirst._cell_useful`` (the win-first runs' cell rule, a heuristic):
        the exposed card of column a goes into a cell only when that (or, digging, up to
        ``depth`` cards going in one by one) empties the column, turns a face-down card up, or
        bares a card a loose card fits on, or that fits on another column's exposed card."""
        cdef int n = self.lens[a]
        cdef int h = self.hid[a]
        cdef int k, j, c, bare, m, t, p
        cdef bint moved, empty
        cdef uint8_t *col = self.cols[a]
        for k in range(1, depth + 1):
            if n - k < h:
                return False
            if n == k or n - k == h:
                return True
            bare = col[n - k - 1]
            for j in range(self.nchi[bare]):
                c = self.chi[bare][j]
                if loose[c]:
                    moved = False
                    for m in range(n - k, n):
                        if col[m] == c:
                            moved = True
                            break
                    if not moved:
                        return True
            if bare % 13 == 12:
                if self.dig and n - k - 1 > 0:
                    empty = False
                    for t in range(self.ncols):
                        if not self.lens[t]:
                            empty = True
                            break
                    if empty:
                        return True
                continue
            if n - k - 1 > h and self._fits(bare, col[n - k - 2]):
                continue
            for t in range(self.ncols):
                if t != a and self.lens[t]:
                    p = self.cols[t][self.lens[t] - 1]
                    if self._fits(bare, p):
                        return True
        return False

    # -- the proof of loss (``proof.py``) -------------------------------------------------

    cdef bint _dead(self) noexcept:
        """``proof.dead_reason_no_cells`` (``kept=False``) on the position: True when it proves
        the position lost, in the variants where ``self.prove`` says its premises hold.

        The same computation as the Python function, statement for statement, on C arrays:
        the card instances are the columns' cards (deepest first, column after column, the
        empty columns skipped) then the reserve's; each instance has at most two clauses
        (its cover clause and, a non-King, its join clause; ``proof.py`` says which events
        meet them), ``need`` counts the clauses not yet met, and one propagation draws the
        least fixpoint. ``freed[c]``: the join clauses of card c's instances are met from the
        start by a parent in the stock or exposed in two columns (-2), or exposed in one
        column (that column's first instance: not for an instance of that column, which the
        parent lies above), -1: not. The "p above i in i's column" clauses (the instance p of
        a parent lies above i: i joins it only once one of the cards from just above i up to
        p and, unless p is exposed, the card on p have left) are kept per column as pairs
        (i, p) and re-examined whenever a card of the column can leave. The answer is the
        Python one's (``tests/engine/test_solver_core.py`` compares them on positions of
        every variant the proof serves): a required event outside the fixpoint (a non-King
        not lying on a parent that can never join one; the cover of a face-down card, a
        King or a reserve card that can never leave) proves the position lost, and
        ``proof.py``'s docstring proves that sound (a proof can only miss a loss)."""
        cdef int freed[52]
        cdef int where[52][4]
        cdef int nwhere[52]
        cdef int card_of[MAXI]
        cdef int base[MAXI]
        cdef int colix[MAXI]
        cdef uint8_t need[MAXI]
        cdef uint8_t csat[MAXI]
        cdef uint8_t jsat[MAXI]
        cdef uint8_t ok[MAXI]
        cdef int stack[MAXI]
        cdef int ewait[MAXI]
        cdef int rx[MAXI * 8]
        cdef int rj[MAXI * 8]
        cdef int rs[MAXC]
        cdef int re[MAXC]
        cdef int sp = 0
        cdef int ne = 0
        cdef int nr = 0
        cdef int c, k, j, q, x, y, p, m, s, e, fd, i, n, n_tab, f, b, u, top
        cdef bint e_ok = False
        cdef bint any_ok
        cdef int total = 0
        for c in range(self.ncols):
            total += self.lens[c]
        if total + self.nres > MAXI:
            return False  # (never in a real game) no proof: only a missed cut
        for k in range(52):
            freed[k] = -1
            nwhere[k] = 0
        if self.stocked:
            for k in range(self.nstock):
                p = self.stock[k]
                for j in range(self.nchi[p]):
                    freed[self.chi[p][j]] = -2
        n = 0
        for c in range(self.ncols):
            m = self.lens[c]
            rs[c] = 0
            re[c] = 0
            if not m:
                e_ok = True  # E: some column is empty (else its deepest card must leave)
                continue
            for k in range(m):
                card_of[n + k] = self.cols[c][k]
                base[n + k] = n
                colix[n + k] = c
            p = self.cols[c][m - 1]
            for j in range(self.nchi[p]):
                x = self.chi[p][j]
                f = freed[x]
                freed[x] = n if f == -1 else (f if f == n else -2)
            n += m
        n_tab = n
        for k in range(self.nres):
            if self.res[k] >= 0:
                card_of[n] = self.res[k]
                base[n] = n
                colix[n] = -1
                n += 1
        for i in range(n):
            x = card_of[i]
            if nwhere[x] >= 4:
                return False  # (never: at most three decks) no proof
            where[x][nwhere[x]] = i
            nwhere[x] += 1
        i = 0
        for c in range(self.ncols):
            m = self.lens[c]
            if not m:
                continue
            s = i
            e = s + m
            fd = s + self.hid[c]
            rs[c] = nr
            while i < e:
                x = card_of[i]
                need[i] = 0
                csat[i] = 1
                jsat[i] = 1
                if x % 13 == 12:
                    if i + 1 < e and (i < fd or not self._fits(card_of[i + 1], x)):
                        if i < fd:
                            need[i] = 1
                            csat[i] = 0
                        elif not e_ok:
                            need[i] = 1
                            csat[i] = 0
                            ewait[ne] = i
                            ne += 1
                        else:
                            stack[sp] = i
                            sp += 1
                    else:
                        stack[sp] = i
                        sp += 1
                else:
                    f = freed[x]
                    if f == -1 or f == s:
                        jsat[i] = 0
                        if i < fd:
                            need[i] = 2
                            csat[i] = 0
                        else:
                            need[i] = 1
                        for k in range(self.npar[x]):
                            p = self.par[x][k]
                            for q in range(nwhere[p]):
                                j = where[p][q]
                                if i < j < e:
                                    rx[nr] = i
                                    rj[nr] = j
                                    nr += 1
                    elif i < fd:
                        need[i] = 1
                        csat[i] = 0
                    else:
                        stack[sp] = i
                        sp += 1
                i += 1
            re[c] = nr
        for i in range(n_tab, n):
            x = card_of[i]
            need[i] = 0
            csat[i] = 1
            jsat[i] = 1
            if x % 13 == 12:
                if e_ok:
                    stack[sp] = i
                    sp += 1
                else:
                    need[i] = 1
                    csat[i] = 0
                    ewait[ne] = i
                    ne += 1
            elif freed[x] == -1:
                need[i] = 1
                jsat[i] = 0
            else:
                stack[sp] = i
                sp += 1
        for i in range(n):
            ok[i] = need[i] == 0
        while sp:
            sp -= 1
            k = stack[sp]
            if k >= n_tab:  # a reserve card leaves: the join clauses of its children's instances
                y = card_of[k]
                for j in range(self.nchi[y]):
                    c = self.chi[y][j]
                    for q in range(nwhere[c]):
                        sp = _meet(where[c][q], jsat, need, ok, stack, sp)
                continue
            b = base[k]
            if k > b:
                u = k - 1  # uncovered
                sp = _meet(u, csat, need, ok, stack, sp)
                y = card_of[u]
                for j in range(self.nchi[y]):
                    c = self.chi[y][j]
                    for q in range(nwhere[c]):
                        x = where[c][q]
                        # x == k lies on u; below u in its column: a "p above i" pair (below)
                        if x != k and not (b <= x < u):
                            sp = _meet(x, jsat, need, ok, stack, sp)
            elif not e_ok:
                e_ok = True
                for q in range(ne):
                    sp = _meet(ewait[q], csat, need, ok, stack, sp)
            c = colix[k]
            top = b + self.lens[c] - 1
            for q in range(rs[c], re[c]):
                x = rx[q]
                j = rj[q]
                if not jsat[x] and x < k <= j + 1 and (j == top or ok[j + 1]):
                    any_ok = False
                    for y in range(x + 1, j + 1):
                        if ok[y]:
                            any_ok = True
                            break
                    if any_ok:
                        sp = _meet(x, jsat, need, ok, stack, sp)
        for i in range(n):
            if ok[i]:
                continue
            x = card_of[i]
            if x % 13 != 12 and not (i > base[i] and self._fits(x, card_of[i - 1])):
                return True  # a required join: a non-King not lying on a parent
            if i >= n_tab or x % 13 == 12:
                return True  # a King's or a reserve card's required leave
            if i > base[i] and i - 1 < base[i] + self.hid[colix[i]]:
                return True  # the cover of a face-down card
        return False

    def dead(self):
        """True when ``proof.py``'s proof (``dead_reason_no_cells``) proves the position lost,
        in a variant whose premises it holds (``prove``; else False): for tests."""
        return bool(self.prove and self._dead())

    cdef inline bint _fits(self, int card, int top) noexcept:
        cdef int j
        for j in range(self.npar[card]):
            if self.par[card][j] == top:
                return True
        return False

    cdef int _ensure_frames(self, long long need) noexcept:
        if need <= self.fcap:
            return 1
        cdef long long ncap = self.fcap * 2
        cdef int *a = <int *> realloc(self.fstart, ncap * sizeof(int))
        if a == NULL:
            return 0
        self.fstart = a
        a = <int *> realloc(self.fcount, ncap * sizeof(int))
        if a == NULL:
            return 0
        self.fcount = a
        a = <int *> realloc(self.fnext, ncap * sizeof(int))
        if a == NULL:
            return 0
        self.fnext = a
        cdef Rec *r = <Rec *> realloc(self.recs, ncap * sizeof(Rec))
        if r == NULL:
            return 0
        self.recs = r
        self.fcap = ncap
        return 1

    def _action(self, int32_t m):
        cdef int kind = m >> 24
        cdef int a = (m >> 16) & 255
        cdef int i = (m >> 8) & 255
        cdef int b = m & 255
        if kind == COL:
            return ("move", a, i, b)
        if kind == TO_CELL:
            return ("move", a, i, b, "column", "cell")
        if kind == RES:
            return ("move", a, 0, b, "reserve", "column")
        if kind == CELL:
            return ("move", a, 0, b, "cell", "column")
        return ("deal",)

    def run(self, double deadline, object clock, long long max_nodes):
        """Search from the position: ``("win", line, nodes)``, ``("loss", None, nodes)`` or
        ``("unknown", None, nodes)`` (the budget spent: ``clock()`` reached ``deadline``, or
        ``max_nodes`` positions were expanded, or the table or the stack ran out of memory).
        """
        cdef uint64_t k1, k2
        cdef int depth = 0
        cdef int cnt, ins
        cdef int32_t m
        cdef long long top
        if self.done == self.runs_needed:
            return ("win", [], 0)
        self._key(&k1, &k2)
        self._insert(k1, k2)
        self.nodes = 1
        if self.prove:
            self.dead_checks += 1
            if self._dead():
                self.dead_cuts += 1
                return ("loss", None, self.nodes)
        cnt = self._gen(0)
        if cnt < 0:
            return ("unknown", None, self.nodes)
        self.fstart[0] = 0
        self.fcount[0] = cnt
        self.fnext[0] = 0
        while depth >= 0:
            if self.fnext[depth] == self.fcount[depth]:
                depth -= 1
                if depth >= 0:
                    self._undo(&self.recs[depth])
                continue
            m = self.moves[self.fstart[depth] + self.fnext[depth]]
            self.fnext[depth] += 1
            self._make(m, &self.recs[depth])
            if self.done == self.runs_needed:
                return ("win", self._line(depth), self.nodes)
            self._key(&k1, &k2)
            ins = self._insert(k1, k2)
            if ins == 0:
                self._undo(&self.recs[depth])
                continue
            if ins < 0:
                return ("unknown", None, self.nodes)
            self.nodes += 1
            if self.nodes >= max_nodes or (not (self.nodes & 1023) and clock() >= deadline):
                return ("unknown", None, self.nodes)
            if self.prove:
                # a position proof.py proves lost is not expanded (it stays in the table:
                # met again, it is lost again)
                self.dead_checks += 1
                if self._dead():
                    self.dead_cuts += 1
                    self._undo(&self.recs[depth])
                    continue
            if not self._ensure_frames(depth + 2):
                return ("unknown", None, self.nodes)
            top = self.fstart[depth] + self.fcount[depth]
            cnt = self._gen(top)
            if cnt < 0:
                return ("unknown", None, self.nodes)
            depth += 1
            self.fstart[depth] = top
            self.fcount[depth] = cnt
            self.fnext[depth] = 0
        return ("loss", None, self.nodes)

    def _line(self, int depth):
        cdef int d
        line = []
        for d in range(depth + 1):
            line.append(self._action(self.moves[self.fstart[d] + self.fnext[d] - 1]))
        return line
