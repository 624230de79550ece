"""PostgreSQL's cost of a player action (``make bench-pg``): the figures of docs/capacity.md.

Serves the app (one uvicorn worker, rate limits on with limits no run reaches) on a fresh
PostgreSQL database at 127.0.0.1:5432 and plays games through the JSON API on one keep-alive
connection (moves, deals, undos and redos of a long recorded game, as ``make bench`` does).
Around the timed run it reads:

- the app worker's CPU time (``/proc/<pid>/stat``): app CPU per action, hence actions per
  second per app core;
- the CPU time of the database's own server processes (the backends serving this database,
  found in ``pg_stat_activity``): PostgreSQL CPU per action;
- ``pg_stat_database`` of this database: transactions (commits, rollbacks) and rows (inserted,
  updated, deleted, fetched) per action;
- the size of the move log (``game_actions``, indexes included) per row: the disk an action
  keeps;
- ``pg_current_wal_lsn()``: WAL bytes per action, read around every batch of 20 actions. The
  WAL is the whole server's, and other databases on a shared server write in bursts (a
  ``CREATE DATABASE`` writes megabytes): the median batch is the steady cost (full-page
  images after a checkpoint come on top, amortised over the checkpoint interval); the mean of
  all batches is printed beside it.

The statistics of a database reach ``pg_stat_database`` late (an idle backend flushes them
within 10 s, an exiting one at once): the run starts 11 s after the warm-up and ends by closing
the app's connections (stopping the server) before they are read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from scripts.bench_engine import long_log
from scripts.bench_floor import APP_ENV, Client
from tests.support.server import LiveServer, migrate, postgres_database

TICKS = os.sysconf("SC_CLK_TCK")
STAT_COLUMNS = (
    "xact_commit",
    "xact_rollback",
    "tup_inserted",
    "tup_updated",
    "tup_deleted",
    "tup_fetched",
    "tup_returned",
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass
class Reading:
    wal: int
    stats: dict[str, int]


def _dsn(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def read(conn: psycopg.Connection[Any], database: str) -> Reading:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute(
        f"SELECT {', '.join(STAT_COLUMNS)} FROM pg_stat_database WHERE datname = %s",
        (database,),
    ).fetchone()
    assert row is not None
    wal = conn.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
    assert wal is not None
    return Reading(int(wal[0]), dict(zip(STAT_COLUMNS, map(int, row), strict=True)))


def backends(conn: psycopg.Connection[Any], database: str) -> list[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        (database,),
    ).fetchall()
    return [int(r[0]) for r in rows]


BATCH = 20
# An idle backend flushes its pending statistics within 10 s (PostgreSQL 15's
# PGSTAT_IDLE_INTERVAL); one that exits, at once.
STATS_FLUSH_SECONDS = 11


def play(
    client: Client, rounds: int, wal: Callable[[], int] | None = None
) -> tuple[int, list[int]]:
    """Play the recorded game ``rounds`` times; returns the actions (new games included) and
    the WAL bytes of each batch of ``BATCH`` actions (when ``wal`` reads the position)."""
    number, log = long_log(320)
    actions = 0
    batches: list[int] = []
    mark = wal() if wal else 0
    for _ in range(rounds):
        _, game = client.json("POST", "/api/games", {"variant": "scorpion", "deal_number": number})
        actions += 1
        for action in log:
            if wal and actions % BATCH == 0:
                now = wal()
                batches.append(now - mark)
                mark = now
            if action[0] == "move":
                body = {"from_column": action[1], "from_index": action[2], "to_column": action[3]}
                client.json("POST", f"/api/games/{game['id']}/moves", body)
            else:
                client.json("POST", f"/api/games/{game['id']}/{action[0]}")
            actions += 1
    return actions, batches


def measure(rounds: int) -> dict[str, float]:
    with postgres_database(prefix="scorpion_pgcost") as url:
        migrate(url)
        database = url.rsplit("/", 1)[-1]
        with psycopg.connect(_dsn(url), autocommit=True) as admin:
            server = LiveServer(url, workers=1, env=APP_ENV)
            server.start()
            try:
                client = Client(server.url)
                _, session = client.json("GET", "/api/session")
                client.csrf = session["csrf_token"]
                play(client, 1)  # warm up: connections open, statements prepared

                def wal() -> int:
                    found = admin.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
                    return int(found[0]) if found else 0

                assert server.process is not None
                app_pid = server.process.pid
                pg_pids = backends(admin, database)
                time.sleep(STATS_FLUSH_SECONDS)  # the warm-up's statistics reach the view
                client.conn.close()  # the server closed it meanwhile (keep-alive timeout)
                before = read(admin, database)
                app0 = cpu_seconds(app_pid)
                pg0 = sum(cpu_seconds(p) for p in pg_pids)
                t0 = time.perf_counter()
                actions, batches = play(client, rounds, wal)
                elapsed = time.perf_counter() - t0
                app_cpu = cpu_seconds(app_pid) - app0
                pg_cpu = sum(cpu_seconds(p) for p in pg_pids) - pg0
                wal_run = read(admin, database).wal - before.wal
            finally:
                server.stop()  # the backends exit and flush this database's statistics
            time.sleep(1.5)
            after = read(admin, database)
            with psycopg.connect(_dsn(url), autocommit=True) as own:
                size = own.execute(
                    "SELECT pg_total_relation_size('game_actions')::float / count(*) "
                    "FROM game_actions"
                ).fetchone()
    per = {k: (after.stats[k] - before.stats[k]) / actions for k in STAT_COLUMNS}
    return {
        "actions": actions,
        "seconds": elapsed,
        "app_cpu_ms": app_cpu / actions * 1e3,
        "pg_cpu_ms": pg_cpu / actions * 1e3,
        "wal_bytes": statistics.median(batches) / BATCH,
        "wal_mean": wal_run / actions,
        "log_row_bytes": float(size[0]) if size else 0.0,
        **per,
    }


def report(f: dict[str, float]) -> str:
    app_rate = 1e3 / f["app_cpu_ms"] if f["app_cpu_ms"] else float("inf")
    pg_rate = 1e3 / f["pg_cpu_ms"] if f["pg_cpu_ms"] else float("inf")
    rows = f["tup_inserted"] + f["tup_updated"] + f["tup_deleted"]
    return "\n".join(
        [
            "PostgreSQL's cost of a player action (JSON API, one uvicorn worker, one keep-alive "
            "connection, rate limits on)",
            f"  actions played           {f['actions']:.0f} in {f['seconds']:.1f} s "
            f"({f['actions'] / f['seconds']:.0f}/s on one connection)",
            f"  app CPU per action       {f['app_cpu_ms']:.2f} ms  "
            f"-> {app_rate:.0f} actions/s per app core",
            f"  PostgreSQL CPU/action    {f['pg_cpu_ms']:.2f} ms  "
            f"-> {pg_rate:.0f} actions/s per database core",
            f"  transactions per action  {f['xact_commit']:.2f} committed, "
            f"{f['xact_rollback']:.2f} rolled back",
            f"  rows written per action  {rows:.2f} ({f['tup_inserted']:.2f} inserted, "
            f"{f['tup_updated']:.2f} updated, {f['tup_deleted']:.2f} deleted)",
            f"  rows read per action     {f['tup_fetched']:.2f} fetched by index, "
            f"{f['tup_returned']:.2f} returned",
            f"  WAL per action           {f['wal_bytes']:.0f} bytes, median batch "
            f"(mean of the run, the whole server's WAL: {f['wal_mean']:.0f} bytes)",
            f"  disk per move-log row    {f['log_row_bytes']:.0f} bytes (table, indexes, TOAST)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.pg_cost", description=__doc__)
    parser.add_argument("--rounds", type=int, default=4, help="recorded games played through")
    args = parser.parse_args(argv)
    print(report(measure(args.rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
