"""Per-player rate limits, kept in the database so that every worker shares them.

Two scopes: ``games`` (creating or restarting a game) and ``actions`` (moves, deals, undo,
redo, hints, and every other writing request). Each (player, scope) has one fixed-window
counter row in ``rate_limits``, bumped by one atomic UPDATE of the row (its first count: one
atomic UPSERT, ``app.services.windows``).

A player action counts *inside its own transaction* (``counted_tx``): one transaction per
action, the count included. The count comes first; a request over the limit is rolled back
whole (``RateLimited``: nothing changes, the count included), and an action the game or the
rules refuse (``ServiceError``: missing game, stale version, illegal move, bad input) commits
the count alone, so refused and invalid attempts count too (a flood of garbage is limited
like a flood of moves). The services raise those errors before they write anything else.
Requests whose work cannot share a transaction with the count (a solver question waits
seconds for its answer) call ``consume`` first: the count in a transaction of its own, which
on PostgreSQL commits with ``synchronous_commit = off`` (a counter lost in a crash is
harmless; the action's own commit stays the only one that waits for the disk).

Defaults (``Settings``): 300 games and 3000 actions per player per 60 s window, which no human
player meets. ``RATE_LIMITS=off`` (that exact value) switches every limit off: nothing is
counted at all.

Counter rows hang off ``players`` with ``ON DELETE CASCADE``: deleting a player deletes them.
A player id with no player row yet (a first request) is not counted for actions (it has no
game to act on: the action is a 404); for ``games`` the player row is created first, as the
game creation does anyway. On PostgreSQL the player row is locked before counting, so a
deletion cannot commit in between.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from sqlalchemy import Connection, bindparam, case, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import Player, RateLimitCounter
from app.db.session import begin_write, write_engine
from app.services.common import create_player_row, engine_of, write_tx
from app.services.errors import RateLimited, ServiceError
from app.services.windows import retry_after, window_start, window_upsert

Scope = Literal["games", "actions"]
SCOPES: tuple[Scope, ...] = ("games", "actions")


def rate_limits_on() -> bool:
    return get_settings().rate_limits_enabled


def limit_for(settings: Settings, scope: Scope) -> int:
    if scope == "games":
        return settings.rate_limit_games
    return settings.rate_limit_actions


# Counted only for a player that has a row (a first request's action is a 404 anyway).
_UPSERT = window_upsert(
    "rate_limits",
    "player_id",
    """SELECT CAST(:player_id AS VARCHAR(64)), CAST(:scope AS VARCHAR(16)),
           CAST(:window_start AS BIGINT), 1
    WHERE EXISTS (SELECT 1 FROM players WHERE players.id = :player_id)""",
)
# Core statements, built once at import (SQLAlchemy caches their compiled forms). PostgreSQL,
# for ``consume``'s transaction of its own: it commits without waiting for the disk
# (``synchronous_commit`` off for that transaction alone).
_COUNT = _UPSERT
_COUNT_RELAXED_POSTGRES = text(
    _UPSERT.text.replace(
        "WHERE EXISTS",
        "WHERE set_config('synchronous_commit', 'off', true) = 'off' AND EXISTS",
    )
)
# The common case, a player counted before: the row's own update (a third of the UPSERT's cost
# on SQLite: no insert tried, no foreign key or player looked up); no row: the UPSERT.
_LIMITS = RateLimitCounter.__table__.c
# (bind names that are no column's: an UPDATE takes a parameter named as a column for its SET)
_NEW_WINDOW = bindparam("start") > _LIMITS.window_start
_BUMP = (
    update(RateLimitCounter)
    .where(
        _LIMITS.player_id == bindparam("player"),
        _LIMITS.scope == bindparam("kind"),
    )
    .values(
        count=case((_NEW_WINDOW, 1), else_=_LIMITS.count + 1),
        window_start=case((_NEW_WINDOW, bindparam("start")), else_=_LIMITS.window_start),
    )
    .returning(_LIMITS.count, _LIMITS.window_start)
)
_LOCK_PLAYER = select(Player.id).where(Player.id == bindparam("id")).with_for_update()


def count(
    db: Session | Connection,
    player_id: str,
    scope: Scope,
    *,
    settings: Settings | None = None,
    now: float | None = None,
    relaxed: bool = False,
) -> int | None:
    """Count one request of ``scope`` inside the caller's write transaction; raise
    ``RateLimited`` past the limit. Returns the count in the current window, or ``None`` when
    nothing was counted (limits off, or an unknown player). ``now``: Unix seconds, for tests;
    ``relaxed``: the transaction holds nothing but the count (PostgreSQL need not wait for
    the disk)."""
    settings = settings or get_settings()
    if not settings.rate_limits_enabled:
        return None
    length = max(1, int(settings.rate_limit_window_seconds))
    current = time.time() if now is None else now
    start = window_start(current, length)
    conn = db if isinstance(db, Connection) else db.connection()
    bump = {"player": player_id, "kind": scope, "start": start}
    row = None if relaxed else conn.execute(_BUMP, bump).first()
    if row is None:
        postgres = conn.dialect.name == "postgresql"
        upsert = _COUNT_RELAXED_POSTGRES if relaxed and postgres else _COUNT
        params = {"player_id": player_id, "scope": scope, "window_start": start}
        row = conn.execute(upsert, params).first()
    if row is None:
        return None
    counted, started = int(row[0]), int(row[1])
    limit = limit_for(settings, scope)
    if counted > limit:
        raise RateLimited(scope, limit, length, retry_after(started, length, current))
    return counted


def consume(
    db: Session,
    player_id: str,
    scope: Scope,
    *,
    settings: Settings | None = None,
    now: float | None = None,
) -> int | None:
    """``count`` in a write transaction of its own on ``db`` (call it before the request's
    own transaction, never inside one; ``now=`` for tests). Past the limit the transaction
    is rolled back (nothing changes) and ``RateLimited`` raised."""
    settings = settings or get_settings()
    if not settings.rate_limits_enabled:
        return None
    try:
        with write_tx(db):
            if scope == "games":
                create_player_row(db, player_id, settings=settings)  # deleted id: PlayerDeleted
            return count(db, player_id, scope, settings=settings, now=now, relaxed=True)
    except IntegrityError:
        # PostgreSQL: the player was deleted while this counted ("Delete everything" in
        # another tab): nothing to count; the action itself then finds no player.
        return None


@contextmanager
def counted_tx(db: Session, player_id: str, scope: Scope) -> Iterator[bool]:
    """One write transaction for one player action, which it counts first (module notes).

    Yields whether the player has a row: for ``games`` it is created if missing (a deleted
    id raises ``PlayerDeleted``); on PostgreSQL the row is locked (``FOR UPDATE``), which
    serialises the player's writes (SQLite's ``BEGIN IMMEDIATE`` serialises all writers, and
    yields True: the block's own lookups find no game of an unknown player).
    Committed at the end of the block; a ``ServiceError`` from the block commits the count
    alone (the block raises those before it writes); anything else rolls back.
    """
    begin_write(db)
    with _counted(db, player_id, scope) as known:
        yield known


@contextmanager
def counted_connection(db: Session, player_id: str) -> Iterator[tuple[Connection, bool]]:
    """``counted_tx`` of an action (scope ``actions``) on a Core connection of ``db``'s engine
    instead of the session (the action's hot path, ``app.services.actions``: Core statements,
    no ORM unit of work to set up and end). The session's own transaction, if any, is ended
    first. Yields the connection and whether the player has a row; committed, or rolled back,
    the same."""
    if db.in_transaction():
        db.rollback()
    with write_engine(engine_of(db)).connect() as conn:
        conn.begin()
        with _counted(conn, player_id, "actions") as known:
            yield conn, known


@contextmanager
def _counted(db: Session | Connection, player_id: str, scope: Scope) -> Iterator[bool]:
    """The count and the end of ``counted_tx``'s transaction, begun by the caller on ``db``."""
    try:
        if scope == "games":
            assert isinstance(db, Session)
            known = create_player_row(db, player_id)
        else:
            conn = db if isinstance(db, Connection) else db.connection()
            postgres = conn.dialect.name == "postgresql"
            locked = conn.execute(_LOCK_PLAYER, {"id": player_id}).first() if postgres else True
            known = locked is not None
        if known:
            count(db, player_id, scope)
        yield known
    except ServiceError:
        db.commit()  # the count alone: a refused or invalid attempt counts
        raise
    except BaseException:
        db.rollback()
        raise
    db.commit()


__all__ = [
    "SCOPES",
    "RateLimited",
    "Scope",
    "consume",
    "count",
    "counted_connection",
    "counted_tx",
    "limit_for",
    "rate_limits_on",
]
