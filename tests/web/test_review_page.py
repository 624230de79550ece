"""The review on the replay page (issue 40): the form that asks for it, the strip of verdicts
while the solver works (htmx polling) and when done, the move that lost a winnable game
marked, and "Show a way to win" played from the last winnable position to a win."""

from __future__ import annotations

import re
import time

from fastapi import FastAPI

from tests.support.api_client import KNOWN_WIN, Player

HTMX = {"HX-Request": "true"}


def _lost_then_given_up(p: Player) -> str:
    """A move, its undo, the deal too early (lost); then a new game of the variant gives this
    one up."""
    g = p.new_game(deal=KNOWN_WIN["deal"])
    gid = g["id"]
    assert p.apply(gid, KNOWN_WIN["line"][0]).status_code == 200
    assert p.post(f"/api/games/{gid}/undo").status_code == 200
    assert p.post(f"/api/games/{gid}/deal").status_code == 200
    p.new_game(deal_number=7)  # gives the first game up
    return str(gid)


def _poll_section(p: Player, gid: str) -> str:
    deadline = time.monotonic() + 90
    while True:
        r = p.http.get(f"/games/{gid}/review", headers=HTMX)
        assert r.status_code == 200, r.text
        assert 'id="review"' in r.text
        if 'hx-trigger="load delay:1s"' not in r.text:
            return str(r.text)
        assert re.search(r"<progress max=\"\d+\" value=\"\d+\"></progress>", r.text)
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_the_replay_page_reviews_a_lost_game_and_shows_a_way_to_win(app: FastAPI) -> None:
    p = Player(app)
    gid = _lost_then_given_up(p)
    page = p.http.get(f"/games/{gid}/replay")
    assert page.status_code == 200
    assert 'id="review-start"' in page.text and 'class="review-strip"' not in page.text

    started = p.post(f"/games/{gid}/review", headers=HTMX)
    assert started.status_code == 200 and 'id="review"' in started.text
    section = _poll_section(p, gid)
    marks = re.findall(r'<li class="rv rv-(\w+)( losing)?', section)
    assert [m[0] for m in marks] == ["win", "win", "win", "loss"]
    assert [i for i, m in enumerate(marks) if m[1]] == [3]
    assert f'href="/games/{gid}/replay?step=3">step 3</a> lost a winnable game' in section
    assert f'href="/games/{gid}/way?play=1"' in section

    full = p.http.get(f"/games/{gid}/replay?step=3")  # the full page shows the strip too
    assert 'class="rv rv-loss losing current"' in full.text

    way = p.http.get(f"/games/{gid}/way")
    assert way.status_code == 200
    assert "Step 2 of your game: the solver&#39;s way to win from here." in way.text or (
        "Step 2 of your game: the solver's way to win from here." in way.text
    )
    end = p.http.get(f"/games/{gid}/way?step=100000")
    assert "Completed runs: 4 of 4" in end.text


def test_without_htmx_the_form_goes_back_to_the_replay(app: FastAPI) -> None:
    p = Player(app)
    gid = _lost_then_given_up(p)
    r = p.post(f"/games/{gid}/review", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}/replay"
    other = Player(app)
    assert other.post(f"/games/{gid}/review", follow_redirects=False).status_code == 404
    assert other.http.get(f"/games/{gid}/way").status_code == 404
