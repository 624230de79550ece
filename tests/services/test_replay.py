"""The replay of a won game at the service level, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app import services
from app.db.models import MoveLog
from app.engine import Game, deal_from_number
from app.engine.solver.catalogs import winning_line
from app.services.replay import replay_game


def test_a_log_with_steps_past_the_win_replays_up_to_the_win(db: Session) -> None:
    # In Wasp deal 33's line, three runs leave at one step (spades, then the diamonds and the
    # clubs it had covered). Before the engine removed a run left at the open end by another
    # run's removal, the covered runs stayed, and a player had to move them into an empty
    # column to win: logs kept then hold steps past today's win. Their replay stops at the win
    # instead of failing.
    line = winning_line("wasp", 33)
    assert line is not None
    player = f"svc-{uuid.uuid4().hex}"
    state = services.create_game(db, player, "wasp", deal_number=33)
    for action in line:
        state = services.act(db, player, state.id, action)
    assert state.status == "won"
    with db.begin():
        for seq in (len(line) + 1, len(line) + 2):
            db.add(
                MoveLog(
                    game_id=state.id,
                    player_id=player,
                    seq=seq,
                    kind="move",
                    from_column=0,
                    from_index=0,
                    to_column=1,
                )
            )
    replay = replay_game(db, player, state.id)
    assert len(replay.actions) == len(line)
    assert len(replay.frames) == len(line) + 1
    assert (
        replay.frames[-1] == Game.replay("wasp", deal_from_number(33, "wasp"), line).public_view()
    )
