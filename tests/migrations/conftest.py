"""The migration tests' database: a brand-new, empty one for each test, on each backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.postgres import (
    BACKENDS,
    create_pg_database,
    drop_pg_database,
    require_postgres_or_skip,
)


@pytest.fixture(params=BACKENDS)
def fresh_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A brand-new, empty database for one test (dropped afterwards on PostgreSQL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('mig') / 'm.db'}"
        return
    require_postgres_or_skip()
    name, url = create_pg_database()
    try:
        yield url
    finally:
        drop_pg_database(name)
