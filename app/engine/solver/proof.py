"""A "must leave first" proof of loss for every variant of the family. Pure, no I/O.

``search.py``'s ``dead_reason_of`` proves a plain position lost when some card can never join
its successor. Its premises (one deck, same-suit building, no cell: a card lands only on its
one successor, leaves its place only by joining it) fail in the other variants; this module
proves the same kind of loss from weaker premises that hold in all of them, on the *card
instances* of the position (a card at a place: a column index, a reserve slot, a cell; the
identical cards of two or three decks are distinct instances, each real).

Words: a card's *place* is what it lies directly on (the card under it, or the bottom of its
column), or its reserve slot or cell. What a card lies on changes only when that card itself is
picked up (as a group's leading card, or alone into a cell) or leaves with a completed run: a
card carried along keeps its place. A card lying on one of its *parents* (the cards it may land
on: the next higher card of its suit, or of the other colour in alternate colours, in every
deck) is *joined*. A non-King card removed in a run takes the card under it along (the run is
thirteen cards from a King up), so only a King's leaving by a run exposes the card under it.

Events, each "for the first time": L[x] card x leaves its place (picked up, or for a King also
removed with its run); J[x] x is laid on a parent other than the one it lies on; P[x, p] x is
laid on the parent instance p; C[x] x goes into a cell; M[x] the King x goes into an empty
column; R[x] the King x leaves with its run; E some column is empty. Each event needs every
one of its clauses to have happened first, a clause being met by any one of its events
(``J`` and ``L`` are only "one of": they happen together with the alternative that makes
them, never in a cycle). A P[x, p] that needs one event only is that event in J's clause; one
that needs nothing, or a parent in the stock, leaves J[x] unconstrained. Sound necessary conditions:

- P[x, p]: a face-down x needs the card on it to leave; the card now on p must leave (nothing
  else can uncover p; p may move meanwhile, the card on it moves along); if p lies above x in
  one column, one of the cards from just above x up to p must leave (else p stays above x in
  the pile x would carry); a reserve or cell p must leave it first (nothing lands on a reserve
  or cell card). A parent in the stock is of unknown place: x may join it (unconstrained).
- L[x], x not a King: J[x] or (variants with cells) C[x]. A joined card may leave for another
  parent (alternate colours, other decks) or a cell; in a one-deck same-suit game it never does.
- L[x], x a King: M[x] (needs E, and the card on a face-down x to leave), C[x], or R[x] (needs
  a child laid on x, so the card now on x to leave, unless it is a child and x is face up).
- C[x]: the card now on x must leave (a cell takes a column's exposed card alone), and F.
- F some cell is empty: when every cell is full, one of the cards now in a cell must leave
  first (a card never moves from cell to cell). Once one has, the cells are unconstrained.
- E: when no column is empty, some column's deepest card must leave.
- Required for a win (every card leaves the table in a run): every non-joined non-King
  instance joins a parent (J), every face-down card's cover leaves, every reserve, cell and
  tableau King instance leaves its place (L).

The proof assumes an empty column takes only a King or a King-led group (every variant it
serves; not Wasp). The events that can ever happen are the least fixpoint; a required event
outside it proves the position lost. Stock cards are left unconstrained (their places are
unknown), and the deal only lays cards on columns' open ends: it adds constraints this proof
ignores, never removes any. Whatever is not constrained here may happen at any time, so the
proof can only miss a loss, never make a wrong one (``tests/engine/test_solver_soundness.py``
compares it with brute force through the engine, and pins each weakening it needs).
"""

from __future__ import annotations

from ..cards import KING, code, is_red

Parents = tuple[tuple[int, ...], ...]


def _parents(alternate: bool) -> tuple[tuple[int, ...], ...]:
    """For each logical card, the cards it may land on (none for a King)."""
    out: list[tuple[int, ...]] = []
    for card in range(52):
        rank = card % 13
        if rank == KING:
            out.append(())
        elif alternate:
            out.append(tuple(s * 13 + rank + 1 for s in range(4) if is_red(s * 13) != is_red(card)))
        else:
            out.append((card + 1,))
    return tuple(out)


