"""The database schema (SQLAlchemy 2 typed models). Alembic migrations create it.

Every table hangs off ``players`` with ``ON DELETE CASCADE``, so deleting a player row removes
all of that player's data on SQLite (``foreign_keys=ON``) and PostgreSQL alike.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every database (SQLite returns naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Player(Base):
    """An anonymous, per-browser identity (the id is held in the signed cookie)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    settings: Mapped[PlayerSettings | None] = relationship(
        back_populates="player", cascade="all, delete-orphan", passive_deletes=True
    )


class Device(Base):
    """A browser that reaches a player: its cookie carries (player id, device id).

    The first browser of a player is its first device; "Link another device" adds more
    (``app/services/devices.py``). A cookie whose device row is gone while its player row
    exists is cut off (a new anonymous player on its next request). ``id`` ``first`` is the
    implicit device of a cookie from before devices (it holds the player id alone).
    ``name`` is derived from the User-Agent ("Chromium on Linux"), NULL until known;
    ``last_seen_at`` is kept to the hour.
    """

    __tablename__ = "devices"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LinkCode(Base):
    """A one-time code that links another device to the player: only its keyed hash
    (HMAC-SHA256 with ``SECRET_KEY``) is kept, until it is used or ``expires_at``."""

    __tablename__ = "link_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class DeletedPlayer(Base):
    """A tombstone: the keyed hash (HMAC-SHA256 with ``SECRET_KEY``) of a player id whose
    owner chose "Delete everything". The id itself is not kept; it can never come back.
    Also, under another keyed message, of a removed device (player, device:
    ``app.services.devices.removal_key``): that cookie never reaches the player again."""

    __tablename__ = "deleted_players"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    deleted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PlayerSettings(Base):
    __tablename__ = "player_settings"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    save_games: Mapped[bool] = mapped_column(Boolean, default=True)
    record_stats: Mapped[bool] = mapped_column(Boolean, default=True)
    # Preferences (issue 33): NULL locale follows Accept-Language; theme auto|light|dark.
    locale: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    four_colour: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    theme: Mapped[str] = mapped_column(String(8), default="auto", server_default="auto")
    large_cards: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    player: Mapped[Player] = relationship(back_populates="settings")


class GameRow(Base):
    """A game: its deal (server-only), its current state as an engine snapshot, its version.

    ``status`` is ``playing`` or ``won``. ``saved`` marks the one unfinished game per variant
    that "resume" opens. ``abandoned_at`` is set when a newer game of the same variant
    superseded this unfinished one (it then counted as a loss for streaks). ``counted`` says
    whether this game's start is in the player's current statistics. ``moves`` is the engine's
    count, net of undo; ``moves_made`` counts every move and deal performed, undone ones
    included (undo and redo are not counted). ``assisted``: help that reads hidden cards (the
    solver: "is this still winnable?", the solver hint) was used (docs/rules.md, Assistance).
    ``started_at``: the game's clock start, its first move (or deal) or first solver question;
    NULL while nobody touched the dealt layout, which is not a game yet (replacing it counts
    neither a start nor an abandonment; ``app/services/game_core.py``).
    """

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_player_variant_status", "player_id", "variant", "status"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    variant: Mapped[str] = mapped_column(String(20))
    deal_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # The deal's card codes (52, 104 or 156): never sent to a client.
    deal: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), default="playing")
    snapshot: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, default=1)
    moves: Mapped[int] = mapped_column(Integer, default=0)
    moves_made: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    saved: Mapped[bool] = mapped_column(Boolean, default=False)
    assisted: Mapped[bool] = mapped_column(Boolean, default=False)
    counted: Mapped[bool] = mapped_column(Boolean, default=False)
    restarted_from: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    abandoned_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The shared deal (daily deal or challenge, ``races.id``) this game plays, if any: the
    # action path reports its progress to the race (``app/services/race.py``).
    race_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # "easy" | "medium" | "hard" for a game started as a graded winnable deal, else None
    # (random and numbered deals stay unclaimed, even when the catalog holds their number).
    difficulty: Mapped[str | None] = mapped_column(String(8), nullable=True)


