"""Shared deals ("races"): the daily deal and challenges between friends.

A race holds a deal that several players play, each in a game of their own. A ``RaceEntry``
links a player's game to the race; the player's first game of a race is their ranked attempt,
later ones (replays) are unranked.

Progress (moves made, suits completed, won or stuck: never a card) is reported by the action path
(``app.services.games.act`` calls ``report_progress`` inside the action's transaction) and
published to every worker: on PostgreSQL with ``pg_notify`` (delivered when the transaction
commits), on SQLite as a row of ``race_events`` that each worker polls
(``app/services/race_hub.py``).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import (
    GameRow,
    MoveLog,
    Race,
    RaceEntry,
    RankedAttempt,
    utcnow,
)
from app.engine import Action, DealError, EngineError, Game, parse_deal

from . import clients
from .common import ensure_player, insert_ignore, read_tx, write_tx
from .days import daily_secret, today
from .entries import entry_rows
from .errors import NotFound
from .game_core import game_state, logged_action, start_game
from .profiles import default_name
from .race_progress import Progress, publish, seat_of, shown_name
from .ratelimit import consume as count_request
from .types import GameState


def new_race_id() -> str:
    return secrets.token_hex(16)


# -- the move log, replayed by the server ------------------------------------------------------


def logged_actions(db: Session, game_id: str) -> list[Action]:
    out: list[Action] = []
    for r in db.execute(
        select(MoveLog).where(MoveLog.game_id == game_id).order_by(MoveLog.seq)
    ).scalars():
        out.append(logged_action(r))
    return out


def replay_log(db: Session, game_id: str, variant: str, deal: str) -> Game | None:
    """The game the move log of ``game_id`` gives from the deal, or None if it does not
    replay (an illegal or unknown action): the server's own account of a result."""
    replayed = replay_log_counted(db, game_id, variant, deal)
    return replayed[0] if replayed is not None else None


def replay_log_counted(
    db: Session, game_id: str, variant: str, deal: str
) -> tuple[Game, int] | None:
    """``replay_log`` and the moves made of the log (its moves and deals, undone ones
    included; undo and redo are not counted): what rankings compare."""
    try:
        layout = parse_deal(deal, variant)
        actions = logged_actions(db, game_id)
        game = Game.replay(variant, layout, actions)
        made = _made(actions)
        # A game restarted within its race goes on with the same attempt (``entry_of_restart``):
        # the moves made of the games it continues count too, each log replayed from the deal.
        row = db.get(GameRow, game_id)
        race_id = row.race_id if row is not None else None
        earlier, seen = (row.restarted_from if row is not None else None), {game_id}
        while race_id is not None and earlier is not None and earlier not in seen:
            seen.add(earlier)
            before = db.get(GameRow, earlier)
            if before is None or before.race_id != race_id:
                break
            actions = logged_actions(db, before.id)
            Game.replay(variant, layout, actions)
            made += _made(actions)
            earlier = before.restarted_from
    except (EngineError, DealError, ValueError, TypeError, KeyError):
        return None
    return game, made


def _made(actions: list[Action]) -> int:
    return sum(1 for a in actions if a[0] in ("move", "deal"))


# -- publishing progress -----------------------------------------------------------------------


def entry_status(entry_status: str, game: GameRow | None) -> str:
    if game is None:
        return status_of(entry_status, False, None)
    return status_of(entry_status, True, game.abandoned_at)


def status_of(entry_status: str, has_game: bool, abandoned_at: datetime | None) -> str:
    """An entry's status as shown: its game deleted or put aside counts as given up."""
    if not has_game or abandoned_at is not None:
        return "won" if entry_status == "won" else "gave-up"
    return entry_status


def report_progress(
    db: Session,
    *,
    game_id: str,
    variant: str,
    deal: str,
    started_at: datetime,
    game: Game,
    assisted: bool,
    moves_made: int,
    version: int,
    now: datetime,
) -> None:
    """Record a race game's new position (its moves made) in its entries and publish it (the
    caller's transaction: the action path). A win is checked by replaying the move log."""
    entries = list(db.execute(select(RaceEntry).where(RaceEntry.game_id == game_id)).scalars())
    if not entries:
        return
    won = game.won
    verified: tuple[Game, int] | None = None
    if won:
        verified = replay_log_counted(db, game_id, variant, deal)
    name, visible = shown_name(db, entries[0].player_id)
    for entry in entries:
        entry.moves = moves_made
        entry.suits = len(game.completed)
        entry.assisted = bool(assisted)
        entry.status = "won" if won else ("stuck" if game.stuck else "playing")
        entry.updated_at = now
        if won:
            entry.finished_at = now
            entry.seconds = max(0, int((now - started_at).total_seconds()))
            ok = verified is not None and verified[0].won
            entry.verified = "ok" if ok else "forged"
            entry.verified_moves = verified[1] if ok and verified else None
            entry.verified_version = version
        if visible:
            publish(
                db,
                entry.race_id,
                Progress(
                    entry.id,
                    name,
                    entry.moves,
                    entry.suits,
                    entry.status,
                    entry.ranked,
                    version,
                    seat_of(db, entry),
                ),
            )
    db.flush()


# -- restarting within a race ----------------------------------------------------------------


