"""Request benchmark (``make bench``): the running app, on one keep-alive connection.

Starts ``uvicorn app.main:app`` (one worker) on a fresh, migrated database (SQLite by
default, ``--postgres`` for a fresh PostgreSQL database on 127.0.0.1:5432), with
``RATE_LIMITS=off``, and prints medians of:

- ``GET /api/session`` (the floor: identity and JSON, no database);
- a move request (``POST /api/games/{id}/moves``);
- the full play page (``GET /games/{id}``, not an htmx fragment);
- a move at step ~10 against one at step ~300 of the same long game (a 320-action log of
  moves, deals, undos and redos, played through the API several times).

Targets (issue 3): a move within 2x of ``GET /api/session``, the page within 2x, the late
move within 1.1x of the early one.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import psycopg

from scripts.bench_engine import long_log

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"

Action = tuple[Any, ...]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _database(postgres: bool) -> Iterator[str]:
    if not postgres:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
        return
    name = f"scorpion_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _server(url: str) -> Iterator[str]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "RATE_LIMITS": "off",
        "SECRET_KEY": "bench-secret-key-0123456789abcdef",
    }
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(base + "/api/session", timeout=1).status_code == 200:
                    break
            except httpx2.TransportError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def run(base: str, repeat: int, games: int) -> dict[str, float]:
    with httpx2.Client(base_url=base, timeout=30) as http:  # one keep-alive connection
        session = http.get("/api/session").json()
        headers = {"X-CSRF-Token": session["csrf_token"]}

        def request(method: str, path: str, body: Any = None) -> Any:
            r = http.request(method, path, json=body, headers=headers)
            if r.status_code >= 400:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text}")
            return r

        for _ in range(20):  # warm up
            http.get("/api/session")
        session_times = [_timed(lambda: http.get("/api/session"))[0] for _ in range(repeat)]

        number, log = long_log(320)
        early: list[float] = []
        late: list[float] = []
        moves: list[float] = []
        game_id = ""
        for _ in range(games):
            game_id = request("POST", "/api/games", {"variant": "scorpion", "deal_number": number})
            game_id = game_id.json()["id"]
            for step, action in enumerate(log, start=1):
                if action[0] == "move":
                    body = {
                        "from_column": action[1],
                        "from_index": action[2],
                        "to_column": action[3],
                    }
                    path = f"/api/games/{game_id}/moves"
                    t, _ = _timed(partial(request, "POST", path, body))
                    moves.append(t)
                    if step <= 20:
                        early.append(t)
                    elif 290 <= step <= 310:
                        late.append(t)
                else:
                    request("POST", f"/api/games/{game_id}/{action[0]}")

        page_times = [_timed(lambda: request("GET", f"/games/{game_id}"))[0] for _ in range(repeat)]
    return {
        "session": statistics.median(session_times),
        "move": statistics.median(moves),
        "page": statistics.median(page_times),
        "early": statistics.median(early),
        "late": statistics.median(late),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_api", description=__doc__)
    parser.add_argument("--postgres", action="store_true", help="use a fresh PostgreSQL db")
    parser.add_argument("--repeat", type=int, default=300, help="samples per GET figure")
    parser.add_argument("--games", type=int, default=4, help="long games played through")
    args = parser.parse_args(argv)

    with _database(args.postgres) as url, _server(url) as base:
        f = run(base, args.repeat, args.games)
    backend = "PostgreSQL" if args.postgres else "SQLite"
    ms = 1e3
    print(f"requests on one keep-alive connection ({backend}, one uvicorn worker), medians:")
    print(f"  GET /api/session          {f['session'] * ms:8.3f} ms")
    print(
        f"  move request              {f['move'] * ms:8.3f} ms   "
        f"{f['move'] / f['session']:5.2f}x session (target <= 2x)"
    )
    print(
        f"  full play page            {f['page'] * ms:8.3f} ms   "
        f"{f['page'] / f['session']:5.2f}x session (target <= 2x)"
    )
    print(f"  move at step ~10          {f['early'] * ms:8.3f} ms")
    print(
        f"  move at step ~300         {f['late'] * ms:8.3f} ms   "
        f"{f['late'] / f['early']:5.2f}x early (target <= 1.1x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
