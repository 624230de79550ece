"""Migration 0015_deck: the player's settings gain ``card_back``, ``felt`` and ``sounds``
(issue 41); existing rows, and rows written by an older release during a deploy, get today's
deck (blue back, green felt, silent); a downgrade drops them and keeps the settings."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from app.db.session import make_engine
from app.services import Display, get_display
from tests.support.postgres import alembic_config

NOW = "2026-12-07 12:00:00.000000"
NEW_COLUMNS = {"card_back", "felt", "sounds"}


def test_existing_settings_get_todays_deck_and_a_downgrade_keeps_them(fresh_url: str) -> None:
    cfg, engine = alembic_config(fresh_url), make_engine(fresh_url)
    command.upgrade(cfg, "0012")
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                {"p": "a" * 32, "t": NOW},
            )
            conn.execute(
                text(
                    "INSERT INTO player_settings (player_id, save_games, record_stats, "
                    "four_colour, theme, large_cards, updated_at) "
                    "VALUES (:p, true, false, true, 'dark', true, :t)"
                ),
                {"p": "a" * 32, "t": NOW},
            )
        engine.dispose()

        command.upgrade(cfg, "0015_deck")
        columns = {c["name"]: c for c in inspect(engine).get_columns("player_settings")}
        assert set(columns) >= NEW_COLUMNS
        for name in NEW_COLUMNS:
            assert columns[name]["nullable"] is False, name
        with engine.connect() as conn:
            # The old row keeps its deck and gets today's back, felt and silence.
            assert get_display(conn, "a" * 32) == Display(
                four_colour=True, theme="dark", large_cards=True
            )
            assert Display().card_back == "blue" and Display().felt == "green"
            assert Display().sounds is False
        with engine.begin() as conn:  # an older release's insert: the database's defaults
            conn.execute(
                text("INSERT INTO players (id, created_at) VALUES (:p, :t)"),
                {"p": "b" * 32, "t": NOW},
            )
            conn.execute(
                text(
                    "INSERT INTO player_settings (player_id, save_games, record_stats, "
                    "updated_at) VALUES (:p, true, true, :t)"
                ),
                {"p": "b" * 32, "t": NOW},
            )
            conn.execute(
                text(
                    "UPDATE player_settings SET card_back = 'red', felt = 'grey', sounds = true "
                    "WHERE player_id = :p"
                ),
                {"p": "a" * 32},
            )
        with engine.connect() as conn:
            assert get_display(conn, "b" * 32) == Display()
            chosen = get_display(conn, "a" * 32)
            assert (chosen.card_back, chosen.felt, chosen.sounds) == ("red", "grey", True)
        engine.dispose()

        command.downgrade(cfg, "0012")
        columns = {c["name"]: c for c in inspect(engine).get_columns("player_settings")}
        assert not NEW_COLUMNS & set(columns)
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT player_id, four_colour, theme, large_cards FROM player_settings "
                    "ORDER BY player_id"
                )
            ).all()
        assert [tuple(r) for r in rows] == [
            ("a" * 32, True, "dark", True),
            ("b" * 32, False, "auto", False),
        ]
    finally:
        engine.dispose()
