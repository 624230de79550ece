"""The hot path's statements, run straight on the driver's cursor (issue 12, "the floor").

SQLAlchemy spends several times a small statement's own cost on each execution (execution
context, events, result objects): on SQLite a player action's four statements cost ~0.3 ms
more through it than on the bare driver. A ``Fast`` statement is plain SQL with ``:name``
parameters (``%(name)s`` for drivers of that style, i.e. psycopg), run on the DBAPI cursor of
the session's connection, so inside the session's transaction (its ``begin``, ``commit`` and
``rollback`` stay SQLAlchemy's). Values go through SQLAlchemy's own type processors (the UTC
timestamps, booleans), and a driver error becomes SQLAlchemy's exception
(``DBAPIError.instance``; a lost connection is invalidated first), so the error handlers (503
when the database is down) and the error metric see what they always see.

Only for statements run on every action; everything else stays ORM or Core.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Column, Connection
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session
from sqlalchemy.types import TypeEngine

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


class Fast:
    """One statement: ``sql`` for every database, or ``postgres`` where PostgreSQL's differs
    (``FOR UPDATE``); ``binds``: the types of parameters that need converting; ``columns``:
    the result's columns, whose types convert what the driver returns."""

    def __init__(
        self,
        sql: str,
        *,
        postgres: str | None = None,
        binds: Mapping[str, TypeEngine[Any]] | None = None,
        columns: Sequence[Column[Any]] = (),
    ) -> None:
        self.sql = " ".join(sql.split())
        self.postgres = " ".join((postgres or sql).split())
        self.binds = dict(binds or {})
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        self._prepared: dict[str, tuple[str, dict[str, Any], list[Any]]] = {}

    def prepared(self, dialect: Dialect) -> tuple[str, dict[str, Any], list[Any]]:
        """(SQL in the driver's style, bind processors, result processors) for ``dialect``."""
        found = self._prepared.get(dialect.name)
        if found is None:
            sql = self.postgres if dialect.name == "postgresql" else self.sql
            if dialect.paramstyle == "pyformat":
                sql = _NAMED.sub(r"%(\1)s", sql)
            binds = {
                k: t.dialect_impl(dialect).bind_processor(dialect) for k, t in self.binds.items()
            }
            results = [
                c.type.dialect_impl(dialect).result_processor(dialect, None) for c in self.columns
            ]
            found = (sql, {k: p for k, p in binds.items() if p}, results)
            self._prepared[dialect.name] = found
        return found


class Cursor:
    """The current connection of a session (or a Core ``Connection`` itself), for running
    ``Fast`` statements in its transaction."""

    __slots__ = ("connection", "dialect", "driver")

    def __init__(self, db: Session | Connection) -> None:
        self.connection: Connection = db if isinstance(db, Connection) else db.connection()
        self.dialect = self.connection.dialect
        self.driver: Any = self.connection.connection.driver_connection

    def rows(self, stmt: Fast, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        sql, binds, results = stmt.prepared(self.dialect)
        for name, process in binds.items():
            params[name] = process(params[name])
        try:
            cursor = self.driver.cursor()
            try:
                cursor.execute(sql, params)
                rows = cursor.fetchall() if cursor.description else []
            finally:
                cursor.close()
        except self.dialect.loaded_dbapi.Error as error:
            raise self._wrapped(error, sql, params) from error
        if results:
            rows = [
                tuple(p(v) if p else v for p, v in zip(results, row, strict=True)) for row in rows
            ]
        return rows

    def one_or_none(self, stmt: Fast, params: dict[str, Any]) -> dict[str, Any] | None:
        """The first row as a dict of column names (``stmt.columns``), or None."""
        rows = self.rows(stmt, params)
        return dict(zip(stmt.names, rows[0], strict=True)) if rows else None

    def _wrapped(self, error: Exception, sql: str, params: dict[str, Any]) -> Exception:
        return wrapped(self.connection, error, sql, params)


def execute(connection: Connection, sql: str) -> None:
    """Run ``sql`` (no parameters, no result: ``BEGIN IMMEDIATE``) on the driver's connection."""
    try:
        connection.connection.driver_connection.execute(sql)  # type: ignore[union-attr]
    except connection.dialect.loaded_dbapi.Error as error:
        raise wrapped(connection, error, sql, {}) from error


def wrapped(connection: Connection, error: Exception, sql: str, params: Any) -> Exception:
    """SQLAlchemy's exception for a driver error (a lost connection is invalidated first)."""
    from app import observability  # (not at import: app.db loads without the metrics)

    dialect = connection.dialect
    disconnect = dialect.is_disconnect(error, connection.connection, None)  # type: ignore[arg-type]
    if disconnect:
        connection.invalidate(error)
    observability.database_error("disconnect" if disconnect else type(error).__name__[:60])
    return sa_exc.DBAPIError.instance(
        sql,
        params,
        error,
        dialect.loaded_dbapi.Error,
        hide_parameters=True,
        connection_invalidated=disconnect,
        dialect=dialect,
    )