class MoveLog(Base):
    """One row per accepted action (move, deal, undo, redo), in order: ``seq`` 1, 2, ..."""

    __tablename__ = "game_actions"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"))
    # The game's player: the key to shard by (docs/capacity.md), in every row of the log.
    player_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # move | deal | undo | redo
    from_column: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    from_index: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    to_column: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    # A move naming a reserve or a cell: both pile kinds ("column", "reserve", "cell"); NULL
    # for a column-to-column move (and for the deal, undo, redo).
    from_pile: Mapped[str | None] = mapped_column(String(8), nullable=True)
    to_pile: Mapped[str | None] = mapped_column(String(8), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SolverLine(Base):
    """The winning line the solver last proved for a game (issue 40: hints you can follow to
    the end), kept server side only: ``start`` is the snapshot of the position it starts from
    (hidden cards included), ``line`` its actions (``encode_line``). A hint on the line is its
    next action; a position off it is searched again and replaces the row."""

    __tablename__ = "solver_lines"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    start: Mapped[str] = mapped_column(Text)
    line: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class GameReview(Base):
    """The solver's review of a game's positions (issue 40), computed in the background.

    ``steps``: how many steps of the log it covers (positions 0..steps); ``verdicts``: one
    character a position, ``w`` win, ``l`` loss, ``u`` unknown, ``.`` not yet decided;
    ``state``: ``working`` | ``done``; ``line``: a winning line (``encode_line``) from the
    position ``line_step`` (the last winnable one), never sent whole to a client but as the
    public views it passes through once the review is done (the deal is public then);
    ``heartbeat``: the last progress, so that a review whose worker died is taken up again.
    """

    __tablename__ = "game_reviews"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    steps: Mapped[int] = mapped_column(Integer)
    verdicts: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(8))
    line: Mapped[str | None] = mapped_column(Text, nullable=True)
    line_step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    heartbeat: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class VariantStats(Base):
    """Running totals per player and variant."""

    __tablename__ = "variant_stats"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(20), primary_key=True)
    started: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    abandoned: Mapped[int] = mapped_column(Integer, default=0)
    current_streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    best_time_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    fewest_moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_played_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class StatEvent(Base):
    """The result history behind the statistics: one row per start, win or abandonment.

    It outlives the game rows (a game may be deleted while its results stay), so the
    statistics page can list recent results and starts/wins over time.
    """

    __tablename__ = "stat_events"
    __table_args__ = (Index("ix_stat_events_player_at", "player_id", "at"),)

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    player_id: Mapped[str] = mapped_column(String(64), ForeignKey("players.id", ondelete="CASCADE"))
    game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL"), nullable=True, index=True
    )
    variant: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(10))  # start | win | abandon
    deal_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RateLimitCounter(Base):
    """Per-player request counter of one fixed window (``app/services/ratelimit.py``).

    Shared by every worker; bumped with one atomic UPSERT. ``window_start`` is Unix seconds.
    """

    __tablename__ = "rate_limits"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    scope: Mapped[str] = mapped_column(String(16), primary_key=True)  # games | actions
    window_start: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(Integer)


# -- playing together (``app/services/daily.py``, ``leaderboard.py``, ``challenges.py``,
# ``race.py``) --------------------------------------------------------------------------------


class PlayerProfile(Base):
    """What other players see of a player: an optional display name, and whether to appear."""

    __tablename__ = "player_profiles"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    display_name: Mapped[str | None] = mapped_column(String(24), nullable=True)
    on_leaderboards: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Race(Base):
    """A shared deal: the daily deal of a variant and UTC day, or a challenge between friends.

    ``deal`` never leaves the server (a daily deal's is published as a deal string once its
    day is over); a daily deal is a random deal from the private pool and has no
    ``deal_number``; its id is an HMAC of variant and day (``app/services/daily.py``).
    ``token`` is a challenge's random link token. A challenge's first entry is the
    challenger's game (a race keeps no player id of its own, so nothing outlives a player).
    """

    __tablename__ = "races"
    __table_args__ = (UniqueConstraint("kind", "variant", "day"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))  # daily | challenge
    variant: Mapped[str] = mapped_column(String(20))
    day: Mapped[date | None] = mapped_column(Date, nullable=True)
    deal_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    deal: Mapped[str] = mapped_column(Text)
    token: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # A daily deal: True when the server proved it winnable (a verified line), False when not
    # proved (``app/services/daily.py``). Null for a challenge.
    winnable: Mapped[bool | None] = mapped_column(Boolean, nullable=True)


