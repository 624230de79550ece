"""The site in two languages (issue 33): English by default, Simplified Chinese chosen by the
browser's ``Accept-Language`` or by the player's switch, kept in the player's settings; the
page says which (``<html lang>``, ``Content-Language``, ``Vary: Accept-Language``); numbers
and dates in the language's own style; the JSON API's ``detail`` stays English."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from fastapi import FastAPI

from app import i18n
from app.engine import Game, deal_from_number
from app.services.days import today
from tests.support.html_client import HTMX, Browser, version_of

ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}


def lang_of(html: str) -> str:
    m = re.search(r'<html lang="([^"]+)"', html)
    assert m, html[:200]
    return m.group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("en-US,en;q=0.9", "en"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"),
        ("zh", "zh-CN"),
        ("zh-Hans-CN", "zh-CN"),
        ("zh-SG", "zh-CN"),
        ("zh-TW,zh;q=0.9", "zh-CN"),  # no Traditional catalog: Simplified reads better
        ("zh-Hant", "zh-CN"),
        ("fr-FR,fr;q=0.9", "en"),  # nothing the site speaks: English
        ("fr;q=1, zh;q=0.5", "zh-CN"),  # the first the site speaks, by q-value
        ("en;q=0.3, zh-CN;q=0.8", "zh-CN"),  # q-values, not header order
        ("zh-CN;q=0.5, en;q=0.5", "zh-CN"),  # a tie: header order
        ("zh-CN;q=0, en", "en"),  # q=0: not acceptable
        ("zh;q=abc, en", "en"),  # a malformed q-value drops its tag
        ("*", "en"),
        (";;;,,,q=", "en"),
    ],
)
def test_accept_language_is_negotiated_by_q_values(header: str | None, expected: str) -> None:
    assert i18n.negotiate(header) == expected


def test_a_chinese_browser_gets_the_pages_in_chinese(app: FastAPI) -> None:
    browser = Browser(app)
    for path in ("/", "/rules", "/stats", "/privacy", "/daily/scorpion", "/deal/42"):
        r = browser.get(path, headers=ZH)
        assert r.status_code == 200, path
        assert lang_of(r.text) == "zh-CN", path
        assert r.headers["content-language"] == "zh-CN"
        assert r.headers["vary"] == "HX-Request, Accept-Language"
    assert "蝎子纸牌" in browser.get("/", headers=ZH).text
    assert "蝎子纸牌怎么玩" in browser.get("/rules", headers=ZH).text
    english = browser.get("/rules", headers={"Accept-Language": "en-GB"})
    assert lang_of(english.text) == "en" and english.headers["content-language"] == "en"
    assert "How to play Scorpion" in english.text and "蝎子" not in english.text


def test_the_switch_overrides_the_browser_and_is_kept_in_the_settings(app: FastAPI) -> None:
    browser = Browser(app)
    assert lang_of(browser.get("/stats", headers=ZH).text) == "zh-CN"
    # The footer's switch: a real form, a 303 back to the page it was on.
    page = browser.get("/stats", headers=ZH).text
    assert 'action="/settings/language"' in page and 'name="next" value="/stats"' in page
    r = browser.post("/settings/language", {"locale": "en", "next": "/stats"}, headers=ZH)
    assert r.status_code == 303 and r.headers["location"] == "/stats"
    assert lang_of(browser.get("/stats", headers=ZH).text) == "en"  # the choice wins
    privacy = browser.get("/privacy", headers=ZH).text
    assert re.search(r'<option value="en" lang="en" selected>', privacy)

    # The setting is the player's, not only this browser's: a browser of the same player
    # without the language cookie (another device, cookies lost) reads it from the settings.
    cookie_name = next(n for n in browser.http.cookies if n != i18n.LOCALE_COOKIE)
    other = Browser(app)
    other.http.cookies.clear()
    other.http.cookies.set(cookie_name, browser.http.cookies[cookie_name])
    r = other.get("/stats", headers=ZH)
    assert lang_of(r.text) == "en"
    assert f"{i18n.LOCALE_COOKIE}=en" in r.headers.get("set-cookie", "")

    # Following the browser again (the settings' choice): Chinese for a Chinese browser.
    r = browser.post("/settings/language", {"locale": "auto", "next": "/privacy"})
    assert r.status_code == 303
    assert lang_of(browser.get("/privacy", headers=ZH).text) == "zh-CN"
    assert lang_of(browser.get("/privacy").text) == "en"


def test_the_settings_form_saves_the_language(app: FastAPI) -> None:
    browser = Browser(app)
    r = browser.post(
        "/settings", {"save_games": "on", "record_stats": "on", "locale": "zh-CN"}, headers=ZH
    )
    assert r.status_code == 303
    page = browser.get("/privacy", headers={"Accept-Language": "en"}).text
    assert lang_of(page) == "zh-CN"
    assert '<option value="zh-CN" lang="zh-CN" selected>' in page
    assert "你的设置已保存" in browser.get("/privacy?done=settings").text


def test_a_bad_language_or_target_changes_nothing(app: FastAPI) -> None:
    browser = Browser(app)
    r = browser.post("/settings/language", {"locale": "klingon", "next": "/"}, headers=ZH)
    assert r.status_code == 422 and "未知的语言" in r.text  # readable, in the page's language
    assert lang_of(browser.get("/").text) == "en"
    for target in ("https://example.com/", "//example.com/", "/\\example.com", "stats"):
        r = browser.post("/settings/language", {"locale": "zh-CN", "next": target})
        assert r.status_code == 303 and r.headers["location"] == "/", target


def test_numbers_and_dates_follow_the_language() -> None:
    day = date(2026, 12, 7)
    token = i18n.current_locale.set("en")
    try:
        assert i18n.format_day(day) == "Dec 7, 2026"
        assert i18n.format_number(1234567) == "1,234,567"
        assert i18n.format_percentage(0.256) == "26%"
        i18n.current_locale.set("zh-CN")
        assert i18n.format_day(day) == "2026年12月7日"
        assert i18n.format_short_day(day) == "12月7日"
        assert i18n.format_number(1234567) == "1,234,567"
        assert i18n.format_percentage(None) == "–"
    finally:
        i18n.current_locale.reset(token)


def test_the_daily_page_writes_its_day_in_the_language(app: FastAPI) -> None:
    browser = Browser(app)
    day = today()
    en = browser.get("/daily/scorpion").text
    zh = browser.get("/daily/scorpion", headers=ZH).text
    assert f"<title>Scorpion daily deal, {day:%b} {day.day}, {day.year} ·" in en
    assert f"{day.year}年{day.month}月{day.day}日" in zh and "蝎子每日牌局" in zh
    # A day with no daily deal: the service's reason, in the page's language.
    r = browser.get("/daily/scorpion/2020-01-05", headers=ZH)
    assert r.status_code == 404 and "那一天没有人玩过每日牌局" in r.text


def test_the_json_api_stays_english(app: FastAPI) -> None:
    browser = Browser(app)
    r = browser.http.get("/api/games/no-such-game", headers=ZH)
    assert r.status_code == 404
    detail = r.json()["detail"]
    assert detail.isascii() and "game" in detail.lower()
    r = browser.http.post(
        "/api/games",
        json={"variant": "scorpion", "deal_number": 0},
        headers={**ZH, "X-CSRF-Token": browser.token},
    )
    assert r.status_code == 422
    assert r.json()["detail"].isascii() and "deal number" in r.json()["detail"].lower()


def test_screen_reader_words_on_the_board_are_chinese(app: FastAPI) -> None:
    browser = Browser(app)
    gid = browser.new_game("scorpion", deal_number=57)
    page = browser.get(f"/games/{gid}", headers=ZH).text
    game = Game.new("scorpion", deal_from_number(57, "scorpion"))
    top = game.public_view().columns[0][-1]
    assert top is not None
    suit = {"S": "黑桃", "H": "红心", "D": "方块", "C": "梅花"}[top[1]]
    rank = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}.get(top[0], top[0])
    assert f'aria-label="{suit}{rank}"' in page  # a card's name
    assert 'aria-label="背面朝上的牌"' in page
    assert "第 1 列" in page and "已完成：0/4 套" in page

    # A move, answered to htmx: its words in Chinese on the aria-live message line.
    move = next(m for m in game.hints() if m.from_pile == "column")
    moved = browser.post(
        f"/games/{gid}/move",
        {
            "from_column": move.from_column,
            "from_index": move.from_index,
            "to_column": move.to_column,
            "version": version_of(page),
        },
        headers={**HTMX, **ZH},
    )
    said = re.search(r'<hx-partial hx-target="#message"[^>]*>(.*?)</hx-partial>', moved.text)
    assert said and "已将" in said.group(1) and f"第 {move.from_column + 1} 列" in said.group(1)
    r = browser.get(f"/games/{gid}", headers=ZH)
    assert r.status_code == 200
    answer = browser.post(
        f"/games/{gid}/undo", {"version": version_of(r.text)}, headers={**HTMX, **ZH}
    )
    assert answer.status_code == 200
    message = re.search(r'<hx-partial hx-target="#message"[^>]*>(.*?)</hx-partial>', answer.text)
    assert message and "已撤销" in message.group(1), answer.text[:500]
    assert answer.headers["content-language"] == "zh-CN"
    # The same words in English for an English browser: the caches keep languages apart.
    again = browser.get(f"/games/{gid}", headers={"Accept-Language": "en"}).text
    assert 'aria-label="face-down card"' in again and "背面朝上" not in again


def test_a_refused_move_is_explained_in_chinese(app: FastAPI) -> None:
    browser = Browser(app)
    gid = browser.new_game("scorpion", deal_number=57)
    page = browser.get(f"/games/{gid}", headers=ZH).text
    # A face-down card cannot be picked up: the engine's English refusal, shown translated.
    r = browser.post(
        f"/games/{gid}/move",
        {"from_column": 0, "from_index": 0, "to_column": 4, "version": version_of(page)},
        headers={**HTMX, **ZH},
    )
    assert r.status_code == 200
    assert "背面朝上的牌不能移动" in r.text, r.text
    # The same refusal from the JSON API: English.
    api = browser.http.post(
        f"/api/games/{gid}/moves",
        json={"from_column": 0, "from_index": 0, "to_column": 4},
        headers={**ZH, "X-CSRF-Token": browser.token},
    )
    assert api.status_code == 422
    assert api.json()["detail"] == "A face-down card cannot be moved."


def test_the_settings_page_mends_a_device_whose_cookie_is_stale(app: FastAPI) -> None:
    """The language changed on another device of the player: this device's cookie still says
    the old one; the privacy & settings page shows the stored choice and mends the cookie."""
    browser = Browser(app)
    browser.post("/settings/language", {"locale": "zh-CN", "next": "/"})
    cookie_name = next(n for n in browser.http.cookies if n != i18n.LOCALE_COOKIE)
    other = Browser(app)
    other.http.cookies.clear()
    other.http.cookies.set(cookie_name, browser.http.cookies[cookie_name])
    assert lang_of(other.get("/").text) == "zh-CN"
    browser.post("/settings/language", {"locale": "en", "next": "/"})  # the first device
    page = other.get("/privacy")
    assert lang_of(page.text) == "en"
    assert f"{i18n.LOCALE_COOKIE}=en" in page.headers["set-cookie"]
    assert lang_of(other.get("/stats").text) == "en"


def test_a_missing_compiled_catalog_is_compiled_from_its_po(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A checkout not installed since its catalog changed has no .mo: the site still speaks
    Chinese (the .po compiled in memory) and says so in its log."""
    monkeypatch.setattr(i18n, "mo_path", lambda locale: tmp_path / "missing.mo")
    i18n.translations.cache_clear()
    token = i18n.current_locale.set("zh-CN")
    try:
        with caplog.at_level("WARNING", logger="app.i18n"):
            assert i18n.gettext("Skip to content") == "跳到正文"
        assert any("compiling" in r.getMessage() for r in caplog.records)
    finally:
        i18n.current_locale.reset(token)
        i18n.translations.cache_clear()


