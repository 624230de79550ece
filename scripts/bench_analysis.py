"""Solver questions through the running app: ``POST /api/games/{id}/analysis``.

Starts ``uvicorn app.main:app --workers 2`` on a fresh, migrated database (SQLite by default,
``--postgres`` for PostgreSQL) and, as one player:

1. asks about the opening of ``--games`` random deals, one at a time (the first question of each
   worker also starts its solver process);
2. asks ``--parallel`` questions at once (more than the solver processes: the rest queue, and
   answer "unknown" if their time runs out); with ``--hard``, all about a deal that takes our
   solver about 9 s (Scorpion deal 119,787, lost), to see the queue and the budget at work.

Prints the verdicts and the request times as the client saw them (median, 90th percentile,
maximum), and the ``seconds`` the server reported. Never part of the tests: speed is measured
here, not asserted there.

    python -m scripts.bench_analysis [--postgres] [--games 100] [--parallel 8] [--hard]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2

from tests.support.server import LiveServer, migrate, postgres_database, sqlite_database


def _summary(name: str, times: list[float]) -> str:
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    return (
        f"{name}: n={len(times)} median {1000 * statistics.median(times):.1f} ms, "
        f"p90 {1000 * p90:.1f} ms, max {1000 * times[-1]:.1f} ms"
    )


def _player(url: str) -> tuple[httpx2.Client, dict[str, str]]:
    client = httpx2.Client(base_url=url, timeout=30)
    token = client.get("/api/session").json()["csrf_token"]
    return client, {"X-CSRF-Token": token}


# Scorpion deal 119,787 (``tests/support/deals.py``'s HARD_DEAL).
HARD_DEAL = (
    "6C TS 4C TD 6H QD KC QH AC 8D 4D 6D 5H 5D 3D 4S 7D 2H 4H 8H TC AS AH 7H 3S AD 3H QC 9H KH "
    "JS 3C 5C 9D 5S 7S KS JC KD 2D 9C TH 2S 7C JH 6S 8S JD QS 2C 8C 9S"
)


def run(url: str, games: int, parallel: int, seed: int, hard: bool) -> None:
    rng = random.Random(seed)
    client, headers = _player(url)
    verdicts: Counter[str] = Counter()
    client_times: list[float] = []
    server_times: list[float] = []
    for _ in range(games):
        number = rng.randint(1, 2**32 - 1)
        gid = client.post(
            "/api/games", json={"variant": "scorpion", "deal_number": number}, headers=headers
        ).json()["id"]
        t = time.perf_counter()
        r = client.post(f"/api/games/{gid}/analysis", json={"hint": True}, headers=headers)
        client_times.append(time.perf_counter() - t)
        body: dict[str, Any] = r.json()
        assert r.status_code == 200, r.text
        verdicts[body["verdict"]] += 1
        server_times.append(float(body["seconds"]))
    print(f"sequential, {games} random deals: {dict(verdicts)}")
    print(_summary("  client", client_times))
    print(_summary("  server 'seconds'", server_times))

    # Parallel: different players (one unfinished game per variant each), all at once.
    players = [_player(url) for _ in range(parallel)]
    gids = []
    for c, h in players:
        number = rng.randint(1, 2**32 - 1)
        new: dict[str, Any] = {"variant": "scorpion"}
        new.update({"deal": HARD_DEAL} if hard else {"deal_number": number})
        gids.append(c.post("/api/games", json=new, headers=h).json()["id"])

    def ask(k: int) -> tuple[float, str]:
        c, h = players[k]
        t = time.perf_counter()
        r = c.post(f"/api/games/{gids[k]}/analysis", json={}, headers=h)
        return time.perf_counter() - t, str(r.json()["verdict"])

    with ThreadPoolExecutor(parallel) as pool:
        results = list(pool.map(ask, range(parallel)))
    what = "the hard deal" if hard else "random deals"
    print(f"parallel, {parallel} at once on {what}: {dict(Counter(v for _, v in results))}")
    print(_summary("  client", [t for t, _ in results]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--hard", action="store_true")
    args = parser.parse_args()
    with ExitStack() as stack:
        if args.postgres:
            url = stack.enter_context(postgres_database("scorpion_bench"))
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            url = sqlite_database(tmp)
        migrate(url)
        server = LiveServer(url, workers=2, env={"RATE_LIMITS": "off"}).start()
        try:
            run(server.url, args.games, args.parallel, args.seed, args.hard)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
