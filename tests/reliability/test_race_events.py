"""Live races across worker processes: ``uvicorn app.main:app --workers 2`` on a fresh database
(PostgreSQL: LISTEN/NOTIFY; SQLite: polling), a player's event streams on both workers, and
the other player's moves made through one worker: each move reaches the streams on the other
worker too. Which worker holds a connection is read from ``/proc`` (the server-side socket's
owner), so "the other worker" is certain, not left to chance. Latency is measured and printed;
the only timing assertion is a generous timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx2
import psycopg
from sqlalchemy.engine import make_url

from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.live import LivePlayer
from tests.support.postgres import require_postgres_or_skip
from tests.support.server import LiveServer, ServerFactory, migrate, postgres_database

DELIVERY_TIMEOUT = 10.0  # generous: delivery is expected well within a second
PROGRESS_KEYS = {"name", "you", "moves", "suits", "status", "ranked", "entry"}


class EventStream:
    """An open ``text/event-stream`` response read by a thread: (arrival time, event, data)."""

    def __init__(self, base_url: str, path: str, cookies: dict[str, str]) -> None:
        self.client = httpx2.Client(
            base_url=base_url, cookies=cookies, timeout=httpx2.Timeout(10, read=120)
        )
        self._cm = self.client.stream("GET", path)
        self.response = self._cm.__enter__()
        assert self.response.status_code == 200, self.response.read()
        assert self.response.headers["content-type"].startswith("text/event-stream")
        sock = self.response.extensions["network_stream"].get_extra_info("socket")
        self.port: int = sock.getsockname()[1]
        self.events: list[tuple[float, str, str]] = []
        self.raw: list[str] = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        event, data = "", []
        try:
            for line in self.response.iter_lines():
                self.raw.append(line)
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
                elif not line and data:
                    with self._cond:
                        self.events.append((time.monotonic(), event, "\n".join(data)))
                        self._cond.notify_all()
                    event, data = "", []
        except (httpx2.HTTPError, OSError, RuntimeError):
            pass  # closed by the test

    def wait_for(
        self, match: Callable[[str, Any], bool], timeout: float = DELIVERY_TIMEOUT
    ) -> float | None:
        """The arrival time of the first event whose (name, parsed data) matches."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for at, event, data in self.events[seen:]:
                    if match(event, json.loads(data)):
                        return at
                seen = len(self.events)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def close(self) -> None:
        with contextlib.suppress(httpx2.HTTPError, OSError, RuntimeError):
            self._cm.__exit__(None, None, None)
        self.client.close()


# -- which worker process holds a connection -------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(name))
    return out


def _socket_inode(server_port: int, client_port: int) -> str | None:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, remote, inode = parts[1], parts[2], parts[9]
            if (
                int(local.rsplit(":", 1)[1], 16) == server_port
                and int(remote.rsplit(":", 1)[1], 16) == client_port
            ):
                return inode
    return None


def worker_of(server: LiveServer, client_port: int) -> int:
    """The pid of the worker process that holds the server side of a client connection."""
    assert server.process is not None
    inode = _socket_inode(server.port, client_port)
    assert inode is not None, "no server-side socket for that connection"
    target = f"socket:[{inode}]"
    for pid in _children(server.process.pid):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except OSError:
                continue
    raise AssertionError("no worker holds that connection")


def pg_connections(database_url: str) -> tuple[int, int]:
    """(all connections to the database, those that LISTEN for race progress)."""
    url = make_url(database_url)
    name = url.database
    admin = url.set(drivername="postgresql", database="test").render_as_string(False)
    with psycopg.connect(admin, autocommit=True) as conn:
        total, listening = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE query ILIKE 'LISTEN%%') "
            "FROM pg_stat_activity WHERE datname = %s",
            (name,),
        ).fetchone() or (0, 0)
    return int(total), int(listening)


# -- the test ---------------------------------------------------------------------------------


