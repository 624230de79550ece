"""Red-team findings on the request edge, on both databases: oversized bodies are refused
before they are read, a non-ASCII CSRF token is a plain 403, and ``Origin`` must match the
scheme as well as the host. Each refused request changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import get_settings
from tests.support.api_client import Player, assert_error

LIMIT = get_settings().max_body_bytes


def test_default_body_limit_is_small() -> None:
    assert 1024 <= LIMIT <= 1024 * 1024


def test_an_oversized_json_move_is_refused_with_413_and_changes_nothing(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    padding = "x" * (LIMIT + 1)
    body = {"from_column": 0, "from_index": 6, "to_column": 1, "padding": padding}
    detail = assert_error(p.post(f"/api/games/{g['id']}/moves", body), 413)
    assert "too large" in detail
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_a_chunked_body_without_length_is_cut_off_at_the_limit(app: FastAPI) -> None:
    p = Player(app)
    before = p.get("/api/stats").json()

    def chunks() -> Iterator[bytes]:
        yield b'{"variant": "scorpion", "deal": "'
        for _ in range(LIMIT // 1024 + 2):
            yield b"A" * 1024
        yield b'"}'

    r = p.http.post(
        "/api/games",
        content=chunks(),
        headers={**p.headers, "Content-Type": "application/json"},
    )
    assert_error(r, 413)
    assert p.get("/api/stats").json() == before


def test_an_oversized_form_post_is_refused_before_the_csrf_check_reads_it(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    r = p.http.post(
        f"/games/{g['id']}/deal",
        data={"csrf_token": p.token, "filler": "y" * (LIMIT + 10)},
    )
    assert_error(r, 413)
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_a_body_within_the_limit_still_works(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    r = p.post(f"/api/games/{g['id']}/deal", {"version": g["version"], "note": "z" * 1000})
    # Unknown fields are refused by the API's strict models or ignored; never 413.
    assert r.status_code != 413


NON_ASCII = "t\u00f6k\u00e9n-\u00fcber"


def test_a_non_ascii_csrf_header_is_a_plain_403(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=11)
    r = p.http.post(
        f"/api/games/{g['id']}/deal",
        headers={"X-CSRF-Token": NON_ASCII.encode("latin-1")},  # type: ignore[dict-item]
    )
    assert_error(r, 403)
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_a_non_ascii_csrf_form_field_is_a_plain_403(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=11)
    urlencoded = p.http.post(
        f"/games/{g['id']}/deal",
        content=b"csrf_token=" + NON_ASCII.encode("utf-8"),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert urlencoded.status_code == 403, urlencoded.text
    multipart = p.http.post(
        f"/games/{g['id']}/deal",
        data={"csrf_token": NON_ASCII},
        files={"x": ("x.txt", b"x")},
    )
    assert multipart.status_code == 403, multipart.text
    assert p.get(f"/api/games/{g['id']}").json() == g


@pytest.mark.parametrize(
    ("base_url", "origin", "status"),
    [
        ("http://testserver", "https://testserver", 403),
        ("https://testserver", "http://testserver", 403),
        ("https://testserver", "https://testserver", 200),
        ("http://testserver", "http://testserver", 200),
    ],
)
def test_origin_must_match_scheme_and_host(
    app: FastAPI, base_url: str, origin: str, status: int
) -> None:
    p = Player(app, base_url=base_url)
    g = p.new_game(deal_number=12)
    r = p.post(f"/api/games/{g['id']}/deal", headers={"Origin": origin})
    assert r.status_code == status, r.text
    if status == 403:
        assert p.get(f"/api/games/{g['id']}").json() == g


def test_the_limit_answers_before_any_route(app: FastAPI) -> None:
    """The limit answers before any route: even an unknown path gets 413, not 404."""
    client = TestClient(app)
    r = client.post("/no-such-path", content=b"x" * (LIMIT + 1))
    assert r.status_code == 413
