"""Browser tests: Debian's Chromium driven by Playwright's *sync* API against a real server.

The server is ``uvicorn app.main:app`` in a subprocess on a free port, with a fresh SQLite
database migrated by ``alembic upgrade head``. Every page records console errors, page errors
and failed requests; a test fails if any occurred. Run these tests in their own pytest call
(``pytest tests/e2e``): sync Playwright does not mix with async tests in one process.
Playwright downloads nothing: the browser is Debian's ``/usr/bin/chromium``.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    sync_playwright,
)

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    base_url: str
    proc: subprocess.Popen[bytes]
    log: Path


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("e2e")
    db = tmp / "scorpion.db"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "RATE_LIMITS": "off",
        "ENVIRONMENT": "test",
        "PYTHONPATH": str(ROOT),
    }
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    port = _free_port()
    log = tmp / "uvicorn.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base + "/rules", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("uvicorn did not start:\n" + log.read_text())
        time.sleep(0.1)
    try:
        yield Server(base, proc, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@dataclass
class Problems:
    items: list[str] = field(default_factory=list)
    # A refused move is answered 422 on purpose (and a stale version 409); Chromium logs each
    # such answer as "Failed to load resource". Those lines are counted, not ignored: their
    # number must equal the number of 409/422 answers the page received.
    refused_logs: int = 0
    refused_answers: int = 0

    def check(self) -> None:
        assert self.items == [], "console errors or failed requests:\n" + "\n".join(self.items)
        assert self.refused_logs == self.refused_answers


REFUSED_LOG = re.compile(
    r"^Failed to load resource: the server responded with a status of 4(09|22)"
)


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
        # Leaving a page cancels its open event stream (a live race): the browser reports the
        # request as aborted to Playwright but writes nothing to the console.
        if url.endswith("/events") and "ERR_ABORTED" in failure:
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


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def menu(page: Page, button: str) -> None:
    """Click a button of the play page's "More" menu (opening the menu first)."""
    if not page.locator("#more[open]").count():
        page.click("#more-btn")
    page.click(button)


def settled(page: Page) -> None:
    """Wait until no card is moving (the motion after an action has ended)."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
