"""POST /api/games/{id}/analysis (issue 5) on SQLite and PostgreSQL: verdicts on known
positions, the solver hint only when asked and always legal, no hidden card, the assisted flag
and assisted wins in the statistics, the same 403/404/409/422/429 rules as other game actions,
and the time budget."""

from __future__ import annotations

import json
import os
import signal
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.config import get_settings
from app.engine import Game, parse_deal
from app.engine.solver import analyse
from app.services import analysis
from tests.support.api_client import (
    KNOWN_WIN,
    Player,
    assert_error,
    assert_no_hidden_card,
    count_rows,
    mirror,
    unclocked,
)
from tests.support.deals import HARD_DEAL, LOST_DEAL

ANSWER_KEYS = {"verdict", "seconds", "hint", "version"}


def _ask(p: Player, gid: str, body: Any = None) -> Any:
    return p.post(f"/api/games/{gid}/analysis", body)


def _assisted(engine: Engine, gid: str) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(text("SELECT assisted FROM games WHERE id = :g"), {"g": gid}).scalar_one()
        )


def _scorpion_stats(p: Player) -> dict[str, Any]:
    r = p.get("/api/stats")
    assert r.status_code == 200
    return dict(r.json()["variants"]["scorpion"])


def _apply_hint(p: Player, gid: str, hint: dict[str, Any]) -> Any:
    if hint == {"deal": True}:
        return p.post(f"/api/games/{gid}/deal")
    assert set(hint) == {"from_column", "from_index", "to_column"}, hint
    return p.move(gid, hint["from_column"], hint["from_index"], hint["to_column"])


# -- verdicts ----------------------------------------------------------------------------------


