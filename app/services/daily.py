"""The daily deal: one deal per variant per UTC day, the same for everyone.

A daily deal is never a deal number nor a deal of a shipped catalog (those can be looked up
from the cards a player sees): it is a fresh random deal from the private pool kept in the
database (``app/services/daily_pool.py``, filled by ``python -m app.daily_pool fill``), proved
winnable by the solver where it can be. The day's race takes an unused pool entry atomically
on the first play of the day; with the pool empty a fresh random deal is drawn at once and
proved through the solver processes within a small budget (else used unverified). The deal
stays fixed once played; ``Race.winnable`` says whether it was proved winnable.

Nothing about the deal leaves the server while the day runs: a daily game has no deal number,
and the daily page and API publish the deal string (``deal``) only once the UTC day is over.

A player's first daily game of a day is their ranked attempt (``app/services/race.py``: kept
as a keyed hash that outlives a results delete, at most ``RANKED_ENTRIES_PER_ADDRESS`` per
client address, never after the day ended); replays are allowed and unranked.

Reading (``daily_info``, the pages and GET routes) never writes: a day nobody played has no
race (today: "not started"; a past day: ``NotFound``).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.models import GameRow, Race, RaceEntry, utcnow

from . import clients, daily_pool
from .common import is_postgres, read_tx, write_tx
from .days import daily_secret, today
from .errors import InvalidRequest, NotFound
from .new_deals import check_variant
from .race import entry_status, play_race
from .types import GameState

NOT_PLAYED = "No daily deal was played on that day."


def day_end(day: date) -> datetime:
    """The end of the UTC day ``day`` (midnight after it)."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC)


def daily_race_key(variant: str, day: date) -> str:
    """The id of the race of ``variant``'s daily deal on ``day`` (an HMAC with the daily
    secret: known before the race exists, so the live stream can wait for it)."""
    mac = hmac.new(daily_secret(), f"daily-race|{variant}|{day.isoformat()}".encode(), "sha256")
    return mac.hexdigest()[:32]


def daily_day_of(state: GameState) -> date | None:
    """The day whose daily deal the game plays, or ``None`` (its race is the daily race of its
    variant on the day it started; a challenge game, even of a deal without a number, is not)."""
    if state.race_id is None or state.deal_number is not None:
        return None
    started = state.created_at.astimezone(UTC) if state.created_at.tzinfo else state.created_at
    for day in sorted({started.date(), today()}):
        if state.race_id == daily_race_key(state.variant, day):
            return day
    return None


def is_daily_game(state: GameState) -> bool:
    """Whether the game plays a daily deal (see ``daily_day_of``)."""
    return daily_day_of(state) is not None


def daily_label(state: GameState) -> str:
    """How the pages name a daily game: "Today's daily deal" or "The daily deal of <day>"."""
    day = daily_day_of(state)
    if day is None:
        return ""
    return "Today's daily deal" if day == today() else f"The daily deal of {day:%A %-d %B %Y}"


def check_day(value: object) -> date:
    """A ``YYYY-MM-DD`` day that is not in the future; ``InvalidRequest`` otherwise."""
    if isinstance(value, date):
        day = value
    else:
        try:
            day = date.fromisoformat(str(value))
        except ValueError:
            raise InvalidRequest("A day is written YYYY-MM-DD, e.g. 2026-11-29.") from None
    if day > today():
        raise InvalidRequest("That day has not come yet: its daily deal is still a secret.")
    return day


def find_daily(db: Session, variant: str, day: date) -> Race | None:
    """The race of ``variant``'s daily deal on ``day``, if anyone played it (reads only)."""
    with read_tx(db):
        return _find(db, variant, day)


def _find(db: Session, variant: str, day: date) -> Race | None:
    return db.execute(
        select(Race).where(Race.kind == "daily", Race.variant == variant, Race.day == day)
    ).scalar_one_or_none()


def insert_race(db: Session, variant: str, day: date, deal: str, winnable: bool) -> bool:
    """Insert the day's race unless another worker did first; True if this one did."""
    insert = postgresql.insert if is_postgres(db) else sqlite.insert
    result = db.execute(
        insert(Race)
        .values(
            id=daily_race_key(variant, day),
            kind="daily",
            variant=variant,
            day=day,
            deal_number=None,
            deal=deal,
            token=None,
            created_at=utcnow(),
            winnable=winnable,
        )
        .on_conflict_do_nothing()
        .returning(Race.id)
    )
    return result.scalar_one_or_none() is not None  # (rowcount is not reliable here)


