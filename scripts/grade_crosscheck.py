"""Cross-check the shipped difficulty grades with players the grading never used.

``python -m scripts.grade_crosscheck --variant scorpion [--seeds 8] [--every 1]`` plays
every (or every K-th) catalogued deal of each grade with three extra scripted players, none
of them part of the measure in ``app/engine/solver/grading.py``, on their own seeds, and
prints their win rate per grade (docs/difficulty.md, "Cross-check"):

- ``first-hint``: always the engine's first hint that leads to a new position (no chance);
- ``random-legal``: a uniformly random *legal* move (useful or not) to a new position;
- ``impatient``: a random new hint, but deals early (5% a turn) while the stock is full.

Every player deals when it has no new move and gives up when the stock is empty too.
"""

from __future__ import annotations

import argparse
import random
import sys

from app.engine import Game, Move, deal_from_number
from app.engine.solver import DIFFICULTIES, winnable_deals

KINDS = ("first-hint", "random-legal", "impatient")


def _key(g: Game) -> tuple[object, ...]:
    return (tuple(map(tuple, g.cols)), tuple(g.hidden), len(g.stock))


def play(variant: str, number: int, kind: str, seed: int, max_steps: int = 400) -> bool:
    g = Game.new(variant, deal_from_number(number))
    rng = random.Random(seed)
    seen = {_key(g)}
    for _ in range(max_steps):
        if g.won:
            return True
        fresh: list[Move] = []
        for m in g.legal_moves() if kind == "random-legal" else g.hints():
            g.move(*m)
            if g.won:
                return True
            if _key(g) not in seen:
                fresh.append(m)
            g.undo()
        choice: Move | None = None
        if fresh:
            choice = fresh[0] if kind == "first-hint" else rng.choice(fresh)
            if kind == "impatient" and g.stock and rng.random() < 0.05:
                choice = None
        if choice is None:
            if not g.can_deal:
                return False
            g.deal()
        else:
            g.move(*choice)
        seen.add(_key(g))
    return g.won


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", default="scorpion")
    p.add_argument("--seeds", type=int, default=8, help="games per deal (first-hint: 1)")
    p.add_argument("--every", type=int, default=1, help="every K-th deal of a grade only")
    args = p.parse_args(argv)
    print(f"| {args.variant} | " + " | ".join(KINDS) + " |")
    print("|---|" + "---|" * len(KINDS))
    for difficulty in DIFFICULTIES:
        numbers = winnable_deals(args.variant, difficulty)[:: args.every]
        cells = []
        for kind in KINDS:
            seeds = [0] if kind == "first-hint" else range(2_000_003, 2_000_003 + args.seeds)
            games = [play(args.variant, n, kind, s) for n in numbers for s in seeds]
            cells.append(f"{100 * sum(games) / len(games):.1f}%")
        print(f"| {difficulty} ({len(numbers)} deals) | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
