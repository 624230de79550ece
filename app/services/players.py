"""Player services: settings, statistics and privacy (deleting data)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from datetime import date, timedelta
from enum import Enum
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import (
    GameRow,
    Player,
    PlayerSettings,
    Race,
    RaceEntry,
    RaceEvent,
    StatEvent,
    VariantStats,
    utcnow,
)
from app.engine.variants import ALL_VARIANTS

from .common import (
    add_tombstone,
    ensure_player,
    is_postgres,
    lock_player,
    lock_player_id,
    read_one,
    read_tx,
    write_tx,
)
from .devices import forget as forget_devices
from .devices import require_standing
from .errors import InvalidRequest
from .ratelimit import consume as count_request
from .ratelimit import counted_tx
from .types import (
    BACKS,
    FELTS,
    THEMES,
    DayCount,
    Display,
    PlayerPreferences,
    PlayerStatistics,
    ResultEntry,
    VariantStatistics,
)

# -- settings ----------------------------------------------------------------------------------


def _preferences(row: PlayerSettings) -> PlayerPreferences:
    return PlayerPreferences(
        save_games=row.save_games,
        record_stats=row.record_stats,
        four_colour=bool(row.four_colour),
        theme=row.theme if row.theme in THEMES else "auto",
        large_cards=bool(row.large_cards),
        card_back=row.card_back if row.card_back in BACKS else BACKS[0],
        felt=row.felt if row.felt in FELTS else FELTS[0],
        sounds=bool(row.sounds),
        locale=row.locale,
    )


def get_settings(db: Session, player_id: str) -> PlayerPreferences:
    """The player's settings (defaults for a player without a row yet)."""
    with read_tx(db):
        row = db.get(PlayerSettings, player_id)
        if row is None:
            return PlayerPreferences()
        return _preferences(row)


_SETTINGS = cast(Table, PlayerSettings.__table__)
DISPLAY_COLUMNS = (
    _SETTINGS.c.four_colour,
    _SETTINGS.c.theme,
    _SETTINGS.c.large_cards,
    _SETTINGS.c.card_back,
    _SETTINGS.c.felt,
    _SETTINGS.c.sounds,
)
_SELECT_DISPLAY = select(*DISPLAY_COLUMNS).where(_SETTINGS.c.player_id == bindparam("pid"))


def get_display(db: Session | Connection, player_id: str) -> Display:
    """How the player's pages look (defaults for a player without settings): one primary-key
    read, a Core statement (every page asks, the play page with its game's read). ``db``: a
    session (its own short read) or a Core connection (in the caller's transaction)."""
    return display_of(read_one(db, _SELECT_DISPLAY, {"pid": player_id}))


def display_of(found: Mapping[str, Any] | None) -> Display:
    """The ``Display`` of a row holding ``DISPLAY_COLUMNS`` (None, or NULLs of an outer
    join: a player without settings, the defaults)."""
    if found is None or found["theme"] is None:
        return Display()
    theme = found["theme"] if found["theme"] in THEMES else "auto"
    back = found["card_back"] if found["card_back"] in BACKS else BACKS[0]
    felt = found["felt"] if found["felt"] in FELTS else FELTS[0]
    return Display(
        four_colour=bool(found["four_colour"]),
        theme=theme,
        large_cards=bool(found["large_cards"]),
        card_back=back,
        felt=felt,
        sounds=bool(found["sounds"]),
    )


def stored_locale(db: Session, player_id: str) -> str | None:
    """The player's chosen language (None: follow the browser, or no settings yet)."""
    with read_tx(db):
        return db.scalar(select(PlayerSettings.locale).where(PlayerSettings.player_id == player_id))


class _Keep(Enum):
    """``update_settings``'s "leave the language as it is" (None there means "follow the
    browser")."""

    KEEP = "keep"


KEEP_LOCALE = _Keep.KEEP


def set_locale(db: Session, player_id: str, locale: str | None) -> PlayerPreferences:
    """Keep the player's language (a tag of ``app.i18n.LOCALES``; None: follow the browser)."""
    return update_settings(db, player_id, locale=locale)


def _check_choice(what: str, value: str | None, allowed: tuple[str, ...]) -> None:
    """Refuse (``InvalidRequest``) a ``value`` that is given and not one of ``allowed``."""
    if value is not None and value not in allowed:
        raise InvalidRequest(
            f"Unknown {what} {value[:20]!r}: choose one of {', '.join(allowed)}. Nothing changed."
        )


