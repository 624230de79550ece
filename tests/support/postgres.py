"""PostgreSQL and migration helpers every test suite shares (fixtures in tests/conftest.py,
the live servers of tests/support/server.py, the reliability and migration tests).

Each test run creates its own uniquely named database (``scorpion_test_<hex>``) and drops it
at the end. PostgreSQL unreachable: ``require_postgres_or_skip`` skips, unless
``REQUIRE_POSTGRES=1``, which turns that into a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]
PG_HOST = os.environ.get("TEST_PG_HOST", "127.0.0.1")
PG_ADMIN_DSN = f"postgresql://postgres@{PG_HOST}:5432/test"
BACKENDS = ["sqlite", "postgresql"]


def postgres_reachable() -> bool:
    try:
        with psycopg.connect(PG_ADMIN_DSN, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def require_postgres_or_skip() -> None:
    if postgres_reachable():
        return
    if os.environ.get("REQUIRE_POSTGRES") == "1":
        pytest.fail(
            f"PostgreSQL is required (REQUIRE_POSTGRES=1) but {PG_ADMIN_DSN} is unreachable",
            pytrace=False,
        )
    pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN_DSN}")


def create_pg_database() -> tuple[str, str]:
    """(name, SQLAlchemy URL) of a fresh, empty PostgreSQL database."""
    name = f"scorpion_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, f"postgresql+psycopg://postgres@{PG_HOST}:5432/{name}"


def drop_pg_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def empty_database(backend: str, directory: Path) -> Iterator[str]:
    """The URL of a brand-new, empty database of ``backend`` ("sqlite": a file in
    ``directory``; "postgresql": a uniquely named database, dropped on leaving)."""
    if backend == "sqlite":
        yield f"sqlite:///{directory / 'scorpion.db'}"
        return
    require_postgres_or_skip()
    name, url = create_pg_database()
    try:
        yield url
    finally:
        drop_pg_database(name)


def alembic_config(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.attributes["database_url"] = url
    return cfg


def migrate_in_process(url: str) -> None:
    """``alembic upgrade head`` on ``url`` in this process."""
    command.upgrade(alembic_config(url), "head")
