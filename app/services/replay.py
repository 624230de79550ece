"""Replays: the sequence of public views a game went through.

Built from the game's deal and its move log with ``Game.replay`` semantics (one action at a
time from the opening layout, ``replay_positions``, which the review shares). A replay holds
only ``PublicView`` objects: a card that was face down at some step is ``None`` in that step's
view, as it was on the player's screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GameRow
from app.engine import Action, Game, PublicView, parse_deal

from .common import read_tx
from .errors import NotFound
from .games import action_log, get_game
from .types import GameState

T = TypeVar("T")


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
    frames, actions = replay_positions(state.variant, deal_text, actions, Game.public_view)
    return Replay(game=state, frames=frames, actions=actions)


def replay_positions(
    variant: str, deal_text: str, actions: list[Action], keep: Callable[[Game], T]
) -> tuple[list[T], list[Action]]:
    """``keep`` of each position 0..n the move log went through from the deal's opening
    layout, and the actions replayed. A won game's log stops at its win: a log kept before a
    run left at the open end by another run's removal went with it (it stayed, and was moved
    away later) holds steps past today's win."""
    game = Game.new(variant, parse_deal(deal_text, variant))
    kept = [keep(game)]
    for k, action in enumerate(actions):
        if game.won:
            return kept, actions[:k]
        game.apply(action)
        kept.append(keep(game))
    return kept, actions
