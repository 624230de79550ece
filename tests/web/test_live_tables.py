"""The tables of the challenge and daily pages that follow a race refresh themselves after each
race update (``?live=1``): only those tables come back (no live panel, no page around them,
so a daily crowd's refreshes stay cheap), with each player once; the full page says where
to ask. The race is a fresh one of a day of its own (the clock is set)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi import FastAPI

from app.services import days
from tests.support.api_client import Player
from tests.support.deals import WIN_DEAL

pytestmark = pytest.mark.usefixtures("configured")


def tables_only(html: str) -> None:
    assert html.lstrip().startswith('<div id="live-tables"'), html[:200]
    assert "<html" not in html and 'id="race-live"' not in html and 'id="leaderboard"' in html


def test_a_challenge_pages_tables_alone(app: FastAPI) -> None:
    a, b = Player(app), Player(app)
    g = a.new_game(deal=WIN_DEAL)
    token = a.post(f"/api/games/{g['id']}/challenge").json()["token"]
    for _ in range(3):  # Bob plays the deal three times
        assert b.post(f"/api/challenges/{token}/games", json={"again": True}).status_code == 201
    page = b.get(f"/challenge/{token}").text
    assert f'hx-get="/challenge/{token}?live=1"' in page and 'id="race-live"' in page
    live = b.get(f"/challenge/{token}?live=1").text
    tables_only(live)
    compare = live.split('id="compare"', 1)[1].split("</table>", 1)[0]
    assert compare.count('<th scope="row">') == 2, compare  # Ann and Bob, once each


def test_the_daily_pages_tables_alone(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    noon = datetime(2032, 3, 3, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    p = Player(app)
    page = p.get("/daily/wasp").text
    assert "?live=1" not in page  # nobody plays it yet: nothing is live
    assert p.post("/api/daily/wasp").status_code == 201
    page = p.get("/daily/wasp").text
    assert 'hx-get="/daily/wasp?live=1"' in page and 'data-live-refresh="2000"' in page
    tables_only(p.get("/daily/wasp?live=1").text)
