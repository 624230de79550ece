"""Game services: one database transaction per player action.

Every function takes the request's ``Session`` and the player's id (from the signed cookie).
A game of another player is reported exactly like a missing one (``NotFound``).

Saved games and abandonment (decided)
-------------------------------------
A player has at most one *current* game per variant: the newest unfinished one. Starting a
new game of a variant (a new deal, a deal by number or string, or a restart) supersedes the
previous current game of that variant if it is unfinished: it is marked abandoned and counts
as a loss for streaks (the current streak drops to 0). With "save games" on, the current game
is the player's saved game of that variant (``resume_game`` opens it) and an abandoned game
stays in the history, still reachable by its id. With "save games" off, no game is offered for
resuming and a superseded unfinished game is deleted at once: it is not kept for later.

Statistics (decided)
--------------------
Every started game counts as a start (numbered deals and deal strings alike); a restart is a
new start. A win adds to ``won`` and extends the current streak; an unassisted win may also set
the best time (wall time from the start to the win) and the fewest moves (moves made: every
move and deal performed, undone ones included). While "record statistics" is off nothing is
recorded; a game started while it was off (or whose start was deleted with the results) counts
its start when it is won with recording on, so ``won <= started``.

Assistance (decided, docs/rules.md)
-----------------------------------
Only help that reads hidden cards makes a game *assisted*: the solver's "is this still
winnable?" and solver hint (``app.services.analysis``). The plain hint, undo and redo do not,
and reading a game or its hints never writes anything. ``moves_made`` grows by one with every
move and deal performed (undo and redo add nothing); ``moves`` stays the engine's net count.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from app import observability
from app.db.fast import Cursor, Fast
from app.db.models import GameRow, MoveLog, PlayerSettings, utcnow
from app.engine import (
    Action,
    EngineError,
    Game,
)

from .common import add_event, ensure_player, read_tx, stats_row
from .errors import ActionRefused, InvalidRequest, NotFound, ServiceError, VersionConflict
from .game_core import game_state, load_game, logged_action, start_game
from .new_deals import check_variant, resolve_deal, winnable_deal
from .race import report_progress
from .ratelimit import counted_tx, rate_limits_on
from .types import GameState, Hints

ACTION_KINDS = ("move", "deal", "undo", "redo")
MADE_KINDS = ("move", "deal")  # the actions moves made counts (undo and redo are not)
_GAMES = cast(Table, GameRow.__table__)
_ACTIONS = cast(Table, MoveLog.__table__)
# The hot path's statements, built once (statement construction costs more than SQLite).
_SELECT_GAME = select(_GAMES).where(
    _GAMES.c.id == bindparam("gid"), _GAMES.c.player_id == bindparam("pid")
)
# An action's three statements, on the driver's cursor (``app.db.fast``).
_GAME_COLUMNS = ", ".join(c.name for c in _GAMES.columns)
_SELECT_FOR_ACTION = Fast(
    f"SELECT {_GAME_COLUMNS} FROM games WHERE id = :gid AND player_id = :pid",
    postgres=f"SELECT {_GAME_COLUMNS} FROM games WHERE id = :gid AND player_id = :pid FOR UPDATE",
    columns=list(_GAMES.columns),
)
_ACTION_COLUMNS: tuple[str, ...] = ("game_id", "player_id", "seq", "kind", "from_column")
_ACTION_COLUMNS += ("from_index", "to_column", "from_pile", "to_pile", "created_at")
_INSERT_ACTION = Fast(
    f"INSERT INTO game_actions ({', '.join(_ACTION_COLUMNS)}) "
    f"VALUES ({', '.join(':' + c for c in _ACTION_COLUMNS)})",
    binds={"created_at": _ACTIONS.c.created_at.type},
)
_UPDATE_AFTER_ACTION = Fast(
    "UPDATE games SET version = :version, snapshot = :snapshot, moves = :moves, "
    "moves_made = :moves_made, updated_at = :updated_at WHERE id = :gid",
    binds={"updated_at": _GAMES.c.updated_at.type},
)


# -- reading ---------------------------------------------------------------------------------


def get_game(db: Session, player_id: str, game_id: str) -> GameState:
    """The player's game ``game_id``; ``NotFound`` if missing or someone else's. One read,
    a Core statement built once (the play page's hot path)."""
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise NotFound()
    with read_tx(db):
        row = db.execute(_SELECT_GAME, {"gid": game_id, "pid": player_id}).one_or_none()
        if row is None:
            raise NotFound()
        return game_state(row)


@observability.count_action("hint")
def hints(db: Session, player_id: str, game_id: str, *, count: bool = True) -> Hints:
    """Every legal, useful move and whether the deal is possible: a read, which changes no
    game (the plain hint is not assistance). ``count``: count the request for the rate limit
    of actions (the JSON API); the play page's ``GET ?hint=1`` passes False and writes
    nothing at all."""
    counted = count and rate_limits_on()
    with counted_tx(db, player_id, "actions") if counted else read_tx(db):
        game = Game.from_snapshot(load_game(db, player_id, game_id).snapshot)
        return Hints(moves=game.hints(), can_deal=game.can_deal, stuck=game.stuck)


def resume_game(db: Session, player_id: str, variant: str) -> GameState | None:
    """The player's saved unfinished game of ``variant``, if saving is on and there is one."""
    with read_tx(db):
        settings = db.get(PlayerSettings, player_id)
        if settings is not None and not settings.save_games:
            return None
        row = db.execute(
            select(GameRow)
            .where(
                GameRow.player_id == player_id,
                GameRow.variant == variant,
                GameRow.status == "playing",
                GameRow.saved.is_(True),
            )
            .order_by(GameRow.updated_at.desc())
            .limit(1)
        ).scalar_one_or_none()
        return game_state(row) if row is not None else None


def saved_games(db: Session, player_id: str) -> list[GameState]:
    """The player's saved unfinished games (at most one per variant), newest first."""
    with read_tx(db):
        settings = db.get(PlayerSettings, player_id)
        if settings is not None and not settings.save_games:
            return []
        rows = db.execute(
            select(GameRow)
            .where(
                GameRow.player_id == player_id,
                GameRow.status == "playing",
                GameRow.saved.is_(True),
            )
            .order_by(GameRow.updated_at.desc())
        ).scalars()
        return [game_state(r) for r in rows]


# -- starting games ----------------------------------------------------------------------------


def create_game(
    db: Session,
    player_id: str,
    variant: str,
    deal_number: int | None = None,
    deal: str | None = None,
    *,
    winnable: bool = False,
    difficulty: str | None = None,
) -> GameState:
    """Start a new game: a deal number, a deal string, a deal the solver proved winnable
    (``winnable``, optionally of a ``difficulty``), or (none of these) a random deal number.

    Only a game asked for with a difficulty carries it: random and numbered deals stay
    unclaimed. Supersedes the player's previous unfinished game of the variant (see the
    module notes). One transaction, the rate-limit count included.
    """
    with counted_tx(db, player_id, "games"):
        variant = check_variant(variant)
        if difficulty is not None and not winnable:
            raise InvalidRequest('A difficulty goes with "winnable": true.')
        grade: str | None = None
        if winnable:
            if deal_number is not None or deal is not None:
                raise InvalidRequest(
                    "A winnable deal is chosen by the server: give no deal number or deal string."
                )
            deal_number, grade = winnable_deal(variant, difficulty)
        number, deal_text = resolve_deal(variant, deal_number, deal)
        settings = ensure_player(db, player_id)
        row, game = start_game(db, player_id, settings, variant, number, deal_text, None, grade)
        state = game_state(row, game)
        return state


def restart(db: Session, player_id: str, game_id: str) -> GameState:
    """A new game with the same deal as ``game_id`` (a new start for the statistics). One
    transaction, the rate-limit count included."""
    with counted_tx(db, player_id, "games") as known:
        if not known:
            raise NotFound()
        old = load_game(db, player_id, game_id, lock=True)
        settings = ensure_player(db, player_id)
        row, game = start_game(
            db, player_id, settings, old.variant, old.deal_number, old.deal, old.id, old.difficulty
        )
        state = game_state(row, game)
        return state


# -- actions -----------------------------------------------------------------------------------


def _check_action(action: Any) -> Action:
    """The action in its stored form: a column-to-column move is ``("move", a, i, b)``, a
    move naming another pile ``("move", a, i, b, from_pile, to_pile)``."""
    if not isinstance(action, tuple) or not action or action[0] not in ACTION_KINDS:
        raise InvalidRequest("An action is a move, the deal, undo or redo.")
    if action[0] == "move":
        if len(action) not in (4, 6) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in action[1:4]
        ):
            raise InvalidRequest("A move names a column, a position in it and a target column.")
        if len(action) == 6:
            piles = action[4:]
            if not all(isinstance(p, str) for p in piles):
                raise InvalidRequest("A pile is named by a string: column, reserve or cell.")
            if piles == ("column", "column"):
                return action[:4]
        return action
    return (action[0],)


