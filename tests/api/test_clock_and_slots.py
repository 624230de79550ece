"""Your game in progress is yours (issue 41; API.md "Extensions (the clock, the coach)"), on
SQLite and PostgreSQL: starting the daily deal or a challenge leaves the saved game of the
variant as it was (races keep their own slot); a dealt layout nobody touched is not a game
yet (replacing it counts neither a start nor an abandonment); the game's ``seconds`` start
at its first move."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.db.models import utcnow
from tests.support.api_client import KNOWN_WIN, Player


def _stats(p: Player, variant: str = "scorpion") -> dict[str, Any]:
    return dict(p.get("/api/stats").json()["variants"][variant])


def _game(p: Player, gid: str) -> dict[str, Any]:
    r = p.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_the_daily_deal_leaves_the_game_in_progress_as_it_was(app: FastAPI) -> None:
    p = Player(app)
    mine = p.new_game(deal_number=5)
    played = p.first_step(mine["id"])
    r = p.post("/api/daily/scorpion")
    assert r.status_code in (200, 201), r.text
    daily = r.json()
    assert daily["id"] != mine["id"]
    p.first_step(daily["id"])  # the daily game started too
    # The game in progress is still there, unchanged and not given up.
    again = _game(p, mine["id"])
    assert again["status"] == "playing" and again["version"] == played["version"]
    assert again["stock"] == played["stock"]
    s = _stats(p)
    assert s["abandoned"] == 0 and s["started"] == 2 and s["current_streak"] == 0
    # It can still be played on; and a new game of the variant gives it up, not the daily.
    assert p.post(f"/api/games/{mine['id']}/undo").status_code == 200
    p.first_step(p.new_game(deal_number=6)["id"])
    assert _stats(p)["abandoned"] == 1
    assert _game(p, daily["id"])["status"] == "playing"
    assert p.post("/api/daily/scorpion").json()["id"] == daily["id"]  # still running


def test_a_challenge_leaves_the_game_in_progress_as_it_was(app: FastAPI) -> None:
    host, guest = Player(app), Player(app)
    shared = host.new_game(deal_number=9)
    host.first_step(shared["id"])
    token = host.post(f"/api/games/{shared['id']}/challenge").json()["token"]
    mine = guest.new_game(deal_number=11)
    guest.first_step(mine["id"])
    r = guest.post(f"/api/challenges/{token}/games")
    assert r.status_code == 201, r.text
    guest.first_step(r.json()["id"])
    assert _game(guest, mine["id"])["status"] == "playing"
    assert _stats(guest)["abandoned"] == 0
    # The host's own new game leaves their challenge game (its own slot) alone too.
    host.first_step(host.new_game(deal_number=12)["id"])
    assert _game(host, shared["id"])["status"] == "playing"
    assert _stats(host)["abandoned"] == 0


def test_layouts_nobody_touched_count_nothing(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    for n in (21, 22, 23):
        p.new_game(deal_number=n)
    p.new_game(variant="wasp", deal_number=21)
    g = p.new_game(deal_number=24)
    p.post(f"/api/games/{g['id']}/restart")
    for variant in ("scorpion", "wasp"):
        s = _stats(p, variant)
        assert (s["started"], s["abandoned"], s["won"]) == (0, 0, 0), (variant, s)
    with engine.connect() as conn:
        events = conn.execute(
            text("SELECT count(*) FROM stat_events WHERE player_id = :p"), {"p": p.id}
        ).scalar_one()
    assert events == 0
    # The first move makes it a game: one start; replacing it then is an abandonment.
    h = p.new_game(deal_number=25)
    p.first_step(h["id"])
    assert (_stats(p)["started"], _stats(p)["abandoned"]) == (1, 0)
    p.new_game(deal_number=26)
    assert (_stats(p)["started"], _stats(p)["abandoned"]) == (1, 1)


def test_seconds_stand_at_zero_until_the_first_move(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal_number=31)
    assert g["seconds"] == 0
    # The player is away for ten minutes before the first move: the clock does not run.
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE games SET created_at = :t WHERE id = :g"),
            {"t": utcnow() - timedelta(minutes=10), "g": g["id"]},
        )
    assert _game(p, g["id"])["seconds"] == 0
    first = p.first_step(g["id"])
    assert first["seconds"] == 0
    time.sleep(1.1)
    later = _game(p, g["id"])["seconds"]
    assert 1 <= later < 60
    # The clock runs from the first move (moved back here, as if played a while ago).
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE games SET started_at = :t WHERE id = :g"),
            {"t": utcnow() - timedelta(seconds=95), "g": g["id"]},
        )
    assert 95 <= _game(p, g["id"])["seconds"] < 160


def test_a_solver_question_starts_the_game(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    r = p.post(f"/api/games/{g['id']}/analysis")
    assert r.status_code == 200 and r.json()["verdict"] == "win", r.text
    assert (_stats(p)["started"], _stats(p)["abandoned"]) == (1, 0)
    with engine.connect() as conn:
        started = conn.execute(
            text("SELECT started_at FROM games WHERE id = :g"), {"g": g["id"]}
        ).scalar_one()
    assert started is not None
    p.new_game(deal_number=41)  # the asked-about game was a game: given up
    assert (_stats(p)["started"], _stats(p)["abandoned"]) == (1, 1)
