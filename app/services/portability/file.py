"""The data file: its format (``Document``, pydantic models), its sealing and its signature.

A model's fields are the columns of its table, named alike (the export and the import copy
them by name), but for a game named by its id (``game``: the column ``game_id``), a device's
two times, and a game's sealed deal and position and its move log (``ActionData``, a row of
``ACTION_COLUMNS``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import datetime
from typing import Any, Literal

from cryptography.fernet import Fernet, InvalidToken
from pydantic import BaseModel, ConfigDict

from app.config import Settings

from ..errors import InvalidRequest

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
# The move log's columns, in the order of ``ActionData``.
ACTION_COLUMNS = (
    "kind",
    "from_column",
    "from_index",
    "to_column",
    "from_pile",
    "to_pile",
    "created_at",
)


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
    # The game's clock start (issue 41; null: not started yet). A file from before it has
    # none: its games were started when dealt (``restore``).
    started_at: datetime | None = None


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
