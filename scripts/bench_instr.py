"""Instructions per request (``make bench-instr``): the floor's paths counted, not timed.

``make bench-floor`` times the app against the bare baseline over the network; on a shared
machine its figures swing with the neighbours (its baseline move has read 0.44 to 1.46 ms p10
on machines of this kind, within one session). The work a request does inside the process
does not swing: this benchmark counts it. It drives the app and the baseline
(``scripts/floor_baseline.py``) in process, through ASGI calls without a network, under
valgrind's cachegrind with no cache simulation (it counts the machine instructions executed),
and prints the instructions per request of ``make bench-floor``'s paths:

- a move: the JSON API (``POST /api/games/{id}/moves``) and the htmx form
  (``POST /games/{id}/move``), each playing games of ``bench_floor``'s log (moves, with the
  log's deals, undos and redos: every action is counted), against the baseline's ``POST /move``;
- the same two paths playing forward only (``api_fresh``, ``htmx_fresh``: ``fresh_games``),
  every position new, so no cache of views or markup is found warm by an undo or a redo;
- the full play page ``GET /games/{id}`` against the baseline's ``GET /board``.

Each figure is the difference between two runs that differ only in the number of measured
requests (one game and three, two fresh games and ten; 100 requests and 500), so start-up,
imports, migrations and warm-up cancel out: a rerun gives the same figures to within about
1%. What it leaves out is what every request pays outside the application, the same for the
app and the baseline: uvicorn's HTTP parsing and the kernel's networking (``docs/capacity.md``,
"Seventh pass", has the model that joins the two benchmarks).

    python -m scripts.bench_instr [--paths api_move,htmx_move,...] [--jobs 2]

Needs valgrind (Debian's ``valgrind``; ``make bench-instr`` installs it when it is missing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
# path -> (first count, second count, what one unit is)
PATHS: dict[str, tuple[int, int, str]] = {
    "base_move": (100, 500, "request"),
    "api_move": (1, 3, "game"),
    "htmx_move": (1, 3, "game"),
    "api_fresh": (2, 10, "fresh game"),
    "htmx_fresh": (2, 10, "fresh game"),
    "base_page": (100, 500, "request"),
    "page": (100, 500, "request"),
}
LOG_LENGTH = 320  # actions a game (bench_floor's log), plus the request that starts it
REFERENCE = {
    "api_move": "base_move",
    "htmx_move": "base_move",
    "api_fresh": "base_move",
    "htmx_fresh": "base_move",
    "page": "base_page",
}
FRESH_GAMES = 10


def fresh_games() -> list[tuple[int, list[tuple[Any, ...]]]]:
    """Games played the way a player goes forward: no undo, every position new (the log's
    undos and redos bring positions back, which the app's caches of views and markup
    remember): from deal 1001 on, the deal's useful moves taken in turn, the deal when none
    is left, up to 80 actions; games shorter than 30 are skipped."""
    from app.engine import Game, deal_from_number

    games: list[tuple[int, list[tuple[Any, ...]]]] = []
    number = 1000
    while len(games) < FRESH_GAMES:
        number += 1
        game = Game.new("scorpion", deal_from_number(number, "scorpion"))
        actions: list[tuple[Any, ...]] = []
        for step in range(80):
            hints = game.hints()
            if hints:
                m = hints[(step * 7) % len(hints)]
                action: tuple[Any, ...] = ("move", m.from_column, m.from_index, m.to_column)
            elif game.can_deal:
                action = ("deal",)
            else:
                break
            game.apply(action)
            actions.append(action)
        if len(actions) >= 30:
            games.append((number, actions))
    return games


Asgi = Callable[..., Coroutine[Any, Any, None]]


class Driver:
    """ASGI calls in process, with the cookies the app set (no network, no server)."""

    def __init__(self, app: Asgi) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}  # name -> value: the player's, the language's
        self.csrf = ""

    async def call(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        token_header: bool = True,
    ) -> tuple[int, bytes]:
        path, _, query = path.partition("?")
        raw = {"host": "bench", "content-length": str(len(body)), **(headers or {})}
        if self.cookies:
            raw["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.csrf and method != "GET" and token_header:
            raw["x-csrf-token"] = self.csrf
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in raw.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("bench", 80),
        }
        sent = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects
            return {}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                for name, value in message["headers"]:
                    if name == b"set-cookie":
                        name_value = value.decode().split(";")[0]
                        key, _, val = name_value.partition("=")
                        self.cookies[key.strip()] = val
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        data = b"".join(chunks)
        if status >= 400 or b'class="error"' in data:
            raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
        return status, data

    async def json(self, method: str, path: str, payload: Any = None) -> Any:
        body = json.dumps(payload).encode() if payload is not None else b""
        _, data = await self.call(method, path, body, {"content-type": "application/json"})
        return json.loads(data) if data else None

    async def form(self, path: str, fields: dict[str, Any]) -> bytes:
        body = urlencode({**fields, "csrf_token": self.csrf}).encode()
        headers = {"content-type": "application/x-www-form-urlencoded", "hx-request": "true"}
        # (the token in the form alone, as the play page sends it)
        return (await self.call("POST", path, body, headers, token_header=False))[1]


async def _inner(path: str, count: int) -> None:
    """One measured run: ``count`` units of ``path`` after a warm-up (under valgrind)."""
    if path.startswith("base_"):
        from scripts.floor_baseline import app as base

        d = Driver(base)
        method, url = ("POST", "/move") if path == "base_move" else ("GET", "/board")
        for _ in range(20 + count):
            await d.call(method, url)
        return
    from app.main import app
    from scripts.bench_engine import long_log

    d = Driver(app)
    d.csrf = (await d.json("GET", "/api/session"))["csrf_token"]
    if path == "page":
        number, log = long_log(LOG_LENGTH)
        game = await d.json("POST", "/api/games", {"variant": "scorpion", "deal_number": number})
        for action in log[:100]:  # a game well under way
            await _act(d, "api_move", game["id"], action)
        for _ in range(20 + count):
            await d.call("GET", f"/games/{game['id']}")
        return
    await d.call("GET", "/")  # warm-up: templates compiled, caches made
    if path.endswith("_fresh"):
        # every run plans all the games (its cost cancels out) and plays ``count`` of them
        for number, actions in fresh_games()[:count]:
            new = {"variant": "scorpion", "deal_number": number}
            game = await d.json("POST", "/api/games", new)
            for action in actions:
                await _act(d, path.replace("_fresh", "_move"), game["id"], action)
        return
    for k in range(count):  # every game a new one: its columns are new to every cache
        number, log = long_log(LOG_LENGTH, seed=11 + k)
        game = await d.json("POST", "/api/games", {"variant": "scorpion", "deal_number": number})
        for action in log:
            await _act(d, path, game["id"], action)


async def _act(d: Driver, path: str, gid: str, action: tuple[Any, ...]) -> None:
    kind = action[0]
    fields = (
        {"from_column": action[1], "from_index": action[2], "to_column": action[3]}
        if kind == "move"
        else {}
    )
    if path == "htmx_move":
        await d.form(f"/games/{gid}/{kind}", fields)
    elif kind == "move":
        await d.json("POST", f"/api/games/{gid}/moves", fields)
    else:
        await d.json("POST", f"/api/games/{gid}/{kind}")


def _instructions(path: str, count: int, template_db: Path) -> int:
    """The instructions of one run under cachegrind, on a copy of the migrated database."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "app.db"
        shutil.copy(template_db, db)
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{db}",
            "BASELINE_DB": str(Path(tmp) / "baseline.db"),
            "ENVIRONMENT": "test",
            "LOG_LEVEL": "warning",
            # limits no run reaches: every action is counted, none refused (as bench_floor)
            "RATE_LIMIT_ACTIONS": "100000000",
            "RATE_LIMIT_GAMES": "100000000",
            "PYTHONPATH": str(ROOT),
            "PYTHONHASHSEED": "0",  # the same hashes, so the same dict and set layouts, each run
        }
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
        cmd += ["--cachegrind-out-file=/dev/null", sys.executable, "-m", "scripts.bench_instr"]
        cmd += ["--inner", path, "--count", str(count)]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        m = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if done.returncode != 0 or m is None:
            raise RuntimeError(f"{path} x{count}: {done.stderr[-2000:]}")
        return int(m.group(1).replace(",", ""))