def update_settings(
    db: Session,
    player_id: str,
    *,
    save_games: bool | None = None,
    record_stats: bool | None = None,
    four_colour: bool | None = None,
    theme: str | None = None,
    large_cards: bool | None = None,
    card_back: str | None = None,
    felt: str | None = None,
    sounds: bool | None = None,
    locale: str | None | _Keep = KEEP_LOCALE,
) -> PlayerPreferences:
    """Change the given settings in one transaction; ``None`` leaves a setting as it is (the
    language: ``KEEP_LOCALE`` leaves it, ``None`` follows the browser, else a tag of
    ``app.i18n.LOCALES``). A ``theme`` other than ``auto``, ``light`` or ``dark``, a
    ``card_back`` not in ``BACKS`` or a ``felt`` not in ``FELTS`` is refused
    (``InvalidRequest``) before anything changes.

    Turning "save games" off withdraws the saved games from resuming (they stay playable by
    id until superseded, then are deleted); turning it back on saves the current unfinished
    game of each variant again.
    """
    _check_choice("theme", theme, THEMES)
    _check_choice("card back", card_back, BACKS)
    _check_choice("felt", felt, FELTS)
    with counted_tx(db, player_id, "actions"):
        row = ensure_player(db, player_id)
        if save_games is not None and save_games != row.save_games:
            row.save_games = save_games
            db.execute(
                update(GameRow)
                .where(
                    GameRow.player_id == player_id,
                    GameRow.status == "playing",
                    GameRow.abandoned_at.is_(None),
                )
                .values(saved=save_games)
            )
        plain: dict[str, object] = {
            "record_stats": record_stats,
            "four_colour": four_colour,
            "theme": theme,
            "large_cards": large_cards,
            "card_back": card_back,
            "felt": felt,
            "sounds": sounds,
        }
        for column, value in plain.items():
            if value is not None:
                setattr(row, column, value)
        if not isinstance(locale, _Keep):
            row.locale = locale
        row.updated_at = utcnow()
        return _preferences(row)


# -- statistics --------------------------------------------------------------------------------


def get_stats(
    db: Session, player_id: str, *, recent_limit: int = 20, days: int = 60
) -> PlayerStatistics:
    """Statistics of every variant (zeros where nothing was played), recent results and
    starts/wins per day over the last ``days`` days. "Last played" is the last start, win or
    abandonment."""
    with read_tx(db):
        rows = {
            r.variant: r
            for r in db.execute(
                select(VariantStats).where(VariantStats.player_id == player_id)
            ).scalars()
        }
        assisted_won = _assisted_wins(db, player_id)
        variants: dict[str, VariantStatistics] = {}
        for name in ALL_VARIANTS:
            r = rows.get(name)
            if r is None:
                variants[name] = VariantStatistics(variant=name)
                continue
            variants[name] = VariantStatistics(
                variant=name,
                started=r.started,
                won=r.won,
                abandoned=r.abandoned,
                current_streak=r.current_streak,
                best_streak=r.best_streak,
                best_time_seconds=r.best_time_seconds,
                fewest_moves=r.fewest_moves,
                last_played=r.last_played_at,
                assisted_won=assisted_won.get(name, 0),
            )
        recent = [
            ResultEntry(
                kind=e.kind,
                variant=e.variant,
                game_id=e.game_id,
                deal_number=e.deal_number,
                moves=e.moves,
                seconds=e.seconds,
                at=e.at,
            )
            for e in db.execute(
                select(StatEvent)
                .where(StatEvent.player_id == player_id, StatEvent.kind != "start")
                .order_by(StatEvent.at.desc(), StatEvent.id.desc())
                .limit(recent_limit)
            ).scalars()
        ]
        since = utcnow() - timedelta(days=days)
        counts: dict[tuple[date, str], list[int]] = defaultdict(lambda: [0, 0])
        for e in db.execute(
            select(StatEvent)
            .where(
                StatEvent.player_id == player_id,
                StatEvent.kind.in_(("start", "win")),
                StatEvent.at >= since,
            )
            .order_by(StatEvent.at)
        ).scalars():
            key = (e.at.date(), e.variant)
            counts[key][0 if e.kind == "start" else 1] += 1
        per_day = [
            DayCount(day=d, variant=v, started=s, won=w)
            for (d, v), (s, w) in sorted(counts.items())
        ]
        return PlayerStatistics(variants=variants, recent=recent, per_day=per_day)


def _assisted_wins(db: Session, player_id: str) -> dict[str, int]:
    """Recorded wins per variant whose game was assisted (the solver was asked; rows marked
    before revision 0004 may also have used the plain hint or undo: see that migration).

    A win event keeps its game while the result exists (finished games are deleted only with
    the results), so the game's ``assisted`` flag tells how the win was made.
    """
    rows = db.execute(
        select(StatEvent.variant, func.count())
        .join(GameRow, GameRow.id == StatEvent.game_id)
        .where(
            StatEvent.player_id == player_id,
            StatEvent.kind == "win",
            GameRow.assisted.is_(True),
        )
        .group_by(StatEvent.variant)
    ).all()
    return {variant: int(n) for variant, n in rows}


