"""Helpers for the API tests: a player (its own cookie jar and CSRF token), a local engine
mirror of a game to know which cards are hidden, and direct database queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.engine import Game, code, deal_from_number, parse_deal

DATA = Path(__file__).resolve().parents[1] / "data"
KNOWN_WINS: list[dict[str, Any]] = json.loads((DATA / "known_wins.json").read_text())
KNOWN_WIN = KNOWN_WINS[0]

GAME_KEYS = [
    "id",
    "variant",
    "deal_number",
    "status",
    "columns",
    "stock",
    "completed",
    "moves",
    "version",
    "can_undo",
    "can_redo",
    # Extensions (docs/api.md), after the base keys:
    "reserves",
    "cells",
    "runs_needed",
    "assisted",
    "moves_made",
    "difficulty",
    "seconds",  # the clock (issue 41)
]

TABLES_BY_PLAYER = ("players", "player_settings", "games", "variant_stats", "stat_events")

# Every table with a ``player_id`` column: what deleting a player must leave empty of them.
PLAYER_KEYED_TABLES = (
    "player_settings",
    "games",
    "variant_stats",
    "stat_events",
    "rate_limits",
    "player_profiles",
    "race_entries",
)


class Player:
    """One browser: a TestClient with its own cookies, and its CSRF token."""

    def __init__(self, app: FastAPI, base_url: str = "http://testserver") -> None:
        self._open(TestClient(app, base_url=base_url))

    def _open(self, http: Any) -> None:
        """Use ``http`` (any client with the httpx interface) and read the session."""
        self.http = http
        r = self.http.get("/api/session")
        assert r.status_code == 200, r.text
        body = r.json()
        self.id: str = body["player"]
        self.token: str = body["csrf_token"]

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.token}

    def get(self, path: str, **kw: Any) -> Any:
        return self.http.get(path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Any:
        headers = {**self.headers, **kw.pop("headers", {})}
        if body is None:
            return self.http.post(path, headers=headers, **kw)
        return self.http.post(path, json=body, headers=headers, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        headers = {**self.headers, **kw.pop("headers", {})}
        return self.http.delete(path, headers=headers, **kw)

    def new_game(self, **body: Any) -> dict[str, Any]:
        r = self.post("/api/games", {"variant": "scorpion", **body})
        assert r.status_code == 201, r.text
        return dict(r.json())

    def move(
        self,
        gid: str,
        a: int,
        i: int,
        b: int,
        version: int | None = None,
        from_pile: str | None = None,
        to_pile: str | None = None,
    ) -> Any:
        body: dict[str, Any] = {"from_column": a, "from_index": i, "to_column": b}
        if from_pile is not None:
            body["from_pile"] = from_pile
        if to_pile is not None:
            body["to_pile"] = to_pile
        if version is not None:
            body["version"] = version
        return self.post(f"/api/games/{gid}/moves", body)

    def first_step(self, gid: str) -> dict[str, Any]:
        """The game's first step (the deal, or a hinted move in a variant without a stock):
        it starts the game and its clock (issue 41)."""
        if self.get(f"/api/games/{gid}").json()["stock"]:
            r = self.post(f"/api/games/{gid}/deal")
        else:
            r = self.post(
                f"/api/games/{gid}/moves", self.get(f"/api/games/{gid}/hints").json()["moves"][0]
            )
        assert r.status_code == 200, r.text
        return dict(r.json())

    def apply(self, gid: str, action: list[Any] | tuple[Any, ...]) -> Any:
        if action[0] == "move":
            piles = tuple(action[4:6]) if len(action) == 6 else (None, None)
            return self.move(gid, action[1], action[2], action[3], None, *piles)
        return self.post(f"/api/games/{gid}/{action[0]}")


def unclocked(game: dict[str, Any]) -> dict[str, Any]:
    """A game object without its running clock (``seconds`` grows while a started game waits):
    what "nothing changed" compares."""
    return {k: v for k, v in game.items() if k != "seconds"}


def assert_error(response: Any, status: int) -> str:
    """The response is ``status`` with a JSON ``{"detail": "<sentence>"}``; returns it."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"detail"}, body
    detail = body["detail"]
    assert isinstance(detail, str) and len(detail.split()) >= 3, detail
    assert "Traceback" not in response.text
    return detail


def mirror(
    variant: str = "scorpion", deal_number: int | None = None, deal: str | None = None
) -> Game:
    """A local engine game with the same deal as a game created through the API."""
    if deal is not None:
        return Game.new(variant, parse_deal(deal, variant))
    assert deal_number is not None
    return Game.new(variant, deal_from_number(deal_number, variant))


def hidden_codes(game: Game) -> set[str]:
    """Codes of the cards a player must not see now: face-down cards and the stock."""
    out = {code(c) for c in game.stock}
    # A multi-deck card may be hidden in one copy and shown in another: only cards with no
    # face-up copy anywhere are "hidden" for the leak checks.
    shown = {c for col in game.public_view().columns for c in col if c is not None}
    shown |= {c for c in game.public_view().reserves + game.public_view().cells if c}
    for ci, col in enumerate(game.cols):
        out |= {code(c) for c in col[: game.hidden[ci]]}
    return out - shown


def assert_no_hidden_card(response_text: str, game: Game) -> None:
    for hidden in hidden_codes(game):
        assert f'"{hidden}"' not in response_text, f"hidden card {hidden} leaked"
        assert hidden not in response_text.replace('"', " ").split(), hidden


def count_rows(engine: Engine, table: str, where: str = "", **params: Any) -> int:
    sql = f"SELECT COUNT(*) FROM {table}" + (f" WHERE {where}" if where else "")
    with engine.connect() as conn:
        return int(conn.execute(text(sql), params).scalar_one())


def player_rows(engine: Engine, player_id: str) -> dict[str, int]:
    """How many rows of each table belong to the player (move log: via its games)."""
    out = {}
    for table in TABLES_BY_PLAYER:
        column = "id" if table == "players" else "player_id"
        out[table] = count_rows(engine, table, f"{column} = :p", p=player_id)
    out["game_actions"] = count_rows(
        engine,
        "game_actions",
        "game_id IN (SELECT id FROM games WHERE player_id = :p)",
        p=player_id,
    )
    return out
