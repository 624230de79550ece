"""The play page keeps rendered markup (``templates/partials/board.html``: each column, by
``{% cache %}``; ``app/web/view.py``: columns and cards as data) so that an answer or a page renders
only the columns a move changed. A cache is right only if what it hands out is what a fresh
render would draw: these tests play games through the pages, with picked-up cards and hints in
between (their flags change a card's markup), and compare every column with one rendered from
empty caches."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from app.engine import Game, deal_from_number
from app.web import view
from app.web.templating import templates
from tests.support.html_client import Browser, version_of

COLUMN = re.compile(r'<div class="col[^"]*" id="col-(\d+)".*?\n</div>', re.S)
PARTIAL = re.compile(r'<hx-partial hx-target="#col-(\d+)">(.*?)</hx-partial>', re.S)


CARD = re.compile(r'\n<(a|i) class="card\b.*?</\1>', re.S)


def without_kept(html: str, keep: int) -> str:
    """A column's markup without its ``keep`` deepest cards (those an answer leaves to the
    page), marked as an answer marks them (``data-keep``)."""
    if not keep:
        return html
    head = html.index(" role=")
    html = html[:head] + f" data-keep={keep}" + html[head:]
    for _ in range(keep):
        m = CARD.search(html)
        assert m is not None
        html = html[: m.start()] + html[m.end() :]
    return html


def columns(html: str) -> dict[str, str]:
    return {m.group(1): m.group(0) for m in COLUMN.finditer(html)}


def fresh(browser: Browser, path: str) -> dict[str, str]:
    """The page's columns rendered with every markup cache empty."""
    templates.env.fragment_cache.clear()  # type: ignore[attr-defined]
    view._column.cache_clear()
    view._card.cache_clear()
    return columns(browser.get(path).text)


@pytest.mark.parametrize(("variant", "number"), [("scorpion", 57), ("how-they-run", 7)])
def test_cached_columns_are_what_a_fresh_render_draws(
    app: FastAPI, variant: str, number: int
) -> None:
    browser = Browser(app)
    gid = browser.new_game(variant, deal_number=number)
    game = Game.new(variant, deal_from_number(number, variant))
    version = version_of(browser.get(f"/games/{gid}").text)
    checked = 0
    for k in range(60):
        moves = [m for m in game.hints() if m.from_pile == "column"]
        if moves:
            m = moves[k % len(moves)]
            # the page with that card picked up, then with the hints shown: both flag cards
            picked = f"/games/{gid}?select={m.from_column}-{m.from_index}"
            page = columns(browser.get(picked).text)
            assert " sel" in page[str(m.from_column)]
            assert page == fresh(browser, picked)
            hinted = f"/games/{gid}?hint=1"
            assert columns(browser.get(hinted).text) == fresh(browser, hinted)
            action: tuple[object, ...] = ("move", m.from_column, m.from_index, m.to_column)
        elif game.can_deal:
            action = ("deal",)
        else:
            break
        r = browser.act_htmx(gid, game, action, version)
        version += 1
        # every column the answer re-sends is the page's column, as a fresh render draws it
        sent = dict(PARTIAL.findall(r.text))
        assert sent, r.text[:300]
        page = fresh(browser, f"/games/{gid}")
        for c, html in sent.items():
            keep = re.search(r" data-keep=(\d+) ", html[:200])
            assert html == without_kept(page[c], int(keep.group(1)) if keep else 0), (k, c)
            checked += 1
        # and the page drawn from the caches is the same
        assert columns(browser.get(f"/games/{gid}").text) == page
        if game.public_view().status != "playing":
            break
    assert checked >= 40
