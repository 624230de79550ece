"""Assistance and moves made through the JSON API (docs/rules.md, "Assistance"; docs/api.md,
Extensions), on SQLite and PostgreSQL: the game object's ``assisted`` and ``moves_made``, the
plain hint and undo/redo are not assistance, the solver is, ``moves`` stays the net count,
and the statistics' best time and fewest moves come from unassisted wins only."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import Engine, text

from tests.support.api_client import GAME_KEYS, Player
from tests.support.deals import WIN_DEAL, WIN_LINE


def _stored(engine: Engine, gid: str) -> tuple[bool, int, int, int]:
    with engine.connect() as conn:
        row = conn.execute(
            text("SELECT assisted, moves_made, moves, version FROM games WHERE id = :g"),
            {"g": gid},
        ).one()
    return bool(row[0]), int(row[1]), int(row[2]), int(row[3])


def _play(p: Player, gid: str, actions: list[Any]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for action in actions:
        r = p.apply(gid, action)
        assert r.status_code == 200, (action, r.text)
        body = dict(r.json())
    return body


def _stats(p: Player) -> dict[str, Any]:
    return dict(p.get("/api/stats").json()["variants"]["scorpion"])


def test_the_game_object_has_assisted_and_moves_made(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    assert list(g) == GAME_KEYS
    assert g["assisted"] is False and g["moves_made"] == 0 and g["moves"] == 0
    schema = p.get("/openapi.json").json()["components"]["schemas"]["GameOut"]
    assert {"assisted", "moves_made"} <= set(schema["required"])
    assert schema["properties"]["assisted"]["type"] == "boolean"
    assert schema["properties"]["moves_made"]["type"] == "integer"


def test_the_plain_hint_does_not_mark_the_game_assisted(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    for _ in range(2):
        r = p.get(f"/api/games/{g['id']}/hints")
        assert r.status_code == 200 and r.json()["moves"]
    assert p.get(f"/api/games/{g['id']}").json() == g
    assert _stored(engine, g["id"]) == (False, 0, 0, 1)


def test_undo_and_redo_are_not_assistance_and_not_moves_made(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    body = _play(p, g["id"], [WIN_LINE[0], WIN_LINE[1]])  # the deal and a move
    assert (body["moves"], body["moves_made"], body["assisted"]) == (2, 2, False)
    body = _play(p, g["id"], [("undo",), ("undo",)])
    assert (body["moves"], body["moves_made"], body["assisted"]) == (0, 2, False)
    body = _play(p, g["id"], [("redo",)])
    assert (body["moves"], body["moves_made"], body["assisted"]) == (1, 2, False)
    body = _play(p, g["id"], [WIN_LINE[1]])  # the undone move, made again: counted again
    assert (body["moves"], body["moves_made"], body["assisted"]) == (2, 3, False)
    assert p.get(f"/api/games/{g['id']}").json() == body
    assert _stored(engine, g["id"]) == (False, 3, 2, body["version"])


def test_a_refused_move_adds_no_move_made(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    assert p.move(g["id"], 6, 0, 5).status_code == 422  # a King never lands on a card
    assert p.post(f"/api/games/{g['id']}/undo").status_code == 422  # nothing to undo
    assert p.get(f"/api/games/{g['id']}").json() == g
    assert _stored(engine, g["id"]) == (False, 0, 0, 1)


def test_a_solver_question_marks_the_game_assisted_in_json(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    r = p.post(f"/api/games/{g['id']}/analysis")
    assert r.status_code == 200, r.text
    got = p.get(f"/api/games/{g['id']}").json()
    assert got == {**g, "assisted": True}
    body = _play(p, g["id"], [WIN_LINE[0], ("undo",), ("redo",)])
    assert body["assisted"] is True and body["moves_made"] == 1
    assert _stored(engine, g["id"])[0] is True


def test_best_time_and_fewest_moves_ignore_assisted_wins(app: FastAPI) -> None:
    p = Player(app)
    helped = p.new_game(deal=WIN_DEAL)
    assert p.post(f"/api/games/{helped['id']}/analysis").status_code == 200
    won = _play(p, helped["id"], WIN_LINE)
    assert won["status"] == "won" and won["assisted"] is True
    stats = _stats(p)
    assert (stats["won"], stats["assisted_won"]) == (1, 1)  # counted as a win, shown apart
    assert stats["best_time_seconds"] is None and stats["fewest_moves"] is None

    clean = p.new_game(deal=WIN_DEAL)
    won = _play(p, clean["id"], [WIN_LINE[0], ("undo",), *WIN_LINE])
    assert won["status"] == "won" and won["assisted"] is False
    assert (won["moves"], won["moves_made"]) == (len(WIN_LINE), len(WIN_LINE) + 1)
    stats = _stats(p)
    assert (stats["won"], stats["assisted_won"]) == (2, 1)
    assert stats["fewest_moves"] == len(WIN_LINE) + 1  # moves made, not the net count
    assert stats["best_time_seconds"] is not None
