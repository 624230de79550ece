"""Game services: one database transaction per player action.

Every function takes the request's ``Session`` and the player's id (from the signed cookie).
A game of another player is reported exactly like a missing one (``NotFound``).

Saved games and abandonment (decided; issue 41)
-----------------------------------------------
A player has at most one *current* game per variant and slot: the newest unfinished one of
their own games, and one per shared deal (a daily deal, a challenge: races keep their own
slot, ``game_core``). Starting a new game of a variant (a new deal, a deal by number or
string, or a restart) supersedes the previous current game of that slot if it is unfinished:
it is marked abandoned and counts as a loss for streaks (the current streak drops to 0).
Starting the daily deal or a challenge leaves the player's own game of the variant as it was.
A dealt layout nobody touched (no move, no deal, no solver question) is not a game yet:
replacing it counts neither a start nor an abandonment. With "save games" on, the current
game is the player's saved game of that variant (``resume_game`` opens it; their own game
before a shared deal's) and an abandoned game stays in the history, still reachable by its
id. With "save games" off, no game is offered for resuming and a superseded unfinished game
is deleted at once: it is not kept for later.

Statistics (decided)
--------------------
A game counts as a start at its first move (or deal) or solver question, when its clock
starts (numbered deals and deal strings alike); a restart is a new start once played. A win
adds to ``won`` and extends the current streak; an unassisted win may also set the best time
(the game's clock: from its first move or solver question to the win) and the fewest moves
(moves made: every move and deal performed, undone ones included). While "record
statistics" is off nothing is recorded; a game started while it was off (or whose start was
deleted with the results) counts its start when it is won with recording on, so
``won <= started``.

Assistance (decided, docs/rules.md)
-----------------------------------
Only help that reads hidden cards makes a game *assisted*: the solver's "is this still
winnable?" and solver hint (``app.services.analysis``). The plain hint, undo and redo do not,
and reading a game or its hints never writes anything. ``moves_made`` grows by one with every
move and deal performed (undo and redo add nothing); ``moves`` stays the engine's net count.
"""

from __future__ import annotations

from types import SimpleNamespace

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from app import observability
from app.db.models import GameRow, MoveLog, PlayerSettings
from app.engine import Action, Game

from .actions import SELECT_GAME, act
from .common import ensure_player, read_connection, read_one, read_tx
from .errors import InvalidRequest, NotFound
from .game_core import game_state, load_game, logged_action, start_game
from .new_deals import check_variant, resolve_deal, winnable_deal
from .players import get_display
from .race import continue_entry, entry_of_restart
from .ratelimit import counted_tx, rate_limits_on
from .types import Display, GameState, Hints

# -- reading ---------------------------------------------------------------------------------


def get_game(db: Session | Connection, player_id: str, game_id: str) -> GameState:
    """The player's game ``game_id``; ``NotFound`` if missing or someone else's. One read,
    on the driver's cursor of a Core connection (the play page's hot path): of ``db``'s
    engine, or ``db`` itself (the event loop's SQLite connection: one statement, atomic
    without a transaction of its own)."""
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise NotFound()
    found = read_one(db, SELECT_GAME, {"gid": game_id, "pid": player_id})
    if found is None:
        raise NotFound()
    return game_state(SimpleNamespace(**found))


def get_game_and_display(
    db: Session | Connection, player_id: str, game_id: str
) -> tuple[GameState, Display]:
    """``get_game`` and the player's display settings (``get_display``): the whole play
    page's one read, on one connection and in one transaction (with PostgreSQL)."""
    if isinstance(db, Connection):
        return get_game(db, player_id, game_id), get_display(db, player_id)
    with read_connection(db) as conn:
        return get_game(conn, player_id, game_id), get_display(conn, player_id)


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
    """The player's saved unfinished game of ``variant``, if saving is on and there is one:
    their own game, else the newest of a shared deal."""
    return next((g for g in saved_games(db, player_id) if g.variant == variant), None)


def saved_games(db: Session, player_id: str) -> list[GameState]:
    """The player's saved unfinished games, at most one per variant (their own game of the
    variant, else their newest on a shared deal: races keep their own slot), newest first."""
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
        chosen: dict[str, GameRow] = {}
        for r in rows:  # newest first: the first of each slot kind wins
            kept = chosen.get(r.variant)
            if kept is None or (kept.race_id is not None and r.race_id is None):
                chosen[r.variant] = r
        ordered = sorted(chosen.values(), key=lambda r: r.updated_at, reverse=True)
        return [game_state(r) for r in ordered]


def race_game_at_stake(db: Session, player_id: str, race_id: str) -> GameState | None:
    """The player's started, unfinished game on the shared deal ``race_id`` (its own slot),
    which playing that deal again gives up; None when there is none."""
    with read_tx(db):
        row = db.execute(
            select(GameRow)
            .where(
                GameRow.player_id == player_id,
                GameRow.race_id == race_id,
                GameRow.status == "playing",
                GameRow.abandoned_at.is_(None),
                GameRow.started_at.is_not(None),
            )
            .order_by(GameRow.updated_at.desc())
            .limit(1)
        ).scalar_one_or_none()
        return game_state(row) if row is not None else None


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
    """A new game with the same deal as ``game_id`` (a new start for the statistics). An
    unfinished game on a shared deal (a daily deal, a challenge) is restarted within its race:
    the new game continues the same entry, moves made, clock and assistance included, and is
    not a new start (``race.entry_of_restart``). One transaction, the rate-limit count
    included."""
    with counted_tx(db, player_id, "games") as known:
        if not known:
            raise NotFound()
        old = load_game(db, player_id, game_id, lock=True)
        settings = ensure_player(db, player_id)
        entry = entry_of_restart(db, old)
        row, game = start_game(
            db,
            player_id,
            settings,
            old.variant,
            old.deal_number,
            old.deal,
            old.id,
            old.difficulty,
            continues=old if entry is not None else None,
        )
        if entry is not None:
            continue_entry(db, entry, row)
        state = game_state(row, game)
        return state


# -- actions (``app.services.actions``) -------------------------------------------------


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
