"""Every writing route is rate limited (finding 11), JSON and pages alike: the routes with an
unsafe method are enumerated from the application itself (a new one is covered without
editing this test), and each one, sent by a player who used up their budget, is refused with
429, ``Retry-After`` and a JSON ``detail`` or a readable page; nothing changes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from app.config import get_settings
from app.main import app as the_app
from tests.support.api_client import Player, count_rows, player_rows

pytestmark = pytest.mark.usefixtures("configured")

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

# A valid body for each writing route (a malformed one is a 422 before anything is counted).
JSON_BODIES: dict[str, Any] = {
    "/api/games": {"variant": "scorpion", "deal_number": 3},
    "/api/games/{id}/moves": {"from_column": 0, "from_index": 5, "to_column": 1},
    "/api/profile": {"display_name": "Limited"},
    "/api/games/{id}/analysis": {},
    "/api/player/link": {"code": "ABCD-EFGH"},
}
FORMS: dict[str, dict[str, str]] = {
    "/games": {"variant": "scorpion"},
    "/games/winnable": {"variant": "scorpion"},
    "/games/{game_id}/move": {"from_column": "0", "from_index": "5", "to_column": "1"},
    "/settings": {"save_games": "on"},
    "/settings/profile": {"display_name": "Limited"},
    "/settings/language": {"locale": "zh-CN"},
    "/privacy/devices/remove": {"device": "first"},
    "/link": {"code": "ABCD-EFGH"},
}


def writing_routes() -> list[tuple[str, str]]:
    """(method, path template) of every route that accepts an unsafe method."""
    found: set[tuple[str, str]] = set()

    def walk(routes: Any) -> None:
        for route in routes:
            original = getattr(route, "original_router", None)
            if original is not None:
                walk(original.routes)
                continue
            for method in set(getattr(route, "methods", None) or ()) & UNSAFE:
                found.add((method, route.path))

    walk(the_app.routes)
    return sorted(found)


ROUTES = writing_routes()


def test_the_enumeration_finds_the_known_writing_routes() -> None:
    assert ("DELETE", "/api/player") in ROUTES and ("POST", "/settings/profile") in ROUTES
    assert ("POST", "/api/games/{id}/challenge") in ROUTES and len(ROUTES) >= 30


@pytest.mark.parametrize(("method", "template"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_every_writing_route_is_rate_limited(
    app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch, method: str, template: str
) -> None:
    host = Player(app)
    token = host.post(f"/api/games/{host.new_game(deal_number=8)['id']}/challenge").json()["token"]
    p = Player(app)
    game = p.new_game(deal_number=9)  # the one new game allowed
    settings = get_settings()
    for name, value in (
        ("rate_limits", "on"),
        ("rate_limit_games", 1),
        ("rate_limit_actions", 1),
        ("rate_limit_window_seconds", 86400),
    ):
        monkeypatch.setattr(settings, name, value)
    # Use the games budget (this new game is the first counted) and the actions budget.
    assert p.post("/api/games", {"variant": "scorpion"}).status_code == 201
    assert p.post(f"/api/games/{game['id']}/undo").status_code == 422  # counted all the same
    before = player_rows(engine, p.id)
    path = re.sub(r"\{(id|game_id)\}", game["id"], template)
    path = path.replace("{variant}", "scorpion").replace("{token}", token)
    if template.startswith("/api/"):
        body = JSON_BODIES.get(template)
        r = p.http.request(method, path, json=body, headers=p.headers)
        assert r.status_code == 429, (r.status_code, r.text[:300])
        assert "Too many" in r.json()["detail"]
    else:
        form = {"csrf_token": p.token, **FORMS.get(template, {})}
        r = p.http.request(
            method, path, data=form, headers={"Accept": "text/html"}, follow_redirects=False
        )
        assert r.status_code == 429, (r.status_code, r.text[:300])
        assert "text/html" in r.headers["content-type"] and "Too many" in r.text
    assert int(r.headers["Retry-After"]) > 0
    # Nothing changed: the player and their game are as they were.
    assert player_rows(engine, p.id) == before
    assert count_rows(engine, "players", "id = :p", p=p.id) == 1
