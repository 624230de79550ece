"""Helpers for tests against a live server: a player over real HTTP, and the database truth
(the move log, the stored snapshot) read directly with SQL."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2
from sqlalchemy import create_engine, text

from app.engine import Action, Game, parse_deal


class LivePlayer:
    """One browser against a live server. Each request opens a fresh connection (so that
    requests spread over the server's worker processes) unless ``client`` is given."""

    verify_tls = True  # a subclass behind a test proxy with its own CA turns it off

    def __init__(self, base_url: str, *, cookies: dict[str, str] | None = None) -> None:
        self.base_url = base_url
        self.cookies: dict[str, str] = dict(cookies or {})
        response = self.request("GET", "/api/session")
        assert response.status_code == 200, response.text
        body = response.json()
        self.id: str = body["player"]
        self.token: str = body["csrf_token"]

    def client(self, base_url: str | None = None) -> httpx2.Client:
        return httpx2.Client(
            base_url=base_url or self.base_url,
            cookies=self.cookies,
            timeout=30,
            follow_redirects=False,
            verify=self.verify_tls,
        )

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        base_url: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx2.Response:
        all_headers = dict(headers or {})
        if method not in ("GET", "HEAD") and hasattr(self, "token"):
            all_headers.setdefault("X-CSRF-Token", self.token)
        with self.client(base_url) as client:
            response = client.request(method, path, json=body, headers=all_headers)
            for name, value in client.cookies.items():
                self.cookies[name] = value
        return response

    def get(self, path: str, **kw: Any) -> httpx2.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> httpx2.Response:
        return self.request("POST", path, body, **kw)

    def new_game(self, deal_number: int = 1234, **kw: Any) -> dict[str, Any]:
        response = self.post(
            "/api/games", {"variant": "scorpion", "deal_number": deal_number}, **kw
        )
        assert response.status_code == 201, response.text
        game: dict[str, Any] = response.json()
        return game


def at_once(calls: Sequence[Callable[[], httpx2.Response]]) -> list[httpx2.Response]:
    """Run ``calls`` in threads released together by a barrier; their responses in order."""
    barrier = threading.Barrier(len(calls))
    results: list[httpx2.Response | BaseException | None] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = calls[i]()
        except BaseException as exc:  # reported below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    out: list[httpx2.Response] = []
    for r in results:
        if not isinstance(r, httpx2.Response):
            raise AssertionError(f"a concurrent request failed: {r!r}")
        out.append(r)
    return out


@dataclass
class StoredGame:
    variant: str
    deal: str
    snapshot: str
    version: int
    status: str
    log: list[tuple[int, Action]]  # (seq, action), ordered by seq


def stored_game(database_url: str, game_id: str) -> StoredGame:
    """The game row and its move log, straight from the database."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT variant, deal, snapshot, version, status FROM games WHERE id = :id"),
                {"id": game_id},
            ).one()
            log: list[tuple[int, Action]] = []
            for seq, kind, a, i, b in conn.execute(
                text(
                    "SELECT seq, kind, from_column, from_index, to_column FROM game_actions "
                    "WHERE game_id = :id ORDER BY seq, id"
                ),
                {"id": game_id},
            ):
                action: Action = ("move", a, i, b) if kind == "move" else (kind,)
                log.append((int(seq), action))
    finally:
        engine.dispose()
    return StoredGame(row[0], row[1], row[2], int(row[3]), row[4], log)


def assert_log_consistent(stored: StoredGame) -> Game:
    """The move log never forked: seq is 1..n with no gap or repeat, the version is n + 1,
    and the stored snapshot is exactly the replay of the log from the deal."""
    seqs = [seq for seq, _ in stored.log]
    assert seqs == list(range(1, len(seqs) + 1)), f"log sequence forked or has gaps: {seqs}"
    assert stored.version == len(seqs) + 1, (stored.version, len(seqs))
    replayed = Game.replay(stored.variant, parse_deal(stored.deal), [a for _, a in stored.log])
    assert replayed.to_snapshot() == stored.snapshot, "snapshot differs from the replayed log"
    assert Game.from_snapshot(stored.snapshot).public_view() == replayed.public_view()
    return replayed
