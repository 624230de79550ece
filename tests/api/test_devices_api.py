"""The JSON API of devices and your data: a second client links by code and reads the same
statistics; a wrong or used code is a 422 ``detail``; removing a device cuts it off; the
export is the signed data file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from tests.support.api_client import Player, assert_error, player_rows
from tests.support.deals import WIN_DEAL, WIN_LINE

pytestmark = pytest.mark.usefixtures("configured")


def win(p: Player) -> None:
    game = p.new_game(deal=WIN_DEAL)
    for action in WIN_LINE:
        assert p.apply(game["id"], action).status_code == 200


def test_link_by_code_through_the_api(app: FastAPI) -> None:
    phone, laptop = Player(app), Player(app)
    win(phone)
    r = phone.post("/api/player/link-code")
    assert r.status_code == 201, r.text
    issued = r.json()
    assert (
        len(issued["code"]) == 8
        and issued["grouped"] == f"{issued['code'][:4]}-{issued['code'][4:]}"
    )
    assert issued["url"] == f"http://testserver/link?code={issued['code']}"

    r = laptop.post("/api/player/link", {"code": issued["grouped"]})
    assert r.status_code == 200, r.text
    assert r.json()["player"] == phone.id
    laptop.token = r.json()["csrf_token"]
    assert laptop.get("/api/session").json()["player"] == phone.id
    assert laptop.get("/api/stats").json() == phone.get("/api/stats").json()

    again = Player(app)
    detail = assert_error(again.post("/api/player/link", {"code": issued["code"]}), 422)
    assert "wrong, already used or expired" in detail
    assert_error(again.post("/api/player/link", {"code": 12345678}), 422)
    assert_error(again.post("/api/player/link", {"code": "ABCDEFGH", "extra": 1}), 422)

    listed = phone.get("/api/player/devices").json()["devices"]
    assert [d["this_device"] for d in listed] == [True, False]
    other = listed[1]["id"]
    assert phone.delete(f"/api/player/devices/{other}").status_code == 204
    # The laptop is cut off: a new, empty player.
    assert laptop.get("/api/session").json()["player"] != phone.id
    assert_error(phone.delete(f"/api/player/devices/{other}"), 404)


def test_export_through_the_api(app: FastAPI) -> None:
    p = Player(app)
    win(p)
    r = p.get("/api/player/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    document = json.loads(r.content)
    assert document["format"] == "scorpion-player-data" and len(document["signature"]) == 64
    assert [g["status"] for g in document["games"]] == ["won"]


def test_import_through_the_api(app: FastAPI, engine: Engine) -> None:
    """The exported file as the body of ``POST /api/player/import?replace=true`` gives the
    importing player the same statistics and games; a forged, cut-short or unconfirmed import
    is a 422 ``detail`` and changes nothing; without the CSRF token, a 403."""
    phone, laptop = Player(app), Player(app)
    win(phone)
    saved = phone.new_game(deal_number=12)
    assert phone.apply(saved["id"], ("deal",)).status_code == 200
    file = phone.get("/api/player/export").content
    mine = laptop.new_game(deal_number=5)
    before = player_rows(engine, laptop.id)

    def send(body: bytes, query: str = "?replace=true", **kw: Any) -> Any:
        headers = {**laptop.headers, "content-type": "application/json", **kw}
        return laptop.http.post(f"/api/player/import{query}", content=body, headers=headers)

    document = json.loads(file)
    document["statistics"] = [{**s, "won": s["won"] + 5} for s in document["statistics"]]
    forged = json.dumps(document).encode()
    for body, query, expected in (
        (file, "", "send replace=true to confirm"),
        (file[: len(file) // 2], "?replace=true", "cut short"),
        (forged, "?replace=true", "signature does not match"),
        (b"", "?replace=true", "empty"),
        (b"[" * 60_000, "?replace=true", "nested too deeply"),  # issue 39: no RecursionError
    ):
        detail = assert_error(send(body, query), 422)
        assert expected in detail and "Nothing was changed" in detail
        assert player_rows(engine, laptop.id) == before
    refused = laptop.http.post(
        "/api/player/import?replace=true", content=file, headers={"x-csrf-token": "wrong"}
    )
    assert refused.status_code == 403
    assert player_rows(engine, laptop.id) == before

    from app.config import get_settings

    too_large = b" " * (get_settings().max_import_bytes + 100_000)
    assert "too large" in assert_error(send(too_large), 413)
    assert player_rows(engine, laptop.id) == before

    r = send(b"\xef\xbb\xbf" + file)  # a byte order mark before the JSON (issue 39)
    assert r.status_code == 200, r.text
    assert r.json() == {
        "games": 2,
        "results": len(document["results"]),
        "race_entries": 0,
        "left_out_race_entries": 0,
        "left_out_games": 0,
        "kept_games": 0,
    }
    assert laptop.get("/api/stats").json() == phone.get("/api/stats").json()
    assert laptop.get(f"/api/games/{mine['id']}").status_code == 404  # replaced
    games = json.loads(laptop.get("/api/player/export").content)["games"]
    assert sorted((g["status"], g["deal_number"]) for g in games) == sorted(
        (g["status"], g["deal_number"]) for g in document["games"]
    )
