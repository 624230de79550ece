"""Every game endpoint of API.md and every error row, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.engine import Game, deal_from_number, format_deal
from tests.support.api_client import (
    GAME_KEYS,
    KNOWN_WIN,
    Player,
    assert_error,
    assert_no_hidden_card,
    count_rows,
    mirror,
    unclocked,
)


def _actions(engine: Engine, gid: str) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text(
                    "SELECT seq, kind, from_column, from_index, to_column FROM game_actions "
                    "WHERE game_id = :g ORDER BY seq"
                ),
                {"g": gid},
            )
        ]


# -- POST /api/games ---------------------------------------------------------------------------


def test_a_numbered_game_shows_its_deal_with_face_down_cards_hidden(app: FastAPI) -> None:
    p = Player(app)
    r = p.post("/api/games", {"variant": "scorpion", "deal_number": 1})
    assert r.status_code == 201
    g = r.json()
    assert list(g) == GAME_KEYS
    assert r.headers["location"] == f"/api/games/{g['id']}"
    local = mirror(deal_number=1)
    assert g["columns"] == local.public_view().columns
    assert len(g["columns"]) == 7
    assert [sum(c is None for c in col) for col in g["columns"]] == [3, 3, 3, 3, 0, 0, 0]
    assert g["deal_number"] == 1 and g["variant"] == "scorpion" and g["status"] == "playing"
    assert g["stock"] == 3 and g["completed"] == [] and g["moves"] == 0
    assert g["can_undo"] is False and g["can_redo"] is False
    assert isinstance(g["version"], int)
    assert_no_hidden_card(r.text, local)
    got = p.get(f"/api/games/{g['id']}")
    assert got.status_code == 200 and got.json() == g


@pytest.mark.parametrize(
    "variant,down", [("scorpion-ii", [3, 3, 3, 0, 0, 0, 0]), ("wasp", [3] * 4 + [0] * 3)]
)
def test_every_variant_can_be_started(app: FastAPI, variant: str, down: list[int]) -> None:
    p = Player(app)
    g = p.new_game(variant=variant, deal_number=4294967295)
    assert g["variant"] == variant and g["deal_number"] == 4294967295
    assert [sum(c is None for c in col) for col in g["columns"]] == down
    assert g["columns"] == mirror(variant, deal_number=4294967295).public_view().columns


def test_a_game_from_a_deal_string_has_no_deal_number(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert g["deal_number"] is None
    assert g["columns"] == mirror(deal=KNOWN_WIN["deal"]).public_view().columns
    # Extra spaces between codes are tolerated; the deal is the same.
    g2 = p.new_game(deal="  " + KNOWN_WIN["deal"].replace(" ", "  ") + " ")
    assert g2["columns"] == g["columns"]


def test_without_a_deal_the_server_picks_a_random_deal_number(app: FastAPI) -> None:
    p = Player(app)
    numbers = {p.new_game()["deal_number"] for _ in range(3)}
    assert all(isinstance(n, int) and 1 <= n <= 4294967295 for n in numbers)
    assert len(numbers) == 3
    r = p.post("/api/games")  # no body at all: the default variant
    assert r.status_code == 201 and r.json()["variant"] == "scorpion"


BAD_NEW_GAME_BODIES: list[Any] = [
    {"variant": "spider"},
    {"variant": 7},
    {"variant": None},
    {"variant": "scorpion", "deal_number": 0},
    {"variant": "scorpion", "deal_number": -5},
    {"variant": "scorpion", "deal_number": 4294967296},
    {"variant": "scorpion", "deal_number": 10**30},
    {"variant": "scorpion", "deal_number": "12"},
    {"variant": "scorpion", "deal_number": 12.0},
    {"variant": "scorpion", "deal_number": True},
    {"variant": "scorpion", "deal": "AS KS"},
    {"variant": "scorpion", "deal": " ".join(["AS"] * 52)},
    {"variant": "scorpion", "deal": KNOWN_WIN["deal"].replace("QC", "1C")},
    {"variant": "scorpion", "deal": KNOWN_WIN["deal"].lower()},
    {"variant": "scorpion", "deal": 12},
    {"variant": "scorpion", "deal_number": 3, "deal": KNOWN_WIN["deal"]},
    [1, 2, 3],
    "scorpion",
]


@pytest.mark.parametrize("body", BAD_NEW_GAME_BODIES)
def test_malformed_new_game_bodies_are_422_and_create_nothing(
    app: FastAPI, engine: Engine, body: Any
) -> None:
    p = Player(app)
    p.new_game(deal_number=2)
    before = count_rows(engine, "games", "player_id = :p", p=p.id)
    stats = p.get("/api/stats").json()
    r = p.post("/api/games", body)
    assert_error(r, 422)
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == before
    assert p.get("/api/stats").json() == stats


def test_invalid_json_is_422_with_a_sentence(app: FastAPI) -> None:
    p = Player(app)
    r = p.http.post(
        "/api/games",
        content=b"{not json",
        headers={**p.headers, "content-type": "application/json"},
    )
    assert "JSON" in assert_error(r, 422)


# -- moves, deal, undo, redo -------------------------------------------------------------------


def test_a_move_changes_the_game_and_is_logged(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal_number=1)
    local = mirror(deal_number=1)
    m = local.hints()[0]
    r = p.move(g["id"], *m, version=g["version"])
    assert r.status_code == 200, r.text
    local.move(*m)
    after = r.json()
    assert list(after) == GAME_KEYS
    assert after["columns"] == local.public_view().columns
    assert after["moves"] == 1 and after["version"] == g["version"] + 1
    assert after["can_undo"] is True and after["can_redo"] is False
    assert_no_hidden_card(r.text, local)
    assert unclocked(p.get(f"/api/games/{g['id']}").json()) == unclocked(after)
    assert _actions(engine, g["id"]) == [(1, "move", m[0], m[1], m[2])]


@pytest.mark.parametrize(
    "body",
    [
        {"from_column": 0, "from_index": 0, "to_column": 5},  # a face-down card
        {"from_column": 9, "from_index": 0, "to_column": 1},  # no such column
        {"from_column": 0, "from_index": 99, "to_column": 1},  # no such card
        {"from_column": -1, "from_index": 0, "to_column": 1},
        {"from_column": 4, "from_index": 6, "to_column": 4},  # same column
        {"from_column": 5, "from_index": 0, "to_column": 6},  # a King onto a card
    ],
)
def test_an_illegal_move_is_422_and_changes_nothing(
    app: FastAPI, engine: Engine, body: dict[str, int]
) -> None:
    p = Player(app)
    g = p.new_game(deal_number=7)
    r = p.post(f"/api/games/{g['id']}/moves", body)
    assert_error(r, 422)
    assert p.get(f"/api/games/{g['id']}").json() == g
    assert _actions(engine, g["id"]) == []


@pytest.mark.parametrize(
    "body",
    [
        {"from_column": "0", "from_index": 0, "to_column": 1},
        {"from_column": 0.0, "from_index": 0, "to_column": 1},
        {"from_column": True, "from_index": 0, "to_column": 1},
        {"from_column": 0, "to_column": 1},
        {"from_column": 0, "from_index": 0, "to_column": 1, "version": "1"},
        {},
        [0, 0, 1],
        None,
    ],
)
def test_a_malformed_move_body_is_422_and_changes_nothing(app: FastAPI, body: Any) -> None:
    p = Player(app)
    g = p.new_game(deal_number=7)
    assert_error(p.post(f"/api/games/{g['id']}/moves", body), 422)
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_deal_once_then_422(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal_number=42)
    r = p.post(f"/api/games/{g['id']}/deal", {"version": g["version"]})
    assert r.status_code == 200, r.text
    dealt = r.json()
    tokens = format_deal(deal_from_number(42)).split()
    assert dealt["stock"] == 0 and dealt["moves"] == 1
    assert [dealt["columns"][c][-1] for c in range(3)] == tokens[49:52]
    detail = assert_error(p.post(f"/api/games/{g['id']}/deal"), 422)
    assert "stock" in detail.lower()
    assert p.get(f"/api/games/{g['id']}").json() == dealt
    assert [a[1] for a in _actions(engine, g["id"])] == ["deal"]


def test_undo_and_redo(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal_number=1)
    gid = g["id"]
    assert_error(p.post(f"/api/games/{gid}/undo"), 422)
    assert_error(p.post(f"/api/games/{gid}/redo"), 422)
    moved = p.post(f"/api/games/{gid}/deal").json()
    undone = p.post(f"/api/games/{gid}/undo", {"version": moved["version"]}).json()
    assert undone["columns"] == g["columns"] and undone["stock"] == 3 and undone["moves"] == 0
    assert undone["version"] == moved["version"] + 1
    assert undone["can_undo"] is False and undone["can_redo"] is True
    assert_error(p.post(f"/api/games/{gid}/undo"), 422)
    redone = p.post(f"/api/games/{gid}/redo", {}).json()
    assert redone["columns"] == moved["columns"] and redone["version"] == undone["version"] + 1
    assert redone["can_redo"] is False
    assert_error(p.post(f"/api/games/{gid}/redo"), 422)
    assert p.get(f"/api/games/{gid}").json() == redone
    assert [a[:2] for a in _actions(engine, gid)] == [(1, "deal"), (2, "undo"), (3, "redo")]


def test_the_version_is_checked_before_anything_else(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal_number=1)
    gid = g["id"]
    dealt = p.post(f"/api/games/{gid}/deal").json()
    stale = g["version"]
    # Each of these would be 422 with the right version; with a stale one it is 409.
    assert_error(p.post(f"/api/games/{gid}/deal", {"version": stale}), 409)
    assert_error(p.move(gid, 0, 0, 5, version=stale), 409)
    assert_error(p.move(gid, 9, 0, 1, version=stale), 409)
    assert_error(p.post(f"/api/games/{gid}/redo", {"version": stale}), 409)
    assert_error(p.post(f"/api/games/{gid}/undo", {"version": dealt["version"] + 5}), 409)
    assert p.get(f"/api/games/{gid}").json() == dealt
    assert len(_actions(engine, gid)) == 1
    # The right version goes through.
    r = p.post(f"/api/games/{gid}/undo", {"version": dealt["version"]})
    assert r.status_code == 200


# -- hints -------------------------------------------------------------------------------------


def test_hints_are_the_engines_useful_moves(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=1)
    local = mirror(deal_number=1)
    r = p.get(f"/api/games/{g['id']}/hints")
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"moves", "can_deal"}
    assert body["can_deal"] is True and body["stuck"] is False
    assert all(list(m) == ["from_column", "from_index", "to_column"] for m in body["moves"])
    assert [tuple(m.values()) for m in body["moves"]] == [tuple(m) for m in local.hints()]
    assert len({tuple(m.values()) for m in body["moves"]}) == len(body["moves"])
    assert_no_hidden_card(r.text, local)
    # Every hint is a legal move.
    for m in body["moves"]:
        local.copy().move(*m.values())
    p.post(f"/api/games/{g['id']}/deal")
    assert p.get(f"/api/games/{g['id']}/hints").json()["can_deal"] is False
    # Asking for hints changes neither the game nor its version.
    assert p.get(f"/api/games/{g['id']}").json()["version"] == g["version"] + 1


# -- restart -----------------------------------------------------------------------------------


def test_restart_is_a_new_game_with_the_same_deal(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=7)
    p.post(f"/api/games/{g['id']}/deal")
    r = p.post(f"/api/games/{g['id']}/restart")
    assert r.status_code == 201
    fresh = r.json()
    assert list(fresh) == GAME_KEYS
    assert fresh["id"] != g["id"] and fresh["deal_number"] == 7
    assert fresh["columns"] == g["columns"] and fresh["stock"] == 3 and fresh["moves"] == 0
    assert fresh["can_undo"] is False and fresh["can_redo"] is False
    custom = p.new_game(deal=KNOWN_WIN["deal"])
    again = p.post(f"/api/games/{custom['id']}/restart").json()
    assert again["deal_number"] is None and again["columns"] == custom["columns"]


# -- a whole game, won -------------------------------------------------------------------------


def test_a_known_deal_is_won_and_then_finished(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    gid = g["id"]
    local = mirror(deal=KNOWN_WIN["deal"])
    last: Any = None
    for action in KNOWN_WIN["line"]:
        assert local.status == "playing"
        last = p.apply(gid, action)
        assert last.status_code == 200, last.text
        local.apply(tuple(action))
        assert last.json()["columns"] == local.public_view().columns
        assert_no_hidden_card(last.text, local)
    won = last.json()
    assert won["status"] == "won"
    assert sorted(won["completed"]) == ["C", "D", "H", "S"]
    assert all(col == [] for col in won["columns"])
    assert won["can_undo"] is False and won["can_redo"] is False
    assert won["moves"] == len(KNOWN_WIN["line"])
    for path in ("deal", "undo", "redo"):
        assert_error(p.post(f"/api/games/{gid}/{path}"), 422)
        assert_error(p.post(f"/api/games/{gid}/{path}", {"version": won["version"]}), 422)
        assert_error(p.post(f"/api/games/{gid}/{path}", {"version": 1}), 409)
    assert_error(p.move(gid, 0, 0, 1), 422)
    assert_error(p.move(gid, 0, 0, 1, version=1), 409)
    assert p.get(f"/api/games/{gid}").json() == won
    assert len(_actions(engine, gid)) == len(KNOWN_WIN["line"])
    hints = p.get(f"/api/games/{gid}/hints").json()
    assert hints["moves"] == [] and hints["can_deal"] is False
    stats = p.get("/api/stats").json()["variants"]["scorpion"]
    assert stats["started"] == 1 and stats["won"] == 1
    assert stats["current_streak"] == 1 and stats["best_streak"] == 1
    assert stats["fewest_moves"] == len(KNOWN_WIN["line"])
    assert isinstance(stats["best_time_seconds"], int) and stats["best_time_seconds"] >= 0
    # Restart of a won game: a new start on the same deal, once played.
    fresh = p.post(f"/api/games/{gid}/restart")
    assert fresh.status_code == 201 and fresh.json()["status"] == "playing"
    assert p.get("/api/stats").json()["variants"]["scorpion"]["started"] == 1
    p.first_step(fresh.json()["id"])
    assert p.get("/api/stats").json()["variants"]["scorpion"]["started"] == 2


# -- no hidden card, ever ----------------------------------------------------------------------


def test_no_face_down_or_stock_card_appears_in_any_response(app: FastAPI) -> None:
    p = Player(app)
    number = 123456
    first = p.post("/api/games", {"variant": "scorpion", "deal_number": number})
    gid = first.json()["id"]
    local = mirror(deal_number=number)
    texts = [first.text]
    for step in range(60):
        hints = p.get(f"/api/games/{gid}/hints")
        assert_no_hidden_card(hints.text, local)
        moves = hints.json()["moves"]
        if step % 7 == 3 and local.can_undo:
            r = p.post(f"/api/games/{gid}/undo")
            local.undo()
        elif step % 7 == 4 and local.can_redo:
            r = p.post(f"/api/games/{gid}/redo")
            local.redo()
        elif moves:
            m = moves[step % len(moves)]
            r = p.move(gid, m["from_column"], m["from_index"], m["to_column"])
            local.move(m["from_column"], m["from_index"], m["to_column"])
        elif local.can_deal:
            r = p.post(f"/api/games/{gid}/deal")
            local.deal()
        else:
            break
        assert r.status_code == 200, r.text
        assert r.json()["columns"] == local.public_view().columns
        assert_no_hidden_card(r.text, local)
        texts.append(r.text)
        g = p.get(f"/api/games/{gid}")
        assert_no_hidden_card(g.text, local)
    for extra in (p.get("/api/stats"), p.get("/api/session"), p.get("/openapi.json")):
        assert_no_hidden_card(extra.text, local)
    # The deal string of a numbered game never leaves the server either.
    deal_text = format_deal(deal_from_number(number))
    assert all(deal_text not in t for t in texts)
    assert all(deal_text not in v for v in p.http.cookies.values())
    restarted = p.post(f"/api/games/{gid}/restart")
    assert_no_hidden_card(restarted.text, mirror(deal_number=number))


# -- ownership ---------------------------------------------------------------------------------


def test_another_players_game_is_404_on_every_path(app: FastAPI, engine: Engine) -> None:
    a, b = Player(app), Player(app)
    assert a.id != b.id
    g = a.new_game(deal_number=3)
    gid = g["id"]
    assert_error(b.get(f"/api/games/{gid}"), 404)
    assert_error(b.get(f"/api/games/{gid}/hints"), 404)
    for path, body in (
        ("moves", {"from_column": 4, "from_index": 6, "to_column": 1}),
        ("moves", {"from_column": 4, "from_index": 6, "to_column": 1, "version": 1}),
        ("moves", {"from_column": 4, "from_index": 6, "to_column": 1, "version": 99}),
        ("deal", None),
        ("deal", {"version": 1}),
        ("undo", None),
        ("redo", None),
        ("restart", None),
    ):
        detail = assert_error(b.post(f"/api/games/{gid}/{path}", body), 404)
        assert detail == assert_error(b.get("/api/games/no-such-game"), 404)
    page = b.get(f"/games/{gid}")
    assert page.status_code == 404
    assert a.get(f"/api/games/{gid}").json() == g
    assert count_rows(engine, "games", "player_id = :p", p=b.id) == 0
    assert _actions(engine, gid) == []
    # B's deletes touch nothing of A's.
    for path in ("/api/games", "/api/stats", "/api/player"):
        assert b.delete(path).status_code == 204
    assert a.get(f"/api/games/{gid}").json() == g


# -- routes and schema -------------------------------------------------------------------------


def test_unknown_routes_and_methods_get_a_json_sentence(app: FastAPI) -> None:
    p = Player(app)
    assert_error(p.get("/api/nothing"), 404)
    assert_error(p.post("/api/nothing"), 404)
    assert_error(p.http.put("/api/games", headers=p.headers), 405)
    assert_error(p.http.get("/api/player"), 405)


def test_openapi_describes_the_whole_contract(app: FastAPI) -> None:
    spec = Player(app).get("/openapi.json").json()
    expected = {
        ("/api/session", "get", "200"),
        ("/api/games", "post", "201"),
        ("/api/games", "delete", "204"),
        ("/api/games/{id}", "get", "200"),
        ("/api/games/{id}/moves", "post", "200"),
        ("/api/games/{id}/deal", "post", "200"),
        ("/api/games/{id}/undo", "post", "200"),
        ("/api/games/{id}/redo", "post", "200"),
        ("/api/games/{id}/hints", "get", "200"),
        ("/api/games/{id}/restart", "post", "201"),
        ("/api/stats", "get", "200"),
        ("/api/stats", "delete", "204"),
        ("/api/player", "delete", "204"),
    }
    for path, method, status in expected:
        op = spec["paths"][path][method]
        assert status in op["responses"], (path, method)
        if status != "204":
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert "$ref" in schema, (path, method)
        for code_, resp in op["responses"].items():
            if code_.startswith("4"):
                ref = resp["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorOut"), (path, method, code_)
    game = spec["components"]["schemas"]["GameOut"]
    assert list(game["properties"]) == GAME_KEYS
    assert json.dumps(spec).count("HTTPValidationError") == 0


def test_a_game_object_never_changes_shape_through_a_game(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=99)
    local: Game = mirror(deal_number=99)
    for m in local.hints()[:3]:
        r = p.move(g["id"], *m)
        assert list(r.json()) == GAME_KEYS
        break
