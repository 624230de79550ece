"""Shared fixtures: a real database per backend, built by the Alembic migrations.

``db_url`` is parametrised over SQLite (a temporary file) and PostgreSQL on 127.0.0.1:5432
(user postgres, trust auth): each test run creates its own uniquely named PostgreSQL database
(``scorpion_test_<hex>``) and drops it at the end. PostgreSQL unreachable: the PostgreSQL
half is skipped, unless ``REQUIRE_POSTGRES=1``, which turns that into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from tests.support.postgres import BACKENDS, alembic_config, empty_database


@pytest.fixture(scope="session", params=BACKENDS)
def empty_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The URL of a fresh, empty database (no tables) on each backend."""
    with empty_database(request.param, tmp_path_factory.mktemp("sqlite")) as url:
        yield url


@pytest.fixture(scope="session")
def db_url(empty_db_url: str) -> str:
    """A database of each backend with the schema made by ``alembic upgrade head``."""
    command.upgrade(alembic_config(empty_db_url), "head")
    return empty_db_url


@pytest.fixture(scope="session")
def configured(db_url: str) -> Iterator[str]:
    """Point the application's settings and engine at the test database.

    The environment is changed only while the (cached) settings and engine are made, then
    restored: subprocesses that other tests start (live servers) do not inherit it.
    """
    from app.config import get_settings
    from app.db.session import get_engine, reset_engine

    names = (
        "DATABASE_URL",
        "RATE_LIMITS",
        "ENVIRONMENT",
        "DAILY_PROOF_TRIES",
        "RANKED_MIN_SECONDS_PER_MOVE",
    )
    saved = {k: os.environ.get(k) for k in names}

    def restore() -> None:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    os.environ["DATABASE_URL"] = db_url
    os.environ["RATE_LIMITS"] = "off"
    os.environ["ENVIRONMENT"] = "test"
    # Tests win in milliseconds (the too-fast floor is tested on its own) and an empty daily
    # pool gives an unverified random deal at once (the solver proof is tested on its own).
    os.environ["DAILY_PROOF_TRIES"] = "0"
    os.environ["RANKED_MIN_SECONDS_PER_MOVE"] = "0"
    get_settings.cache_clear()
    reset_engine()
    try:
        settings = get_settings()
        get_engine()
    finally:
        restore()
    assert settings.database_url == db_url
    try:
        yield db_url
    finally:
        reset_engine()
        get_settings.cache_clear()


@pytest.fixture(scope="session")
def engine(configured: str) -> Engine:
    from app.db.session import get_engine

    return get_engine()


@pytest.fixture()
def db(engine: Engine) -> Iterator[Session]:
    """A session on the test database (real, not mocked)."""
    session = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture(scope="session")
def app(configured: str):  # type: ignore[no-untyped-def]
    from app.main import create_app

    return create_app()
