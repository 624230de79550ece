"""The translation catalogs are complete (issue 33: "a check fails the build when a template
string is not in the catalog"), and no English is left on a page rendered in Chinese.

Two checks, for two kinds of mistakes:

- a text wrapped in ``_()`` (a template, ``app/**.py``) that the catalog lacks, leaves
  untranslated or marks fuzzy, or a ``messages.pot`` older than the code
  (``scripts/i18n.py --check``, Babel's own extraction with ``babel.cfg``): run
  ``make i18n`` and translate;
- a text never wrapped at all: every page (and the play page's states, the htmx answers, the
  error pages) rendered in zh-CN holds no English words outside a short list of names the
  Chinese text keeps as they are (``HttpOnly``, ``UTC``, the keys' names...).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po
from fastapi import FastAPI

from app.engine import Game, deal_from_number
from scripts import i18n as catalogs
from tests.support.html_client import HTMX, Browser, version_of

ZH = {"Accept-Language": "zh-CN", "Accept": "text/html"}
KNOWN_WIN: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "known_wins.json").read_text()
)[0]


def test_the_catalogs_hold_every_message_translated() -> None:
    problems = catalogs.problems()
    assert problems == [], "\n".join(problems[:40]) + "\n(run `make i18n`, then translate)"


def test_every_template_message_is_extracted_and_translated() -> None:
    """The template messages alone, counted: the extraction sees every template (one that
    cannot be parsed fails it) and each message is in the Chinese catalog."""
    template = catalogs.extract()
    zh = catalogs.read_catalog("zh_CN")
    seen_templates = {
        loc[0] for m in template for loc in m.locations if loc[0].startswith("templates/")
    }
    on_disk = {
        str(p.relative_to(catalogs.ROOT))
        for p in (catalogs.ROOT / "templates").rglob("*.html")
        if "_(" in p.read_text() or "gettext(" in p.read_text()
    }
    assert on_disk and on_disk <= seen_templates
    for m in template:
        if not any(loc[0].startswith("templates/") for loc in m.locations):
            continue
        entry = zh.get(m.id, context=m.context)
        assert entry is not None and not entry.fuzzy, m.id
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(strings), m.id


def test_the_pot_is_what_extraction_makes_now() -> None:
    """messages.pot is up to date: the same messages as a fresh extraction."""
    with catalogs.POT.open("rb") as f:
        pot = read_po(f)
    fresh = catalogs.extract()
    assert {m.id for m in pot if m.id} == {m.id for m in fresh if m.id}


def test_the_check_catches_a_missing_translation(tmp_path: Path, monkeypatch: Any) -> None:
    """The check itself can fail: a catalog without one translation is reported."""
    zh = catalogs.po_path("zh_CN")
    text = zh.read_text(encoding="utf-8")
    broken = text.replace('msgstr "跳到正文"', 'msgstr ""', 1)
    assert broken != text
    fake = tmp_path / "zh_CN" / "LC_MESSAGES" / "messages.po"
    fake.parent.mkdir(parents=True)
    fake.write_text(broken, encoding="utf-8")
    monkeypatch.setattr(
        catalogs, "po_path", lambda locale: tmp_path / locale / "LC_MESSAGES" / "messages.po"
    )
    assert catalogs.problems() == ["zh_CN: untranslated 'Skip to content'"]


def test_the_check_enforces_the_glossary(tmp_path: Path, monkeypatch: Any) -> None:
    """docs/glossary-zh.md's rejected renderings (issue 41's review): the catalog uses none,
    and a translation that does (大一点 for "one higher", 关联代码, 对局...) is reported."""
    rejected = {written for written, _, _ in catalogs.glossary("zh_CN")}
    assert {"大一点", "关联代码", "对局", "比赛", "单击移动", "一键移动", "顺子"} <= rejected
    zh = catalogs.po_path("zh_CN")
    text = zh.read_text(encoding="utf-8")
    good = "（点数大 1、颜色不同）"
    assert good in text
    broken = text.replace(good, "（大一点，颜色不同）", 1).replace("一键移牌", "单击移动", 1)
    fake = tmp_path / "zh_CN" / "LC_MESSAGES" / "messages.po"
    fake.parent.mkdir(parents=True)
    fake.write_text(broken, encoding="utf-8")
    monkeypatch.setattr(
        catalogs, "po_path", lambda locale: tmp_path / locale / "LC_MESSAGES" / "messages.po"
    )
    found = catalogs.problems()
    assert len(found) == 2, found
    assert any("'大一点'" in line and "点数大 1" in line for line in found), found
    assert any("'单击移动'" in line and "一键移牌" in line for line in found), found


def test_the_replays_play_button_is_not_the_nav_link(app: FastAPI) -> None:
    """The replay's play button (播放, beside 暂停) and the nav bar's "Play" (开始玩) are two
    messages (a message context), in Chinese as a player reads them."""
    browser = Browser(app)
    gid = browser.new_game("scorpion", deal=KNOWN_WIN["deal"])
    version = version_of(browser.get(f"/games/{gid}").text)
    for action in KNOWN_WIN["line"]:
        assert browser.act(gid, tuple(action), version).status_code == 303
        version += 1
    page = browser.get(f"/games/{gid}/replay?step=3", headers=ZH).text
    button = re.search(r'<a class="button primary" id="play"[^>]*>([^<]*)</a>', page)
    assert button is not None and button.group(1) == "播放"
    assert re.search(r'<a href="/"[^>]*>开始玩</a>', page)
    english = browser.get(f"/games/{gid}/replay?step=3").text
    assert re.search(r'id="play"[^>]*>Play</a>', english)


# -- no English left on a Chinese page -------------------------------------------------------

# Words the Chinese text keeps as they are: names of keys, cookies' attributes, formats,
# the language switch's "English", the roman numeral of "蝎子 II".
ALLOWED = {
    "English",
    "II",
    "UTC",
    "JSON",
    "HttpOnly",
    "SameSite",
    "Lax",
    "Cookie",
    "JavaScript",
    "Tab",
    "Enter",
    "Esc",
    "Ctrl",
    "IP",
    "IPv",  # (IPv6: the word pattern stops at the digit)
    "YYYY",
    "MM",
    "DD",
    # a device's name: a browser's and a system's (the privacy page's devices and its example)
    "Chromium",
    "Linux",
}
WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")
DEFAULT_NAME = re.compile(r"\bPlayer [0-9A-F]{4}\b")  # a player's default display name
SHOWN_ATTRS = ("aria-label", "title", "alt", "placeholder")


class _Text(HTMLParser):
    """The text a reader sees or hears: element text and the spoken attributes, outside
    scripts, styles, code and the card sprite."""

    SKIP = {"script", "style", "code", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self._skip += 1
        for name, value in attrs:
            if name in SHOWN_ATTRS and value:
                self.parts.append(value)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in SHOWN_ATTRS and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data)


def english_words(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    found = []
    for part in parser.parts:
        part = DEFAULT_NAME.sub("", part)
        found.extend(w for w in WORD.findall(part) if w not in ALLOWED)
    return found


def test_the_scan_finds_english() -> None:
    """The scan itself can fail: English text or an English label is found, code is not."""
    assert english_words('<p title="Undo">撤销 <code>AS 7H</code></p>') == ["Undo"]
    assert english_words("<p>已移动 the card</p>") == ["the", "card"]
    assert english_words('<p aria-label="红心7">红心7 UTC</p>') == []


def _pages(app: FastAPI) -> dict[str, str]:
    """Every kind of page in zh-CN: the site's pages, the play page in its states (a card
    picked up, hints, reserves and cells, a refusal, a win and its replay), htmx answers and
    error pages."""
    browser = Browser(app)
    out: dict[str, str] = {}

    def get(path: str, **kw: Any) -> str:
        r = browser.get(path, headers={**ZH, **kw.pop("headers", {})}, **kw)
        assert r.headers.get("content-language") == "zh-CN", (path, r.status_code, r.text[:300])
        out[path] = r.text
        return r.text

    for path in ("/", "/rules", "/privacy", "/daily/scorpion", "/deal/42", "/no-such-page"):
        get(path)
    get("/games/no-such-game")
    # A game of each kind of board, with a card picked up and with hints.
    for variant, number in (("scorpion", 57), ("how-they-run", 7), ("scorpion-head", 3)):
        gid = browser.new_game(variant, deal_number=number)
        page = get(f"/games/{gid}")
        game = Game.new(variant, deal_from_number(number, variant))
        get(f"/games/{gid}?hint=1")
        move = next((m for m in game.hints() if m.from_pile == "column"), None)
        if move is not None:
            get(f"/games/{gid}?select={move.from_column}-{move.from_index}")
            r = browser.post(
                f"/games/{gid}/move",
                {
                    "from_column": move.from_column,
                    "from_index": move.from_index,
                    "to_column": move.to_column,
                    "version": version_of(page),
                },
                headers={**HTMX, **ZH},
            )
            out[f"htmx move {variant}"] = r.text
        refused = browser.post(
            f"/games/{gid}/move",
            {"from_column": 0, "from_index": 0, "to_column": 1, "version": version_of(page)},
            headers={**HTMX, **ZH},
        )
        out[f"htmx refusal {variant}"] = refused.text
    # A won game: the win panel, its replay, the statistics with their rows.
    gid = browser.new_game("scorpion", deal=KNOWN_WIN["deal"])
    version = version_of(browser.get(f"/games/{gid}").text)
    for action in KNOWN_WIN["line"]:
        r = browser.act(gid, tuple(action), version)
        assert r.status_code == 303
        version = version_of(browser.get(f"/games/{gid}").text)
    won = get(f"/games/{gid}")
    assert 'id="win"' in won
    get(f"/games/{gid}/replay")
    get(f"/games/{gid}/replay?step=3")
    browser.new_game("wasp")
    browser.new_game("wasp")  # the first one given up: a row of its own
    get("/stats")
    # A challenge of the won game.
    r = browser.post(f"/games/{gid}/challenge")
    assert r.status_code == 303
    get(r.headers["location"])
    return out


def test_no_english_is_left_on_a_chinese_page(app: FastAPI) -> None:
    leftovers = {
        name: words for name, html in _pages(app).items() if (words := english_words(html))
    }
    assert leftovers == {}, "\n".join(f"{k}: {v[:20]}" for k, v in leftovers.items())
