"""The private pool of daily deals: fresh random deals kept only in the database.

A daily deal is never a deal number (2^32 numbers can be searched offline against the cards a
player sees) nor a deal of a shipped catalog: it is a deal shuffled with the operating
system's randomness (``secrets.SystemRandom``), proved winnable by the solver where it can
(its verified line is stored beside it, server-only) and published as a deal string only once
its day is over.

- ``python -m app.daily_pool fill --variant all --days 30`` (``app/daily_pool.py``) fills the
  pool ahead of time, with a progress bar.
- ``take(db, variant, day)``: inside the caller's write transaction, the oldest unused entry
  of the variant, marked used for ``day`` (``FOR UPDATE SKIP LOCKED`` on PostgreSQL: two
  workers never take the same one).
- ``fresh_deal(variant)``: when the pool is empty, a random deal proved winnable through the
  solver process pool (``app/services/analysis.py``; never in the request worker): up to
  ``DAILY_PROOF_TRIES`` deals, ``DAILY_PROOF_BUDGET_SECONDS`` each, ``PROOF_TOTAL_SECONDS`` in
  all; none proved: an unverified random
  deal (logged as a warning). The day's race stores it in the pool too, used for its day, so
  every daily deal the solver proved has its verified line beside it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import DailyPoolEntry, utcnow
from app.engine import Deal, Game, format_deal, get_variant, parse_deal
from app.engine.cards import DECK
from app.engine.solver import (
    SolverUnsupported,
    check_solvable,
    decode_line,
    encode_line,
    solve_deal,
    verify_line,
)

from .common import is_postgres

log = logging.getLogger("app.daily")

_random = secrets.SystemRandom()


def random_deal(variant: str) -> Deal:
    """A deal of ``variant`` shuffled with the system's cryptographic randomness."""
    cards = list(DECK) * get_variant(variant).decks
    _random.shuffle(cards)
    return tuple(cards)


@dataclass(frozen=True, slots=True)
class PoolDeal:
    deal: str  # the deal string (server-only until its day is over)
    line: str | None  # the verified winning line (server-only), compact
    verified: bool


def line_wins(variant: str, deal: str, line: str) -> bool:
    """True when ``line`` (compact) wins ``deal`` through the engine."""
    try:
        game = Game.new(variant, parse_deal(deal, variant))
        return verify_line(game, decode_line(line))
    except Exception:  # noqa: BLE001 - any refusal: the line does not win
        return False


def prove_here(variant: str, budget_seconds: float) -> PoolDeal | None:
    """One random deal and the solver's proof, in this process (offline use: the command).
    None when the solver could not prove it winnable in the budget."""
    deal = random_deal(variant)
    result = solve_deal(variant, deal, budget_seconds)
    if result.verdict != "win" or result.line is None:
        return None
    text, line = format_deal(deal), encode_line(result.line)
    if not line_wins(variant, text, line):  # replayed through the engine once more
        return None
    return PoolDeal(text, line, True)


def solver_covers(variant: str) -> bool:
    try:
        check_solvable(get_variant(variant))
    except SolverUnsupported:
        return False
    return True


def add(db: Session, variant: str, entry: PoolDeal, used_for_day: date | None = None) -> None:
    """Add one deal to the pool (inside the caller's write transaction); with
    ``used_for_day``, a deal drawn fresh for that day (the pool was empty), already used."""
    db.add(
        DailyPoolEntry(
            variant=variant,
            deal=entry.deal,
            line=entry.line,
            verified=entry.verified,
            created_at=utcnow(),
            used_for_day=used_for_day,
        )
    )


def unused(db: Session, variant: str) -> int:
    """How many deals of ``variant`` wait in the pool."""
    return int(
        db.execute(
            select(func.count())
            .select_from(DailyPoolEntry)
            .where(DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day.is_(None))
        ).scalar_one()
    )


def take(db: Session, variant: str) -> DailyPoolEntry | None:
    """The oldest unused pool entry of ``variant``, locked (the caller marks it used)."""
    query = (
        select(DailyPoolEntry)
        .where(DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day.is_(None))
        .order_by(DailyPoolEntry.id)
        .limit(1)
    )
    if is_postgres(db):
        query = query.with_for_update(skip_locked=True)
    return db.execute(query).scalar_one_or_none()


# -- when the pool is empty: a fresh deal, proved by the solver processes -----------------------

Prover = Callable[[str, str, float], tuple[str, str | None]]


def _pool_prover(variant: str, deal: str, budget: float) -> tuple[str, str | None]:
    from .analysis import prove_deal_sync

    return prove_deal_sync(variant, deal, budget)


prover: Prover = _pool_prover  # (tests may count the questions)

PROOF_TOTAL_SECONDS = 10.0  # all the tries of one day together (the first play waits on them)


def fresh_deal(variant: str, day: date, settings: Settings | None = None) -> PoolDeal:
    """A fresh random deal for ``variant``'s daily deal of ``day`` when the pool has none.

    Tries up to ``DAILY_PROOF_TRIES`` random deals, each with ``DAILY_PROOF_BUDGET_SECONDS``
    in the solver process pool; the first proved winnable (its line replayed through the
    engine here too) is used. Else an unverified random deal, with a warning in the log.
    Never a deal number, never a catalog deal.
    """
    settings = settings or get_settings()
    log.warning(
        "the daily pool has no %s deal for %s: drawing a fresh random deal "
        "(fill it with: python -m app.daily_pool fill)",
        variant,
        day.isoformat(),
    )
    if solver_covers(variant):
        started = time.monotonic()
        for _ in range(settings.daily_proof_tries):
            left = PROOF_TOTAL_SECONDS - (time.monotonic() - started)
            if left <= 0.05:
                break
            text = format_deal(random_deal(variant))
            budget = min(settings.daily_proof_budget_seconds, left)
            verdict, line = prover(variant, text, budget)
            if verdict == "win" and line is not None and line_wins(variant, text, line):
                log.info(
                    "%s daily deal of %s proved winnable in %.2f s",
                    variant,
                    day.isoformat(),
                    time.monotonic() - started,
                )
                return PoolDeal(text, line, True)
            if verdict == "unsupported":
                break
    log.warning(
        "the %s daily deal of %s is a random deal NOT proved winnable", variant, day.isoformat()
    )
    return PoolDeal(format_deal(random_deal(variant)), None, False)