PARENTS = {False: _parents(False), True: _parents(True)}
# For each logical card, the cards that may land on it (the inverse of ``PARENTS``).
CHILDREN = {
    alt: tuple(tuple(c for c in range(52) if top in parents[c]) for top in range(52))
    for alt, parents in PARENTS.items()
}


def family_dead_reason(
    cols: list[list[int]],
    hidden: list[int],
    slots: list[int],
    stock: list[int],
    parents: Parents,
    children: Parents,
    cells: int,
    kept: bool = False,
) -> str:
    """Prove a position lost (see the module docstring); "" when no proof is found.

    ``cols``: logical cards (0-51), deepest first; ``slots``: the cards of the reserves and
    cells (logical, -1 for an empty slot): they only leave, onto a parent or (a King) into an
    empty column; ``stock``: logical cards still to deal; ``parents``/``children``: the
    variant's landing table by logical card; ``cells``: how many of the last ``slots`` are free
    cells (any exposed card may go to an empty one).

    Without cells the same proof is computed by ``dead_reason_no_cells`` (several times
    faster, the same answer: ``tests/engine/test_solver_proof.py`` compares the two).
    ``kept``: prove the position lost in the game where a face-up card lying on a face-up
    parent is never picked up off it (``dead_reason_no_cells``; with cells it is ignored: the
    plain proof holds there too, only weaker).
    """
    if not cells:
        return dead_reason_no_cells(cols, hidden, slots, stock, parents, children, kept)
    return clause_dead_reason(cols, hidden, slots, stock, parents, children, cells)