def daily_race(db: Session, variant: str, day: date) -> Race:
    """The race of ``variant``'s daily deal on ``day``, made on the first play (writes).

    The pool's oldest unused deal is taken in the same transaction that inserts the race, so
    two workers racing agree (the race's unique (kind, variant, day) and its HMAC id: the
    loser inserts nothing and leaves its pool entry unused). An empty pool: a fresh random
    deal (``daily_pool.fresh_deal``), stored in the pool as used for the day (its verified
    line with it) by the worker whose race was inserted.
    """
    variant = check_variant(variant)
    race = find_daily(db, variant, day)
    if race is not None:
        return race
    with write_tx(db):
        race = _find(db, variant, day)
        if race is not None:
            return race
        clients.prune(db)  # once per variant and day: the address counters of past days
        entry = daily_pool.take(db, variant)
        if entry is not None:
            if insert_race(db, variant, day, entry.deal, entry.verified):
                entry.used_for_day = day
            race = _find(db, variant, day)
            assert race is not None
            return race
    fresh = daily_pool.fresh_deal(variant, day)  # outside any transaction: it may take seconds
    with write_tx(db):
        if insert_race(db, variant, day, fresh.deal, fresh.verified):
            # kept beside the pool's deals, used for the day: its verified line (server-only)
            # is stored like theirs, whichever way the day's deal was drawn
            daily_pool.add(db, variant, fresh, used_for_day=day)
        race = _find(db, variant, day)
        assert race is not None
        return race


def play_daily(
    db: Session, player_id: str, variant: str, *, again: bool = False
) -> tuple[GameState, bool]:
    """Today's daily game of the player: the running one, or a new one (the first of the day
    is ranked; later ones are replays). Returns (game, whether it is new)."""
    variant = check_variant(variant)
    race = daily_race(db, variant, today())
    return play_race(db, player_id, race.id, again=again)


@dataclass(frozen=True, slots=True)
class DailyInfo:
    variant: str
    day: date
    over: bool  # the UTC day has ended: the deal string is published
    started: bool  # someone played this day's deal (its race exists)
    deal_number: None  # always None: a daily deal is never a deal number (kept for the API)
    deal: str | None  # the deal string, once the day is over
    winnable: bool | None  # proved winnable by the solver; None: not started yet
    race_id: str
    my_game_id: str | None  # the player's running daily game, else their latest
    my_status: str | None  # None: not played yet; playing | won | stuck | gave-up
    my_ranked_game_id: str | None
    played: bool


def daily_info(db: Session, player_id: str, variant: str, day: date | None = None) -> DailyInfo:
    """The daily deal of ``variant`` on ``day`` (default today) as the player sees it.
    Reads only. A past day nobody played: ``NotFound``."""
    variant = check_variant(variant)
    day = check_day(day or today())
    over = day < today()
    race = find_daily(db, variant, day)
    if race is None:
        if over:
            raise NotFound(NOT_PLAYED)
        return DailyInfo(
            variant=variant,
            day=day,
            over=False,
            started=False,
            deal_number=None,
            deal=None,
            winnable=None,
            race_id=daily_race_key(variant, day),
            my_game_id=None,
            my_status=None,
            my_ranked_game_id=None,
            played=False,
        )
    with read_tx(db):
        rows = db.execute(
            select(RaceEntry, GameRow)
            .outerjoin(GameRow, GameRow.id == RaceEntry.game_id)
            .where(RaceEntry.race_id == race.id, RaceEntry.player_id == player_id)
            .order_by(RaceEntry.id)
        ).all()
        mine: tuple[RaceEntry, GameRow | None] | None = (rows[-1][0], rows[-1][1]) if rows else None
        for entry, game in reversed(rows):
            if game is not None and game.status == "playing" and game.abandoned_at is None:
                mine = (entry, game)
                break
        ranked = next((e for e, _ in rows if e.ranked), None)
        return DailyInfo(
            variant=race.variant,
            day=day,
            over=over,
            started=True,
            deal_number=None,
            deal=race.deal if over else None,
            winnable=bool(race.winnable),
            race_id=race.id,
            my_game_id=mine[0].game_id if mine else None,
            my_status=entry_status(mine[0].status, mine[1]) if mine else None,
            my_ranked_game_id=ranked.game_id if ranked else None,
            played=bool(rows),
        )
