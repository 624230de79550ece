"""Fixtures for the reliability tests: fresh databases and real uvicorn servers.

``fresh_db_url`` is parametrised over SQLite and PostgreSQL: each test gets its own SQLite file
or its own uniquely named PostgreSQL database (dropped afterwards), migrated by
``alembic upgrade head``. ``shared_db_url`` / ``shared_server`` do the same once per module
(tests that only add their own players and games share one server). PostgreSQL unreachable:
skipped, unless ``REQUIRE_POSTGRES=1``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.postgres import migrate_in_process, require_postgres_or_skip
from tests.support.server import LiveServer, ServerFactory, postgres_database, sqlite_database

BACKENDS = ["sqlite", "postgresql"]


@contextmanager
def _fresh_database(kind: str, directory: Path) -> Iterator[str]:
    if kind == "sqlite":
        url = sqlite_database(directory)
        migrate_in_process(url)
        yield url
        return
    require_postgres_or_skip()
    with postgres_database(prefix="scorpion_rel") as url:
        migrate_in_process(url)
        yield url


@pytest.fixture(params=BACKENDS)
def fresh_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with _fresh_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="module", params=BACKENDS)
def shared_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with _fresh_database(request.param, tmp_path_factory.mktemp("shared-db")) as url:
        yield url


@pytest.fixture(scope="module")
def shared_server(
    shared_db_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """Two uvicorn workers on ``shared_db_url``, ``RATE_LIMITS=off``, for the whole module."""
    log = tmp_path_factory.mktemp("shared-server") / "uvicorn.log"
    server = LiveServer(shared_db_url, workers=2, env={"RATE_LIMITS": "off"}, log_path=log)
    with server:
        yield server


@pytest.fixture()
def start_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start ``uvicorn app.main:app`` servers; all are stopped at the end of the test."""
    servers: list[LiveServer] = []

    def start(database_url: str, *, workers: int = 2, **env: str) -> LiveServer:
        log = tmp_path / f"uvicorn-{len(servers)}.log"
        server = LiveServer(database_url, workers=workers, env=env, log_path=log)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()