def test_a_move_reaches_the_stream_on_the_other_worker(
    fresh_db_url: str, start_server: ServerFactory
) -> None:
    # Bob opens many streams (to reach both workers): lift the per-player cap for him.
    server = start_server(fresh_db_url, workers=2, RATE_LIMITS="off", MAX_STREAMS_PER_PLAYER="100")
    ann, bob = LivePlayer(server.url), LivePlayer(server.url)
    game = ann.post("/api/games", {"variant": "scorpion", "deal": WIN_DEAL}).json()
    token = ann.post(f"/api/games/{game['id']}/challenge").json()["token"]
    bob_game = bob.post(f"/api/challenges/{token}/games")
    assert bob_game.status_code == 201, bob_game.text

    # Bob's event streams, until both workers hold some (new connections spread over them).
    streams: list[EventStream] = []
    by_worker: dict[int, list[EventStream]] = {}
    try:
        while len(by_worker) < 2 or len(streams) < 12:
            assert len(streams) < 80, "the connections never reached both workers"
            s = EventStream(server.url, f"/api/challenges/{token}/events", bob.cookies)
            streams.append(s)
            by_worker.setdefault(worker_of(server, s.port), []).append(s)
        for s in streams:  # each starts with the standings: Ann and Bob, no moves yet
            assert s.wait_for(lambda e, d: e == "standings" and len(d) == 2) is not None

        if fresh_db_url.startswith("postgresql"):
            total, listening = pg_connections(fresh_db_url)
            # One LISTEN connection per worker, whatever the number of open streams; the
            # idle streams hold no connection of their own.
            assert listening == 2, listening
            assert total < len(streams), (total, len(streams))

        # Ann moves through one keep-alive connection, held by one worker.
        mover = httpx2.Client(base_url=server.url, cookies=ann.cookies, timeout=30)
        first = mover.get("/api/session")
        sock = first.extensions["network_stream"].get_extra_info("socket")
        ann_worker = worker_of(server, sock.getsockname()[1])
        other = [w for w in by_worker if w != ann_worker]
        assert other, "streams on the other worker"
        watched = by_worker[other[0]]
        latencies: list[float] = []
        headers = {"X-CSRF-Token": ann.token}
        for k, action in enumerate(WIN_LINE[:6], start=1):
            started = time.monotonic()
            if action[0] == "move":
                body = {"from_column": action[1], "from_index": action[2], "to_column": action[3]}
                r = mover.post(f"/api/games/{game['id']}/moves", json=body, headers=headers)
            else:
                r = mover.post(f"/api/games/{game['id']}/{action[0]}", headers=headers)
            assert r.status_code == 200, r.text
            assert worker_of(server, sock.getsockname()[1]) == ann_worker  # same connection

            def is_move(event: str, data: Any, k: int = k) -> bool:
                return event == "progress" and data["you"] is False and data["moves"] == k

            for s in watched:
                arrived = s.wait_for(is_move)
                assert arrived is not None, f"move {k} never reached the other worker's stream"
                latencies.append(arrived - started)
        # Every stream, on either worker, got every report.
        for s in streams:
            assert s.wait_for(lambda e, d: e == "progress" and d["moves"] == 6) is not None
        mover.close()
        latencies.sort()
        print(
            f"\n[{make_url(fresh_db_url).get_backend_name()}] cross-worker delivery of "
            f"{len(latencies)} reports: median {latencies[len(latencies) // 2] * 1000:.1f} ms, "
            f"max {latencies[-1] * 1000:.1f} ms"
        )
        # Never a card: only counts, names and statuses.
        for s in streams:
            for _, event, data in s.events:
                parsed = json.loads(data)
                items = parsed if event == "standings" else [parsed]
                for item in items:
                    assert set(item) == PROGRESS_KEYS, item
            assert not re.search(r'"[A2-9TJQK][SHDC]"', "\n".join(s.raw))
    finally:
        for s in streams:
            s.close()


def test_shutdown_ends_open_streams(fresh_db_url: str, start_server: ServerFactory) -> None:
    """SIGTERM with event streams open: the streams end and the workers exit gracefully
    (without the hub's signal hook uvicorn would wait for the streams for ever)."""
    server = start_server(fresh_db_url, workers=2, RATE_LIMITS="off")
    viewer = LivePlayer(server.url)
    streams = [
        EventStream(server.url, "/api/daily/scorpion/events", viewer.cookies) for _ in range(4)
    ]
    try:
        for s in streams:
            assert s.wait_for(lambda e, d: e == "standings") is not None
        server.stop(timeout=15)
        assert server.process is not None and server.process.returncode == 0
        for s in streams:
            s._thread.join(timeout=5)
            assert not s._thread.is_alive(), "the stream did not end"
    finally:
        for s in streams:
            s.close()


def test_a_lost_listen_connection_resyncs_the_streams(
    tmp_path: Any, start_server: ServerFactory
) -> None:
    """PostgreSQL: the LISTEN connections are killed; the hub reconnects and every open
    stream reads the standings again, so a move made meanwhile is not lost for good."""
    require_postgres_or_skip()
    with postgres_database(prefix="scorpion_race") as url:
        migrate(url)
        server = start_server(url, workers=1, RATE_LIMITS="off")
        ann, bob = LivePlayer(server.url), LivePlayer(server.url)
        game = ann.post("/api/games", {"variant": "scorpion", "deal": WIN_DEAL}).json()
        token = ann.post(f"/api/games/{game['id']}/challenge").json()["token"]
        stream = EventStream(server.url, f"/api/challenges/{token}/events", bob.cookies)
        try:
            assert stream.wait_for(lambda e, d: e == "standings") is not None
            assert pg_connections(url)[1] == 1
            admin = make_url(url).set(drivername="postgresql", database="test")
            with psycopg.connect(admin.render_as_string(False), autocommit=True) as conn:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND query ILIKE 'LISTEN%%'",
                    (make_url(url).database,),
                )
            r = ann.post(f"/api/games/{game['id']}/deal")
            assert r.status_code == 200, r.text

            def shows_the_deal(event: str, data: Any) -> bool:
                if event == "progress":
                    return bool(data["moves"] == 1)
                return any(not p["you"] and p["moves"] == 1 for p in data)

            # After the reconnection the stream reads the standings again (whatever reports
            # were lost meanwhile), and the move shows: as a report if the hub was back in
            # time, else in those standings.
            def standings_count() -> int:
                return sum(1 for _, event, _ in list(stream.events) if event == "standings")

            deadline = time.monotonic() + DELIVERY_TIMEOUT
            while standings_count() < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert standings_count() >= 2, stream.events
            assert stream.wait_for(shows_the_deal) is not None, stream.events
            deadline = time.monotonic() + DELIVERY_TIMEOUT
            while pg_connections(url)[1] != 1 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert pg_connections(url)[1] == 1  # listening again, on one connection
        finally:
            stream.close()
