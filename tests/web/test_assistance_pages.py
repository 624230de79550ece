"""Assistance on the HTML pages (docs/rules.md, "Assistance"), on SQLite and PostgreSQL: the
play page's plain hint (``GET /games/{id}?hint=1``) writes nothing at all, the play page and
the win panel say when a game is assisted (only the solver makes it so), the win panel counts
moves made, and the rules page explains it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.config import Settings
from app.services import ratelimit
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.html_client import HTMX, Browser

PLAYER_TABLES = ("players", "player_settings", "variant_stats", "stat_events", "rate_limits")


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def _plain(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _everything_of(engine: Engine, gid: str) -> dict[str, list[Any]]:
    """Every row the game's player owns, table by table (the move log through its games)."""
    with engine.connect() as conn:
        player = conn.execute(
            text("SELECT player_id FROM games WHERE id = :g"), {"g": gid}
        ).scalar_one()
        column = {"players": "id"}
        out = {
            table: sorted(
                map(
                    repr,
                    conn.execute(
                        text(f"SELECT * FROM {table} WHERE {column.get(table, 'player_id')} = :p"),
                        {"p": player},
                    ).all(),
                )
            )
            for table in (*PLAYER_TABLES, "games")
        }
        out["game_actions"] = sorted(
            map(
                repr,
                conn.execute(
                    text(
                        "SELECT * FROM game_actions WHERE game_id IN "
                        "(SELECT id FROM games WHERE player_id = :p)"
                    ),
                    {"p": player},
                ).all(),
            )
        )
        return out


def _play(browser: Browser, gid: str, actions: list[Any], version: int, **kw: Any) -> Any:
    r = None
    for action in actions:
        r = browser.act(gid, tuple(action), version=version, **kw)
        assert r.status_code in (200, 303), (action, r.text)
        version += 1
    return r


def test_get_with_hint_changes_nothing_in_the_database(
    browser: Browser, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rate limits on, so a counted request would leave a row behind.
    monkeypatch.setattr(ratelimit, "get_settings", lambda: Settings(rate_limits="on"))
    gid = browser.new_game(deal=WIN_DEAL)
    _play(browser, gid, WIN_LINE[:2], version=1)
    before = _everything_of(engine, gid)
    page = browser.get(f"/games/{gid}?hint=1")
    assert page.status_code == 200 and "useful move" in page.text
    fragment = browser.get(f"/games/{gid}?hint=1", headers=HTMX)
    assert fragment.status_code == 200 and "useful move" in fragment.text
    assert _everything_of(engine, gid) == before
    assert 'id="assisted"' not in page.text  # the plain hint is not assistance
    # (The JSON API's hints do count for the rate limit: the check above could see a write.)
    assert browser.get(f"/api/games/{gid}/hints").status_code == 200
    after = _everything_of(engine, gid)
    assert after["rate_limits"] != before["rate_limits"]
    assert {k: v for k, v in after.items() if k != "rate_limits"} == {
        k: v for k, v in before.items() if k != "rate_limits"
    }


def test_the_play_page_and_win_panel_say_when_a_game_is_assisted(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    _play(browser, gid, [WIN_LINE[0], ("undo",), ("redo",)], version=1)  # not assistance
    assert 'id="assisted"' not in browser.get(f"/games/{gid}").text
    assert browser.post(f"/games/{gid}/winnable", {"version": 4}).status_code == 303
    page = browser.get(f"/games/{gid}").text
    assert re.search(r'<dd id="assisted"[^>]*>Assisted</dd>', page)
    last = _play(browser, gid, WIN_LINE[1:], version=4, headers=HTMX)
    assert 'id="win"' in last.text and 'id="win-assisted"' in last.text  # the htmx answer
    page = _plain(browser.get(f"/games/{gid}").text)
    assert "You won!" in page
    assert "An assisted win: the solver was asked about this game." in page
    assert f"and {len(WIN_LINE)} moves ." in page  # moves made (redo is not one)


def test_an_unassisted_win_panel_counts_moves_made(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    _play(browser, gid, [WIN_LINE[0], ("undo",), *WIN_LINE], version=1)
    html = browser.get(f"/games/{gid}").text
    page = _plain(html)
    assert "You won!" in page
    assert f"and {len(WIN_LINE) + 1} moves ({len(WIN_LINE)} after undo)." in page
    assert 'id="win-assisted"' not in html and 'id="assisted"' not in html


def test_the_rules_page_says_what_assistance_is(browser: Browser) -> None:
    page = _plain(browser.get("/rules").text)
    assert "Hint, Undo and Redo look at nothing hidden: using them is not assistance." in page
    assert "Moves made counts every move and every deal you perform" in page
    assert 'Hint, Undo, "Is this still winnable?" and Solver hint mark the game' not in page
