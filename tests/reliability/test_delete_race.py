"""Requests racing "Delete everything" (finding 8): writes of the same player sent at the same
moment as ``DELETE /api/player``, to two uvicorn workers, on SQLite and PostgreSQL. None is a
5xx, and once the deletion is done nothing of the player is left: no request re-created the
id (the tombstone), whatever order the database put them in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, text

from tests.support.api_client import PLAYER_KEYED_TABLES
from tests.support.live import LivePlayer, at_once
from tests.support.server import LiveServer


@pytest.fixture()
def server(fresh_db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    env = {"RATE_LIMITS": "on"}
    with LiveServer(fresh_db_url, workers=2, env=env, log_path=tmp_path / "uvicorn.log") as s:
        yield s


def _call(
    base_url: str, cookies: dict[str, str], token: str, method: str, path: str, body: Any
) -> Callable[[], httpx2.Response]:
    def call() -> httpx2.Response:
        with httpx2.Client(base_url=base_url, cookies=cookies, timeout=60) as client:
            headers = {"X-CSRF-Token": token}
            if isinstance(body, dict) and body.get("form"):
                form = {"csrf_token": token, **body["form"]}
                return client.request(method, path, data=form, headers=headers)
            return client.request(method, path, json=body, headers=headers)

    return call


def test_writes_racing_delete_everything(fresh_db_url: str, server: LiveServer) -> None:
    engine = create_engine(fresh_db_url)
    try:
        for round_ in range(3):
            p = LivePlayer(server.url)
            game = p.new_game(deal_number=100 + round_)
            assert p.post(f"/api/games/{game['id']}/challenge").status_code in (200, 201)
            cookies, token, gid = dict(p.cookies), p.token, game["id"]

            def call(method: str, path: str, body: Any = None) -> Callable[[], httpx2.Response]:
                return _call(server.url, cookies, token, method, path, body)  # noqa: B023

            calls = [
                call("POST", "/api/games", {"variant": "scorpion", "deal_number": 9}),
                call("POST", f"/api/games/{gid}/deal"),
                call("PUT", "/api/profile", {"display_name": "Racer"}),
                call("POST", "/api/daily/scorpion"),
                call("POST", "/settings", {"form": {"save_games": "on"}}),
                call("POST", "/api/games", {"variant": "scorpion"}),
                call("DELETE", "/api/player"),
                call("POST", "/api/games", {"variant": "spider", "deal_number": 3}),
                call("POST", f"/api/games/{gid}/undo"),
                call("DELETE", "/api/stats"),
                call("POST", "/games", {"form": {"variant": "scorpion"}}),
                call("POST", "/api/games", {"variant": "scorpion", "deal_number": 10}),
            ]
            responses = at_once(calls)
            statuses = [r.status_code for r in responses]
            assert all(s < 500 for s in statuses), list(
                zip(statuses, [r.text[:200] for r in responses], strict=True)
            )
            # Whatever came before the deletion is gone with it; whatever came after was
            # refused: nothing of the player is left.
            with engine.connect() as conn:
                assert (
                    conn.execute(
                        text("SELECT count(*) FROM players WHERE id = :p"), {"p": p.id}
                    ).scalar_one()
                    == 0
                )
                for table in PLAYER_KEYED_TABLES:
                    n = conn.execute(
                        text(f"SELECT count(*) FROM {table} WHERE player_id = :p"),  # noqa: S608
                        {"p": p.id},
                    ).scalar_one()
                    assert n == 0, (table, n, statuses)
            # And later writes with the old cookie are refused, cleanly.
            late = call("POST", "/api/games", {"variant": "scorpion"})()
            assert late.status_code == 410, late.text
    finally:
        engine.dispose()
