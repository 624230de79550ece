"""Issue 39, item 8 (the small ones at the seams), on both databases: a display name that
imitates the default "Player 4F2A" is refused however it is spaced or spelled, every ``/api``
answer carries ``Cache-Control: no-store``, and a 500 still carries the security headers and
the request id."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.security import SECURITY_HEADERS
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


# -- /api answers are never stored -------------------------------------------------------------


def test_every_api_answer_says_no_store(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    answers = {
        "session": p.get("/api/session"),
        "game": p.get(f"/api/games/{g['id']}"),
        "games": p.get("/api/games"),
        "stats": p.get("/api/stats"),
        "variants": p.get("/api/variants"),
        "profile": p.get("/api/profile"),
        "move": p.move(g["id"], 0, 6, 1),
        "not found": p.get("/api/games/nope"),
        "no route": p.get("/api/no-such-thing"),
        "bad body": p.post(f"/api/games/{g['id']}/moves", {"from_column": "x"}),
        "forged": p.http.post(f"/api/games/{g['id']}/deal"),  # no CSRF token: 403
        "unknown method": p.http.patch("/api/stats", headers=p.headers),
    }
    for name, r in answers.items():
        assert r.headers.get("cache-control") == "no-store", (name, r.status_code, r.headers)


# -- a 500 is still one of ours ------------------------------------------------------------------


@pytest.fixture()
def failing() -> TestClient:
    """The app with one route that fails unexpectedly (a defect: the safety net answers)."""
    from app.main import create_app

    broken = create_app()

    @broken.get("/api/broken")
    @broken.get("/broken")
    def fail() -> None:
        raise RuntimeError("a defect")

    return TestClient(broken, raise_server_exceptions=False)


@pytest.mark.parametrize(("path", "accept"), [("/api/broken", "*/*"), ("/broken", "text/html")])
def test_a_500_still_carries_the_security_headers_and_the_request_id(
    failing: TestClient, path: str, accept: str
) -> None:
    r = failing.get(path, headers={"Accept": accept, "X-Request-ID": "seam-500-check"})
    assert r.status_code == 500
    assert "Something went wrong on our side" in r.text and "a defect" not in r.text
    assert r.headers.get("x-request-id") == "seam-500-check"
    for name, value in SECURITY_HEADERS:
        assert r.headers.get(name) == value, (name, r.headers)
    assert r.headers.get("cache-control") == "no-store"
    # Without a request id of the client's, the one the app made (and logged) is sent.
    r = failing.get(path, headers={"Accept": accept})
    assert r.status_code == 500 and len(r.headers.get("x-request-id", "")) == 32
