"""Load benchmark: many simulated players over loopback against two uvicorn workers on a fresh
PostgreSQL database (``make bench-load``).

Each player is a separate cookie jar: ``GET /api/session``, ``POST /api/games``, then a stream
of realistic play: ask for hints, play one (with the expected ``version``), deal when no move
is left, undo now and then (and redo some of those), start a new game when the game is won
or stuck. ``RATE_LIMITS=off``. Bounded twice: a number of actions per player and a wall-clock
limit. Prints requests and game actions per second, p50/p99 latency overall and per kind,
and the error count (any status other than the expected one, or a transport error). Exits 1
if there was any error.

    python -m scripts.bench_load --players 50 --actions 80 --seconds 90
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from tests.support.server import LiveServer, migrate, postgres_database


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    actions: int = 0  # moves, deals, undos, redos accepted

    def record(self, kind: str, seconds: float) -> None:
        self.latencies[kind].append(seconds)


class Player:
    def __init__(self, base_url: str, stats: Stats, rng: random.Random, deadline: float) -> None:
        self.client = httpx2.AsyncClient(
            base_url=base_url, timeout=30, limits=httpx2.Limits(max_connections=1)
        )
        self.stats = stats
        self.rng = rng
        self.deadline = deadline
        self.csrf = ""

    async def call(
        self, kind: str, method: str, path: str, expect: int, json: Any = None
    ) -> dict[str, Any] | None:
        headers = {"X-CSRF-Token": self.csrf} if method != "GET" else {}
        start = time.perf_counter()
        try:
            response = await self.client.request(method, path, json=json, headers=headers)
        except httpx2.HTTPError as exc:
            self.stats.errors.append(f"{kind}: {exc.__class__.__name__}: {exc}")
            return None
        self.stats.record(kind, time.perf_counter() - start)
        if response.status_code != expect:
            self.stats.errors.append(
                f"{kind} {method} {path}: {response.status_code} {response.text[:200]}"
            )
            return None
        if response.status_code == 204 or not response.content:
            return {}
        body: dict[str, Any] = response.json()
        return body

    async def new_game(self) -> dict[str, Any] | None:
        deal_number = self.rng.randint(1, 4_294_967_295)
        return await self.call(
            "create",
            "POST",
            "/api/games",
            201,
            {"variant": "scorpion", "deal_number": deal_number},
        )

    async def play(self, actions: int) -> None:
        try:
            session = await self.call("session", "GET", "/api/session", 200)
            if session is None:
                return
            self.csrf = session["csrf_token"]
            game = await self.new_game()
            done = 0
            while game is not None and done < actions and time.monotonic() < self.deadline:
                gid = game["id"]
                if game["status"] == "won":
                    game = await self.new_game()
                    continue
                roll = self.rng.random()
                if roll < 0.12 and game["can_undo"]:
                    game = await self.call(
                        "undo",
                        "POST",
                        f"/api/games/{gid}/undo",
                        200,
                        {"version": game["version"]},
                    )
                elif roll < 0.16 and game["can_redo"]:
                    game = await self.call(
                        "redo",
                        "POST",
                        f"/api/games/{gid}/redo",
                        200,
                        {"version": game["version"]},
                    )
                else:
                    hints = await self.call("hints", "GET", f"/api/games/{gid}/hints", 200)
                    if hints is None:
                        return
                    if hints["moves"]:
                        move = self.rng.choice(hints["moves"])
                        game = await self.call(
                            "move",
                            "POST",
                            f"/api/games/{gid}/moves",
                            200,
                            {**move, "version": game["version"]},
                        )
                    elif hints["can_deal"]:
                        game = await self.call(
                            "deal",
                            "POST",
                            f"/api/games/{gid}/deal",
                            200,
                            {"version": game["version"]},
                        )
                    else:
                        game = await self.new_game()  # stuck: a fresh deal
                        continue
                done += 1
                if game is not None:
                    self.stats.actions += 1
        finally:
            await self.client.aclose()


async def run_load(base_url: str, players: int, actions: int, seconds: float, seed: int) -> Stats:
    stats = Stats()
    deadline = time.monotonic() + seconds
    rng = random.Random(seed)
    crowd = [Player(base_url, stats, random.Random(rng.random()), deadline) for _ in range(players)]
    await asyncio.gather(*(p.play(actions) for p in crowd))
    return stats


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def report(
    stats: Stats,
    elapsed: float,
    players: int,
    workers: int,
    rate_limits: str = "off",
    database: str = "PostgreSQL",
) -> str:
    everything = [x for values in stats.latencies.values() for x in values]
    requests = len(everything)
    lines = [
        f"bench-load: {players} players, {workers} uvicorn workers, {database}, "
        f"RATE_LIMITS={rate_limits}, {elapsed:.1f} s",
        f"  requests      {requests:7d}   {requests / elapsed:8.1f} req/s",
        f"  game actions  {stats.actions:7d}   {stats.actions / elapsed:8.1f} actions/s "
        "(moves, deals, undos, redos)",
        f"  latency       p50 {percentile(everything, 50) * 1000:7.1f} ms   "
        f"p99 {percentile(everything, 99) * 1000:7.1f} ms   "
        f"mean {statistics.fmean(everything) * 1000 if everything else float('nan'):7.1f} ms",
    ]
    for kind in ("session", "create", "hints", "move", "deal", "undo", "redo"):
        values = stats.latencies.get(kind, [])
        if values:
            lines.append(
                f"    {kind:8s} n={len(values):6d}  p50 {percentile(values, 50) * 1000:7.1f} ms"
                f"  p99 {percentile(values, 99) * 1000:7.1f} ms"
            )
    lines.append(f"  errors        {len(stats.errors)}")
    for error in stats.errors[:10]:
        lines.append(f"    {error}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_load", description=__doc__)
    parser.add_argument("--players", type=int, default=50, help="simulated players (default 50)")
    parser.add_argument("--actions", type=int, default=80, help="actions per player (80)")
    parser.add_argument("--seconds", type=float, default=90, help="wall-clock limit (90 s)")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers (2)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--with-rate-limits",
        action="store_true",
        help="keep rate limits on (limits set out of reach) to measure what counting costs",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="use this (migrated) database instead of a fresh PostgreSQL one",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        log = Path(tmp) / "uvicorn.log"

        def go(url: str) -> int:
            migrate(url)
            env = {"RATE_LIMITS": "off"}
            if args.with_rate_limits:
                env = {
                    "RATE_LIMITS": "on",
                    "RATE_LIMIT_GAMES": "1000000",
                    "RATE_LIMIT_ACTIONS": "1000000",
                }
            server = LiveServer(url, workers=args.workers, env=env, log_path=log)
            with server:
                start = time.monotonic()
                cpu = time.process_time()
                stats = asyncio.run(
                    run_load(server.url, args.players, args.actions, args.seconds, args.seed)
                )
                elapsed = time.monotonic() - start
                cpu = time.process_time() - cpu
            database = "SQLite" if url.startswith("sqlite") else "PostgreSQL"
            print(report(stats, elapsed, args.players, args.workers, env["RATE_LIMITS"], database))
            # The load generator shares this machine's cores with the server and PostgreSQL.
            print(
                f"  load generator CPU {cpu:.1f} s of {elapsed:.1f} s wall "
                f"({os.cpu_count()} cores on this machine)"
            )
            if stats.errors:
                print("--- server log (tail) ---")
                print("\n".join(log.read_text(errors="replace").splitlines()[-40:]))
            return 1 if stats.errors else 0

        if args.database_url:
            return go(args.database_url)
        with postgres_database(prefix="scorpion_bench") as url:
            return go(url)


if __name__ == "__main__":
    sys.exit(main())
