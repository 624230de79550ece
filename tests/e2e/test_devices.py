"""Carrying a player to another device, in Chromium, on a phone (360x640, touch) and a
desktop (1280x800): the first device makes a link code (with its QR code), a second browser
context enters it and sees the same statistics; removing it cuts it off; the data file
downloads and imports into a third browser."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import Device, open_device, play_line, shot, start
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.server import LiveServer


@pytest.fixture()
def other(browser: Browser, device: Device) -> Iterator[Device]:
    """A second browser context of the same size: another device of the same person."""
    extra = open_device(browser, device.name)
    yield extra
    extra.problems.check()
    extra.ctx.close()


def statistics(page: Page, server: LiveServer) -> list[str]:
    page.goto(server.url + "/stats")
    return [t.strip() for t in page.locator("table td").all_inner_texts()]


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= (page.viewport_size or {"width": 0})["width"], width


def test_link_another_device_by_code(device: Device, other: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE)
    expect(page.locator("#win")).to_be_visible()
    mine = statistics(page, server)
    assert "1" in mine

    page.goto(server.url + "/privacy")
    page.click("#link-form button[type=submit]")  # htmx: the panel alone is replaced
    code = page.locator("#link-code").inner_text().strip()
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code)
    expect(page.locator("#link-panel .qr svg")).to_be_visible()
    no_sideways_scroll(page)
    shot(page, f"link-code-{device.name}")

    second = other.page
    second.goto(server.url + "/link?code=" + code.replace("-", ""))  # as the QR code opens it
    expect(second.locator("#code")).to_have_value(code)
    no_sideways_scroll(second)
    second.click("#join-form button[type=submit]")
    expect(second.locator("#linked")).to_be_visible()
    # The page's other form, the footer's language switch, now carries the linked device's
    # token (swapped in with the answer): it works, and the page answers in Chinese.
    second.locator("#lang-zh-CN").click()
    expect(second.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(second.locator("h1")).to_have_text("关联这台设备")
    second.locator("#lang-en").click()
    expect(second.locator("html")).to_have_attribute("lang", "en")
    assert statistics(second, server) == mine

    # Both devices are listed on the first one; removing the second cuts it off.
    page.goto(server.url + "/privacy")
    expect(page.locator("#device-list li")).to_have_count(2)
    expect(page.locator("#device-list li.this-device")).to_have_count(1)
    page.locator("#device-list li:not(.this-device) button").click()
    expect(page.locator("#done")).to_contain_text("The device is removed")
    expect(page.locator("#device-list li")).to_have_count(1)
    assert statistics(second, server) != mine


def test_download_and_import_your_data(device: Device, other: Device, server: LiveServer) -> None:
    page = device.page
    start(page, server, WIN_DEAL)
    play_line(page, WIN_LINE)
    expect(page.locator("#win")).to_be_visible()
    mine = statistics(page, server)
    page.goto(server.url + "/privacy")
    with page.expect_download() as download:
        page.click("#export-link")
    path = download.value.path()
    assert download.value.suggested_filename.startswith("scorpion-data-")

    second = other.page
    second.goto(server.url + "/privacy")
    second.set_input_files("#import-file", str(path))
    second.check("#import-confirm")
    second.click("#import-form button[type=submit]")
    expect(second.locator("#done")).to_contain_text("Your data file is imported")
    no_sideways_scroll(second)
    assert statistics(second, server) == mine
