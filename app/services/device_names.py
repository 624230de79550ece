"""A device's name, read from its browser's User-Agent: "Chromium on Linux" (issue 33).

Its own module because both ``app.services.common`` (a new player's first device) and
``app.services.devices`` (a linked device, a device seen again) name devices, and devices
builds on common.
"""

from __future__ import annotations

UNKNOWN = "Unknown browser"

# The first entry whose marker stands in the User-Agent names it; the order matters (Edge's and
# Opera's agents name Chrome too, Chrome's names Safari, Android's names Linux).
_BROWSERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Edg/", "Edge/", "EdgA/"), "Edge"),
    (("OPR/", "Opera"), "Opera"),
    (("Firefox/", "FxiOS/"), "Firefox"),
    (("Chromium/", "HeadlessChrome/"), "Chromium"),
    (("Chrome/", "CriOS/"), "Chrome"),
    (("Safari/",), "Safari"),
)
_SYSTEMS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Android",), "Android"),
    (("iPhone", "iPad", "iPod"), "iOS"),
    (("CrOS",), "ChromeOS"),
    (("Windows",), "Windows"),
    (("Macintosh", "Mac OS X"), "macOS"),
    (("Linux",), "Linux"),
)


def _first_named(user_agent: str, table: tuple[tuple[tuple[str, ...], str], ...]) -> str | None:
    for markers, name in table:
        if any(marker in user_agent for marker in markers):
            return name
    return None


def device_name(user_agent: str) -> str:
    """A short name for a browser from its User-Agent: "Chromium on Linux"."""
    ua = user_agent or ""
    if not ua:
        return UNKNOWN
    browser = _first_named(ua, _BROWSERS) or "Browser"
    system = _first_named(ua, _SYSTEMS)
    return f"{browser} on {system}" if system else browser
