"""Engines and sessions.

SQLite (the embedded default): ``foreign_keys=ON``, WAL, ``busy_timeout``, and write
transactions opened with ``BEGIN IMMEDIATE`` (SQLAlchemy's documented recipe for pysqlite:
the driver's own transaction handling is switched off and the ``begin`` event emits BEGIN), so
two writers never both read a game and then race to update it. PostgreSQL (psycopg 3): write
services lock the player and game rows with ``SELECT ... FOR UPDATE``; a pooled connection the
server has closed is replaced at checkout without a round trip (``server_hung_up``).

A service that writes calls ``begin_write(db)`` before its first statement (or takes a
connection of ``write_engine(engine)``, whose transactions begin the same way).

The same code serves SQLite and PostgreSQL: sync routes run in FastAPI's thread pool with the
request's session (``get_db``).
"""

from __future__ import annotations

import select
import sqlite3
from collections.abc import MutableMapping
from functools import lru_cache
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from app.config import get_settings

WRITE_OPTION = "scorpion_write"


def make_engine(url: str, *, busy_timeout_ms: int = 10_000, **kwargs: Any) -> Engine:
    """An engine for ``url`` with this project's connection set-up."""
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
            **kwargs,
        )
        _configure_sqlite(engine, busy_timeout_ms)
        return engine
    engine = create_engine(url, **kwargs)
    if not kwargs.get("pool_pre_ping"):
        event.listen(engine, "checkout", _drop_hung_up_connection)
    return engine


def server_hung_up(dbapi_connection: Any) -> bool:
    """Whether PostgreSQL has closed this idle pooled connection, checked without a round trip.

    An idle connection has nothing to read: when its socket is readable, the server has sent a
    termination notice or closed it (a restart, ``pg_terminate_backend``, an idle timeout).
    This replaces SQLAlchemy's ``pool_pre_ping``, whose ``SELECT 1`` in autocommit is a
    committed transaction of its own on every checkout: PostgreSQL would count two
    transactions per player action (``pg_stat_database.xact_commit``) instead of one. A rare
    harmless message (a parameter change) also makes the socket readable: the pool then opens a
    new connection, nothing worse. A server that vanished silently (no FIN) is found by the
    first statement instead: that request gets the 503 of a database fault and SQLAlchemy
    invalidates the pool, so the next one reconnects.
    """
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        return True
    pgconn = getattr(dbapi_connection, "pgconn", None)
    if pgconn is None:  # not psycopg 3: nothing to look at
        return False
    try:
        fd = pgconn.socket
    except Exception:  # psycopg.OperationalError: the connection is already bad
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def _drop_hung_up_connection(
    dbapi_connection: Any, connection_record: Any, connection_proxy: Any
) -> None:
    if server_hung_up(dbapi_connection):
        # The pool closes this connection and checks out (or opens) another one.
        raise DisconnectionError("the database server closed this pooled connection")


def is_busy(error: BaseException) -> bool:
    """Whether ``error`` (a driver error, or SQLAlchemy's wrapping one) is SQLite's "database
    is locked" (``SQLITE_BUSY`` and its extended codes)."""
    orig = getattr(error, "orig", error)
    code = getattr(orig, "sqlite_errorcode", None)
    return isinstance(orig, sqlite3.OperationalError) and code is not None and code & 0xFF == 5


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    """SQLAlchemy's documented recipe for pysqlite's transactions ("Serializable isolation /
    Savepoints / Transactional DDL"): the driver's own BEGIN switched off, ours emitted in the
    ``begin`` event (``BEGIN IMMEDIATE`` for a write)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Take transaction control away from pysqlite (Python 3.11): we emit BEGIN ourselves.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        write = conn.get_execution_options().get(WRITE_OPTION)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def begin_write(db: Session) -> None:
    """Start ``db``'s transaction as a write transaction (BEGIN IMMEDIATE on SQLite).

    Must be the session's first use in the transaction; a session that already holds a
    connection is rolled back first so the write transaction starts cleanly.
    """
    if db.in_transaction():
        db.rollback()
    db.connection(execution_options={WRITE_OPTION: True})


@lru_cache(maxsize=8)
def write_engine(engine: Engine) -> Engine:
    """``engine`` whose connections begin write transactions (its listeners and pool)."""
    return engine.execution_options(**{WRITE_OPTION: True})


_engine: Engine | None = None
_sessionmaker: sessionmaker[Session] | None = None


def get_engine() -> Engine:
    global _engine, _sessionmaker
    if _engine is None:
        settings = get_settings()
        _engine = make_engine(
            settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms
        )
        _sessionmaker = sessionmaker(bind=_engine, expire_on_commit=False)
    return _engine


def get_sessionmaker() -> sessionmaker[Session]:
    get_engine()
    assert _sessionmaker is not None
    return _sessionmaker


def reset_engine() -> None:
    """Dispose of the process engines (tests switch databases with it)."""
    global _engine, _sessionmaker
    if _engine is not None:
        _engine.dispose()
    _engine = None
    _sessionmaker = None


REQUEST_SESSIONS = "db_sessions"  # the request's sessions, in ``scope["state"]``


def request_session(scope: MutableMapping[str, Any]) -> Session:
    """A new session for the request of ``scope``, closed (rolled back if open) when the
    request ends, after its response: by ``close_request_sessions``, which
    ``app.web.middleware.request_sessions.RequestSessionsMiddleware`` calls. Creating a
    session does no
    I/O, and the services end every transaction they open, so closing is I/O-free too."""
    session = get_sessionmaker()()
    scope.setdefault("state", {}).setdefault(REQUEST_SESSIONS, []).append(session)
    return session


async def get_db(request: Request) -> Session:
    """FastAPI dependency: the request's session (``request_session``). A plain dependency,
    not a generator: FastAPI spends ~20 us a request entering and leaving one. Async only so
    that FastAPI does not hop to a worker thread to make it; the (sync) services run with it
    in the route's worker thread."""
    return request_session(request.scope)


def close_request_sessions(scope: MutableMapping[str, Any]) -> None:
    """Close the sessions ``get_db`` made for the request of ``scope``."""
    for session in scope.get("state", {}).pop(REQUEST_SESSIONS, ()):
        session.close()


SessionDep = Annotated[Session, Depends(get_db)]
