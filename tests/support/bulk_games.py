"""Many finished games for one player, written straight to the database (issue 39: a data
file of 1,000 finished games of ~90 actions must import): each is ``WIN_DEAL`` won by
``WIN_LINE`` with 37 undo/redo pairs after its deal (91 actions), with its move log, start and
win results, as the game routes would have left them, in a fraction of their time."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, insert

from app.db.models import GameRow, MoveLog, StatEvent
from app.engine import Action, Game, parse_deal
from tests.support.deals import WIN_DEAL, WIN_LINE

LINE: list[Action] = [
    WIN_LINE[0],
    *[a for _ in range(37) for a in (("undo",), ("redo",))],
    *WIN_LINE[1:],
]


def _log_row(game_id: str, player_id: str, seq: int, action: Action, at: datetime) -> Any:
    move = action[0] == "move"
    return {
        "game_id": game_id,
        "player_id": player_id,
        "seq": seq,
        "kind": action[0],
        "from_column": action[1] if move else None,
        "from_index": action[2] if move else None,
        "to_column": action[3] if move else None,
        "from_pile": None,
        "to_pile": None,
        "created_at": at,
    }


def add_finished_games(engine: Engine, player_id: str, count: int) -> None:
    """``count`` won games of ``player_id`` (whose row exists), ``len(LINE)`` actions each."""
    game = Game.new("scorpion", parse_deal(WIN_DEAL, "scorpion"))
    for action in LINE:
        game.apply(action)
    assert game.won
    snapshot, made = game.to_snapshot(), sum(a[0] in ("move", "deal") for a in LINE)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    games, logs, events = [], [], []
    for n in range(count):
        gid = uuid.uuid4().hex[:22]
        began = start + timedelta(hours=n)
        ended = began + timedelta(seconds=2 * len(LINE))
        games.append(
            {
                "id": gid,
                "player_id": player_id,
                "variant": "scorpion",
                "deal_number": None,
                "deal": WIN_DEAL,
                "status": "won",
                "snapshot": snapshot,
                "version": len(LINE) + 1,
                "moves": game.moves,
                "moves_made": made,
                "saved": False,
                "assisted": False,
                "counted": True,
                "created_at": began,
                "updated_at": ended,
                "finished_at": ended,
            }
        )
        logs += [
            _log_row(gid, player_id, seq, a, began + timedelta(seconds=2 * seq, milliseconds=seq))
            for seq, a in enumerate(LINE, start=1)
        ]
        common = {
            "player_id": player_id,
            "game_id": gid,
            "variant": "scorpion",
            "deal_number": None,
        }
        events.append({**common, "kind": "start", "moves": None, "seconds": None, "at": began})
        events.append({**common, "kind": "win", "moves": made, "seconds": 182, "at": ended})
    with engine.begin() as conn:
        conn.execute(insert(GameRow), games)
        for at in range(0, len(logs), 10_000):
            conn.execute(insert(MoveLog), logs[at : at + 10_000])
        conn.execute(insert(StatEvent), events)
