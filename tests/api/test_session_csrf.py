"""Identity (signed cookie) and CSRF / cross-site refusal, on both databases."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.config import get_settings
from app.engine import ALL_VARIANTS
from app.main import create_app
from app.web.site.deps import csrf_token_for, read_player_cookie
from tests.support.api_client import Player, assert_error, count_rows, player_rows


def test_first_session_request_creates_a_signed_httponly_lax_cookie(app: FastAPI) -> None:
    client = TestClient(app)
    r = client.get("/api/session")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"player", "csrf_token"}
    cookie = r.headers["set-cookie"]
    name = get_settings().cookie_name
    assert cookie.startswith(f"{name}=")
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert "httponly" in attrs and "samesite=lax" in attrs and "path=/" in attrs
    assert "secure" not in attrs  # plain http here
    value = cookie.split(";")[0].split("=", 1)[1]
    assert read_player_cookie(value) == body["player"]
    assert body["player"] not in (value.split(".")[-1],)  # a signature follows the id
    # At least 128 random bits: 32 URL-safe base64 characters carry 192.
    assert len(body["player"]) >= 22
    assert body["csrf_token"] == csrf_token_for(body["player"])
    again = client.get("/api/session")
    assert again.json() == body
    assert "set-cookie" not in again.headers


def test_cookie_is_secure_over_https(app: FastAPI) -> None:
    r = TestClient(app, base_url="https://testserver").get("/api/session")
    assert "secure" in [a.strip().lower() for a in r.headers["set-cookie"].split(";")]


def test_the_cookie_stays_valid_for_a_new_app_instance(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=77)
    restarted = create_app()  # a new process would read the same SECRET_KEY
    client = TestClient(restarted, cookies=dict(p.http.cookies))
    assert client.get("/api/session").json()["player"] == p.id
    assert client.get(f"/api/games/{g['id']}").json() == g


def test_a_forged_cookie_gets_a_new_identity(app: FastAPI) -> None:
    name = get_settings().cookie_name
    victim = Player(app)
    client = TestClient(app, cookies={name: victim.id})  # unsigned
    r = client.get("/api/session")
    assert r.json()["player"] != victim.id
    assert "set-cookie" in r.headers
    client = TestClient(app, cookies={name: victim.id + ".forgedsignature"})
    assert client.get("/api/session").json()["player"] != victim.id


def test_a_brand_new_player_works_on_every_endpoint(app: FastAPI, engine: Engine) -> None:
    p = Player(app)
    stats = p.get("/api/stats")
    assert stats.status_code == 200
    variants = stats.json()["variants"]
    assert set(variants) == set(ALL_VARIANTS)
    for s in variants.values():
        assert s["started"] == 0 and s["won"] == 0 and s["current_streak"] == 0
    assert_error(p.get("/api/games/nothing-here"), 404)
    assert_error(p.get("/api/games/nothing-here/hints"), 404)
    for path in ("moves", "deal", "undo", "redo", "restart"):
        body = {"from_column": 0, "from_index": 0, "to_column": 1} if path == "moves" else None
        assert_error(p.post(f"/api/games/nothing-here/{path}", body), 404)
    for path in ("/api/games", "/api/stats", "/api/player"):
        assert p.delete(path).status_code == 204
    assert player_rows(engine, p.id)["players"] == 0  # reads and no-op deletes wrote nothing


def _unsafe_calls(gid: str) -> list[tuple[str, str, Any]]:
    return [
        ("POST", "/api/games", {"variant": "scorpion"}),
        ("POST", f"/api/games/{gid}/moves", {"from_column": 6, "from_index": 6, "to_column": 0}),
        ("POST", f"/api/games/{gid}/deal", None),
        ("POST", f"/api/games/{gid}/undo", None),
        ("POST", f"/api/games/{gid}/redo", None),
        ("POST", f"/api/games/{gid}/restart", None),
        ("DELETE", "/api/games", None),
        ("DELETE", "/api/stats", None),
        ("DELETE", "/api/player", None),
    ]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-CSRF-Token": ""},
        {"X-CSRF-Token": "not-the-token"},
        {"X-CSRF-Token": csrf_token_for("someone-else-entirely-000")},
    ],
    ids=["missing", "empty", "wrong", "another-players"],
)
def test_unsafe_requests_without_a_valid_token_are_403_and_change_nothing(
    app: FastAPI, engine: Engine, headers: dict[str, str]
) -> None:
    p = Player(app)
    g = p.new_game(deal_number=5)
    p.post(f"/api/games/{g['id']}/deal")
    g = p.get(f"/api/games/{g['id']}").json()
    before = player_rows(engine, p.id)
    actions = count_rows(engine, "game_actions", "game_id = :g", g=g["id"])
    stats = p.get("/api/stats").json()
    for method, path, body in _unsafe_calls(g["id"]):
        r = p.http.request(method, path, json=body, headers=headers)
        assert_error(r, 403)
    assert player_rows(engine, p.id) == before
    assert count_rows(engine, "game_actions", "game_id = :g", g=g["id"]) == actions
    assert p.get(f"/api/games/{g['id']}").json() == g
    assert p.get("/api/stats").json() == stats


def test_the_token_may_come_as_a_form_field(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=9)
    r = p.http.post(f"/api/games/{g['id']}/restart", data={"csrf_token": p.token})
    assert r.status_code == 201, r.text
    r = p.http.post(f"/api/games/{g['id']}/restart", data={"csrf_token": "wrong"})
    assert_error(r, 403)
    r = p.http.post(
        f"/api/games/{g['id']}/restart",
        files={"file": ("x.txt", b"x")},
        data={"csrf_token": p.token},
    )
    assert r.status_code == 201, r.text


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://testserver.evil.example"},
    ],
)
def test_cross_site_requests_are_refused_even_with_the_token(
    app: FastAPI, headers: dict[str, str]
) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    assert_error(p.post(f"/api/games/{g['id']}/deal", headers=headers), 403)
    assert_error(p.post("/api/games", {"variant": "wasp"}, headers=headers), 403)
    assert p.get(f"/api/games/{g['id']}").json() == g


def test_same_origin_requests_pass(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=10)
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert p.post(f"/api/games/{g['id']}/deal", headers=same).status_code == 200


def test_safe_methods_need_no_token(app: FastAPI) -> None:
    p = Player(app)
    g = p.new_game(deal_number=12)
    client = p.http
    assert (
        client.get(f"/api/games/{g['id']}", headers={"Sec-Fetch-Site": "cross-site"}).status_code
        == 200
    )
    assert client.get("/api/stats").status_code == 200
