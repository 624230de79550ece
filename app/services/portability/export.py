"""The export of a player's data: the signed data file (see the package notes)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    Device,
    GameRow,
    MoveLog,
    Player,
    PlayerProfile,
    PlayerSettings,
    RaceEntry,
    StatEvent,
    VariantStats,
    utcnow,
)

from ..common import read_tx
from .file import FORMAT, VERSION, seal, signature


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def export_player_data(
    db: Session, player_id: str, *, now: datetime | None = None, settings: Settings | None = None
) -> bytes:
    """The signed data file of the player (a player without a row: an empty one)."""
    settings = settings or get_settings()
    now = now or utcnow()
    with read_tx(db):
        player = db.get(Player, player_id)
        prefs = db.get(PlayerSettings, player_id)
        profile = db.get(PlayerProfile, player_id)
        stats = db.execute(
            select(VariantStats)
            .where(VariantStats.player_id == player_id)
            .order_by(VariantStats.variant)
        ).scalars()
        events = db.execute(
            select(StatEvent).where(StatEvent.player_id == player_id).order_by(StatEvent.id)
        ).scalars()
        games = list(
            db.execute(
                select(GameRow)
                .where(GameRow.player_id == player_id)
                .order_by(GameRow.created_at, GameRow.id)
            ).scalars()
        )
        logs: dict[str, list[list[Any]]] = {g.id: [] for g in games}
        for a in db.execute(
            select(MoveLog)
            .where(MoveLog.player_id == player_id)
            .order_by(MoveLog.game_id, MoveLog.seq)
        ).scalars():
            if a.game_id in logs:
                logs[a.game_id].append(
                    [
                        a.kind,
                        a.from_column,
                        a.from_index,
                        a.to_column,
                        a.from_pile,
                        a.to_pile,
                        _time(a.created_at),
                    ]
                )
        entries = db.execute(
            select(RaceEntry).where(RaceEntry.player_id == player_id).order_by(RaceEntry.id)
        ).scalars()
        devices = db.execute(
            select(Device).where(Device.player_id == player_id).order_by(Device.created_at)
        ).scalars()
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": _time(now),
            "player_since": _time(player.created_at) if player else None,
            "settings": None
            if prefs is None
            else {
                "save_games": prefs.save_games,
                "record_stats": prefs.record_stats,
                "locale": prefs.locale,
                "four_colour": prefs.four_colour,
                "theme": prefs.theme,
                "large_cards": prefs.large_cards,
            },
            "profile": None
            if profile is None
            else {"display_name": profile.display_name, "on_leaderboards": profile.on_leaderboards},
            "statistics": [
                {
                    "variant": s.variant,
                    "started": s.started,
                    "won": s.won,
                    "abandoned": s.abandoned,
                    "current_streak": s.current_streak,
                    "best_streak": s.best_streak,
                    "best_time_seconds": s.best_time_seconds,
                    "fewest_moves": s.fewest_moves,
                    "last_played_at": _time(s.last_played_at),
                }
                for s in stats
            ],
            "results": [
                {
                    "game": e.game_id,
                    "variant": e.variant,
                    "kind": e.kind,
                    "deal_number": e.deal_number,
                    "moves": e.moves,
                    "seconds": e.seconds,
                    "at": _time(e.at),
                }
                for e in events
            ],
            "games": [
                {
                    "id": g.id,
                    "variant": g.variant,
                    "deal_number": g.deal_number,
                    "status": g.status,
                    "version": g.version,
                    "moves": g.moves,
                    "moves_made": g.moves_made,
                    "saved": g.saved,
                    "assisted": g.assisted,
                    "counted": g.counted,
                    "restarted_from": g.restarted_from,
                    "created_at": _time(g.created_at),
                    "updated_at": _time(g.updated_at),
                    "finished_at": _time(g.finished_at),
                    "abandoned_at": _time(g.abandoned_at),
                    "race_id": g.race_id,
                    "difficulty": g.difficulty,
                    "sealed": seal(
                        json.dumps({"deal": g.deal, "snapshot": g.snapshot}).encode(), settings
                    ),
                    "actions": logs[g.id],
                }
                for g in games
            ],
            "race_entries": [
                {
                    "race_id": r.race_id,
                    "game": r.game_id,
                    "ranked": r.ranked,
                    "status": r.status,
                    "moves": r.moves,
                    "suits": r.suits,
                    "assisted": r.assisted,
                    "seconds": r.seconds,
                    "verified": r.verified,
                    "verified_version": r.verified_version,
                    "verified_moves": r.verified_moves,
                    "started_at": _time(r.started_at),
                    "updated_at": _time(r.updated_at),
                    "finished_at": _time(r.finished_at),
                }
                for r in entries
            ],
            "devices": [
                {
                    "name": d.name,
                    "linked_at": _time(d.created_at),
                    "last_seen": _time(d.last_seen_at),
                }
                for d in devices
            ],
        }
    document["signature"] = signature(document, settings)
    return json.dumps(document, indent=1, ensure_ascii=True).encode() + b"\n"
