"""Challenges between friends: a link to play the deal of one of your games.

"Challenge" on a running or finished game makes a race for its deal with a random link
token (``/challenge/<token>``: 128 random bits, nothing derived from the deal or the game).
The challenger's game is its first entry; whoever opens the link plays the same deal in a
new game of their own, and the challenge page compares everyone's moves, time and suits.
A game from a daily deal keeps its deal number hidden in a challenge too.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GameRow, PlayerProfile, Race, RaceEntry, RankedAttempt, utcnow
from app.engine import Game

from .common import lock_player, read_tx, write_tx
from .errors import NotFound
from .game_core import clock_seconds
from .profiles import default_name
from .race import attempt_key, entry_status, new_race_id, play_race
from .race_progress import Progress, one_per_player, publish, shown_name
from .ratelimit import consume as count_request
from .types import GameState

TOKEN_BYTES = 16


@dataclass(frozen=True, slots=True)
class Challenge:
    token: str
    race_id: str
    variant: str
    deal_number: int | None  # None for a deal string or a daily deal
    created_at: datetime
    mine: bool  # the viewer made it


@dataclass(frozen=True, slots=True)
class Side:
    """One player's game on a challenge, side by side with the others'."""

    name: str
    you: bool
    challenger: bool
    ranked: bool
    moves: int
    seconds: int
    suits: int
    status: str  # playing | won | stuck | gave-up
    assisted: bool
    game_id: str | None  # only for the viewer's own games


def check_token(token: object) -> str:
    if not isinstance(token, str) or not 8 <= len(token) <= 64:
        raise NotFound("There is no such challenge.")
    return token


def create_challenge(db: Session, player_id: str, game_id: str) -> Challenge:
    """A challenge on the deal of the player's game ``game_id`` (the same one again if the
    player already made one for this game). Counts as an action for the rate limit."""
    count_request(db, player_id, "actions")
    with write_tx(db):
        if not isinstance(game_id, str) or not lock_player(db, player_id):
            raise NotFound()
        game = db.execute(
            select(GameRow).where(GameRow.id == game_id, GameRow.player_id == player_id)
        ).scalar_one_or_none()
        if game is None:
            raise NotFound()
        existing = db.execute(
            select(Race)
            .join(RaceEntry, RaceEntry.race_id == Race.id)
            .where(Race.kind == "challenge", RaceEntry.game_id == game.id)
            .order_by(Race.created_at)
            .limit(1)
        ).scalar_one_or_none()
        if existing is not None:  # the game is in a challenge already: the same link
            return _challenge(db, existing, player_id)
        now = utcnow()
        race = Race(
            id=new_race_id(),
            kind="challenge",
            variant=game.variant,
            day=None,
            deal_number=game.deal_number,
            deal=game.deal,
            token=secrets.token_urlsafe(TOKEN_BYTES),
            created_at=now,
        )
        db.add(race)
        db.flush()
        engine_game = Game.from_snapshot(game.snapshot)
        status = "won" if engine_game.won else ("stuck" if engine_game.stuck else "playing")
        entry = RaceEntry(
            race_id=race.id,
            player_id=player_id,
            game_id=game.id,
            ranked=True,
            status=status,
            moves=game.moves_made,
            suits=len(engine_game.completed),
            assisted=game.assisted,
            seconds=(
                clock_seconds(game.started_at, game.finished_at, now) if game.finished_at else None
            ),
            started_at=game.created_at,
            updated_at=now,
            finished_at=game.finished_at,
        )
        db.add(entry)
        # The challenger's ranked attempt, recorded like anyone's (it outlives a results delete).
        db.add(RankedAttempt(race_id=race.id, attempt_key=attempt_key(player_id, race.id)))
        if game.race_id is None:
            game.race_id = race.id
        db.flush()
        name, visible = shown_name(db, player_id)
        if visible:
            progress = Progress(
                entry.id, name, entry.moves, entry.suits, status, True, game.version
            )
            publish(db, race.id, progress)
        result = _challenge(db, race, player_id)
        return result


def _challenger(db: Session, race_id: str) -> tuple[int, str] | None:
    """(entry id, player id) of the challenge's first entry: the challenger's game."""
    row = db.execute(
        select(RaceEntry.id, RaceEntry.player_id)
        .where(RaceEntry.race_id == race_id)
        .order_by(RaceEntry.id)
        .limit(1)
    ).one_or_none()
    return (int(row[0]), str(row[1])) if row is not None else None


def _challenge(db: Session, race: Race, viewer: str | None) -> Challenge:
    assert race.token is not None
    first = _challenger(db, race.id)
    return Challenge(
        token=race.token,
        race_id=race.id,
        variant=race.variant,
        deal_number=race.deal_number,
        created_at=race.created_at,
        mine=viewer is not None and first is not None and first[1] == viewer,
    )


def _find(db: Session, token: str) -> Race:
    race = db.execute(
        select(Race).where(Race.kind == "challenge", Race.token == check_token(token))
    ).scalar_one_or_none()
    if race is None:
        raise NotFound("There is no such challenge.")
    return race


def get_challenge(db: Session, token: str, viewer: str | None = None) -> Challenge:
    with read_tx(db):
        return _challenge(db, _find(db, token), viewer)


def play_challenge(
    db: Session, player_id: str, token: str, *, again: bool = False
) -> tuple[GameState, bool]:
    """The player's game on the challenge's deal (running, or new). (game, whether new)."""
    with read_tx(db):
        race_id = _find(db, token).id
    return play_race(db, player_id, race_id, again=again)


def comparison(
    db: Session, token: str, viewer: str | None, now: datetime | None = None
) -> list[Side]:
    """Every player's game on the challenge side by side, each player once (their first game,
    or their newest once the first is given up: ``one_per_player``; players who stay off
    leaderboards appear only to themselves). The challenger comes first, then in joining
    order. Call ``leaderboard`` first: it makes the replay checks a win is shown with."""
    now = now or utcnow()
    with read_tx(db):
        race = _find(db, token)
        rows = db.execute(
            select(RaceEntry, GameRow, PlayerProfile)
            .outerjoin(GameRow, GameRow.id == RaceEntry.game_id)
            .outerjoin(PlayerProfile, PlayerProfile.player_id == RaceEntry.player_id)
            .where(RaceEntry.race_id == race.id)
            .order_by(RaceEntry.id)
        ).all()
        first = _challenger(db, race.id)
        sides: list[Side] = []
        rows = one_per_player(
            rows,
            lambda r: r[0].player_id,
            lambda r: int(r[0].id),
            lambda r: entry_status(r[0].status, r[1]),
        )
        for entry, game, profile in rows:
            you = viewer is not None and entry.player_id == viewer
            if profile is not None and not profile.on_leaderboards and not you:
                continue
            name = (profile.display_name if profile else None) or default_name(entry.player_id)
            if game is not None:
                end = game.finished_at or (game.abandoned_at or now)
                seconds = clock_seconds(game.started_at, end, now)
            else:
                seconds = entry.seconds or 0
            status = entry_status(entry.status, game)
            if game is not None and game.status == "won":
                # a win counts once the server's replay of the log confirmed it
                checked = entry.verified == "ok" and entry.verified_version == game.version
                status = "won" if checked else "rejected"
            sides.append(
                Side(
                    name=name,
                    you=you,
                    challenger=first is not None and entry.player_id == first[1],
                    ranked=entry.ranked,
                    moves=entry.moves,
                    seconds=seconds,
                    suits=entry.suits,
                    status=status,
                    assisted=bool(game.assisted) if game is not None else entry.assisted,
                    game_id=entry.game_id if you else None,
                )
            )
        return sides
