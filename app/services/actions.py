"""A player's action on a game (a move, the deal, undo, redo): the hot path of the site.

One transaction per action, the rate-limit count included (``counted_connection``: a Core
connection of the session's engine, no ORM unit of work). Its statements (the player's lock
on PostgreSQL, the count, the locked read of the game, the move log's insert, the game's
update) run on the driver's cursor (``app.db.fast``). Only the rare steps that touch the
statistics (a win) or a race (a shared deal) use an ORM session, joined to that transaction.

The engine's state of each game this process last wrote is kept (``_RECENT``): the next
action on it takes the ``Game`` object instead of parsing the snapshot again, when the row
still holds exactly the snapshot it was written with (another worker's write, or a rollback,
simply misses). An object is taken out while an action uses it, and put back only after its
transaction committed, so no two requests ever share one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import Connection, Table, update
from sqlalchemy.orm import Session

from app import observability
from app.db.fast import Cursor, Fast
from app.db.models import GameRow, MoveLog, PlayerSettings, utcnow
from app.engine import Action, EngineError, Game

from .common import add_event, stats_row
from .errors import ActionRefused, InvalidRequest, NotFound, ServiceError, VersionConflict
from .game_core import begin, clock_seconds, game_state, shown_view
from .players import get_display
from .race import report_progress
from .ratelimit import counted_connection
from .types import GameState

ACTION_KINDS = ("move", "deal", "undo", "redo")
MADE_KINDS = ("move", "deal")  # the actions moves made counts (undo and redo are not)
_GAMES = cast(Table, GameRow.__table__)
_ACTIONS = cast(Table, MoveLog.__table__)
# An action's three statements, on the driver's cursor (``app.db.fast``).
_GAME_COLUMNS = ", ".join(c.name for c in _GAMES.columns)
_SELECT = f"SELECT {_GAME_COLUMNS} FROM games WHERE id = :gid AND player_id = :pid"
SELECT_GAME = Fast(_SELECT, columns=list(_GAMES.columns))  # (the play page's read)
_SELECT_FOR_ACTION = Fast(_SELECT, postgres=_SELECT + " FOR UPDATE", columns=list(_GAMES.columns))
_ACTION_COLUMNS: tuple[str, ...] = ("game_id", "player_id", "seq", "kind", "from_column")
_ACTION_COLUMNS += ("from_index", "to_column", "from_pile", "to_pile", "created_at")
_INSERT_ACTION = Fast(
    f"INSERT INTO game_actions ({', '.join(_ACTION_COLUMNS)}) "
    f"VALUES ({', '.join(':' + c for c in _ACTION_COLUMNS)})",
    binds={"created_at": _ACTIONS.c.created_at.type},
)
_UPDATE_AFTER_ACTION = Fast(
    "UPDATE games SET version = :version, snapshot = :snapshot, moves = :moves, "
    "moves_made = :moves_made, updated_at = :updated_at, started_at = :started_at "
    "WHERE id = :gid",
    binds={"updated_at": _GAMES.c.updated_at.type, "started_at": _GAMES.c.started_at.type},
)

_RECENT: OrderedDict[str, tuple[str, Game]] = OrderedDict()
_RECENT_KEPT = 1024  # games; a few KB each
_RECENT_LOCK = threading.Lock()


def _take_game(game_id: str, snapshot: str) -> Game:
    """The game of ``snapshot``: the object kept from this process's last write of it when
    that wrote exactly ``snapshot``, else parsed."""
    with _RECENT_LOCK:
        kept = _RECENT.pop(game_id, None)
    if kept is not None and kept[0] == snapshot:
        return kept[1]
    return Game.from_snapshot(snapshot)


def _keep_game(game_id: str, snapshot: str, game: Game) -> None:
    """Keep ``game`` (whose committed snapshot is ``snapshot``) for the next action."""
    with _RECENT_LOCK:
        _RECENT[game_id] = (snapshot, game)
        if len(_RECENT) > _RECENT_KEPT:
            _RECENT.popitem(last=False)


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
    db: Session | Connection,
    player_id: str,
    game_id: str,
    action: Action,
    expected_version: int | None = None,
    *,
    with_change: bool = False,
    with_display: bool = False,
) -> GameState:
    """Apply one action (``("move", a, i, b)``, ``("deal",)``, ``("undo",)``, ``("redo",)``).

    One transaction on ``db``'s engine (or on ``db`` itself, a connection: the event loop's,
    ``app.db.session.loop_connection``), the rate-limit count included
    (``counted_connection``; ``db``'s own transaction, if any, is ended first). Order of
    checks: the action must be one (``InvalidRequest``), the game must be this player's
    (``NotFound``), then ``expected_version`` must be current (``VersionConflict``), then the
    rules (``ActionRefused``). On any error nothing but the count changes. A move costs the
    same at step 300 as at step 10. ``with_change``: the returned state carries the view before the
    action (``previous``), and a refusal the game as it stands (``current``); ``with_display``
    (a page answering a form): a refusal also the player's display settings (``display``),
    read in the same transaction.
    """
    with counted_connection(db, player_id) as (conn, known):
        action = _check_action(action)
        if not known or not isinstance(game_id, str) or not game_id or len(game_id) > 64:
            raise NotFound()
        state, snapshot, game = _apply(
            conn, player_id, game_id, action, expected_version, with_change, with_display
        )
    _keep_game(state.id, snapshot, game)  # committed
    return state


def _apply(
    conn: Connection,
    player_id: str,
    game_id: str,
    action: Action,
    expected_version: int | None,
    with_change: bool,
    with_display: bool = False,
) -> tuple[GameState, str, Game]:
    """The action inside ``act``'s transaction: the state after it, the snapshot written
    and the game."""
    cursor = Cursor(conn)
    found = cursor.one_or_none(_SELECT_FOR_ACTION, {"gid": game_id, "pid": player_id})
    if found is None:
        raise NotFound()
    row = SimpleNamespace(**found)
    game = _take_game(row.id, row.snapshot)
    previous = shown_view(row.id, row.snapshot, game) if with_change else None
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
        if with_display:
            exc.display = get_display(conn, player_id)
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
    snapshot = game.to_snapshot()
    values: dict[str, Any] = {
        "version": row.version + 1,
        "snapshot": snapshot,
        "moves": game.moves,
        "moves_made": row.moves_made + (1 if kind in MADE_KINDS else 0),
        "updated_at": now,
        # (the first action starts the game's clock: ``game_core.begin``, in ``_rare_steps``)
        "started_at": row.started_at or now,
    }
    cursor.rows(_UPDATE_AFTER_ACTION, {"gid": row.id, **values})
    if game.won or row.race_id is not None or row.started_at is None:
        _rare_steps(conn, player_id, row, game, values, now)
    state = game_state(SimpleNamespace(**{**found, **values}), game, previous)
    return state, snapshot, game


def _rare_steps(
    conn: Connection,
    player_id: str,
    row: Any,
    game: Game,
    values: dict[str, Any],
    now: datetime,
) -> None:
    """The game's first action (its start: ``game_core.begin``), a win (the statistics) and a
    shared deal's progress (its race), through an ORM session joined to the action's
    transaction (``values``: the game's new columns, updated)."""
    db = Session(bind=conn, join_transaction_mode="rollback_only")
    try:
        counted = bool(row.counted)
        if row.started_at is None:
            _, counted = begin(db, player_id, row, now)
            if counted != bool(row.counted):
                db.execute(update(_GAMES).where(_GAMES.c.id == row.id).values(counted=counted))
                values["counted"] = counted
        if game.won:
            won = {"status": "won", "finished_at": now, "saved": False}
            won["counted"] = _record_win(
                db, player_id, row, values["moves_made"], now, values["started_at"], counted
            )
            db.execute(update(_GAMES).where(_GAMES.c.id == row.id).values(**won))
            values.update(won)
        if row.race_id is not None:  # a shared deal: tell the race (app/services/race.py)
            report_progress(
                db,
                game_id=row.id,
                variant=row.variant,
                deal=row.deal,
                started_at=values["started_at"],
                game=game,
                assisted=bool(row.assisted),
                moves_made=values["moves_made"],
                version=values["version"],
                now=now,
            )
        db.flush()
    finally:
        db.close()


def _record_win(
    db: Session,
    player_id: str,
    row: Any,
    moves_made: int,
    now: datetime,
    started_at: datetime,
    counted: bool,
) -> bool:
    """Count a win in the statistics; returns the game's new ``counted`` flag. Only an
    unassisted win may set the best time (the game's clock: from its first move or solver
    question) and the fewest moves (moves made)."""
    settings = db.get(PlayerSettings, player_id)
    if settings is None or not settings.record_stats:
        return counted
    stats = stats_row(db, player_id, row.variant)
    if not counted:
        stats.started += 1
    seconds = clock_seconds(started_at, now, now)
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
