"""Simultaneous actions on one game, over two uvicorn worker processes, are serialised by the
database (SQLite: BEGIN IMMEDIATE; PostgreSQL: row locks), on a fresh database of each kind.

- With an expected version, exactly one of N identical requests wins; the others get 409.
- Without one, each request is applied exactly once, in some order; the move log never forks
  (seq 1..n, unique, no gap) and the stored snapshot is the replay of the log.
"""

from __future__ import annotations

from typing import Any

from app.engine import deal_from_number, parse_deal
from tests.support.live import (
    LivePlayer,
    assert_log_consistent,
    at_once,
    stored_game,
)
from tests.support.server import LiveServer

N = 12
DEAL = 1234


def _step(player: LivePlayer, game: dict[str, Any]) -> dict[str, Any]:
    """One forward step chosen from the server's hints (a move, else the deal)."""
    hints = player.get(f"/api/games/{game['id']}/hints").json()
    if hints["moves"]:
        response = player.post(f"/api/games/{game['id']}/moves", hints["moves"][0])
    else:
        assert hints["can_deal"], "the test deal got stuck early"
        response = player.post(f"/api/games/{game['id']}/deal")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_expected_version_exactly_one_wins(shared_db_url: str, shared_server: LiveServer) -> None:
    server = shared_server
    player = LivePlayer(server.url)
    game = player.new_game(DEAL)
    gid, version = game["id"], game["version"]
    move = player.get(f"/api/games/{gid}/hints").json()["moves"][0]

    body = {**move, "version": version}
    responses = at_once([lambda: player.post(f"/api/games/{gid}/moves", body)] * N)
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] + [409] * (N - 1), codes
    for r in responses:
        assert r.headers["content-type"].startswith("application/json")
        if r.status_code == 409:
            assert isinstance(r.json()["detail"], str) and r.json()["detail"]
    winner = next(r.json() for r in responses if r.status_code == 200)
    assert winner["version"] == version + 1

    # The same for undo: one of N identical undos at the current version wins.
    responses = at_once(
        [lambda: player.post(f"/api/games/{gid}/undo", {"version": version + 1})] * N
    )
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] + [409] * (N - 1), codes

    stored = stored_game(shared_db_url, gid)
    assert [a for _, a in stored.log] == [
        ("move", move["from_column"], move["from_index"], move["to_column"]),
        ("undo",),
    ]
    assert_log_consistent(stored)
    final = player.get(f"/api/games/{gid}").json()
    assert final["version"] == version + 2
    assert final["columns"] == game["columns"]


def test_without_version_each_request_applied_once(
    shared_db_url: str, shared_server: LiveServer
) -> None:
    server = shared_server
    player = LivePlayer(server.url)
    opening = player.new_game(DEAL)
    gid = opening["id"]

    steps = 8
    game = opening
    for _ in range(steps):
        game = _step(player, game)
    advanced = game

    # `steps` concurrent undos: each one undoes one step, whatever the order.
    responses = at_once([lambda: player.post(f"/api/games/{gid}/undo")] * steps)
    assert [r.status_code for r in responses] == [200] * steps, [r.text for r in responses]
    assert sorted(r.json()["version"] for r in responses) == list(
        range(advanced["version"] + 1, advanced["version"] + steps + 1)
    )
    back = player.get(f"/api/games/{gid}").json()
    assert back["columns"] == opening["columns"] and back["stock"] == opening["stock"]
    assert back["version"] == advanced["version"] + steps
    assert not back["can_undo"]

    # And as many concurrent redos bring the advanced position back.
    responses = at_once([lambda: player.post(f"/api/games/{gid}/redo")] * steps)
    assert [r.status_code for r in responses] == [200] * steps, [r.text for r in responses]
    forward = player.get(f"/api/games/{gid}").json()
    assert forward["columns"] == advanced["columns"]
    assert forward["moves"] == advanced["moves"]

    # N identical moves without a version: each is applied once or refused (422), never
    # half-applied; every 200 is exactly one new row of the log.
    before = stored_game(shared_db_url, gid)
    move = player.get(f"/api/games/{gid}/hints").json()["moves"][0]
    responses = at_once([lambda: player.post(f"/api/games/{gid}/moves", move)] * N)
    codes = [r.status_code for r in responses]
    assert set(codes) <= {200, 422}, codes
    assert codes.count(200) >= 1
    after = stored_game(shared_db_url, gid)
    assert len(after.log) == len(before.log) + codes.count(200)
    assert after.log[: len(before.log)] == before.log, "the existing log was rewritten"
    replayed = assert_log_consistent(after)
    final = player.get(f"/api/games/{gid}").json()
    assert final["version"] == after.version
    view = replayed.public_view()
    assert (final["columns"], final["stock"], final["moves"]) == (
        view.columns,
        view.stock,
        view.moves,
    )


def test_concurrent_players_do_not_disturb_each_other(
    shared_db_url: str, shared_server: LiveServer
) -> None:
    """Several players acting at the same moment, each on their own game: every request
    succeeds (no 5xx, no lock error), each log stays consistent."""
    server = shared_server
    players = [LivePlayer(server.url) for _ in range(6)]
    games = [p.new_game(DEAL + i) for i, p in enumerate(players)]
    for _round in range(3):
        calls = []
        for p, g in zip(players, games, strict=True):
            hints = p.get(f"/api/games/{g['id']}/hints").json()
            if hints["moves"]:
                calls.append(
                    lambda p=p, g=g, m=hints["moves"][0]: p.post(f"/api/games/{g['id']}/moves", m)
                )
            else:
                calls.append(lambda p=p, g=g: p.post(f"/api/games/{g['id']}/deal"))
        responses = at_once(calls)
        assert [r.status_code for r in responses] == [200] * len(calls), [r.text for r in responses]
    for i, g in enumerate(games):
        stored = stored_game(shared_db_url, g["id"])
        assert len(stored.log) == 3
        assert_log_consistent(stored)
        # Each game is still its own deal, untouched by the others.
        assert parse_deal(stored.deal) == deal_from_number(DEAL + i)
