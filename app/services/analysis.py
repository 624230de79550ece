"""Solver questions about a game in progress: "is this still winnable?" and the solver hint.

The web server never runs the solver in a request worker. Each web worker process owns a small
pool of solver processes (``concurrent.futures.ProcessPoolExecutor``, ``ANALYSIS_WORKERS``
processes, created on the first question, re-created if one dies). A question:

0. One question in flight per player (per worker process): a second one while the first is
   being answered is refused at once with ``QuestionInFlight`` (429, ``Retry-After``), before
   anything is counted or read.
1. ``prepare`` (sync, one read-only check after the rate-limit count, run in the thread pool):
   the rate limit of actions, the ownership check (another player's game: ``NotFound``), the
   optional ``version`` (``VersionConflict``), a won game (``ActionRefused``: "This game is won
   and finished"). Nothing changes.
   The solver covers every variant of the family; a variant it did not cover
   (``check_solvable``) would be answered ``"unknown"`` at once, without asking the pool.
2. ``ask_solver`` (async): sends the stored snapshot (the full position, hidden cards included,
   which never leaves the server) to the pool with a deadline ``ANALYSIS_BUDGET_SECONDS`` away
   and awaits the future without blocking the event loop or a thread, for at most the budget
   plus ``GRACE_SECONDS``. When the pool already holds ``QUEUE_PER_WORKER`` questions per
   solver process, the question is refused with ``SolverBusy`` (503, ``Retry-After``) instead
   of being answered "unknown". Questions wait in the pool's first-in-first-out queue; with
   one question per player, that queue serves the players in turn (round robin): no player
   can hold more than one place in it. Past the deadline, or if the pool is broken, the
   verdict is ``"unknown"`` ("could not tell in time"); a question still queued is cancelled.
3. ``mark_assisted`` (sync, a second short transaction, only after the solver answered "win"
   or "loss"): marks the game *assisted*. A question refused, failed or answered "unknown"
   told the player nothing, so it leaves the game as it was.

The answer holds the verdict and, only when asked for, the first action of a *verified*
winning line (the solver replays every winning line through the engine before believing it).
Neither the line nor any hidden card is ever returned.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import observability, solver_worker
from app.config import get_settings
from app.db.models import GameRow, utcnow
from app.engine import Action, Move, get_variant, pile_move
from app.engine.solver import SolverUnsupported, check_solvable

from .common import read_tx, write_tx
from .errors import ActionRefused, NotFound, VersionConflict
from .game_core import begin, game_state
from .ratelimit import RateLimited
from .ratelimit import consume as count_request
from .types import GameState

log = logging.getLogger("app.analysis")

Verdict = Literal["win", "loss", "unknown"]
SolverHint = Move | Literal["deal"]

# Time allowed on top of the budget: starting a solver process on the first question, sending
# the snapshot, verifying the winning line through the engine, sending the answer back.
GRACE_SECONDS = 1.5
# Questions waiting or running per solver process beyond which new ones are answered
# "unknown" at once (they could not be answered in time anyway).
QUEUE_PER_WORKER = 4

WON_MESSAGE = "This game is won and finished: there is nothing left to analyse."
BUSY_RETRY_AFTER_SECONDS = 5
IN_FLIGHT_RETRY_AFTER_SECONDS = 3


class SolverBusy(Exception):
    """Every place in this worker's solver queue is taken (HTTP 503 with ``Retry-After``)."""

    def __init__(self) -> None:
        self.retry_after = BUSY_RETRY_AFTER_SECONDS
        self.message = (
            "The solver is busy with other players' questions just now: nothing was asked "
            f"and your game is unchanged. Please try again in {self.retry_after} seconds."
        )
        super().__init__(self.message)


class QuestionInFlight(RateLimited):
    """The player already has a question with the solver (HTTP 429 with ``Retry-After``)."""

    def __init__(self) -> None:
        message = (
            "The solver is still working on your previous question: one question at a time. "
            "Nothing was asked and your game is unchanged."
        )
        Exception.__init__(self, message)
        self.message = message
        self.scope = "actions"
        self.limit = 1
        self.window_seconds = IN_FLIGHT_RETRY_AFTER_SECONDS
        self.retry_after = IN_FLIGHT_RETRY_AFTER_SECONDS


