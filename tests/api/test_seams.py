"""Issue 39, item 8 (the small ones at the seams), on both databases: a display name that
imitates the default "Player 4F2A" is refused however it is spaced or spelled, every ``/api``
answer carries ``Cache-Control: no-store``, and a 500 still carries the security headers and
the request id."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.support.api_client import Player, assert_error

pytestmark = pytest.mark.usefixtures("configured")

IMITATIONS = (
    "Player 4F2A",
    "player4f2a",
    "PLAYER 4f2a",
    "Player_4F2A",
    "Player-4F2A",
    "Player.4F2A",
    "Play er 4F 2A",
    "P l a y e r 4 F 2 A",
    "PIayer 4F2A",  # capital i for the l
    "P1ayer 4F2A",  # one for the l
    "Player 4F2O",  # letter O for the zero
    "Player 1O0I",
    "Player SB2l",  # S for 5, B for 8, l for 1
    "Pl4yer 0000",
)
FINE = ("Player One", "Players 1234", "Playful 1234", "Player 4F2AB", "Ada", "Player Zeta")


def test_names_that_imitate_the_default_are_refused(app: FastAPI) -> None:
    p = Player(app)
    for name in IMITATIONS:
        r = p.http.put("/api/profile", json={"display_name": name}, headers=p.headers)
        detail = assert_error(r, 422)
        assert "kept for players without a name" in detail, (name, detail)
    assert p.get("/api/profile").json()["display_name"] is None  # nothing changed
    # The settings form says so on the page, and changes nothing either.
    r = p.http.post(
        "/settings/profile",
        data={"csrf_token": p.token, "display_name": "PIayer_4F2A", "on_leaderboards": "on"},
    )
    assert r.status_code == 422 and "kept for players without a name" in r.text
    assert p.get("/api/profile").json()["display_name"] is None
    for name in FINE:
        r = p.http.put("/api/profile", json={"display_name": name}, headers=p.headers)
        assert r.status_code == 200 and r.json()["display_name"] == name, (name, r.text)
