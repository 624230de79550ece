"""The pages of issue 41's item 3: a dealt layout nobody touched is not a game yet (its clock
stands at 0:00, and nothing asks before replacing it), the first move or solver answer starts
it, and the daily deal gives up nothing (its page asks nothing)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tests.support.html_client import HTMX, Browser, version_of

KNOWN_WIN: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "known_wins.json").read_text()
)[0]


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


def _head(html: str) -> dict[str, str]:
    m = re.search(r'<dd id="game-head"([^>]*)><time id="clock"([^>]*)>([^<]*)</time>', html)
    assert m, html[:500]
    attrs = dict(re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1) + m.group(2)))
    return {**attrs, "text": m.group(3)}


def _new_deal_form(home: str, variant: str = "scorpion") -> str:
    m = re.search(r'<li[^>]*id="pick-' + variant + r'".*?</li>', home, re.S)
    assert m
    form = re.search(r'<form method="post" action="/games"[^>]*>', m.group(0))
    assert form
    return form.group(0)


def test_an_untouched_layout_is_not_a_game_until_its_first_move(browser: Browser) -> None:
    gid = browser.new_game(deal=KNOWN_WIN["deal"])
    head = _head(browser.get(f"/games/{gid}").text)
    assert (head["started"], head["running"], head["elapsed"], head["text"]) == (
        "false",
        "false",
        "0",
        "0:00",
    )
    assert "data-confirm" not in _new_deal_form(browser.get("/").text)

    r = browser.act(gid, tuple(KNOWN_WIN["line"][0]), 1, headers=HTMX)
    assert r.status_code == 200
    head = _head(r.text)
    assert (head["started"], head["running"]) == ("true", "true")
    assert 'data-confirm="new"' in _new_deal_form(browser.get("/").text)
    # The daily deal keeps its own game: its page asks nothing before playing it.
    daily = browser.get("/daily/scorpion").text
    form = re.search(r'<form method="post" action="/daily/scorpion"[^>]*>', daily)
    assert form and "data-confirm" not in form.group(0)


def test_a_solver_answer_starts_the_game_on_the_page(browser: Browser) -> None:
    gid = browser.new_game(deal=KNOWN_WIN["deal"])
    version = version_of(browser.get(f"/games/{gid}").text)
    r = browser.post(f"/games/{gid}/winnable", {"version": version}, headers=HTMX)
    assert r.status_code == 200 and "Still winnable" in r.text
    assert _head(r.text)["started"] == "true"
