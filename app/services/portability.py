"""Your data: everything kept about a player as one signed JSON file, and its import.

``export_player_data`` writes the file: the format name and version, the export time, the
player's settings, profile, statistics, result history, games (with their move logs) and
race entries, and the devices that reach the player; ``signature`` is HMAC-SHA256 (a key
derived from ``SECRET_KEY``) over the canonical serialisation of everything else (JSON with
sorted keys, no spaces, ASCII only). A game's deal and position hold face-down cards, which
never leave the server: they are *sealed* (encrypted with a key derived from ``SECRET_KEY``:
Fernet, from the ``cryptography`` package), so only a site with the same secret
key reads them back.

``import_player_data`` reads such a file into the current player, in one transaction, and
replaces what the player had (games, results, statistics, settings, profile, race entries;
the player's id and devices stay). It refuses, changing nothing, a file that is too large,
not JSON (or cut short), of another format or version, whose signature does not match, whose
fields are not what the format says, or whose data do not hold together: a game whose move
log does not replay through the engine to its saved position, a result or race entry naming
a game the file lacks. The caller must confirm the replacement (``confirmed``). A race entry
whose shared deal this site does not have is left out (counted in the summary); a game id
another player holds here gets a new id.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from cryptography.fernet import Fernet, InvalidToken
from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    Device,
    GameRow,
    MoveLog,
    Player,
    PlayerProfile,
    PlayerSettings,
    Race,
    RaceEntry,
    StatEvent,
    VariantStats,
    utcnow,
)
from app.engine import Action, EngineError, Game, parse_deal
from app.engine.deals import DealError
from app.engine.variants import ALL_VARIANTS

from .common import ensure_player, read_tx, write_tx
from .errors import InvalidRequest
from .ratelimit import consume

FORMAT = "scorpion-player-data"
VERSION = 1


class ImportRefused(InvalidRequest):
    """The data file was refused; nothing was changed."""

    code = "import_refused"


# -- sealing and signing -----------------------------------------------------------------------


def _key(settings: Settings, purpose: bytes) -> bytes:
    return hmac.new(settings.secret_key.encode(), b"scorpion-export:" + purpose, "sha256").digest()


def _fernet(settings: Settings) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(_key(settings, b"seal")))


def seal(plain: bytes, settings: Settings) -> str:
    """``plain`` encrypted and authenticated (Fernet: AES-128-CBC with HMAC-SHA256, from the
    ``cryptography`` package) under a key derived from ``SECRET_KEY``."""
    return _fernet(settings).encrypt(plain).decode("ascii")


def unseal(text: str, settings: Settings) -> bytes:
    """``seal``'s plain bytes; ``ValueError`` for a token this site's key did not seal."""
    try:
        return _fernet(settings).decrypt(text.encode("ascii"))
    except InvalidToken:
        raise ValueError("not sealed by this site") from None


def canonical(document: dict[str, Any]) -> bytes:
    """The bytes the signature covers: every field but ``signature``, in canonical JSON."""
    rest = {k: v for k, v in document.items() if k != "signature"}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def signature(document: dict[str, Any], settings: Settings) -> str:
    return hmac.new(_key(settings, b"sign"), canonical(document), hashlib.sha256).hexdigest()


# -- the format --------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SettingsData(_Strict):
    save_games: bool
    record_stats: bool
    locale: str | None
    four_colour: bool
    theme: Literal["auto", "light", "dark"]
    large_cards: bool


class ProfileData(_Strict):
    display_name: str | None
    on_leaderboards: bool


class StatisticsData(_Strict):
    variant: str
    started: int
    won: int
    abandoned: int
    current_streak: int
    best_streak: int
    best_time_seconds: int | None
    fewest_moves: int | None
    last_played_at: datetime | None


class ResultData(_Strict):
    game: str | None
    variant: str
    kind: Literal["start", "win", "abandon"]
    deal_number: int | None
    moves: int | None
    seconds: int | None
    at: datetime


# An action of the log: [kind, from column, from index, to column, from pile, to pile, time].
ActionData = tuple[
    Literal["move", "deal", "undo", "redo"],
    int | None,
    int | None,
    int | None,
    str | None,
    str | None,
    datetime,
]


class GameData(_Strict):
    id: str
    variant: str
    deal_number: int | None
    status: Literal["playing", "won"]
    version: int
    moves: int
    moves_made: int
    saved: bool
    assisted: bool
    counted: bool
    restarted_from: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    abandoned_at: datetime | None
    race_id: str | None
    difficulty: str | None
    sealed: str  # the deal and the position (face-down cards): see the module notes
    actions: list[ActionData]


class RaceEntryData(_Strict):
    race_id: str
    game: str | None
    ranked: bool
    status: str
    moves: int
    suits: int
    assisted: bool
    seconds: int | None
    verified: str | None
    verified_version: int | None
    verified_moves: int | None
    started_at: datetime
    updated_at: datetime
    finished_at: datetime | None


class DeviceData(_Strict):
    name: str | None
    linked_at: datetime
    last_seen: datetime


class Document(_Strict):
    format: Literal["scorpion-player-data"]
    version: int
    exported_at: datetime
    player_since: datetime | None
    settings: SettingsData | None
    profile: ProfileData | None
    statistics: list[StatisticsData]
    results: list[ResultData]
    games: list[GameData]
    race_entries: list[RaceEntryData]
    devices: list[DeviceData]
    signature: str


# -- export ------------------------------------------------------------------------------------


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


# -- import ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportSummary:
    games: int
    results: int
    race_entries: int
    left_out_race_entries: int


def _refuse(message: str) -> ImportRefused:
    return ImportRefused(f"{message} Nothing was changed.")


def read_document(raw: bytes, settings: Settings) -> Document:
    """The data file's contents, checked (see the module notes); ``ImportRefused`` else."""
    if len(raw) > settings.max_import_bytes:
        raise _refuse(f"This file is too large: at most {settings.max_import_bytes:,} bytes.")
    if not raw.strip():
        raise _refuse("This file is empty.")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise _refuse(
            "This file is not a Scorpion data file: it is not valid JSON (perhaps it was "
            "cut short)."
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _refuse("This file is not a Scorpion data file.")
    version = document.get("version")
    if version != VERSION:
        raise _refuse(
            f"This data file has format version {version!r}; this site reads version {VERSION}."
        )
    given = document.get("signature")
    if not isinstance(given, str) or not hmac.compare_digest(
        given.encode("ascii", "replace"), signature(document, settings).encode()
    ):
        raise _refuse(
            "This data file's signature does not match: it was changed after it was "
            "exported, or it comes from a site with another secret key."
        )
    try:
        parsed = Document.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise _refuse(f"This data file is not valid: {where}: {first['msg']}.") from None
    _check_consistent(parsed, settings)
    return parsed


def _check_consistent(document: Document, settings: Settings) -> None:
    ids = [g.id for g in document.games]
    if len(set(ids)) != len(ids):
        raise _refuse("This data file is not consistent: a game appears twice.")
    known = set(ids)
    variants = [s.variant for s in document.statistics]
    if len(set(variants)) != len(variants) or any(v not in ALL_VARIANTS for v in variants):
        raise _refuse("This data file is not consistent: its statistics name unknown variants.")
    for r in document.results:
        if r.variant not in ALL_VARIANTS or (r.game is not None and r.game not in known):
            raise _refuse("This data file is not consistent: a result names a missing game.")
    for e in document.race_entries:
        if e.game is not None and e.game not in known:
            raise _refuse("This data file is not consistent: a race entry names a missing game.")
    for n, g in enumerate(document.games, start=1):
        if not 1 <= len(g.id) <= 32 or g.variant not in ALL_VARIANTS:
            raise _refuse(f"This data file is not consistent: game {n} is not a valid game.")
        _check_game(n, g, settings)


def _unsealed(g: GameData, settings: Settings) -> tuple[str, str]:
    try:
        inner = json.loads(unseal(g.sealed, settings))
        deal, snapshot = inner["deal"], inner["snapshot"]
        if not isinstance(deal, str) or not isinstance(snapshot, str):
            raise TypeError("not text")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise _refuse(f"This data file is not consistent: game {g.id} is unreadable.") from None
    return deal, snapshot


def _action(a: ActionData) -> Action:
    kind, from_column, from_index, to_column, from_pile, to_pile, _ = a
    if kind != "move":
        return (kind,)
    if from_column is None or from_index is None or to_column is None:
        raise ValueError("a move without its columns")
    if from_pile is None and to_pile is None:
        return ("move", from_column, from_index, to_column)
    return ("move", from_column, from_index, to_column, from_pile or "column", to_pile or "column")


def _check_game(n: int, g: GameData, settings: Settings) -> None:
    deal, snapshot = _unsealed(g, settings)
    try:
        game = Game.new(g.variant, parse_deal(deal, g.variant))
        for a in g.actions:
            game.apply(_action(a))
    except (EngineError, DealError, ValueError, TypeError, KeyError, IndexError):
        raise _refuse(
            f"This data file is not consistent: the move log of game {g.id} does not replay."
        ) from None
    status = "won" if game.won else "playing"
    if game.to_snapshot() != snapshot or g.status != status or g.moves != game.moves:
        raise _refuse(
            f"This data file is not consistent: the move log of game {g.id} does not lead to "
            "its saved position."
        )


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
    (``chosen``: False when the form came without a file; ``how_to_confirm``: the refusal's
    words when ``confirmed`` is False)."""
    settings = settings or get_settings()
    # Counted first, in a transaction of its own: checking the file replays every game, CPU
    # work that must not hold the write lock (as a solver question, ``consume``).
    consume(db, player_id, "actions")
    if not chosen:
        raise _refuse("Choose the data file to import.")
    document = read_document(raw, settings)
    if not confirmed:
        raise _refuse(
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
    from .common import new_game_id

    now = utcnow()
    if document.settings is not None:
        kept = document.settings
        prefs.save_games, prefs.record_stats = kept.save_games, kept.record_stats
        prefs.locale, prefs.four_colour = kept.locale, kept.four_colour
        prefs.theme, prefs.large_cards = kept.theme, kept.large_cards
        prefs.updated_at = now
    if document.profile is not None:
        db.add(
            PlayerProfile(
                player_id=player_id,
                display_name=document.profile.display_name,
                on_leaderboards=document.profile.on_leaderboards,
                updated_at=now,
            )
        )
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
        deal, snapshot = _unsealed(g, settings)
        db.add(
            GameRow(
                id=new_id[g.id],
                player_id=player_id,
                variant=g.variant,
                deal_number=g.deal_number,
                deal=deal,
                status=g.status,
                snapshot=snapshot,
                version=g.version,
                moves=g.moves,
                moves_made=g.moves_made,
                saved=g.saved,
                assisted=g.assisted,
                counted=g.counted,
                restarted_from=new_id.get(g.restarted_from or "", g.restarted_from),
                created_at=g.created_at,
                updated_at=g.updated_at,
                finished_at=g.finished_at,
                abandoned_at=g.abandoned_at,
                race_id=g.race_id if g.race_id in here else None,
                difficulty=g.difficulty,
            )
        )
    db.flush()
    log = [
        {
            "game_id": new_id[g.id],
            "player_id": player_id,
            "seq": seq,
            "kind": a[0],
            "from_column": a[1],
            "from_index": a[2],
            "to_column": a[3],
            "from_pile": a[4],
            "to_pile": a[5],
            "created_at": a[6],
        }
        for g in document.games
        for seq, a in enumerate(g.actions, start=1)
    ]
    if log:
        db.execute(insert(MoveLog), log)
    for s in document.statistics:
        db.add(
            VariantStats(
                player_id=player_id,
                variant=s.variant,
                started=s.started,
                won=s.won,
                abandoned=s.abandoned,
                current_streak=s.current_streak,
                best_streak=s.best_streak,
                best_time_seconds=s.best_time_seconds,
                fewest_moves=s.fewest_moves,
                last_played_at=s.last_played_at,
            )
        )
    for r in document.results:
        db.add(
            StatEvent(
                player_id=player_id,
                game_id=new_id[r.game] if r.game else None,
                variant=r.variant,
                kind=r.kind,
                deal_number=r.deal_number,
                moves=r.moves,
                seconds=r.seconds,
                at=r.at,
            )
        )
    entries = 0
    for e in document.race_entries:
        if e.race_id not in here:
            continue
        entries += 1
        db.add(
            RaceEntry(
                race_id=e.race_id,
                player_id=player_id,
                game_id=new_id[e.game] if e.game else None,
                ranked=e.ranked,
                status=e.status,
                moves=e.moves,
                suits=e.suits,
                assisted=e.assisted,
                seconds=e.seconds,
                verified=e.verified,
                verified_version=e.verified_version,
                verified_moves=e.verified_moves,
                started_at=e.started_at,
                updated_at=e.updated_at,
                finished_at=e.finished_at,
            )
        )
    db.flush()
    return ImportSummary(
        games=len(document.games),
        results=len(document.results),
        race_entries=entries,
        left_out_race_entries=len(document.race_entries) - entries,
    )


__all__ = [
    "FORMAT",
    "VERSION",
    "ImportRefused",
    "ImportSummary",
    "export_player_data",
    "import_player_data",
    "read_document",
]
