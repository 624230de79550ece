"""The import of a data file: the player's data replaced by the file's, in one transaction."""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, insert, select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    Base,
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
from ..days import today
from ..devices import require_standing
from ..ratelimit import consume
from .checks import Checked, read_document, refuse
from .file import ACTION_COLUMNS, player_tag


@dataclass(frozen=True, slots=True)
class ImportSummary:
    games: int
    results: int
    race_entries: int
    left_out_race_entries: int
    left_out_games: int = 0  # games of a race still open
    kept_games: int = 0  # games the player still has here: kept as they are here


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
    checked = read_document(raw, settings)
    if not confirmed:
        raise refuse(
            "Importing replaces your games, results, statistics and settings here: "
            f"{how_to_confirm}."
        )
    with write_tx(db):
        prefs = ensure_player(db, player_id)
        require_standing(db, player_id)
        # The rule (docs/api.md, "Devices and your data"): a game of the file that the player
        # still has here stays as it is here (its assisted mark, moves made and version only
        # grow), as do the games of the player's races.
        here = _mine(db, player_id, [g.fields.id for g in checked.games])
        _clear(db, player_id, here | _race_games(db, player_id))
        return _write(db, player_id, prefs, checked, settings, here)


def _race_games(db: Session, player_id: str) -> set[str]:
    """The games here that an import leaves as they are: every game attached to a race or
    named by one of the player's race entries (module notes of the package: ranked results)."""
    attached = db.execute(
        select(GameRow.id).where(GameRow.player_id == player_id, GameRow.race_id.is_not(None))
    ).scalars()
    named = db.execute(
        select(RaceEntry.game_id).where(
            RaceEntry.player_id == player_id, RaceEntry.game_id.is_not(None)
        )
    ).scalars()
    return {*attached, *(g for g in named if g is not None)}


def _clear(db: Session, player_id: str, keep: set[str]) -> None:
    """What the import replaces; the player's race entries and the games in ``keep`` stay."""
    db.execute(delete(StatEvent).where(StatEvent.player_id == player_id))
    db.execute(delete(VariantStats).where(VariantStats.player_id == player_id))
    gone = [
        g
        for g in db.execute(select(GameRow.id).where(GameRow.player_id == player_id)).scalars()
        if g not in keep
    ]
    for start in range(0, len(gone), 500):
        chunk = gone[start : start + 500]
        db.execute(delete(MoveLog).where(MoveLog.game_id.in_(chunk)))
        db.execute(delete(GameRow).where(GameRow.id.in_(chunk)))
    db.execute(delete(PlayerProfile).where(PlayerProfile.player_id == player_id))


def _mine(db: Session, player_id: str, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are games of this player here."""
    mine: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        mine.update(
            db.execute(
                select(GameRow.id).where(GameRow.player_id == player_id, GameRow.id.in_(chunk))
            ).scalars()
        )
    return mine


def _closed_dailies(db: Session, race_ids: set[str]) -> set[str]:
    """Which of ``race_ids`` are daily deals here whose day is over (a challenge never ends)."""
    if not race_ids:
        return set()
    return set(
        db.execute(
            select(Race.id).where(
                Race.id.in_(list(race_ids)), Race.kind == "daily", Race.day < today()
            )
        ).scalars()
    )


def _insert_many(conn: Connection, model: type[Base], rows: list[dict[str, Any]]) -> None:
    """``rows`` into ``model``'s table (Core executemany, 5,000 rows a call)."""
    table = cast(Table, model.__table__)
    for start in range(0, len(rows), 5000):
        conn.execute(insert(table), rows[start : start + 5000])


def _write(
    db: Session,
    player_id: str,
    prefs: PlayerSettings,
    checked: Checked,
    settings: Settings,
    here: set[str],
) -> ImportSummary:
    """The file's rows written (``here``: the file's games the player still has, kept)."""
    now = utcnow()
    document = checked.document
    if document.settings is not None:
        for name, value in document.settings.model_dump().items():
            setattr(prefs, name, value)
        prefs.updated_at = now
    if document.profile is not None:
        db.add(PlayerProfile(player_id=player_id, updated_at=now, **document.profile.model_dump()))
    # A game attached to a race still open is left out; every other game not ``here`` gets a
    # fresh id.
    races = {r.race_id for r in document.race_entries} | {
        g.fields.race_id for g in checked.games if g.fields.race_id
    }
    closed = _closed_dailies(db, races)
    new_id: dict[str, str] = {}
    added = []
    for g in checked.games:
        if g.fields.id in here:
            new_id[g.fields.id] = g.fields.id
        elif g.fields.race_id is None or g.fields.race_id in closed:
            new_id[g.fields.id] = new_game_id()
            added.append(g)
    # Many rows (1,000 games of ~90 actions: ~90,000): Core executemany, not the ORM's
    # unit of work, so that the write lock is held as briefly as the rows allow.
    conn = db.connection()
    games = [
        {
            **g.fields.model_dump(
                exclude={
                    "id",
                    "restarted_from",
                    "race_id",
                    "sealed",
                    "actions",
                    "log",
                    "started_at",
                }
            ),
            # (a file from before the clock: its games started when they were dealt)
            "started_at": (
                g.fields.started_at
                if "started_at" in g.fields.model_fields_set
                else g.fields.created_at
            ),
            "id": new_id[g.fields.id],
            "player_id": player_id,
            "deal": g.deal,
            "snapshot": g.snapshot,
            "restarted_from": new_id.get(g.fields.restarted_from or "", g.fields.restarted_from),
            "race_id": None,  # history: an imported game never reports to a race
        }
        for g in added
    ]
    _insert_many(conn, GameRow, games)
    log = [
        {
            "game_id": new_id[g.fields.id],
            "player_id": player_id,
            "seq": seq,
            **dict(zip(ACTION_COLUMNS, a, strict=True)),
        }
        for g in added
        for seq, a in enumerate(g.actions, start=1)
    ]
    _insert_many(conn, MoveLog, log)
    for s in document.statistics:
        db.add(VariantStats(player_id=player_id, **s.model_dump()))
    results = [
        {
            **r.model_dump(exclude={"game"}),
            "player_id": player_id,
            "game_id": new_id[r.game] if r.game else None,
        }
        for r in document.results
        if r.game is None or r.game in new_id  # (not a result of a game left out)
    ]
    _insert_many(conn, StatEvent, results)
    # Race entries: only the player's own (the file's ``player``), of a daily deal whose day is
    # over, on which the player has no entry here; never ranked (history: shown, never ranked).
    own = checked.player is not None and hmac.compare_digest(
        checked.player, player_tag(player_id, settings)
    )
    entered = set(
        db.execute(select(RaceEntry.race_id).where(RaceEntry.player_id == player_id)).scalars()
    )
    entries = 0
    for e in document.race_entries:
        if not own or e.race_id not in closed or e.race_id in entered:
            continue
        entered.add(e.race_id)
        entries += 1
        game = new_id.get(e.game) if e.game else None
        db.add(
            RaceEntry(
                **e.model_dump(exclude={"game", "ranked"}),
                ranked=False,
                player_id=player_id,
                game_id=game if game is not None and game not in here else None,
            )
        )
    db.flush()
    return ImportSummary(
        games=len(added),
        results=len(document.results),
        race_entries=entries,
        left_out_race_entries=len(document.race_entries) - entries,
        left_out_games=len(checked.games) - len(added) - len(here),
        kept_games=len(here),
    )