# -- privacy -----------------------------------------------------------------------------------


def delete_games(db: Session, player_id: str) -> int:
    """Delete every saved (unfinished) game of the player, with its move log. Returns the count.

    Results (statistics and won games) stay.
    """
    with counted_tx(db, player_id, "actions"):
        if not lock_player(db, player_id):
            return 0
        require_standing(db, player_id)
        result = db.execute(
            delete(GameRow).where(GameRow.player_id == player_id, GameRow.status == "playing")
        )
        return int(getattr(result, "rowcount", 0) or 0)


def delete_results(db: Session, player_id: str) -> None:
    """Delete every result of the player: statistics, result history, finished games
    (won or abandoned) and leaderboard entries. Unfinished current games stay, no longer
    counted and out of their races."""
    with counted_tx(db, player_id, "actions"):
        if not lock_player(db, player_id):
            return
        require_standing(db, player_id)
        db.execute(delete(StatEvent).where(StatEvent.player_id == player_id))
        db.execute(delete(VariantStats).where(VariantStats.player_id == player_id))
        db.execute(
            delete(GameRow).where(
                GameRow.player_id == player_id,
                or_(GameRow.status != "playing", GameRow.abandoned_at.is_not(None)),
            )
        )
        # Leaderboard and live race entries go too; unfinished games leave their races.
        db.execute(delete(RaceEntry).where(RaceEntry.player_id == player_id))
        db.execute(
            update(GameRow)
            .where(GameRow.player_id == player_id)
            .values(counted=False, race_id=None)
        )


def delete_player(db: Session, player_id: str) -> None:
    """Delete everything of the player, for good, in one transaction:

    - a tombstone (the id's keyed hash, ``deleted_players``), so the id is never re-created:
      requests still in flight or other tabs holding the cookie get ``PlayerDeleted``;
    - the challenges the player made (the races whose first entry is theirs), with everyone's
      entries: their links lead nowhere any more (the other players' games stay theirs);
    - the live race reports (``race_events``) of the player's entries, which carry their name;
    - the player row and, by ON DELETE CASCADE, everything else of theirs: every linked
      device and link code too, so no browser reaches the player any more.

    Counts as an action for the rate limit, like every writing request.
    """
    count_request(db, player_id, "actions")
    with write_tx(db):
        if is_postgres(db):
            lock_player_id(db, player_id)  # serialises with a concurrent first write
        lock_player(db, player_id)  # waits for the player's action in flight, if any
        require_standing(db, player_id)  # (a removed device deletes nothing)
        add_tombstone(db, player_id)
        _forget_races(db, player_id)
        db.execute(delete(Player).where(Player.id == player_id))  # (devices, link codes too)
    forget_devices(player_id)


def _forget_races(db: Session, player_id: str) -> None:
    entries = db.execute(
        select(RaceEntry.id, RaceEntry.race_id).where(RaceEntry.player_id == player_id)
    ).all()
    if not entries:
        return
    entry_ids = {int(e) for e, _ in entries}
    race_ids = {str(r) for _, r in entries}
    for event_id, payload in db.execute(
        select(RaceEvent.id, RaceEvent.payload).where(RaceEvent.race_id.in_(race_ids))
    ).all():
        try:
            entry = json.loads(payload).get("entry")
        except (ValueError, AttributeError):
            entry = None
        if entry in entry_ids:
            db.execute(delete(RaceEvent).where(RaceEvent.id == event_id))
    first_entries = (
        select(RaceEntry.race_id, func.min(RaceEntry.id).label("first"))
        .where(RaceEntry.race_id.in_(race_ids))
        .group_by(RaceEntry.race_id)
        .subquery()
    )
    made = (
        db.execute(
            select(Race.id)
            .join(first_entries, first_entries.c.race_id == Race.id)
            .where(Race.kind == "challenge", first_entries.c.first.in_(entry_ids))
        )
        .scalars()
        .all()
    )
    if made:
        db.execute(update(GameRow).where(GameRow.race_id.in_(made)).values(race_id=None))
        db.execute(delete(RaceEvent).where(RaceEvent.race_id.in_(made)))
        db.execute(delete(Race).where(Race.id.in_(made)))


__all__ = [
    "delete_games",
    "delete_player",
    "delete_results",
    "get_display",
    "get_settings",
    "get_stats",
    "update_settings",
]
