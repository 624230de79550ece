"""The pages of playing together (SQLite and PostgreSQL): the daily deal's page and its forms,
the challenge button and page, the live race panel on a shared game's play page, the name
form on the privacy page; refusals change nothing."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from app.services import days
from tests.support.api_client import Player, assert_error, count_rows

pytestmark = pytest.mark.usefixtures("configured")


def post_form(p: Player, path: str, **fields: str) -> Any:
    return p.http.post(path, data={"csrf_token": p.token, **fields}, follow_redirects=False)


def test_daily_page_play_resume_and_again(
    app: FastAPI, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    noon = datetime(2031, 7, 7, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    p = Player(app)
    r = p.http.get("/daily", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/daily/scorpion"
    page = p.get("/daily/scorpion").text
    assert 'id="daily-play"' in page and "2031-07-07" in page and 'id="leaderboard"' in page
    # Without the CSRF token: refused, nothing made.
    before = count_rows(engine, "games")
    r = p.http.post("/daily/scorpion", data={}, follow_redirects=False)
    assert r.status_code == 403 and count_rows(engine, "games") == before
    r = post_form(p, "/daily/scorpion")
    assert r.status_code == 303
    gid = r.headers["location"].rsplit("/", 1)[1]
    page = p.get("/daily/scorpion").text
    assert f'href="/games/{gid}"' in page and 'id="daily-resume"' in page
    play = p.get(f"/games/{gid}").text
    assert 'hx-sse:connect="/daily/scorpion/events"' in play
    assert re.search(r"vendor/htmx-ext-sse-4\.0\.1\.min\.[0-9a-f]{12}\.js", play)
    assert 'id="challenge-btn"' in play
    # The same form again resumes the running game; "again" starts an unranked replay.
    assert post_form(p, "/daily/scorpion").headers["location"] == f"/games/{gid}"
    r = post_form(p, "/daily/scorpion", again="1")
    assert r.status_code == 303 and r.headers["location"] != f"/games/{gid}"
    page = p.get("/daily/scorpion").text
    assert re.search(r"\(you, replay\)", page)
    r = post_form(p, "/daily/nonsense")
    assert r.status_code == 422 and "nonsense" in r.text
    assert p.get("/daily/nonsense").status_code == 404
    assert p.get("/daily/scorpion/not-a-day").status_code == 404
    r = p.get(f"/daily/scorpion/{date(2031, 7, 6).isoformat()}")  # nobody played it
    assert r.status_code == 404 and "No daily deal was played on that day" in r.text
    later = datetime(2031, 7, 8, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: later)
    past = p.get(f"/daily/scorpion/{date(2031, 7, 7).isoformat()}").text
    assert 'id="daily-deal-string"' in past and "hx-sse:connect" not in past
    monkeypatch.setattr(days, "clock", lambda: noon)


def test_challenge_button_and_page(app: FastAPI) -> None:
    a, b = Player(app), Player(app)
    g = a.new_game(deal_number=777)
    plain = a.get(f"/games/{g['id']}").text
    assert 'id="challenge-btn"' in plain and "hx-sse:connect" not in plain
    r = post_form(a, f"/games/{g['id']}/challenge")
    assert r.status_code == 303 and r.headers["location"].startswith("/challenge/")
    token = r.headers["location"].rsplit("/", 1)[1]
    mine = a.get(f"/challenge/{token}").text
    assert (
        f'value="http://testserver/challenge/{token}"' in mine and 'id="challenge-resume"' in mine
    )
    theirs = b.get(f"/challenge/{token}").text
    assert 'id="challenge-play"' in theirs and "deal #777" in theirs
    assert f'hx-sse:connect="/challenge/{token}/events"' in theirs
    assert post_form(b, f"/games/{g['id']}/challenge").status_code == 404  # not b's game
    assert b.get("/challenge/zzzzzzzzzzzzzzzzzzzz").status_code == 404
    r = post_form(b, "/challenge/zzzzzzzzzzzzzzzzzzzz/play")
    assert r.status_code == 404


def test_event_streams_of_nothing_are_refused(app: FastAPI) -> None:
    p = Player(app)
    assert_error(p.get("/api/challenges/no-such-token-here/events"), 404)
    assert_error(p.get("/api/daily/nonsense/events"), 422)
    r = p.get("/challenge/no-such-token-here/events")
    assert r.status_code == 404 and "text/event-stream" not in r.headers["content-type"]
    assert p.get("/daily/nonsense/events").status_code == 404


def test_privacy_page_name_form(app: FastAPI) -> None:
    p = Player(app)
    page = p.get("/privacy").text
    assert 'id="profile-form"' in page and "What other players can see" in page
    r = post_form(p, "/settings/profile", display_name="Quick Fox", on_leaderboards="on")
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=profile"
    page = p.get("/privacy?done=profile").text
    assert 'value="Quick Fox"' in page and "leaderboard setting are saved" in page
    r = post_form(p, "/settings/profile", display_name="x" * 30, on_leaderboards="on")
    assert r.status_code == 422 and "at most 24 characters" in r.text
    assert p.get("/api/profile").json()["display_name"] == "Quick Fox"


def test_the_live_panel_shows_leaders_and_you_not_a_crowd() -> None:
    from app.services.race import Progress
    from app.services.race_panel import PANEL_ROWS, panel_rows
    from app.web.race_streams import rows_html

    def row(entry: int, moves: int, suits: int, status: str) -> Progress:
        return Progress(entry, f"P{entry}", moves, suits, status, True, moves + 1)

    rows = [row(k, 10 + k, k % 4, "playing") for k in range(1, 30)]
    rows += [row(40, 120, 4, "won"), row(41, 100, 4, "won")]
    shown, more = panel_rows(rows, frozenset({1}))
    assert [p.entry for p in shown[:2]] == [41, 40]  # winners first, fewest moves first
    assert len(shown) == PANEL_ROWS + 1 and shown[-1].entry == 1  # you, though far behind
    assert more == len(rows) - len(shown)
    html = rows_html(rows, frozenset({1}))
    assert f"and {more} more on this deal" in html and html.count("<li") == PANEL_ROWS + 1
