"""An htmx answer re-sends the parts of the play page an action changed (play.html's ``update``
block, with the macros of ``templates/partials/board.html`` the page calls too). What a player
sees after an answer must be what the page shows when reloaded: these tests play catalogued
wins of four variants (cells, reserves, completed runs, the toolbar and the ending at the win)
through htmx, with undo and redo, and compare every part of every answer with the same element
of the page fetched right after it."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi import FastAPI

from app.engine import Game, deal_from_number
from app.engine.solver import winnable_deals, winning_line
from app.web.game.view import board_view
from app.web.site.templating import templates
from tests.support.html_client import HTMX, Browser, version_of

PARTIAL = re.compile(
    r'<hx-partial hx-target="#([\w-]+)"( hx-swap="innerHTML")?>(.*?)</hx-partial>', re.S
)


class _Element(HTMLParser):
    """The outer HTML of the element with a given id (its start tag to its matching end)."""

    VOID = frozenset({"input", "use", "br", "img", "meta", "link"})

    def __init__(self, html: str, element_id: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html, self.id = html, element_id
        self.lines = [0]
        for line in html.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.start = self.end = -1
        self.depth = 0
        self.feed(html)

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        if self.start < 0 and ("id", self.id) in attrs:
            self.start, self.depth = self._offset(), 1
        elif self.start >= 0 and self.end < 0:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or self.start < 0 or self.end >= 0:
            return
        self.depth -= 1
        if self.depth == 0:
            self.end = self.html.index(">", self._offset()) + 1

    @property
    def outer(self) -> str:
        assert self.start >= 0 and self.end > 0, f"no element #{self.id}"
        return self.html[self.start : self.end]


def squeezed(html: str) -> str:
    """Markup with its layout whitespace and the clock's running seconds left out."""
    html = re.sub(r'(data-elapsed="|datetime="PT)\d+', r"\1", html)
    html = re.sub(r'(<time id="clock"[^>]*>)[^<]*', r"\1", html)
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


CARD = re.compile(r'<(a|i) class="card\b.*?</\1>', re.S)
KEEP = re.compile(r'^(<div class="col[^>]*?) data-keep=(\d+)([^>]*>)')


def with_kept_cards(html: str, shown: str) -> str:
    """A column of an answer as static/js/board.js swaps it in: the deepest cards it leaves
    out (``data-keep``) taken from the column the page showed (``shown``)."""
    m = KEEP.match(html)
    if m is None:
        return html
    kept = [c.group(0) for c in CARD.finditer(shown)][: int(m.group(2))]
    assert len(kept) == int(m.group(2)), "the page does not hold the cards the answer keeps"
    return m.group(1) + m.group(3) + "".join(kept) + html[m.end() :]


def play(browser: Browser, gid: str, action: tuple[Any, ...], version: int) -> str:
    kind = action[0]
    if kind != "move":
        r = browser.post(f"/games/{gid}/{kind}", {"version": version}, headers=HTMX)
    else:
        fp, tp = action[4:6] if len(action) > 4 else ("column", "column")
        data: dict[str, Any] = {"from_column": action[1], "from_index": action[2]}
        data["version"] = version
        if fp != "column":
            data["from_pile"] = fp
        data["to_cell" if tp == "cell" else "to_column"] = action[3]
        r = browser.post(f"/games/{gid}/move", data, headers=HTMX)
    assert r.status_code == 200 and "<hx-partial" in r.text, r.text[:300]
    return str(r.text)


@pytest.mark.parametrize(
    "variant", ["scorpion", "how-they-run", "scorpion-head", "three-blind-mice"]
)
def test_every_answer_is_the_page_reloaded(app: FastAPI, variant: str) -> None:
    browser = Browser(app)
    number = winnable_deals(variant)[0]
    line = winning_line(variant, number)
    assert line
    gid = browser.new_game(variant, deal_number=number)
    version = version_of(browser.get(f"/games/{gid}").text)
    seen: set[str] = set()
    steps: list[tuple[Any, ...]] = []
    for k, action in enumerate(line):
        steps.append(action)
        if k % 7 == 3 and k < len(line) - 1:  # (a won game cannot be undone)
            steps += [("undo",), ("redo",)]
    page = browser.get(f"/games/{gid}").text
    for action in steps:
        answer = play(browser, gid, action, version)
        version += 1
        shown, page = page, browser.get(f"/games/{gid}").text
        assert version_of(page) == version
        for target, inner, html in PARTIAL.findall(answer):
            seen.add(re.sub(r"\d+$", "N", target))
            if inner:  # the message line: the page reloaded drops the action's words
                continue
            if "data-keep=" in html[:300]:
                seen.add("kept")
                html = with_kept_cards(html, _Element(shown, target).outer)
            assert squeezed(html) == squeezed(_Element(page, target).outer), (action, target)
    # every kind of part was re-sent at least once
    expected = {"moves", "game-head", "message", "board-fields", "col-N", "ending", "toolbar"}
    expected |= {"foundation", "undo-btn", "redo-btn", "kept"}
    if variant in ("how-they-run", "scorpion-head", "three-blind-mice"):
        expected.add("piles")
    assert expected <= seen


def test_the_message_line_escapes_what_it_shows() -> None:
    game = Game.new("scorpion", deal_from_number(1, "scorpion"))
    now = datetime.now(UTC)
    b = board_view(
        game_id="g",
        variant="scorpion",
        deal_number=1,
        version=1,
        view=game.public_view(),
        stuck=False,
        can_deal=True,
        started_at=now,
        finished_at=None,
        csrf_token="t",
        base_url="http://x",
        now=now,
    )
    message_text = templates.env.get_template("partials/board.html").module.message_text
    shown = str(message_text(replace(b, error='<img src=x onerror="alert(1)">')))
    assert "<img" not in shown and "&lt;img" in shown
    shown = str(message_text(replace(b, notice="Moved <b>&</b>")))
    assert shown == '<span class="notice">Moved &lt;b&gt;&amp;&lt;/b&gt;</span>'