@dataclass(frozen=True, slots=True)
class SolverAnswer:
    verdict: Verdict
    first_action: SolverHint | None  # a win's first step (None unless the verdict is "win")
    seconds: float  # wall time of the question, queue and process start included


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """The answer to one question about a game. ``hint`` is set only when it was asked for
    and the verdict is ``"win"``; ``state`` is the game as analysed."""

    verdict: Verdict
    seconds: float
    hint: SolverHint | None
    state: GameState

    @property
    def version(self) -> int:
        return self.state.version


# -- the pool of solver processes --------------------------------------------------------------

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None
_pool_size = 0
_in_flight = 0
_players_asking: set[str] = set()  # players with a question in flight in this process


def _get_pool() -> tuple[ProcessPoolExecutor, int]:
    """This process's solver pool (made on first use, and again after a fork or a crash)."""
    global _pool, _pool_pid, _pool_size
    with _lock:
        if _pool is None or _pool_pid != os.getpid():
            size = get_settings().analysis_workers
            # "spawn": a fresh interpreter that imports only the engine and the solver (a fork
            # of a threaded web server could inherit held locks and open connections).
            _pool = ProcessPoolExecutor(
                max_workers=size,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=solver_worker.watch_parent,
            )
            _pool_pid = os.getpid()
            _pool_size = size
            _pool.submit(solver_worker.warm_up)
        return _pool, _pool_size


def _discard_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def shutdown_pool() -> None:
    """Stop this process's solver processes (at application shutdown; tests)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None and _pool_pid == os.getpid():
        pool.shutdown(wait=True, cancel_futures=True)


def _unknown(started: float) -> SolverAnswer:
    return SolverAnswer("unknown", None, time.monotonic() - started)


def _as_hint(action: Action | None) -> SolverHint | None:
    if action is None:
        return None
    if action[0] == "deal":
        return "deal"
    if len(action) == 6:  # a move from or to a reserve or a cell (``PileMove``)
        return pile_move(
            str(action[4]), int(action[1]), int(action[2]), str(action[5]), int(action[3])
        )
    return Move(int(action[1]), int(action[2]), int(action[3]))


@observability.observe_solver
async def ask_solver(snapshot: str, budget_seconds: float | None = None) -> SolverAnswer:
    """The solver's verdict on the game ``snapshot``, within the budget (see module notes).
    Raises ``SolverBusy`` when the pool's queue is full."""
    global _in_flight
    budget = get_settings().analysis_budget_seconds if budget_seconds is None else budget_seconds
    budget = max(0.0, min(budget, 10.0))
    started = time.monotonic()
    pool, size = _get_pool()
    with _lock:
        if _in_flight >= size * QUEUE_PER_WORKER:
            log.warning("solver pool busy: %d questions in flight", _in_flight)
            raise SolverBusy()
        _in_flight += 1
    future: Future[solver_worker.WorkerAnswer] | None = None
    try:
        future = pool.submit(solver_worker.analyse_snapshot, snapshot, time.time() + budget)
        verdict, action, _search_seconds = await asyncio.wait_for(
            asyncio.wrap_future(future), timeout=budget + GRACE_SECONDS
        )
    except TimeoutError:
        if future is not None:
            future.cancel()
        log.warning("solver question took longer than %.2f s", budget + GRACE_SECONDS)
        return _unknown(started)
    except BrokenProcessPool as exc:
        # A solver process died: the pool is unusable, the next question starts a new one.
        log.error("solver process lost: %r", exc)
        _discard_pool(pool)
        return _unknown(started)
    except Exception:  # noqa: BLE001 - the solver failing must not fail the page (logged)
        # E.g. the solver's SolverError (a line it could not verify) or a pool shut down.
        log.exception("solver question failed")
        return _unknown(started)
    finally:
        with _lock:
            _in_flight -= 1
    answer_verdict: Verdict = "unknown"
    if verdict == "win":
        answer_verdict = "win"
    elif verdict == "loss":
        answer_verdict = "loss"
    seconds = time.monotonic() - started
    log.info("solver answered %s in %.3f s", answer_verdict, seconds)
    return SolverAnswer(
        answer_verdict, _as_hint(action) if answer_verdict == "win" else None, seconds
    )


# -- the service -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Question:
    snapshot: str
    state: GameState
    solvable: bool = True


