"""A device removed on one server is out at once on another (issue 39, item 2): two app
servers (two processes, like two app containers) on one database. Server B confirmed the
laptop a moment before server A removed it (each worker trusts a device it checked for up to
10 s); B still refuses the laptop's writes on link codes, the data file and deletion with a
410 that clears its cookie, and nothing changes."""

from __future__ import annotations

from typing import Any

import httpx2

from tests.support.live import LivePlayer
from tests.support.server import ServerFactory


def send(
    base_url: str, method: str, path: str, cookie: str, token: str, body: Any = None
) -> httpx2.Response:
    """One request with exactly this player cookie (what the response sets is not kept)."""
    with httpx2.Client(base_url=base_url, timeout=30) as client:
        headers = {"Cookie": f"scorpion_player={cookie}", "X-CSRF-Token": token}
        return client.request(method, path, json=body, headers=headers)


def test_a_device_removed_on_one_server_is_out_on_the_other(
    fresh_db_url: str, start_server: ServerFactory
) -> None:
    a = start_server(fresh_db_url, workers=1, RATE_LIMITS="off")
    b = start_server(fresh_db_url, workers=1, RATE_LIMITS="off")
    phone = LivePlayer(a.url)
    game = phone.new_game(2024)
    # (the stock dealt: the game has started, so the statistics count it)
    dealt = phone.post(f"/api/games/{game['id']}/deal", {"version": game["version"]})
    assert dealt.status_code == 200, dealt.text
    (first,) = phone.get("/api/player/devices").json()["devices"]

    def removed_laptop() -> tuple[str, str]:
        """A laptop linked and trusted on B, then removed on A: (its cookie, its token)."""
        code = phone.post("/api/player/link-code").json()["code"]
        stranger = LivePlayer(b.url)
        cookie = stranger.cookies["scorpion_player"]
        r = send(b.url, "POST", "/api/player/link", cookie, stranger.token, {"code": code})
        assert r.status_code == 200, r.text
        cookie, token = r.cookies["scorpion_player"], r.json()["csrf_token"]
        seen = send(b.url, "GET", "/api/session", cookie, token)  # B trusts the laptop now
        assert seen.json()["player"] == phone.id
        listed = phone.get("/api/player/devices").json()["devices"]
        (other,) = [d["id"] for d in listed if not d["this_device"]]
        assert phone.request("DELETE", f"/api/player/devices/{other}").status_code == 204
        return cookie, token

    for method, path in (
        ("POST", "/api/player/link-code"),
        ("GET", "/api/player/export"),
        ("DELETE", "/api/stats"),
        ("DELETE", "/api/player"),
    ):
        cookie, token = removed_laptop()
        r = send(b.url, method, path, cookie, token)
        assert r.status_code == 410, (path, r.status_code, r.text)
        assert "removed" in r.json()["detail"]
        assert 'scorpion_player=""' in r.headers.get("set-cookie", "")
        # From then on B knows: the kept cookie is a new, empty player there.
        assert send(b.url, "GET", "/api/session", cookie, token).json()["player"] != phone.id
    # Nothing changed for the phone, on either server.
    for url in (a.url, b.url):
        assert phone.get(f"/api/games/{game['id']}", base_url=url).status_code == 200
        assert phone.get("/api/player/devices", base_url=url).json()["devices"] == [first]
        assert phone.get("/api/stats", base_url=url).json()["variants"]["scorpion"]["started"] == 1