def per_request(path: str, template_db: Path, pool: ThreadPoolExecutor) -> float:
    first, second, unit = PATHS[path]
    a, b = pool.map(lambda n: _instructions(path, n, template_db), (first, second))
    if unit == "fresh game":
        requests = sum(len(actions) + 1 for _, actions in fresh_games()[first:second])
    else:
        requests = (second - first) * (LOG_LENGTH + 1 if unit == "game" else 1)
    return (b - a) / requests


def report(figures: dict[str, float]) -> str:
    """A table: each path's instructions per request and what it adds to its baseline's."""
    lines = [
        "instructions per request, in process (no network), counted by valgrind",
        f"{'':26}{'instructions':>14}{'over baseline':>15}",
    ]
    names = {
        "base_move": "baseline POST /move",
        "api_move": "app move (JSON API)",
        "htmx_move": "app move (htmx form)",
        "api_fresh": "JSON, every position new",
        "htmx_fresh": "htmx, every position new",
        "base_page": "baseline GET /board",
        "page": "app play page (full)",
    }
    for path, value in figures.items():
        line = f"{names[path]:26}{value:14,.0f}"
        ref = REFERENCE.get(path)
        if ref in figures:
            line += f"{value - figures[ref]:+15,.0f}"
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_instr", description=__doc__)
    parser.add_argument("--paths", default=",".join(PATHS), help="any of " + ",".join(PATHS))
    parser.add_argument("--jobs", type=int, default=2, help="valgrind runs at once")
    parser.add_argument("--inner", choices=sorted(PATHS), help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        asyncio.run(_inner(args.inner, args.count))
        return 0
    if shutil.which("valgrind") is None:
        print("bench-instr needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    paths = [p for p in args.paths.split(",") if p]
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        parser.error(f"unknown paths: {', '.join(unknown)}")
    from tests.support.server import migrate, sqlite_database

    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        url = sqlite_database(Path(tmp), "template.db")
        migrate(url)
        for path in paths:
            figures[path] = per_request(path, Path(tmp) / "template.db", pool)
            print(f"{path}: {figures[path]:,.0f}", file=sys.stderr, flush=True)
    print(report(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
