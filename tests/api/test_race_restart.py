"""Restarting a game on a shared deal keeps its race entry (issue 34): the restart re-deals the
same deal and the same attempt goes on (docs/rules.md: rankings count moves made, undone ones
included, so exploring costs moves; a restart is every step undone at once). The entry is not
given up, is still the ranked one, counts the moves made before the restart, keeps its clock,
and a win after it is ranked with every move made, checked by replaying each game's log. Through
the JSON API and the play page, on a challenge and a daily deal, with "save games" on and off."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.engine import Action, Game, parse_deal
from app.services import days
from tests.support.api_client import Player
from tests.support.deals import WIN_DEAL, WIN_LINE, set_daily_deal

pytestmark = pytest.mark.usefixtures("configured")


def play_line(p: Player, gid: str, line: list[Action]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for action in line:
        r = p.apply(gid, action)
        assert r.status_code == 200, (action, r.text)
        body = r.json()
    return body


def challenge(a: Player) -> str:
    g = a.new_game(deal=WIN_DEAL)
    r = a.post(f"/api/games/{g['id']}/challenge")
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def my_side(p: Player, token: str) -> dict[str, Any]:
    sides = [s for s in p.get(f"/api/challenges/{token}").json()["sides"] if s["you"]]
    assert len(sides) == 1, sides  # one entry: the restart is no second attempt
    return dict(sides[0])


def started_at(engine: Engine, gid: str) -> datetime:
    with engine.connect() as conn:
        (at,) = conn.execute(text("SELECT created_at FROM games WHERE id = :id"), {"id": gid}).one()
    return datetime.fromisoformat(at) if isinstance(at, str) else at


@pytest.mark.parametrize("save_games", [True, False], ids=["saving", "not-saving"])
def test_a_restarted_challenge_game_keeps_its_entry_and_its_moves(
    app: FastAPI, engine: Engine, save_games: bool
) -> None:
    a, b = Player(app), Player(app)
    token = challenge(a)
    if not save_games:
        r = b.http.post(
            "/settings", data={"csrf_token": b.token, "record_stats": "on"}, follow_redirects=False
        )
        assert r.status_code == 303, r.text
    first = b.post(f"/api/challenges/{token}/games").json()
    detour = [("deal",), ("move", 0, 3, 4), ("undo",)]  # two moves made, one undone
    play_line(b, first["id"], detour)
    stats = b.get("/api/stats").json()["variants"]["scorpion"]  # (started at its first move)
    assert my_side(b, token)["moves"] == 2

    r = b.post(f"/api/games/{first['id']}/restart")
    assert r.status_code == 201, r.text
    game = r.json()
    assert game["id"] != first["id"]
    assert game["version"] == first["version"] + len(detour) + 1  # the attempt's version goes on
    assert game["columns"] == first["columns"] and game["stock"] == first["stock"]
    assert game["moves"] == 0 and game["moves_made"] == 2  # the attempt's moves made go on
    assert started_at(engine, game["id"]) == started_at(engine, first["id"])  # and its clock
    side = my_side(b, token)
    assert (side["status"], side["ranked"], side["moves"]) == ("playing", True, 2)
    assert side["game_id"] == game["id"]
    play_line(b, game["id"], WIN_LINE[:1])  # the race hears of the restarted game's moves
    assert my_side(b, token)["moves"] == 3
    assert b.apply(game["id"], ("undo",)).status_code == 200
    # the race hands back the running game: the restarted one
    again = b.post(f"/api/challenges/{token}/games")
    assert again.status_code == 200 and again.json()["id"] == game["id"]
    # one attempt: no new start, nothing given up
    assert b.get("/api/stats").json()["variants"]["scorpion"] == stats

    won = play_line(b, game["id"], WIN_LINE)
    assert won["status"] == "won" and won["moves_made"] == 3 + len(WIN_LINE)
    board = a.get(f"/api/challenges/{token}").json()["leaderboard"]
    assert board["rejected"] == 0
    won_rows = board["wins"] + board["unverified"]  # (a scripted win is too fast to rank)
    (mine,) = [e for e in won_rows if e["name"] == my_side(b, token)["name"]]
    assert mine["moves"] == 3 + len(WIN_LINE)  # every move made, checked by replaying both logs
    assert my_side(b, token)["status"] == "won"


def test_a_restart_after_the_win_is_a_replay_outside_the_attempt(app: FastAPI) -> None:
    """ "Play this deal again" on a won race game starts a game of its own: the won entry
    stays won, with its moves."""
    a, b = Player(app), Player(app)
    token = challenge(a)
    g = b.post(f"/api/challenges/{token}/games").json()
    assert play_line(b, g["id"], WIN_LINE)["status"] == "won"
    r = b.post(f"/api/games/{g['id']}/restart")
    assert r.status_code == 201 and r.json()["moves_made"] == 0
    side = my_side(b, token)
    assert (side["status"], side["moves"], side["game_id"]) == ("won", len(WIN_LINE), g["id"])


def test_a_restarted_daily_game_is_still_the_ranked_attempt_on_the_page(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = date(2031, 5, 23)
    noon = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    set_daily_deal("scorpion", day, WIN_DEAL)
    p = Player(app)
    first = p.post("/api/daily/scorpion").json()
    play_line(p, first["id"], WIN_LINE[:3])
    # the play page's Restart: a form post, answered with the new game's page
    r = p.http.post(
        f"/games/{first['id']}/restart", data={"csrf_token": p.token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    m = re.fullmatch(r"/games/([\w-]+)", r.headers["location"])
    assert m and m.group(1) != first["id"]
    page = p.http.get(r.headers["location"]).text
    assert 'id="race"' in page  # the race panel: still in the race
    assert 'data-race="1"' in page  # (the restart button's question says the attempt goes on)
    assert re.search(r'<dd id="moves">3</dd>', page)
    board = p.get("/api/daily/scorpion").json()["leaderboard"]
    mine = [e for e in board["others"] + board["wins"] + board["assisted"] if e["you"]]
    assert [(e["status"], e["moves"]) for e in mine] == [("playing", 3)]
    # restarted once more (the attempt's third game), then won
    play_line(p, m.group(1), WIN_LINE[:1])
    third = p.post(f"/api/games/{m.group(1)}/restart").json()
    assert third["moves_made"] == 4
    assert Game.replay("scorpion", parse_deal(WIN_DEAL), WIN_LINE).won
    assert play_line(p, third["id"], WIN_LINE)["status"] == "won"
    board = p.get("/api/daily/scorpion").json()["leaderboard"]
    assert board["rejected"] == 0
    won_rows = board["wins"] + board["unverified"]  # (a scripted win is too fast to rank)
    assert [(e["you"], e["moves"]) for e in won_rows] == [(True, 4 + len(WIN_LINE))]
