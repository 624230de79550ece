"""Fill the private pool of daily deals: ``python -m app.daily_pool fill --variant all --days 30``.

Each day's daily deal is taken from this pool (``app/services/daily.py``). The pool lives in
the database only: the public code and package ship no daily deal. For every variant the
solver covers, each pool deal is a fresh random deal (``secrets.SystemRandom``) that the
solver proved winnable, its winning line replayed through the engine and stored beside it
(server-only); random deals the solver could not decide in the budget are thrown away. For a
variant the solver does not cover, random deals are stored as not verified.

``fill`` adds deals until each variant has ``--days`` unused ones (a progress bar on stderr);
``status`` prints how many wait per variant. When a variant's pool runs out, the server draws
a fresh random deal for the day at once and tries to prove it through its solver processes
(a warning in the log; the daily page says whether today's deal is proved winnable), so keep
the pool ahead, e.g. fill weekly with ``--days 30`` from cron.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app.db.session import get_sessionmaker
from app.engine import ALL_VARIANTS
from app.engine.solver.progress import Progress
from app.services import daily_pool
from app.services.common import read_tx, write_tx


def _variants(name: str) -> list[str]:
    if name == "all":
        return list(ALL_VARIANTS)
    if name not in ALL_VARIANTS:
        names = ", ".join(ALL_VARIANTS)
        raise SystemExit(f"No variant called {name!r}: choose one of all, {names}.")
    return [name]


def fill(variants: Sequence[str], days: int, budget: float, max_tries: int) -> int:
    """Top each variant's pool up to ``days`` unused deals. Returns the number added."""
    added = 0
    maker = get_sessionmaker()
    for variant in variants:
        with maker() as db, read_tx(db):
            have = daily_pool.unused(db, variant)
        need = max(0, days - have)
        print(f"{variant}: {have} unused deals in the pool, adding {need}", file=sys.stderr)
        if not need:
            continue
        covered = daily_pool.solver_covers(variant)
        bar = Progress(need, label=variant)
        tries = 0
        while need and tries < max_tries:
            tries += 1
            if covered:
                entry = daily_pool.prove_here(variant, budget)
                if entry is None:
                    bar.update(0, note=f"{tries} tried")
                    continue
            else:
                deal = daily_pool.random_deal(variant)
                entry = daily_pool.PoolDeal(daily_pool.format_deal(deal), None, False)
            with maker() as db, write_tx(db):
                daily_pool.add(db, variant, entry)
            need -= 1
            added += 1
            bar.update(1, note=f"{tries} tried")
        bar.close()
        if need:
            print(f"{variant}: gave up after {tries} random deals ({need} short)", file=sys.stderr)
    return added


def status(variants: Sequence[str]) -> None:
    with get_sessionmaker()() as db, read_tx(db):
        for variant in variants:
            print(f"{variant}: {daily_pool.unused(db, variant)} unused")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.daily_pool", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fill", help="add proved-winnable random deals to the pool")
    f.add_argument("--variant", default="all", help="a variant, or all (default)")
    f.add_argument("--days", type=int, default=30, help="unused deals to keep per variant")
    f.add_argument("--budget", type=float, default=2.0, help="solver seconds per random deal")
    f.add_argument("--max-tries", type=int, default=10_000, help="random deals tried at most")
    s = sub.add_parser("status", help="how many unused deals each variant has")
    s.add_argument("--variant", default="all")
    args = p.parse_args(argv)
    variants = _variants(args.variant)
    if args.command == "fill":
        fill(variants, max(0, args.days), args.budget, args.max_tries)
    status(variants)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
