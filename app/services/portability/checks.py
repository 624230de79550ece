"""The checks of a data file to import (see the package notes): its size, its JSON, its format,
version and signature, its fields (``Document``) and whether its data hold together (every
game's move log replays through the engine to its saved position). ``ImportRefused`` else."""

from __future__ import annotations

import hmac
import json

from pydantic import ValidationError

from app.config import Settings
from app.engine import Action, EngineError, Game, parse_deal
from app.engine.deals import DealError
from app.engine.variants import ALL_VARIANTS

from .file import FORMAT, VERSION, ActionData, Document, GameData, ImportRefused, signature, unseal


def refuse(message: str) -> ImportRefused:
    return ImportRefused(f"{message} Nothing was changed.")


def read_document(raw: bytes, settings: Settings) -> Document:
    """The data file's contents, checked (see the module notes); ``ImportRefused`` else."""
    if len(raw) > settings.max_import_bytes:
        raise refuse(f"This file is too large: at most {settings.max_import_bytes:,} bytes.")
    if not raw.strip():
        raise refuse("This file is empty.")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise refuse(
            "This file is not a Scorpion data file: it is not valid JSON (perhaps it was "
            "cut short)."
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise refuse("This file is not a Scorpion data file.")
    version = document.get("version")
    if version != VERSION:
        raise refuse(
            f"This data file has format version {version!r}; this site reads version {VERSION}."
        )
    given = document.get("signature")
    if not isinstance(given, str) or not hmac.compare_digest(
        given.encode("ascii", "replace"), signature(document, settings).encode()
    ):
        raise refuse(
            "This data file's signature does not match: it was changed after it was "
            "exported, or it comes from a site with another secret key."
        )
    try:
        parsed = Document.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise refuse(f"This data file is not valid: {where}: {first['msg']}.") from None
    _check_consistent(parsed, settings)
    return parsed


def _check_consistent(document: Document, settings: Settings) -> None:
    ids = [g.id for g in document.games]
    if len(set(ids)) != len(ids):
        raise refuse("This data file is not consistent: a game appears twice.")
    known = set(ids)
    variants = [s.variant for s in document.statistics]
    if len(set(variants)) != len(variants) or any(v not in ALL_VARIANTS for v in variants):
        raise refuse("This data file is not consistent: its statistics name unknown variants.")
    for r in document.results:
        if r.variant not in ALL_VARIANTS or (r.game is not None and r.game not in known):
            raise refuse("This data file is not consistent: a result names a missing game.")
    for e in document.race_entries:
        if e.game is not None and e.game not in known:
            raise refuse("This data file is not consistent: a race entry names a missing game.")
    for n, g in enumerate(document.games, start=1):
        if not 1 <= len(g.id) <= 32 or g.variant not in ALL_VARIANTS:
            raise refuse(f"This data file is not consistent: game {n} is not a valid game.")
        _check_game(n, g, settings)


def unsealed(g: GameData, settings: Settings) -> tuple[str, str]:
    try:
        inner = json.loads(unseal(g.sealed, settings))
        deal, snapshot = inner["deal"], inner["snapshot"]
        if not isinstance(deal, str) or not isinstance(snapshot, str):
            raise TypeError("not text")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise refuse(f"This data file is not consistent: game {g.id} is unreadable.") from None
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
    deal, snapshot = unsealed(g, settings)
    try:
        game = Game.new(g.variant, parse_deal(deal, g.variant))
        for a in g.actions:
            game.apply(_action(a))
    except (EngineError, DealError, ValueError, TypeError, KeyError, IndexError):
        raise refuse(
            f"This data file is not consistent: the move log of game {g.id} does not replay."
        ) from None
    status = "won" if game.won else "playing"
    if game.to_snapshot() != snapshot or g.status != status or g.moves != game.moves:
        raise refuse(
            f"This data file is not consistent: the move log of game {g.id} does not lead to "
            "its saved position."
        )