class RaceEntry(Base):
    """One player's game on a shared deal. ``ranked``: the player's first game of the race.

    ``moves`` is the game's moves made (every move and deal performed, undone ones included):
    races and rankings compare moves made. ``verified_*`` hold the server's replay of the
    game's move log (``leaderboard.py``): ``verified`` is ``ok`` (the log replays to a win,
    with ``verified_moves`` moves made) or ``forged``, for the game at ``verified_version``.
    """

    __tablename__ = "race_entries"
    __table_args__ = (
        Index("ix_race_entries_race_player", "race_id", "player_id"),
        UniqueConstraint("race_id", "game_id"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    race_id: Mapped[str] = mapped_column(String(32), ForeignKey("races.id", ondelete="CASCADE"))
    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="SET NULL"), nullable=True, index=True
    )
    ranked: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(10), default="playing")  # playing | won | stuck
    moves: Mapped[int] = mapped_column(Integer, default=0)
    suits: Mapped[int] = mapped_column(Integer, default=0)
    assisted: Mapped[bool] = mapped_column(Boolean, default=False)
    seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    verified: Mapped[str | None] = mapped_column(String(10), nullable=True)
    verified_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    verified_moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class RaceEvent(Base):
    """Recent race progress, for workers that poll (SQLite); PostgreSQL uses LISTEN/NOTIFY.

    ``payload`` is the JSON of one progress report: counts and names only, never a card.
    """

    __tablename__ = "race_events"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    race_id: Mapped[str] = mapped_column(String(32))
    payload: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


# -- the honest daily deal (``app/services/daily.py``, ``app/daily_pool.py``) ------------------


class DailyPoolEntry(Base):
    """A private daily deal waiting for its day: a fresh random deal (never a deal number).

    Filled by ``python -m app.daily_pool fill``; a deal drawn fresh on its day (the pool was
    empty) is stored here too, already used. ``line`` is its winning line, verified through
    the engine (server-only, never sent); ``verified`` False: the solver could not prove it
    in time. ``used_for_day``: the day whose daily deal it became.
    """

    __tablename__ = "daily_pool"
    __table_args__ = (
        UniqueConstraint("variant", "used_for_day"),
        Index("ix_daily_pool_variant_used", "variant", "used_for_day"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    variant: Mapped[str] = mapped_column(String(20))
    deal: Mapped[str] = mapped_column(Text)  # never leaves the server before its day is over
    line: Mapped[str | None] = mapped_column(Text, nullable=True)  # server-only
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    used_for_day: Mapped[date | None] = mapped_column(Date, nullable=True)


class RankedAttempt(Base):
    """That someone had their ranked attempt at a race, kept without their identity.

    ``attempt_key`` is HMAC-SHA256(``DAILY_SECRET``, player id and race id): it survives the
    player deleting their results (no link to ``players``), so a second ranked attempt is
    refused, and it cannot be turned back into the player.
    """

    __tablename__ = "ranked_attempts"

    race_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("races.id", ondelete="CASCADE"), primary_key=True
    )
    attempt_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AddressCounter(Base):
    """A counter per client address (only a keyed hash of it is kept) and scope.

    Scopes: ``players`` (new players made per minute) and ``ranked:<race id>`` (new ranked
    entries on one race). ``window_start`` is Unix seconds (0: no window).
    """

    __tablename__ = "address_counters"

    address_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    scope: Mapped[str] = mapped_column(String(48), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(Integer)
