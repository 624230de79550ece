"""The board people play on, on a phone (360x640, touch) and a desktop (1280x800).

Motion after every change (and none under reduced motion), one-tap moves, long columns that
fit, a calm toolbar, one hint at a time, confirmation before giving up a game, red cards that
stay red while dragged, a clean console through a whole won game, and axe-core on every page.
Screenshots of each state go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.support.browser import (
    SIZES,
    Device,
    click_move,
    drop_by_keys,
    in_view,
    menu,
    open_device,
    pixels_near,
    play_line,
    settled,
    shot,
    start,
    tap,
    version,
    wait_version,
)
from tests.support.deals import NO_MOVE_DEAL, WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data"
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
RED = (196, 18, 47)  # --red of the light palette (#c4122f)


def api_game(page: Page, server: LiveServer, deal: str, line: list[list[object]]) -> str:
    """A game of this page's player made through the JSON API, then played along ``line``."""
    s = page.request.get(server.url + "/api/session").json()
    h = {"X-CSRF-Token": s["csrf_token"]}
    r = page.request.post(
        server.url + "/api/games", data={"variant": "scorpion", "deal": deal}, headers=h
    )
    assert r.status == 201
    gid = str(r.json()["id"])
    for a in line:
        if a[0] == "deal":
            r = page.request.post(f"{server.url}/api/games/{gid}/deal", headers=h)
        else:
            body = {"from_column": a[1], "from_index": a[2], "to_column": a[3]}
            r = page.request.post(f"{server.url}/api/games/{gid}/moves", data=body, headers=h)
        assert r.status == 200, r.text()
    page.goto(f"{server.url}/games/{gid}")
    return gid


def animated(page: Page, *selectors: str) -> None:
    """Wait (frame by frame) until, in one frame, an animation runs on an element matching
    each of ``selectors`` (cards that travel together are seen travelling together)."""
    page.wait_for_function(
        """ss => ss.every(s =>
             Array.from(document.querySelectorAll(s)).some(e => e.getAnimations().length))""",
        arg=list(selectors),
        polling="raf",
    )


def motion_on_next_page(page: Page, selector: str) -> None:
    """Note, on every page loaded from now on, whether an animation ran on an element matching
    ``selector`` (checked each frame from the start of the page, so a short motion that ends
    before the test gets to look is still seen): ``window.__motion`` becomes true."""
    page.add_init_script(
        """(s => {
             window.__motion = false;
             const look = () => {
               const hit = Array.from(document.querySelectorAll(s))
                 .some(e => e.getAnimations().length);
               if (hit) window.__motion = true; else requestAnimationFrame(look);
             };
             requestAnimationFrame(look);
           })("""
        + json.dumps(selector)
        + ")"
    )


# -- 1. motion -------------------------------------------------------------------------------


