"""The daily deal of every variant of the family over the JSON API, on SQLite and PostgreSQL:
each of the eleven variants has today's deal, drawn as the base game's is (a fresh random deal,
never a deal number, proved winnable by the solver processes with a verified line kept on the
server), and each has its leaderboard: a win with that line is ranked, a longer win below it,
an unfinished game apart, and the next day the deal string is published."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.config import get_settings
from app.engine import ALL_VARIANTS, Action, Game, parse_deal
from app.engine.solver import decode_line
from app.services import days
from tests.support.api_client import Player, assert_no_hidden_card

pytestmark = pytest.mark.usefixtures("configured")


@pytest.fixture()
def today(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    """A day of the test's own (the test database is shared by the tests of a run), at noon
    UTC; the solver processes may prove the day's deal (the suite's default tries none)."""
    when = date(2050, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    settings = get_settings()
    monkeypatch.setattr(settings, "daily_proof_tries", 60)
    monkeypatch.setattr(settings, "daily_proof_budget_seconds", 2.0)
    yield when


def empty_pool(engine: Engine, variant: str) -> None:
    """No deal of ``variant`` waits in the private pool (as on a fresh database): other tests
    leave unproved ones behind, which the day would take first."""
    with engine.begin() as conn:
        conn.execute(
            text("DELETE FROM daily_pool WHERE variant = :v AND used_for_day IS NULL"),
            {"v": variant},
        )


def server_side(engine: Engine, variant: str, day: date, game_id: str) -> tuple[str, str, bool]:
    """What only the server holds: the game's deal, and the day's pool entry (line, verified)."""
    with engine.connect() as conn:
        deal, number = conn.execute(
            text("SELECT deal, deal_number FROM games WHERE id = :g"), {"g": game_id}
        ).one()
        line, verified, pooled = conn.execute(
            text(
                "SELECT line, verified, deal FROM daily_pool "
                "WHERE variant = :v AND used_for_day = :d"
            ),
            {"v": variant, "d": day},
        ).one()
    assert number is None and pooled == deal  # the pool's deal, not a deal number
    return str(deal), str(line), bool(verified)


def play(p: Player, gid: str, line: list[Action]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for action in line:
        r = p.apply(gid, action)
        assert r.status_code == 200, (action, r.text)
        body = r.json()
    return body


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_every_variant_has_a_proved_daily_deal_with_its_leaderboard(
    app: FastAPI, engine: Engine, today: date, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_pool(engine, variant)
    ann, bob, cy = Player(app), Player(app), Player(app)
    before = ann.get(f"/api/daily/{variant}")
    assert before.status_code == 200, before.text
    assert before.json()["started"] is False and before.json()["winnable"] is None

    r = ann.post(f"/api/daily/{variant}")
    assert r.status_code == 201, r.text
    g = r.json()
    assert g["variant"] == variant and g["deal_number"] is None and g["status"] == "playing"
    deal, text_line, verified = server_side(engine, variant, today, g["id"])
    game = Game.new(variant, parse_deal(deal, variant))
    assert_no_hidden_card(r.text, game)
    info = ann.get(f"/api/daily/{variant}").json()
    assert (info["started"], info["winnable"], info["deal"]) == (True, True, None)
    assert info["game_id"] == g["id"] and info["status"] == "playing"
    assert deal not in ann.get(f"/api/daily/{variant}").text
    # Proved winnable: the solver's line, kept on the server, wins the deal in the engine.
    line = decode_line(text_line)
    assert verified and Game.replay(variant, parse_deal(deal, variant), line).won

    # Everyone gets the same deal; the leaderboard ranks the wins by moves made.
    won = play(ann, g["id"], line)
    assert won["status"] == "won" and won["moves_made"] == len(line)
    gb = bob.post(f"/api/daily/{variant}").json()
    assert server_side(engine, variant, today, gb["id"])[0] == deal
    first = line[0]
    assert bob.apply(gb["id"], first).status_code == 200
    assert bob.post(f"/api/games/{gb['id']}/undo").status_code == 200  # the move still counts
    assert play(bob, gb["id"], line)["status"] == "won"
    gc = cy.post(f"/api/daily/{variant}").json()
    assert cy.apply(gc["id"], first).status_code == 200

    board = cy.get(f"/api/daily/{variant}").json()["leaderboard"]
    wins = [(e["rank"], e["moves"], e["you"], e["status"], e["suits"]) for e in board["wins"]]
    runs = g["runs_needed"]  # a win completed every run: 4, 8 or 12 of them
    assert wins == [(1, len(line), False, "won", runs), (2, len(line) + 1, False, "won", runs)]
    assert [(e["moves"], e["you"], e["status"]) for e in board["others"]] == [(1, True, "playing")]
    assert board["total"] == 3 and board["rejected"] == 0 and board["unverified"] == []
    mine = ann.get(f"/api/daily/{variant}").json()
    assert mine["status"] == "won" and [e["you"] for e in mine["leaderboard"]["wins"]] == [
        True,
        False,
    ]

    # The next day: the deal string is published, the board stays, cy's game is unfinished.
    later = datetime(today.year, today.month, today.day, 12, tzinfo=UTC) + timedelta(days=1)
    monkeypatch.setattr(days, "clock", lambda: later)
    past = cy.get(f"/api/daily/{variant}/{today.isoformat()}")
    assert past.status_code == 200, past.text
    body = past.json()
    assert body["over"] and body["deal"] == deal and body["winnable"] is True
    assert [e["moves"] for e in body["leaderboard"]["wins"]] == [len(line), len(line) + 1]
    assert [e["status"] for e in body["leaderboard"]["others"]] == ["unfinished"]
