"""A removed device is out at once, everywhere (issue 39, item 2), and the per-address
limits of linking hold for IPv6 (item 3), on SQLite and PostgreSQL.

- Removing a device voids the player's link code: a spare code made before the removal
  links nothing.
- A worker that confirmed a device a moment before another worker removed it (its 10 s
  cache) still refuses that device's writes on devices, codes, the data file and deletion:
  ``410``, the cookie cleared, nothing changed. The second worker is this process with the
  device confirmed again, as that worker's cache holds it (``devices`` keeps one cache per
  process); ``tests/reliability/test_device_removal.py`` does the same with two servers.
- The CSRF token is the device's own.
- A device may remove itself and the devices linked after it, never an older one.
- After retention removes the player, a device removed earlier does not become it again.
- Link codes entered are limited per IPv6 /64 and per player; new players a minute per /64.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.config import get_settings
from app.db.models import utcnow
from app.services import devices, retention
from app.services.clients import client_network
from app.web.deps import read_cookie
from tests.support.api_client import Player, assert_error, player_rows
from tests.support.deals import WIN_DEAL, WIN_LINE

pytestmark = pytest.mark.usefixtures("configured")


def win(p: Player) -> None:
    game = p.new_game(deal=WIN_DEAL)
    for action in WIN_LINE:
        assert p.apply(game["id"], action).status_code == 200


def link(owner: Player, joiner: Player) -> str:
    """Link ``joiner`` to ``owner``'s player; returns the joiner's new device id."""
    code = owner.post("/api/player/link-code").json()["code"]
    r = joiner.post("/api/player/link", {"code": code})
    assert r.status_code == 200, r.text
    joiner.token = r.json()["csrf_token"]
    found = read_cookie(joiner.http.cookies.get("scorpion_player"))
    assert found is not None and found[0] == owner.id == r.json()["player"]
    joiner.id = owner.id
    return found[1]


def device_ids(p: Player) -> list[str]:
    return [d["id"] for d in p.get("/api/player/devices").json()["devices"]]


def test_removing_a_device_voids_the_link_code_it_made(app: FastAPI) -> None:
    phone, laptop, stranger = Player(app), Player(app), Player(app)
    win(phone)
    device = link(phone, laptop)
    spare = laptop.post("/api/player/link-code")
    assert spare.status_code == 201
    assert phone.delete(f"/api/player/devices/{device}").status_code == 204
    detail = assert_error(stranger.post("/api/player/link", {"code": spare.json()["code"]}), 422)
    assert "wrong, already used or expired" in detail
    assert stranger.get("/api/session").json()["player"] != phone.id


def test_a_removed_device_writes_nothing_where_it_was_still_trusted(
    app: FastAPI, engine: Engine
) -> None:
    phone, laptop = Player(app), Player(app)
    win(phone)
    device = link(phone, laptop)
    file = laptop.get("/api/player/export").content
    assert phone.delete(f"/api/player/devices/{device}").status_code == 204
    before = player_rows(engine, phone.id)
    listed = device_ids(phone)

    def trusted_again() -> None:
        """Another worker confirmed the laptop a moment before the removal (its cache)."""
        devices.confirm_new(phone.id, device)

    def send(method: str, path: str, **kw: Any) -> Any:
        trusted_again()
        saved = dict(laptop.http.cookies)
        r = laptop.http.request(method, path, headers=laptop.headers, **kw)
        laptop.http.cookies.clear()
        laptop.http.cookies.update(saved)  # (the test keeps the removed cookie)
        return r

    attempts = [
        ("POST", "/api/player/link-code", {}),
        ("GET", "/api/player/export", {}),
        ("GET", "/api/player/devices", {}),
        (
            "POST",
            "/api/player/import?replace=true",
            {"content": file, "headers": {**laptop.headers, "content-type": "application/json"}},
        ),
        ("DELETE", "/api/games", {}),
        ("DELETE", "/api/stats", {}),
        ("DELETE", "/api/player", {}),
        ("DELETE", f"/api/player/devices/{listed[0]}", {}),
    ]
    for method, path, kw in attempts:
        if "headers" in kw:
            trusted_again()
            r = laptop.http.request(method, path, **kw)
        else:
            r = send(method, path, **kw)
        detail = assert_error(r, 410)
        assert "removed" in detail, (path, detail)
        assert 'scorpion_player=""' in r.headers.get("set-cookie", ""), path
        assert player_rows(engine, phone.id) == before, path
    assert device_ids(phone) == listed
    assert phone.get("/api/stats").json()["variants"]["scorpion"]["won"] == 1


def test_each_device_has_its_own_csrf_token(app: FastAPI) -> None:
    phone, laptop = Player(app), Player(app)
    link(phone, laptop)
    assert laptop.token != phone.token
    assert laptop.get("/api/session").json() == {"player": phone.id, "csrf_token": laptop.token}
    # The phone's token does not vouch for the laptop's requests.
    r = laptop.http.post("/api/player/link-code", headers={"X-CSRF-Token": phone.token})
    assert r.status_code == 403
    assert laptop.post("/api/player/link-code").status_code == 201
    # The first device's token is the player's token from before devices.
    assert phone.get("/api/session").json()["csrf_token"] == phone.token


def test_a_device_removes_itself_and_later_devices_never_an_older_one(app: FastAPI) -> None:
    phone, laptop, tablet = Player(app), Player(app), Player(app)
    win(phone)
    on_laptop = link(phone, laptop)
    on_tablet = link(laptop, tablet)
    first = device_ids(phone)[0]
    assert device_ids(phone) == [first, on_laptop, on_tablet]
    seen = laptop.get("/api/player/devices").json()["devices"]
    assert [d["removable"] for d in seen] == [False, True, True]
    # The laptop cannot take the player from the phone, nor the tablet from the laptop.
    detail = assert_error(laptop.delete(f"/api/player/devices/{first}"), 422)
    assert "linked before it" in detail
    assert_error(tablet.delete(f"/api/player/devices/{on_laptop}"), 422)
    assert device_ids(phone) == [first, on_laptop, on_tablet]
    assert phone.get("/api/session").json()["player"] == phone.id
    # A later device, or itself: removed.
    assert laptop.delete(f"/api/player/devices/{on_tablet}").status_code == 204
    assert laptop.delete(f"/api/player/devices/{on_laptop}").status_code == 204
    assert device_ids(phone) == [first]
    assert laptop.get("/api/session").json()["player"] != phone.id


def test_a_removed_device_does_not_become_the_player_again_after_retention(
    app: FastAPI, db: Session
) -> None:
    phone, laptop = Player(app), Player(app)
    device = link(phone, laptop)  # (the phone made a code: it has a row, and nothing else)
    kept = laptop.http.cookies.get("scorpion_player")
    assert phone.delete(f"/api/player/devices/{device}").status_code == 204
    assert retention.purge_empty_players(db, 1, now=utcnow() + timedelta(days=3)) >= 1
    again = TestClient(app)
    again.cookies.set("scorpion_player", kept)
    assert again.get("/api/session").json()["player"] != phone.id
    # The phone, never removed, is still that player (a new, empty one).
    assert phone.get("/api/session").json()["player"] == phone.id


# -- item 3: the limits on entering codes --------------------------------------------------


@pytest.fixture()
def limits_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    monkeypatch.setattr(settings, "link_tries_per_window", 3)
    yield


def client_at(app: FastAPI, address: str) -> Player:
    p = Player(app)
    p._open(TestClient(app, client=(address, 50000)))
    return p


def test_a_client_network_is_its_ipv6_64() -> None:
    assert client_network("2001:db8:1:2:aaaa::1") == client_network("2001:db8:1:2::ffff")
    assert client_network("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_network("2001:db8:1:3::1") != client_network("2001:db8:1:2::1")
    assert client_network("::ffff:198.51.100.7") == "198.51.100.7" == client_network("198.51.100.7")
    assert client_network("unknown") == "unknown"


@pytest.mark.usefixtures("limits_on")
def test_wrong_codes_from_one_ipv6_64_are_throttled(app: FastAPI) -> None:
    net = f"2001:db8:{uuid.uuid4().int % 65536:x}:{uuid.uuid4().int % 65536:x}"
    for n in range(3):
        guesser = client_at(app, f"{net}:{n + 1:x}::{n + 7:x}")
        assert_error(guesser.post("/api/player/link", {"code": "ZZZZ-ZZZZ"}), 422)
    r = client_at(app, f"{net}:ffff::1").post("/api/player/link", {"code": "ZZZZ-ZZZZ"})
    assert "Too many link codes tried" in assert_error(r, 429)
    assert int(r.headers["Retry-After"]) > 0
    # Another /64 is another client.
    elsewhere = client_at(app, f"{net[:-1]}{'0' if net[-1] != '0' else '1'}::1")
    assert_error(elsewhere.post("/api/player/link", {"code": "ZZZZ-ZZZZ"}), 422)


@pytest.mark.usefixtures("limits_on")
def test_wrong_codes_of_one_player_are_throttled_whatever_its_address(app: FastAPI) -> None:
    guesser = Player(app)
    cookies = dict(guesser.http.cookies)
    for n in range(4):
        net = f"2001:db8:{uuid.uuid4().int % 65536:x}:{n:x}"
        moved = TestClient(app, client=(f"{net}::1", 50000))
        moved.cookies.update(cookies)
        r = moved.post("/api/player/link", json={"code": "ZZZZ-ZZZZ"}, headers=guesser.headers)
        assert_error(r, 422 if n < 3 else 429)


def test_the_export_still_answers_the_device_that_stands(app: FastAPI) -> None:
    phone, laptop = Player(app), Player(app)
    win(phone)
    link(phone, laptop)
    document = json.loads(laptop.get("/api/player/export").content)
    assert [g["status"] for g in document["games"]] == ["won"]


def test_new_players_from_one_ipv6_64_are_counted_together(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every per-address limit keys an IPv6 client by its /64: here new players a minute."""
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    monkeypatch.setattr(settings, "new_players_per_minute", 2)
    net = f"2001:db8:{uuid.uuid4().int % 65536:x}:{uuid.uuid4().int % 65536:x}"
    for n in range(2):
        client_at(app, f"{net}:{n:x}::{n + 1:x}").new_game(deal_number=3)
    r = client_at(app, f"{net}:ff::9").post("/api/games", {"variant": "scorpion"})
    assert "Too many new players from your address" in assert_error(r, 429)
