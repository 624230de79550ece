"""Linking devices and your data on the HTML pages (browsers without JavaScript, and htmx):
a second browser joins by code and sees the same statistics; removing a device cuts it off;
"Delete everything" cuts every device off; a cookie from before devices still works; the
data file downloads, and imports into another browser's player, or is refused with a clear
message while nothing changes."""

from __future__ import annotations

import html
import json
import re
import uuid
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app import services
from app.services import devices
from app.web.deps import MAX_FORM_BYTES, sign_player_id
from tests.support.api_client import count_rows, player_rows
from tests.support.bulk_games import add_finished_games
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.html_client import HTMX, Browser, csrf_of

pytestmark = pytest.mark.usefixtures("configured")


def player_of(browser: Browser) -> str:
    """The player id in the browser's cookie (as the server reads it)."""
    from app.web.deps import read_player_cookie

    value = browser.http.cookies.get("scorpion_player")
    player = read_player_cookie(value)
    assert player is not None
    return player


def refresh(browser: Browser, path: str = "/privacy") -> Any:
    page = browser.get(path)
    assert page.status_code == 200
    browser.token = csrf_of(page.text)
    return page


def win_a_game(browser: Browser) -> str:
    gid = browser.new_game(deal=WIN_DEAL)
    for k, action in enumerate(WIN_LINE, start=1):
        assert browser.act(gid, action, version=k).status_code == 303
    return gid


def stats_numbers(browser: Browser) -> list[str]:
    """What the statistics page shows in its table cells (the numbers a player reads)."""
    page = browser.get("/stats")
    assert page.status_code == 200
    return re.findall(r"<td[^>]*>([^<]*)</td>", page.text)


def link_code(browser: Browser, htmx: bool = False) -> str:
    r = browser.post("/privacy/link-code", headers=HTMX if htmx else None)
    assert r.status_code == 200, r.text
    m = re.search(r'id="link-code"><strong>([0-9A-Z]{4}-[0-9A-Z]{4})</strong>', r.text)
    assert m, r.text[:500]
    code = m.group(1)
    # The QR code holds this site's link page with the code filled in, nothing more.
    url = f"http://testserver/link?code={code.replace('-', '')}"
    assert devices.qr_svg(url) in r.text
    assert ("<html" in r.text) is not htmx
    return code


def join(browser: Browser, code: str, **extra: str) -> Any:
    refresh(browser, "/link")
    return browser.post("/link", {"code": code, **extra})


@pytest.fixture()
def phone(app: FastAPI) -> Browser:
    return Browser(app)


@pytest.fixture()
def laptop(app: FastAPI) -> Browser:
    return Browser(app)


def test_a_second_browser_links_by_code_and_sees_the_same_statistics(
    phone: Browser, laptop: Browser
) -> None:
    win_a_game(phone)
    saved = phone.new_game(variant="wasp")
    code = link_code(phone)
    page = laptop.get(f"/link?code={code.replace('-', '').lower()}")
    assert page.status_code == 200
    assert f'value="{code}"' in page.text  # the QR code's URL fills in the form
    assert "nothing saved yet" in page.text
    r = join(laptop, code)
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=linked"
    assert player_of(laptop) == player_of(phone)
    assert stats_numbers(laptop) == stats_numbers(phone)
    assert "1" in stats_numbers(laptop)
    # The saved game resumes on the laptop.
    assert laptop.get(f"/games/{saved}").status_code == 200
    listing = refresh(laptop, r.headers["location"]).text
    assert "This device is linked" in listing
    assert listing.count('class="this-device"') == 1
    assert listing.count("<li") - listing.count("<link") >= 2
    # The laptop, linked later, may remove itself only; the phone may remove both.
    assert len(re.findall(r'name="device" value="', listing)) == 1
    assert len(re.findall(r'name="device" value="', refresh(phone).text)) == 2
    # The code was used up.
    other = Browser(laptop.http.app)  # type: ignore[arg-type]
    r = join(other, code)
    assert r.status_code == 422 and "wrong, already used or expired" in r.text


def test_linking_works_with_htmx(phone: Browser, laptop: Browser) -> None:
    win_a_game(phone)
    code = link_code(phone, htmx=True)
    refresh(laptop, "/link")
    r = laptop.post("/link", {"code": code}, headers=HTMX)
    assert r.status_code == 200 and 'id="linked"' in r.text and "<html" not in r.text
    assert player_of(laptop) == player_of(phone)
    assert stats_numbers(laptop) == stats_numbers(phone)


