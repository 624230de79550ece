"""Live pages stay live (issue 11, point 9), in real browsers.

- A challenge raced by three players (three browser contexts, three cookies): on each
  player's challenge page every table (the live race, the side-by-side table, the leaderboard)
  follows the race over the event stream without a reload, and each player is listed once
  even after playing the deal three times.
- A daily page whose event stream ends (the server ends every stream after ``STREAM_SECONDS``)
  reconnects by itself, and what happened while it was away shows at once: the panel and the
  leaderboard catch up.

Moves are made through the JSON API with each player's own cookie (the pages under test are
the challenge and daily pages, not the board).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from tests.support.browser import Problems, menu, shot, start, watch
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer, fresh_server

pytestmark = pytest.mark.e2e

NAMES = ("Ann", "Bob", "Cy")


class Player:
    def __init__(self, name: str, ctx: BrowserContext, page: Page) -> None:
        self.name = name
        self.ctx = ctx
        self.page = page
        self.game = ""  # the id of the game they play now

    def act(self, server: LiveServer, line: list[tuple[object, ...]]) -> None:
        """Play ``line`` in the player's game through the JSON API (their own cookie)."""
        req = self.ctx.request
        token = req.get(server.url + "/api/session").json()["csrf_token"]
        h = {"X-CSRF-Token": token}
        for a in line:
            base = f"{server.url}/api/games/{self.game}"
            if a[0] == "deal":
                r = req.post(base + "/deal", headers=h)
            else:
                body = {"from_column": a[1], "from_index": a[2], "to_column": a[3]}
                r = req.post(base + "/moves", data=body, headers=h)
            assert r.status == 200, r.text()

    def act_hinted(self, server: LiveServer, n: int) -> None:
        """Make ``n`` moves the hints offer (the first one; the deal if there is no move)."""
        for _ in range(n):
            hints = self.ctx.request.get(f"{server.url}/api/games/{self.game}/hints").json()
            if hints["moves"]:
                m = hints["moves"][0]
                self.act(server, [("move", m["from_column"], m["from_index"], m["to_column"])])
            else:
                assert hints["can_deal"], "no move left on the daily deal"
                self.act(server, [("deal",)])

    def playing(self) -> None:
        """The player's page is on their game (after a Play button): note its id."""
        self.page.wait_for_url(re.compile(r"/games/[\w-]+$"))
        self.game = self.page.url.rsplit("/", 1)[1]


def open_players(browser: Browser, problems: Problems, n: int) -> list[Player]:
    players = []
    for name in NAMES[:n]:
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx.set_default_timeout(10_000)
        page = ctx.new_page()
        watch(page, problems)
        players.append(Player(name, ctx, page))
    return players


def set_name(p: Player, server: LiveServer) -> None:
    p.page.goto(server.url + "/privacy")
    p.page.fill("#display_name", p.name)
    p.page.locator("#profile-form button[type=submit]").click()
    expect(p.page.locator("#done")).to_contain_text("name")


@contextmanager
def named_players(browser: Browser, server: LiveServer, n: int) -> Iterator[list[Player]]:
    """The first ``n`` of ``NAMES``, each in a browser context of their own with that display
    name; their pages are checked for console errors and failed requests at the end."""
    problems = Problems()
    players = open_players(browser, problems, n)
    try:
        for p in players:
            set_name(p, server)
        yield players
    finally:
        for p in players:
            p.ctx.close()
    problems.check()


@contextmanager
def daily_players(browser: Browser, server: LiveServer) -> Iterator[tuple[Player, Player]]:
    """Ann and Bob (``named_players``), each on their game of today's daily deal."""
    with named_players(browser, server, 2) as (ann, bob):
        for p in (ann, bob):
            p.page.goto(server.url + "/daily/scorpion")
            p.page.click("#daily-play")
            p.playing()
        yield ann, bob


@pytest.fixture()
def three(browser: Browser, server: LiveServer) -> Iterator[list[Player]]:
    with named_players(browser, server, 3) as players:
        yield players


def stay(page: Page) -> None:
    """Mark the document: ``still_here`` fails if the page was loaded again since."""
    page.evaluate("window.__stay = true")


def still_here(page: Page) -> None:
    assert page.evaluate("window.__stay === true"), "the page was reloaded"


def race_row(page: Page, name: str) -> object:
    return page.locator("#race-live .race-row", has_text=name)


def side(page: Page, name: str) -> object:
    return page.locator("#compare tbody tr", has_text=name)


def listed_once(page: Page) -> None:
    """Every player exactly once in the live race and in the side-by-side table."""
    for rows in ("#race-live .race-row", "#compare tbody tr"):
        expect(page.locator(rows)).to_have_count(len(NAMES))
        for name in NAMES:
            expect(page.locator(rows, has_text=name)).to_have_count(1)


