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
2. ``ask_solver`` (async): the question takes a place in this worker's fair queue (below),
   waits for a solver process of its own, then sends the stored snapshot (the full position,
   hidden cards included, which never leaves the server) to it with a deadline
   ``ANALYSIS_BUDGET_SECONDS`` away, and awaits the answer without blocking the event loop or a
   thread, for at most the budget plus ``GRACE_SECONDS``. Past the deadline, if no process
   came free in time, or if the pool is broken, the verdict is ``"unknown"`` ("could not tell
   in time").
3. ``mark_assisted`` (sync, a second short transaction, only after the solver answered "win"
   or "loss"): marks the game *assisted*. A question refused, failed or answered "unknown"
   told the player nothing, so it leaves the game as it was.

The fair queue (issue 39: four cookies of one address asking hard questions in a loop must
not starve another player's easy one). Questions are held per *client*: the request's client
address (``app.services.clients.current_address``, an IPv6 client's /64), one client for the
daily deal's proofs. At most ``QUEUE_PER_WORKER`` questions per solver process wait or run
(beyond: ``SolverBusy``, 503 with ``Retry-After``, instead of "unknown"), and one client holds
at most one place per solver process plus one (``client_places``): an address full of
cookies cannot take every place. Only as many questions as there are solver processes are
sent to the pool at once; when one comes free it goes to the waiting client served least
recently (a newcomer first), each client's own questions in turn (one per player). A question
is timed from the moment its process starts on it, so a wait behind another client's hard
question does not eat its budget; it waits at most the budget plus ``GRACE_SECONDS`` for
its turn.
3. ``mark_assisted`` (sync, a second short transaction, only after the solver answered "win"
   or "loss"): marks the game *assisted*. A question refused, failed or answered "unknown"
   told the player nothing, so it leaves the game as it was.

The answer holds the verdict and, only when asked for, the first action of a *verified*
winning line (the solver replays every winning line through the engine before believing it).
Neither the line nor any hidden card is ever returned.

Hints you can follow to the end (issue 40): the whole verified line of a "win" is kept for the
game in the database (``solver_lines``, written with the assisted mark, in the same transaction)
with the position it starts from. A question about a position that line passes through is
answered from it ("win", its next action) without asking the pool, so following the hints
reaches the win without ever coming back to a position; a position off the line is searched
again and its line replaces the stored one (``app/engine/solver/lines.py``).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import observability, solver_worker
from app.config import get_settings
from app.db.models import GameRow, SolverLine
from app.engine import Action, Game, Move, get_variant, pile_move
from app.engine.solver import SolverUnsupported, check_solvable, decode_line
from app.engine.solver.lines import ProvedLine, next_on_line

from .clients import current_address
from .common import read_tx, utcnow, write_tx
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
# Questions waiting or running per solver process beyond which new ones are refused at once
# (``SolverBusy``: they could not be answered in time anyway).
QUEUE_PER_WORKER = 4
# The client of the daily deal's proofs (``prove_deal_sync``) in the fair queue.
DAILY_CLIENT = "daily-pool"

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
    line: str | None = None  # a win's whole verified line (``encode_line``): server side only


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
_in_flight = 0  # questions waiting for a solver process or running, in this process
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


# -- the fair queue (see the module notes) -----------------------------------------------------


@dataclass(eq=False, slots=True)
class _Ticket:
    """One question's place: ``go`` is set when a solver process is its own."""

    client: str
    go: Future[None] = field(default_factory=Future)
    running: bool = False


_waiting: dict[str, deque[_Ticket]] = {}  # per client, in the order they came
_held: dict[str, int] = {}  # questions waiting or running per client
_served: OrderedDict[str, float] = OrderedDict()  # when each client last got a process
_SERVED_KEPT = 4096
_running = 0


def client_places(size: int) -> int:
    """Places (waiting or running) one client may hold: one per solver process, plus one."""
    return size + 1


def _admit(client: str, size: int) -> _Ticket:
    """A place in the queue for ``client``'s question, or ``SolverBusy``."""
    global _in_flight
    with _lock:
        if _in_flight >= size * QUEUE_PER_WORKER or _held.get(client, 0) >= client_places(size):
            log.warning("solver queue busy: %d questions in flight", _in_flight)
            raise SolverBusy()
        _in_flight += 1
        _held[client] = _held.get(client, 0) + 1
        ticket = _Ticket(client)
        _waiting.setdefault(client, deque()).append(ticket)
        _grant(size)
    return ticket


def _grant(size: int) -> None:
    """Give the free solver processes to the waiting clients served least recently (under
    ``_lock``)."""
    global _running
    while _running < size and _waiting:
        client = min(_waiting, key=lambda c: _served.get(c, 0.0))  # ties: the first to wait
        queue = _waiting[client]
        ticket = queue.popleft()
        if not queue:
            del _waiting[client]
        try:
            ticket.go.set_result(None)
        except InvalidStateError:  # its asker gave up meanwhile (and releases its place)
            continue
        ticket.running = True
        _running += 1
        _served[client] = time.monotonic()
        _served.move_to_end(client)
        while len(_served) > _SERVED_KEPT:
            _served.popitem(last=False)


def _release(ticket: _Ticket, size: int) -> None:
    """The question is over (answered, given up or failed): its place goes to the next."""
    global _in_flight, _running
    with _lock:
        if ticket.running:
            _running -= 1
        else:
            queue = _waiting.get(ticket.client)
            if queue is not None and ticket in queue:
                queue.remove(ticket)
                if not queue:
                    del _waiting[ticket.client]
        _in_flight -= 1
        left = _held.get(ticket.client, 1) - 1
        if left > 0:
            _held[ticket.client] = left
        else:
            _held.pop(ticket.client, None)
        _grant(size)


def _turn_seconds(budget: float) -> float:
    """How long a question waits for a solver process of its own at most."""
    return budget + GRACE_SECONDS


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
async def ask_solver(
    snapshot: str, budget_seconds: float | None = None, client: str | None = None
) -> SolverAnswer:
    """The solver's verdict on the game ``snapshot``, within the budget (see module notes).
    ``client``: whose question it is in the fair queue (default: the request's address).
    Raises ``SolverBusy`` when the queue, or the client's share of it, is full."""
    budget = get_settings().analysis_budget_seconds if budget_seconds is None else budget_seconds
    budget = max(0.0, min(budget, 10.0))
    started = time.monotonic()
    pool, size = _get_pool()
    ticket = _admit(client or current_address.get() or "-", size)
    future: Future[tuple[str, str | None, float]] | None = None
    try:
        try:
            await asyncio.wait_for(asyncio.wrap_future(ticket.go), timeout=_turn_seconds(budget))
        except TimeoutError:
            log.warning("solver question waited longer than %.2f s", _turn_seconds(budget))
            return _unknown(started)
        future = pool.submit(solver_worker.analyse_snapshot_line, snapshot, time.time() + budget)
        verdict, line, _search_seconds = await asyncio.wait_for(
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
        _release(ticket, size)
    answer_verdict: Verdict = "unknown"
    actions = decode_line(line) if line else []
    if verdict == "win" and actions:
        answer_verdict = "win"
    elif verdict == "loss":
        answer_verdict = "loss"
    seconds = time.monotonic() - started
    log.info("solver answered %s in %.3f s", answer_verdict, seconds)
    return SolverAnswer(
        answer_verdict,
        _as_hint(actions[0]) if answer_verdict == "win" else None,
        seconds,
        line if answer_verdict == "win" else None,
    )


# -- the service -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Question:
    snapshot: str
    state: GameState
    solvable: bool = True
    # the position is on the game's stored proved line: its next action and the rest of it
    on_line: tuple[Action, ProvedLine] | None = None


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
        stored = db.execute(
            select(SolverLine.start, SolverLine.line).where(SolverLine.game_id == game_id)
        ).one_or_none()
        on_line = None
        if stored is not None:
            on_line = next_on_line(
                ProvedLine(stored.start, stored.line), Game.from_snapshot(row.snapshot)
            )
        return _Question(snapshot=row.snapshot, state=game_state(row), on_line=on_line)


def mark_assisted(
    db: Session, player_id: str, game_id: str, proved: ProvedLine | None = None
) -> datetime | None:
    """Mark the game assisted: the solver answered a question about it (one transaction).
    A question starts a game nobody touched yet (its clock, its start: ``game_core.begin``).
    With ``proved``, keep it as the game's proved line (in the same transaction).
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
        if proved is not None:
            _store_line(db, game_id, proved)
        db.flush()
        return row.started_at


def _store_line(db: Session, game_id: str, proved: ProvedLine) -> None:
    row = db.get(SolverLine, game_id)
    if row is None:
        db.add(SolverLine(game_id=game_id, start=proved.start, line=proved.line))
    else:
        row.start, row.line, row.updated_at = proved.start, proved.line, utcnow()


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
        proved: ProvedLine | None = None
        if not question.solvable:  # the solver does not cover the variant yet: not asked
            answer = _unknown(started)
        elif question.on_line is not None:  # on the proved line: its next action
            action, proved = question.on_line
            answer = SolverAnswer("win", _as_hint(action), time.monotonic() - started)
        else:
            client = current_address.get() or f"player:{player_id}"
            answer = await ask_solver(question.snapshot, budget_seconds, client)
            if answer.verdict == "win" and answer.line:
                proved = ProvedLine(question.snapshot, answer.line)
        state = question.state
        if answer.verdict != "unknown":
            clock = await run_in_threadpool(mark_assisted, db, player_id, game_id, proved)
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
    Returns (verdict, compact winning line or None); ``"unknown"`` on any trouble (a full
    queue included). It waits its turn in the fair queue as one client of its own."""
    budget = max(0.0, min(budget_seconds, 10.0))
    pool, size = _get_pool()
    try:
        ticket = _admit(DAILY_CLIENT, size)
    except SolverBusy:
        return ("unknown", None)
    future: Future[tuple[str, str | None]] | None = None
    try:
        try:
            ticket.go.result(timeout=_turn_seconds(budget))
        except FutureTimeout:
            ticket.go.cancel()
            return ("unknown", None)
        future = pool.submit(solver_worker.prove_deal, variant, deal, time.time() + budget)
        return future.result(timeout=budget + GRACE_SECONDS)
    except FutureTimeout:
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
        _release(ticket, size)


# How long a background question (``ask_solver_sync``) may wait on top of its budget: for a
# process to start and the queue ahead of it (its budget counts from the start of its search).
SYNC_WAIT_SECONDS = 60.0
# The reviews are one client of their own in the fair queue: they never crowd out players.
REVIEW_CLIENT = "review"


def ask_solver_sync(snapshot: str, budget_seconds: float) -> SolverAnswer:
    """``ask_solver`` for a background thread (a blocking wait, never on the event loop): the
    reviews of games (``app/services/review.py``). Raises ``SolverBusy`` when the queue is full;
    ``"unknown"`` on any trouble."""
    budget = max(0.0, min(budget_seconds, 10.0))
    started = time.monotonic()
    pool, size = _get_pool()
    ticket = _admit(REVIEW_CLIENT, size)
    future: Future[tuple[str, str | None, float]] | None = None
    try:
        try:
            ticket.go.result(timeout=budget + SYNC_WAIT_SECONDS)
        except FutureTimeout:
            ticket.go.cancel()
            return _unknown(started)
        future = pool.submit(solver_worker.review_snapshot, snapshot, budget)
        verdict, line, _search_seconds = future.result(timeout=budget + SYNC_WAIT_SECONDS)
    except TimeoutError:
        if future is not None:
            future.cancel()
        return _unknown(started)
    except BrokenProcessPool as exc:
        log.error("solver process lost: %r", exc)
        _discard_pool(pool)
        return _unknown(started)
    except Exception:  # noqa: BLE001 - a failed question is only "unknown" (logged)
        log.exception("solver question (review) failed")
        return _unknown(started)
    finally:
        _release(ticket, size)
    seconds = time.monotonic() - started
    if verdict == "win" and line:
        return SolverAnswer("win", _as_hint(decode_line(line)[0]), seconds, line)
    if verdict == "loss":
        return SolverAnswer("loss", None, seconds)
    return SolverAnswer("unknown", None, seconds)