def test_after_linking_with_htmx_the_page_carries_the_new_token(
    phone: Browser, laptop: Browser
) -> None:
    """The linked answer swaps the page's other form (the footer's language switch) out of
    band with the new device's CSRF token: the next form sent from that page works."""
    code = link_code(phone, htmx=True)
    old = refresh(laptop, "/link")
    assert old.text.count('name="csrf_token"') == 2  # the join form and the language switch
    r = laptop.post("/link", {"code": code}, headers=HTMX)
    assert r.status_code == 200 and 'id="linked"' in r.text
    m = re.search(r'<form class="lang-switch" id="lang-switch"[^>]*hx-swap-oob="outerHTML"', r.text)
    assert m, r.text
    token = csrf_of(r.text[m.start() :])
    assert token != laptop.token
    laptop.token = token
    r = laptop.post("/settings/language", {"locale": "zh-CN", "next": "/link"})
    assert r.status_code == 303, r.text
    assert player_of(laptop) == player_of(phone)


def test_the_language_cookie_is_secure_where_the_player_cookie_is(app: FastAPI) -> None:
    for base, secure in (("https://testserver", True), ("http://testserver", False)):
        http = TestClient(app, base_url=base)
        first = http.get("/privacy")
        (player,) = first.headers.get_list("set-cookie")
        assert player.startswith("scorpion_player=")
        assert ("; secure" in player.lower()) is secure, player
        form = {"csrf_token": csrf_of(first.text), "locale": "zh-CN", "next": "/"}
        r = http.post("/settings/language", data=form, follow_redirects=False)
        assert r.status_code == 303
        (lang,) = [c for c in r.headers.get_list("set-cookie") if c.startswith("scorpion_lang=")]
        assert ("; secure" in lang.lower()) is secure, lang


def test_a_wrong_code_is_refused_and_changes_nothing(phone: Browser, laptop: Browser) -> None:
    refresh(laptop, "/link")
    before = player_of(laptop)
    r = laptop.post("/link", {"code": "ABCD-EFGH"})
    assert r.status_code == 422
    assert "wrong, already used or expired" in html.unescape(r.text)
    assert 'value="ABCD-EFGH"' in r.text
    r = laptop.post("/link", {"code": "nope"})
    assert r.status_code == 422 and "8 letters and digits" in r.text
    r = laptop.post("/link", {"code": "ABCD-EFGH"}, headers=HTMX)
    assert r.status_code == 422 and 'id="link-error"' in r.text and "<html" not in r.text
    assert player_of(laptop) == before


def test_a_browser_with_data_is_warned_and_must_confirm(phone: Browser, laptop: Browser) -> None:
    win_a_game(phone)
    laptop.new_game(variant="wasp")
    own = player_of(laptop)
    code = link_code(phone)
    page = laptop.get(f"/link?code={code}")
    assert 'id="leave-warning"' in page.text and "stays with its old anonymous player" in page.text
    r = join(laptop, code)
    assert r.status_code == 422 and "Tick the box" in r.text
    assert player_of(laptop) == own
    r = join(laptop, code, leave="on")
    assert r.status_code == 303
    assert player_of(laptop) == player_of(phone)


def test_removing_a_device_cuts_it_off(phone: Browser, laptop: Browser, engine: Engine) -> None:
    win_a_game(phone)
    assert join(laptop, link_code(phone)).status_code == 303
    owner = player_of(phone)
    listing = refresh(phone).text
    (other,) = re.findall(
        r'<li><strong>[^<]+</strong><br>.*?name="device" value="([^"]+)"', listing, re.S
    )
    r = phone.post("/privacy/devices/remove", {"device": other})
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=device"
    # The laptop's next request: a new anonymous player, with a new cookie.
    stats = laptop.get("/stats")
    assert "set-cookie" in stats.headers
    assert player_of(laptop) != owner
    assert stats_numbers(laptop) != stats_numbers(phone)
    assert count_rows(engine, "devices", "player_id = :p", p=owner) == 1
    # Someone else's device, or one already gone: not found, nothing changes.
    r = phone.post("/privacy/devices/remove", {"device": other})
    assert r.status_code == 404


def test_delete_everything_removes_every_link(
    phone: Browser, laptop: Browser, engine: Engine
) -> None:
    win_a_game(phone)
    assert join(laptop, link_code(phone)).status_code == 303
    owner = player_of(phone)
    refresh(phone)
    assert phone.post("/privacy/delete-everything").status_code == 303
    assert count_rows(engine, "devices", "player_id = :p", p=owner) == 0
    assert count_rows(engine, "link_codes", "player_id = :p", p=owner) == 0
    # The laptop reaches nothing of the player any more.
    page = laptop.get("/privacy")
    assert page.status_code == 200 and "Only this browser" in page.text
    assert "1" not in stats_numbers(laptop)


