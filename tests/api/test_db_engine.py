"""The database set-up itself: SQLite pragmas and BEGIN IMMEDIATE for writes; concurrent
actions on one game never fork the move log (both backends)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.db.session import begin_write, make_engine


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}", busy_timeout_ms=4321)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 4321
    finally:
        engine.dispose()


def test_sqlite_write_transactions_begin_immediate(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'y.db'}")
    seen: list[str] = []

    # What reaches SQLite itself (the BEGIN emitted by the engine's ``begin`` event).
    @event.listens_for(engine, "connect")
    def _record(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.set_trace_callback(seen.append)

    try:
        with Session(engine) as db:
            db.execute(text("SELECT 1"))
            db.rollback()
            assert seen[-3:] == ["BEGIN", "SELECT 1", "ROLLBACK"]
            begin_write(db)
            assert seen[-1] == "BEGIN IMMEDIATE"
            db.execute(text("CREATE TABLE t (x INTEGER)"))
            db.commit()
            # While one writer holds the lock, another BEGIN IMMEDIATE waits (then times out).
            with Session(engine) as holder:
                begin_write(holder)
                other = make_engine(f"sqlite:///{tmp_path / 'y.db'}", busy_timeout_ms=50)
                try:
                    with Session(other) as db2, pytest.raises(Exception, match="locked"):
                        begin_write(db2)
                finally:
                    other.dispose()
                holder.rollback()
    finally:
        engine.dispose()


def test_concurrent_actions_on_one_game_never_fork_the_log(engine: Engine) -> None:
    maker = sessionmaker(bind=engine, expire_on_commit=False)
    player = services.new_player_id()
    with maker() as db:
        game = services.create_game(db, player, "scorpion", deal_number=1)
    results: list[str] = []
    barrier = threading.Barrier(6)

    def worker() -> None:
        with maker() as db:
            barrier.wait()
            try:
                services.deal(db, player, game.id, expected_version=game.version)
                results.append("ok")
            except services.VersionConflict:
                results.append("409")
            except services.ActionRefused:
                results.append("422")

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["409"] * 5 + ["ok"]
    with maker() as db:
        state = services.get_game(db, player, game.id)
        log = services.action_log(db, player, game.id)
    assert state.version == game.version + 1 and log == [("deal",)]
    with engine.connect() as conn:
        seqs = [
            r[0]
            for r in conn.execute(
                text("SELECT seq FROM game_actions WHERE game_id = :g ORDER BY seq"), {"g": game.id}
            )
        ]
    assert seqs == [1]