def test_a_known_winnable_deal_is_still_winnable_and_nothing_hidden_leaks(
    app: FastAPI, engine: Engine
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert _assisted(engine, g["id"]) is False
    r = _ask(p, g["id"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == ANSWER_KEYS
    assert body["verdict"] == "win"
    assert body["hint"] is None  # not asked for
    assert body["version"] == g["version"]
    assert isinstance(body["seconds"], float) and body["seconds"] >= 0
    assert_no_hidden_card(r.text, mirror(deal=KNOWN_WIN["deal"]))
    assert _assisted(engine, g["id"]) is True
    # Nothing else changed: same version, same position, nothing logged; the game says it is
    # assisted now (and the question started its clock: issue 41).
    assert unclocked(p.get(f"/api/games/{g['id']}").json()) == unclocked({**g, "assisted": True})
    assert count_rows(engine, "game_actions", "game_id = :g", g=g["id"]) == 0


def test_a_deal_proved_lost_is_no_longer_winnable_and_gets_no_hint(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=LOST_DEAL)
    for body in (None, {"hint": False}, {"hint": True}):
        r = _ask(p, g["id"], body)
        assert r.status_code == 200, r.text
        assert r.json()["verdict"] == "loss"
        assert r.json()["hint"] is None
    assert_no_hidden_card(r.text, mirror(deal=LOST_DEAL))


def test_the_verdict_follows_the_position_deal_too_early_then_undo(app: FastAPI) -> None:
    """The verdict is about the current position, not the deal: this winnable deal is lost
    once the stock is dealt before any move, and winnable again after undo."""
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert _ask(p, g["id"]).json()["verdict"] == "win"
    local = mirror(deal=KNOWN_WIN["deal"])
    assert p.post(f"/api/games/{g['id']}/deal").status_code == 200
    local.deal()
    r = _ask(p, g["id"], {"hint": True})
    assert r.json()["verdict"] == "loss" and r.json()["hint"] is None
    assert_no_hidden_card(r.text, local)
    assert p.post(f"/api/games/{g['id']}/undo").status_code == 200
    assert _ask(p, g["id"]).json()["verdict"] == "win"


# -- the solver hint ---------------------------------------------------------------------------


def test_following_solver_hints_wins_and_counts_as_an_assisted_win(
    app: FastAPI, engine: Engine
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    local = mirror(deal=KNOWN_WIN["deal"])
    before = _scorpion_stats(p)
    for _ in range(200):
        r = _ask(p, g["id"], {"hint": True})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["verdict"] == "win", body  # a solver hint keeps the game winnable
        assert body["hint"] is not None
        assert_no_hidden_card(r.text, local)
        moved = _apply_hint(p, g["id"], body["hint"])
        assert moved.status_code == 200, moved.text  # the hint is a legal action
        if body["hint"] == {"deal": True}:
            local.deal()
        else:
            h = body["hint"]
            local.move(h["from_column"], h["from_index"], h["to_column"])
        if moved.json()["status"] == "won":
            break
    else:
        pytest.fail("200 solver hints did not win a known winnable deal")
    after = _scorpion_stats(p)
    assert after["won"] == before["won"] + 1
    assert after["assisted_won"] == before["assisted_won"] + 1
    assert _assisted(engine, g["id"]) is True


def test_an_unassisted_win_is_not_counted_as_assisted(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    for action in KNOWN_WIN["line"]:
        assert p.apply(g["id"], action).status_code == 200
    stats = _scorpion_stats(p)
    assert stats["won"] == 1 and stats["assisted_won"] == 0
    assert _assisted(engine, g["id"]) is False


def test_when_only_the_deal_keeps_the_game_winnable_the_hint_is_deal_true(
    app: FastAPI,
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    local = mirror(deal=KNOWN_WIN["deal"])
    # Play the known line up to its deal; there, every legal move loses (checked here).
    for action in KNOWN_WIN["line"]:
        if action[0] == "deal":
            break
        assert p.apply(g["id"], action).status_code == 200
        local.apply(tuple(action))  # type: ignore[arg-type]
    for m in local.legal_moves():
        after = local.copy()
        after.move(*m)
        assert analyse(after, 5.0).verdict == "loss", m
    body = _ask(p, g["id"], {"hint": True}).json()
    assert body == {**body, "verdict": "win", "hint": {"deal": True}}
    assert_no_hidden_card(json.dumps(body), local)
    assert _apply_hint(p, g["id"], body["hint"]).status_code == 200


# -- the same rules as other game actions ------------------------------------------------------


def test_another_players_game_is_404_and_stays_unassisted(app: FastAPI, engine: Engine) -> None:
    owner, other = Player(app), Player(app)
    g = owner.new_game(deal=KNOWN_WIN["deal"])
    detail = assert_error(_ask(other, g["id"], {"hint": True}), 404)
    assert "game" in detail.lower()
    assert_error(_ask(other, "no-such-game"), 404)
    assert_error(_ask(other, "x" * 300), 404)
    assert _assisted(engine, g["id"]) is False


def test_without_the_csrf_token_it_is_403_and_nothing_changes(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    r = p.http.post(f"/api/games/{g['id']}/analysis", json={"hint": True})
    assert_error(r, 403)
    r = p.http.post(f"/api/games/{g['id']}/analysis", json={}, headers={"X-CSRF-Token": "forged"})
    assert_error(r, 403)
    assert _assisted(engine, g["id"]) is False


def test_a_stale_version_is_409_and_the_current_one_is_answered(
    app: FastAPI, engine: Engine
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert_error(_ask(p, g["id"], {"version": g["version"] + 1}), 409)
    assert _assisted(engine, g["id"]) is False
    r = _ask(p, g["id"], {"version": g["version"], "hint": True})
    assert r.status_code == 200 and r.json()["version"] == g["version"]


@pytest.mark.parametrize(
    "body",
    [
        {"hint": "yes"},
        {"hint": 1},
        {"version": "3"},
        {"version": 1.5},
        [],
        "hint",
    ],
)
def test_malformed_bodies_are_422_and_change_nothing(
    app: FastAPI, engine: Engine, body: Any
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert_error(_ask(p, g["id"], body), 422)
    assert _assisted(engine, g["id"]) is False


def test_a_won_game_is_422_finished(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    for action in KNOWN_WIN["line"]:
        assert p.apply(g["id"], action).status_code == 200
    detail = assert_error(_ask(p, g["id"], {"hint": True}), 422)
    assert "won and finished" in detail
    assert _scorpion_stats(p)["assisted_won"] == 0  # asking afterwards changes nothing


def test_questions_count_against_the_action_rate_limit(
    app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    monkeypatch.setattr(settings, "rate_limit_actions", 2)
    monkeypatch.setattr(settings, "rate_limit_window_seconds", 3600)
    assert _ask(p, g["id"]).status_code == 200
    assert _ask(p, g["id"]).status_code == 200
    r = _ask(p, g["id"], {"hint": True})
    assert_error(r, 429)
    assert int(r.headers["retry-after"]) > 0


# -- the time budget ---------------------------------------------------------------------------


def test_a_tiny_budget_on_a_hard_deal_answers_unknown_in_time(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = Player(app)
    g = p.new_game(deal=HARD_DEAL)
    budget = 0.05
    monkeypatch.setattr(get_settings(), "analysis_budget_seconds", budget)
    r = _ask(p, g["id"], {"hint": True})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verdict"] == "unknown" and body["hint"] is None
    # The documented bound: never longer than the budget plus the grace for the process.
    assert body["seconds"] <= budget + analysis.GRACE_SECONDS
    assert_no_hidden_card(r.text, Game.new("scorpion", parse_deal(HARD_DEAL)))


def test_a_question_the_pool_cannot_answer_in_time_is_unknown(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No grace at all: the request stops waiting at the budget, whatever the solver does."""
    p = Player(app)
    g = p.new_game(deal=HARD_DEAL)
    monkeypatch.setattr(get_settings(), "analysis_budget_seconds", 0.2)
    monkeypatch.setattr(analysis, "GRACE_SECONDS", 0.0)
    body = _ask(p, g["id"]).json()
    assert body["verdict"] == "unknown"
    assert body["seconds"] < 1.0


# -- the contract in the OpenAPI schema ------------------------------------------------------


def test_the_endpoint_is_documented_with_its_models(app: FastAPI) -> None:
    schema = Player(app).get("/openapi.json").json()
    op = schema["paths"]["/api/games/{id}/analysis"]["post"]
    assert {"200", "403", "404", "409", "422", "429"} <= set(op["responses"])
    ok = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    model = schema["components"]["schemas"][ok.rsplit("/", 1)[1]]
    assert set(model["properties"]) == ANSWER_KEYS
    assert model["properties"]["verdict"]["enum"] == ["win", "loss", "unknown"]
    stats = schema["components"]["schemas"]["VariantStatsOut"]
    assert "assisted_won" in stats["properties"]


# -- the solver processes ----------------------------------------------------------------------


def test_a_killed_solver_process_costs_one_unknown_then_a_new_pool_answers(
    app: FastAPI,
) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert _ask(p, g["id"]).json()["verdict"] == "win"
    pool, _ = analysis._get_pool()
    pids = list(pool._processes)  # the solver processes this test process started
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    # (another game: the first one's position is on its proved line, answered without the pool)
    h = p.new_game(deal=KNOWN_WIN["deal"])
    body = _ask(p, h["id"]).json()
    assert body["verdict"] == "unknown"  # the broken pool could not answer
    assert _ask(p, h["id"]).json()["verdict"] == "win"  # a new pool did
    assert analysis._get_pool()[0] is not pool


def test_after_shutdown_the_next_question_starts_a_new_pool(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert _ask(p, g["id"]).json()["verdict"] == "win"
    old, _ = analysis._get_pool()
    analysis.shutdown_pool()
    h = p.new_game(deal=KNOWN_WIN["deal"])  # (g's position is on its proved line)
    assert _ask(p, h["id"]).json()["verdict"] == "win"
    assert analysis._get_pool()[0] is not old
