"""Replays: the sequence of public views a game went through.

Built from the game's deal and its move log with ``Game.replay`` semantics (one action at a
time from the opening layout). Only ``PublicView`` objects leave this module: a card that was
face down at some step is ``None`` in that step's view, as it was on the player's screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GameRow
from app.engine import Action, Game, PublicView, parse_deal

from .common import read_tx
from .errors import NotFound
from .games import action_log, get_game
from .types import GameState


@dataclass(frozen=True, slots=True)
class Replay:
    game: GameState
    frames: list[PublicView]  # frames[0] is the opening layout, frames[k] after action k
    actions: list[Action]  # the step that led to each frame after the first


def replay_game(db: Session, player_id: str, game_id: str) -> Replay:
    """Every public view of the player's game, in order: a won one, one given up, or one in
    progress (issue 40: its review is shown beside it). Only what the player saw is shown.

    ``NotFound`` for a game that is missing or someone else's.
    """
    state = get_game(db, player_id, game_id)
    actions = action_log(db, player_id, game_id)
    with read_tx(db):
        deal_text = db.execute(
            select(GameRow.deal).where(GameRow.id == game_id, GameRow.player_id == player_id)
        ).scalar_one_or_none()
    if deal_text is None:
        raise NotFound()
    game = Game.new(state.variant, parse_deal(deal_text, state.variant))
    frames = [game.public_view()]
    for k, action in enumerate(actions):
        if game.won:
            # A log kept before a run left at the open end by another run's removal went with
            # it (it stayed, and was moved away later) holds steps past today's win: stop here.
            actions = actions[:k]
            break
        game.apply(action)
        frames.append(game.public_view())
    return Replay(game=state, frames=frames, actions=actions)
