"""The stack's floor (``make bench-floor``): the app against a bare FastAPI baseline, side by side.

Issue 42's targets, on the stack's own idioms (plain FastAPI routes, SQLAlchemy, Jinja): a JSON
move at most 2.0x, an htmx move at most 2.5x and the play page at most 2.5x the bare FastAPI
baselines (``scripts/floor_baseline.py``: one SQLite transaction of a move's shape, and a
52-card board rendered with Jinja2). Both servers run at once in this run, one uvicorn worker
each, on SQLite, each reached over one keep-alive connection (``http.client``, the lightest
client, so the client's own time hides as little as possible); app and baseline requests
alternate, so both see the same machine. The app runs as deployed: rate limits on (with
limits no benchmark reaches, so every action is counted), identity, CSRF, metrics, access log.

Printed: p10 and p50 (the lower deciles: the least disturbed samples on a shared machine) of

- a move: ``POST /api/games/{id}/moves`` (JSON) and ``POST /games/{id}/move`` (htmx, form),
  against the baseline's ``POST /move``: the same game played through both paths side by
  side, each of its moves timed on both, with a baseline move before each;
- the full play page ``GET /games/{id}`` against the baseline's ``GET /board``;

and the htmx move response's size (body bytes: median and largest).
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from scripts.bench_engine import long_log
from tests.support.server import LiveServer, migrate, sqlite_database

Action = tuple[Any, ...]
MOVE_TARGET, HTMX_MOVE_TARGET, PAGE_TARGET, HTMX_BYTES_TARGET = 2.0, 2.5, 2.5, 8 * 1024
# Limits no run reaches: the app counts every action as in production, never refuses one.
APP_ENV = {"RATE_LIMIT_ACTIONS": "100000000", "RATE_LIMIT_GAMES": "100000000"}


class Client:
    """One keep-alive HTTP/1.1 connection, with the cookie the server set and its CSRF token."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.cookie = ""
        self.csrf = ""

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        token_header: bool = True,
    ) -> tuple[float, int, bytes]:
        """(seconds, status, body) of one request."""
        h = {"Cookie": self.cookie} if self.cookie else {}
        if self.csrf and method != "GET" and token_header:
            h["X-CSRF-Token"] = self.csrf
        h.update(headers or {})
        t0 = time.perf_counter()
        self.conn.request(method, path, body=body, headers=h)
        response = self.conn.getresponse()
        data = response.read()
        seconds = time.perf_counter() - t0
        for value in response.headers.get_all("set-cookie") or []:
            jar: SimpleCookie = SimpleCookie(value)
            self.cookie = "; ".join(f"{k}={m.value}" for k, m in jar.items())
        return seconds, response.status, data

    def json(self, method: str, path: str, payload: Any = None) -> tuple[float, Any]:
        body = json.dumps(payload).encode() if payload is not None else None
        seconds, status, data = self.request(
            method, path, body, {"Content-Type": "application/json"}
        )
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
        return seconds, json.loads(data) if data else None

    def form(self, path: str, fields: dict[str, Any]) -> tuple[float, bytes]:
        body = urlencode({**fields, "csrf_token": self.csrf}).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}
        # (the token in the form alone, as the play page sends it)
        seconds, status, data = self.request("POST", path, body, headers, token_header=False)
        if status != 200 or b'class="error"' in data:
            raise RuntimeError(f"POST {path}: {status} {data[:300]!r}")
        return seconds, data


@contextmanager
def servers(tmp: Path) -> Iterator[tuple[str, str]]:
    """The app and the baseline, one worker each, on fresh SQLite files under ``tmp``."""
    app_url = sqlite_database(tmp, "app.db")
    migrate(app_url)
    app = LiveServer(app_url, workers=1, env=APP_ENV, log_path=tmp / "app.log")
    base = LiveServer(
        sqlite_database(tmp, "unused.db"),
        workers=1,
        env={"BASELINE_DB": str(tmp / "baseline.db")},
        log_path=tmp / "baseline.log",
        app="scripts.floor_baseline:app",
    )
    with ExitStack() as stack:
        stack.enter_context(base)
        stack.enter_context(app)
        yield app.url, base.url


