"""The daily page of every variant of the family, on SQLite and PostgreSQL, without
JavaScript: each of the eleven variants has today's deal, proved winnable by the server's
solver (the line it kept wins the deal through the page's forms), and its leaderboard shows
the win to everyone; the next day the page publishes the deal string."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from markupsafe import escape
from sqlalchemy import Engine, text

from app.config import get_settings
from app.engine import ALL_VARIANTS, Action, Game, parse_deal
from app.engine.solver import decode_line
from app.services import days
from tests.support.api_client import Player

pytestmark = pytest.mark.usefixtures("configured")


@pytest.fixture()
def today(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    """A day of the test's own at noon UTC; the solver processes may prove the day's deal."""
    when = date(2050, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    settings = get_settings()
    monkeypatch.setattr(settings, "daily_proof_tries", 60)
    monkeypatch.setattr(settings, "daily_proof_budget_seconds", 2.0)
    yield when


def post_form(p: Player, path: str, **fields: Any) -> Any:
    data = {"csrf_token": p.token, **{k: str(v) for k, v in fields.items()}}
    return p.http.post(path, data=data, follow_redirects=False)


def form_of(action: Action) -> tuple[str, dict[str, Any]]:
    """The form the play page posts for ``action`` (its move buttons, cells and the deal)."""
    if action[0] != "move":
        return action[0], {}
    _, a, i, b, *piles = action
    fields: dict[str, Any] = {"from_column": a, "from_index": i}
    if piles and piles[0] != "column":
        fields["from_pile"] = piles[0]
    if piles and piles[1] == "cell":
        fields["to_cell"] = b
    else:
        fields["to_column"] = b
    return "move", fields


def kept_line(engine: Engine, variant: str, day: date) -> tuple[str, list[Action]]:
    """The day's deal and the winning line the server kept beside it (server-only)."""
    with engine.begin() as conn:
        deal, line, verified = conn.execute(
            text(
                "SELECT deal, line, verified FROM daily_pool "
                "WHERE variant = :v AND used_for_day = :d"
            ),
            {"v": variant, "d": day},
        ).one()
    assert verified and line
    return str(deal), decode_line(str(line))


def win_rows(page: str) -> list[tuple[str, str, str]]:
    """(rank, player cell, moves) of each row of the page's ranked wins, the numbers as
    digits (the page groups thousands: a line of 1,564 moves)."""
    table = re.search(r'<table class="recent lb-wins">(.*?)</table>', page, re.S)
    assert table, "no table of wins"
    rows = re.findall(
        r"<tr[^>]*><td>([\d,]+)</td><th scope=\"row\">(.*?)</th><td>([\d,]+)</td>",
        table.group(1),
    )
    return [(rank.replace(",", ""), who, moves.replace(",", "")) for rank, who, moves in rows]


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_every_variant_has_a_daily_page_with_a_proved_deal_and_its_leaderboard(
    app: FastAPI, engine: Engine, today: date, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with engine.begin() as conn:  # no deal left waiting by other tests: drawn fresh, as on a
        conn.execute(  # fresh database
            text("DELETE FROM daily_pool WHERE variant = :v AND used_for_day IS NULL"),
            {"v": variant},
        )
    title = str(escape(ALL_VARIANTS[variant].title))  # as the page writes it
    ann, bob = Player(app), Player(app)
    page = ann.get(f"/daily/{variant}").text
    assert f"{title} daily deal" in page and 'id="daily-play"' in page
    assert 'id="daily-verified">Nobody has played today' in page
    assert 'id="lb-empty"' in page
    for other in ALL_VARIANTS:  # the page leads to every variant's daily deal
        assert other == variant or f'href="/daily/{other}"' in page

    r = post_form(ann, f"/daily/{variant}")
    assert r.status_code == 303, r.text
    gid = re.fullmatch(r"/games/([\w-]+)", r.headers["location"])
    assert gid
    play = ann.get(f"/games/{gid.group(1)}").text
    assert 'data-daily="1"' in play and f'hx-sse:connect="/daily/{variant}/events"' in play
    page = ann.get(f"/daily/{variant}").text
    assert "proved winnable by the server" in page and 'id="daily-resume"' in page

    deal, line = kept_line(engine, variant, today)
    assert deal not in page and deal not in play
    assert Game.replay(variant, parse_deal(deal, variant), line).won
    for action in line:  # the page's own forms, without JavaScript: each answers a 303
        kind, fields = form_of(action)
        r = post_form(ann, f"/games/{gid.group(1)}/{kind}", **fields)
        assert r.status_code == 303, (action, r.text[:300])
    assert ann.get(f"/api/games/{gid.group(1)}").json()["status"] == "won"

    mine = ann.get(f"/daily/{variant}").text
    assert 'id="daily-again"' in mine and "and won" in mine
    rows = win_rows(mine)
    assert len(rows) == 1 and rows[0][0] == "1" and rows[0][2] == str(len(line))
    assert '<span class="you">(you)</span>' in rows[0][1]
    theirs = bob.get(f"/daily/{variant}").text
    rows = win_rows(theirs)
    assert len(rows) == 1 and rows[0][2] == str(len(line)) and "(you)" not in rows[0][1]
    assert 'id="daily-play"' in theirs  # bob has not played yet

    later = datetime(today.year, today.month, today.day, 12, tzinfo=UTC) + timedelta(days=1)
    monkeypatch.setattr(days, "clock", lambda: later)
    past = bob.get(f"/daily/{variant}/{today.isoformat()}").text
    shown = re.search(r'<pre class="deal-string" id="daily-deal-string">(.*?)</pre>', past)
    assert shown and shown.group(1) == deal and "It was proved winnable." in past
    assert [row[2] for row in win_rows(past)] == [str(len(line))]