def test_a_cookie_from_before_devices_keeps_working(app: FastAPI, db: Any) -> None:
    player = f"legacy-{'x' * 20}"
    services.create_game(db, player, "scorpion", deal=WIN_DEAL)  # its device: "first"
    browser = Browser(app)
    browser.http.cookies.clear()
    browser.http.cookies.set("scorpion_player", sign_player_id(player))
    page = refresh(browser)
    assert "this device" in page.text and player_of(browser) == player
    # the old cookie stands as it is: the player's cookie is not set again
    assert not any(c.startswith("scorpion_player=") for c in page.headers.get_list("set-cookie"))
    assert len(services.saved_games(db, player)) == 1


def upload(browser: Browser, raw: bytes, confirm: bool = True) -> Any:
    data = {"csrf_token": browser.token}
    if confirm:
        data["confirm"] = "on"
    return browser.http.post(
        "/privacy/import",
        data=data,
        files={"file": ("scorpion-data.json", raw, "application/json")},
        follow_redirects=False,
    )


def test_download_and_import_your_data(phone: Browser, laptop: Browser, engine: Engine) -> None:
    win_a_game(phone)
    phone.new_game(variant="wasp")
    r = phone.get("/privacy/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert re.fullmatch(
        r'attachment; filename="scorpion-data-\d{8}-\d{6}\.json"', r.headers["content-disposition"]
    )
    raw = r.content
    assert json.loads(raw)["format"] == "scorpion-player-data"

    laptop.new_game(variant="scorpion-ii")
    refresh(laptop)
    target = player_of(laptop)
    before = player_rows(engine, target)

    for bad, message in [
        (raw[:-40], "not valid JSON"),
        (raw.replace(b'"won":1', b'"won":9', 1), "signature does not match"),
        (b"not json at all", "not valid JSON"),
    ]:
        r = upload(laptop, bad)
        assert r.status_code == 422, r.text[:300]
        assert message in html.unescape(r.text) and 'id="import-error"' in r.text
        assert player_rows(engine, target) == before
    r = upload(laptop, raw, confirm=False)
    assert r.status_code == 422 and "tick the box" in r.text
    r = laptop.http.post(
        "/privacy/import",
        data={"csrf_token": laptop.token, "confirm": "on"},
        follow_redirects=False,
    )
    assert r.status_code == 422 and "Choose the data file" in r.text
    assert player_rows(engine, target) == before

    r = upload(laptop, raw)
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=imported"
    assert stats_numbers(laptop) == stats_numbers(phone)
    assert player_of(laptop) == target  # the same player, its devices kept


