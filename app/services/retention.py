"""Retention: remove the unfinished games of players who have not been seen for N days.

A player's *last seen* time is the latest trace they left: the player row's creation, a
settings change, a game created or changed (every action updates the game's ``updated_at``)
a result recorded, or a device's last sighting (``devices.last_seen_at``, written at most once
an hour per device by the identity check, ``app/services/devices.py``). Nothing else is
written on a request just to track visits.

Only unfinished games (``status = 'playing'``) go, with their move log (ON DELETE CASCADE).
Won games, statistics and the player row stay: results are the player's own record, and
deleting everything is the player's choice (the privacy page). A game touched after the
cut-off is never removed, even if the player's other traces are old.

Then players with no data left go too (``purge_empty_players``): a player row unseen for N
days with no game, no result, no race entry and no profile holds nothing but its settings and
rate-limit counters (removed with it by ON DELETE CASCADE). Such an id is not refused later
(it was not deleted by its owner): the browser simply starts again as a new player; but a
device removed from that player before stays out (its keyed hash is kept, ``deleted_players``:
``app.services.devices.removal_key``), so an old cookie never becomes that player again.

Link codes past their ``expires_at`` (``purge_expired_link_codes``) go as well: an expired code
links nothing (``link_device`` refuses it), so its row (a keyed hash, the player, two times)
is only kept data; a player's next code replaces it, this removes the rest.

The command is ``python -m app.retention --days N`` (see ``app/retention.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, select, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql import Subquery

from app.db.models import (
    Device,
    GameRow,
    LinkCode,
    Player,
    PlayerProfile,
    PlayerSettings,
    RaceEntry,
    StatEvent,
    utcnow,
)
from app.services.common import write_tx


@dataclass(frozen=True)
class RemovedGame:
    id: str
    player_id: str
    variant: str
    moves: int
    updated_at: datetime
    player_last_seen: datetime


def _last_seen() -> Subquery:
    activity = union_all(
        select(Player.id.label("player_id"), Player.created_at.label("at")),
        select(PlayerSettings.player_id, PlayerSettings.updated_at),
        select(GameRow.player_id, GameRow.updated_at),
        select(StatEvent.player_id, StatEvent.at),
        select(Device.player_id, Device.last_seen_at),
    ).subquery("activity")
    return (
        select(activity.c.player_id, func.max(activity.c.at).label("last_seen"))
        .group_by(activity.c.player_id)
        .subquery("last_seen")
    )


def cutoff_for(days: int, now: datetime | None = None) -> datetime:
    if days < 1:
        raise ValueError("The retention period is at least one day.")
    return (now or utcnow()) - timedelta(days=days)


def find_stale_games(
    db: Session, days: int, *, now: datetime | None = None, limit: int | None = None
) -> list[RemovedGame]:
    """Unfinished games of players unseen for ``days`` days (oldest first); changes nothing."""
    cutoff = cutoff_for(days, now)
    last_seen = _last_seen()
    stmt = (
        select(
            GameRow.id,
            GameRow.player_id,
            GameRow.variant,
            GameRow.moves,
            GameRow.updated_at,
            last_seen.c.last_seen,
        )
        .join(last_seen, last_seen.c.player_id == GameRow.player_id)
        .where(
            GameRow.status == "playing",
            GameRow.updated_at < cutoff,
            last_seen.c.last_seen < cutoff,
        )
        .order_by(GameRow.updated_at, GameRow.id)
    )
    if limit is not None:
        stmt = stmt.limit(limit)
    return [
        RemovedGame(
            id=r[0],
            player_id=r[1],
            variant=r[2],
            moves=int(r[3] or 0),
            updated_at=r[4],
            player_last_seen=r[5],
        )
        for r in db.execute(stmt)
    ]


def purge_stale_games(
    db: Session, days: int, *, now: datetime | None = None, batch_size: int = 500
) -> list[RemovedGame]:
    """Delete the unfinished games of players unseen for ``days`` days; return what went.

    Works in batches of ``batch_size`` games, one write transaction each, so a large purge
    never holds the database for long. Each delete re-checks the game's own ``updated_at``,
    so a game played meanwhile stays.
    """
    now = now or utcnow()
    cutoff = cutoff_for(days, now)
    removed: list[RemovedGame] = []
    while True:
        with write_tx(db):
            batch = find_stale_games(db, days, now=now, limit=batch_size)
            if not batch:
                break
            deleted = set(
                db.execute(
                    delete(GameRow)
                    .where(
                        GameRow.id.in_([g.id for g in batch]),
                        GameRow.status == "playing",
                        GameRow.updated_at < cutoff,
                    )
                    .returning(GameRow.id)
                    .execution_options(synchronize_session=False)
                ).scalars()
            )
        removed.extend(g for g in batch if g.id in deleted)
        if len(deleted) < len(batch) or len(batch) < batch_size:
            # Fewer deleted than found means the rest changed meanwhile: stop, never spin.
            break
    return removed


def _empty_and_unseen(cutoff: datetime) -> list[Any]:
    """Conditions: the player has no data left and left no trace since ``cutoff``."""
    return [
        ~exists().where(GameRow.player_id == Player.id),
        ~exists().where(StatEvent.player_id == Player.id),
        ~exists().where(RaceEntry.player_id == Player.id),
        ~exists().where(PlayerProfile.player_id == Player.id),
        ~exists().where(PlayerSettings.player_id == Player.id, PlayerSettings.updated_at >= cutoff),
        Player.created_at < cutoff,
    ]


def purge_empty_players(
    db: Session, days: int, *, now: datetime | None = None, batch_size: int = 500
) -> int:
    """Delete players unseen for ``days`` days who have no data left; return how many.

    Batches of ``batch_size``, one write transaction each; the delete re-checks every
    condition, so a player who came back meanwhile stays.
    """
    cutoff = cutoff_for(days, now)
    removed = 0
    while True:
        with write_tx(db):
            ids = list(
                db.execute(
                    select(Player.id)
                    .where(*_empty_and_unseen(cutoff))
                    .order_by(Player.id)
                    .limit(batch_size)
                ).scalars()
            )
            if not ids:
                break
            result = db.execute(
                delete(Player)
                .where(Player.id.in_(ids), *_empty_and_unseen(cutoff))
                .execution_options(synchronize_session=False)
            )
            deleted = int(getattr(result, "rowcount", 0) or 0)
        removed += deleted
        if deleted < len(ids) or len(ids) < batch_size:
            break
    return removed


def purge_expired_link_codes(db: Session, *, now: datetime | None = None) -> int:
    """Delete the link codes that have expired (one write transaction); return how many."""
    now = now or utcnow()
    with write_tx(db):
        result = db.execute(
            delete(LinkCode)
            .where(LinkCode.expires_at < now)
            .execution_options(synchronize_session=False)
        )
        return int(getattr(result, "rowcount", 0) or 0)


__all__ = [
    "RemovedGame",
    "cutoff_for",
    "find_stale_games",
    "purge_empty_players",
    "purge_expired_link_codes",
    "purge_stale_games",
]
