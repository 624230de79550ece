"""The game in a real browser: click, drag, keyboard, undo, deal, reload, privacy, weight."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Response, expect

from app.engine import Game, name, parse_deal
from tests.support.browser import (
    ARTIFACTS,
    Problems,
    animations_done,
    click_move,
    drop_by_keys,
    menu,
    play_line,
    settled,
    shot,
    start,
    tap,
    version,
    wait_version,
    watch,
)
from tests.support.deals import EMPTY_DEAL, EMPTY_LINE, WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e


# -- helpers ------------------------------------------------------------------------------------


def board_state(page: Page) -> list[str]:
    """Each column as its label and the names of its cards ("face-down card" for a back)."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('#board .col')).map(c =>
            c.getAttribute('aria-label') + ': ' +
            Array.from(c.querySelectorAll('.card')).map(k =>
              k.getAttribute('aria-label') || k.querySelector('.sr').textContent
            ).join(', '))"""
    )


def stat(page: Page, key: str) -> str:
    return (page.locator(f"#kpi-{key}").text_content() or "").strip()


# -- tests --------------------------------------------------------------------------------------


def assert_no_hidden_card_in_dom(page: Page, game: Game) -> None:
    """The live page (after htmx swaps) names no face-down or stock card."""
    html = page.content()
    down = [col[k] for col, h in zip(game.cols, game.hidden, strict=True) for k in range(h)]
    for c in down + list(game.stock):
        assert name(c) not in html, f"hidden card {name(c)} in the page"


def test_win_a_known_deal_by_clicking(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    mirror = Game.new("scorpion", parse_deal(WIN_DEAL))
    assert_no_hidden_card_in_dom(page, mirror)
    for action in WIN_LINE[:3]:
        play_line(page, [action])
        mirror.apply(action)
        assert_no_hidden_card_in_dom(page, mirror)
    expect(page.locator(".foundation .fslot.done")).to_have_count(1)
    expect(page.locator("#message")).to_contain_text("spades are complete")
    play_line(page, WIN_LINE[3:])
    win = page.locator("#win")
    expect(win).to_be_visible()
    expect(win).to_contain_text("You won!")
    expect(win).to_contain_text("17 moves")
    expect(page.locator("#message")).to_contain_text("you won")
    expect(page.locator(".foundation .fslot.done")).to_have_count(4)
    # The celebration does not block the page: the navigation is still usable.
    expect(win.get_by_role("button", name="New game")).to_be_visible()
    expect(win.get_by_role("button", name="Play this deal again")).to_be_visible()
    animations_done(page)  # the panel has finished rising
    shot(page, "win-1280x800")
    # The finished game can be watched as a replay, stepping on by itself.
    win.get_by_role("link", name="Watch the replay").click()
    page.wait_for_url(re.compile(r"/replay"))
    expect(page.locator("#step")).to_have_text("0 / 17")
    page.click("#play")
    expect(page.locator("#step")).to_have_text(re.compile(r"^[2-9] / 17$"), timeout=5000)
    shot(page, "replay-1280x800")
    page.click("#pause")
    expect(page.locator("#play")).to_be_visible()
    # Paused: no step is pending (the autoplay's next step is a ``#tick-N`` element).
    expect(page.locator("[id^=tick-]")).to_have_count(0)
    step = page.locator("#step").text_content()
    expect(page.locator("#step")).to_have_text(step or "")
    # Statistics counted the start and the win.
    page.goto(server.url + "/stats")
    assert int(stat(page, "won")) >= 1


def test_illegal_drop_is_refused_with_the_engines_message(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    before = board_state(page)
    # (by the keyboard: a click does not pick up a card with nowhere to go)
    drop_by_keys(page, "[href='?select=0-6']", "#col-5 .card.top")  # 3S onto 7H: refused
    message = page.locator("#message")
    expect(message).to_contain_text(
        "The three of spades can only go on the four of spades, not on the seven of hearts."
    )
    expect(message.locator(".error")).to_be_visible()
    assert version(page) == 1
    assert page.locator("#moves").text_content() == "0"
    assert board_state(page) == before
    # A King onto another card is refused too, with the engine's reason.
    drop_by_keys(page, "[href='?select=3-3']", "#col-4 .card.top")  # King of clubs
    expect(message).to_contain_text("a King can only move to an empty column")
    shot(page, "illegal-1280x800")


def test_undo_turns_a_revealed_card_face_down_again(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    assert page.locator("#col-0 .card.down").count() == 3
    click_move(page, 0, 3, 4)  # the group leaves: the ace of spades turns up
    expect(page.locator("#col-0 .card.down")).to_have_count(2)
    expect(page.locator("[href='?select=0-2']")).to_have_accessible_name("ace of spades")
    expect(page.locator("#message")).to_contain_text("Turned up the ace of spades")
    expect(page.locator("#moves")).to_have_text("1")
    page.click("#undo-btn")
    wait_version(page, 3)
    # The counter shows moves made (RULES.md, Assistance): undo does not take one back.
    expect(page.locator("#moves")).to_have_text("1")
    expect(page.locator("#col-0 .card.down")).to_have_count(3)
    expect(page.locator("[href='?select=0-3']")).to_have_accessible_name("six of spades")
    assert "ace of spades" not in page.locator("#board").inner_html()  # nothing of it left
    menu(page, "#redo-btn")
    wait_version(page, 4)
    expect(page.locator("[href='?select=0-2']")).to_have_accessible_name("ace of spades")
    expect(page.locator("#moves")).to_have_text("1")  # nor does redo add one
    # The JSON API keeps its contract: "moves" the net count, "moves_made" the counter's.
    gid = page.url.rsplit("/", 1)[1]
    undone = page.request.post(
        f"{server.url}/api/games/{gid}/undo",
        headers={
            "X-CSRF-Token": page.request.get(server.url + "/api/session").json()["csrf_token"]
        },
    ).json()
    assert (undone["moves"], undone["moves_made"]) == (0, 1)
    page.reload()
    expect(page.locator("#moves")).to_have_text("1")


def test_deal_onto_an_empty_column(page: Page, server: LiveServer) -> None:
    start(page, server, EMPTY_DEAL)
    play_line(page, EMPTY_LINE[:4])
    expect(page.locator("#col-0 .slot")).to_have_text("K only")
    expect(page.locator("#deal-btn")).to_contain_text("Deal 3")
    page.keyboard.press("d")
    wait_version(page, 6)
    expect(page.locator("#col-0 .card")).to_have_count(1)
    expect(page.locator("[href='?select=0-0']")).to_have_accessible_name("two of spades")
    expect(page.locator("#deal-btn")).to_be_disabled()
    expect(page.locator("#deal-btn")).to_contain_text("Stock empty")


def test_drag_and_drop_one_move(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    src = page.locator("[href='?select=0-3']").bounding_box()
    dst = page.locator("#col-4 .card.top").bounding_box()
    assert src and dst
    page.mouse.move(src["x"] + src["width"] / 2, src["y"] + 8)
    page.mouse.down()
    page.mouse.move(src["x"] + src["width"] / 2 + 20, src["y"] + 30, steps=4)
    expect(page.locator(".ghost")).to_be_visible()
    page.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + dst["height"] / 2, steps=10)
    expect(page.locator("#col-4")).to_have_class(re.compile(r"\bdrag-over\b"))
    page.mouse.up()
    wait_version(page, 2)
    expect(page.locator("#col-4 .card")).to_have_count(11)
    expect(page.locator(".ghost")).to_have_count(0)
    expect(page.locator("#message")).to_contain_text("Moved the six of spades")


def test_moves_by_keyboard_alone(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    page.keyboard.press("d")  # D deals
    wait_version(page, 2)
    for _ in range(40):  # Tab to the first card of the tableau
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('a.card')"):
            break
    assert page.evaluate("document.activeElement.getAttribute('href')") == "?select=0-3"
    page.keyboard.press("Enter")  # pick up the six of spades and the cards on it
    expect(page.locator("[href='?select=0-3']")).to_have_class(re.compile(r"\bsel\b"))
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "?select=4-6"
    expect(page.locator("#col-4")).to_have_class(re.compile(r"\bkb-target\b"))
    shot(page, "keyboard-1280x800")
    page.keyboard.press("Enter")  # drop on column 5
    wait_version(page, 3)
    expect(page.locator("#col-4 .card")).to_have_count(12)
    expect(page.locator("#col-4 .card.top")).to_be_focused()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    # The revealed ace:
    assert page.evaluate("document.activeElement.getAttribute('href')") == "?select=0-2"
    page.keyboard.press("Space")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    wait_version(page, 4)
    expect(page.locator(".foundation .fslot.done")).to_have_count(1)
    page.keyboard.press("z")  # undo
    wait_version(page, 5)
    expect(page.locator(".foundation .fslot.done")).to_have_count(0)
    page.keyboard.press("y")  # redo
    wait_version(page, 6)
    expect(page.locator(".foundation .fslot.done")).to_have_count(1)
    page.keyboard.press("Control+z")
    wait_version(page, 7)
    page.keyboard.press("h")  # hint
    expect(page.locator("#message .hints")).to_contain_text("useful move")
    # One suggestion at a time: a card and its column, paired.
    expect(page.locator("#board .hint-pair")).to_have_count(1)
    expect(page.locator("#board .col.hint-target")).to_have_count(1)


def test_reload_finds_the_game_as_it_was(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:4])
    board = board_state(page)
    url = page.url
    page.reload()
    assert page.url == url
    assert board_state(page) == board
    expect(page.locator("#moves")).to_have_text("4")
    # The start page offers to resume it too.
    page.goto(server.url + "/")
    page.get_by_role("link", name="Resume your game").first.click()
    assert page.url == url


def test_delete_everything_then_statistics_are_zero(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE)
    page.goto(server.url + "/stats")
    assert int(stat(page, "started")) >= 1
    assert int(stat(page, "won")) >= 1
    page.goto(server.url + "/privacy")
    page.click("#del-all summary")
    page.get_by_role("button", name="Yes, delete everything").click()
    page.wait_for_url(re.compile(r"/privacy\?done=all"))
    expect(page.locator("#done")).to_contain_text("Everything about you is deleted")
    page.goto(server.url + "/stats")
    assert stat(page, "started") == "0"
    assert stat(page, "won") == "0"
    assert stat(page, "rate") == "–"
    expect(page.locator("#no-recent")).to_be_visible()


def test_hint_lists_the_moves_and_the_deal(page: Page, server: LiveServer) -> None:
    start(page, server, WIN_DEAL)
    page.click("#hint-btn")
    expect(page.locator("#message .hints")).to_contain_text("and the deal")
    # One suggestion at a time; H goes to the next, and after the moves comes the deal.
    expect(page.locator("#board .hint-pair")).to_have_count(1)
    n = page.locator("#message .hint-item").count()
    expect(page.locator("#message .hint-item:visible")).to_have_count(1)
    for _ in range(n):
        page.keyboard.press("h")
    expect(page.locator("#deal-btn")).to_have_class(re.compile(r"\bhint-src\b"))
    expect(page.locator("#board .hint-pair")).to_have_count(0)
    shot(page, "hint-1280x800")


def test_share_link_opens_the_deal(page: Page, server: LiveServer) -> None:
    page.goto(server.url + "/")
    page.fill("#deal_number", "31337")
    page.locator("#deal_number").locator("xpath=ancestor::form").locator(
        "button[type=submit]"
    ).click()
    page.wait_for_url(re.compile(r"/games/"))
    link = page.locator("#share-link")
    expect(link).to_have_text("#31337")
    href = link.get_attribute("href") or ""
    assert href.endswith("/deal/31337")
    first_board = board_state(page)
    page.goto(href)
    page.click("#play-deal")
    # The first layout was left untouched (not a game yet, issue 41): nothing asks.
    page.wait_for_url(re.compile(r"/games/"))
    expect(page.locator("#confirm-dlg")).to_have_count(0)
    expect(page.locator("#share-link")).to_have_text("#31337")
    assert board_state(page) == first_board


def test_plain_forms_without_javascript(browser: Browser, server: LiveServer) -> None:
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    try:
        start(page, server, WIN_DEAL)
        tap(page, "[href='?select=0-3']")  # a link: ?select=0-3
        assert page.url.endswith("?select=0-3")
        expect(page.locator("#message")).to_contain_text("Picked up the six of spades")
        page.locator("#col-4 .drop").click()  # "Move here"
        page.wait_for_url(re.compile(r"/games/[\w-]+$"))
        expect(page.locator("#col-4 .card")).to_have_count(11)
        tap(page, "[href='?select=0-2']")
        page.locator("#col-5 .drop").click()  # the ace of spades onto the seven of hearts
        expect(page.locator("#message .error")).to_contain_text("can only go on the two of spades")
        page.click("#undo-btn")
        expect(page.locator("#col-0 .card.down")).to_have_count(3)
    finally:
        ctx.close()
    problems.check()
    assert problems.refused_answers == 1


@pytest.mark.parametrize("width,height", [(360, 640), (1280, 800), (1920, 1080)])
def test_screenshots_and_layout(
    browser: Browser, server: LiveServer, width: int, height: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    size = f"{width}x{height}"
    try:
        for path, name in [("/", "home"), ("/rules", "rules"), ("/privacy", "privacy")]:
            page.goto(server.url + path)
            shot(page, f"{name}-{size}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        start(page, server, WIN_DEAL)
        shot(page, f"play-{size}")
        # Nothing off-screen sideways; the seven columns and the controls are all in view.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for c in range(7):
            box = page.locator(f"#col-{c}").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
        for sel in ("#deal-btn", "#undo-btn", "#more-btn", "#hint-btn", ".foundation"):
            box = page.locator(sel).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, sel
        # No layout shift when a move lands: the board keeps its place on the page.
        top = page.locator("#board").bounding_box()
        tap(page, "[href='?select=0-3']")  # one legal destination: it moves at once
        wait_version(page, 2)
        after = page.locator("#board").bounding_box()
        assert top and after and top["y"] == after["y"] and top["x"] == after["x"]
        settled(page)
        shot(page, f"moved-{size}")
        page.keyboard.press("h")
        expect(page.locator("#message .hints")).to_be_visible()
        shot(page, f"hint-{size}")
        page.emulate_media(color_scheme="dark")
        page.goto(server.url + "/")
        start(page, server, WIN_DEAL)
        shot(page, f"play-dark-{size}")
        play_line(page, WIN_LINE)
        expect(page.locator("#win")).to_be_in_viewport()
        animations_done(page)
        shot(page, f"win-dark-{size}")
        page.goto(server.url + "/stats")  # with a win in the recent games
        expect(page.locator("#recent")).to_be_visible()
        shot(page, f"stats-dark-{size}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        ctx.close()
    problems.check()
    assert problems.refused_answers == 0


def test_play_page_weight_is_under_150_kb(browser: Browser, server: LiveServer) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    try:
        start(page, server, WIN_DEAL)
        url = page.url
        responses: list[Response] = []
        # A fresh context has an empty cache: every file of the page is fetched.
        ctx2 = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx2.add_cookies(ctx.cookies())  # type: ignore[arg-type]
        page2 = ctx2.new_page()
        page2.on("response", lambda r: responses.append(r))
        page2.goto(url, wait_until="networkidle")
        ok = [r for r in responses if r.status == 200]
        sizes = {r.url: len(r.body()) for r in ok}
        # What the network carried: the encoded (brotli/gzip) bodies and their headers.
        carried = {
            r.url: r.request.sizes()["responseBodySize"] + r.request.sizes()["responseHeadersSize"]
            for r in ok
        }
        ctx2.close()
        total, sent = sum(sizes.values()), sum(carried.values())
        ARTIFACTS.mkdir(exist_ok=True)
        report = "\n".join(
            f"{n:>8} {carried[u]:>8}  {u}" for u, n in sorted(sizes.items(), key=lambda x: -x[1])
        )
        Path(ARTIFACTS / "page-weight.txt").write_text(
            f"play page weight: {sent} bytes transferred ({sent / 1024:.1f} KiB), {total} bytes"
            f" uncompressed\n(uncompressed, transferred)\n{report}\n"
        )
        print(f"\nplay page weight: {sent} bytes transferred, {total} uncompressed\n{report}")
        kinds = {u.rsplit("?", 1)[0].rsplit(".", 1)[-1] for u in sizes}
        assert {"css", "js"} <= kinds
        # The page's own files, uncompressed, stay under 150 KB as before the illustrated
        # courts; the courts' sprite (fetched once per release, cached immutably) counts in
        # the first visit's transferred budget, 300 KB.
        courts = [u for u in sizes if "/static/cards/courts." in u]
        assert total - sum(sizes[u] for u in courts) < 150 * 1024, report
        assert sent < 300 * 1024, report
    finally:
        ctx.close()


def test_a_card_chosen_in_the_address_is_still_chosen_with_javascript(
    page: Page, server: LiveServer
) -> None:
    start(page, server, WIN_DEAL)
    page.goto(page.url + "?select=0-3")
    expect(page.locator("[href='?select=0-3']")).to_have_class(re.compile(r"\bsel\b"))
    page.locator("#col-4 .drop").click()
    wait_version(page, 2)
    expect(page.locator("#col-4 .card")).to_have_count(11)