def test_an_oversized_upload_is_refused_on_the_page(laptop: Browser, engine: Engine) -> None:
    """A file past ``MAX_IMPORT_BYTES`` is refused on the privacy page, which says why (never
    raw JSON): a little past it by the route (422), far past it (past the body cap) before it
    is read, with a 303 back to the page (issue 39)."""
    from app.config import get_settings

    limit = get_settings().max_import_bytes
    refresh(laptop)
    target = player_of(laptop)
    before = player_rows(engine, target)
    r = upload(laptop, b"{" + b" " * limit + b"}")
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert f"at most {limit:,} bytes" in r.text and 'id="import-error"' in r.text
    r = upload(laptop, b"{" + b" " * (limit + 100_000) + b"}")
    assert r.status_code == 303 and r.headers["location"].startswith("/privacy?refused=too-large")
    page = laptop.get(r.headers["location"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f"at most {limit:,} bytes" in page.text and 'id="import-error"' in page.text
    assert player_rows(engine, target) == before


def test_a_large_upload_still_needs_its_csrf_token(laptop: Browser, engine: Engine) -> None:
    """The CSRF check reads a multipart form only up to its ``csrf_token`` field: a form
    without it, or with a wrong one, is refused (403) whatever the file after it."""
    refresh(laptop)
    target = player_of(laptop)
    before = player_rows(engine, target)
    big = b"{" + b" " * (MAX_FORM_BYTES * 2) + b"}"
    for data in ({"confirm": "on"}, {"csrf_token": "wrong", "confirm": "on"}):
        r = laptop.http.post(
            "/privacy/import",
            data=data,
            files={"file": ("scorpion-data.json", big, "application/json")},
            follow_redirects=False,
        )
        assert r.status_code == 403 and "security token" in r.json()["detail"]
    assert player_rows(engine, target) == before


def test_hostile_files_are_refused_on_the_page(laptop: Browser, engine: Engine) -> None:
    refresh(laptop)
    target = player_of(laptop)
    before = player_rows(engine, target)
    r = upload(laptop, b"[" * 60_000)
    assert r.status_code == 422 and "nested too deeply" in r.text
    assert player_rows(engine, target) == before


def test_an_export_of_1000_finished_games_imports(
    app: FastAPI, phone: Browser, laptop: Browser, engine: Engine
) -> None:
    """A player with 1,000 finished games of 91 actions each: the export imports back through
    the privacy page's form (streamed past the form-body cap of the CSRF check) and through
    ``POST /api/player/import``, on both databases (issue 39)."""
    from app.config import get_settings

    phone.new_game(variant="wasp")
    source = player_of(phone)
    add_finished_games(engine, source, 1000)
    raw = phone.get("/privacy/export").content
    assert MAX_FORM_BYTES < len(raw) < get_settings().max_import_bytes
    assert len(json.loads(raw)["games"]) == 1001

    laptop.new_game(variant="scorpion-ii")
    refresh(laptop)
    r = upload(laptop, raw)
    assert r.status_code == 303 and r.headers["location"] == "/privacy?done=imported", r.text[:300]
    assert count_rows(engine, "games", "player_id = :p", p=player_of(laptop)) == 1001
    assert stats_numbers(laptop) == stats_numbers(phone)

    third = Browser(app)
    refresh(third)
    r = third.http.post(
        "/api/player/import?replace=true",
        content=raw,
        headers={"x-csrf-token": third.token, "content-type": "application/json"},
    )
    assert r.status_code == 200, r.text[:300]
    assert r.json()["games"] == 1001


def test_guessing_codes_is_throttled(
    laptop: Browser, monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    from app.config import get_settings

    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    monkeypatch.setattr(settings, "link_tries_per_window", 2)
    refresh(laptop, "/link")
    # This test's own client address (the counters are per address, kept as a keyed hash).
    headers = {"X-Forwarded-For": f"192.0.2.{uuid.uuid4().int % 250 + 1}"}
    monkeypatch.setattr(settings, "trusted_proxies", "*")
    for _ in range(2):
        r = laptop.post("/link", {"code": "ABCD-EFGH"}, headers=headers)
        assert r.status_code == 422
    r = laptop.post("/link", {"code": "ABCD-EFGH"}, headers=headers)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "Too many link codes tried" in r.text and 'id="link-error"' in r.text


def test_an_unreachable_database_does_not_fail_the_identity_check(
    phone: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The device check cannot reach the database: the request goes on as the cookie says
    (whatever it reads or writes then meets the database's own 503), and it is asked again
    on the next request."""
    from sqlalchemy.exc import OperationalError

    from app.web import front

    player = player_of(phone)
    devices.forget(player)
    calls: list[str] = []

    def down(*args: object) -> bool:
        calls.append("asked")
        raise OperationalError("SELECT", {}, Exception("the database is down"))

    monkeypatch.setattr(front, "_standing", down)
    for _ in range(2):
        r = phone.get("/api/session")
        assert r.status_code == 200 and r.json()["player"] == player
    assert calls == ["asked", "asked"]


def test_the_refusals_read_in_chinese(phone: Browser, laptop: Browser, engine: Engine) -> None:
    """A Chinese page explains a refused code, import or deck choice in Chinese (the
    services' English refusal, translated); the JSON API's stays English."""
    win_a_game(phone)
    raw = phone.get("/privacy/export").content
    laptop.http.headers["Accept-Language"] = "zh-CN,zh;q=0.9"
    refresh(laptop)
    before = player_rows(engine, player_of(laptop))
    for bad, words in [
        (raw[:-40], "它不是有效的 JSON"),
        (raw.replace(b'"won":1', b'"won":9', 1), "签名不符"),
        (b"", "这个文件是空的"),
        (b"[" * 60_000, "嵌套层数太深"),
    ]:
        r = upload(laptop, bad)
        assert r.status_code == 422 and words in r.text, r.text[:300]
        assert "没有做任何更改" in r.text and "Nothing was changed" not in r.text
    r = upload(laptop, raw, confirm=False)
    assert r.status_code == 422 and "请勾选方框确认" in r.text
    r = laptop.post("/settings/deck", {"four_colour": "yes"})
    assert r.status_code == 422 and "四色扑克牌：发送“on”表示选择" in r.text
    assert player_rows(engine, player_of(laptop)) == before
    r = join(laptop, "ABCD-EFGH")
    assert r.status_code == 422 and "这个关联码不正确、已被使用或已过期" in r.text
    assert "有效期 10 分钟" in r.text
    api = laptop.http.post(
        "/api/player/link",
        json={"code": "ABCD-EFGH"},
        headers={"X-CSRF-Token": laptop.token},
    )
    assert api.status_code == 422 and api.json()["detail"].startswith("That code is wrong")
