"""What a player sees (issue 41): every action's answer is painted text in the viewport, near
the board, and the board never jumps when a message comes or goes.

"Seen" is judged as a person has it, not from the DOM: a text node counts only where each of
its line boxes is inside the viewport, has a size, is what ``document.elementFromPoint`` finds
at its centre (the text's element or a descendant: nothing covers it), lies inside every
ancestor that clips (overflow not visible) and has no ancestor that is visually hidden
(``.sr``, ``visibility: hidden``, ``opacity: 0``). Each action is checked at 360x640 (touch)
and at 1280x800.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.browser import (
    Device,
    click_move,
    drop_by_keys,
    in_view,
    menu,
    open_device,
    play_line,
    settled,
    shot,
    start,
    tap,
    version,
    wait_version,
)
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e

# The text under ``root`` that a person sees (see the module's docstring), in document order.
PAINTED = """
(root) => {
  const el = typeof root === 'string' ? document.querySelector(root) : root;
  if (!el) return '';
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (!text) continue;
    const owner = n.parentElement;
    let hidden = false, clips = [];
    for (let a = owner; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (a.classList.contains('sr') || s.visibility !== 'visible' || s.display === 'none'
          || +s.opacity === 0 || a.hidden) { hidden = true; break; }
      const clip = s.overflowX !== 'visible' || s.overflowY !== 'visible';
      if (clip && a !== document.documentElement && a !== document.body)
        clips.push(a.getBoundingClientRect());
    }
    if (hidden) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0.5 || r.height > 0.5);
    if (!rects.length) continue;
    const ok = rects.every(r => {
      if (r.width < 1 || r.height < 1) return false;
      if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) return false;
      if (clips.some(c => r.left < c.left - 0.5 || r.right > c.right + 0.5
                          || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && owner.contains(hit);
    });
    if (ok) out.push(text);
  }
  return out.join(' ');
}
"""


def painted(page: Page, root: str = "#message") -> str:
    return str(page.evaluate(PAINTED, root))


def seen(
    page: Page, needle: str | re.Pattern[str], root: str = "#message", live: bool = True
) -> str:
    """Wait until ``needle`` is painted under ``root`` (the motion ended), and return that
    painted text. With ``live``, the text is also in an aria-live region (screen readers hear
    it; a page of its own is announced by its title instead)."""
    pattern = needle if isinstance(needle, re.Pattern) else re.compile(re.escape(needle))
    settled(page)
    with contextlib.suppress(PlaywrightTimeoutError):  # (the assertion below says what was)
        page.wait_for_function(
            f"([root, src, flags]) => new RegExp(src, flags).test(({PAINTED})(root))",
            arg=[root, pattern.pattern, "i" if pattern.flags & re.IGNORECASE else ""],
            timeout=8_000,
        )
    text = painted(page, root)
    assert pattern.search(text), (
        f"{pattern.pattern!r} not painted under {root}; painted: {text!r}; "
        f"in the DOM: {page.locator(root).first.text_content()!r}"
    )
    if live:
        region = page.locator(root).evaluate(
            "e => !!e.closest('[aria-live], [role=status], [role=alert]')"
        )
        assert region, f"{root} is not announced (no aria-live region)"
    return text


def position(page: Page) -> dict[str, Any]:
    """Where the tableau, its first column and the status block are on the screen."""
    return dict(
        page.evaluate(
            """() => {
              const r = (s) => { const e = document.querySelector(s);
                if (!e) return null; const b = e.getBoundingClientRect();
                return [Math.round(b.left * 10) / 10, Math.round(b.top * 10) / 10,
                        Math.round(b.width * 10) / 10]; };
              return {board: r('#board'), col: r('#col-0'), stats: r('.stats'),
                      scroll: window.scrollY};
            }"""
        )
    )


def refuse(page: Page) -> None:
    """The three of spades onto the seven of hearts (WIN_DEAL's opening), by the keyboard:
    refused."""
    drop_by_keys(page, "[href='?select=0-6']", "#col-5 .card.top")


def test_every_answer_on_the_board_is_seen_and_the_board_stays(
    device: Device, server: LiveServer
) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    home = position(page)
    assert home["board"] and home["col"], home

    def stays(what: str) -> None:
        settled(page)
        now = position(page)
        assert (now["board"], now["col"]) == (home["board"], home["col"]), (what, home, now)
        assert now["stats"] == home["stats"], ("the status block moved", what, home, now)
        in_view(page, "#foundation, #deal-btn, .stats")

    # A refusal: its reason, at once, where the board is.
    refuse(page)
    seen(page, "can only go on the four of spades")
    stays("a refusal")
    shot(page, f"seen-refusal-{device.name}")

    # The deal (the three of spades put back first); the stock is then empty.
    page.keyboard.press("Escape")
    v = version(page)
    page.click("#deal-btn")
    wait_version(page, v + 1)
    seen(page, "Dealt: ")
    stays("the deal (and the stock now empty)")

    # A move (one tap), its report and the card turned up: one short line for the eye (the
    # full words are read out).
    click_move(page, 0, 3, 4)
    seen(page, "6\u2660\ufe0e 1\u21925 · turned up A\u2660\ufe0e")
    assert "Moved the six of spades" in (page.locator("#message .sr").text_content() or "")
    stays("a move")

    # Undo and redo.
    v = version(page)
    page.click("#undo-btn")
    wait_version(page, v + 1)
    seen(page, "Undone")
    stays("undo")
    menu(page, "#redo-btn")
    wait_version(page, v + 2)
    seen(page, "Redone")
    stays("redo")

    # A hint: the first useful move, in words.
    page.click("#hint-btn")
    seen(page, re.compile(r"useful move"))
    stays("a hint")
    shot(page, f"seen-hint-{device.name}")

    # The solver: its verdict, then its hint (the More menu closes or not: the answer shows).
    menu(page, "#winnable-btn")
    seen(page, re.compile(r"winnable", re.I))
    seen(page, "assisted")
    shot(page, f"seen-winnable-{device.name}")
    stays("the solver's verdict")
    menu(page, "#solver-hint-btn")
    seen(page, "Solver hint")
    shot(page, f"seen-solver-hint-{device.name}")
    stays("the solver's hint")

    # Picking a card up says so (and what to do next).
    tap(page, "#col-4 .card.top")
    if page.locator("#board .card.sel").count():
        seen(page, re.compile("picked up", re.I))
        stays("a card picked up")


def test_restart_and_new_game_say_what_they_did(device: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    home = position(page)
    page.click("#deal-btn")
    wait_version(page, 2)
    menu(page, "#restart-btn")
    page.click("#confirm-yes")
    expect(page.locator("#game-head")).to_have_attribute("data-version", "1")
    seen(page, "Restarted")
    settled(page)
    now = position(page)
    assert (now["board"], now["col"]) == (home["board"], home["col"]), (home, now)
    page.click("#deal-btn")
    wait_version(page, 2)
    menu(page, "#new-btn")
    page.click("#confirm-yes")
    seen(page, "New game")
    shot(page, f"seen-new-{device.name}")


def test_daily_and_challenge_say_what_they_did(device: Device, server: LiveServer) -> None:
    page = device.page
    page.goto(server.url + "/daily/scorpion")
    page.locator("form[action='/daily/scorpion'] button[type=submit]").first.click()
    if page.locator("#confirm-dlg[open]").count():
        page.click("#confirm-yes")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    seen(page, "daily deal")
    shot(page, f"seen-daily-{device.name}")
    menu(page, "#challenge-btn")
    page.wait_for_url(re.compile(r"/challenge/"))
    seen(page, "Send this link to a friend", root="main", live=False)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_solvers_answer_is_seen_in_chinese(
    browser: Browser, server: LiveServer, size: str
) -> None:
    d = open_device(browser, size, locale="zh-CN")
    page = d.page
    try:
        start(page, server, WIN_DEAL)
        home = position(page)
        menu(page, "#winnable-btn")
        seen(page, "还能赢")
        menu(page, "#solver-hint-btn")
        text = seen(page, "求解器提示")
        assert not re.search(r"\b(move|deal the stock)\b", text), text
        settled(page)
        now = position(page)
        assert (now["board"], now["col"]) == (home["board"], home["col"]), (home, now)
        shot(page, f"seen-solver-zh-{size}")
    finally:
        d.ctx.close()
    d.problems.check()


def test_a_card_with_nowhere_to_go_says_why_and_a_second_click_chooses(
    device: Device, server: LiveServer
) -> None:
    """Issue 41, item 4: a click on a card with nowhere to go does not pick it up silently
    (it shakes and the line says why), and a click on another card while one is held chooses
    that card instead of trying an illegal drop."""
    page = device.page
    start(page, server, WIN_DEAL)
    tap(page, "[href='?select=0-6']")  # the three of spades: no column takes it
    seen(page, "nowhere to go")
    assert "cannot move now" in (page.locator("#message .sr").text_content() or "")
    expect(page.locator("#board .card.sel")).to_have_count(0)
    # Held by the keyboard, then a click on the seven of hearts (whose column does not take
    # the three): no refused request, the seven is the card that counts now.
    page.focus("[href='?select=0-6']")
    page.keyboard.press("Enter")
    expect(page.locator("[href='?select=0-6']")).to_have_class(re.compile(r"\bsel\b"))
    tap(page, "#col-5 .card.top")
    expect(page.locator("[href='?select=0-6']")).not_to_have_class(re.compile(r"\bsel\b"))
    expect(page.locator("#message .error")).to_have_count(0)
    assert version(page) == 1 and device.problems.refused_answers == 0
    shot(page, f"seen-nowhere-{device.name}")


def test_drag_lights_only_legal_targets_and_the_marks_differ(
    device: Device, server: LiveServer
) -> None:
    """Issue 41, item 4: while dragging only a column that takes the card lights up; the
    picked-up card and the keyboard cursor look different; a hint outlines its whole group."""
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE[:1])  # the deal
    # A hint: the six of spades and the four cards on it all outlined.
    page.click("#hint-btn")
    expect(page.locator("#board .hint-pair")).to_have_count(1)
    lead = page.locator("#board .hint-pair")
    col, idx = (lead.get_attribute("href") or "").removeprefix("?select=").split("-")
    group = page.locator(f"#col-{col} .card").count() - int(idx)
    outlined = page.locator(f"#col-{col} .card").evaluate_all(
        "els => els.filter(e => getComputedStyle(e, '::after').borderBottomWidth !== '0px'"
        " && getComputedStyle(e, '::after').content !== 'none').length"
    )
    assert outlined == group, (outlined, group)
    page.keyboard.press("Escape")
    # Drag the six of spades group over a column that does not take it, then one that does.
    card = page.locator("[href='?select=0-3']")
    box = card.bounding_box()
    assert box
    page.mouse.move(box["x"] + 10, box["y"] + 6)
    page.mouse.down()
    for c, legal in ((5, False), (4, True)):
        b = page.locator(f"#col-{c} .card.top").bounding_box()
        assert b
        page.mouse.move(b["x"] + b["width"] / 2, b["y"] + 10, steps=6)
        expect(page.locator(f"#col-{c}.drag-over")).to_have_count(1 if legal else 0)
    expect(page.locator("#board .col.drag-over")).to_have_count(1)
    page.mouse.up()  # dropped there: the move is made
    wait_version(page, 3)
    # The picked-up card (solid frame) and the keyboard cursor (dashed ring) differ.
    page.focus("[href='?select=0-2']")  # the ace of spades, turned up
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    styles = page.evaluate(
        """() => [getComputedStyle(document.querySelector('#board .card.sel'), '::after')
                    .borderTopStyle,
                  getComputedStyle(document.activeElement, '::before').borderTopStyle]"""
    )
    assert styles[0] != styles[1] and "dashed" in styles, styles
