"""Helpers shared by the services: player rows, locks, statistics rows."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.models import Player, PlayerSettings, StatEvent, VariantStats, utcnow


def new_player_id() -> str:
    """A fresh random player id (192 bits)."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A fresh random, opaque game id (128 bits)."""
    return secrets.token_urlsafe(16)


def _insert(db: Session, model: type[object]) -> postgresql.Insert | sqlite.Insert:
    if db.get_bind().dialect.name == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def ensure_player(db: Session, player_id: str) -> PlayerSettings:
    """Create the player (and its settings) if missing, lock its row, return its settings.

    Call inside a write transaction. The row lock serialises one player's writes on
    PostgreSQL (SQLite's BEGIN IMMEDIATE already serialises all writers).
    """
    now = utcnow()
    db.execute(_insert(db, Player).values(id=player_id, created_at=now).on_conflict_do_nothing())
    db.execute(
        _insert(db, PlayerSettings)
        .values(player_id=player_id, save_games=True, record_stats=True, updated_at=now)
        .on_conflict_do_nothing()
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
        db.execute(
            _insert(db, VariantStats)
            .values(
                player_id=player_id,
                variant=variant,
                started=0,
                won=0,
                abandoned=0,
                current_streak=0,
                best_streak=0,
            )
            .on_conflict_do_nothing()
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
    db.add(
        StatEvent(
            player_id=player_id,
            game_id=game_id,
            variant=variant,
            kind=kind,
            deal_number=deal_number,
            moves=moves,
            seconds=seconds,
            at=at,
        )
    )
