"""API.md, end to end, the way an outside client meets it.

A fresh database (SQLite file, or a PostgreSQL database of its own), `alembic upgrade head`,
then `uvicorn app.main:app` in a subprocess, driven over HTTP with nothing but the contract.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.engine import Game, deal_from_number, format_deal
from tests.support import api_client as helpers

ROOT = Path(__file__).resolve().parents[2]
KNOWN_WIN = helpers.KNOWN_WIN
GAME_KEYS = set(helpers.GAME_KEYS)
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except Exception:
        return False


class LiveServer:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(self.port)],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("ab"),
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx2.get(self.base + "/api/session", timeout=1).status_code == 200:
                    return
            except httpx2.TransportError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> str:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    dbname = None
    tmp = tmp_path_factory.mktemp("live")
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'scorpion.db'}"
    else:
        if not _pg_available():
            if os.environ.get("REQUIRE_POSTGRES") == "1":
                pytest.fail("PostgreSQL is required (REQUIRE_POSTGRES=1) but unreachable")
            pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
        import psycopg

        dbname = f"scorpion_live_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{dbname}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "live-contract-test-secret-key-0123456789",
    }
    env.pop("RATE_LIMITS", None)  # the contract's default: limits on
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    live = LiveServer(env, tmp / "server.log")
    live.start()
    try:
        yield live
    finally:
        errors = live.stop()
        if dbname:
            import psycopg

            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        assert "Traceback" not in errors, errors[-3000:]


class Player(helpers.Player):
    """One browser over real HTTP: its own cookie jar and CSRF token."""

    def __init__(self, base: str) -> None:
        self._open(httpx2.Client(base_url=base, timeout=15))


_assert_error = helpers.assert_error


def test_session_sets_an_httponly_cookie(server: LiveServer) -> None:
    r = httpx2.get(server.base + "/api/session")
    assert r.status_code == 200
    cookie = r.headers.get("set-cookie", "")
    assert "httponly" in cookie.lower()
    assert "samesite=lax" in cookie.lower()


def test_new_numbered_game_matches_its_deal_and_hides_face_down_cards(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=1)
    assert set(g) >= GAME_KEYS
    assert g["variant"] == "scorpion" and g["deal_number"] == 1
    assert g["status"] == "playing" and g["stock"] == 3 and g["completed"] == []
    assert g["moves"] == 0 and g["can_undo"] is False and g["can_redo"] is False
    view = Game.new("scorpion", deal_from_number(1)).public_view()
    assert g["columns"] == view.columns
    helpers.assert_no_hidden_card(json.dumps(g), helpers.mirror(deal_number=1))
    again = p.get(f"/api/games/{g['id']}")
    assert again.status_code == 200 and again.json() == g


def test_game_from_a_deal_string_has_no_deal_number(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal=KNOWN_WIN["deal"])
    assert g["deal_number"] is None
    assert g["columns"][4] == KNOWN_WIN["deal"].split()[28:35]


def test_random_deal_numbers_are_in_range(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game()
    assert 1 <= g["deal_number"] <= 4294967295


@pytest.mark.parametrize(
    "body",
    [
        {"variant": "spider"},
        {"variant": "scorpion", "deal_number": 0},
        {"variant": "scorpion", "deal_number": 4294967296},
        {"variant": "scorpion", "deal_number": "twelve"},
        {"variant": "scorpion", "deal": "AS KS"},
        {"variant": "scorpion", "deal": " ".join(["AS"] * 52)},
        {"variant": 7},
    ],
)
def test_malformed_new_game_bodies_are_422_and_create_nothing(
    server: LiveServer, body: dict[str, Any]
) -> None:
    p = Player(server.base)
    before = p.get("/api/stats").json()
    _assert_error(p.post("/api/games", body), 422)
    assert p.get("/api/stats").json() == before


def test_unsafe_requests_without_csrf_token_are_403_and_change_nothing(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=1)
    hint = p.get(f"/api/games/{g['id']}/hints").json()["moves"][0]
    _assert_error(p.http.post("/api/games", json={"variant": "scorpion"}), 403)
    _assert_error(p.http.post(f"/api/games/{g['id']}/moves", json=hint), 403)
    _assert_error(
        p.http.post(f"/api/games/{g['id']}/moves", json=hint, headers={"X-CSRF-Token": "x"}), 403
    )
    _assert_error(p.http.post(f"/api/games/{g['id']}/deal"), 403)
    _assert_error(p.http.delete("/api/games"), 403)
    _assert_error(p.http.delete("/api/player"), 403)
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_moves_undo_redo_and_versions(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=1)
    gid = g["id"]
    hints = p.get(f"/api/games/{gid}/hints").json()
    engine = Game.new("scorpion", deal_from_number(1))
    assert [tuple(m.values()) for m in hints["moves"]] == [tuple(m) for m in engine.hints()]
    assert all(set(m) == {"from_column", "from_index", "to_column"} for m in hints["moves"])
    assert hints["can_deal"] is True

    move = hints["moves"][0]
    r = p.post(f"/api/games/{gid}/moves", {**move, "version": g["version"]})
    assert r.status_code == 200, r.text
    g1 = r.json()
    engine.move(move["from_column"], move["from_index"], move["to_column"])
    assert g1["columns"] == engine.public_view().columns
    assert g1["moves"] == 1 and g1["version"] == g["version"] + 1 and g1["can_undo"]

    # A stale version is 409, checked before anything else (here: an illegal move too).
    _assert_error(p.post(f"/api/games/{gid}/moves", {**move, "version": g["version"]}), 409)
    _assert_error(p.post(f"/api/games/{gid}/undo", {"version": g["version"]}), 409)
    assert p.get(f"/api/games/{gid}").json() == g1

    # An illegal move is 422 and changes nothing.
    _assert_error(
        p.post(f"/api/games/{gid}/moves", {"from_column": 0, "from_index": 0, "to_column": 5}),
        422,
    )
    for bad in (
        {"from_column": 9, "from_index": 0, "to_column": 1},
        {"from_column": "a", "from_index": 0, "to_column": 1},
        {"from_column": 0, "to_column": 1},
    ):
        _assert_error(p.post(f"/api/games/{gid}/moves", bad), 422)
    assert p.get(f"/api/games/{gid}").json() == g1

    r = p.post(f"/api/games/{gid}/undo", {"version": g1["version"]})
    assert r.status_code == 200
    g2 = r.json()
    assert g2["columns"] == g["columns"] and g2["moves"] == 0
    assert g2["version"] == g1["version"] + 1 and g2["can_redo"] and not g2["can_undo"]
    _assert_error(p.post(f"/api/games/{gid}/undo"), 422)
    r = p.post(f"/api/games/{gid}/redo")
    assert r.status_code == 200
    g3 = r.json()
    assert g3["columns"] == g1["columns"] and g3["version"] == g2["version"] + 1
    _assert_error(p.post(f"/api/games/{gid}/redo"), 422)


def test_the_deal_once_then_422(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=42)
    r = p.post(f"/api/games/{g['id']}/deal")
    assert r.status_code == 200
    dealt = r.json()
    assert dealt["stock"] == 0 and dealt["moves"] == 1
    tokens = format_deal(deal_from_number(42)).split()
    assert [dealt["columns"][c][-1] for c in range(3)] == tokens[49:52]
    _assert_error(p.post(f"/api/games/{g['id']}/deal"), 422)
    assert p.get(f"/api/games/{g['id']}/hints").json()["can_deal"] is False


def test_restart_is_a_new_game_with_the_same_deal(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=7)
    p.post(f"/api/games/{g['id']}/deal")
    r = p.post(f"/api/games/{g['id']}/restart")
    assert r.status_code == 201
    fresh = r.json()
    assert fresh["id"] != g["id"] and fresh["deal_number"] == 7
    assert fresh["columns"] == g["columns"] and fresh["moves"] == 0 and fresh["stock"] == 3


def test_a_known_deal_is_won_and_then_finished(server: LiveServer) -> None:
    p = Player(server.base)
    before = p.get("/api/stats").json()["variants"]["scorpion"]
    g = p.new_game(deal=KNOWN_WIN["deal"])
    gid = g["id"]
    for action in KNOWN_WIN["line"]:
        r = p.apply(gid, action)
        assert r.status_code == 200, r.text
    won = r.json()
    assert won["status"] == "won"
    assert sorted(won["completed"]) == ["C", "D", "H", "S"]
    assert all(col == [] for col in won["columns"])
    for path in ("deal", "undo", "redo"):
        _assert_error(p.post(f"/api/games/{gid}/{path}"), 422)
    _assert_error(
        p.post(f"/api/games/{gid}/moves", {"from_column": 0, "from_index": 0, "to_column": 1}),
        422,
    )
    assert p.get(f"/api/games/{gid}").json() == won
    after = p.get("/api/stats").json()["variants"]["scorpion"]
    assert after["started"] == before["started"] + 1
    assert after["won"] == before["won"] + 1


def test_another_players_game_is_404_on_every_path(server: LiveServer) -> None:
    a, b = Player(server.base), Player(server.base)
    assert a.id != b.id
    g = a.new_game(deal_number=3)
    gid = g["id"]
    _assert_error(b.get(f"/api/games/{gid}"), 404)
    _assert_error(b.get(f"/api/games/{gid}/hints"), 404)
    for path, body in (
        ("moves", {"from_column": 0, "from_index": 6, "to_column": 1}),
        ("deal", None),
        ("undo", None),
        ("redo", None),
        ("restart", None),
    ):
        _assert_error(b.post(f"/api/games/{gid}/{path}", body), 404)
    assert b.http.get(f"/games/{gid}").status_code == 404
    _assert_error(b.get("/api/games/does-not-exist"), 404)
    assert a.get(f"/api/games/{gid}").json() == g


def test_privacy_deletes(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=11)
    p.first_step(g["id"])  # (a game starts at its first move)
    stats = p.get("/api/stats").json()
    assert stats["variants"]["scorpion"]["started"] >= 1
    r = p.delete("/api/games")
    assert r.status_code == 204
    _assert_error(p.get(f"/api/games/{g['id']}"), 404)
    r = p.delete("/api/stats")
    assert r.status_code == 204
    zero = p.get("/api/stats").json()["variants"]["scorpion"]
    assert zero["started"] == 0 and zero["won"] == 0
    g2 = p.new_game(deal_number=12)
    r = p.delete("/api/player")
    assert r.status_code == 204
    assert (
        "max-age=0" in r.headers.get("set-cookie", "").lower()
        or "expires=" in r.headers.get("set-cookie", "").lower()
    )
    # The old cookie no longer names a player with data: the game is gone.
    fresh = Player(server.base)
    _assert_error(fresh.get(f"/api/games/{g2['id']}"), 404)


def test_openapi_lists_the_whole_contract(server: LiveServer) -> None:
    spec = httpx2.get(server.base + "/openapi.json").json()
    paths = spec["paths"]
    expected = {
        ("/api/session", "get"),
        ("/api/games", "post"),
        ("/api/games", "delete"),
        ("/api/games/{id}", "get"),
        ("/api/games/{id}/moves", "post"),
        ("/api/games/{id}/deal", "post"),
        ("/api/games/{id}/undo", "post"),
        ("/api/games/{id}/redo", "post"),
        ("/api/games/{id}/hints", "get"),
        ("/api/games/{id}/restart", "post"),
        ("/api/stats", "get"),
        ("/api/stats", "delete"),
        ("/api/player", "delete"),
    }
    found = {
        (path.replace("{game_id}", "{id}"), method) for path, ops in paths.items() for method in ops
    }
    assert expected <= found


def test_cookie_and_game_survive_a_server_restart(server: LiveServer) -> None:
    p = Player(server.base)
    g = p.new_game(deal_number=5)
    server.stop()
    server.start()
    r = p.get(f"/api/games/{g['id']}")
    assert r.status_code == 200 and r.json() == g
    assert p.get("/api/session").json()["player"] == p.id
