"""New winnable deals by difficulty (docs/difficulty.md, docs/api.md), on both databases:
``POST /api/games`` with ``"winnable": true`` and optionally ``"difficulty"``; the game
object carries the grade only for games asked for that way."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from app.engine.solver import deal_difficulty, winnable_deals, winning_line
from tests.support.api_client import Player, assert_error, count_rows

VARIANTS_WITH_CATALOGS = ["scorpion", "scorpion-ii", "wasp", "wasp-ii"]


@pytest.mark.parametrize("variant", VARIANTS_WITH_CATALOGS)
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_a_winnable_deal_of_a_difficulty_comes_from_that_grade(
    app: FastAPI, variant: str, difficulty: str
) -> None:
    p = Player(app)
    g = p.new_game(variant=variant, winnable=True, difficulty=difficulty)
    assert g["variant"] == variant
    assert g["difficulty"] == difficulty
    assert g["deal_number"] in set(winnable_deals(variant, difficulty))
    assert deal_difficulty(variant, g["deal_number"]) == difficulty
    # The grade stays with the game: reading it again, and after a restart.
    assert p.get(f"/api/games/{g['id']}").json()["difficulty"] == difficulty
    r = p.post(f"/api/games/{g['id']}/restart")
    assert r.status_code == 201, r.text
    assert r.json()["difficulty"] == difficulty


def test_a_winnable_deal_without_difficulty_is_from_the_catalog_and_claims_no_grade(
    app: FastAPI,
) -> None:
    p = Player(app)
    g = p.new_game(winnable=True)
    assert g["deal_number"] in set(winnable_deals("scorpion"))
    assert g["difficulty"] is None


def test_random_and_numbered_deals_stay_unclaimed(app: FastAPI) -> None:
    p = Player(app)
    catalogued = sorted(winnable_deals("scorpion", "easy"))[0]
    assert p.new_game(deal_number=catalogued)["difficulty"] is None
    assert p.new_game()["difficulty"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"difficulty": "easy"},  # a difficulty without winnable
        {"winnable": True, "difficulty": "brutal"},
        {"winnable": True, "difficulty": 1},
        {"winnable": "yes"},
        {"winnable": True, "deal_number": 12},
        {"winnable": True, "deal": "AS " * 51 + "AS"},
    ],
)
def test_bad_winnable_requests_are_422_and_create_nothing(
    app: FastAPI, engine: Any, body: dict[str, Any]
) -> None:
    p = Player(app)
    before = count_rows(engine, "games", "player_id = :p", p=p.id)
    assert_error(p.post("/api/games", {"variant": "scorpion", **body}), 422)
    assert count_rows(engine, "games", "player_id = :p", p=p.id) == before


def test_the_home_page_offers_the_three_grades(app: FastAPI) -> None:
    p = Player(app)
    html = p.get("/").text
    for grade in ("easy", "medium", "hard"):
        assert f'<option value="{grade}">' in html


def test_the_winnable_form_starts_a_game_of_the_chosen_grade(app: FastAPI) -> None:
    p = Player(app)
    r = p.http.post(
        "/games/winnable",
        data={"csrf_token": p.token, "variant": "scorpion-ii", "difficulty": "hard"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    game_id = r.headers["location"].rsplit("/", 1)[-1]
    g = p.get(f"/api/games/{game_id}").json()
    assert (g["variant"], g["difficulty"]) == ("scorpion-ii", "hard")


def test_the_home_page_deals_a_winnable_wasp_ii_deal_of_each_grade(app: FastAPI) -> None:
    p = Player(app)
    assert 'id="winnable-wasp-ii"' in p.get("/").text
    for grade in ("easy", "medium", "hard"):
        r = p.http.post(
            "/games/winnable",
            data={"csrf_token": p.token, "variant": "wasp-ii", "difficulty": grade},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        g = p.get(f"/api/games/{r.headers['location'].rsplit('/', 1)[-1]}").json()
        assert (g["variant"], g["difficulty"]) == ("wasp-ii", grade)
        assert deal_difficulty("wasp-ii", g["deal_number"]) == grade
        line = winning_line("wasp-ii", g["deal_number"])
        assert line is not None
        for action in line:  # the catalog's line wins the player's game
            assert p.apply(g["id"], action).status_code == 200
        assert p.get(f"/api/games/{g['id']}").json()["status"] == "won"