def prepare(
    db: Session, player_id: str, game_id: str, expected_version: int | None = None
) -> _Question:
    """Check the request like a game action (nothing changes but the rate-limit count)."""
    count_request(db, player_id, "actions")
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise NotFound()
    with read_tx(db):
        row = db.execute(
            select(GameRow).where(GameRow.id == game_id, GameRow.player_id == player_id)
        ).scalar_one_or_none()
        if row is None:
            raise NotFound()
        if expected_version is not None and expected_version != row.version:
            raise VersionConflict(row.version, expected_version)
        if row.status == "won":
            raise ActionRefused(WON_MESSAGE, "finished")
        try:
            check_solvable(get_variant(row.variant))
        except SolverUnsupported:
            return _Question(snapshot=row.snapshot, state=game_state(row), solvable=False)
        return _Question(snapshot=row.snapshot, state=game_state(row))


def mark_assisted(db: Session, player_id: str, game_id: str) -> datetime | None:
    """Mark the game assisted: the solver answered a question about it (one transaction).
    A question starts a game nobody touched yet (its clock, its start: ``game_core.begin``).
    Returns the game's clock start. A game deleted meanwhile is simply left alone."""
    with write_tx(db):
        row = db.execute(
            select(GameRow)
            .where(GameRow.id == game_id, GameRow.player_id == player_id)
            .with_for_update()
        ).scalar_one_or_none()
        if row is None:
            return None
        if row.started_at is None and row.status == "playing":
            row.started_at, row.counted = begin(db, player_id, row, utcnow())
        row.assisted = True
        db.flush()
        return row.started_at


def _start_question(player_id: str) -> None:
    with _lock:
        if player_id in _players_asking:
            raise QuestionInFlight()
        _players_asking.add(player_id)


def _end_question(player_id: str) -> None:
    with _lock:
        _players_asking.discard(player_id)


async def analyse_game(
    db: Session,
    player_id: str,
    game_id: str,
    *,
    hint: bool = False,
    expected_version: int | None = None,
    budget_seconds: float | None = None,
) -> AnalysisResult:
    """Is the player's game still winnable? With ``hint``, also a move that keeps it winnable.

    Raises ``NotFound`` (404), ``VersionConflict`` (409), ``ActionRefused`` for a won game (422)
    and ``RateLimited`` (429) like the other game actions, ``QuestionInFlight`` (429) while the
    player's previous question is being answered and ``SolverBusy`` (503) when the solver's
    queue is full; never waits longer than the budget plus ``GRACE_SECONDS`` for the solver.
    The game is marked assisted only once the solver answered "win" or "loss".
    """
    _start_question(player_id)
    try:
        started = time.monotonic()
        question = await run_in_threadpool(prepare, db, player_id, game_id, expected_version)
        if not question.solvable:  # the solver does not cover the variant yet: not asked
            answer = _unknown(started)
        else:
            answer = await ask_solver(question.snapshot, budget_seconds)
        state = question.state
        if answer.verdict != "unknown":
            clock = await run_in_threadpool(mark_assisted, db, player_id, game_id)
            # (the page's clock and its confirmation: the question started the game)
            state = replace(question.state, started_at=clock)
    finally:
        _end_question(player_id)
    return AnalysisResult(
        verdict=answer.verdict,
        seconds=round(answer.seconds, 3),
        hint=answer.first_action if hint else None,
        state=state,
    )


# -- proving a fresh daily deal winnable (``app/services/daily_pool.py``) ------------------------


def prove_deal_sync(variant: str, deal: str, budget_seconds: float) -> tuple[str, str | None]:
    """Ask the solver pool whether ``deal`` is winnable, waiting at most the budget plus
    ``GRACE_SECONDS`` (a blocking wait: call it from a worker thread, never the event loop).
    Returns (verdict, compact winning line or None); ``"unknown"`` on any trouble."""
    global _in_flight
    budget = max(0.0, min(budget_seconds, 10.0))
    pool, size = _get_pool()
    with _lock:
        if _in_flight >= size * QUEUE_PER_WORKER:
            log.warning("solver pool busy: %d questions in flight", _in_flight)
            return ("unknown", None)
        _in_flight += 1
    future: Future[tuple[str, str | None]] | None = None
    try:
        future = pool.submit(solver_worker.prove_deal, variant, deal, time.time() + budget)
        return future.result(timeout=budget + GRACE_SECONDS)
    except TimeoutError:
        if future is not None:
            future.cancel()
        return ("unknown", None)
    except BrokenProcessPool as exc:
        log.error("solver process lost: %r", exc)
        _discard_pool(pool)
        return ("unknown", None)
    except Exception:  # noqa: BLE001 - a failed proof only means "not proved" (logged)
        log.exception("solver proof of a daily deal failed")
        return ("unknown", None)
    finally:
        with _lock:
            _in_flight -= 1
