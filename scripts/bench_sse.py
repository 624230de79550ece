"""Live race benchmark: many event streams held open on loopback, memory and delivery latency.

Starts ``uvicorn app.main:app --workers 2`` on a fresh database (PostgreSQL if reachable,
else SQLite; ``--sqlite`` forces it), makes a challenge, opens ``--streams`` event streams on
it (``GET /api/challenges/<token>/events``, or with ``--html`` the pages' stream
``/challenge/<token>/events``), then the challenger makes ``--moves`` moves and
every stream's arrival time of every report is recorded. Reports:

- memory per stream: the worker processes' resident memory (VmRSS) with the streams open,
  minus before, divided by the number of streams;
- database connections (PostgreSQL): total and LISTEN ones, with every stream open;
- server CPU per race action (user + system time of the worker processes while the moves are
  made and delivered, divided by the moves);
- delivery latency from sending a move to its report arriving on each stream (median, p95,
  p99, max) and any report that never arrived.

Bounded: the whole run stops after ``--timeout`` seconds. ``make bench-sse`` runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx2
import psycopg
from sqlalchemy.engine import make_url

from app.engine import Game, deal_from_number
from app.engine.game import Action
from tests.support.server import LiveServer, migrate, postgres_database, sqlite_database

DEAL_NUMBER = 1234


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of ``pids`` so far (``/proc/<pid>/stat``), in seconds."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def worker_pids(supervisor: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid == supervisor:
            out.append(int(name))
    return out


def pg_connections(url: str) -> tuple[int, int]:
    u = make_url(url)
    admin = u.set(drivername="postgresql", database="test").render_as_string(False)
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE query ILIKE 'LISTEN%%') "
            "FROM pg_stat_activity WHERE datname = %s",
            (u.database,),
        ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


class Stream:
    def __init__(self, html: bool = False) -> None:
        self.html = html
        self.events = 0  # the pages' stream: lists received after the first
        self.ready = asyncio.Event()
        self.arrivals: dict[int, float] = {}  # moves -> arrival time of that report
        self.changed = asyncio.Event()

    async def run(self, client: httpx2.AsyncClient, path: str) -> None:
        async with client.stream("GET", path) as response:
            if response.status_code != 200:
                raise RuntimeError(f"stream refused: {response.status_code}")
            event, data = "", ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data = line[5:].strip()
                elif not line and data and self.html:
                    if self.ready.is_set():
                        self.events += 1
                        self.arrivals.setdefault(self.events, time.monotonic())
                        self.changed.set()
                    self.ready.set()
                    data = ""
                elif not line and data:
                    if event == "standings":
                        self.ready.set()
                    elif event == "progress":
                        body = json.loads(data)
                        if not body["you"]:
                            self.arrivals.setdefault(int(body["moves"]), time.monotonic())
                            self.changed.set()
                    event, data = "", ""


async def bench(
    url: str, server: LiveServer, streams: int, moves: int, html: bool = False
) -> dict[str, object]:
    limits = httpx2.Limits(max_connections=streams + 20, max_keepalive_connections=streams + 20)
    timeout = httpx2.Timeout(30, read=300)
    async with httpx2.AsyncClient(base_url=server.url, timeout=timeout) as boot:
        r = await boot.get("/api/session")
        ann_token = r.json()["csrf_token"]
        ann_cookies = dict(boot.cookies.items())
        h = {"X-CSRF-Token": ann_token}
        r = await boot.post(
            "/api/games", json={"variant": "scorpion", "deal_number": DEAL_NUMBER}, headers=h
        )
        game = r.json()
        r = await boot.post(f"/api/games/{game['id']}/challenge", headers=h)
        token = r.json()["token"]
    async with httpx2.AsyncClient(base_url=server.url, timeout=timeout) as bob:
        r = await bob.get("/api/session")
        bob_h = {"X-CSRF-Token": r.json()["csrf_token"]}
        r = await bob.post(f"/api/challenges/{token}/games", headers=bob_h)
        assert r.status_code == 201, r.text
        bob_cookies = dict(bob.cookies.items())

    assert server.process is not None
    # The worker processes (one worker: uvicorn serves in its own process).
    pids = worker_pids(server.process.pid) or [server.process.pid]
    await asyncio.sleep(0.5)
    before = rss_kib(pids)
    client = httpx2.AsyncClient(
        base_url=server.url, timeout=timeout, limits=limits, cookies=bob_cookies
    )
    subs = [Stream(html) for _ in range(streams)]
    path = f"/challenge/{token}/events" if html else f"/api/challenges/{token}/events"
    tasks = [asyncio.create_task(s.run(client, path)) for s in subs]
    opened = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in subs)), 120)
    open_seconds = time.monotonic() - opened
    await asyncio.sleep(1.0)
    after = rss_kib(pids)
    conns = pg_connections(url) if url.startswith("postgresql") else None

    mirror = Game.new("scorpion", deal_from_number(DEAL_NUMBER))
    latencies: list[float] = []
    missing = 0
    cpu_before = cpu_seconds(pids)
    made = 0
    async with httpx2.AsyncClient(base_url=server.url, timeout=timeout, cookies=ann_cookies) as ann:
        h = {"X-CSRF-Token": ann_token}
        action: Action
        for _ in range(moves):
            hints = mirror.hints()
            if hints:
                m = hints[0]
                body = {"from_column": m.from_column, "from_index": m.from_index}
                body["to_column"] = m.to_column
                path, action = f"/api/games/{game['id']}/moves", ("move", *m)
            elif mirror.can_deal:
                path, body, action = f"/api/games/{game['id']}/deal", {}, ("deal",)
            else:
                break
            mirror.apply(action)
            made += 1
            k = made if html else mirror.moves
            sent = time.monotonic()
            r = await ann.post(path, json=body, headers=h)
            assert r.status_code == 200, r.text
            deadline = sent + 10
            for s in subs:
                while k not in s.arrivals and time.monotonic() < deadline:
                    s.changed.clear()
                    try:
                        await asyncio.wait_for(s.changed.wait(), deadline - time.monotonic())
                    except TimeoutError:
                        break
                if k in s.arrivals:
                    latencies.append(s.arrivals[k] - sent)
                else:
                    missing += 1
    cpu_per_action = (cpu_seconds(pids) - cpu_before) / max(1, made)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await client.aclose()
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    return {
        "backend": make_url(url).get_backend_name(),
        "stream": "pages (HTML)" if html else "API (JSON)",
        "server_child_processes": len(pids),
        "streams": streams,
        "seconds_to_open_all": round(open_seconds, 2),
        "rss_before_kib": before,
        "rss_with_streams_kib": after,
        "memory_per_stream_kib": round((after - before) / streams, 1),
        "db_connections_total_listen": conns,
        "server_cpu_ms_per_action": round(cpu_per_action * 1000, 1),
        "reports_delivered": len(latencies),
        "reports_missing": missing,
        "latency_ms": {
            "median": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "p95": round(pct(0.95), 1) if latencies else None,
            "p99": round(pct(0.99), 1) if latencies else None,
            "max": round(latencies[-1] * 1000, 1) if latencies else None,
        },
    }


def run(
    *,
    streams: int = 200,
    moves: int = 10,
    workers: int = 2,
    sqlite: bool = False,
    timeout: float = 240,
    html: bool = False,
) -> dict[str, object]:
    """One bounded run (fresh database and server, dropped and stopped afterwards)."""
    with ExitStack() as stack:
        url = ""
        if not sqlite:
            try:
                url = stack.enter_context(postgres_database(prefix="scorpion_bench_sse"))
            except psycopg.Error:
                url = ""
        if not url:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            url = sqlite_database(tmp)
        migrate(url)
        log = Path(tempfile.gettempdir()) / f"bench_sse_uvicorn_{os.getpid()}.log"
        server = LiveServer(
            url,
            workers=workers,
            env={
                "RATE_LIMITS": "off",
                # one player on one address holds every stream here: lift the per-player,
                # per-address and per-worker caps
                "MAX_STREAMS_PER_PLAYER": str(streams),
                "MAX_STREAMS_PER_ADDRESS": str(streams),
                "MAX_STREAMS_PER_WORKER": str(streams),
            },
            log_path=log,
        )
        server.start()
        stack.callback(server.stop)
        return asyncio.run(asyncio.wait_for(bench(url, server, streams, moves, html), timeout))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sqlite", action="store_true", help="SQLite (polling) even if PG is up")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--html", action="store_true", help="the pages' (HTML) streams")
    args = ap.parse_args(argv)
    result = run(
        streams=args.streams,
        moves=args.moves,
        workers=args.workers,
        sqlite=args.sqlite,
        timeout=args.timeout,
        html=args.html,
    )
    print(json.dumps(result, indent=2))
    return 0 if result["reports_missing"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
