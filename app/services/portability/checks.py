"""The checks of a data file to import (see the package notes): its size, its JSON, its format,
version and signature, its fields (``Document``, ``DocumentV2``) and whether its data hold
together (every game's move log replays through the engine; in version 1 to its saved
position). ``ImportRefused`` else; ``Checked`` (the file, its games replayed) when it holds."""

from __future__ import annotations

import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from app.config import Settings
from app.engine import Action, EngineError, Game, parse_deal
from app.engine.deals import DealError
from app.engine.variants import ALL_VARIANTS

from .file import (
    FORMAT,
    VERSION,
    VERSIONS,
    ActionData,
    Document,
    DocumentV2,
    GameData,
    GameDataV2,
    GameFields,
    ImportRefused,
    decode_log,
    signature,
    unseal,
)

BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, which some editors put before a JSON file


@dataclass(frozen=True, slots=True)
class CheckedGame:
    """A game of the file, checked: its columns, deal, move log and position (the log
    replayed through the engine)."""

    fields: GameFields
    deal: str
    actions: list[ActionData]
    snapshot: str


@dataclass(frozen=True, slots=True)
class Checked:
    """A data file that holds together: its contents, the tag of the player it was exported
    from (``None``: a version 1 file, which does not say) and its games, checked."""

    document: Document | DocumentV2
    player: str | None
    games: list[CheckedGame]


def refuse(message: str) -> ImportRefused:
    return ImportRefused(f"{message} Nothing was changed.")


def too_large(limit: int) -> ImportRefused:
    return refuse(f"This file is too large: at most {limit:,} bytes.")


def read_document(raw: bytes, settings: Settings) -> Checked:
    """The data file's contents, checked (see the module notes); ``ImportRefused`` else."""
    if len(raw) > settings.max_import_bytes:
        raise too_large(settings.max_import_bytes)
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    if not raw.strip():
        raise refuse("This file is empty.")
    try:
        document = json.loads(raw)
    except RecursionError:
        raise refuse(
            "This file is not a Scorpion data file: its JSON is nested too deeply."
        ) from None
    except (ValueError, UnicodeDecodeError):
        raise refuse(
            "This file is not a Scorpion data file: it is not valid JSON (perhaps it was "
            "cut short)."
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise refuse("This file is not a Scorpion data file.")
    version = document.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise refuse(
            f"This data file has format version {version!r}; this site reads versions 1 to "
            f"{VERSION}."
        )
    given = document.get("signature")
    if not isinstance(given, str) or not hmac.compare_digest(
        given.encode("ascii", "replace"), signature(document, settings).encode()
    ):
        raise refuse(
            "This data file's signature does not match: it was changed after it was "
            "exported, or it comes from a site with another secret key."
        )
    model = DocumentV2 if version == 2 else Document
    try:
        parsed = model.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise refuse(f"This data file is not valid: {where}: {first['msg']}.") from None
    games = _check_consistent(parsed, settings)
    player = parsed.player if isinstance(parsed, DocumentV2) else None
    return Checked(parsed, player, games)


def _check_consistent(document: Document | DocumentV2, settings: Settings) -> list[CheckedGame]:
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
    checked = []
    games: Sequence[GameData | GameDataV2] = document.games
    for n, g in enumerate(games, start=1):
        if not 1 <= len(g.id) <= 32 or g.variant not in ALL_VARIANTS:
            raise refuse(f"This data file is not consistent: game {n} is not a valid game.")
        checked.append(_check_game(g, settings))
    return checked


def _unsealed(g: GameData | GameDataV2, settings: Settings) -> tuple[str, str | None]:
    """The game's deal, and (version 1) its saved position."""
    try:
        plain = unseal(g.sealed, settings)
        if isinstance(g, GameDataV2):
            return plain.decode("utf-8"), None
        inner = json.loads(plain)
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


def _check_game(g: GameData | GameDataV2, settings: Settings) -> CheckedGame:
    deal, saved = _unsealed(g, settings)
    try:
        actions = decode_log(g.created_at, g.log) if isinstance(g, GameDataV2) else g.actions
        game = Game.new(g.variant, parse_deal(deal, g.variant))
        for a in actions:
            game.apply(_action(a))
    except (EngineError, DealError, ValueError, TypeError, KeyError, IndexError, OverflowError):
        raise refuse(
            f"This data file is not consistent: the move log of game {g.id} does not replay."
        ) from None
    status = "won" if game.won else "playing"
    snapshot = game.to_snapshot()
    if (saved is not None and snapshot != saved) or g.status != status or g.moves != game.moves:
        raise refuse(
            f"This data file is not consistent: the move log of game {g.id} does not lead to "
            "its saved position."
        )
    return CheckedGame(g, deal, list(actions), snapshot)
