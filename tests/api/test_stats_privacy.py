"""Statistics, saved games and the three privacy deletes, checked against the tables."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import Engine, inspect, text
from sqlalchemy.orm import Session

from app import services
from app.config import get_settings
from app.engine import ALL_VARIANTS
from tests.support.api_client import KNOWN_WIN, Player, assert_error, count_rows


def _scorpion(p: Player) -> dict[str, Any]:
    return dict(p.get("/api/stats").json()["variants"]["scorpion"])


def _win(p: Player, deal: str = KNOWN_WIN["deal"]) -> dict[str, Any]:
    g = p.new_game(deal=deal)
    r: Any = None
    for action in KNOWN_WIN["line"]:
        r = p.apply(g["id"], action)
        assert r.status_code == 200, r.text
    assert r.json()["status"] == "won"
    return dict(r.json())


def test_stats_list_every_variant_with_the_documented_fields(app: FastAPI) -> None:
    p = Player(app)
    body = p.get("/api/stats").json()
    assert set(body) == {"variants"}
    assert set(body["variants"]) == set(ALL_VARIANTS)
    for s in body["variants"].values():
        assert {"started", "won", "current_streak", "best_streak"} <= set(s)
        assert s["started"] == 0 and s["won"] == 0 and s["win_rate"] is None
        assert s["best_time_seconds"] is None and s["fewest_moves"] is None


def test_every_started_game_counts_numbered_string_and_restart(app: FastAPI) -> None:
    """A game counts as a start at its first move (issue 41), whatever its deal."""
    p = Player(app)
    g = p.new_game(deal_number=17)
    assert _scorpion(p)["started"] == 0  # a dealt layout nobody touched is not a game yet
    p.first_step(g["id"])
    assert _scorpion(p)["started"] == 1
    p.first_step(p.new_game(deal=KNOWN_WIN["deal"])["id"])
    assert _scorpion(p)["started"] == 2
    p.first_step(p.post(f"/api/games/{g['id']}/restart").json()["id"])
    s = _scorpion(p)
    assert s["started"] == 3 and s["won"] == 0 and s["win_rate"] == 0.0
    assert s["last_played"] is not None
    p.first_step(p.new_game(variant="wasp", deal_number=17)["id"])
    assert p.get("/api/stats").json()["variants"]["wasp"]["started"] == 1
    assert _scorpion(p)["started"] == 3


def test_wins_streaks_and_abandoned_games(app: FastAPI) -> None:
    p = Player(app)
    _win(p)
    _win(p)
    s = _scorpion(p)
    assert s["started"] == 2 and s["won"] == 2 and s["win_rate"] == 1.0
    assert s["current_streak"] == 2 and s["best_streak"] == 2
    assert s["fewest_moves"] == len(KNOWN_WIN["line"])
    # Leaving an unfinished game for a new one of the same variant ends the streak.
    p.first_step(p.new_game(deal_number=5)["id"])
    p.first_step(p.new_game(deal_number=6)["id"])
    s = _scorpion(p)
    assert s["started"] == 4 and s["current_streak"] == 0 and s["best_streak"] == 2
    assert s["abandoned"] == 1
    _win(p)  # abandons deal 6, then wins
    s = _scorpion(p)
    assert s["won"] == 3 and s["current_streak"] == 1 and s["best_streak"] == 2
    assert s["abandoned"] == 2


def test_an_abandoned_game_stays_reachable_and_resume_gives_the_newest(
    app: FastAPI, db: Session
) -> None:
    p = Player(app)
    old = p.new_game(deal_number=5)
    new = p.new_game(deal_number=6)
    assert p.get(f"/api/games/{old['id']}").status_code == 200
    resumed = services.resume_game(db, p.id, "scorpion")
    assert resumed is not None and resumed.id == new["id"]
    assert services.resume_game(db, p.id, "wasp") is None
    assert [g.id for g in services.saved_games(db, p.id)] == [new["id"]]


def test_with_saving_off_unfinished_games_are_not_kept(
    app: FastAPI, db: Session, engine: Engine
) -> None:
    p = Player(app)
    services.update_settings(db, p.id, save_games=False)
    first = p.new_game(deal_number=5)
    p.first_step(first["id"])
    assert services.resume_game(db, p.id, "scorpion") is None
    second = p.new_game(deal_number=6)
    p.first_step(second["id"])
    assert_error(p.get(f"/api/games/{first['id']}"), 404)
    assert count_rows(engine, "games", "id = :g", g=first["id"]) == 0
    assert p.get(f"/api/games/{second['id']}").status_code == 200
    assert _scorpion(p)["started"] == 2 and _scorpion(p)["abandoned"] == 1
    services.update_settings(db, p.id, save_games=True)
    resumed = services.resume_game(db, p.id, "scorpion")
    assert resumed is not None and resumed.id == second["id"]


def test_with_recording_off_nothing_is_counted(app: FastAPI, db: Session) -> None:
    p = Player(app)
    assert services.get_settings(db, p.id) == services.PlayerPreferences(True, True)
    services.update_settings(db, p.id, record_stats=False)
    assert services.get_settings(db, p.id).record_stats is False
    g = p.new_game(deal_number=8)
    p.post(f"/api/games/{g['id']}/restart")
    _win(p)
    assert _scorpion(p)["started"] == 0 and _scorpion(p)["won"] == 0
    services.update_settings(db, p.id, record_stats=True)
    _win(p)
    s = _scorpion(p)
    assert s["started"] == 1 and s["won"] == 1


def _player_tables(engine: Engine) -> list[str]:
    inspector = inspect(engine)
    return [
        t
        for t in inspector.get_table_names()
        if any(c["name"] == "player_id" for c in inspector.get_columns(t))
    ]


def test_delete_saved_games(app: FastAPI, engine: Engine) -> None:
    p, other = Player(app), Player(app)
    won = _win(p)
    saved = p.new_game(deal_number=20)
    p.post(f"/api/games/{saved['id']}/deal")
    wasp = p.new_game(variant="wasp", deal_number=20)
    kept = other.new_game(deal_number=20)
    stats = p.get("/api/stats").json()
    r = p.delete("/api/games")
    assert r.status_code == 204 and r.content == b""
    for gid in (saved["id"], wasp["id"]):
        assert count_rows(engine, "games", "id = :g", g=gid) == 0
        assert count_rows(engine, "game_actions", "game_id = :g", g=gid) == 0
        assert_error(p.get(f"/api/games/{gid}"), 404)
    assert count_rows(engine, "games", "player_id = :p AND status = 'playing'", p=p.id) == 0
    # Results stay: the won game and the statistics.
    assert p.get(f"/api/games/{won['id']}").json() == won
    assert p.get("/api/stats").json() == stats
    assert other.get(f"/api/games/{kept['id']}").json() == kept


def test_delete_results(app: FastAPI, engine: Engine) -> None:
    p, other = Player(app), Player(app)
    won = _win(p)
    p.new_game(deal_number=30)  # abandoned below
    current = p.new_game(deal_number=31)
    _win(other)
    r = p.delete("/api/stats")
    assert r.status_code == 204
    for table in ("variant_stats", "stat_events"):
        assert count_rows(engine, table, "player_id = :p", p=p.id) == 0
    assert count_rows(engine, "games", "player_id = :p AND status = 'won'", p=p.id) == 0
    assert count_rows(engine, "games", "player_id = :p AND abandoned_at IS NOT NULL", p=p.id) == 0
    assert count_rows(engine, "game_actions", "game_id = :g", g=won["id"]) == 0
    assert_error(p.get(f"/api/games/{won['id']}"), 404)
    for s in p.get("/api/stats").json()["variants"].values():
        assert s["started"] == 0 and s["won"] == 0 and s["best_streak"] == 0
    # The unfinished current game stays playable; the other player's results stay.
    assert p.get(f"/api/games/{current['id']}").status_code == 200
    assert _scorpion(other)["won"] == 1
    assert count_rows(engine, "variant_stats", "player_id = :p", p=other.id) == 1


def test_delete_everything(app: FastAPI, engine: Engine) -> None:
    p, other = Player(app), Player(app)
    won = _win(p)
    g = p.new_game(deal_number=40)
    p.post(f"/api/games/{g['id']}/deal")
    other_game = other.new_game(deal_number=40)
    old_cookies = dict(p.http.cookies)
    assert old_cookies
    r = p.delete("/api/player")
    assert r.status_code == 204
    assert "cookies" in r.headers["clear-site-data"]
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(get_settings().cookie_name + "=") and "max-age=0" in cookie
    assert not p.http.cookies  # the client dropped the cleared cookie
    for table in _player_tables(engine):
        assert count_rows(engine, table, "player_id = :p", p=p.id) == 0, table
    assert count_rows(engine, "players", "id = :p", p=p.id) == 0
    for gid in (won["id"], g["id"]):
        assert count_rows(engine, "games", "id = :g", g=gid) == 0
        assert count_rows(engine, "game_actions", "game_id = :g", g=gid) == 0
    with engine.connect() as conn:
        orphans = conn.execute(
            text("SELECT COUNT(*) FROM game_actions WHERE game_id NOT IN (SELECT id FROM games)")
        ).scalar_one()
    assert orphans == 0
    # The next request is a new, empty player.
    fresh = p.get("/api/session").json()
    assert fresh["player"] != p.id
    assert _scorpion(p)["started"] == 0
    assert other.get(f"/api/games/{other_game['id']}").json() == other_game
