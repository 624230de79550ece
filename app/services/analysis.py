"""Solver questions about a game in progress: "is this still winnable?" and the solver hint.

The web server never runs the solver in a request worker. Each web worker process owns a small
pool of solver processes (``concurrent.futures.ProcessPoolExecutor``, ``ANALYSIS_WORKERS``
processes, created on the first question, re-created if one dies). A question:

1. ``prepare`` (sync, one DB transaction, run in the thread pool): the rate limit of actions,
   the ownership check (another player's game: ``NotFound``), the optional ``version``
   (``VersionConflict``), a won game (``ActionRefused``: "This game is won and finished"), then
   marks the game *assisted* (asking counts as help, whatever the answer). Nothing else changes.
   A variant the solver does not cover yet (``check_solvable``) is answered ``"unknown"`` at
   once, without asking the pool and without marking the game: nothing hidden was read.
2. ``ask_solver`` (async): sends the stored snapshot (the full position, hidden cards included,
   which never leaves the server) to the pool with a deadline ``ANALYSIS_BUDGET_SECONDS`` away
   and awaits the future without blocking the event loop or a thread, for at most the budget
   plus ``GRACE_SECONDS``. Past that, or if the pool is busy or broken, the verdict is
   ``"unknown"`` ("could not tell in time"); a question still queued is cancelled.

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
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import solver_worker
from app.config import get_settings
from app.db.models import GameRow
from app.engine import Action, Move, get_variant
from app.engine.solver import SolverUnsupported, check_solvable

from .common import write_tx
from .errors import ActionRefused, NotFound, VersionConflict
from .game_core import game_state
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


@dataclass(frozen=True, slots=True)
class SolverAnswer:
    verdict: Verdict
    first_action: SolverHint | None  # a win's first step (None unless the verdict is "win")
    seconds: float  # wall time of the question, queue and process start included


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """The answer to one question about a game. ``hint`` is set only when it was asked for
    and the verdict is ``"win"``; ``state`` is the game as analysed (now marked assisted)."""

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
    return Move(int(action[1]), int(action[2]), int(action[3]))


async def ask_solver(snapshot: str, budget_seconds: float | None = None) -> SolverAnswer:
    """The solver's verdict on the game ``snapshot``, within the budget (see module notes)."""
    global _in_flight
    budget = get_settings().analysis_budget_seconds if budget_seconds is None else budget_seconds
    budget = max(0.0, min(budget, 10.0))
    started = time.monotonic()
    pool, size = _get_pool()
    with _lock:
        if _in_flight >= size * QUEUE_PER_WORKER:
            log.warning("solver pool busy: %d questions in flight", _in_flight)
            return _unknown(started)
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
    """Check the request like a game action and mark the game assisted (one transaction)."""
    count_request(db, player_id, "actions")
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise NotFound()
    with write_tx(db):
        row = db.execute(
            select(GameRow)
            .where(GameRow.id == game_id, GameRow.player_id == player_id)
            .with_for_update()
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
        row.assisted = True
        question = _Question(snapshot=row.snapshot, state=game_state(row))
        return question


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
    and ``RateLimited`` (429) like the other game actions; never waits longer than the budget
    plus ``GRACE_SECONDS`` for the solver.
    """
    started = time.monotonic()
    question = await run_in_threadpool(prepare, db, player_id, game_id, expected_version)
    if not question.solvable:  # the solver does not cover the variant yet: no question asked
        answer = _unknown(started)
    else:
        answer = await ask_solver(question.snapshot, budget_seconds)
    return AnalysisResult(
        verdict=answer.verdict,
        seconds=round(answer.seconds, 3),
        hint=answer.first_action if hint else None,
        state=question.state,
    )
