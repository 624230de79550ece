"""Fixtures for the reliability tests: fresh databases and real uvicorn servers.

``fresh_db_url`` is parametrised over SQLite and PostgreSQL: each test gets its own SQLite file
or its own uniquely named PostgreSQL database (dropped afterwards), migrated by
``alembic upgrade head``. PostgreSQL unreachable: skipped, unless ``REQUIRE_POSTGRES=1``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from scripts.liveserver import LiveServer, migrate, postgres_database, sqlite_database
from tests.conftest import require_postgres_or_skip


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        url = sqlite_database(tmp_path)
        migrate(url)
        yield url
        return
    require_postgres_or_skip()
    with postgres_database(prefix="scorpion_rel") as url:
        migrate(url)
        yield url


ServerFactory = Callable[..., LiveServer]


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
