"""The export of a player's data: the signed data file (see the package notes)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel
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
from ..devices import require_standing
from .file import (
    ACTION_COLUMNS,
    FORMAT,
    VERSION,
    DeviceData,
    GameDataV2,
    ProfileData,
    RaceEntryData,
    ResultData,
    SettingsData,
    StatisticsData,
    encode_log,
    player_tag,
    seal,
    signature,
)


def _plain(value: Any) -> Any:
    """A value as the file holds it: a time as ISO 8601 text, anything else as it is."""
    return value.isoformat() if isinstance(value, datetime) else value


def _fields(row: object, model: type[BaseModel], **given: Any) -> dict[str, Any]:
    """``row``'s attributes under ``model``'s field names, in its order (``file``'s notes);
    ``given``: the values of the fields that the table names otherwise or lacks."""
    return {
        name: _plain(given[name] if name in given else getattr(row, name))
        for name in model.model_fields
    }


def export_player_data(
    db: Session, player_id: str, *, now: datetime | None = None, settings: Settings | None = None
) -> bytes:
    """The signed data file of the player (a player without a row: an empty one)."""
    settings = settings or get_settings()
    now = now or utcnow()
    with read_tx(db):
        require_standing(db, player_id)
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
        columns = [getattr(MoveLog, c) for c in ACTION_COLUMNS]
        for game_id, *row in db.execute(
            select(MoveLog.game_id, *columns)
            .where(MoveLog.player_id == player_id)
            .order_by(MoveLog.game_id, MoveLog.seq)
        ):
            if game_id in logs:
                logs[game_id].append(row)
        entries = db.execute(
            select(RaceEntry).where(RaceEntry.player_id == player_id).order_by(RaceEntry.id)
        ).scalars()
        devices = db.execute(
            select(Device).where(Device.player_id == player_id).order_by(Device.created_at)
        ).scalars()
        document: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": _plain(now),
            "player": player_tag(player_id, settings),
            "player_since": _plain(player.created_at) if player else None,
            "settings": None if prefs is None else _fields(prefs, SettingsData),
            "profile": None if profile is None else _fields(profile, ProfileData),
            "statistics": [_fields(s, StatisticsData) for s in stats],
            "results": [_fields(e, ResultData, game=e.game_id) for e in events],
            "games": [
                _fields(
                    g,
                    GameDataV2,
                    sealed=seal(g.deal.encode(), settings),
                    log=encode_log(g.created_at, logs[g.id]),
                )
                for g in games
            ],
            "race_entries": [_fields(r, RaceEntryData, game=r.game_id) for r in entries],
            "devices": [
                _fields(d, DeviceData, linked_at=d.created_at, last_seen=d.last_seen_at)
                for d in devices
            ],
        }
    document["signature"] = signature(document, settings)
    # Compact (issue 39): no indentation, no spaces.
    return json.dumps(document, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
