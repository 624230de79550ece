"""Helpers shared by the services: transactions, the upsert, player rows, locks, statistics.

- ``write_tx(db)``: one write transaction (``BEGIN IMMEDIATE`` on SQLite), committed when the
  block ends, rolled back on any error.
- ``read_tx(db)``: a read; the transaction is ended (rolled back) when the block ends, so no
  connection or snapshot is held between requests.
- ``insert_ignore(db, model, **values)``: ``INSERT ... ON CONFLICT DO NOTHING`` in the
  database's own dialect (the one dialect-specific upsert).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.models import Player, PlayerSettings, StatEvent, VariantStats, utcnow
from app.db.session import begin_write


def new_player_id() -> str:
    """A fresh random player id (192 bits)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A fresh random, opaque game id (128 bits)."""
    return secrets.token_urlsafe(16)


@contextmanager
def write_tx(db: Session) -> Iterator[Session]:
    """One write transaction: committed at the end of the block, rolled back on any error."""
    begin_write(db)
    try:
        yield db
        db.commit()
    except BaseException:
        db.rollback()
        raise


@contextmanager
def read_tx(db: Session) -> Iterator[Session]:
    """A read: the transaction (if the block opened one) ends with the block."""
    try:
        yield db
    finally:
        db.rollback()


def is_postgres(db: Session) -> bool:
    return db.get_bind().dialect.name == "postgresql"


def insert_ignore(db: Session, model: type[object], **values: Any) -> None:
    """``INSERT ... ON CONFLICT DO NOTHING`` of one row, in the database's dialect."""
    insert = postgresql.insert if is_postgres(db) else sqlite.insert
    db.execute(insert(model).values(**values).on_conflict_do_nothing())


def ensure_player(db: Session, player_id: str) -> PlayerSettings:
    """Create the player (and its settings) if missing, lock its row, return its settings.

    Call inside a write transaction. The row lock serialises one player's writes on
    PostgreSQL (SQLite's BEGIN IMMEDIATE already serialises all writers).
    """
    now = utcnow()
    if db.get(Player, player_id) is None:
        from .clients import count_new_player

        count_new_player(db)  # a new player: counted per client address (may refuse: 429)
    insert_ignore(db, Player, id=player_id, created_at=now)
    insert_ignore(
        db, PlayerSettings, player_id=player_id, save_games=True, record_stats=True, updated_at=now
    )
    lock_player(db, player_id)
    settings = db.get(PlayerSettings, player_id)
    assert settings is not None
    return settings


def lock_player(db: Session, player_id: str) -> bool:
    """Lock the player row (FOR UPDATE); False if the player has no row yet."""
    found = db.execute(
        select(Player.id).where(Player.id == player_id).with_for_update()
    ).scalar_one_or_none()
    return found is not None


def player_settings(db: Session, player_id: str) -> PlayerSettings | None:
    return db.get(PlayerSettings, player_id)


def stats_row(db: Session, player_id: str, variant: str) -> VariantStats:
    """The statistics row of (player, variant), created with zeros if missing."""
    row = db.get(VariantStats, (player_id, variant))
    if row is None:
        insert_ignore(
            db,
            VariantStats,
            player_id=player_id,
            variant=variant,
            started=0,
            won=0,
            abandoned=0,
            current_streak=0,
            best_streak=0,
        )
        row = db.get(VariantStats, (player_id, variant))
        assert row is not None
    return row


def add_event(
    db: Session,
    player_id: str,
    variant: str,
    kind: str,
    *,
    game_id: str | None,
    deal_number: int | None,
    at: datetime,
    moves: int | None = None,
    seconds: int | None = None,
) -> None:
    event = StatEvent(player_id=player_id, game_id=game_id, variant=variant, kind=kind, at=at)
    event.deal_number, event.moves, event.seconds = deal_number, moves, seconds
    db.add(event)
