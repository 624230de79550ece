"""Per-player rate limits, kept in the database so that every worker shares them.

Two scopes: ``games`` (creating or restarting a game) and ``actions`` (moves, deals, undo,
redo, hints). Each (player, scope) has one counter row in ``rate_limits`` with a fixed window:
``window_start`` (Unix seconds, a multiple of the window length) and ``count``. One atomic
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` (SQLite 3.35+ and PostgreSQL alike) opens a
new window or adds one to the current one, so two workers can never both read a count and
write back the same value.

The counter is bumped in its own short transaction *before* the action's transaction, so
refused and invalid attempts count too (a flood of garbage is limited like a flood of moves),
and a request over the limit is turned away before any game is touched: nothing changes.
On PostgreSQL that transaction commits with ``synchronous_commit = off``: a counter lost in a
crash is harmless, and the action's own commit stays the only one that waits for the disk.

Defaults (``Settings``): 300 games and 3000 actions per player per 60 s window, which no human
player meets. ``RATE_LIMITS=off`` (that exact value) switches every limit off: nothing is
counted at all.

Counter rows hang off ``players`` with ``ON DELETE CASCADE``: deleting a player deletes them
(a deletion committing while a counter is bumped leaves nothing counted, never an error).
A player id with no player row yet (a first request) is not counted for actions (it has no
game to act on: the action is a 404); for ``games`` the player row is created first, as the
game creation would do anyway.
"""

from __future__ import annotations

import math
import time
from typing import Literal

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.services.common import create_player_row, is_postgres, write_tx
from app.services.errors import RateLimited

Scope = Literal["games", "actions"]
SCOPES: tuple[Scope, ...] = ("games", "actions")


def limit_for(settings: Settings, scope: Scope) -> int:
    if scope == "games":
        return settings.rate_limit_games
    return settings.rate_limit_actions


# One statement, the same on SQLite (3.35+) and PostgreSQL, written once: no per-request
# statement building. A newer window restarts the count at one; the current (or an older,
# from a worker whose clock is a little behind) window adds one.
_UPSERT = text(
    """
    INSERT INTO rate_limits (player_id, scope, window_start, count)
    SELECT CAST(:player_id AS VARCHAR(64)), CAST(:scope AS VARCHAR(16)),
           CAST(:window_start AS BIGINT), 1
    WHERE EXISTS (SELECT 1 FROM players WHERE players.id = :player_id)
    ON CONFLICT (player_id, scope) DO UPDATE SET
        count = CASE WHEN excluded.window_start > rate_limits.window_start
                     THEN 1 ELSE rate_limits.count + 1 END,
        window_start = CASE WHEN excluded.window_start > rate_limits.window_start
                            THEN excluded.window_start ELSE rate_limits.window_start END
    RETURNING count, window_start
    """
)


# PostgreSQL: the same, and this small transaction commits without waiting for the disk
# (``synchronous_commit`` off for it alone: a counter lost in a crash is harmless).
_UPSERT_PG = text(
    str(_UPSERT.text).replace(
        "WHERE EXISTS",
        "WHERE set_config('synchronous_commit', 'off', true) = 'off' AND EXISTS",
    )
)


def consume(
    db: Session,
    player_id: str,
    scope: Scope,
    *,
    settings: Settings | None = None,
    now: float | None = None,
) -> int | None:
    """Count one request of ``scope`` for ``player_id``; raise ``RateLimited`` past the limit.

    Runs and commits its own write transaction on ``db`` (call it before the action's own
    transaction, never inside one). Returns the count in the current window, or ``None`` when
    nothing was counted (limits off, or an unknown player's action).
    """
    settings = settings or get_settings()
    if not settings.rate_limits_enabled:
        return None
    limit = limit_for(settings, scope)
    window = max(1, int(settings.rate_limit_window_seconds))
    current = time.time() if now is None else now
    window_start = int(current // window) * window

    try:
        with write_tx(db):
            upsert = _UPSERT_PG if is_postgres(db) else _UPSERT
            if scope == "games":
                create_player_row(db, player_id, settings=settings)  # deleted id: PlayerDeleted
            params = {"player_id": player_id, "scope": scope, "window_start": window_start}
            row = db.connection().execute(upsert, params).one_or_none()
    except IntegrityError:
        # PostgreSQL: the player was deleted while this counted ("Delete everything" in
        # another tab): nothing to count; the action itself then finds no player.
        return None
    if row is None:
        return None
    count, started = int(row[0]), int(row[1])
    if count > limit:
        retry_after = max(1, math.ceil(started + window - current))
        raise RateLimited(scope, limit, window, retry_after)
    return count


__all__ = ["SCOPES", "RateLimited", "Scope", "consume", "limit_for"]
