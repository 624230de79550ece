"""A plain reference implementation of the rules, written independently of the engine.

It copies the whole position and tries every pair of piles: slow, obvious, and used to
check the engine's fast paths (tests) and as the baseline of ``make bench``. It reads a
game's state (columns, face-down counts, stock, reserves, cells) and nothing of the engine's
logic; the family's rules are its own table below, written from RULES.md.

Cards are values 0-51 (``suit * 13 + rank``; with two or three decks the copies are equal).
A move is ``(from_pile, from_column, from_index, to_pile, to_column)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RefMove = tuple[str, int, int, str, int]


@dataclass(frozen=True)
class RefRules:
    decks: int = 1
    stock_columns: int = 3
    empty_accepts_any: bool = False
    alternate: bool = False


# RULES.md, "The Scorpion family", as this reference reads it.
RULES: dict[str, RefRules] = {
    "scorpion": RefRules(),
    "scorpion-ii": RefRules(),
    "wasp": RefRules(empty_accepts_any=True),
    "wasp-ii": RefRules(empty_accepts_any=True),
    "scorpion-tail": RefRules(alternate=True),
    "scorpion-head": RefRules(stock_columns=0),
    "three-blind-mice": RefRules(stock_columns=0),
    "farmers-wife": RefRules(stock_columns=0, alternate=True),
    "how-they-run": RefRules(stock_columns=0),
    "double-scorpion": RefRules(decks=2, stock_columns=4),
    "triple-scorpion": RefRules(decks=3, stock_columns=0),
}


@dataclass
class RefPosition:
    cols: list[list[tuple[int, bool]]]  # (card, face_up)
    stock: list[int]
    completed: list[int] = field(default_factory=list)
    empty_accepts_any: bool = False
    reserves: list[int | None] = field(default_factory=list)
    cells: list[int | None] = field(default_factory=list)
    rules: RefRules = field(default_factory=RefRules)


def from_game(game: object) -> RefPosition:
    g: object = game
    rules = RULES[g.variant.name]  # type: ignore[attr-defined]
    cols = [
        [(card % 52, k >= g.hidden[c]) for k, card in enumerate(col)]  # type: ignore[attr-defined]
        for c, col in enumerate(g.cols)  # type: ignore[attr-defined]
    ]
    slots = getattr(g, "reserve", [])
    cells = getattr(g, "cells", [])
    return RefPosition(
        cols=cols,
        stock=[c % 52 for c in g.stock],  # type: ignore[attr-defined]
        completed=list(g.completed),  # type: ignore[attr-defined]
        empty_accepts_any=rules.empty_accepts_any,
        reserves=[None if c < 0 else c % 52 for c in slots],
        cells=[None if c < 0 else c % 52 for c in cells],
        rules=rules,
    )


def _red(card: int) -> bool:
    return card // 13 in (1, 2)


def lands(p: RefPosition, card: int, b: int) -> bool:
    """May ``card`` (leading whatever is on it) go to column ``b``?"""
    rank, suit = card % 13, card // 13
    if not p.cols[b]:
        return p.empty_accepts_any or rank == 12
    if rank == 12:
        return False
    top, top_up = p.cols[b][-1]
    if not top_up or top % 13 != rank + 1:
        return False
    if p.rules.alternate:
        return _red(top) != _red(card)
    return top // 13 == suit


def is_legal(p: RefPosition, a: int, i: int, b: int) -> bool:
    """A column-to-column move."""
    n = len(p.cols)
    if a == b or not (0 <= a < n and 0 <= b < n) or not (0 <= i < len(p.cols[a])):
        return False
    card, up = p.cols[a][i]
    return up and lands(p, card, b)


def legal_moves(p: RefPosition) -> set[tuple[int, int, int]]:
    """Column-to-column moves as (from_column, from_index, to_column) (the base game's form)."""
    if len(p.completed) == 4 * p.rules.decks:
        return set()
    n = len(p.cols)
    return {
        (a, i, b)
        for a in range(n)
        for i in range(len(p.cols[a]))
        for b in range(n)
        if is_legal(p, a, i, b)
    }


def all_moves(p: RefPosition) -> set[RefMove]:
    if len(p.completed) == 4 * p.rules.decks:
        return set()
    n = len(p.cols)
    out: set[RefMove] = set()
    for a in range(n):
        for i in range(len(p.cols[a])):
            for b in range(n):
                if is_legal(p, a, i, b):
                    out.add(("column", a, i, "column", b))
        if p.cols[a]:
            for k, held in enumerate(p.cells):
                if held is None:
                    out.add(("column", a, len(p.cols[a]) - 1, "cell", k))
    for kind, slots in (("reserve", p.reserves), ("cell", p.cells)):
        for k, card in enumerate(slots):
            if card is None:
                continue
            for b in range(n):
                if lands(p, card, b):
                    out.add((kind, k, 0, "column", b))
    return out


def useful(p: RefPosition, move: tuple[int, ...] | RefMove) -> bool:
    if len(move) == 3:
        move = ("column", move[0], move[1], "column", move[2])  # type: ignore[assignment]
    fp, a, i, tp, b = move  # type: ignore[misc]
    if fp == "column" and tp == "column" and i == 0 and not p.cols[b]:
        k = p.rules.stock_columns
        return bool(p.stock) and (a < k or b < k)
    return True


def _is_run(cards: list[tuple[int, bool]], alternate: bool) -> bool:
    if len(cards) != 13 or not all(up for _, up in cards):
        return False
    for k, (card, _) in enumerate(cards):
        if card % 13 != 12 - k:
            return False
        if k and alternate and _red(card) == _red(cards[k - 1][0]):
            return False
        if k and not alternate and card // 13 != cards[0][0] // 13:
            return False
    return True


def _settle(col: list[tuple[int, bool]], completed: list[int], alternate: bool = False) -> None:
    if col and not col[-1][1]:
        col[-1] = (col[-1][0], True)
        return
    # RULES.md: a completed run at the open end goes; one left there by that removal is a
    # completed run at the open end too, and goes as part of the same step.
    while len(col) >= 13 and _is_run(col[-13:], alternate):
        completed.append(col[-13][0] // 13)
        del col[-13:]
    if col and not col[-1][1]:
        col[-1] = (col[-1][0], True)


def _copy(p: RefPosition) -> RefPosition:
    return RefPosition(
        [list(c) for c in p.cols],
        list(p.stock),
        list(p.completed),
        p.empty_accepts_any,
        list(p.reserves),
        list(p.cells),
        p.rules,
    )


def apply_move(p: RefPosition, move: tuple[int, ...] | RefMove) -> RefPosition:
    if len(move) == 3:
        move = ("column", move[0], move[1], "column", move[2])  # type: ignore[assignment]
    fp, a, i, tp, b = move  # type: ignore[misc]
    q = _copy(p)
    alt = p.rules.alternate
    if fp == "column":
        group = q.cols[a][i:]
        del q.cols[a][i:]
        if tp == "cell":
            q.cells[b] = group[0][0]
        else:
            q.cols[b].extend(group)
        _settle(q.cols[a], q.completed, alt)
    else:
        slots = q.reserves if fp == "reserve" else q.cells
        card = slots[a]
        assert card is not None
        slots[a] = None
        q.cols[b].append((card, True))
    if tp == "column":
        _settle(q.cols[b], q.completed, alt)
    return q


def apply_deal(p: RefPosition) -> RefPosition:
    q = _copy(p)
    for c, card in enumerate(p.stock):
        q.cols[c].append((card, True))
    q.stock = []
    for c in range(len(p.stock)):
        _settle(q.cols[c], q.completed, p.rules.alternate)
    return q


def key(p: RefPosition) -> tuple[object, ...]:
    return (
        tuple(tuple(c for c, _ in col) for col in p.cols),
        tuple(sum(1 for _, up in col if not up) for col in p.cols),
        tuple(p.stock),
        tuple(p.completed),
    )


def full_key(p: RefPosition) -> tuple[object, ...]:
    return (*key(p), tuple(p.reserves), tuple(p.cells))
