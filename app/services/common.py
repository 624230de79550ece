"""Helpers shared by the services: transactions, the upsert, player rows, locks, statistics.

- ``write_tx(db)``: one write transaction (``BEGIN IMMEDIATE`` on SQLite), committed when the
  block ends, rolled back on any error.
- ``read_tx(db)``: a read; the transaction is ended (rolled back) when the block ends, so no
  connection or snapshot is held between requests; ``read_connection(db)`` the same on a Core
  connection (the hot reads).
- ``insert_ignore(db, model, **values)``: ``INSERT ... ON CONFLICT DO NOTHING`` in the
  database's own dialect (the one dialect-specific upsert).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Select, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    DeletedPlayer,
    Device,
    Player,
    PlayerSettings,
    StatEvent,
    VariantStats,
    utcnow,
)
from app.db.session import begin_write

from .clients import count_new_player
from .device_names import device_name
from .errors import PlayerDeleted

# The requesting browser: (its device id, its User-Agent), set by the web layer for the
# request (``app.web.middleware.identity``). A player row made by the request gets that
# device as its first
# (``app/services/devices.py``); outside a request (scripts, tests of services): ``first``.
current_device: ContextVar[tuple[str, str] | None] = ContextVar("scorpion_device", default=None)
FIRST_DEVICE = "first"


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


def engine_of(db: Session) -> Engine:
    """The engine ``db`` is bound to."""
    bind = db.bind or db.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


@contextmanager
def read_connection(db: Session) -> Iterator[Connection]:
    """A read on a Core connection of ``db``'s engine (no ORM unit of work: the play page's
    read): its transaction is rolled back when the block ends. ``db``'s own transaction, if
    any, is ended first, as ``read_tx`` would end it."""
    if db.in_transaction():
        db.rollback()
    with engine_of(db).connect() as conn:
        conn.begin()
        try:
            yield conn
        finally:
            conn.rollback()


def read_one(
    db: Session | Connection, stmt: Select[Any], params: dict[str, Any]
) -> dict[str, Any] | None:
    """One row of ``stmt`` (a Core statement built at import; a dict of its columns) or None,
    on a Core connection: ``db`` itself (inside a ``read_connection``) or a short
    ``read_connection`` of ``db``'s engine. The hot reads (a game on the play page, the
    player's display settings on every page): no ORM unit of work."""
    if isinstance(db, Connection):
        row = db.execute(stmt, params).mappings().first()
        return dict(row) if row is not None else None
    with read_connection(db) as conn:
        return read_one(conn, stmt, params)


def is_postgres(db: Session) -> bool:
    return db.get_bind().dialect.name == "postgresql"


def insert_ignore(db: Session, model: type[object], **values: Any) -> None:
    """``INSERT ... ON CONFLICT DO NOTHING`` of one row, in the database's dialect."""
    insert = postgresql.insert if is_postgres(db) else sqlite.insert
    db.execute(insert(model).values(**values).on_conflict_do_nothing())


def keyed_hash(purpose: str, value: str, settings: Settings | None = None) -> str:
    """A value kept or counted only as its keyed hash: HMAC-SHA256 with ``SECRET_KEY`` of
    ``purpose:value`` (the purpose keeps two uses of one value from ever sharing a hash)."""
    key = (settings or get_settings()).secret_key.encode()
    return hmac.new(key, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()


def tombstone_key(player_id: str) -> str:
    """The keyed hash kept of a deleted player id."""
    return keyed_hash("deleted-player", player_id)


def is_tombstoned(db: Session, player_id: str) -> bool:
    """Whether ``player_id`` was deleted for good (one primary-key lookup)."""
    found = db.execute(
        select(DeletedPlayer.id_hash).where(DeletedPlayer.id_hash == tombstone_key(player_id))
    ).scalar_one_or_none()
    return found is not None


def add_tombstone(db: Session, player_id: str) -> None:
    """Refuse ``player_id`` for good (inside the deleting transaction)."""
    insert_ignore(db, DeletedPlayer, id_hash=tombstone_key(player_id), deleted_at=utcnow())


def create_player_row(db: Session, player_id: str, *, settings: Settings | None = None) -> bool:
    """Make sure the player row exists and lock it (False: it could not be made).

    Raises ``PlayerDeleted`` for a deleted (tombstoned) id, and ``RateLimited`` when this
    client address made too many new players this minute (``app/services/clients.py``).
    The tombstone is looked up only when the row is missing, i.e. when it would be created;
    on PostgreSQL that path takes a transaction-level advisory lock on the id, which
    ``delete_player`` takes too, so a creation and a deletion of one id never interleave.
    Call inside a write transaction.
    """
    for _ in range(2):  # a second try if the row vanished (retention) between the steps
        if lock_player(db, player_id):
            return True
        if is_postgres(db):
            lock_player_id(db, player_id)
        if is_tombstoned(db, player_id):
            raise PlayerDeleted()
        count_new_player(db, settings=settings)  # per client address: 429 past the limit
        now = utcnow()
        insert_ignore(db, Player, id=player_id, created_at=now)
        add_first_device(db, player_id, now)
        if lock_player(db, player_id):
            return True
    return False


def add_first_device(db: Session, player_id: str, now: datetime) -> None:
    """The requesting browser as the new player's first device (``current_device``)."""
    device = current_device.get()
    device_id, agent = device if device is not None else (FIRST_DEVICE, "")
    insert_ignore(
        db,
        Device,
        player_id=player_id,
        id=device_id,
        name=device_name(agent) if device is not None else None,
        created_at=now,
        last_seen_at=now,
    )


def lock_player_id(db: Session, player_id: str) -> None:
    """PostgreSQL: an advisory lock on the id until the transaction ends (create vs delete)."""
    db.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:id, 0))"), {"id": player_id})


def ensure_player(db: Session, player_id: str) -> PlayerSettings:
    """Create the player (and its settings) if missing, lock its row, return its settings.

    Call inside a write transaction. The row lock serialises one player's writes on
    PostgreSQL (SQLite's BEGIN IMMEDIATE already serialises all writers). A deleted player
    id is refused with ``PlayerDeleted``, also when the deletion commits while this waits.
    """
    if not create_player_row(db, player_id):
        raise PlayerDeleted()
    insert_ignore(
        db,
        PlayerSettings,
        player_id=player_id,
        save_games=True,
        record_stats=True,
        updated_at=utcnow(),
    )
    settings = db.get(PlayerSettings, player_id)
    if settings is None:  # deleted between the lock and now: cannot happen while locked
        raise PlayerDeleted()
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
