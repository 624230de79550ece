"""The bounded event-stream run of ``scripts/bench_sse.py`` as a test: 200 streams held open on
loopback against two uvicorn workers, on SQLite (polling) and PostgreSQL (LISTEN/NOTIFY).
Every move's report reaches every stream; memory per stream and latency are printed (figures,
not assertions); on PostgreSQL the open streams hold no database connections of their own."""

from __future__ import annotations

import json

import pytest

from scripts.bench_sse import run
from tests.support.postgres import require_postgres_or_skip

STREAMS = 200


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_200_streams_all_get_every_report(backend: str) -> None:
    if backend == "postgresql":
        require_postgres_or_skip()
    result = run(streams=STREAMS, moves=3, sqlite=backend == "sqlite", timeout=180)
    print("\n" + json.dumps(result))
    assert result["backend"] == backend
    assert result["reports_missing"] == 0
    assert result["reports_delivered"] == 3 * STREAMS
    assert isinstance(result["memory_per_stream_kib"], float)
    if backend == "postgresql":
        conns = result["db_connections_total_listen"]
        assert isinstance(conns, tuple | list)
        total, listening = conns
        assert listening == 2 and total < STREAMS // 4, conns
