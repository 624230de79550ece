"""A player's action, and a game's read, on the event loop itself when nothing in them can
wait (issue 12, "the stack's floor").

A sync route costs two thread hops a request (into a worker thread and back), about as much
as the whole bare baseline's endpoint. On SQLite an action (``services.act``) is CPU work
only, in one transaction on a local file, so ``run_action`` runs it right on the loop, on
``loop_connection()``, which never waits:

- another connection holds the write lock (another worker process, or an action in a worker
  thread): ``BEGIN`` fails at once (``WriteLockBusy``), nothing was done, and the action runs
  in a worker thread on the request's session, where it waits its turn as any write does;
  the same for a "database is locked" later in the transaction (rolled back whole);
- the disk's fsync: a commit there never checkpoints the WAL; every ``CHECKPOINT_EVERY``
  actions run here, a worker thread does (``checkpoint_wal``, passive: it waits for nobody).

A game's read (the play page, ``GET /api/games/{id}``: ``run_read``) is one statement, which
in WAL mode never waits for a writer. With PostgreSQL every statement is a network round
trip: actions and reads always run in a worker thread (``loop_connection()`` is None). The
action itself is the same either way: the same service, the same single transaction and
rate-limit count. ``scorpion_actions_run_total{where}`` counts where actions ran.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import observability
from app.db.session import WriteLockBusy, checkpoint_wal, is_busy, loop_connection
from app.web.deps import RequestDb

T = TypeVar("T")
DbAction = Callable[[Session | Connection], T]

CHECKPOINT_EVERY = 200  # actions on the loop between WAL checkpoints (about 1,000 pages)

log = logging.getLogger("scorpion.inline")
_RAN = {where: observability.ACTIONS_RUN.labels(where) for where in ("loop", "busy", "thread")}


class _Checkpoints:
    """The loop's count of actions since the last checkpoint, and the one running, if any."""

    def __init__(self) -> None:
        self.since = 0
        self.running: asyncio.Future[None] | None = None

    def after_action(self) -> None:
        self.since += 1
        if self.since < CHECKPOINT_EVERY or (self.running and not self.running.done()):
            return
        self.since = 0
        self.running = asyncio.get_running_loop().run_in_executor(None, _checkpoint)


def _checkpoint() -> None:
    try:
        checkpoint_wal()
    except Exception:  # the next one will try again; a commit in a thread checkpoints too
        log.warning("WAL checkpoint failed", exc_info=True)


_checkpoints = _Checkpoints()


async def run_action(caller: RequestDb, action: DbAction[T]) -> T:
    """``action(db)``: on the event loop with ``loop_connection()`` when it can run there without
    waiting, else in a worker thread with the request's session (see the module notes)."""
    conn = loop_connection()
    if conn is None:
        _RAN["thread"].inc()
        return await run_in_threadpool(action, caller.db)
    busy = False
    try:
        return action(conn)
    except WriteLockBusy:
        busy = True
    except OperationalError as error:
        if not is_busy(error):
            raise
        busy = True
    finally:
        _RAN["busy" if busy else "loop"].inc()
        _checkpoints.after_action()
    return await run_in_threadpool(action, caller.db)


async def run_read(caller: RequestDb, read: DbAction[T]) -> T:
    """``read(db)``: one statement on the event loop's connection (SQLite in WAL mode: a
    reader never waits for a writer), else, or should it find the database busy all the
    same, in a worker thread with the request's session."""
    conn = loop_connection()
    if conn is not None:
        try:
            return read(conn)
        except OperationalError as error:
            if not is_busy(error):
                raise
    return await run_in_threadpool(read, caller.db)
