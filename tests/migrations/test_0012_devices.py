"""Migration 0012: ``devices`` and ``link_codes``. Every existing player gets its current
cookie as its first device (``first``, which a cookie holding the player id alone stands
for), so cookies from before keep working; a downgrade drops both tables and keeps the
players; the models and the migrated schema agree (``alembic check``)."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.db.session import make_engine
from app.services import devices
from tests.support.postgres import alembic_config

NOW = "2026-12-01 12:00:00.000000"
PLAYERS = ("a" * 32, "b" * 32)


def test_existing_players_get_their_cookie_as_first_device(fresh_url: str) -> None:
    cfg, engine = alembic_config(fresh_url), make_engine(fresh_url)
    command.upgrade(cfg, "0011")
    try:
        with engine.begin() as conn:
            for player in PLAYERS:
                conn.execute(
                    text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                    {"p": player, "t": NOW},
                )
        engine.dispose()

        command.upgrade(cfg, "0012")  # (checked against the models at head, below)
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT player_id, id, name FROM devices ORDER BY player_id")
            ).all()
        assert [tuple(r) for r in rows] == [
            (PLAYERS[0], "first", None),
            (PLAYERS[1], "first", None),
        ]
        # The cookie of before (the player id alone: the device "first") still stands, and
        # its first request names the device from its User-Agent.
        with engine.connect() as conn:
            assert devices.standing(
                conn, PLAYERS[0], "first", "Mozilla/5.0 (X11; Linux) Firefox/140"
            )
            assert not devices.standing(conn, PLAYERS[0], "another", "")
        with engine.connect() as conn:
            name = conn.execute(
                text("SELECT name FROM devices WHERE player_id = :p"), {"p": PLAYERS[0]}
            ).scalar_one()
        assert name == "Firefox on Linux"
        columns = {c["name"] for c in inspect(engine).get_columns("link_codes")}
        assert columns == {"code_hash", "player_id", "created_at", "expires_at"}
        # Devices hang off their player: no device without one, and none outlives it.
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO devices (player_id, id, created_at, last_seen_at) "
                    "VALUES ('nobody-at-all-here', 'x', :t, :t)"
                ),
                {"t": NOW},
            )
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM players WHERE id = :p"), {"p": PLAYERS[1]})
        with engine.connect() as conn:
            left = conn.execute(text("SELECT COUNT(*) FROM devices")).scalar_one()
        assert left == 1
        engine.dispose()

        command.downgrade(cfg, "0011")
        tables = set(inspect(engine).get_table_names())
        assert "devices" not in tables and "link_codes" not in tables
        with engine.connect() as conn:
            assert conn.execute(text("SELECT COUNT(*) FROM players")).scalar_one() == 1
        engine.dispose()
        command.upgrade(cfg, "head")
        command.check(cfg)
    finally:
        engine.dispose()
