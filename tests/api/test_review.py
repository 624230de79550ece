"""The review of a game (issue 40): ``POST``/``GET /api/games/{id}/review`` on SQLite and
PostgreSQL. A winnable deal played into a loss (dealing the stock too early) has its losing
step marked; a won game is winnable all along; a game in progress is marked assisted; the
review is cached; another player's game is 404; a deal still secret (today's daily deal) is
refused until the day is over; CSRF as for every unsafe route."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.engine import Game, parse_deal
from app.engine.solver import analyse
from app.services import days
from tests.support.api_client import KNOWN_WIN, Player, assert_error
from tests.support.deals import WIN_DEAL, set_daily_deal

REVIEW_KEYS = {"state", "steps", "first_losing_step"}


def _wait_done(p: Player, gid: str, seconds: float = 90.0) -> dict[str, Any]:
    """Poll the review until it is done; every answer on the way is a well-formed one."""
    deadline = time.monotonic() + seconds
    while True:
        r = p.get(f"/api/games/{gid}/review")
        assert r.status_code == 200, r.text
        body = r.json()
        assert set(body) == REVIEW_KEYS
        assert body["state"] in ("working", "done")
        if body["state"] == "done":
            return dict(body)
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.2)


def _assisted(engine: Engine, gid: str) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(text("SELECT assisted FROM games WHERE id = :g"), {"g": gid}).scalar_one()
        )


def test_the_move_that_lost_a_winnable_game_is_found(app: FastAPI, engine: Engine) -> None:
    """A move, its undo, then the deal too early (lost: checked here with the solver), then
    one more move: positions 0-2 winnable, 3 and 4 lost, the losing step is 3."""
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    gid = g["id"]
    first = KNOWN_WIN["line"][0]
    assert p.apply(gid, first).status_code == 200
    assert p.post(f"/api/games/{gid}/undo").status_code == 200
    assert p.post(f"/api/games/{gid}/deal").status_code == 200
    local = Game.new("scorpion", parse_deal(KNOWN_WIN["deal"], "scorpion"))
    for action in ([*first], ["undo"], ["deal"]):
        local.apply(tuple(action))  # type: ignore[arg-type]
    assert analyse(local, 5.0).verdict == "loss"
    move = local.legal_moves()[0]
    assert p.move(gid, move.from_column, move.from_index, move.to_column).status_code == 200
    assert _assisted(engine, gid) is False
    assert p.get(f"/api/games/{gid}/review").status_code == 404  # none asked for yet

    r = p.post(f"/api/games/{gid}/review")
    assert r.status_code in (200, 202), r.text
    assert set(r.json()) == REVIEW_KEYS
    assert _assisted(engine, gid) is True  # a game in progress: the review is help
    body = _wait_done(p, gid)
    assert [s["step"] for s in body["steps"]] == [0, 1, 2, 3, 4]
    assert [s["verdict"] for s in body["steps"]] == ["win", "win", "win", "loss", "loss"]
    assert body["first_losing_step"] == 3
    # cached: asked again, it is done at once and the same
    again = p.post(f"/api/games/{gid}/review")
    assert again.status_code == 200 and again.json() == body


def test_a_won_game_is_winnable_all_along(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    for action in KNOWN_WIN["line"]:
        assert p.apply(g["id"], action).status_code == 200
    assert p.post(f"/api/games/{g['id']}/review").status_code in (200, 202)
    body = _wait_done(p, g["id"])
    assert len(body["steps"]) == len(KNOWN_WIN["line"]) + 1
    assert {s["verdict"] for s in body["steps"]} == {"win"}
    assert body["first_losing_step"] is None
    assert _assisted(engine, g["id"]) is False  # a finished game's review helps nobody play


def test_another_players_game_and_csrf(app: FastAPI) -> None:
    p, other = Player(app), Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert_error(other.post(f"/api/games/{g['id']}/review"), 404)
    assert_error(other.get(f"/api/games/{g['id']}/review"), 404)
    assert_error(p.post("/api/games/no-such-game/review"), 404)
    r = p.http.post(f"/api/games/{g['id']}/review")  # no CSRF token
    assert r.status_code == 403
    assert p.get(f"/api/games/{g['id']}/review").status_code == 404  # nothing started


def test_a_deal_still_secret_waits_until_the_day_is_over(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a day after every other test's daily deals, 2045-2099: a later daily deal of the same
    # cards would keep this one secret, rightly)
    when = date(2110, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    set_daily_deal("scorpion", when, WIN_DEAL)
    p = Player(app)
    r = p.post("/api/daily/scorpion")
    assert r.status_code in (200, 201), r.text
    gid = r.json()["id"]
    refused = p.post(f"/api/games/{gid}/review")
    assert "secret" in assert_error(refused, 422)
    assert p.get(f"/api/games/{gid}/review").status_code == 404
    # a challenge on today's daily deal: the friend's game is refused too
    made = p.post(f"/api/games/{gid}/challenge")
    assert made.status_code == 201, made.text
    friend = Player(app)
    joined = friend.post(f"/api/challenges/{made.json()['token']}/games")
    assert joined.status_code in (200, 201), joined.text
    assert "secret" in assert_error(friend.post(f"/api/games/{joined.json()['id']}/review"), 422)
    # the day is over: the deal is public, its review may start
    monkeypatch.setattr(days, "clock", lambda: noon + timedelta(days=1))
    assert p.post(f"/api/games/{gid}/review").status_code in (200, 202)
    assert _wait_done(p, gid)["steps"][0]["verdict"] == "win"


def test_a_game_that_went_on_is_reviewed_again_to_its_last_step(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    line = KNOWN_WIN["line"]
    for action in line[:3]:
        assert p.apply(g["id"], action).status_code == 200
    assert p.post(f"/api/games/{g['id']}/review").status_code in (200, 202)
    assert len(_wait_done(p, g["id"])["steps"]) == 4
    for action in line[3:5]:
        assert p.apply(g["id"], action).status_code == 200
    assert p.get(f"/api/games/{g['id']}/review").json()["state"] == "done"  # as it was
    assert p.post(f"/api/games/{g['id']}/review").status_code == 202
    body = _wait_done(p, g["id"])
    assert [s["verdict"] for s in body["steps"]] == ["win"] * 6
