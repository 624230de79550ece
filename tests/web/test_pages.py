"""The HTML pages through the real app and database (SQLite and PostgreSQL).

Plain form posts get a 303 back to the page; htmx requests get only the changed blocks; a
refused action says why and changes nothing; no hidden card ever appears in any HTML.
"""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from app.engine import Game, parse_deal
from tests.support.deals import EMPTY_DEAL, EMPTY_LINE, NO_MOVE_DEAL, WIN_DEAL, WIN_LINE
from tests.support.html_client import HTMX, Browser, assert_no_hidden_card, version_of


@pytest.fixture()
def browser(app: FastAPI) -> Browser:
    return Browser(app)


# -- pages render ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,text",
    [
        ("/", "Choose a game"),
        ("/rules", "How to play Scorpion"),
        ("/stats", "Your statistics"),
        ("/privacy", "What is stored, and where"),
        ("/deal/123", "Deal #123"),
    ],
)
def test_pages_render(browser: Browser, path: str, text: str) -> None:
    r = browser.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["vary"] == "HX-Request, Accept-Language"
    assert text in r.text
    assert "<!doctype html>" in r.text.lower()
    assert re.search(r'src="/static/vendor/htmx-4\.0\.1\.min\.[0-9a-f]{12}\.js"', r.text)
    assert "cdn" not in r.text.lower()


def test_rules_page_explains_every_rule(browser: Browser) -> None:
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", browser.get("/rules").text))
    for phrase in [
        "52 cards",
        "Seven columns of seven cards",
        "3 cards form the stock",
        "first three cards dealt, the three deepest, lie face down",
        "last three columns are entirely face up",
        "together with every card lying on top of it",
        "need not be in sequence and need not share a suit",
        "exactly one higher",
        "A seven of hearts may land on an exposed eight of hearts, never on an eight of spades",
        "A King can never land on another card",
        "An empty column accepts only a King, or a group led by a King",
        "moving a whole column whose deepest card is a King into an empty column is allowed",
        "turns face up at once",
        "a card that a move turned up turns face down again",
        "The stock is dealt once",
        "columns 1, 2, 3",
        "even when a column is empty",
        "one undo takes all three cards back",
        "thirteen face-up cards of one suit, King down to Ace",
        "removed automatically",
        "the run under it lies at the open end, completed, and leaves in the same step",
        "out of order is not a run",
        "Four removed runs",
        "does not promise",
        "all the way to the opening layout",
        "starts the same deal again",
        "same number always gives the same layout",
        "52 card codes separated by spaces",
        "Random deals are not guaranteed to be winnable",
        "Scorpion II",
        "Wasp",
        "any card or group",
    ]:
        assert phrase in text, phrase


# -- plain forms (no htmx) ------------------------------------------------------------------------


