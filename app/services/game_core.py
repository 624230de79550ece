"""The core of a game's life that several services share: its public state, loading it,
starting one (superseding the player's unfinished game of the variant in the same slot) and
its clock's start (``begin``).

Slots and the clock (issue 41, API.md "Extensions (the clock, the coach)"). A player's games of
a variant live in two kinds of slot: their own games (no race) and each shared deal's (a
daily deal or a challenge: ``race_id``). A new game supersedes only the unfinished game of its
own slot, so starting the daily deal or a challenge leaves the saved game of that variant as
it was. A dealt layout nobody touched (no move, no deal, no solver question: ``started_at``
NULL) is not a game yet: replacing it counts neither a start nor an abandonment. Its first
move or solver question starts it (``begin``): the clock starts then and the start is counted.

``app.services.games`` (new games, actions) and ``app.services.race`` (games on a shared deal)
both build on it; neither imports the other's internals.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import observability
from app.db.models import GameRow, MoveLog, PlayerSettings, utcnow
from app.engine import Action, Game, Move, PublicView, parse_deal

from .common import add_event, new_game_id, stats_row
from .errors import NotFound
from .race_progress import report_given_up
from .types import GameState

# The ``GameState`` fields copied from the game's row as they are.
ROW_FIELDS: tuple[str, ...] = ("id", "variant", "deal_number", "version", "status", "saved")
ROW_FIELDS += ("assisted", "moves_made", "restarted_from", "created_at", "updated_at")
ROW_FIELDS += ("finished_at", "race_id")
ROW_FIELDS += ("difficulty", "started_at")


def game_state(row: Any, game: Game | None = None, previous: PublicView | None = None) -> GameState:
    """The public state of a game row (``row``: a ``GameRow`` or anything with its attributes;
    ``game``: its engine state, when at hand; ``previous``: the view before the action that
    made it, when asked for). What the engine shows of a snapshot is kept for the game's
    latest snapshot seen (``_SHOWN``): reading a game just written, or read again, does not
    parse the snapshot."""
    shown = _shown(row.id, row.snapshot, game)
    return GameState(
        view=shown[0],
        moves=shown[1],
        stuck=shown[2],
        can_deal=shown[3],
        abandoned=row.abandoned_at is not None,
        previous=previous,
        **{name: getattr(row, name) for name in ROW_FIELDS},
    )


Shown = tuple[PublicView, tuple[Move, ...], bool, bool]  # view, hints, stuck, can deal
_SHOWN: OrderedDict[str, tuple[str, Shown]] = OrderedDict()
_SHOWN_KEPT = 2048  # games
_SHOWN_LOCK = threading.Lock()


def shown_view(game_id: str, snapshot: str, game: Game) -> PublicView:
    """The view of ``game`` (whose snapshot is ``snapshot``): the one kept for that snapshot
    when the last answer about the game showed it (the view before an action is the one the
    action before it returned), else made."""
    with _SHOWN_LOCK:
        kept = _SHOWN.get(game_id)
    if kept is not None and kept[0] == snapshot:
        return kept[1][0]
    return game.public_view()


def _shown(game_id: str, snapshot: str, game: Game | None) -> Shown:
    """What the engine shows of ``snapshot`` (immutable values, shared between requests)."""
    if game is None:
        with _SHOWN_LOCK:
            kept = _SHOWN.get(game_id)
        if kept is not None and kept[0] == snapshot:
            return kept[1]
        game = Game.from_snapshot(snapshot)
    hints, can_deal = tuple(game.hints()), game.can_deal
    # (``game.stuck`` itself, without looking for the hints once more)
    shown: Shown = (game.public_view(), hints, not can_deal and not hints, can_deal)
    with _SHOWN_LOCK:
        _SHOWN[game_id] = (snapshot, shown)
        _SHOWN.move_to_end(game_id)
        if len(_SHOWN) > _SHOWN_KEPT:
            _SHOWN.popitem(last=False)
    return shown


def logged_action(r: MoveLog) -> Action:
    """The action a row of the move log stands for (``ValueError`` for a broken row)."""
    if r.kind != "move":
        return (r.kind,)
    if r.from_column is None or r.from_index is None or r.to_column is None:
        raise ValueError("a logged move without its columns")
    if r.from_pile is None and r.to_pile is None:
        return ("move", r.from_column, r.from_index, r.to_column)
    piles = (r.from_pile or "column", r.to_pile or "column")
    return ("move", r.from_column, r.from_index, r.to_column, *piles)


def load_game(db: Session, player_id: str, game_id: str, *, lock: bool = False) -> GameRow:
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise NotFound()
    stmt = select(GameRow).where(GameRow.id == game_id, GameRow.player_id == player_id)
    if lock:
        stmt = stmt.with_for_update()
    row = db.execute(stmt).scalar_one_or_none()
    if row is None:
        raise NotFound()
    return row


@observability.count_game_start
def start_game(
    db: Session,
    player_id: str,
    settings: PlayerSettings,
    variant: str,
    deal_number: int | None,
    deal_text: str,
    restarted_from: str | None,
    difficulty: str | None = None,
    *,
    continues: GameRow | None = None,
    race_id: str | None = None,
) -> tuple[GameRow, Game]:
    """A new game of the deal (superseding the player's unfinished one of the variant).
    ``continues``: a game on a shared deal restarted within its race (``app.services.race``,
    ``entry_of_restart``): the new game goes on with the same attempt, so it keeps that game's
    race, moves made, clock (its start) and assistance, its version goes on from that game's
    (so the race's reports stay in order), it is not a new start for the statistics
    and the game it continues is not given up (it is put aside, kept for the server's check
    of the attempt's moves, ``race.replay_log_counted``). ``race_id``: the shared deal a new
    game plays (its own slot). The new game is not started yet: its first move or solver
    question starts it (``begin``), and only then counts as a start."""
    now = utcnow()
    race_id = continues.race_id if continues is not None else race_id
    keep = continues.id if continues else None
    supersede(db, player_id, settings, variant, now, keep=keep, race_id=race_id)
    game = Game.new(variant, parse_deal(deal_text, variant))
    row = GameRow(
        id=new_game_id(),
        player_id=player_id,
        variant=variant,
        deal_number=deal_number,
        deal=deal_text,
        status="playing",
        snapshot=game.to_snapshot(),
        # (a race hears of an entry's reports in version order: the attempt's version goes on)
        version=continues.version + 1 if continues else 1,
        moves=0,
        moves_made=continues.moves_made if continues else 0,
        saved=settings.save_games,
        assisted=bool(continues.assisted) if continues else False,
        counted=bool(continues.counted) if continues else False,
        restarted_from=restarted_from,
        difficulty=difficulty,
        created_at=continues.created_at if continues else now,
        started_at=continues.started_at if continues else None,
        updated_at=now,
        race_id=race_id,
    )
    db.add(row)
    db.flush()
    return row, game


def begin(db: Session, player_id: str, row: Any, now: datetime) -> tuple[datetime, bool]:
    """Start the game of ``row`` (not started yet: its first move, deal or solver question):
    its clock starts at ``now`` and, while the player records statistics, it counts as a
    start. Returns the game's new ``started_at`` and ``counted``; the caller writes them."""
    counted = bool(row.counted)
    settings = db.get(PlayerSettings, player_id)
    if settings is not None and settings.record_stats and not counted:
        stats = stats_row(db, player_id, row.variant)
        stats.started += 1
        stats.last_played_at = now
        add_event(
            db, player_id, row.variant, "start", game_id=row.id, deal_number=row.deal_number, at=now
        )
        counted = True
    return now, counted


def clock_seconds(started_at: datetime | None, finished_at: datetime | None, now: datetime) -> int:
    """The game's elapsed play time in whole seconds: 0 before its first move or solver
    question, then from that moment to its win (or to ``now``)."""
    if started_at is None:
        return 0
    end = finished_at or now
    return max(0, int((_aware(end) - _aware(started_at)).total_seconds()))


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def supersede(
    db: Session,
    player_id: str,
    settings: PlayerSettings,
    variant: str,
    now: Any,
    *,
    keep: str | None = None,
    race_id: str | None = None,
) -> None:
    """Abandon the player's current unfinished game(s) of ``variant`` in the slot of
    ``race_id`` (None: the player's own games; else that shared deal's). ``keep``: a game that
    a new one continues (``start_game``): put aside (no longer current, kept), not given up.
    A game not started yet (``started_at`` NULL) is replaced without counting anything."""
    rows: Sequence[GameRow] = (
        db.execute(
            select(GameRow)
            .where(
                GameRow.player_id == player_id,
                GameRow.variant == variant,
                GameRow.status == "playing",
                GameRow.abandoned_at.is_(None),
                GameRow.race_id.is_(None) if race_id is None else GameRow.race_id == race_id,
            )
            .with_for_update()
        )
        .scalars()
        .all()
    )
    kept = [old for old in rows if old.id == keep]
    rows = [old for old in rows if old.id != keep]
    for old in kept:
        old.abandoned_at = now
        old.saved = False
    # A shared deal's game given up: its races hear of it now, not at the next page load.
    report_given_up(db, {old.id: old.version for old in rows if old.race_id is not None})
    for old in rows:
        if settings.record_stats and old.counted and old.started_at is not None:
            stats = stats_row(db, player_id, variant)
            stats.abandoned += 1
            stats.current_streak = 0
            stats.last_played_at = now
            add_event(
                db,
                player_id,
                variant,
                "abandon",
                game_id=None if not settings.save_games else old.id,
                deal_number=old.deal_number,
                moves=old.moves_made,
                at=now,
            )
        if settings.save_games:
            old.abandoned_at = now
            old.saved = False
        else:
            db.delete(old)  # not kept for later; its move log goes with it (ON DELETE CASCADE)
    db.flush()
