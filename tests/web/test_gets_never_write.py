"""No GET writes (SQLite and PostgreSQL): every GET route of the app, read from ``app.routes``,
with and without a cookie, leaves the row count of every table unchanged. (The event streams
never end, so their one lookup, the race id, is checked directly.)"""

from __future__ import annotations

import itertools
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.db.models import Base
from app.services import daily, days
from app.services.race_panel import daily_race_id
from tests.support.api_client import Player, count_rows

pytestmark = pytest.mark.usefixtures("configured")


def all_counts(engine: Engine) -> dict[str, int]:
    return {name: count_rows(engine, name) for name in sorted(Base.metadata.tables)}


def get_paths(app: FastAPI) -> list[str]:
    """The path templates of every GET route (plain and included routers alike)."""
    out: list[str] = []
    for route in app.routes:
        contexts: Any = getattr(route, "effective_route_contexts", None)
        items = (contexts() if callable(contexts) else contexts) if contexts else [route]
        for item in items:
            methods = getattr(item, "methods", None) or ()
            path = getattr(item, "path", None) or getattr(item, "path_format", None)
            if "GET" in methods and path:
                out.append(path)
    return sorted(set(out))


def test_no_get_route_writes_anything(
    app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    today = date(2036, 1, 1) + timedelta(days=hash(engine.url.drivername) % 300)
    yesterday, unplayed = today - timedelta(days=1), today - timedelta(days=2)

    def on(day: date) -> None:
        noon = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
        monkeypatch.setattr(days, "clock", lambda: noon)

    owner = Player(app)
    on(yesterday)
    assert owner.post("/api/daily/scorpion").status_code == 201
    on(today)
    assert owner.post("/api/daily/scorpion").status_code == 201  # today: scorpion started
    game = owner.new_game()
    token = owner.post(f"/api/games/{game['id']}/challenge").json()["token"]
    values = {
        "variant": ["scorpion", "wasp", "nonsense"],  # wasp: today's deal not started yet
        "day": [today.isoformat(), yesterday.isoformat(), unplayed.isoformat(), "bad-day"],
        "id": [game["id"], "no-such-game"],
        "game_id": [game["id"], "no-such-game"],
        "token": [token, "no-such-token"],
        "number": ["7", "0"],
    }
    paths = [p for p in get_paths(app) if not p.endswith("/events")]
    assert "/api/daily/{variant}/{day}" in paths and "/daily/{variant}" in paths
    strangers = [lambda: TestClient(app), lambda: owner.http]
    before = all_counts(engine)
    assert before["races"] > 0 and before["games"] > 0
    checked = 0
    for template in paths:
        names = re.findall(r"{(\w+)(?::\w+)?}", template)
        for combo in itertools.product(*(values[n] for n in names)):
            path = template
            for name, value in zip(names, combo, strict=True):
                path = re.sub(r"{" + name + r"(?::\w+)?}", value, path)
            for make in strangers:
                r = make().get(path, params={"page": "1"}, follow_redirects=False)
                assert r.status_code < 500, (path, r.status_code, r.text[:200])
                assert all_counts(engine) == before, path
                checked += 1
    assert checked > 40
    # The event streams' one lookup: today's daily race id, made without a row.
    for variant in ("scorpion", "wasp"):
        assert daily_race_id(variant) == daily.daily_race_key(variant, today)
    assert all_counts(engine) == before