def _move_fields(action: Action) -> dict[str, int]:
    return {"from_column": action[1], "from_index": action[2], "to_column": action[3]}


def run(app_url: str, base_url: str, rounds: int, pages: int) -> dict[str, list[float]]:
    app, base = Client(app_url), Client(base_url)
    _, session = app.json("GET", "/api/session")
    app.csrf = session["csrf_token"]
    number, log = long_log(320)
    out: dict[str, list[float]] = {k: [] for k in ("base_move", "api_move", "htmx_move")}
    out.update(base_page=[], page=[], htmx_bytes=[])
    for _ in range(20):  # warm up both
        base.request("POST", "/move")
        base.request("GET", "/board")
    for r in range(rounds):
        # A game through the JSON API and the same game through the htmx forms, played side
        # by side, each move timed on both with a baseline move before each (the two paths'
        # order alternating): the three see the same moments of the machine, and every app
        # request follows a baseline one, as every baseline request follows an app one.
        games = []
        for _ in range(2):
            _, game = app.json("POST", "/api/games", {"variant": "scorpion", "deal_number": number})
            games.append(game["id"])
        api_game, htmx_game = games
        for i, action in enumerate(log):
            if action[0] != "move":
                app.json("POST", f"/api/games/{api_game}/{action[0]}")
                app.form(f"/games/{htmx_game}/{action[0]}", {})
                continue
            fields = _move_fields(action)
            first, second = ("api_move", "htmx_move")[:: 1 if (i + r) % 2 else -1]
            for path in ("base_move", first, "base_move", second):
                if path == "base_move":
                    seconds = base.request("POST", "/move")[0]
                elif path == "api_move":
                    seconds = app.json("POST", f"/api/games/{api_game}/moves", fields)[0]
                else:
                    seconds, body = app.form(f"/games/{htmx_game}/move", fields)
                    out["htmx_bytes"].append(float(len(body)))
                out[path].append(seconds)
        # The play page beside the baseline board, alternating.
        for i in range(pages):
            order = [("base_page", base, "/board"), ("page", app, f"/games/{api_game}")]
            for key, client, path in order if i % 2 else order[::-1]:
                seconds, status, _ = client.request("GET", path)
                if status != 200:
                    raise RuntimeError(f"GET {path}: {status}")
                out[key].append(seconds)
    return out


def decile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def report(f: dict[str, list[float]]) -> str:
    lines = [
        "the stack's floor: app vs bare FastAPI baseline, side by side "
        "(one uvicorn worker each, SQLite, one keep-alive connection each)",
        f"{'':28}{'p10 ms':>9}{'p50 ms':>9}{'p10 x':>8}{'p50 x':>8}  target",
    ]

    def row(name: str, key: str, ref: str | None, target: float | None) -> None:
        p10, p50 = decile(f[key], 10) * 1e3, decile(f[key], 50) * 1e3
        line = f"{name:28}{p10:9.3f}{p50:9.3f}"
        if ref is not None and target is not None:
            r10, r50 = p10 / (decile(f[ref], 10) * 1e3), p50 / (decile(f[ref], 50) * 1e3)
            line += f"{r10:8.2f}{r50:8.2f}  <= {target}x"
        lines.append(line)

    row("baseline POST /move", "base_move", None, None)
    row("app move (JSON API)", "api_move", "base_move", MOVE_TARGET)
    row("app move (htmx form)", "htmx_move", "base_move", HTMX_MOVE_TARGET)
    row("baseline GET /board", "base_page", None, None)
    row("app play page (full)", "page", "base_page", PAGE_TARGET)
    sizes = f["htmx_bytes"]
    lines.append(
        f"htmx move response body: median {statistics.median(sizes):,.0f} B, largest "
        f"{max(sizes):,.0f} B (target < {HTMX_BYTES_TARGET:,} B); samples: "
        f"{len(f['api_move'])} moves, {len(f['page'])} pages"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench_floor", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="games played through per path")
    parser.add_argument("--pages", type=int, default=200, help="page pairs per round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, servers(Path(tmp)) as urls:
        figures = run(*urls, rounds=args.rounds, pages=args.pages)
    print(report(figures))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