def entry_of_restart(db: Session, game: GameRow) -> RaceEntry | None:
    """The race entry a restart of ``game`` continues (inside the restart's transaction): the
    entry of an unfinished game on a shared deal. A restart there re-deals the same deal and
    the same attempt goes on (``continue_entry``): its moves made, clock and assistance carry
    over, as after undoing every step (docs/rules.md: exploring costs moves), so restarting is
    neither leaving the race nor a second attempt. The entry is let go of the game (its
    ``game_id`` cleared) until the new game takes it. None for any other game."""
    if game.race_id is None or game.status != "playing" or game.abandoned_at is not None:
        return None
    entry = db.execute(select(RaceEntry).where(RaceEntry.game_id == game.id)).scalars().first()
    if entry is None or entry.status == "won":
        return None
    entry.game_id = None
    db.flush()
    return entry


def continue_entry(db: Session, entry: RaceEntry, row: GameRow) -> None:
    """The restarted game ``row`` takes over ``entry`` (``entry_of_restart``), and the race
    hears of it: the same entry, playing, its moves made as before, no run completed yet."""
    entry.game_id = row.id
    entry.status = "playing"
    entry.moves = row.moves_made
    entry.suits = 0
    entry.updated_at = row.updated_at
    db.flush()
    name, visible = shown_name(db, entry.player_id)
    if visible:
        progress = Progress(
            entry.id, name, entry.moves, 0, "playing", entry.ranked, row.version, seat_of(db, entry)
        )
        publish(db, entry.race_id, progress)


# -- joining a race ----------------------------------------------------------------------------


def attempt_key(player_id: str, race_id: str) -> str:
    """The keyed hash that records a player's ranked attempt at a race without naming them
    (HMAC-SHA256 with the daily secret): it outlives a results delete."""
    import hashlib
    import hmac

    mac = hmac.new(daily_secret(), f"ranked|{race_id}|{player_id}".encode(), hashlib.sha256)
    return mac.hexdigest()


def may_rank(db: Session, race: Race, player_id: str) -> bool:
    """Whether a player's new entry on ``race`` is their ranked attempt (inside the play
    transaction): not on a daily deal whose day is over, not if a ranked attempt of theirs was
    ever recorded (even if they deleted their results since), and not past
    ``RANKED_ENTRIES_PER_ADDRESS`` ranked entries from their client address."""
    if race.kind == "daily" and race.day != today():
        return False
    key = attempt_key(player_id, race.id)
    if db.get(RankedAttempt, (race.id, key)) is not None:
        return False
    since = 0
    if race.kind == "daily" and race.day is not None:
        since = int(datetime.combine(race.day, datetime.min.time(), UTC).timestamp())
    if not clients.may_rank(db, race.id, since=since):
        return False
    insert_ignore(db, RankedAttempt, race_id=race.id, attempt_key=key, created_at=utcnow())
    return True


def _running_game(db: Session, entries: list[RaceEntry]) -> GameRow | None:
    for entry in reversed(entries):
        if entry.game_id is None:
            continue
        g = db.get(GameRow, entry.game_id)
        if g is not None and g.status == "playing" and g.abandoned_at is None:
            return g
    return None


def play_race(
    db: Session, player_id: str, race_id: str, *, again: bool = False
) -> tuple[GameState, bool]:
    """The player's game on the race's deal: their running one (``again`` False), else a new
    one (ranked if it is their first of this race). Returns (game, whether it is new)."""
    count_request(db, player_id, "games")
    with write_tx(db):
        settings = ensure_player(db, player_id)
        race = db.get(Race, race_id)
        if race is None:
            raise NotFound("There is no such shared deal.")
        entries = list(
            db.execute(
                select(RaceEntry)
                .where(RaceEntry.race_id == race_id, RaceEntry.player_id == player_id)
                .order_by(RaceEntry.id)
            ).scalars()
        )
        running = None if again else _running_game(db, entries)
        if running is not None:
            return game_state(running), False
        number = race.deal_number if race.kind == "challenge" else None
        row, game = start_game(
            db, player_id, settings, race.variant, number, race.deal, None, race_id=race.id
        )
        entry = RaceEntry(
            race_id=race.id,
            player_id=player_id,
            game_id=row.id,
            ranked=not entries and may_rank(db, race, player_id),
            status="playing",
            moves=0,
            suits=0,
            assisted=False,
            started_at=row.created_at,
            updated_at=row.created_at,
        )
        db.add(entry)
        db.flush()
        name, visible = shown_name(db, player_id)
        if visible:
            seat = entries[0].id if entries else entry.id
            progress = Progress(entry.id, name, 0, 0, "playing", entry.ranked, row.version, seat)
            publish(db, race.id, progress)
        state = game_state(row, game)
        return state, True


def standings(db: Session, race_id: str) -> list[Progress]:
    """Everyone's progress in the race (visible players only), first entry first."""
    with read_tx(db):
        rows = db.execute(entry_rows(race_id, RaceEntry.ranked)).all()
        out: list[Progress] = []
        seats: dict[str, int] = {}  # each player's first entry (rows come in entry order)
        for r in rows:
            seat = seats.setdefault(r.player_id, r.id)
            if r.on_leaderboards is False:
                continue
            name = r.display_name or default_name(r.player_id)
            status = status_of(r.status, r.game_id is not None, r.abandoned_at)
            version = r.version if r.game_id is not None else 0
            out.append(Progress(r.id, name, r.moves, r.suits, status, r.ranked, version, seat))
        return out
