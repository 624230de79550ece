"""Player services: settings, statistics and privacy (deleting data)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import (
    GameRow,
    Player,
    PlayerSettings,
    RaceEntry,
    StatEvent,
    VariantStats,
    utcnow,
)
from app.engine.variants import ALL_VARIANTS

from .common import ensure_player, lock_player, read_tx, write_tx
from .types import (
    DayCount,
    PlayerPreferences,
    PlayerStatistics,
    ResultEntry,
    VariantStatistics,
)

# -- settings ----------------------------------------------------------------------------------


def get_settings(db: Session, player_id: str) -> PlayerPreferences:
    """The player's settings (defaults for a player without a row yet)."""
    with read_tx(db):
        row = db.get(PlayerSettings, player_id)
        if row is None:
            return PlayerPreferences()
        return PlayerPreferences(save_games=row.save_games, record_stats=row.record_stats)


def update_settings(
    db: Session,
    player_id: str,
    *,
    save_games: bool | None = None,
    record_stats: bool | None = None,
) -> PlayerPreferences:
    """Change the given settings; ``None`` leaves a setting as it is.

    Turning "save games" off withdraws the saved games from resuming (they stay playable by
    id until superseded, then are deleted); turning it back on saves the current unfinished
    game of each variant again.
    """
    with write_tx(db):
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
        if record_stats is not None:
            row.record_stats = record_stats
        row.updated_at = utcnow()
        result = PlayerPreferences(save_games=row.save_games, record_stats=row.record_stats)
        return result


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
    """Recorded wins per variant whose game was assisted (hints, undo or the solver).

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
    with write_tx(db):
        if not lock_player(db, player_id):
            return 0
        result = db.execute(
            delete(GameRow).where(GameRow.player_id == player_id, GameRow.status == "playing")
        )
        return int(getattr(result, "rowcount", 0) or 0)


def delete_results(db: Session, player_id: str) -> None:
    """Delete every result of the player: statistics, result history, finished games
    (won or abandoned) and leaderboard entries. Unfinished current games stay, no longer
    counted and out of their races."""
    with write_tx(db):
        if not lock_player(db, player_id):
            return
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
    """Delete the player row and, by ON DELETE CASCADE, everything of theirs."""
    with write_tx(db):
        db.execute(delete(Player).where(Player.id == player_id))


__all__ = [
    "delete_games",
    "delete_player",
    "delete_results",
    "get_settings",
    "get_stats",
    "update_settings",
]
