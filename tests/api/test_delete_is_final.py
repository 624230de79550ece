""" "Delete everything" is final (findings 8 and 9): the deleted id is refused for good (a
tombstone: a keyed hash, never the id), a write with the old cookie is a 410 that clears the
cookie (the next request is a new player), nothing of the player is re-created, the player's
live race reports and the challenges they made are gone in the same transaction, and
retention removes players with no data left."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.config import get_settings
from app.db.models import Player as PlayerRow
from app.db.models import PlayerSettings, utcnow
from app.services.common import tombstone_key
from app.services.retention import purge_empty_players
from tests.support.api_client import PLAYER_KEYED_TABLES, Player, count_rows

pytestmark = pytest.mark.usefixtures("configured")


def _no_rows_left(engine: Engine, player_id: str) -> None:
    assert count_rows(engine, "players", "id = :p", p=player_id) == 0
    for table in PLAYER_KEYED_TABLES:
        assert count_rows(engine, table, "player_id = :p", p=player_id) == 0, table


def _with_old_cookie(app: FastAPI, p: Player, cookies: dict[str, str]) -> Player:
    """Another tab of the deleted player: the same (old) cookie and CSRF token."""
    tab = Player(app)
    tab.http.cookies.clear()
    for name, value in cookies.items():
        tab.http.cookies.set(name, value)
    tab.id, tab.token = p.id, p.token
    return tab


def test_a_deleted_id_is_refused_for_good(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    p.new_game(deal_number=12)
    cookies = dict(p.http.cookies.items())
    assert p.delete("/api/player").status_code == 204
    tab = _with_old_cookie(app, p, cookies)
    writes: list[tuple[str, str, Any]] = [
        ("POST", "/api/games", {"variant": "scorpion", "deal_number": 5}),
        ("PUT", "/api/profile", {"display_name": "Ghost"}),
        ("POST", "/api/daily/scorpion", None),
    ]
    for method, path, body in writes:
        r = tab.http.request(method, path, json=body, headers=tab.headers)
        assert r.status_code == 410, (path, r.status_code, r.text)
        assert "deleted" in r.json()["detail"]
        cleared = r.headers.get("set-cookie", "").lower()
        assert cleared.startswith(get_settings().cookie_name + "=") and "max-age=0" in cleared
        tab = _with_old_cookie(app, p, cookies)
    # The pages too: a readable page, not a 5xx.
    page = tab.http.post(
        "/games",
        data={"csrf_token": tab.token, "variant": "scorpion"},
        headers={"Accept": "text/html"},
        follow_redirects=False,
    )
    assert page.status_code == 410 and "deleted" in page.text
    _no_rows_left(engine, p.id)
    # Only a keyed hash is kept, never the id itself.
    with engine.connect() as conn:
        hashes = conn.execute(text("SELECT id_hash FROM deleted_players")).scalars().all()
    assert tombstone_key(p.id) in hashes and p.id not in hashes
    # Reads still work (as an empty player); a new browser identity plays normally.
    assert tab.http.get("/api/stats").status_code == 200
    fresh = Player(app)
    assert fresh.id != p.id
    fresh.new_game(deal_number=5)


def test_race_reports_and_challenges_go_with_the_player(app: FastAPI, engine: Engine) -> None:
    ann, bob = Player(app), Player(app)
    assert (
        ann.http.put(
            "/api/profile", json={"display_name": "Annabel"}, headers=ann.headers
        ).status_code
        == 200
    )
    g = ann.new_game(deal_number=77)
    r = ann.post(f"/api/games/{g['id']}/challenge")
    assert r.status_code in (200, 201), r.text
    token = r.json()["token"]
    joined = bob.post(f"/api/challenges/{token}/games")
    assert joined.status_code == 201, joined.text
    # Progress of both players (race_events rows on SQLite).
    assert ann.post(f"/api/games/{g['id']}/deal").status_code == 200
    assert bob.post(f"/api/games/{joined.json()['id']}/deal").status_code == 200
    # Ann also joins a challenge made by someone else: it stays.
    cat = Player(app)
    cg = cat.new_game(deal_number=78)
    other_token = cat.post(f"/api/games/{cg['id']}/challenge").json()["token"]
    assert ann.post(f"/api/challenges/{other_token}/games").status_code == 201
    assert ann.delete("/api/player").status_code == 204
    with engine.connect() as conn:
        payloads = conn.execute(text("SELECT payload FROM race_events")).scalars().all()
    assert not any("Annabel" in payload for payload in payloads)
    assert bob.get(f"/api/challenges/{token}").status_code == 404
    assert bob.get(f"/api/games/{joined.json()['id']}").status_code == 200  # bob's game stays
    assert cat.get(f"/api/challenges/{other_token}").status_code == 200
    _no_rows_left(engine, ann.id)


def test_retention_removes_players_with_no_data_left(db: Session, engine: Engine) -> None:
    old = utcnow() - timedelta(days=400)
    empty, recent, keeper = "e" * 32, "r" * 32, "k" * 32
    for pid, at in ((empty, old), (recent, utcnow()), (keeper, old)):
        db.add(PlayerRow(id=pid, created_at=at))
        db.add(PlayerSettings(player_id=pid, save_games=True, record_stats=True, updated_at=at))
    db.commit()
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO player_profiles (player_id, display_name, on_leaderboards, "
                "updated_at) VALUES (:p, 'Keeper', true, :at)"
            ),
            {"p": keeper, "at": old},
        )
    assert purge_empty_players(db, 180) == 1
    assert count_rows(engine, "players", "id = :p", p=empty) == 0
    assert count_rows(engine, "player_settings", "player_id = :p", p=empty) == 0
    assert count_rows(engine, "players", "id = :p", p=recent) == 1
    assert count_rows(engine, "players", "id = :p", p=keeper) == 1
    assert purge_empty_players(db, 180) == 0
