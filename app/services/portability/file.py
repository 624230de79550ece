"""The data file: its format (``Document``, pydantic models), its sealing and its signature.

A model's fields are the columns of its table, named alike (the export and the import copy
them by name), but for a game named by its id (``game``: the column ``game_id``), a device's
two times, and a game's sealed deal and its move log.

Version 2 (written since issue 39) is compact: no indentation, a game's move log one string
(``encode_log``: ``"3.5.0+1530 d+800 u+410"``, each action then the milliseconds since the
one before it, the first since the game's start), only the deal sealed (the position is the
log replayed), and ``player``: a keyed tag of the player it was exported from (``player_tag``).
Version 1 (indented, the log a list of ``ActionData`` rows, deal and position sealed, no
``player``) is still read.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from cryptography.fernet import Fernet, InvalidToken
from pydantic import BaseModel, ConfigDict

from app.config import Settings

from ..errors import InvalidRequest

FORMAT = "scorpion-player-data"
VERSION = 2
VERSIONS = (1, 2)  # the versions this site reads


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


def player_tag(player_id: str, settings: Settings) -> str:
    """The file's ``player``: who it was exported from, as a keyed hash (not the id itself)."""
    return hmac.new(_key(settings, b"player"), player_id.encode(), "sha256").hexdigest()[:32]


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


class GameFields(_Strict):
    """A game's columns, as both versions hold them."""

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
    # The game's clock start (issue 41; null: not started yet). A file from before it has
    # none: its games were started when dealt (``restore``).
    started_at: datetime | None = None


class GameData(GameFields):  # version 1
    sealed: str  # the deal and the position (face-down cards): see the module notes
    actions: list[ActionData]


class GameDataV2(GameFields):  # version 2
    sealed: str  # the deal (face-down cards): see the module notes
    log: str  # the move log: ``encode_log``


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


class _DocumentFields(_Strict):
    format: Literal["scorpion-player-data"]
    exported_at: datetime
    player_since: datetime | None
    settings: SettingsData | None
    profile: ProfileData | None
    statistics: list[StatisticsData]
    results: list[ResultData]
    race_entries: list[RaceEntryData]
    devices: list[DeviceData]
    signature: str


class Document(_DocumentFields):  # version 1
    version: Literal[1]
    games: list[GameData]


class DocumentV2(_DocumentFields):  # version 2
    version: Literal[2]
    player: str
    games: list[GameDataV2]


# -- the compact move log (version 2) ----------------------------------------------------------

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
_LOG_WORD = re.compile(
    r"(d|u|r|(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\.([a-z]{0,8})\.([a-z]{0,8}))?)([+-]\d{1,15})"
)
_KINDS = {"d": "deal", "u": "undo", "r": "redo"}
_LETTERS = {v: k for k, v in _KINDS.items()}


def _ms(when: datetime) -> int:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - EPOCH) // _MS


def encode_log(start: datetime, actions: list[list[Any]]) -> str:
    """A move log (rows of ``ACTION_COLUMNS``) as one string (module notes); ``start``: the
    game's start, from which the first action's time counts."""
    words = []
    last = _ms(start)
    for kind, fc, fi, tc, fp, tp, at in actions:
        if kind == "move":
            what = f"{fc}.{fi}.{tc}"
            if fp is not None or tp is not None:
                what += f".{fp or ''}.{tp or ''}"
        else:
            what = _LETTERS[kind]
        now = _ms(at)
        words.append(f"{what}{now - last:+d}")
        last = now
    return " ".join(words)


def decode_log(start: datetime, log: str) -> list[ActionData]:
    """``encode_log``'s rows back; ``ValueError`` for a string it did not write."""
    out: list[ActionData] = []
    last = _ms(start)
    for word in log.split():
        m = _LOG_WORD.fullmatch(word)
        if m is None:
            raise ValueError(f"not an action: {word[:20]!r}")
        what, fc, fi, tc, fp, tp, delta = m.groups()
        last += int(delta)
        at = EPOCH + last * _MS
        if fc is None:
            out.append((_KINDS[what], None, None, None, None, None, at))  # type: ignore[arg-type]
        else:
            out.append(("move", int(fc), int(fi), int(tc), fp or None, tp or None, at))
    return out
