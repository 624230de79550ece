"""Browser tests: Debian's Chromium driven by Playwright's *sync* API against a real server.

The server is ``uvicorn app.main:app`` in a subprocess on a free port
(``tests.support.server.LiveServer``), with a fresh SQLite database migrated by
``alembic upgrade head``. Every page records console errors, page errors
and failed requests; a test fails if any occurred. Run these tests in their own pytest call
(``pytest tests/e2e``): sync Playwright does not mix with async tests in one process.
Playwright downloads nothing: the browser is Debian's ``/usr/bin/chromium``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    sync_playwright,
)

from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SIZES,
    Device,
    Problems,
    open_device,
    watch,
)
from tests.support.server import LiveServer, fresh_server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the session: a fresh SQLite database, migrated, one worker. A scripted
    browser wins in far less than a human could, so the plausibility floor of ranked wins
    (``RANKED_MIN_SECONDS_PER_MOVE``, tested on its own in tests/services and tests/api) is 0."""
    env = {"RATE_LIMITS": "off", "RANKED_MIN_SECONDS_PER_MOVE": "0"}
    with fresh_server(tmp_path_factory.mktemp("e2e"), env) as live:
        yield live


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture()
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture()
def page(context: BrowserContext) -> Iterator[Page]:
    problems = Problems()
    p = context.new_page()
    watch(p, problems)
    yield p
    problems.check()


@pytest.fixture(params=list(SIZES))
def device(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Device]:
    """A fresh context on a phone (360x640, touch) and on a desktop (1280x800)."""
    d = open_device(browser, request.param)
    yield d
    d.ctx.close()
    d.problems.check()