def test_moves_deal_reveal_and_runs_animate(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    v = version(page)
    page.click("#deal-btn")
    animated(page, "#col-0 .card.top, #col-1 .card.top, #col-2 .card.top")  # from the stock
    shot(page, f"deal-{device.name}")
    wait_version(page, v + 1)
    settled(page)
    # A move: the whole group travels, the card under it flips.
    tap(page, "[href='?select=0-3']")
    animated(page, "#col-4 .card:has(use[href='#c-6S'])", "#col-4 .card:has(use[href='#c-2S'])")
    shot(page, f"move-{device.name}")
    wait_version(page, v + 2)
    settled(page)
    expect(page.locator("[href='?select=0-2'] use")).to_have_attribute("href", "#c-AS")
    shot(page, f"reveal-{device.name}")
    # A completed run travels to the foundation row.
    tap(page, "[href='?select=0-2']")
    page.wait_for_function("() => document.querySelectorAll('.fly').length > 0", polling="raf")
    shot(page, f"run-removal-{device.name}")
    wait_version(page, v + 3)
    expect(page.locator(".foundation .fslot.done")).to_have_count(1)
    settled(page)
    expect(page.locator(".fly")).to_have_count(0)
    # Undo brings the run back the way it came.
    page.keyboard.press("z")
    animated(page, "#col-4 .card:has(use[href='#c-KS'])")
    wait_version(page, v + 4)


def test_a_click_during_the_motion_acts_at_once(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    tap(page, "[href='?select=0-3']")
    # Version 3 is in and its cards are still travelling (checked frame by frame, since the
    # motion is short): the next tap is not held back.
    page.wait_for_function(
        """() => document.querySelector('#game-head').dataset.version === '3'
                 && document.getAnimations().length > 0""",
        polling="raf",
    )
    tap(page, "[href='?select=0-2']")
    wait_version(page, 4)


def test_no_motion_under_reduced_motion(browser: Browser, server: LiveServer) -> None:
    for name in SIZES:
        d = open_device(browser, name, reduced_motion="reduce")
        try:
            page = d.page
            start(page, server, WIN_DEAL)
            page.click("#deal-btn")
            wait_version(page, 2)
            assert page.evaluate("document.getAnimations().length") == 0
            tap(page, "[href='?select=0-3']")
            wait_version(page, 3)
            assert page.evaluate("document.getAnimations().length") == 0
            tap(page, "[href='?select=0-2']")
            wait_version(page, 4)
            assert page.evaluate("document.getAnimations().length") == 0
            assert page.locator(".fly").count() == 0
        finally:
            d.ctx.close()
        d.problems.check()


# -- 2. one tap ------------------------------------------------------------------------------


def test_one_tap_moves_a_card_with_one_destination(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    # Face-up cards carry their code (their picture, "#c-7H"), face-down ones nothing (the
    # back); the destinations are listed.
    assert page.locator("#board .card.down").count() > 0
    assert page.locator("#board .card.down use:not([href='#back'])").count() == 0
    assert page.locator("#board .card.down[id], #board .card.down[href]").count() == 0
    assert page.locator("#board a.card:not(:has(use[href^='#c-']))").count() == 0
    assert "0.3:4" in (page.locator("#board-fields").get_attribute("data-targets") or "")
    tap(page, "[href='?select=0-3']")
    wait_version(page, 3)
    expect(page.locator("#col-4 .card:has(use[href='#c-6S'])")).to_have_count(1)


def board_cards(page: Page) -> list[list[str]]:
    """Every column's cards as the page holds them: "down" for a face-down card (which
    carries nothing else), else its data-col, data-idx and data-card."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('#board .col')).map(col =>
                 Array.from(col.querySelectorAll('.card')).map(c => c.classList.contains('down')
                   ? (c.dataset.card || c.dataset.col || c.dataset.idx ? 'leak' : 'down')
                   : [c.dataset.col, c.dataset.idx, c.dataset.card].join(' ')))"""
        )
    )


def test_cards_are_found_by_column_and_index(device: Device, server: LiveServer) -> None:
    """A fresh base deal: the open card of column 1 (numbered from 0, as in the API) is
    ``[data-col="1"][data-idx="6"]``, face up over three face-down cards; tapping it picks it
    up, a card with one destination moves at once, and after every answer (whose columns
    leave the cards that stay to the page) the board is the page reloaded."""
    page = device.page
    start(page, server, WIN_DEAL)
    top = page.locator('#board [data-col="1"][data-idx="6"]')
    expect(top).to_have_count(1)
    expect(top).to_have_attribute("data-card", "3H")
    expect(top).to_have_accessible_name("three of hearts")
    assert page.locator('#board [data-col="1"][data-card]').count() == 4
    # No place to go: not picked up, the line says so (issue 41); the keyboard picks it up.
    tap(page, '[data-col="1"][data-idx="6"]')
    expect(page.locator("#message")).to_contain_text("nowhere to go")
    expect(page.locator("#board .card.sel")).to_have_count(0)
    page.focus('[data-col="1"][data-idx="6"]')
    page.keyboard.press("Enter")
    expect(top).to_have_class(re.compile(r"\bsel\b"))
    tap(page, '[data-col="1"][data-idx="6"]')
    expect(page.locator("#board .card.sel")).to_have_count(0)
    tap(page, '[data-col="1"][data-idx="3"]')  # six of hearts: one destination, column 5
    animated(page, '#col-5 [data-card="6H"]', '#col-5 [data-card="3H"]')
    wait_version(page, 2)
    expect(page.locator('#board [data-col="5"][data-idx="10"]')).to_have_attribute(
        "data-card", "3H"
    )
    expect(page.locator('#board [data-col="1"][data-idx="2"]')).to_have_count(1)  # turned up
    for step in ("reload", "move", "deal", "undo"):
        v = version(page)
        if step == "deal":
            page.click("#deal-btn")
        elif step == "undo":
            page.keyboard.press("z")
        elif step == "move":
            tap(page, '[data-col="0"][data-idx="3"]')  # six of spades, onto column 4
        if step != "reload":
            wait_version(page, v + 1)
        settled(page)
        shown = board_cards(page)
        assert "leak" not in str(shown)
        page.reload()
        settled(page)
        assert board_cards(page) == shown, step


def test_several_destinations_pick_and_light_up(device: Device, server: LiveServer) -> None:
    page = device.page
    api_game(page, server, WIN_DEAL, [list(a) for a in WIN_LINE[:5]])
    expect(page.locator("#game-head")).to_have_attribute("data-version", "6")
    # The King of clubs may go to either empty column: picked, both light up.
    tap(page, "[href='?select=3-3']")
    expect(page.locator("[href='?select=3-3']")).to_have_class(re.compile(r"\bsel\b"))
    expect(page.locator("#col-4.tap-target")).to_have_count(1)
    expect(page.locator("#col-5.tap-target")).to_have_count(1)
    shot(page, f"picked-{device.name}")
    # A second tap on it puts it back.
    tap(page, "[href='?select=3-3']")
    expect(page.locator("#board .card.sel")).to_have_count(0)
    expect(page.locator("#board .tap-target")).to_have_count(0)
    tap(page, "[href='?select=3-3']")
    page.locator("#col-5 .slot").click()
    wait_version(page, 7)


def test_one_tap_can_be_switched_off(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    page.click("#more-btn")
    page.uncheck("#onetap-pref")
    page.click("#more-btn")
    tap(page, "[href='?select=0-3']")
    expect(page.locator("[href='?select=0-3']")).to_have_class(re.compile(r"\bsel\b"))
    assert version(page) == 2
    tap(page, "#col-4 .card.top")
    wait_version(page, 3)
    page.reload()  # the choice is remembered
    expect(page.locator("#onetap-pref")).not_to_be_checked()


def test_dragged_red_cards_stay_red(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    src = page.locator("[href='?select=1-3']").bounding_box()  # six of hearts and the cards on it
    assert src
    # The red of a card's face (its symbol fills with --suit-hearts: static/css/app.css).
    assert pixels_near(page, "[href='?select=1-3']", RED) > 20
    fill = "code => getComputedStyle(document.getElementById('c-' + code)).fill"
    assert page.evaluate(fill, "6H") == "rgb(196, 18, 47)" != page.evaluate(fill, "6S")
    page.mouse.move(src["x"] + src["width"] / 2, src["y"] + 6)
    page.mouse.down()
    page.mouse.move(src["x"] + src["width"] / 2 + 30, src["y"] + 60, steps=5)
    ghost = page.locator(".ghost .card").first
    expect(ghost).to_be_visible()
    assert pixels_near(page, ".ghost .card", RED) > 20
    shot(page, f"drag-{device.name}")
    page.keyboard.press("Escape")
    page.mouse.up()
    expect(page.locator(".ghost")).to_have_count(0)


# -- 3. long columns --------------------------------------------------------------------------


def test_a_thirty_card_column_fits(device: Device, server: LiveServer) -> None:
    page = device.page
    data = json.loads((DATA / "col30.json").read_text())
    api_game(page, server, data["deal"], data["line"])
    tall = max(page.locator(f"#col-{c} .card").count() for c in range(7))
    assert tall >= 30
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]  # type: ignore[index]
    in_view(page, "#board .card.top")
    # Each covered face-up card shows at least 30% of the card's width: rank and suit whole.
    strips = page.evaluate(
        """() => Array.from(document.querySelectorAll('#board a.card:not(.top)')).map(e => {
             const n = e.nextElementSibling, r = e.getBoundingClientRect();
             return (n.getBoundingClientRect().top - r.top) / r.width; })"""
    )
    assert strips and min(strips) >= 0.295, min(strips)
    # The rank's glyph ends above the next card. It is drawn by the card's symbol (the sprite,
    # 60 x 84 units): its box is measured once in those units, then on every covered card.
    bottom = page.evaluate(
        """() => {
             const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
             s.setAttribute("viewBox", "0 0 60 84");
             s.innerHTML = document.querySelector("#c-TS .rk").outerHTML;
             document.body.appendChild(s);
             const b = s.firstChild.getBBox();
             s.remove();
             return b.y + b.height; }"""
    )
    assert 15 < bottom < 25, bottom
    gaps = page.evaluate(
        """bottom => Array.from(document.querySelectorAll('#board a.card:not(.top)')).map(e => {
             const r = e.getBoundingClientRect(), next = e.nextElementSibling;
             return next.getBoundingClientRect().top - (r.top + bottom * r.height / 84); })""",
        bottom,
    )
    assert gaps and min(gaps) >= -1.5, min(gaps)
    shot(page, f"column-30-{device.name}")


# -- 4. toolbar -------------------------------------------------------------------------------


def test_the_toolbar_is_one_row_and_the_message_line_keeps_its_room(
    device: Device, server: LiveServer
) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    tops = page.locator(".toolbar > *").evaluate_all(
        "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, tops
    for sel in ("#undo-btn", "#hint-btn", "#deal-btn", "#more-btn"):
        expect(page.locator(sel)).to_be_visible()
    # The message line keeps one line's room, empty or not (issue 41: the board never
    # jumps; tests/e2e/test_seen.py measures the board itself): a line, two on a phone.
    line = page.locator("#message").evaluate("e => e.getBoundingClientRect().height")
    assert 0 < line <= (40 if device.name == "phone" else 26), line
    # The menu opens from the keyboard too.
    page.focus("#more-btn")
    page.keyboard.press("Enter")
    for sel in ("#redo-btn", "#restart-btn", "#new-btn", "#challenge-btn", "#solver-hint-btn"):
        expect(page.locator(sel)).to_be_visible()
    in_view(page, ".more-menu")
    shot(page, f"menu-{device.name}")
    page.keyboard.press("Escape")
    expect(page.locator("#more")).not_to_have_attribute("open", "")


# -- 5. hints ---------------------------------------------------------------------------------


def test_one_hint_at_a_time_and_a_tap_plays_it(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    page.click("#hint-btn")
    expect(page.locator("#board .hint-pair")).to_have_count(1)
    expect(page.locator("#board .col.hint-target")).to_have_count(1)
    first = page.locator("#board .hint-pair").get_attribute("href")
    shot(page, f"hint-{device.name}")
    page.keyboard.press("h")
    expect(page.locator("#board .hint-pair")).to_have_count(1)
    assert page.locator("#board .hint-pair").get_attribute("href") != first
    target = page.locator("#board .hint-pair").get_attribute("data-hint-to")
    src = page.locator("#board .hint-pair")
    n = page.locator(f"#col-{target} .card").count()
    tap(page, f"#board a[href='{src.get_attribute('href')}']")
    wait_version(page, 3)
    assert page.locator(f"#col-{target} .card").count() > n
    expect(page.locator("#board .hint-pair, #board .hint-target")).to_have_count(0)


def test_no_useful_move_offers_undo_and_restart(device: Device, server: LiveServer) -> None:
    page = device.page
    s = page.request.get(server.url + "/api/session").json()
    h = {"X-CSRF-Token": s["csrf_token"]}
    r = page.request.post(
        server.url + "/api/games",
        data={"variant": "scorpion", "deal_number": NO_MOVE_DEAL},
        headers=h,
    )
    gid = r.json()["id"]
    page.request.post(f"{server.url}/api/games/{gid}/deal", headers=h)
    page.goto(f"{server.url}/games/{gid}")
    page.click("#hint-btn")
    msg = page.locator("#message")
    expect(msg).to_contain_text("No move is left")
    expect(msg.get_by_role("button", name="Undo")).to_be_visible()
    expect(msg.get_by_role("button", name="Restart")).to_be_visible()
    msg.get_by_role("button", name="Undo").click()
    wait_version(page, 3)


# -- 6. no traps ------------------------------------------------------------------------------


def test_restart_and_new_ask_first(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    url = page.url
    menu(page, "#restart-btn")
    dlg = page.locator("#confirm-dlg")
    expect(dlg).to_be_visible()
    expect(dlg).to_contain_text("This gives up the game: it counts as a loss")
    shot(page, f"confirm-{device.name}")
    dlg.get_by_role("button", name="Keep playing").click()
    expect(dlg).to_be_hidden()
    assert page.url == url and version(page) == 2
    # N asks the same question as the button.
    page.keyboard.press("n")
    expect(dlg).to_be_visible()
    expect(dlg).to_contain_text("Start a new game?")
    page.keyboard.press("Escape")
    expect(dlg).to_be_hidden()
    assert page.url == url
    menu(page, "#restart-btn")
    motion_on_next_page(page, "#board .card")
    dlg.get_by_role("button", name="Give up and restart").click()
    page.wait_for_url(lambda u: u != url)
    expect(page.locator("#moves")).to_have_text("0")
    page.wait_for_function("() => window.__motion")  # the restart deals from the stock


def test_the_daily_deal_is_named_as_such(device: Device, server: LiveServer) -> None:
    page = device.page
    page.goto(server.url + "/daily/scorpion")
    page.click("#daily-play")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect(page.locator(".deal-no dd")).to_contain_text("Daily deal")
    expect(page.locator(".deal-no dd")).not_to_contain_text("custom")
    v = version(page)
    page.click("#deal-btn")  # after an action the label stays
    wait_version(page, v + 1)
    expect(page.locator(".deal-no dd")).to_contain_text("Daily deal")
    daily = page.url
    page.goto(server.url + "/")
    expect(page.get_by_role("link", name="Resume the daily deal")).to_be_visible()
    # A new game beside it gives nothing up (races keep their own slot): no question.
    page.goto(daily)
    menu(page, "#new-btn")
    page.wait_for_url(lambda u: u != daily)
    expect(page.locator("#confirm-dlg")).to_have_count(0)


# -- 8, 10. a whole game: a clean console and a win worth having -------------------------------


def test_a_whole_known_win_with_a_clean_console(device: Device, server: LiveServer) -> None:
    page = device.page
    win = json.loads((DATA / "known_wins.json").read_text())[0]
    start(page, server, win["deal"])
    # An illegal move answered to the page is not a failed request.
    v = version(page)
    page.click("#more-btn")
    page.uncheck("#onetap-pref")
    page.click("#more-btn")
    drop_by_keys(page, "[href='?select=6-6']", "#col-3 .card.top")
    expect(page.locator("#message .error")).to_be_visible()
    assert version(page) == v and device.problems.refused_logs == 0
    page.click("#more-btn")
    page.check("#onetap-pref")
    page.click("#more-btn")
    for action in win["line"]:
        if action[0] == "deal":
            v = version(page)
            page.click("#deal-btn")
            wait_version(page, v + 1)
        else:
            click_move(page, int(action[1]), int(action[2]), int(action[3]))
    panel = page.locator("#win")
    expect(panel).to_be_visible()
    expect(page.locator(".foundation .fslot.done")).to_have_count(4)
    expect(panel.get_by_role("link", name="Watch the replay")).to_be_visible()
    expect(panel.get_by_role("button", name="Play this deal again")).to_be_visible()
    expect(panel.get_by_role("button", name="New game")).to_be_visible()
    settled(page)
    in_view(page, "#win")
    shot(page, f"win-{device.name}")
    assert device.problems.refused_logs == 0


# -- 11. accessibility ------------------------------------------------------------------------


def _axe(page: Page) -> list[str]:
    page.evaluate(AXE.read_text())
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
             .filter(v => v.impact === 'serious' || v.impact === 'critical')
             .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))"""
    )
    return list(found)


def test_axe_finds_nothing_serious(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])
    game = page.url
    problems = {f"play: {x}" for x in _axe(page)}
    menu(page, "#challenge-btn")
    page.wait_for_url(re.compile(r"/challenge/"))
    problems |= {f"challenge: {x}" for x in _axe(page)}
    pages = ("/", "/rules", "/stats", "/privacy", "/daily", "/daily/scorpion", "/deal/31337")
    for path in (*pages, "/link", game.removeprefix(server.url) + "/replay"):
        page.goto(server.url + path)
        problems |= {f"{path}: {x}" for x in _axe(page)}
    page.goto(server.url + "/privacy")
    page.click("#link-form button[type=submit]")  # the link code and its QR code
    page.locator("#link-code").wait_for()
    problems |= {f"link code: {x}" for x in _axe(page)}
    assert not problems, sorted(problems)


def test_pause_holds_when_the_server_is_slow(page: Page, server: LiveServer) -> None:
    """Pausing a replay sticks even when the pause request is slow to come back (a busy
    server): a step that falls due meanwhile is dropped, not sent after the pause, which would
    set the replay playing again."""
    gid = api_game(page, server, WIN_DEAL, WIN_LINE)
    page.goto(f"{server.url}/games/{gid}/replay")
    page.click("#play")
    expect(page.locator("#step")).to_have_text(re.compile(r"^[1-9] / 17$"))
    held: list[Route] = []
    pause = re.compile(r"/replay\?step=\d+$")  # no "play=1"

    def hold(route: Route) -> None:
        held.append(route)

    page.route(pause, hold)
    page.click("#pause")
    page.wait_for_timeout(1_500)  # the next step falls due while the pause is held
    assert held, "the pause request was not sent"
    for route in held:
        route.continue_()
    page.unroute(pause)
    expect(page.locator("#play")).to_be_visible()
    step = page.locator("#step").inner_text()
    page.wait_for_timeout(1_500)  # more than two steps' time
    expect(page.locator("#play")).to_be_visible()
    assert page.locator("#step").inner_text() == step
