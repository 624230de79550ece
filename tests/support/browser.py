"""Playwright helpers the browser tests share: Debian's Chromium and its flags, the page
problem watcher (console errors, failed requests), screenshots, waiting for animations
(``animations_done``, ``settled``), the play page's "More" menu (``menu``), and playing a game
by clicking (``start``, ``click_move`` with one-tap moves, ``play_line``)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect

from tests.support.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Problems:
    items: list[str] = field(default_factory=list)
    # A refused move is answered 422 on purpose (and a stale version 409) by the JSON API and
    # by the page without JavaScript; the play page's htmx requests get 200 instead, so a
    # refusal there leaves the console clean. Chromium logs each 409/422 answer as "Failed to
    # load resource". Those lines are counted, not ignored: their number must equal the number
    # of 409/422 answers the page received.
    refused_logs: int = 0
    refused_answers: int = 0

    def check(self) -> None:
        assert self.items == [], "console errors or failed requests:\n" + "\n".join(self.items)
        assert self.refused_logs == self.refused_answers


REFUSED_LOG = re.compile(
    r"^Failed to load resource: the server responded with a status of 4(09|22)"
)


def left_behind(r: object) -> bool:
    """A request that leaving the page cancels: its open event stream (a live race), or a live
    table's refresh (an htmx GET) still on its way. The browser reports it aborted to
    Playwright but writes nothing to the console."""
    if "ERR_ABORTED" not in str(getattr(r, "failure", "")):
        return False
    if str(getattr(r, "url", "")).endswith("/events"):
        return True
    headers = getattr(r, "headers", {}) or {}
    return getattr(r, "method", "") == "GET" and headers.get("hx-request") == "true"


def watch(page: Page, problems: Problems) -> None:
    def on_console(m: ConsoleMessage) -> None:
        if m.type not in ("error", "warning"):
            return
        if REFUSED_LOG.match(m.text):
            problems.refused_logs += 1
            return
        problems.items.append(f"console {m.type}: {m.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: problems.items.append(f"page error: {e}"))

    def on_failed(r: object) -> None:
        url = getattr(r, "url", "")
        failure = str(getattr(r, "failure", ""))
        if left_behind(r):
            return
        problems.items.append(f"request failed: {getattr(r, 'method', '')} {url} {failure}")

    page.on("requestfailed", on_failed)

    def on_response(r: object) -> None:
        status = getattr(r, "status", 0)
        url = getattr(r, "url", "")
        # 4xx answers the game gives on purpose (a refused move) are not failures; anything
        # else 4xx/5xx (a missing file, a server error) is.
        if status in (409, 422):
            problems.refused_answers += 1
        elif status >= 400:
            problems.items.append(f"HTTP {status}: {url}")

    page.on("response", on_response)


# The two screens every board test runs on: a phone (touch) and a desktop.
SIZES: dict[str, dict[str, object]] = {
    "phone": {"viewport": {"width": 360, "height": 640}, "has_touch": True, "is_mobile": True},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}


class Device:
    """A browser context of one of ``SIZES``, its page and the page's problems."""

    def __init__(self, name: str, ctx: BrowserContext, page: Page, problems: Problems) -> None:
        self.name = name
        self.ctx = ctx
        self.page = page
        self.problems = problems


def open_device(browser: Browser, name: str, **extra: object) -> Device:
    ctx = browser.new_context(**SIZES[name], **extra)  # type: ignore[arg-type]
    ctx.set_default_timeout(10_000)
    problems = Problems()
    page = ctx.new_page()
    watch(page, problems)
    return Device(name, ctx, page, problems)


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def in_view(page: Page, selector: str) -> None:
    """Every element matching ``selector`` lies wholly inside the viewport."""
    h = page.viewport_size["height"] if page.viewport_size else 0
    w = page.viewport_size["width"] if page.viewport_size else 0
    for box in page.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })"
    ):
        assert box[0] >= 0 and box[2] <= w + 0.5 and box[1] >= 0 and box[3] <= h + 0.5, box


