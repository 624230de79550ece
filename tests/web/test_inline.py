"""Player actions on the event loop (``app.web.inline``, issue 12): on SQLite a move runs on
the loop's own connection, which never waits; when another connection holds the write lock
the move waits its turn in a worker thread instead and is applied once; the loop's commits
leave WAL checkpoints to a worker thread. On PostgreSQL every action runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from app import services
from app.db.session import checkpoint_wal, is_busy, loop_connection, loop_engine
from app.services import GameState
from app.web import inline
from tests.support.api_client import Player
from tests.support.metrics import metrics_text, sample


def _legal_move(game: dict[str, Any]) -> tuple[int, int, int]:
    """A column-to-column move of the deal's opening (deal 5 has one)."""
    from app.engine import Game
    from app.engine.deals import deal_from_number

    hints = Game.new("scorpion", deal_from_number(game["deal_number"])).hints()
    move = next(m for m in hints if m.from_pile == m.to_pile == "column")
    return move.from_column, move.from_index, move.to_column


def _ran(before: str, after: str, where: str) -> float:
    name = "scorpion_actions_run_total"
    return sample(after, name, where=where) - sample(before, name, where=where)


@pytest.fixture()
def threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The actions ``run_action`` sent to a worker thread (by the function's name)."""
    sent: list[str] = []
    real = inline.run_in_threadpool

    async def recording(func: Callable[..., Any], *args: Any) -> Any:
        sent.append(getattr(func, "__name__", "?"))
        return await real(func, *args)

    monkeypatch.setattr(inline, "run_in_threadpool", recording)
    return sent


def test_a_move_runs_on_the_loop_on_sqlite_and_in_a_thread_on_postgres(
    app: FastAPI, engine: Engine, threads: list[str]
) -> None:
    player = Player(app)
    game = player.new_game(deal_number=5)
    before = metrics_text(app)
    response = player.move(game["id"], *_legal_move(game))
    assert response.status_code == 200, response.text
    assert response.json()["version"] == game["version"] + 1
    ran = {w: _ran(before, metrics_text(app), w) for w in ("loop", "busy", "thread")}
    if engine.dialect.name == "sqlite":
        assert threads == []
        assert ran == {"loop": 1, "busy": 0, "thread": 0}
        conn = loop_connection()
        assert conn is not None
        driver = conn.connection.driver_connection
        assert driver is not None
        assert driver.execute("PRAGMA busy_timeout").fetchone() == (0,)
        assert driver.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    else:
        assert loop_engine() is None and loop_connection() is None
        assert threads == ["<lambda>"]
        assert ran == {"loop": 0, "busy": 0, "thread": 1}


def test_a_move_waits_its_turn_when_another_connection_holds_the_write_lock(
    app: FastAPI, engine: Engine, threads: list[str]
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write lock; PostgreSQL has no loop connection (test above)")
    player = Player(app)
    game = player.new_game(deal_number=5)
    holder = sqlite3.connect(
        engine.url.database or "", isolation_level=None, timeout=5, check_same_thread=False
    )
    holder.execute("BEGIN IMMEDIATE")
    released: list[float] = []

    def release() -> None:
        time.sleep(0.4)
        released.append(time.monotonic())
        holder.execute("COMMIT")

    before = metrics_text(app)
    releaser = threading.Thread(target=release)
    releaser.start()
    try:
        response = player.move(game["id"], *_legal_move(game))
        answered = time.monotonic()
    finally:
        releaser.join()
        holder.close()
    assert response.status_code == 200, response.text
    assert released and released[0] <= answered  # it waited for the lock, in a thread
    assert threads == ["<lambda>"]
    assert _ran(before, metrics_text(app), "busy") == 1  # what an operator sees of it
    assert player.get(f"/api/games/{game['id']}").json()["version"] == game["version"] + 1
    # The loop's connection took nothing from the refused attempt: the next action runs there.
    assert player.post(f"/api/games/{game['id']}/undo").status_code == 200
    assert threads == ["<lambda>"]


class _NoThread:
    """A caller whose session must not be needed: the action runs on the loop."""

    @property
    def db(self) -> Session:
        raise AssertionError("the action went to a worker thread")


def test_a_slow_wal_checkpoint_does_not_hold_up_the_loop(
    app: FastAPI, engine: Engine, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's WAL; PostgreSQL has no loop connection (test above)")
    started, proceed = threading.Event(), threading.Event()

    def slow_checkpoint() -> None:
        started.set()
        proceed.wait(10)
        checkpoint_wal()

    monkeypatch.setattr(inline, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(inline, "checkpoint_wal", slow_checkpoint)
    monkeypatch.setattr(inline, "_checkpoints", inline._Checkpoints())
    player = services.new_player_id()
    game = services.create_game(db, player, "scorpion", 5, None)
    a, i, b = _legal_move({"deal_number": 5})

    def act(action: tuple[Any, ...]) -> Callable[[Session | Connection], GameState]:
        return lambda conn: services.act(conn, player, game.id, action)

    async def main() -> int:
        await inline.run_action(_NoThread(), act(("move", a, i, b)))
        await inline.run_action(_NoThread(), act(("undo",)))  # the 2nd: a checkpoint starts
        for _ in range(500):
            if started.is_set():
                break
            await asyncio.sleep(0.01)
        assert started.is_set()
        # The checkpoint waits in its thread: the loop goes on with the next action.
        state = await inline.run_action(_NoThread(), act(("redo",)))
        assert not proceed.is_set()
        proceed.set()
        running = inline._checkpoints.running
        assert running is not None
        await running
        return state.version

    assert asyncio.run(main()) == game.version + 3


def test_busy_is_sqlites_database_is_locked(tmp_path: Any) -> None:
    path = tmp_path / "busy.db"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("PRAGMA journal_mode=WAL")
    first.execute("BEGIN IMMEDIATE")
    second = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError) as caught:
        second.execute("BEGIN IMMEDIATE")
    assert is_busy(caught.value)
    with pytest.raises(sqlite3.OperationalError) as other:
        second.execute("SELECT * FROM no_such_table")
    assert not is_busy(other.value)
    first.close()
    second.close()