def test_new_game_then_moves_as_plain_forms(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    page = browser.get(f"/games/{gid}")
    assert page.status_code == 200
    assert page.headers["vary"] == "HX-Request, Accept-Language"
    assert page.headers["cache-control"] == "no-store"
    game = Game.new("scorpion", parse_deal(WIN_DEAL))
    assert_no_hidden_card(page.text, game)
    for k, action in enumerate(WIN_LINE, start=1):
        r = browser.act(gid, action, version=k)
        assert r.status_code == 303, r.text
        assert r.headers["location"] == f"/games/{gid}"
        assert r.headers["vary"] == "HX-Request, Accept-Language"
        game.apply(action)
        page = browser.get(f"/games/{gid}")
        assert_no_hidden_card(page.text, game)
    assert 'id="win"' in page.text
    assert "You won!" in page.text
    assert "17 moves" in page.text


def test_choosing_a_card_without_javascript(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    page = browser.get(f"/games/{gid}?select=0-3").text
    assert 'name="from_column" value="0"' in page
    assert 'name="from_index" value="3"' in page
    assert "Picked up the six of spades with the 3 cards on it" in page
    drops = re.findall(r'<button class="drop" type="submit" name="to_column" value="(\d)"', page)
    assert drops == ["1", "2", "3", "4", "5", "6"]
    assert 'class="card S top sel"' not in page and 'class="card S sel"' in page
    # A face-down card, a missing card or nonsense selects nothing.
    for bad in ("0-0", "0-9", "9-1", "x", "1-2-3", "-1-0"):
        other = browser.get(f"/games/{gid}?select={bad}").text
        assert 'class="drop"' not in other, bad
        assert 'name="from_index"' not in other  # the board's fields name no card


def test_a_card_picked_up_on_a_refusal_page_lands_on_the_game(browser: Browser) -> None:
    """A card's link is relative (``?select=0-3``, a few bytes): on a board shown at an
    action's address (a refusal without JavaScript) it asks that address, which sends the
    browser back to the game with the card picked up."""
    gid = browser.new_game(deal=WIN_DEAL)
    refused = browser.post(
        f"/games/{gid}/move", {"from_column": 0, "from_index": 6, "to_column": 5, "version": 1}
    )
    assert refused.status_code == 422 and 'href="?select=0-3"' in refused.text
    for action in ("move", "deal", "undo", "redo", "winnable", "solver-hint"):
        r = browser.get(f"/games/{gid}/{action}?select=0-3", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}?select=0-3"
    page = browser.get(f"/games/{gid}/move?select=0-3").text
    assert "Picked up the six of spades" in page
    # The solver's answer page without JavaScript: a card picked up there too.
    r = browser.get(f"/games/{gid}/solver?select=0-3", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}?select=0-3"


def test_a_refused_move_without_htmx_shows_the_reason(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    data = {"from_column": 0, "from_index": 6, "to_column": 5, "version": 1}
    r = browser.post(f"/games/{gid}/move", data)
    assert r.status_code == 422
    assert "<header" in r.text  # the full page
    assert (
        "The three of spades can only go on the four of spades, not on the seven of hearts."
        in r.text
    )
    assert version_of(r.text) == 1
    # Missing fields: a readable sentence, nothing changes.
    r = browser.post(f"/games/{gid}/move", {"to_column": 2, "version": 1})
    assert r.status_code == 422
    assert "Choose a face-up card first" in r.text
    assert version_of(browser.get(f"/games/{gid}").text) == 1


def test_stale_version_shows_the_current_position(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    assert browser.act(gid, ("deal",), version=1).status_code == 303
    r = browser.act(gid, ("undo",), version=1, headers=HTMX)
    assert r.status_code == 200  # htmx swaps the current position in; no failed request
    assert r.text.lstrip().startswith('<div id="game"')
    assert "changed in another tab" in r.text
    assert version_of(r.text) == 2
    r = browser.act(gid, ("undo",), version=1)
    assert r.status_code == 409
    assert "<header" in r.text


# -- htmx: only the changed blocks ----------------------------------------------------------------


def partial_targets(body: str) -> list[str]:
    return re.findall(r'<hx-partial hx-target="([^"]+)"', body)


def test_htmx_actions_get_only_what_changed(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    game = Game.new("scorpion", parse_deal(WIN_DEAL))
    expected_columns = [["#col-0", "#col-1", "#col-2"], ["#col-0", "#col-4"], ["#col-0", "#col-4"]]
    for k, action in enumerate(WIN_LINE[:3], start=1):
        r = browser.act(gid, action, version=k, headers=HTMX)
        assert r.status_code == 200
        assert r.headers["vary"] == "HX-Request, Accept-Language"
        body = r.text.strip()
        assert "<html" not in body and "<header" not in body and "<head>" not in body
        assert 'id="game"' not in body and "hx-swap-oob" not in body
        targets = partial_targets(body)
        columns = [t for t in targets if t.startswith("#col-")]
        assert columns == expected_columns[k - 1]
        # The status (moves, clock, version) always; the stock only when it changes (the
        # deal), the completed runs only when one completes (the spades, third); a tool only
        # when what it offers changes (the first action makes undo possible).
        stock = ["#deal-btn"] if k == 1 else []
        runs = ["#foundation"] if k == 3 else []
        tools = ["#undo-btn"] if k == 1 else []
        assert [t for t in targets if not t.startswith("#col-")] == [
            *stock,
            "#moves",
            "#game-head",
            *runs,
            *tools,
            "#message",
            "#board-fields",
            "#ending",
        ]
        # Nothing outside the partials (an empty main swap).
        assert re.sub(r"<hx-partial.*?</hx-partial>", "", body, flags=re.S).strip() == ""
        assert f'data-version="{k + 1}"' in body
        game.apply(action)
        assert_no_hidden_card(body, game, whole_board=False)
    assert "Moved the ace of spades from column 1 to column 5." in body
    assert "The spades are complete and removed." in body
    assert "Turned up the five of clubs in column 1." in body
    # The whole page afterwards agrees with the engine.
    assert_no_hidden_card(browser.get(f"/games/{gid}").text, game)


def test_htmx_refusal_is_the_message_alone(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    data = {"from_column": 3, "from_index": 3, "to_column": 4, "version": 1}
    r = browser.post(f"/games/{gid}/move", data, headers=HTMX)
    # An answer, not a failure (a browser logs a 4xx as a failed request): 200, routed by the
    # server to the message line.
    assert r.status_code == 200
    assert r.headers["HX-Retarget"] == "#message"
    assert r.headers["HX-Reswap"] == "innerHTML"
    assert r.text.strip() == (
        '<span class="error">The king of clubs cannot go on another card: a King can only '
        "move to an empty column.</span>"
    )
    r = browser.post(f"/games/{gid}/redo", {"version": 1}, headers=HTMX)
    assert r.status_code == 200 and r.headers["HX-Retarget"] == "#message"
    assert "There is nothing to redo." in r.text
    # The play page's forms route these answers to the message: hx-status on the game block.
    page = browser.get(f"/games/{gid}").text
    assert 'hx-status:422:inherited="target:#message swap:innerHTML"' in page
    assert version_of(page) == 1


def test_hints_list_every_useful_move(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    r = browser.get(f"/games/{gid}?hint=1", headers=HTMX)
    assert r.status_code == 200
    assert r.text.lstrip().startswith('<div id="game"')
    assert "3 useful moves, and the deal:" in r.text
    assert "the six of spades and the 3 cards on it from column 1 onto the seven of spades" in (
        r.text
    )
    assert r.text.count("hint-src") == 4  # three groups and the stock
    assert len(re.findall(r'class="col hint-dst"', r.text)) == 3


def test_hint_says_when_no_move_is_left(browser: Browser) -> None:
    gid = browser.new_game(deal_number=NO_MOVE_DEAL)
    page = browser.get(f"/games/{gid}?hint=1").text
    assert "No move is left on the board. Deal the stock (3 cards) to go on." in page
    assert browser.act(gid, ("deal",), version=1).status_code == 303
    page = browser.get(f"/games/{gid}?hint=1").text
    assert "No move is left and the stock is empty: restart this deal or start a new game." in (
        page
    )
    assert "Restart this deal" in page  # the stuck panel offers both
    game = Game.new("scorpion", _deal_of(NO_MOVE_DEAL))
    game.deal()
    assert_no_hidden_card(page, game)


def _deal_of(number: int) -> tuple[int, ...]:
    from app.engine import deal_from_number

    return deal_from_number(number)


def test_deal_onto_an_empty_column(browser: Browser) -> None:
    gid = browser.new_game(deal=EMPTY_DEAL)
    for k, action in enumerate(EMPTY_LINE[:4], start=1):
        assert browser.act(gid, action, version=k).status_code == 303
    page = browser.get(f"/games/{gid}").text
    assert "K only" in page
    r = browser.act(gid, ("deal",), version=5, headers=HTMX)
    assert r.status_code == 200
    assert "Dealt the stock onto columns 1, 2 and 3: two of spades" in r.text
    assert "Stock empty" in r.text


# -- replay, share links, other players -----------------------------------------------------------


def test_replay_of_a_won_game(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    # a game in progress has its replay too (issue 40: its review is offered under it)
    early = browser.get(f"/games/{gid}/replay")
    assert early.status_code == 200 and "0 / 0" in early.text
    assert "a review marks it assisted" in early.text
    for k, action in enumerate(WIN_LINE, start=1):
        browser.act(gid, action, version=k)
    game = Game.new("scorpion", parse_deal(WIN_DEAL))
    page = browser.get(f"/games/{gid}/replay")
    assert page.status_code == 200
    assert "0 / 17" in page.text
    assert_no_hidden_card(page.text, game)
    for step, action in enumerate(WIN_LINE, start=1):
        game.apply(action)
        r = browser.get(f"/games/{gid}/replay?step={step}&play=1", headers=HTMX)
        assert r.status_code == 200
        assert r.text.lstrip().startswith('<div id="replay"')
        assert_no_hidden_card(r.text, game)
        if step < len(WIN_LINE):
            assert f'hx-get="/games/{gid}/replay?step={step + 1}&amp;play=1"' in r.text
    assert 'hx-trigger="load delay' not in r.text  # the last step stops
    # Without JavaScript, "play" steps on by a refresh, and stops at the end too.
    page = browser.get(f"/games/{gid}/replay?step=3&play=1").text
    assert f'url=/games/{gid}/replay?step=4&amp;play=1"' in page
    assert 'http-equiv="refresh"' not in browser.get(f"/games/{gid}/replay?step=17&play=1").text


def test_deal_links(browser: Browser) -> None:
    page = browser.get("/deal/4242").text
    assert 'name="deal_number" value="4242"' in page
    r = browser.post("/games", {"deal_number": "4242", "variant": "scorpion"})
    assert r.status_code == 303
    play = browser.get(r.headers["location"]).text
    assert 'href="http://testserver/deal/4242"' in play
    for bad in ("0", "4294967296", "abc", "-5"):
        r = browser.get(f"/deal/{bad}")
        assert r.status_code == 404
        assert "Deal numbers run from 1 to 4294967295" in r.text


def test_bad_input_on_the_start_page(browser: Browser) -> None:
    r = browser.post("/games", {"deal": "AS AS", "variant": "scorpion"})
    assert r.status_code == 422
    assert "appears twice" in r.text
    assert "AS AS</textarea>" in r.text
    r = browser.post("/games", {"deal_number": "twelve", "variant": "scorpion"})
    assert r.status_code == 422
    assert "A deal number is a whole number" in r.text
    r = browser.post("/games", {"variant": "chess"})
    assert r.status_code == 422
    assert "There is no variant called" in r.text
    assert "Resume your game" not in browser.get("/").text


def test_another_players_game_is_not_found(app: FastAPI, browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    other = Browser(app)
    r = other.get(f"/games/{gid}")
    assert r.status_code == 404
    assert "There is no such game here" in r.text
    r = other.act(gid, ("deal",), version=1)
    assert r.status_code == 404
    r = other.post(f"/games/{gid}/restart")
    assert r.status_code == 404
    assert version_of(browser.get(f"/games/{gid}").text) == 1


def test_actions_need_the_csrf_token(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    r = browser.http.post(f"/games/{gid}/deal", data={"version": "1"}, follow_redirects=False)
    assert r.status_code == 403
    r = browser.http.post(f"/games/{gid}/deal", data={"version": "1", "csrf_token": "forged"})
    assert r.status_code == 403
    assert version_of(browser.get(f"/games/{gid}").text) == 1


def test_a_form_is_read_as_browsers_send_it(browser: Browser) -> None:
    """The action forms are read as any form parser reads them: percent-escapes and ``+``
    decoded, a repeated field's last value kept, a field left blank missing; multipart
    bodies work as well; past 1000 fields the request is refused with 400, nothing done."""
    gid = browser.new_game(deal=WIN_DEAL)
    assert WIN_LINE[0] == ("deal",)
    assert browser.act(gid, WIN_LINE[0], version=1).status_code == 303
    _, a, i, b = WIN_LINE[1]
    token = browser.token
    too_many = "&".join(["x=1"] * 1001) + f"&csrf_token={token}"
    headers = {"content-type": "application/x-www-form-urlencoded", **HTMX}
    r = browser.http.post(f"/games/{gid}/move", content=too_many, headers=headers)
    assert r.status_code == 400
    assert r.json() == {"detail": "Too many fields. Maximum number of fields is 1000."}
    # Repeated and escaped fields, a blank one: the move to column b (the last value), with
    # no version (a blank field is a missing one).
    body = (
        f"from_column=%3{a}&from_index={i}&to_column=9&to_column={b}&version=&"
        f"csrf_token={token}&note=a+b%20c"
    )
    r = browser.http.post(f"/games/{gid}/move", content=body, headers=headers)
    assert r.status_code == 200 and "hx-partial" in r.text, r.text
    assert version_of(browser.get(f"/games/{gid}").text) == 3
    # The same form as multipart/form-data (the next move, without htmx: a 303).
    _, a, i, b = WIN_LINE[2]
    fields = {"from_column": a, "from_index": i, "to_column": b, "csrf_token": token}
    files = {k: (None, str(v)) for k, v in fields.items()}
    r = browser.http.post(f"/games/{gid}/move", files=files, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert version_of(browser.get(f"/games/{gid}").text) == 4


# -- statistics, settings and privacy -------------------------------------------------------------


def _kpi(html: str, key: str) -> str:
    m = re.search(rf'id="kpi-{key}">([^<]*)<', html)
    assert m
    return m.group(1)


def test_statistics_page(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    for k, action in enumerate(WIN_LINE, start=1):
        browser.act(gid, action, version=k)
    browser.new_game(deal=WIN_DEAL)
    untouched = browser.get("/stats").text  # a dealt layout nobody touched counts nothing
    assert _kpi(untouched, "started") == "1"
    played = browser.new_game(deal=WIN_DEAL)
    browser.act(played, WIN_LINE[0], version=1)
    page = browser.get("/stats").text
    assert _kpi(page, "started") == "2"
    assert _kpi(page, "won") == "1"
    assert _kpi(page, "rate") == "50%"
    assert '<svg class="chart"' in page
    assert "2 games started and 1 won" in page
    assert "How things are counted" in page
    assert f'action="/games/{gid}/restart"' in page  # "play this deal again" (a written deal)


def test_settings_saving_and_statistics(browser: Browser) -> None:
    r = browser.post("/settings", {"record_stats": "on"})
    assert r.status_code == 303
    assert r.headers["location"] == "/privacy?done=settings"
    page = browser.get("/privacy").text
    assert 'id="save_games">' in page  # unchecked
    assert 'id="record_stats" checked>' in page
    gid = browser.new_game(deal=WIN_DEAL)
    assert "Resume your game" not in browser.get("/").text  # saving is off
    browser.post("/settings", {"save_games": "on", "record_stats": "on"})
    assert '<html lang="en">' in browser.get(f"/games/{gid}").text


def test_privacy_page_names_every_kind_of_stored_data(browser: Browser) -> None:
    """The "what is stored" list names the per-address counters (kept as keyed hashes, see
    app/services/clients.py), not only the player's own rows."""
    page = browser.get("/privacy").text
    assert "no IP address" in page
    assert "keyed hash of the address" in page
    assert "dropped after about two days" in page


def test_privacy_deletes(browser: Browser) -> None:
    gid = browser.new_game(deal=WIN_DEAL)
    assert "Resume your game" in browser.get("/").text
    r = browser.post("/privacy/delete-games")
    assert (r.status_code, r.headers["location"]) == (303, "/privacy?done=games")
    assert "Resume your game" not in browser.get("/").text
    assert browser.get(f"/games/{gid}").status_code == 404

    gid = browser.new_game(deal=WIN_DEAL)
    for k, action in enumerate(WIN_LINE, start=1):
        browser.act(gid, action, version=k)
    assert _kpi(browser.get("/stats").text, "won") == "1"
    r = browser.post("/privacy/delete-results")
    assert (r.status_code, r.headers["location"]) == (303, "/privacy?done=results")
    page = browser.get("/stats").text
    assert (_kpi(page, "started"), _kpi(page, "won")) == ("0", "0")

    browser.new_game(deal=WIN_DEAL)
    r = browser.post("/privacy/delete-everything")
    assert (r.status_code, r.headers["location"]) == (303, "/privacy?done=all")
    assert "Clear-Site-Data" in r.headers or "clear-site-data" in r.headers
    assert any("Max-Age=0" in c for c in r.headers.get_list("set-cookie"))
    fresh = browser.get("/privacy?done=all").text
    assert "Everything about you is deleted" in fresh
    assert _kpi(browser.get("/stats").text, "started") == "0"