def clause_dead_reason(
    cols: list[list[int]],
    hidden: list[int],
    slots: list[int],
    stock: list[int],
    parents: Parents,
    children: Parents,
    cells: int,
    kept: bool = False,
) -> str:
    """``family_dead_reason`` written as the module docstring states it: every clause built,
    then ``least_fixpoint``. Any number of cells (the reference ``dead_reason_no_cells`` is
    tested against; ``kept`` as there, without cells: an empty clause, never met, for the
    event of a face-up card lying on a face-up parent)."""
    # -- the instances: tableau cards first, then the reserve and cell cards ------------------
    card_of: list[int] = [x for col in cols for x in col]
    col_of: list[int] = []
    above_of: list[int] = []  # the instance lying on each one (-1: none)
    under_of: list[int] = []  # the instance each one lies on (-1: the column's bottom or none)
    down_of: list[bool] = []  # face down?
    first_of: list[int] = []  # first instance id of each column
    start = 0
    for ci, col in enumerate(cols):
        m = len(col)
        first_of.append(start)
        if m:
            col_of += [ci] * m
            above_of += range(start + 1, start + m)
            above_of.append(-1)
            under_of.append(-1)
            under_of += range(start, start + m - 1)
            h = hidden[ci]
            down_of += [True] * h
            down_of += [False] * (m - h)
        start += m
    n_tab = start
    for x in slots:
        if x >= 0:
            card_of.append(x)
            col_of.append(-1)
            above_of.append(-1)
            under_of.append(-1)
            down_of.append(False)
    where: list[list[int]] = [[] for _ in range(52)]
    for i, x in enumerate(card_of):
        where[x].append(i)
    n = len(card_of)
    in_stock = [False] * 52
    for x in stock:
        in_stock[x] = True

    # events: L[i] = i, J[i] = n + i, E = 2n, F = 2n + 1, then the P[x, p] and C[x] that need
    # two clauses. Without cells a non-King's L[i] has the one clause J[i]: there the two are
    # one event, J[i] = i (E = n, F = n + 1), which saves nearly half of the clauses.
    j_base = n if cells else 0
    e_ev = j_base + n
    f_ev = e_ev + 1
    n_ev = f_ev + 1
    owner: list[int] = []  # clause -> the event it constrains
    clauses: list[list[int]] = []  # clause -> the events any one of which meets it
    if cells and min(slots[-cells:]) >= 0:
        owner.append(f_ev)
        clauses.append(list(range(n - cells, n)))
    required: list[int] = []  # events required for a win
    must_join: list[int] = []  # the instances whose J is required
    for i in range(n):
        x = card_of[i]
        tab = i < n_tab
        above = above_of[i]
        fd = down_of[i]
        if fd:
            required.append(above)  # a face-down card always has a card on it
        if x % 13 == KING:
            required.append(i)
            if not tab:
                owner.append(i)
                clauses.append([e_ev])  # M[x] only
            elif above >= 0 and (fd or card_of[above] not in children[x]):
                # M[x] needs E (and, face down, the cover to leave); C[x] and R[x] the cover
                owner.append(i)
                clauses.append([above] if fd else [above, e_ev])
            # else R[x] (nothing on x, or a child on the face-up x) is unconstrained
            continue
        under = under_of[i]
        jx = j_base + i
        if not tab:
            required.append(i)
        joined = under >= 0 and card_of[under] in parents[x]
        if not joined:
            must_join.append(i)  # not joined: must join a parent
        elif kept and not cells and not down_of[under]:
            owner.append(jx)
            clauses.append([])  # kept on its face-up parent for good
        if fd:
            owner.append(jx)
            clauses.append([above])
        # L[x]: J[x], or C[x] (needs F and the cover to leave)
        if not cells:
            pass  # L[x] is J[x] (see above)
        elif not tab:
            owner.append(i)
            clauses.append([jx])
        elif above < 0:
            owner.append(i)
            clauses.append([jx, f_ev])
        else:
            owner.append(i)
            clauses.append([jx, n_ev])
            owner.append(n_ev)
            clauses.append([above])
            owner.append(n_ev)
            clauses.append([f_ev])
            n_ev += 1
        # J[x]: one of the P[x, p]; an unconstrained one (or a parent in the stock) frees it
        alts: list[int] = []
        free = False
        for p in parents[x]:
            if in_stock[p]:
                free = True
                break
            for j in where[p]:
                if j == under:
                    continue
                if j >= n_tab:
                    alts.append(j)  # a reserve or cell card must leave it first
                    continue
                oj = above_of[j]
                if tab and col_of[j] == col_of[i] and j > i:
                    if oj < 0:
                        alts.extend(range(i + 1, j + 1))
                        continue
                    ev = n_ev
                    n_ev += 1
                    owner.append(ev)
                    clauses.append([oj])
                    owner.append(ev)
                    clauses.append(list(range(i + 1, j + 1)))
                    alts.append(ev)
                elif oj < 0:
                    free = True
                    break
                else:
                    alts.append(oj)
            if free:
                break
        if not free:
            owner.append(jx)
            clauses.append(alts)
    if all(cols):
        owner.append(e_ev)
        clauses.append([first_of[ci] for ci in range(len(cols))])

    ok = least_fixpoint(n_ev, owner, clauses)
    for i in must_join:
        if not ok[j_base + i]:
            return f"{code(card_of[i])} can never join a card it fits on"
    for ev in required:
        if not ok[ev]:
            return f"{code(card_of[ev])} can never leave its place"
    return ""


