"""The import of a data file: the player's data replaced by the file's, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    GameRow,
    MoveLog,
    PlayerProfile,
    PlayerSettings,
    Race,
    RaceEntry,
    StatEvent,
    VariantStats,
    utcnow,
)

from ..common import ensure_player, new_game_id, write_tx
from ..ratelimit import consume
from .checks import read_document, refuse, unsealed
from .file import ACTION_COLUMNS, Document


@dataclass(frozen=True, slots=True)
class ImportSummary:
    games: int
    results: int
    race_entries: int
    left_out_race_entries: int


def import_player_data(
    db: Session,
    player_id: str,
    raw: bytes,
    *,
    confirmed: bool,
    chosen: bool = True,
    how_to_confirm: str = "tick the box to confirm",
    settings: Settings | None = None,
) -> ImportSummary:
    """Replace the player's data with the data file's (module notes), in one transaction
    (``chosen``: False when the form came without a file)."""
    settings = settings or get_settings()
    # Counted first, in a transaction of its own: checking the file replays every game, CPU
    # work that must not hold the write lock (as a solver question, ``consume``).
    consume(db, player_id, "actions")
    if not chosen:
        raise refuse("Choose the data file to import.")
    document = read_document(raw, settings)
    if not confirmed:
        raise refuse(
            "Importing replaces your games, results, statistics and settings here: "
            f"{how_to_confirm}."
        )
    with write_tx(db):
        prefs = ensure_player(db, player_id)
        _clear(db, player_id)
        return _write(db, player_id, prefs, document, settings)


def _clear(db: Session, player_id: str) -> None:
    db.execute(delete(RaceEntry).where(RaceEntry.player_id == player_id))
    db.execute(delete(StatEvent).where(StatEvent.player_id == player_id))
    db.execute(delete(VariantStats).where(VariantStats.player_id == player_id))
    db.execute(delete(MoveLog).where(MoveLog.player_id == player_id))
    db.execute(delete(GameRow).where(GameRow.player_id == player_id))
    db.execute(delete(PlayerProfile).where(PlayerProfile.player_id == player_id))


def _taken(db: Session, ids: Sequence[str]) -> set[str]:
    taken: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        taken.update(db.execute(select(GameRow.id).where(GameRow.id.in_(chunk))).scalars())
    return taken


def _write(
    db: Session, player_id: str, prefs: PlayerSettings, document: Document, settings: Settings
) -> ImportSummary:
    now = utcnow()
    if document.settings is not None:
        for name, value in document.settings.model_dump().items():
            setattr(prefs, name, value)
        prefs.updated_at = now
    if document.profile is not None:
        db.add(PlayerProfile(player_id=player_id, updated_at=now, **document.profile.model_dump()))
    taken = _taken(db, [g.id for g in document.games])
    new_id = {g.id: (new_game_id() if g.id in taken else g.id) for g in document.games}
    races = {r.race_id for r in document.race_entries} | {
        g.race_id for g in document.games if g.race_id
    }
    here = (
        set(db.execute(select(Race.id).where(Race.id.in_(list(races)))).scalars())
        if races
        else set()
    )
    for g in document.games:
        deal, snapshot = unsealed(g, settings)
        db.add(
            GameRow(
                **g.model_dump(
                    exclude={"id", "restarted_from", "race_id", "sealed", "actions", "started_at"}
                ),
                # (a file from before the clock: its games started when they were dealt)
                started_at=g.started_at if "started_at" in g.model_fields_set else g.created_at,
                id=new_id[g.id],
                player_id=player_id,
                deal=deal,
                snapshot=snapshot,
                restarted_from=new_id.get(g.restarted_from or "", g.restarted_from),
                race_id=g.race_id if g.race_id in here else None,
            )
        )
    db.flush()
    log = [
        {
            "game_id": new_id[g.id],
            "player_id": player_id,
            "seq": seq,
            **dict(zip(ACTION_COLUMNS, a, strict=True)),
        }
        for g in document.games
        for seq, a in enumerate(g.actions, start=1)
    ]
    if log:
        db.execute(insert(MoveLog), log)
    for s in document.statistics:
        db.add(VariantStats(player_id=player_id, **s.model_dump()))
    for r in document.results:
        db.add(
            StatEvent(
                **r.model_dump(exclude={"game"}),
                player_id=player_id,
                game_id=new_id[r.game] if r.game else None,
            )
        )
    entries = 0
    for e in document.race_entries:
        if e.race_id not in here:
            continue
        entries += 1
        db.add(
            RaceEntry(
                **e.model_dump(exclude={"game"}),
                player_id=player_id,
                game_id=new_id[e.game] if e.game else None,
            )
        )
    db.flush()
    return ImportSummary(
        games=len(document.games),
        results=len(document.results),
        race_entries=entries,
        left_out_race_entries=len(document.race_entries) - entries,
    )
