"""Migration 0014_clock: ``games.started_at``, the game's clock start (issue 41). Every game
from before was counted as started when it was dealt, so its clock starts at its creation; a
downgrade drops the column and keeps the games; the models and the migrated schema agree."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from app.db.session import make_engine
from tests.support.postgres import alembic_config

NOW = "2026-12-01 12:00:00.000000"
PLAYER = "c" * 32


def test_existing_games_start_their_clock_at_their_creation(fresh_url: str) -> None:
    cfg, engine = alembic_config(fresh_url), make_engine(fresh_url)
    command.upgrade(cfg, "0012")
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                {"p": PLAYER, "t": NOW},
            )
            conn.execute(
                text(
                    "INSERT INTO games (id, player_id, variant, deal, status, snapshot, version, "
                    "moves, moves_made, saved, assisted, counted, created_at, updated_at) "
                    "VALUES ('g1', :p, 'scorpion', 'x', 'playing', 's', 1, 0, 0, true, false, "
                    "true, :t, :t)"
                ),
                {"p": PLAYER, "t": NOW},
            )
        engine.dispose()

        command.upgrade(cfg, "0014_clock")
        with engine.connect() as conn:
            started, created = conn.execute(
                text("SELECT started_at, created_at FROM games WHERE id = 'g1'")
            ).one()
        assert started is not None and started == created

        command.downgrade(cfg, "0012")
        assert "started_at" not in {c["name"] for c in inspect(engine).get_columns("games")}
        with engine.connect() as conn:
            assert conn.execute(text("SELECT COUNT(*) FROM games")).scalar_one() == 1
        engine.dispose()
        command.upgrade(cfg, "head")
        command.check(cfg)
    finally:
        engine.dispose()
