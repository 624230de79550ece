"""The daily deal: one deal per variant per UTC day, the same for everyone.

The deal is drawn from the solver's shipped catalog of winnable deals
(``app.engine.solver.winnable_deals``) with a server secret: the index into the catalog is
HMAC-SHA256(``DAILY_SECRET``, ``"<variant>|<YYYY-MM-DD>"``) modulo the catalog's size. The code
and the catalog are public, the secret is not, so nobody can work out a coming day's deal.
(Without a shipped catalog for a variant the whole deal-number range is used instead.)

The deal number is not shown while the day runs: a daily game has no ``deal_number`` (its
deal is kept on the server like a deal string's), and the daily page and API reveal the
number only once the UTC day is over. A player's first daily game of a day is their ranked
attempt; replays are allowed and unranked.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import GameRow, Race, RaceEntry, utcnow
from app.engine import MAX_DEAL_NUMBER, MIN_DEAL_NUMBER, deal_from_number, format_deal
from app.engine.solver import winnable_deals

from .common import insert_ignore, read_tx, write_tx
from .errors import InvalidRequest
from .games import check_variant
from .race import entry_status, new_race_id, play_race
from .types import GameState

# The clock of the daily deal (UTC). Tests replace it to move between days.
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


def today() -> date:
    return clock().astimezone(UTC).date()


def daily_secret(settings: Settings | None = None) -> bytes:
    """``DAILY_SECRET``, or (unset) a key derived from ``SECRET_KEY`` for this purpose only."""
    settings = settings or get_settings()
    if settings.daily_secret:
        return settings.daily_secret.encode()
    return hmac.new(settings.secret_key.encode(), b"daily-deal", hashlib.sha256).digest()


def daily_catalog(variant: str) -> Sequence[int]:
    """The deal numbers a daily deal of ``variant`` is drawn from (the winnable catalog)."""
    return winnable_deals(variant)


def daily_deal_number(
    variant: str, day: date, *, secret: bytes, catalog: Sequence[int] | None = None
) -> int:
    """The deal number of ``variant``'s daily deal on ``day`` under ``secret``."""
    if catalog is None:
        catalog = daily_catalog(variant)
    mac = hmac.new(secret, f"{variant}|{day.isoformat()}".encode(), hashlib.sha256).digest()
    n = int.from_bytes(mac[:8], "big")
    if catalog:
        return int(catalog[n % len(catalog)])
    return MIN_DEAL_NUMBER + n % (MAX_DEAL_NUMBER - MIN_DEAL_NUMBER + 1)


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


def daily_race(db: Session, variant: str, day: date) -> Race:
    """The race of ``variant``'s daily deal on ``day``, made on first use (own transaction)."""
    variant = check_variant(variant)
    with read_tx(db):
        race = _find(db, variant, day)
        if race is not None:
            return race
    number = daily_deal_number(variant, day, secret=daily_secret())
    with write_tx(db):
        insert_ignore(
            db,
            Race,
            id=new_race_id(),
            kind="daily",
            variant=variant,
            day=day,
            deal_number=number,
            deal=format_deal(deal_from_number(number)),
            token=None,
            created_at=utcnow(),
        )
        race = _find(db, variant, day)
        assert race is not None
        return race


def _find(db: Session, variant: str, day: date) -> Race | None:
    return db.execute(
        select(Race).where(Race.kind == "daily", Race.variant == variant, Race.day == day)
    ).scalar_one_or_none()


def play_daily(
    db: Session, player_id: str, variant: str, *, again: bool = False
) -> tuple[GameState, bool]:
    """Today's daily game of the player: the running one, or a new one (the first of the day
    is ranked; later ones are replays). Returns (game, whether it is new)."""
    race = daily_race(db, variant, today())
    return play_race(db, player_id, race.id, again=again)


@dataclass(frozen=True, slots=True)
class DailyInfo:
    variant: str
    day: date
    over: bool  # the UTC day has ended: the deal number is revealed
    deal_number: int | None  # None while the day runs
    race_id: str
    my_game_id: str | None  # the player's running daily game, else their latest
    my_status: str | None  # None: not played yet; playing | won | stuck | gave-up
    my_ranked_game_id: str | None
    played: bool


def daily_info(db: Session, player_id: str, variant: str, day: date | None = None) -> DailyInfo:
    day = check_day(day or today())
    race = daily_race(db, variant, day)
    with read_tx(db):
        over = day < today()
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
            deal_number=race.deal_number if over else None,
            race_id=race.id,
            my_game_id=mine[0].game_id if mine else None,
            my_status=entry_status(mine[0].status, mine[1]) if mine else None,
            my_ranked_game_id=ranked.game_id if ranked else None,
            played=bool(rows),
        )
