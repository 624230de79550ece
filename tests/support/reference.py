"""A plain reference implementation of the rules, written independently of the engine.

It copies the whole position and tries every column pair: slow, obvious, and used to
check the engine's fast paths (tests) and as the baseline of ``make bench``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RefPosition:
    cols: list[list[tuple[int, bool]]]  # (card, face_up)
    stock: list[int]
    completed: list[int] = field(default_factory=list)
    empty_accepts_any: bool = False


def from_game(game: object) -> RefPosition:
    cols = [
        [(card, k >= game.hidden[c]) for k, card in enumerate(col)]  # type: ignore[attr-defined]
        for c, col in enumerate(game.cols)  # type: ignore[attr-defined]
    ]
    return RefPosition(
        cols=cols,
        stock=list(game.stock),  # type: ignore[attr-defined]
        completed=list(game.completed),  # type: ignore[attr-defined]
        empty_accepts_any=game.variant.empty_accepts_any,  # type: ignore[attr-defined]
    )


def is_legal(p: RefPosition, a: int, i: int, b: int) -> bool:
    if a == b or not (0 <= a < 7 and 0 <= b < 7) or not (0 <= i < len(p.cols[a])):
        return False
    card, up = p.cols[a][i]
    if not up:
        return False
    rank, suit = card % 13, card // 13
    if not p.cols[b]:
        return p.empty_accepts_any or rank == 12
    if rank == 12:
        return False
    top, top_up = p.cols[b][-1]
    return top_up and top // 13 == suit and top % 13 == rank + 1


def legal_moves(p: RefPosition) -> set[tuple[int, int, int]]:
    if len(p.completed) == 4:
        return set()
    return {
        (a, i, b)
        for a in range(7)
        for i in range(len(p.cols[a]))
        for b in range(7)
        if is_legal(p, a, i, b)
    }


def useful(p: RefPosition, move: tuple[int, int, int]) -> bool:
    a, i, b = move
    if i == 0 and not p.cols[b]:
        return bool(p.stock) and (a < 3 or b < 3)
    return True


def _settle(col: list[tuple[int, bool]], completed: list[int]) -> None:
    if col and not col[-1][1]:
        col[-1] = (col[-1][0], True)
        return
    if len(col) >= 13:
        top = col[-13:]
        suit = top[0][0] // 13
        want = [suit * 13 + r for r in range(12, -1, -1)]
        if [c for c, _ in top] == want and all(up for _, up in top):
            del col[-13:]
            completed.append(suit)
            if col and not col[-1][1]:
                col[-1] = (col[-1][0], True)


def apply_move(p: RefPosition, move: tuple[int, int, int]) -> RefPosition:
    a, i, b = move
    cols = [list(c) for c in p.cols]
    completed = list(p.completed)
    group = cols[a][i:]
    del cols[a][i:]
    cols[b].extend(group)
    _settle(cols[a], completed)
    _settle(cols[b], completed)
    return RefPosition(cols, list(p.stock), completed, p.empty_accepts_any)


def apply_deal(p: RefPosition) -> RefPosition:
    cols = [list(c) for c in p.cols]
    completed = list(p.completed)
    for c, card in enumerate(p.stock):
        cols[c].append((card, True))
    for c in range(3):
        _settle(cols[c], completed)
    return RefPosition(cols, [], completed, p.empty_accepts_any)


def key(p: RefPosition) -> tuple[object, ...]:
    return (
        tuple(tuple(c for c, _ in col) for col in p.cols),
        tuple(sum(1 for _, up in col if not up) for col in p.cols),
        tuple(p.stock),
        tuple(p.completed),
    )