def test_template_gettext_escapes_arguments_and_keeps_languages_apart() -> None:
    """The templates' ``_()`` (app/web/templating.py: Jinja's newstyle semantics, faster): the
    message's own HTML kept, its arguments escaped, ``%%`` a percent sign, plurals, and the
    per-locale memo never answering one language with another's text."""
    from app.web.templating import templates

    page = templates.env.from_string(
        '{{ _("Rules of %(title)s", title="<b>") }}|{{ _("95%% confidence interval") }}|'
        '{{ ngettext("%(num)d move made", "%(num)d moves made", 2) }}|{{ _("Skip to content") }}'
    )
    token = i18n.current_locale.set("en")
    try:
        assert (
            page.render()
            == "Rules of &lt;b&gt;|95% confidence interval|2 moves made|Skip to content"
        )
        i18n.current_locale.set("zh-CN")
        assert page.render() == "&lt;b&gt;的规则|95% 置信区间|已走 2 步|跳到正文"
        i18n.current_locale.set("en")
        assert page.render().endswith("|Skip to content")
    finally:
        i18n.current_locale.reset(token)


def test_filters_on_constants_follow_the_request_language() -> None:
    """A filter applied to a constant is not folded at compile time in one language."""
    from app.web.templating import templates

    page = templates.env.from_string('{{ "Scorpion"|t }} {{ 0.5|percent }}')
    token = i18n.current_locale.set("zh-CN")
    try:
        assert page.render() == "蝎子 50%"
        i18n.current_locale.set("en")
        assert page.render() == "Scorpion 50%"
    finally:
        i18n.current_locale.reset(token)


def test_the_scripts_texts_are_in_the_page_language(app: FastAPI) -> None:
    """board.js's words (picking up a card, the confirmation) come with the page, translated."""
    browser = Browser(app)
    page = browser.get("/", headers=ZH).text
    m = re.search(r'<div id="js-text" hidden data-texts="([^"]+)"', page)
    assert m
    import html
    import json

    texts = json.loads(html.unescape(m.group(1)))
    assert texts["Put back."] == "已放回。"
    assert texts[" with the card on it"] == "连同其上的 1 张牌"
    assert texts[" with the {n} cards on it"] == "连同其上的 {n} 张牌"
    assert all(value for value in texts.values())
    assert all(not value.isascii() for key, value in texts.items() if key != "card")
