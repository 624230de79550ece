"""Migration 0011: the player's settings gain ``locale``, ``four_colour``, ``theme`` and
``large_cards``; existing rows get the defaults (follow the browser's language, two colours,
the system's theme, normal cards); a downgrade drops them and keeps the settings."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from app.db.session import make_engine
from tests.support.postgres import alembic_config

NOW = "2026-12-07 12:00:00.000000"
PLAYERS = (("a" * 32, True, False), ("b" * 32, False, True))  # (id, save_games, record_stats)
NEW_COLUMNS = {"locale", "four_colour", "theme", "large_cards"}
DEFAULTS = (False, "auto", False)  # two colours, the system's theme, normal cards


def deck(conn: Connection, player: str) -> tuple[object, ...] | None:
    """The player's deck columns of this revision (later revisions add more: their own tests)."""
    row = conn.execute(
        text("SELECT four_colour, theme, large_cards FROM player_settings WHERE player_id = :p"),
        {"p": player},
    ).first()
    return None if row is None else tuple(row)


def test_existing_settings_get_the_defaults_and_a_downgrade_keeps_them(fresh_url: str) -> None:
    cfg, engine = alembic_config(fresh_url), make_engine(fresh_url)
    command.upgrade(cfg, "0010")
    try:
        with engine.begin() as conn:
            for player, save, record in PLAYERS:
                conn.execute(
                    text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                    {"p": player, "t": NOW},
                )
                conn.execute(
                    text(
                        "INSERT INTO player_settings (player_id, save_games, record_stats, "
                        "updated_at) VALUES (:p, :s, :r, :t)"
                    ),
                    {"p": player, "s": save, "r": record, "t": NOW},
                )
        engine.dispose()

        command.upgrade(cfg, "0011")
        columns = {c["name"]: c for c in inspect(engine).get_columns("player_settings")}
        assert set(columns) >= NEW_COLUMNS
        assert columns["locale"]["nullable"] is True
        for name in ("four_colour", "theme", "large_cards"):
            assert columns[name]["nullable"] is False, name
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT player_id, save_games, record_stats, locale, four_colour, theme, "
                    "large_cards FROM player_settings ORDER BY player_id"
                )
            ).all()
            assert [tuple(r) for r in rows] == [
                ("a" * 32, True, False, None, False, "auto", False),
                ("b" * 32, False, True, None, False, "auto", False),
            ]
            # What the pages read: the defaults for an old row (no row at all: no settings).
            assert deck(conn, "a" * 32) == DEFAULTS
            assert deck(conn, "c" * 32) is None
        # A row written without the new columns (an older release still running during a
        # deploy) gets the defaults from the database.
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                {"p": "d" * 32, "t": NOW},
            )
            conn.execute(
                text(
                    "INSERT INTO player_settings (player_id, save_games, record_stats, "
                    "updated_at) VALUES (:p, true, true, :t)"
                ),
                {"p": "d" * 32, "t": NOW},
            )
            conn.execute(
                text(
                    "UPDATE player_settings SET four_colour = true, theme = 'dark' "
                    "WHERE player_id = :p"
                ),
                {"p": "b" * 32},
            )
        with engine.connect() as conn:
            assert deck(conn, "d" * 32) == DEFAULTS
            assert deck(conn, "b" * 32) == (True, "dark", False)
        engine.dispose()

        command.downgrade(cfg, "0010")
        columns = {c["name"]: c for c in inspect(engine).get_columns("player_settings")}
        assert not NEW_COLUMNS & set(columns)
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT player_id, save_games, record_stats FROM player_settings "
                    "ORDER BY player_id"
                )
            ).all()
        assert [tuple(r) for r in rows] == [
            ("a" * 32, True, False),
            ("b" * 32, False, True),
            ("d" * 32, True, True),
        ]
    finally:
        engine.dispose()
