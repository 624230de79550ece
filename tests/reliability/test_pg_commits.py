"""What PostgreSQL itself counts (``pg_stat_database.xact_commit``): one committed transaction
per player action, nothing more (no pool ping of its own), and a pooled connection the server
has closed is replaced at checkout, so the next request succeeds (issue 12)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from tests.support.api_client import Player, mirror
from tests.support.postgres import PG_ADMIN_DSN

DEAL = 5  # a deal whose opening has a legal move


@pytest.fixture()
def pg_engine(engine: Engine) -> Engine:
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's own statistics (the SQLite case is counted in test_transactions)")
    return engine


def _admin(sql: str, *params: Any) -> Any:
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


def _settled_commits(engine: Engine) -> int:
    """The database's committed transactions once every connection of the app has ended (a
    backend reports its counts when it exits)."""
    engine.dispose()
    name = engine.url.database
    last, stable_since = -1, time.monotonic()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = int(_admin("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", name))
        if now != last:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since > 0.5:
            return now
        time.sleep(0.1)
    return last


def test_postgresql_counts_one_commit_per_action(app: FastAPI, pg_engine: Engine) -> None:
    player = Player(app)
    game = player.new_game(deal_number=DEAL)
    gid = game["id"]
    move = mirror(deal_number=DEAL).hints()[0]
    before = _settled_commits(pg_engine)
    rounds = 15
    for _ in range(rounds):
        moved = player.move(gid, move.from_column, move.from_index, move.to_column)
        assert moved.status_code == 200, moved.text
        assert player.post(f"/api/games/{gid}/undo").status_code == 200
    counted = _settled_commits(pg_engine) - before
    # 30 actions; a little room for the app's own background work (none expected).
    assert 2 * rounds <= counted <= 2 * rounds + 3, counted


def test_a_connection_the_server_closed_is_replaced_at_checkout(pg_engine: Engine) -> None:
    pg_engine.dispose()
    with pg_engine.connect() as conn:
        first = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    assert _admin("SELECT pg_terminate_backend(%s)", first) is True
    deadline = time.monotonic() + 5
    while _admin("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", first):
        assert time.monotonic() < deadline, "the backend did not end"
        time.sleep(0.05)
    with pg_engine.connect() as conn:  # the pool's only connection is the dead one
        second = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    assert second != first
