"""The Scorpion family through the JSON API (docs/api.md, "Extensions"), on SQLite and
PostgreSQL: the variants list, every variant's layout, reserve and cell moves, hints naming
piles, statistics, saved games and privacy per variant, and 2- and 3-deck deals stored whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.engine import Game, deal_from_number, format_deal, get_variant
from tests.support.api_client import (
    GAME_KEYS,
    Player,
    assert_error,
    assert_no_hidden_card,
    count_rows,
    mirror,
    unclocked,
)
from tests.support.deals import deal_with_pile_move

VARIANT_KEYS = ["id", "name", "decks", "columns", "stock", "reserves", "cells", "runs_needed"]
RULES_ORDER = [
    "scorpion",
    "scorpion-ii",
    "wasp",
    "wasp-ii",
    "scorpion-tail",
    "scorpion-head",
    "three-blind-mice",
    "farmers-wife",
    "how-they-run",
    "double-scorpion",
    "triple-scorpion",
]


def _rows(engine: Engine, gid: str) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text(
                    "SELECT kind, from_column, from_index, to_column, from_pile, to_pile "
                    "FROM game_actions WHERE game_id = :g ORDER BY seq"
                ),
                {"g": gid},
            )
        ]


# -- GET /api/variants -------------------------------------------------------------------------


def test_variants_are_listed_in_the_order_of_the_rules_with_their_fields(app: FastAPI) -> None:
    r = Player(app).get("/api/variants")
    assert r.status_code == 200
    body = r.json()
    assert list(body) == ["variants"]
    assert [v["id"] for v in body["variants"]] == RULES_ORDER
    by_id = {v["id"]: v for v in body["variants"]}
    for v in body["variants"]:
        assert list(v)[: len(VARIANT_KEYS)] == VARIANT_KEYS
        assert isinstance(v["description"], str) and v["description"]
    assert by_id["scorpion"] | {"description": ""} == {
        "id": "scorpion",
        "name": "Scorpion",
        "decks": 1,
        "columns": 7,
        "stock": 3,
        "reserves": 0,
        "cells": 0,
        "runs_needed": 4,
        "description": "",
    }
    head = by_id["scorpion-head"]
    assert (head["columns"], head["stock"], head["cells"], head["reserves"]) == (7, 0, 4, 0)
    mice = by_id["three-blind-mice"]
    assert (mice["columns"], mice["stock"], mice["reserves"], mice["cells"]) == (10, 0, 2, 0)
    run = by_id["how-they-run"]
    assert (run["reserves"], run["cells"]) == (0, 2)
    double = by_id["double-scorpion"]
    assert (double["decks"], double["columns"], double["stock"], double["runs_needed"]) == (
        2,
        10,
        4,
        8,
    )
    triple = by_id["triple-scorpion"]
    assert (triple["decks"], triple["columns"], triple["stock"], triple["runs_needed"]) == (
        3,
        13,
        0,
        12,
    )


def test_openapi_shows_the_variants_piles_and_the_new_game_fields(app: FastAPI) -> None:
    spec = Player(app).get("/openapi.json").json()
    assert "/api/variants" in spec["paths"]
    schemas = spec["components"]["schemas"]
    assert {"reserves", "cells", "runs_needed"} <= set(schemas["GameOut"]["properties"])
    move = schemas["MoveIn"]["properties"]
    assert move["from_pile"]["enum"] == ["column", "reserve", "cell"]
    assert move["to_pile"]["enum"] == ["column", "cell"]
    assert schemas["NewGameIn"]["properties"]["variant"]["enum"] == RULES_ORDER
    assert "winnable" in schemas["NewGameIn"]["properties"]
    assert {"from_pile", "to_pile"} <= set(schemas["PileHintOut"]["properties"])
    assert set(schemas["VariantOut"]["properties"]) >= set(VARIANT_KEYS)


# -- every variant's layout ---------------------------------------------------------------------


@pytest.mark.parametrize("variant", RULES_ORDER)
def test_every_variant_deals_by_number_and_by_string(app: FastAPI, variant: str) -> None:
    v = get_variant(variant)
    p = Player(app)
    g = p.new_game(variant=variant, deal_number=7)
    assert list(g) == GAME_KEYS
    local = mirror(variant, deal_number=7)
    assert g["variant"] == variant and g["deal_number"] == 7
    assert g["columns"] == local.public_view().columns
    assert len(g["columns"]) == v.columns
    assert [len(c) for c in g["columns"]] == list(v.heights)
    assert [sum(c is None for c in col) for col in g["columns"]] == list(v.face_down)
    assert g["stock"] == v.stock
    assert len(g["reserves"]) == v.reserves and None not in g["reserves"]
    assert len(g["cells"]) == v.cells
    if v.cells_start_full:
        assert None not in g["cells"]
    else:
        assert g["cells"] == [None] * v.cells
    assert g["runs_needed"] == 4 * v.decks
    assert_no_hidden_card(p.get(f"/api/games/{g['id']}").text, local)

    deal = format_deal(deal_from_number(7, variant))
    assert len(deal.split()) == 52 * v.decks
    s = p.new_game(variant=variant, deal=deal)
    assert s["deal_number"] is None
    for key in ("columns", "stock", "reserves", "cells", "runs_needed"):
        assert s[key] == g[key], key


def test_deal_string_errors_name_the_problem_and_start_nothing(
    app: FastAPI, engine: Engine
) -> None:
    p = Player(app)
    one = format_deal(deal_from_number(3))
    double = format_deal(deal_from_number(3, "double-scorpion"))
    cases = [
        ("double-scorpion", one, "A Double Scorpion deal has exactly 104 cards (2 decks)"),
        ("triple-scorpion", double, "A Triple Scorpion deal has exactly 156 cards (3 decks)"),
        ("scorpion-head", double, "appears twice"),
    ]
    tokens = double.split()
    first = tokens[0]
    third = [i for i, t in enumerate(tokens) if t == first]
    triple_copy = " ".join(tokens[:-1] + [first])
    assert len(third) == 2
    cases.append(("double-scorpion", triple_copy, f"{first} appears 3 times"))
    for variant, deal, words in cases:
        detail = assert_error(p.post("/api/games", {"variant": variant, "deal": deal}), 422)
        assert words in detail, detail
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == 0


# -- reserve and cell moves -------------------------------------------------------------------


def test_a_reserve_card_plays_onto_a_column_and_the_log_replays_it(
    app: FastAPI, engine: Engine
) -> None:
    n, m = deal_with_pile_move("three-blind-mice", "reserve")
    p = Player(app)
    g = p.new_game(variant="three-blind-mice", deal_number=n)
    card = g["reserves"][m.from_column]
    r = p.move(g["id"], m.from_column, 0, m.to_column, from_pile="reserve")
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["reserves"][m.from_column] is None
    assert after["columns"][m.to_column][-1] == card
    assert after["moves"] == 1 and after["version"] == g["version"] + 1
    assert _rows(engine, g["id"]) == [("move", m.from_column, 0, m.to_column, "reserve", "column")]
    undone = p.post(f"/api/games/{g['id']}/undo").json()
    assert undone["reserves"] == g["reserves"] and undone["columns"] == g["columns"]
    redone = p.post(f"/api/games/{g['id']}/redo").json()
    assert redone["reserves"] == after["reserves"]


def test_a_cell_card_plays_out_and_an_exposed_card_goes_into_the_cell(
    app: FastAPI, engine: Engine
) -> None:
    n, m = deal_with_pile_move("how-they-run", "cell")
    p = Player(app)
    g = p.new_game(variant="how-they-run", deal_number=n)
    card = g["cells"][m.from_column]
    out = p.move(g["id"], m.from_column, 0, m.to_column, from_pile="cell").json()
    assert out["cells"][m.from_column] is None
    assert out["columns"][m.to_column][-1] == card
    # Any exposed card (alone) goes into the empty cell.
    src = next(c for c, col in enumerate(out["columns"]) if col and c != m.to_column)
    exposed = out["columns"][src][-1]
    back = p.move(g["id"], src, len(out["columns"][src]) - 1, m.from_column, to_pile="cell")
    assert back.status_code == 200, back.text
    into = back.json()
    assert into["cells"][m.from_column] == exposed
    assert len(into["columns"][src]) == len(out["columns"][src]) - 1
    assert _rows(engine, g["id"]) == [
        ("move", m.from_column, 0, m.to_column, "cell", "column"),
        ("move", src, len(out["columns"][src]) - 1, m.from_column, "column", "cell"),
    ]
    # The stored log replays to the same position (the server's account of a game).
    from app.services.game_core import logged_action
    from app.services.race import replay_log

    with engine.connect() as conn:
        deal = conn.execute(text("SELECT deal FROM games WHERE id = :g"), {"g": g["id"]}).scalar()
    from sqlalchemy.orm import Session

    with Session(engine) as db:
        replayed = replay_log(db, g["id"], "how-they-run", deal)
    assert replayed is not None and logged_action is not None
    assert replayed.public_view().cells == into["cells"]
    assert replayed.public_view().columns == into["columns"]


def test_refused_pile_moves_are_422_and_change_nothing(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    base = p.new_game(variant="scorpion", deal_number=5)
    mice = p.new_game(variant="three-blind-mice", deal_number=5)
    run = p.new_game(variant="how-they-run", deal_number=5)
    head = p.new_game(variant="scorpion-head", deal_number=5)
    cases: list[tuple[dict[str, Any], dict[str, Any], str]] = [
        (
            base,
            {"from_column": 0, "from_index": 0, "to_column": 1, "from_pile": "reserve"},
            "has no reserve cards",
        ),
        (
            base,
            {"from_column": 6, "from_index": 6, "to_column": 0, "to_pile": "cell"},
            "has no free cells",
        ),
        (
            mice,
            {"from_column": 0, "from_index": 4, "to_column": 0, "to_pile": "reserve"},
            "Nothing can ever be put onto a reserve",
        ),
        (
            mice,
            {"from_column": 2, "from_index": 0, "to_column": 0, "from_pile": "reserve"},
            "no such reserve",
        ),
        (
            mice,
            {"from_column": 0, "from_index": 0, "to_column": 0, "from_pile": "heap"},
            "no pile called 'heap'",
        ),
        (
            run,
            {
                "from_column": 0,
                "from_index": 0,
                "to_column": 1,
                "from_pile": "cell",
                "to_pile": "cell",
            },
            "never moves from one free cell to another",
        ),
        (
            head,
            {"from_column": 0, "from_index": 0, "to_column": 0, "to_pile": "cell"},
            "Only the exposed card of a column",
        ),
        (
            head,
            {"from_column": 0, "from_index": 7, "to_column": 4, "to_pile": "cell"},
            "no such free cell",
        ),
        (
            head,
            {"from_column": 0, "from_index": 0, "to_column": 1, "from_pile": "cell"},
            "is empty",
        ),
    ]
    for game, body, words in cases:
        before = p.get(f"/api/games/{game['id']}").json()
        detail = assert_error(p.post(f"/api/games/{game['id']}/moves", body), 422)
        assert words in detail, (body, detail)
        assert unclocked(p.get(f"/api/games/{game['id']}").json()) == unclocked(before)
    for key, bad in (("from_pile", 1), ("to_pile", None)):
        body = {"from_column": 0, "from_index": 0, "to_column": 1, key: bad}
        assert_error(p.post(f"/api/games/{mice['id']}/moves", body), 422)
    assert (
        count_rows(
            engine, "game_actions", "game_id IN (SELECT id FROM games WHERE player_id = :p)", p=p.id
        )
        == 0
    )


# -- hints -------------------------------------------------------------------------------------


def test_hints_name_piles_only_when_one_is_not_a_column(app: FastAPI) -> None:
    p = Player(app)
    n, m = deal_with_pile_move("three-blind-mice", "reserve")
    g = p.new_game(variant="three-blind-mice", deal_number=n)
    moves = p.get(f"/api/games/{g['id']}/hints").json()["moves"]
    local = mirror("three-blind-mice", deal_number=n)
    expected = []
    for h in local.hints():
        d = {"from_column": h.from_column, "from_index": h.from_index, "to_column": h.to_column}
        if h.from_pile != "column" or h.to_pile != "column":
            d |= {"from_pile": h.from_pile, "to_pile": h.to_pile}
        expected.append(d)
    assert moves == expected
    assert {
        "from_column": m.from_column,
        "from_index": 0,
        "to_column": m.to_column,
        "from_pile": "reserve",
        "to_pile": "column",
    } in moves
    head = p.new_game(variant="scorpion-head", deal_number=n)
    head_moves = p.get(f"/api/games/{head['id']}/hints").json()["moves"]
    into_cells = [h for h in head_moves if h.get("to_pile") == "cell"]
    # Every exposed card may go into each of the four empty cells: one hint per cell.
    assert {h["to_column"] for h in into_cells} == {0, 1, 2, 3}
    assert all(h["from_pile"] == "column" for h in into_cells)
    base = p.new_game(variant="scorpion", deal_number=n)
    for h in p.get(f"/api/games/{base['id']}/hints").json()["moves"]:
        assert list(h) == ["from_column", "from_index", "to_column"]


# -- statistics, saved games, privacy ----------------------------------------------------------


def test_stats_saved_games_and_deletes_cover_every_variant(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    stats = p.get("/api/stats").json()["variants"]
    assert list(stats) == RULES_ORDER
    ids = {}
    for variant in RULES_ORDER:
        ids[variant] = p.new_game(variant=variant, deal_number=11)["id"]
        p.first_step(ids[variant])  # (a game starts at its first move)
    again = p.new_game(variant="double-scorpion", deal_number=12)
    p.first_step(again["id"])
    stats = p.get("/api/stats").json()["variants"]
    for variant in RULES_ORDER:
        expected = 2 if variant == "double-scorpion" else 1
        assert stats[variant]["started"] == expected, variant
    assert stats["double-scorpion"]["abandoned"] == 1
    # One saved game per variant: the newest.
    playing = count_rows(
        engine,
        "games",
        "player_id = :p AND status = 'playing' AND saved = :t",
        p=p.id,
        t=True,
    )
    assert playing == len(RULES_ORDER)
    assert p.get(f"/api/games/{ids['triple-scorpion']}").status_code == 200
    assert p.get(f"/api/games/{again['id']}").json()["deal_number"] == 12

    assert p.delete("/api/games").status_code == 204
    for variant in RULES_ORDER:
        if variant != "double-scorpion":
            assert p.get(f"/api/games/{ids[variant]}").status_code == 404
    assert p.get(f"/api/games/{again['id']}").status_code == 404
    assert p.get("/api/stats").json()["variants"]["triple-scorpion"]["started"] == 1
    assert p.delete("/api/stats").status_code == 204
    stats = p.get("/api/stats").json()["variants"]
    assert all(stats[v]["started"] == 0 for v in RULES_ORDER)
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == 0


def test_winnable_deal_from_no_list_is_a_clear_422(
    app: FastAPI, engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every variant ships a graded catalog: here Wasp II's has lost its grades, Wasp has none.
    from app.engine.solver import catalogs

    for variant in ("scorpion", "wasp-ii"):
        data = json.loads(catalogs.catalog_path(variant).read_text())
        if variant == "wasp-ii":
            data = {k: data[k] for k in ("variant", "format", "scanned", "deals")}
        (tmp_path / f"{variant}.json").write_text(json.dumps(data))
    monkeypatch.setattr(catalogs, "CATALOG_DIR", tmp_path)
    catalogs.winnable_deals.cache_clear()
    try:
        _no_list_422(app, engine)
    finally:
        monkeypatch.undo()
        catalogs.winnable_deals.cache_clear()


def _no_list_422(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    body = {"variant": "wasp-ii", "winnable": True, "difficulty": "easy"}
    detail = assert_error(p.post("/api/games", body), 422)
    assert "no list of proved winnable easy deals for Wasp II" in detail
    detail = assert_error(p.post("/api/games", {"variant": "wasp", "winnable": True}), 422)
    assert "no list of proved winnable deals for Wasp yet" in detail
    detail = assert_error(
        p.post("/api/games", {"variant": "scorpion", "winnable": True, "deal_number": 3}), 422
    )
    assert "winnable" in detail
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == 0
    g = p.new_game(variant="scorpion", winnable=True)
    from app.engine.solver import winnable_deals

    assert g["deal_number"] in winnable_deals("scorpion")
    assert p.new_game(variant="wasp-ii", winnable=True)["difficulty"] is None


def test_a_winnable_deal_of_a_family_variant_with_a_difficulty(
    app: FastAPI, engine: Engine
) -> None:
    from app.engine.solver import winnable_deals

    p = Player(app)
    for variant in ("scorpion-head", "three-blind-mice"):
        g = p.new_game(variant=variant, winnable=True, difficulty="hard")
        assert g["difficulty"] == "hard"
        assert g["deal_number"] in winnable_deals(variant, "hard")
        g = p.new_game(variant=variant, winnable=True)
        assert g["deal_number"] in winnable_deals(variant)


def test_analysis_of_a_family_variant_answers_with_a_move_of_its_piles(
    app: FastAPI, engine: Engine
) -> None:
    from app.engine import deal_from_number
    from app.engine.solver import analyse

    p = Player(app)
    # Scorpion Head deal 2: won in a few dozen solver steps, through its free cells
    g = p.new_game(variant="scorpion-head", deal_number=2)
    r = p.post(f"/api/games/{g['id']}/analysis", {"hint": True})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verdict"] == "win" and body["hint"] is not None
    hint = body["hint"]
    game = Game.new("scorpion-head", deal_from_number(2, "scorpion-head"))
    game.move(
        hint["from_column"],
        hint["from_index"],
        hint["to_column"],
        hint.get("from_pile", "column"),
        hint.get("to_pile", "column"),
    )
    assert analyse(game, budget_seconds=5.0).verdict == "win"  # the hint keeps it winnable
    assert count_rows(engine, "games", "id = :g AND assisted = :t", g=g["id"], t=True) == 1


# -- 2- and 3-deck deals stored whole ------------------------------------------------------------


@pytest.mark.parametrize("variant, decks", [("double-scorpion", 2), ("triple-scorpion", 3)])
def test_multi_deck_deal_strings_are_stored_whole_and_replay(
    app: FastAPI, engine: Engine, variant: str, decks: int
) -> None:
    p = Player(app)
    deal = format_deal(deal_from_number(99, variant))
    assert len(deal) == 3 * 52 * decks - 1 > 160  # longer than the old varchar(160)
    g = p.new_game(variant=variant, deal=deal)
    local = mirror(variant, deal=deal)
    for _ in range(3):
        m = local.hints()[0]
        local.move(*m)
        r = p.move(g["id"], m.from_column, m.from_index, m.to_column)
        assert r.status_code == 200, r.text
    with engine.connect() as conn:
        stored = conn.execute(
            text("SELECT deal FROM games WHERE id = :g"), {"g": g["id"]}
        ).scalar_one()
    assert stored == deal
    restarted = p.post(f"/api/games/{g['id']}/restart").json()
    assert restarted["columns"] == mirror(variant, deal=deal).public_view().columns
    after = p.get(f"/api/games/{g['id']}").json()
    assert after["columns"] == local.public_view().columns
    assert len(after["columns"]) == get_variant(variant).columns


def test_a_won_game_has_no_hints_and_cannot_deal(app: FastAPI) -> None:
    from tests.support.api_client import KNOWN_WIN

    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    for action in KNOWN_WIN["line"]:
        r = p.apply(g["id"], action)
        assert r.status_code == 200, r.text
    assert r.json()["status"] == "won"
    hints = p.get(f"/api/games/{g['id']}/hints").json()
    assert hints["moves"] == [] and hints["can_deal"] is False