def test_every_table_of_a_challenge_follows_the_race(
    three: list[Player], server: LiveServer
) -> None:
    ann, bob, cy = three
    start(ann.page, server, WIN_DEAL)
    ann.game = ann.page.url.rsplit("/", 1)[1]
    menu(ann.page, "#challenge-btn")
    ann.page.wait_for_url(re.compile(r"/challenge/[\w-]+$"))
    link = ann.page.url

    # Bob plays the deal three times (his first game, then twice again, unranked).
    bob.page.goto(link)
    bob.page.click("#challenge-play")
    bob.playing()
    bob.act(server, WIN_LINE[:1])
    for k in range(2):
        bob.page.goto(link)
        bob.page.click("#challenge-again")
        if k == 0:  # His game in progress is given up: the page asks first.
            expect(bob.page.locator("#confirm-dlg")).to_contain_text("This gives up the game")
            bob.page.click("#confirm-yes")
        # (the second time, his replay was left untouched: not a game yet, nothing asks)
        bob.playing()
    cy.page.goto(link)
    cy.page.click("#challenge-play")
    cy.playing()

    for p in three:
        p.page.goto(link)
        stay(p.page)
        listed_once(p.page)
    # Bob's first game was given up when he played again: his row is his newest game.
    expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "0")
    expect(side(ann.page, "Bob")).to_contain_text("(replay)")

    # Each player's moves reach every page: the live race and the side-by-side table.
    ann.act(server, WIN_LINE[:3])
    bob.act(server, WIN_LINE[:2])
    cy.act(server, WIN_LINE[:1])
    for p in three:
        for name, moves, suits in (("Ann", 3, 1), ("Bob", 2, 0), ("Cy", 1, 0)):
            expect(race_row(p.page, name)).to_have_attribute("data-moves", str(moves))
            expect(race_row(p.page, name)).to_have_attribute("data-suits", str(suits))
            row = side(p.page, name)
            expect(row.locator("td").nth(0)).to_have_text(str(moves))
            expect(row.locator("td").nth(2)).to_have_text(f"{suits}/4")
        listed_once(p.page)

    # Ann wins: every page says so, in every table, the leaderboard included.
    ann.act(server, WIN_LINE[3:])
    for p in three:
        expect(race_row(p.page, "Ann")).to_have_attribute("data-status", "won")
        expect(side(p.page, "Ann")).to_contain_text("finished: won")
        expect(p.page.locator(".lb-wins")).to_contain_text("Ann")
        listed_once(p.page)
        still_here(p.page)
    shot(bob.page, "challenge-live-1280x800")


# -- the daily page: its stream ends, it reconnects and catches up ----------------------------


@pytest.fixture(scope="module")
def short_streams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own (a fresh daily deal) whose event streams end after 6 seconds."""
    env = {"RATE_LIMITS": "off", "RANKED_MIN_SECONDS_PER_MOVE": "0", "STREAM_SECONDS": "6"}
    with fresh_server(tmp_path_factory.mktemp("e2e-streams"), env) as live:
        yield live


def wait_for(page: Page, ready: Callable[[], bool], seconds: float = 15) -> None:
    """Wait (letting Playwright dispatch its events, route handlers included) until ready."""
    for _ in range(int(seconds * 10)):
        if ready():
            return
        page.wait_for_timeout(100)
    raise AssertionError("the page did not try to reconnect")


def test_a_daily_page_reconnects_and_catches_up(
    browser: Browser, short_streams: LiveServer
) -> None:
    server = short_streams
    with daily_players(browser, server) as (ann, bob):
        # Ann watches the daily page. Once it has shown a live update, its new streams are
        # held back until the test lets them through (the page is away meanwhile). Holding
        # starts on a flag, not on counting requests: a stream the game page was reconnecting
        # as it was left must not be taken for the daily page's first one.
        away: list[bool] = []
        held: list[Route] = []

        def hold(route: Route) -> None:
            if away:
                held.append(route)
            else:
                route.continue_()

        ann.page.route(re.compile(r"/daily/scorpion/events$"), hold)
        ann.page.goto(server.url + "/daily/scorpion")
        stay(ann.page)
        expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "0")

        # Live while the stream is up: the panel and the leaderboard.
        bob.act_hinted(server, 1)
        expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "1")
        bob_listed = ann.page.locator(".lb-others tbody tr", has_text="Bob")
        expect(bob_listed.locator("td").first).to_have_text("1")
        away.append(True)

        # The server ends the stream; the page tries again (held: it is away).
        wait_for(ann.page, lambda: bool(held))
        bob.act_hinted(server, 2)  # Bob plays on while Ann's page is away
        ann.page.wait_for_timeout(600)
        expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "1")

        # Back: the panel and the leaderboard catch up without a reload.
        for route in held:
            route.continue_()
        ann.page.unroute(re.compile(r"/daily/scorpion/events$"))
        expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "3")
        expect(bob_listed.locator("td").first).to_have_text("3")
        expect(ann.page.locator("#race-live .race-row")).to_have_count(2)
        still_here(ann.page)
        shot(ann.page, "daily-caught-up-1280x800")


def test_a_live_panel_connects_even_when_its_extension_loads_late(
    browser: Browser, server: LiveServer
) -> None:
    """The race panel's event stream opens even when the SSE extension's script arrives well
    after the page (a slow connection): htmx must not start before the extension is there,
    or the panel stays as it was rendered."""
    with daily_players(browser, server) as (ann, bob):
        held: list[Route] = []

        def hold(route: Route) -> None:
            held.append(route)

        ann.page.route(re.compile(r"htmx-ext-sse"), hold)
        # The site's service worker would answer the script from its cache, out of reach of
        # page.route: this page goes to the network (the worker comes back after its load).
        ann.page.evaluate(
            """async () => {
                 const registrations = await navigator.serviceWorker.getRegistrations();
                 for (const r of registrations) await r.unregister();
                 for (const name of await caches.keys()) await caches.delete(name);
               }"""
        )
        ann.page.goto(server.url + "/daily/scorpion", wait_until="commit")
        wait_for(ann.page, lambda: bool(held))
        ann.page.wait_for_timeout(1_000)  # the page is parsed; the extension is not there yet
        for route in held:
            route.continue_()
        ann.page.wait_for_load_state("load")
        bob.act_hinted(server, 1)
        expect(race_row(ann.page, "Bob")).to_have_attribute("data-moves", "1")
