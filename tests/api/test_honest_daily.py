"""The honest daily deal over the JSON API (SQLite and PostgreSQL): no deal number anywhere,
the deal string once the day is over, one ranked attempt (a results delete does not give a
second one), too-fast wins unverified, ranked entries and new players capped per client
address (behind a trusted proxy: the forwarded address), paged lists."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from starlette.requests import HTTPConnection

from app.config import get_settings
from app.services import days
from app.web.site.security import client_address
from tests.support.api_client import Player, assert_error, count_rows
from tests.support.deals import WIN_DEAL, WIN_LINE, set_daily_deal

pytestmark = pytest.mark.usefixtures("configured")


@pytest.fixture()
def day(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    when = date(2045, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    yield when


@pytest.fixture()
def limits_on(monkeypatch: pytest.MonkeyPatch) -> Any:
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    return settings


def play(p: Player, gid: str) -> None:
    for action in WIN_LINE:
        assert p.apply(gid, action).status_code == 200


def board(p: Player, **params: Any) -> dict[str, Any]:
    r = p.http.get("/api/daily/scorpion", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json()["leaderboard"])


def test_the_daily_json_has_no_deal_number_and_publishes_the_deal_string_after(
    app: FastAPI, engine: Engine, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = Player(app)
    g = p.post("/api/daily/scorpion").json()
    assert g.get("deal_number") is None
    info = p.get("/api/daily/scorpion").json()
    assert info["deal_number"] is None and info["deal"] is None and info["started"] is True
    with engine.connect() as conn:
        deal = conn.execute(text("SELECT deal FROM games WHERE id = :g"), {"g": g["id"]}).scalar()
    assert deal not in p.get("/api/daily/scorpion").text
    later = datetime(day.year, day.month, day.day, 12, tzinfo=UTC) + timedelta(days=1)
    monkeypatch.setattr(days, "clock", lambda: later)
    past = p.get(f"/api/daily/scorpion/{day.isoformat()}").json()
    assert past["over"] and past["deal"] == deal and past["deal_number"] is None


def test_deleting_results_then_again_is_not_ranked(app: FastAPI, day: date) -> None:
    set_daily_deal("scorpion", day, WIN_DEAL)
    p = Player(app)
    play(p, p.post("/api/daily/scorpion").json()["id"])
    assert [e["you"] for e in board(p)["wins"]] == [True]
    assert p.delete("/api/stats").status_code in (200, 204)
    assert board(p)["wins"] == []
    again = p.post("/api/daily/scorpion", {"again": True})
    assert again.status_code == 201
    play(p, again.json()["id"])
    b = board(p)
    assert b["wins"] == [] and not any(e["you"] for e in b["others"] + b["unverified"])


def test_a_too_fast_win_is_listed_as_unverified(
    app: FastAPI, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "ranked_min_seconds_per_move", 0.75)
    set_daily_deal("scorpion", day, WIN_DEAL)
    p = Player(app)
    play(p, p.post("/api/daily/scorpion").json()["id"])
    b = board(p)
    assert b["wins"] == []
    assert [(e["reason"], e["you"], e["rank"]) for e in b["unverified"]] == [
        ("too-fast", True, None)
    ]


def test_ranked_entries_per_forwarded_address_are_capped(
    app: FastAPI, day: date, limits_on: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits_on, "ranked_entries_per_address", 2)
    monkeypatch.setattr(limits_on, "trusted_proxies", "10.0.0.0/8")
    suffix = uuid.uuid4().int % 250

    def via_proxy(client_ip: str) -> Player:
        http = TestClient(app, client=("10.1.2.3", 4000))
        # A client-made left-most value is ignored: the right-most untrusted hop counts.
        http.headers["X-Forwarded-For"] = f"6.6.6.{suffix}, {client_ip}, 10.9.9.9"
        p = Player.__new__(Player)
        p._open(http)
        return p

    ranked = []
    for _ in range(3):
        p = via_proxy(f"198.51.100.{suffix}")
        assert p.post("/api/daily/scorpion").status_code == 201
        ranked.append(any(e["you"] for e in board(p)["others"]))
    assert ranked == [True, True, False]
    other = via_proxy(f"203.0.113.{suffix}")
    other.post("/api/daily/scorpion")
    assert any(e["you"] for e in board(other)["others"])


def test_new_players_per_address_are_capped_with_429(
    app: FastAPI, engine: Engine, day: date, limits_on: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits_on, "new_players_per_minute", 3)
    address = f"192.0.2.{uuid.uuid4().int % 250}"
    made = []
    for _ in range(4):
        p = Player.__new__(Player)
        p._open(TestClient(app, client=(address, 5000)))
        made.append(p)
    players_before = count_rows(engine, "players")
    for p in made[:3]:
        assert p.post("/api/daily/scorpion").status_code == 201
    r = made[3].post("/api/daily/scorpion")
    detail = assert_error(r, 429)
    assert "new players" in detail and int(r.headers["Retry-After"]) >= 1
    assert count_rows(engine, "players") == players_before + 3  # the fourth made nothing
    assert count_rows(engine, "players", "id = :p", p=made[3].id) == 0
    # An existing player from the same address is not held back; another address is not.
    assert made[0].post("/api/daily/scorpion").status_code == 200
    elsewhere = Player.__new__(Player)
    elsewhere._open(TestClient(app, client=("192.0.2.251", 5000)))
    assert elsewhere.post("/api/daily/scorpion").status_code == 201


def test_lists_are_paged_in_the_json(app: FastAPI, day: date) -> None:
    viewer = Player(app)
    for _ in range(53):
        assert Player(app).post("/api/daily/scorpion").status_code == 201
    first, second = board(viewer), board(viewer, page=2)
    assert (first["page"], first["pages"], first["total"], first["page_size"]) == (1, 2, 53, 50)
    assert len(first["others"]) == 50 and len(second["others"]) == 3
    assert_error(viewer.get("/api/daily/scorpion?page=0"), 422)
    assert_error(viewer.get("/api/daily/scorpion?page=x"), 422)
    assert viewer.get("/daily/scorpion?page=2").status_code == 200
    assert viewer.get("/daily/scorpion?page=0").status_code == 422


def scope(headers: list[tuple[bytes, bytes]], peer: str) -> HTTPConnection:
    return HTTPConnection({"type": "http", "headers": headers, "client": (peer, 1), "path": "/"})


def test_client_address_trusts_only_the_proxies() -> None:
    xff = [(b"x-forwarded-for", b"1.1.1.1, 2.2.2.2, 10.0.0.5")]
    assert client_address(scope(xff, "8.8.8.8"), "10.0.0.0/8") == "8.8.8.8"  # not a proxy
    assert client_address(scope(xff, "10.0.0.1"), "10.0.0.0/8") == "2.2.2.2"
    assert client_address(scope([], "10.0.0.1"), "10.0.0.0/8") == "10.0.0.1"
    assert client_address(scope(xff, "127.0.0.1"), "127.0.0.1,::1") == "10.0.0.5"


def test_a_challenger_who_deletes_results_is_not_ranked_again(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal=WIN_DEAL)
    token = p.post(f"/api/games/{g['id']}/challenge").json()["token"]
    assert p.delete("/api/stats").status_code in (200, 204)
    again = p.post(f"/api/challenges/{token}/games")
    assert again.status_code == 201
    play(p, again.json()["id"])
    lb = p.get(f"/api/challenges/{token}").json()["leaderboard"]
    assert lb["wins"] == []