def animations_done(page: Page) -> None:
    """Wait until no finite CSS animation or transition runs (a panel rising, a card landing)."""
    page.wait_for_function(
        """() => document.getAnimations().every(a =>
            a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)"""
    )


def settled(page: Page) -> None:
    """Wait until no card is moving (the motion after an action has ended)."""
    animations_done(page)


def menu(page: Page, button: str) -> None:
    """Click a button of the play page's "More" menu (opening the menu first)."""
    if not page.locator("#more[open]").count():
        page.click("#more-btn")
    page.click(button)


# -- playing by clicking -------------------------------------------------------------------------


def start(page: Page, server: LiveServer, deal: str, variant: str = "scorpion") -> None:
    page.goto(server.url + "/")
    page.fill("#deal", deal)
    page.select_option("#variant-s", variant)
    page.locator("#deal").locator("xpath=ancestor::form").locator("button[type=submit]").click()
    # A game of the variant in progress: the page asks first (it is given up).
    page.locator("#game-head, #confirm-dlg[open]").first.wait_for()
    if page.locator("#confirm-dlg[open]").count():
        page.click("#confirm-yes")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect(page.locator("#game-head")).to_have_attribute("data-version", "1")
    settled(page)  # a fresh game deals its cards out of the stock first


def tap(page: Page, selector: str) -> None:
    """Click a card in its visible strip (the cards on it cover the rest of it)."""
    page.locator(selector).click(position={"x": 12, "y": 8})


def version(page: Page) -> int:
    return int(page.locator("#game-head").get_attribute("data-version") or "0")


def wait_version(page: Page, v: int) -> None:
    expect(page.locator("#game-head")).to_have_attribute("data-version", str(v))


def cards_in(page: Page, col: int) -> int:
    return page.locator(f"#col-{col} .card").count()


def target(page: Page, col: int) -> str:
    return f"#col-{col} .card.top" if cards_in(page, col) else f"#col-{col} .slot"


def drop_by_keys(page: Page, card: str, target: str) -> None:
    """Pick ``card`` up and drop it on ``target`` (a card of another column) by the keyboard,
    which lets the player try any column (the server answers a refusal with its reason). A
    click cannot try an illegal drop: a card with nowhere to go is not picked up, and a second
    click on a column that does not take the held card chooses that card instead."""
    page.focus(card)
    page.keyboard.press("Enter")
    page.focus(target)
    page.keyboard.press("Enter")


def click_move(page: Page, a: int, i: int, b: int) -> None:
    """Tap the card; a card with one legal destination moves at once (one tap), any other is
    picked up and the second tap chooses the column."""
    v = version(page)
    tap(page, f"#board a[href='?select={a}-{i}']")
    moved = f"#game-head[data-version='{v + 1}']"
    expect(page.locator(f"#board a.sel[href='?select={a}-{i}'], {moved}")).to_have_count(1)
    if page.locator(moved).count():
        return
    tap(page, target(page, b))
    wait_version(page, v + 1)


def play_line(page: Page, line: list[tuple[object, ...]]) -> None:
    for action in line:
        if action[0] == "deal":
            v = version(page)
            page.click("#deal-btn")
            wait_version(page, v + 1)
        else:
            _, a, i, b = action
            click_move(page, int(a), int(i), int(b))  # type: ignore[call-overload]


def pixels_near(page: Page, selector: str, colour: tuple[int, int, int]) -> int:
    """How many pixels of a screenshot of the (first) element ``selector`` are within a
    small distance of ``colour``: what the player sees of that colour."""
    from PIL import Image

    png = page.locator(selector).first.screenshot(animations="disabled")
    data = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    r, g, b = colour
    return sum(
        1
        for n in range(0, len(data), 3)
        if abs(data[n] - r) + abs(data[n + 1] - g) + abs(data[n + 2] - b) < 40
    )
