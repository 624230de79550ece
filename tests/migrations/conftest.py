"""The migration tests' database: a brand-new, empty one for each test, on each backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.postgres import BACKENDS, empty_database


@pytest.fixture(params=BACKENDS)
def fresh_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A brand-new, empty database for one test (dropped afterwards on PostgreSQL)."""
    with empty_database(request.param, tmp_path_factory.mktemp("mig")) as url:
        yield url
