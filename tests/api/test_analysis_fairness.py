"""The solver is shared fairly (finding 5): one question in flight per player (a second one
is a 429 with ``Retry-After``), a full queue answers 503 with ``Retry-After`` instead of
"unknown", and only an answer ("win" or "loss") marks the game assisted: a question refused or
answered "could not tell in time" leaves the game unassisted. JSON and pages alike."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.config import get_settings
from app.services import analysis
from tests.support.api_client import KNOWN_WIN, Player
from tests.support.deals import HARD_DEAL

pytestmark = pytest.mark.usefixtures("configured")


def _assisted(engine: Engine, gid: str) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(text("SELECT assisted FROM games WHERE id = :g"), {"g": gid}).scalar_one()
        )


def _form(p: Player, path: str, data: dict[str, Any], **kw: Any) -> Any:
    """A plain form post of the pages, as the player's browser."""
    form = {"csrf_token": p.token, **data}
    return p.http.post(path, data=form, follow_redirects=False, **kw)


def _in_background(p: Player, gid: str) -> tuple[threading.Thread, list[Any]]:
    """Ask about ``gid`` in a thread; returns once the question is with the solver."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(p.post(f"/api/games/{gid}/analysis")))
    thread.start()
    deadline = time.monotonic() + 20
    while p.id not in analysis._players_asking or analysis._in_flight < 1:
        assert time.monotonic() < deadline, "the first question never reached the solver"
        time.sleep(0.01)
    return thread, out


@pytest.fixture()
def slow_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hard deal takes the whole budget: long enough to overlap a second question."""
    monkeypatch.setattr(get_settings(), "analysis_budget_seconds", 1.5)
    analysis._get_pool()  # started (and warm) before the clock matters


def test_one_question_in_flight_per_player(app: FastAPI, engine: Engine, slow_solver: None) -> None:
    p = Player(app)
    hard = p.new_game(deal=HARD_DEAL)
    easy = p.new_game(deal=KNOWN_WIN["deal"])
    thread, out = _in_background(p, hard["id"])
    r = p.post(f"/api/games/{easy['id']}/analysis")
    assert r.status_code == 429, r.text
    assert "one question at a time" in r.json()["detail"]
    assert int(r.headers["Retry-After"]) > 0
    assert not _assisted(engine, easy["id"])  # nothing was asked
    # The pages' buttons are refused the same way, with a readable page.
    page = _form(p, f"/games/{easy['id']}/winnable", {"version": easy["version"]})
    assert page.status_code == 429 and "one question at a time" in page.text
    assert "Retry-After" in page.headers
    thread.join(30)
    assert out[0].status_code == 200
    # The first question over, the next one is answered.
    r = p.post(f"/api/games/{easy['id']}/analysis")
    assert r.status_code == 200 and r.json()["verdict"] == "win"
    assert _assisted(engine, easy["id"])


def test_a_full_queue_is_503_not_unknown_and_marks_nothing(
    app: FastAPI, engine: Engine, slow_solver: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis, "QUEUE_PER_WORKER", 1)  # one solver process, one place
    hog, other = Player(app), Player(app)
    hard = hog.new_game(deal=HARD_DEAL)
    mine = other.new_game(deal=KNOWN_WIN["deal"])
    thread, _ = _in_background(hog, hard["id"])
    r = other.post(f"/api/games/{mine['id']}/analysis")
    assert r.status_code == 503, r.text
    assert "solver is busy" in r.json()["detail"]
    assert int(r.headers["Retry-After"]) > 0
    assert not _assisted(engine, mine["id"])
    page = _form(other, f"/games/{mine['id']}/solver-hint", {"version": mine["version"]})
    assert page.status_code == 503 and "solver is busy" in page.text
    assert "Retry-After" in page.headers
    assert not _assisted(engine, mine["id"])
    thread.join(30)


def test_unknown_does_not_mark_the_game_assisted(
    app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = Player(app)
    g = p.new_game(deal=HARD_DEAL)
    monkeypatch.setattr(get_settings(), "analysis_budget_seconds", 0.05)
    r = p.post(f"/api/games/{g['id']}/analysis", {"hint": True})
    assert r.status_code == 200 and r.json()["verdict"] == "unknown"
    assert not _assisted(engine, g["id"])
    # The page says so too.
    page = _form(
        p, f"/games/{g['id']}/winnable", {"version": g["version"]}, headers={"HX-Request": "true"}
    )
    assert page.status_code == 200
    assert "not marked as assisted" in page.text
    assert not _assisted(engine, g["id"])


def _from_address(app: FastAPI, host: str) -> Player:
    """A browser at its own client address (the per-address keys: ``current_address``)."""
    p = Player.__new__(Player)
    p._open(TestClient(app, client=(host, 40000)))
    return p


def test_a_flood_from_one_address_does_not_starve_another_clients_easy_question(
    app: FastAPI, engine: Engine, slow_solver: None
) -> None:
    """Issue 39, item 4: four cookies on one address ask hard questions in a loop; a player
    at another address asking about a position the solver decides in milliseconds still gets
    its answer each time (not a 503, not "unknown")."""
    flooders = [Player(app) for _ in range(4)]  # one address ("testclient"), four cookies
    hard = [f.new_game(deal=HARD_DEAL)["id"] for f in flooders]
    victim = _from_address(app, "198.51.100.7")
    easy = victim.new_game(deal=KNOWN_WIN["deal"])["id"]
    stop = threading.Event()
    flood_answers: list[int] = []

    def flood(p: Player, gid: str) -> None:
        while not stop.is_set():
            flood_answers.append(p.post(f"/api/games/{gid}/analysis").status_code)

    threads = [
        threading.Thread(target=flood, args=pair) for pair in zip(flooders, hard, strict=True)
    ]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 20
        while analysis._in_flight < 1 or len(flood_answers) < 4:
            assert time.monotonic() < deadline, "the flood never reached the solver"
            time.sleep(0.01)
        answers = []
        for _ in range(4):
            r = victim.post(f"/api/games/{easy}/analysis")
            answers.append((r.status_code, r.json().get("verdict")))
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert answers == [(200, "win")] * 4, (answers, flood_answers)
    assert _assisted(engine, easy)
    # The flood was really asking (and was itself refused places beyond its address's share).
    assert flood_answers.count(200) >= 2 and 503 in flood_answers, flood_answers
