"""What runs inside the solver processes of ``app/services/analysis.py``.

Kept apart from the web code on purpose: a solver process imports only the engine and the
solver (no database, no web framework), so it starts quickly. It gets a game snapshot (the full
position, hidden cards included: it never leaves the server) and a wall-clock deadline, and
sends back only the verdict and, for a win, the first action of the verified winning line.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading
import time

from app.engine import Game
from app.engine.solver import analyse, core

# The compiled search's table in a solver process of the app: at most 2^24 slots (256 MiB,
# ~15 million positions; the default 3 s budget reaches some 2-6 million at 0.7-2 million a
# second); when it is full, the answer is "unknown" (the table only grows as it fills).
core.MAX_TABLE_ENTRIES = 1 << 24

# Below this much time left, a question is answered "unknown" without starting the search.
MIN_SEARCH_SECONDS = 0.005


def analyse_snapshot_line(snapshot: str, deadline: float) -> tuple[str, str | None, float]:
    """Decide the game ``snapshot`` before ``deadline`` (``time.time()`` seconds): (verdict
    ``"win"`` | ``"loss"`` | ``"unknown"``, a win's whole verified line or None, seconds the
    search took). The line (compact text, ``encode_line``) is kept by the web process server
    side (issue 40: the hints follow it) and never sent to a client. A question that waited
    past its deadline is answered ``"unknown"`` at once."""
    from app.engine.solver import encode_line

    remaining = deadline - time.time()
    if remaining < MIN_SEARCH_SECONDS:
        return ("unknown", None, 0.0)
    game = Game.from_snapshot(snapshot)
    result = analyse(game, budget_seconds=remaining)
    if result.verdict == "win" and result.line:
        return ("win", encode_line(result.line), result.seconds)
    return (result.verdict if result.verdict != "win" else "unknown", None, result.seconds)


def review_snapshot(snapshot: str, budget_seconds: float) -> tuple[str, str | None, float]:
    """``analyse_snapshot_line`` with a budget counted from the start of the search (not from
    the question's submission): a review (``app/services/review.py``) waits in the background,
    so a slow process start or a queue must not turn its answers into "unknown"."""
    return analyse_snapshot_line(snapshot, time.time() + budget_seconds)


def watch_parent() -> None:
    """Pool initializer: end this solver process as soon as its web worker process ends, even
    when that process was killed and could not shut its pool down (no orphans are left)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def wait_then_exit() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=wait_then_exit, name="watch-parent", daemon=True).start()


def warm_up() -> bool:
    """A no-op the pool runs once so that its process is started before the first question."""
    return True


def prove_deal(variant: str, deal_text: str, deadline: float) -> tuple[str, str | None]:
    """Try to prove the deal ``deal_text`` of ``variant`` winnable before ``deadline``.

    Returns (verdict, the compact winning line, verified through the engine, or None). A
    variant the solver does not cover is ``"unsupported"``. Used for a day's daily deal when
    the private pool has none (``app/services/daily_pool.py``).
    """
    from app.engine import parse_deal
    from app.engine.solver import SolverUnsupported, encode_line, solve_deal

    remaining = deadline - time.time()
    if remaining < MIN_SEARCH_SECONDS:
        return ("unknown", None)
    try:
        result = solve_deal(variant, parse_deal(deal_text, variant), remaining)
    except SolverUnsupported:
        return ("unsupported", None)
    if result.verdict == "win" and result.line is not None:
        return ("win", encode_line(result.line))
    return (result.verdict, None)
