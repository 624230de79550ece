"""Revision 0004 (assistance, moves made) on a database holding rows written at 0003, on
SQLite and PostgreSQL: games.moves_made is backfilled from the move log, race entries and
results move to moves made, assisted marks are kept, the best time and fewest moves are
recomputed from unassisted wins; downgrading keeps every other row (no table is rebuilt)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from alembic import command

from app.db.session import make_engine
from tests.support.postgres import (
    alembic_config,
)

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DT = sa.DateTime(timezone=True)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _t(name: str, *columns: tuple[str, Any]) -> sa.TableClause:
    return sa.table(name, *(sa.column(c, t) for c, t in columns))


S, N, B = sa.String(), sa.Integer(), sa.Boolean()
PLAYERS = _t("players", ("id", S), ("created_at", DT))
GAMES = _t(
    "games",
    *[("id", S), ("player_id", S), ("variant", S), ("deal_number", N), ("deal", S)],
    *[("status", S), ("snapshot", S), ("version", N), ("moves", N), ("saved", B)],
    *[("assisted", B), ("counted", B), ("created_at", DT), ("updated_at", DT)],
    *[("finished_at", DT), ("abandoned_at", DT), ("race_id", S)],
)
ACTIONS = _t("game_actions", ("game_id", S), ("seq", N), ("kind", S), ("created_at", DT))
EVENTS = _t(
    "stat_events",
    *[("player_id", S), ("game_id", S), ("variant", S), ("kind", S), ("moves", N)],
    *[("seconds", N), ("at", DT)],
)
STATS = _t(
    "variant_stats",
    *[("player_id", S), ("variant", S), ("started", N), ("won", N), ("abandoned", N)],
    *[("current_streak", N), ("best_streak", N), ("best_time_seconds", N), ("fewest_moves", N)],
)
RACES = _t("races", ("id", S), ("kind", S), ("variant", S), ("deal", S), ("created_at", DT))
ENTRIES = _t(
    "race_entries",
    *[("id", N), ("race_id", S), ("player_id", S), ("game_id", S), ("ranked", B)],
    *[("status", S), ("moves", N), ("suits", N), ("assisted", B), ("verified", S)],
    *[("verified_version", N), ("verified_moves", N), ("started_at", DT), ("updated_at", DT)],
)


def _game(gid: str, variant: str, status: str, moves: int, assisted: bool) -> dict[str, Any]:
    won = status == "won"
    return {
        "id": gid,
        "player_id": "p1",
        "variant": variant,
        "deal_number": 1,
        "deal": "(the deal)",
        "status": status,
        "snapshot": "{}",
        "version": 9,
        "moves": moves,
        "saved": False,
        "assisted": assisted,
        "counted": True,
        "created_at": at(0),
        "updated_at": at(10),
        "finished_at": at(10) if won else None,
        "abandoned_at": None if won else at(4),
        "race_id": None,
    }


def _actions(gid: str, kinds: list[str]) -> list[dict[str, Any]]:
    return [
        {"game_id": gid, "seq": k, "kind": kind, "created_at": at(k)}
        for k, kind in enumerate(kinds, start=1)
    ]


def _stats(variant: str, best: int, fewest: int) -> dict[str, Any]:
    return {
        "player_id": "p1",
        "variant": variant,
        "started": 3,
        "won": 2,
        "abandoned": 1,
        "current_streak": 0,
        "best_streak": 2,
        "best_time_seconds": best,
        "fewest_moves": fewest,
    }


def _fill_at_0003(conn: sa.Connection) -> None:
    conn.execute(PLAYERS.insert(), [{"id": "p1", "created_at": T0}])
    conn.execute(
        GAMES.insert(),
        [
            # won unaided after exploring: 4 moves made (the undone one too), 3 net
            _game("won-clean", "scorpion", "won", 3, False),
            # won, marked assisted (a hint, undo or the solver: nobody can tell which)
            _game("won-helped", "scorpion", "won", 2, True),
            # given up at minute 4 after 2 moves made, played on afterwards
            _game("given-up", "scorpion", "playing", 2, False),
            _game("untouched", "scorpion", "playing", 0, False),
            _game("wasp-helped", "wasp", "won", 1, True),
        ],
    )
    conn.execute(
        ACTIONS.insert(),
        _actions("won-clean", ["move", "move", "undo", "move", "deal"])
        + _actions("won-helped", ["move", "deal"])
        + _actions("given-up", ["move", "undo", "move", "redo", "move"])
        + _actions("wasp-helped", ["move"]),
    )
    win: dict[str, Any] = {"player_id": "p1", "variant": "scorpion", "kind": "win"}
    conn.execute(
        EVENTS.insert(),
        [
            {**win, "game_id": "won-clean", "moves": 3, "seconds": 100, "at": at(10)},
            {**win, "game_id": "won-helped", "moves": 2, "seconds": 50, "at": at(10)},
            {**win, "game_id": None, "moves": 1, "seconds": 10, "at": at(10)},  # game gone
            {
                **win,
                "game_id": "wasp-helped",
                "variant": "wasp",
                "moves": 1,
                "seconds": 5,
                "at": at(10),
            },
            {
                **win,
                "game_id": "given-up",
                "kind": "abandon",
                "moves": 1,
                "seconds": None,
                "at": at(4),
            },
        ],
    )
    conn.execute(STATS.insert(), [_stats("scorpion", 10, 1), _stats("wasp", 5, 1)])
    conn.execute(
        RACES.insert(),
        [{"id": "r1", "kind": "daily", "variant": "scorpion", "deal": "(d)", "created_at": T0}],
    )
    entry: dict[str, Any] = {
        "race_id": "r1",
        "player_id": "p1",
        "ranked": True,
        "suits": 4,
        "verified_version": 9,
        "started_at": T0,
        "updated_at": T0,
    }
    conn.execute(
        ENTRIES.insert(),
        [
            {
                **entry,
                "id": 1,
                "game_id": "won-clean",
                "status": "won",
                "moves": 3,
                "assisted": False,
                "verified": "ok",
                "verified_moves": 3,
            },
            {
                **entry,
                "id": 2,
                "game_id": "won-helped",
                "status": "won",
                "moves": 2,
                "assisted": True,
                "verified": "ok",
                "verified_moves": 2,
            },
            {
                **entry,
                "id": 3,
                "game_id": None,
                "status": "won",
                "moves": 7,
                "assisted": False,
                "verified": "ok",
                "verified_moves": 7,
            },
        ],
    )


def _rows(conn: sa.Connection, sql: str) -> dict[Any, tuple[Any, ...]]:
    return {r[0]: tuple(r[1:]) for r in conn.execute(sa.text(sql))}


def test_0004_backfills_moves_made_and_recomputes_records(fresh_url: str) -> None:
    cfg = alembic_config(fresh_url)
    command.upgrade(cfg, "0003")
    engine = make_engine(fresh_url)
    try:
        with engine.begin() as conn:
            _fill_at_0003(conn)

        command.upgrade(cfg, "0004")
        with engine.connect() as conn:
            games = _rows(conn, "SELECT id, moves_made, moves, assisted FROM games")
            assert {g: (made, moves, bool(a)) for g, (made, moves, a) in games.items()} == {
                "won-clean": (4, 3, False),
                "won-helped": (2, 2, True),  # assisted kept as it was
                "given-up": (3, 2, False),
                "untouched": (0, 0, False),
                "wasp-helped": (1, 1, True),
            }
            entries = _rows(conn, "SELECT id, moves, verified_moves, assisted FROM race_entries")
            assert {e: (m, v, bool(a)) for e, (m, v, a) in entries.items()} == {
                1: (4, 4, False),
                2: (2, 2, True),
                3: (7, 7, False),  # its game is gone: left as it was
            }
            events = conn.execute(
                sa.text("SELECT game_id, kind, moves FROM stat_events ORDER BY id")
            ).all()
            assert [tuple(e) for e in events] == [
                ("won-clean", "win", 4),
                ("won-helped", "win", 2),
                (None, "win", 1),
                ("wasp-helped", "win", 1),
                ("given-up", "abandon", 2),  # moves made up to the abandonment
            ]
            stats = _rows(
                conn, "SELECT variant, best_time_seconds, fewest_moves, won FROM variant_stats"
            )
            # Only the unassisted win whose game is known sets the records; wasp has none.
            assert stats == {"scorpion": (100, 4, 2), "wasp": (None, None, 2)}

        command.downgrade(cfg, "0003")
        with engine.connect() as conn:
            columns = {c["name"] for c in sa.inspect(conn).get_columns("games")}
            assert "moves_made" not in columns
            count = conn.execute(sa.text("SELECT COUNT(*) FROM game_actions")).scalar_one()
            assert count == 13  # the move log survives the downgrade (no table rebuilt)
            linked = conn.execute(
                sa.text("SELECT COUNT(*) FROM stat_events WHERE game_id IS NOT NULL")
            ).scalar_one()
            assert linked == 4
        command.upgrade(cfg, "head")
        command.check(cfg)
    finally:
        engine.dispose()