@observability.count_action()
def act(
    db: Session,
    player_id: str,
    game_id: str,
    action: Action,
    expected_version: int | None = None,
    *,
    with_change: bool = False,
) -> GameState:
    """Apply one action (``("move", a, i, b)``, ``("deal",)``, ``("undo",)``, ``("redo",)``).

    One transaction, the rate-limit count included (``counted_tx``). Order of checks: the
    action must be one (``InvalidRequest``), the game must be this player's (``NotFound``),
    then ``expected_version`` must be current (``VersionConflict``), then the rules
    (``ActionRefused``). On any error nothing but the count changes. The hot path uses Core
    statements (one locked read, one insert into the move log, one update), so a move costs
    the same at step 300 as at step 10. ``with_change``: the returned state carries the view
    before the action (``previous``), and a refusal the game as it stands (``current``).
    """
    with counted_tx(db, player_id, "actions") as known:
        action = _check_action(action)
        if not known or not isinstance(game_id, str) or not game_id or len(game_id) > 64:
            raise NotFound()
        cursor = Cursor(db)
        found = cursor.one_or_none(_SELECT_FOR_ACTION, {"gid": game_id, "pid": player_id})
        if found is None:
            raise NotFound()
        row = SimpleNamespace(**found)
        game = Game.from_snapshot(row.snapshot)
        previous = game.public_view() if with_change else None
        try:
            if expected_version is not None and expected_version != row.version:
                raise VersionConflict(row.version, expected_version)
            try:
                game.apply(action)
            except EngineError as exc:
                raise ActionRefused(exc.message, exc.code) from None
        except ServiceError as exc:
            if with_change:
                exc.current = game_state(row)
            raise
        now = utcnow()
        kind = action[0]
        is_move = kind == "move"
        piles = action[4:6] if is_move and len(action) == 6 else (None, None)
        cursor.rows(
            _INSERT_ACTION,
            {
                "game_id": row.id,
                "player_id": player_id,
                "seq": row.version,
                "kind": kind,
                "from_column": int(action[1]) if is_move else None,
                "from_index": int(action[2]) if is_move else None,
                "to_column": int(action[3]) if is_move else None,
                "from_pile": piles[0],
                "to_pile": piles[1],
                "created_at": now,
            },
        )
        values: dict[str, Any] = {
            "version": row.version + 1,
            "snapshot": game.to_snapshot(),
            "moves": game.moves,
            "moves_made": row.moves_made + (1 if kind in MADE_KINDS else 0),
            "updated_at": now,
        }
        cursor.rows(_UPDATE_AFTER_ACTION, {"gid": row.id, **values})
        if game.won:
            won = {"status": "won", "finished_at": now, "saved": False}
            won["counted"] = _record_win(db, player_id, row, values["moves_made"], now)
            db.execute(update(_GAMES).where(_GAMES.c.id == row.id).values(**won))
            values.update(won)
        if row.race_id is not None:  # a shared deal: tell the race (app/services/race.py)
            report_progress(
                db,
                game_id=row.id,
                variant=row.variant,
                deal=row.deal,
                created_at=row.created_at,
                game=game,
                assisted=bool(row.assisted),
                moves_made=values["moves_made"],
                version=values["version"],
                now=now,
            )
        state = game_state(SimpleNamespace(**{**found, **values}), game)
        return replace(state, previous=previous) if with_change else state


