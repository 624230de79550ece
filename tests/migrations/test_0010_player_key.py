"""Migration 0010: the move log gains ``player_id`` (the key to shard by), backfilled from the
games, NOT NULL; a downgrade drops it and keeps the log."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.db.session import make_engine
from tests.support.postgres import alembic_config

NOW = "2026-11-30 12:00:00.000000"


PLAYERS_AND_GAMES = (("p" * 32, "g1"), ("q" * 32, "g2"))


def test_the_move_log_gets_its_player_key(fresh_url: str) -> None:
    cfg, engine = alembic_config(fresh_url), make_engine(fresh_url)
    command.upgrade(cfg, "0007")  # the log as it was: no player key
    try:
        with engine.begin() as conn:
            for player, game in PLAYERS_AND_GAMES:
                conn.execute(
                    text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                    {"p": player, "t": NOW},
                )
                conn.execute(
                    text(
                        "INSERT INTO games (id, player_id, variant, deal_number, deal, status, "
                        "snapshot, version, moves, moves_made, saved, assisted, counted, "
                        "created_at, updated_at) VALUES (:g, :p, 'scorpion', 1, 'x', "
                        "'playing', '{}', 3, 2, 2, true, false, true, :t, :t)"
                    ),
                    {"g": game, "p": player, "t": NOW},
                )
                for seq in (1, 2):
                    conn.execute(
                        text(
                            "INSERT INTO game_actions (game_id, seq, kind, created_at) "
                            "VALUES (:g, :s, 'deal', :t)"
                        ),
                        {"g": game, "s": seq, "t": NOW},
                    )
        engine.dispose()

        command.upgrade(cfg, "0010")
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT game_id, player_id FROM game_actions ORDER BY game_id, seq")
            ).all()
        assert [tuple(r) for r in rows] == [
            ("g1", "p" * 32),
            ("g1", "p" * 32),
            ("g2", "q" * 32),
            ("g2", "q" * 32),
        ]
        columns = {c["name"]: c for c in inspect(engine).get_columns("game_actions")}
        assert columns["player_id"]["nullable"] is False
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO game_actions (game_id, seq, kind, created_at) "
                    "VALUES ('g1', 3, 'deal', :t)"
                ),
                {"t": NOW},
            )
        engine.dispose()

        command.downgrade(cfg, "0007")
        columns = {c["name"]: c for c in inspect(engine).get_columns("game_actions")}
        assert "player_id" not in columns
        with engine.connect() as conn:
            count = conn.execute(text("SELECT COUNT(*) FROM game_actions")).scalar_one()
        assert count == 4
    finally:
        engine.dispose()