def dead_reason_no_cells(
    cols: list[list[int]],
    hidden: list[int],
    slots: list[int],
    stock: list[int],
    parents: Parents,
    children: Parents,
    kept: bool = False,
) -> str:
    """``family_dead_reason`` without cells (reserve slots allowed), by one linear propagation
    over the card instances, without building the clauses.

    Without cells a non-King's L is its J (one event), so each instance i has one event, "i can
    leave", needing at most two clauses: its *cover* clause (a face-down card: the card on it
    leaves; a King: the one of the module docstring, [cover] or [cover, E], or [E] in a
    reserve) and, for a non-King, its *join* clause (one of its parent instances p, not the one
    it lies on, comes free: p is exposed, the card on p leaves, p leaves its reserve slot, or p
    lies above i in i's column and, besides, one of the cards from just above i up to p leaves;
    a parent in the stock frees it). These are exactly the clauses ``clause_dead_reason``
    builds (its extra events for "p above i" are evaluated here in place), so the least
    fixpoint, and the answer, are the same; only the bookkeeping differs. The clauses are
    watched without lists: when instance k can leave, the only clauses it may satisfy are the
    cover clause of the card under it, the join clauses of the instances of that card's
    children (that card is now uncovered), those of the children of k if k is in a reserve,
    the "p above i" clauses of k's column, and E if k is a column's deepest card.

    ``kept`` proves the position lost in a *restricted* game: the moves of the full game but
    those picking a face-up card up off the face-up parent it lies on (``winfirst.py``'s
    ``keep_joined``; no cells). There such a card stays on that parent for good (it moves only
    with it, or leaves in a run from its King, which the proof counts as the King's leaving),
    so its event never happens; every other clause, a necessary condition in the full game,
    is one in the restricted game too, whose moves are some of the full game's. A position
    this proves lost may be won in the full game: only a search confined to the restricted
    game (the win-first phase, which never answers "loss") may use it.
    """
    card_of: list[int] = []
    base: list[int] = []  # each instance's column's first instance (a slot: itself)
    # freed[c]: the join clauses of card c's instances are met from the start by a parent in
    # the stock or exposed in two columns (-2), or exposed in one column (that column's first
    # instance: not for an instance in that column, which the parent lies above); -1: not
    freed = [-1] * 52
    for p in stock:
        for c in children[p]:
            freed[c] = -2
    start = 0
    for col in cols:
        m = len(col)
        if m:
            card_of += col
            base += [start] * m
            for c in children[col[-1]]:
                f = freed[c]
                freed[c] = start if f == -1 else (f if f == start else -2)
            start += m
    n_tab = start
    for x in slots:
        if x >= 0:
            card_of.append(x)
            base.append(start)
            start += 1
    n = start
    where: list[list[int]] = [[] for _ in range(52)]
    for i, x in enumerate(card_of):
        where[x].append(i)

    e_ok = not all(cols)  # E: some column is empty (else its deepest card must leave)
    need = [0] * n  # how many of its clauses are not yet met
    csat = [True] * n  # its cover clause (if any) is met
    jsat = [True] * n  # its join clause (if any) is met
    e_wait: list[int] = []  # the Kings whose cover clause E meets
    # column -> (i, p, the column's last instance): p above i in it, p a parent of i
    ranges: dict[int, list[tuple[int, int, int]]] = {}
    fd_end: dict[int, int] = {}  # column -> one past its last face-down instance
    stack: list[int] = []  # the instances that can leave, their consequences not yet drawn
    i = 0
    for ci, col in enumerate(cols):
        if not col:
            continue
        s = i
        e = s + len(col)
        fd_end[s] = fd = s + hidden[ci]
        for x in col:
            if x % 13 == KING:
                if i + 1 < e and (i < fd or card_of[i + 1] not in children[x]):
                    if i < fd:
                        need[i] = 1
                        csat[i] = False
                    elif not e_ok:
                        need[i] = 1
                        csat[i] = False
                        e_wait.append(i)
                    else:
                        stack.append(i)
                else:
                    stack.append(i)
            elif kept and i > fd and card_of[i - 1] in parents[x]:
                need[i] = 3  # (kept) never leaves: no clause met makes this 0
                jsat[i] = False
            else:
                f = freed[x]
                if f == -1 or f == s:
                    jsat[i] = False
                    if i < fd:
                        need[i] = 2
                        csat[i] = False
                    else:
                        need[i] = 1
                    for p in parents[x]:
                        for j in where[p]:
                            if i < j < e:
                                if s in ranges:
                                    ranges[s].append((i, j, e - 1))
                                else:
                                    ranges[s] = [(i, j, e - 1)]
                elif i < fd:
                    need[i] = 1
                    csat[i] = False
                else:
                    stack.append(i)
            i += 1
    for i in range(n_tab, n):
        x = card_of[i]
        if x % 13 == KING:
            if e_ok:
                stack.append(i)
            else:
                need[i] = 1
                csat[i] = False
                e_wait.append(i)
        elif freed[x] == -1:
            need[i] = 1
            jsat[i] = False
        else:
            stack.append(i)
    ok = [not c for c in need]
    while stack:
        k = stack.pop()
        if k >= n_tab:  # a slot card leaves: the join clauses of its children's instances
            for c in children[card_of[k]]:
                for x in where[c]:
                    if not jsat[x]:
                        jsat[x] = True
                        need[x] -= 1
                        if not need[x]:
                            ok[x] = True
                            stack.append(x)
            continue
        b = base[k]
        if k > b:
            u = k - 1  # uncovered
            if not csat[u]:
                csat[u] = True
                need[u] -= 1
                if not need[u]:
                    ok[u] = True
                    stack.append(u)
            for c in children[card_of[u]]:
                for x in where[c]:
                    # x == k lies on u; below u in its column: a "p above i" clause (below)
                    if not jsat[x] and x != k and not (b <= x < u):
                        jsat[x] = True
                        need[x] -= 1
                        if not need[x]:
                            ok[x] = True
                            stack.append(x)
        elif not e_ok:
            e_ok = True
            for x in e_wait:
                if not csat[x]:
                    csat[x] = True
                    need[x] -= 1
                    if not need[x]:
                        ok[x] = True
                        stack.append(x)
        pairs = ranges.get(b) if ranges else None
        if pairs:
            for x, j, top in pairs:
                if (
                    not jsat[x]
                    and x < k <= j + 1
                    and (j == top or ok[j + 1])
                    and any(ok[x + 1 : j + 1])
                ):
                    jsat[x] = True
                    need[x] -= 1
                    if not need[x]:
                        ok[x] = True
                        stack.append(x)

    bad = [i for i in range(n) if not ok[i]]
    if not bad:
        return ""
    for i in bad:  # a required join: a non-King not lying on a parent
        x = card_of[i]
        if x % 13 != KING and not (i > base[i] and card_of[i - 1] in parents[x]):
            return f"{code(x)} can never join a card it fits on"
    # a required leave, in the order ``clause_dead_reason`` lists them: instance i's event is
    # required as the cover of the face-down i - 1 (listed at i - 1) or as a King's or a
    # reserve card's own (listed at i)
    first = at = -1
    for i in bad:
        if base[i] < i <= fd_end.get(base[i], -1):
            key = 2 * i - 2
        elif i >= n_tab or card_of[i] % 13 == KING:
            key = 2 * i + 1
        else:
            continue
        if first < 0 or key < first:
            first, at = key, i
    return f"{code(card_of[at])} can never leave its place" if at >= 0 else ""


def least_fixpoint(
    n_ev: int, owner: list[int], clauses: list[list[int]], seeds: list[bool] | None = None
) -> list[bool]:
    """The events that can ever happen: an event happens once each of its clauses (``owner[k]``
    is the event clause ``k`` constrains) has one of its events happened, starting from the
    unconstrained ones (among ``seeds`` only, when given). Unit propagation, linear time."""
    need = [0] * n_ev
    watch: list[list[int]] = [[] for _ in range(n_ev)]
    for k, alts in enumerate(clauses):
        need[owner[k]] += 1
        for ev in alts:
            watch[ev].append(k)
    if seeds is None:
        ok = [not c for c in need]
    else:
        ok = [not c and seed for c, seed in zip(need, seeds, strict=True)]
    queue = [ev for ev, happened in enumerate(ok) if happened]
    sat = [False] * len(clauses)
    while queue:
        ev = queue.pop()
        for k in watch[ev]:
            if not sat[k]:
                sat[k] = True
                o = owner[k]
                need[o] -= 1
                if need[o] == 0 and not ok[o]:
                    ok[o] = True
                    queue.append(o)
    return ok