def _record_win(db: Session, player_id: str, row: Any, moves_made: int, now: datetime) -> bool:
    """Count a win in the statistics; returns the game's new ``counted`` flag. Only an
    unassisted win may set the best time and the fewest moves (moves made)."""
    settings = db.get(PlayerSettings, player_id)
    if settings is None or not settings.record_stats:
        return bool(row.counted)
    stats = stats_row(db, player_id, row.variant)
    if not row.counted:
        stats.started += 1
    seconds = max(0, int((now - row.created_at).total_seconds()))
    stats.won += 1
    stats.current_streak += 1
    stats.best_streak = max(stats.best_streak, stats.current_streak)
    if not row.assisted:
        if stats.best_time_seconds is None or seconds < stats.best_time_seconds:
            stats.best_time_seconds = seconds
        if stats.fewest_moves is None or moves_made < stats.fewest_moves:
            stats.fewest_moves = moves_made
    stats.last_played_at = now
    add_event(
        db,
        player_id,
        row.variant,
        "win",
        game_id=row.id,
        deal_number=row.deal_number,
        moves=moves_made,
        seconds=seconds,
        at=now,
    )
    db.flush()
    return True


def move(
    db: Session,
    player_id: str,
    game_id: str,
    from_column: int,
    from_index: int,
    to_column: int,
    expected_version: int | None = None,
    from_pile: str = "column",
    to_pile: str = "column",
) -> GameState:
    action: Action = ("move", from_column, from_index, to_column, from_pile, to_pile)
    return act(db, player_id, game_id, action, expected_version)


def deal(
    db: Session, player_id: str, game_id: str, expected_version: int | None = None
) -> GameState:
    return act(db, player_id, game_id, ("deal",), expected_version)


def undo(
    db: Session, player_id: str, game_id: str, expected_version: int | None = None
) -> GameState:
    return act(db, player_id, game_id, ("undo",), expected_version)


def redo(
    db: Session, player_id: str, game_id: str, expected_version: int | None = None
) -> GameState:
    return act(db, player_id, game_id, ("redo",), expected_version)


def action_log(db: Session, player_id: str, game_id: str) -> list[Action]:
    """The logged actions of the player's game, in order (for replays and checks)."""
    with read_tx(db):
        load_game(db, player_id, game_id)
        rows = db.execute(
            select(MoveLog).where(MoveLog.game_id == game_id).order_by(MoveLog.seq)
        ).scalars()
        return [logged_action(r) for r in rows]
