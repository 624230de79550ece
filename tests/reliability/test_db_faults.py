"""Database faults: a throwaway PostgreSQL server of our own is stopped under two running
uvicorn workers. While it is down, pages answer a friendly HTML error page (503) and the API
answers 503 with JSON ``detail``; nothing is lost; once the database is back, service comes
back by itself (no restart of the app)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2
import psycopg
import pytest

from tests.support.live import LivePlayer
from tests.support.server import ServerFactory, migrate
from tests.support.throwaway_pg import ThrowawayPostgres, require_postgres_binaries

HTML = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture()
def throwaway_pg() -> Iterator[ThrowawayPostgres]:
    pg = ThrowawayPostgres(require_postgres_binaries()).init()
    try:
        pg.start()
        with psycopg.connect(pg.dsn(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE scorpion")
        yield pg
    finally:
        pg.destroy()


def _assert_api_503(r: httpx2.Response) -> None:
    assert r.status_code == 503, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "try again" in detail.lower()
    assert "Traceback" not in r.text and "psycopg" not in r.text
    assert r.headers.get("retry-after")


def test_database_down_then_back(
    throwaway_pg: ThrowawayPostgres, start_server: ServerFactory
) -> None:
    url = throwaway_pg.url("scorpion")
    migrate(url)
    server = start_server(url, workers=2, RATE_LIMITS="off")
    player = LivePlayer(server.url)
    game = player.new_game(777)
    gid = game["id"]
    move = player.get(f"/api/games/{gid}/hints").json()["moves"][0]
    moved = player.post(f"/api/games/{gid}/moves", move)
    assert moved.status_code == 200
    before = moved.json()
    assert player.get(f"/games/{gid}", headers=HTML).status_code == 200

    throwaway_pg.stop("fast")

    # Several rounds, each on a fresh connection, so that both workers meet the fault.
    for _ in range(4):
        _assert_api_503(player.get(f"/api/games/{gid}"))
        _assert_api_503(player.get(f"/api/games/{gid}/hints"))
        _assert_api_503(player.post(f"/api/games/{gid}/undo", {"version": before["version"]}))
        _assert_api_503(player.post("/api/games", {"variant": "scorpion"}))
        _assert_api_503(player.get("/api/stats"))
        for path in (f"/games/{gid}", "/"):
            page = player.get(path, headers=HTML)
            assert page.status_code == 503, (path, page.status_code)
            assert page.headers["content-type"].startswith("text/html")
            body = page.text
            assert "<html" in body.lower() and "try again" in body.lower()
            assert "Traceback" not in body and "psycopg" not in body
    # The page and API keep their security headers on the error path too.
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]

    throwaway_pg.start()

    # Back by itself: within a few seconds every worker answers normally again.
    deadline = time.monotonic() + 30
    while True:
        r = player.get(f"/api/games/{gid}")
        if r.status_code == 200:
            break
        assert r.status_code == 503, r.text
        assert time.monotonic() < deadline, "service did not come back after the database"
        time.sleep(0.2)
    for _ in range(8):  # fresh connections: both workers, both pools
        r = player.get(f"/api/games/{gid}")
        assert r.status_code == 200, r.text
        assert r.json()["version"] == before["version"]
        assert r.json()["columns"] == before["columns"]
        assert player.get(f"/games/{gid}", headers=HTML).status_code == 200
    undone = player.post(f"/api/games/{gid}/undo", {"version": before["version"]})
    assert undone.status_code == 200, undone.text
    assert undone.json()["columns"] == game["columns"]
