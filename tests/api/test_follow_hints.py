"""Hints you can follow to the end (issue 40), through the JSON API on SQLite and PostgreSQL.

Deals on which a fresh search at every position loops for ever (a move, then its exact
inverse): the server keeps the line it proved for the game (in the database, so any worker
continues it) and answers along it, so following ``"hint": true`` wins without ever coming
back to a position. The 50 deals per variant of ``tests/engine/test_solver_follow_hints.py``
cover the line-following itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from tests.support.api_client import Player

# (variant, deal number): each loops when every hint is a fresh search (measured).
LOOPING_DEALS = [
    ("scorpion", 32),
    ("scorpion-ii", 8),
    ("wasp-ii", 8),
    ("scorpion-head", 11),
    ("scorpion-tail", 3),
    ("how-they-run", 23),
]


def _seen(game: dict[str, Any]) -> str:
    keys = ("columns", "stock", "completed", "reserves", "cells")
    return json.dumps([game.get(k) for k in keys])


@pytest.mark.parametrize(("variant", "number"), LOOPING_DEALS)
def test_following_hints_wins_without_repeating_a_position(
    app: FastAPI, engine: Engine, variant: str, number: int
) -> None:
    p = Player(app)
    game = p.new_game(variant=variant, deal_number=number)
    gid = game["id"]
    seen = {_seen(game)}
    for _ in range(1000):
        r = p.post(f"/api/games/{gid}/analysis", {"hint": True})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["verdict"] == "win" and body["hint"] is not None, body
        if body["hint"] == {"deal": True}:
            moved = p.post(f"/api/games/{gid}/deal")
        else:
            moved = p.post(f"/api/games/{gid}/moves", body["hint"])
        assert moved.status_code == 200, moved.text
        game = moved.json()
        key = _seen(game)
        assert key not in seen, f"{variant} deal {number}: a position came back"
        seen.add(key)
        if game["status"] == "won":
            break
    else:
        pytest.fail("1,000 hints did not win")
    with engine.connect() as conn:  # the line was kept in the database, not in a process
        kept = conn.execute(
            text("SELECT count(*) FROM solver_lines WHERE game_id = :g"), {"g": gid}
        ).scalar_one()
    assert kept == 1


def test_the_kept_line_is_never_sent(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(variant="scorpion-head", deal_number=11)
    r = p.post(f"/api/games/{g['id']}/analysis", {"hint": True})
    assert r.status_code == 200
    assert set(r.json()) == {"verdict", "seconds", "hint", "version"}
    fields = {"from_column", "from_index", "to_column", "from_pile", "to_pile", "deal"}
    assert set(r.json()["hint"]) <= fields
