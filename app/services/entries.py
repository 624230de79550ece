"""The entries of a race as the live standings and the leaderboard read them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select

from app.db.models import GameRow, PlayerProfile, RaceEntry


def entry_rows(race_id: str, *more: Any) -> Select[*tuple[Any, ...]]:
    """A query of every entry of race ``race_id``, first entry first, its game and its player's
    profile joined (either may be missing). Plain columns, not ORM objects (a daily deal may
    have thousands of entries): the entry's ``id``, ``player_id``, ``status``, ``moves`` and
    ``suits``; ``game_id`` (null: no game), the game's ``version`` and ``abandoned_at``; the
    player's ``display_name`` and ``on_leaderboards``; then ``more``."""
    return (
        select(
            RaceEntry.id,
            RaceEntry.player_id,
            RaceEntry.status,
            RaceEntry.moves,
            RaceEntry.suits,
            GameRow.id.label("game_id"),
            GameRow.version,
            GameRow.abandoned_at,
            PlayerProfile.display_name,
            PlayerProfile.on_leaderboards,
            *more,
        )
        .outerjoin(GameRow, GameRow.id == RaceEntry.game_id)
        .outerjoin(PlayerProfile, PlayerProfile.player_id == RaceEntry.player_id)
        .where(RaceEntry.race_id == race_id)
        .order_by(RaceEntry.id)
    )
