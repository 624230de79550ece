"""The solver in the HTML pages (issue 5), on SQLite and PostgreSQL: the play page's "Is this
still winnable?" and "Solver hint" forms (htmx fragment, 303 without htmx, refusals), "New
winnable deal" on the home page, the odds on the rules page, assisted wins on the stats page."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine, text

from app.config import get_settings
from app.engine import Game, deal_from_number, parse_deal
from app.engine.solver import catalogs, encode_line, odds, solve_deal
from tests.support.deals import HARD_DEAL, LOST_DEAL
from tests.support.html_client import HTMX, Browser, assert_no_hidden_card, version_of

KNOWN_WIN: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "known_wins.json").read_text()
)[0]
ASSISTED = "This game is now marked as assisted in your statistics."


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def _assisted(engine: Engine, gid: str) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(text("SELECT assisted FROM games WHERE id = :g"), {"g": gid}).scalar_one()
        )


def _plain(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _start(browser: Browser, deal: str) -> tuple[str, Game]:
    gid = browser.new_game(deal=deal)
    return gid, Game.new("scorpion", parse_deal(deal))


# -- the play page's buttons -------------------------------------------------------------------


def test_the_play_page_has_both_solver_forms(browser: Browser) -> None:
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    page = browser.get(f"/games/{gid}").text
    for path, label in (("winnable", "Is this still winnable?"), ("solver-hint", "Solver hint")):
        m = re.search(
            rf'<form class="solver-form" method="post" action="/games/{gid}/{path}" '
            rf'hx-post="/games/{gid}/{path}">(.*?)</form>',
            page,
            flags=re.S,
        )
        assert m, path
        assert f'name="csrf_token" value="{browser.token}"' in m.group(1)
        assert 'name="version" value="1"' in m.group(1)
        assert label in m.group(1)
        assert "assisted" in m.group(1)  # the button's title says it marks the game


def test_is_it_winnable_without_htmx_is_a_303_to_the_answer(
    browser: Browser, engine: Engine
) -> None:
    gid, game = _start(browser, KNOWN_WIN["deal"])
    r = browser.post(f"/games/{gid}/winnable", {"version": 1})
    assert r.status_code == 303
    assert r.headers["vary"] == "HX-Request, Accept-Language"
    location = r.headers["location"]
    assert location.startswith(f"/games/{gid}/solver?r=")
    page = browser.get(location)
    assert page.status_code == 200
    text_ = _plain(page.text)
    assert "Still winnable: the solver found a way to win from here" in text_
    assert ASSISTED in text_
    assert "<!doctype html>" in page.text.lower()
    assert_no_hidden_card(page.text, game)
    assert "hint-src" not in page.text  # a verdict, not a hint
    assert _assisted(engine, gid)
    # Once the game moves on, the old answer is not shown any more: just the game.
    first = KNOWN_WIN["line"][0]
    assert browser.act(gid, tuple(first), version=1).status_code == 303
    again = browser.get(location, follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"/games/{gid}"


def test_is_it_winnable_with_htmx_answers_with_the_game_block(browser: Browser) -> None:
    gid, game = _start(browser, KNOWN_WIN["deal"])
    r = browser.post(f"/games/{gid}/winnable", {"version": 1}, headers=HTMX)
    assert r.status_code == 200
    assert r.headers["vary"] == "HX-Request, Accept-Language"
    assert r.text.lstrip().startswith('<div id="game"')
    assert "<html" not in r.text.lower()
    assert "Still winnable" in r.text and ASSISTED in r.text
    assert_no_hidden_card(r.text, game)


def test_a_lost_game_says_no_longer_winnable(browser: Browser) -> None:
    gid, game = _start(browser, LOST_DEAL)
    r = browser.post(f"/games/{gid}/winnable", {"version": 1}, headers=HTMX)
    assert r.status_code == 200
    assert "No longer winnable: no sequence of moves wins from here." in r.text
    assert_no_hidden_card(r.text, game)
    r = browser.post(f"/games/{gid}/solver-hint", {"version": 1}, headers=HTMX)
    assert "No solver hint: this game is no longer winnable" in r.text
    assert "hint-src" not in r.text


def test_out_of_time_says_could_not_tell(browser: Browser, monkeypatch: pytest.MonkeyPatch) -> None:
    gid, game = _start(browser, HARD_DEAL)
    monkeypatch.setattr(get_settings(), "analysis_budget_seconds", 0.05)
    r = browser.post(f"/games/{gid}/winnable", {"version": 1}, headers=HTMX)
    assert r.status_code == 200
    assert "Could not tell in time: the solver did not finish within 0.05 s." in r.text
    assert_no_hidden_card(r.text, game)
    page = browser.get(
        browser.post(f"/games/{gid}/solver-hint", {"version": 1}).headers["location"]
    )
    assert "No solver hint: the solver could not tell in time" in page.text


HINT_SOURCE = r'class="card [SHDC][^"]* hint-src" href="\?select=(\d)-(\d+)"'


def test_the_solver_hint_is_highlighted_and_playable(browser: Browser, engine: Engine) -> None:
    gid, game = _start(browser, KNOWN_WIN["deal"])
    r = browser.post(f"/games/{gid}/solver-hint", {"version": 1}, headers=HTMX)
    assert r.status_code == 200
    assert "Solver hint: move the " in r.text and "This keeps the game winnable." in r.text
    assert_no_hidden_card(r.text, game)
    # Exactly one card and one column are highlighted, like a normal hint of one move.
    sources = re.findall(HINT_SOURCE, r.text)
    targets = re.findall(r'class="col hint-dst"[^>]*id="col-(\d)"', r.text)
    assert len(sources) == 1 and len(targets) == 1, (sources, targets)
    a, i, b = int(sources[0][0]), int(sources[0][1]), int(targets[0])
    game.copy().move(a, i, b)  # the engine raises IllegalMove for an illegal move
    # Plain form post: the same answer after the 303.
    plain = browser.post(f"/games/{gid}/solver-hint", {"version": 1})
    assert plain.status_code == 303
    page = browser.get(plain.headers["location"]).text
    assert re.findall(HINT_SOURCE, page) == sources
    # Playing it through the normal move form works, and the game stays assisted.
    moved = browser.act(gid, ("move", a, i, b), version=1)
    assert moved.status_code == 303
    assert _assisted(engine, gid)


def test_a_forged_answer_link_shows_just_the_game(browser: Browser) -> None:
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    for r in ("", "forged", "eyJnIjoieCJ9.abc"):
        resp = browser.get(f"/games/{gid}/solver?r={r}", follow_redirects=False)
        assert resp.status_code == 303 and resp.headers["location"] == f"/games/{gid}"
    # A genuine answer of one game does not show on another.
    other, _ = _start(browser, LOST_DEAL)
    location = browser.post(f"/games/{gid}/winnable", {"version": 1}).headers["location"]
    token = location.split("?r=", 1)[1]
    resp = browser.get(f"/games/{other}/solver?r={token}", follow_redirects=False)
    assert resp.status_code == 303 and resp.headers["location"] == f"/games/{other}"


# -- refusals ----------------------------------------------------------------------------------


def test_a_stale_version_is_409_with_the_current_game(browser: Browser, engine: Engine) -> None:
    """Without htmx a 409 page; htmx gets the current board with 200 (no failed request in
    the browser's console)."""
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    assert browser.act(gid, tuple(KNOWN_WIN["line"][0]), version=1).status_code == 303
    r = browser.post(f"/games/{gid}/winnable", {"version": 1}, headers=HTMX)
    assert r.status_code == 200
    assert "changed in another tab" in r.text and version_of(r.text) == 2
    r = browser.post(f"/games/{gid}/solver-hint", {"version": 1})
    assert r.status_code == 409 and "changed in another tab" in r.text
    assert not _assisted(engine, gid)


def test_a_won_game_is_refused_with_a_reason(browser: Browser) -> None:
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    version = 1
    for action in KNOWN_WIN["line"]:
        assert browser.act(gid, tuple(action), version=version).status_code == 303
        version += 1
    page = browser.get(f"/games/{gid}").text
    assert re.search(r'id="winnable-btn" disabled', page)
    assert re.search(r'id="solver-hint-btn" disabled', page)
    r = browser.post(f"/games/{gid}/winnable", {"version": version}, headers=HTMX)
    assert r.status_code == 200 and "This game is won and finished" in r.text
    assert r.headers["HX-Retarget"] == "#message"
    r = browser.post(f"/games/{gid}/solver-hint", {"version": version})
    assert r.status_code == 422 and "This game is won and finished" in r.text


def test_another_players_game_is_404_and_csrf_is_required(
    app: FastAPI, browser: Browser, engine: Engine
) -> None:
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    stranger = Browser(app)
    for path in ("winnable", "solver-hint"):
        assert stranger.post(f"/games/{gid}/{path}", {"version": 1}).status_code == 404
        r = browser.http.post(f"/games/{gid}/{path}", data={"version": 1}, follow_redirects=False)
        assert r.status_code == 403
    assert stranger.get(f"/games/{gid}/solver?r=x").status_code == 404
    assert not _assisted(engine, gid)


# -- "New winnable deal" -----------------------------------------------------------------------


@pytest.fixture()
def catalog_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A catalog of two winnable Scorpion deals (solved here), instead of the shipped one."""
    deals = {}
    for number in (6, 14):
        result = solve_deal("scorpion", deal_from_number(number), 5.0)
        assert result.verdict == "win" and result.line is not None
        deals[str(number)] = encode_line(result.line)
    (tmp_path / "scorpion.json").write_text(
        json.dumps({"variant": "scorpion", "format": 1, "scanned": [[1, 15]], "deals": deals})
    )
    monkeypatch.setattr(catalogs, "CATALOG_DIR", tmp_path)
    catalogs.winnable_deals.cache_clear()
    yield tmp_path
    catalogs.winnable_deals.cache_clear()


def test_new_winnable_deal_starts_a_catalogued_deal(
    app: FastAPI, browser: Browser, catalog_dir: Path
) -> None:
    home = browser.get("/").text
    assert 'id="winnable-scorpion"' in home
    assert "proved winnable by our solver" in home
    assert 'id="winnable-wasp"' not in home  # no catalog of that variant here
    assert "Random deals are not guaranteed to be winnable" in home
    for _ in range(4):
        r = browser.post("/games/winnable", {"variant": "scorpion"})
        assert r.status_code == 303
        gid = r.headers["location"].rsplit("/", 1)[1]
        game = browser.get(f"/api/games/{gid}").json()
        assert game["deal_number"] in (6, 14) and game["variant"] == "scorpion"


def test_new_winnable_deal_without_a_catalog_explains(browser: Browser, catalog_dir: Path) -> None:
    r = browser.post("/games/winnable", {"variant": "wasp"})
    assert r.status_code == 422
    assert "There is no list of proved winnable deals for Wasp yet" in r.text
    r = browser.post("/games/winnable", {"variant": "nonsense"})
    assert r.status_code == 422
    assert "There is no variant called 'nonsense'" in html.unescape(r.text)
    assert 'id="winnable-wasp"' not in browser.get("/").text


# -- the odds on the rules page, assisted wins on the stats page -------------------------------


def test_the_rules_page_shows_whatever_the_odds_file_holds(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "odds.json"
    monkeypatch.setattr(odds, "ODDS_JSON", path)
    page = _plain(browser.get("/rules").text)
    assert "How often can a deal be won?" in page
    assert "still working through the deals" in page
    entry = {
        "variant": "scorpion",
        "first_deal": 1,
        "last_deal": 12000,
        "deals": 12000,
        "win": 2400,
        "loss": 9597,
        "unknown": 3,
        "win_share": 0.2,
        "ci_low": 0.19291,
        "ci_high": 0.20727,
        "unknown_share": 0.00025,
        "budget_seconds": 10.0,
    }
    path.write_text(json.dumps([entry, {"variant": "wasp", "deals": "broken"}]))
    page = _plain(browser.get("/rules").text)
    assert "Scorpion 12,000 (deal numbers 1 to 12,000) 20.00% 19.29% to 20.73%" in page
    assert "(±0.72 points)" in page
    assert "0.025% (3 deals not settled within 10 s)" in page
    assert "still working through the deals" not in page
    path.write_text(json.dumps([{**entry, "win_share": 0.25, "ci_low": 0.24, "ci_high": 0.26}]))
    assert "25.00% 24.00% to 26.00%" in _plain(browser.get("/rules").text)


def test_the_stats_page_counts_assisted_wins(browser: Browser) -> None:
    gid, _ = _start(browser, KNOWN_WIN["deal"])
    assert browser.post(f"/games/{gid}/winnable", {"version": 1}).status_code == 303  # assisted
    version = 1
    for action in KNOWN_WIN["line"]:
        assert browser.act(gid, tuple(action), version=version).status_code == 303
        version += 1
    page = _plain(browser.get("/stats").text)
    assert "(1 assisted)" in page
    gid2, _ = _start(browser, KNOWN_WIN["deal"])
    version = 1
    for action in KNOWN_WIN["line"]:
        assert browser.act(gid2, tuple(action), version=version).status_code == 303
        version += 1
    assert "(1 assisted)" in _plain(browser.get("/stats").text)  # the second was unaided
