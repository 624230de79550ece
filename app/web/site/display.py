"""The requesting player's display preferences (``Display``: the deck's colours, the theme,
the card size), read at most once per request and kept in its ``scope["state"]``."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from fastapi import Request
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.db.session import request_session
from app.services import BACKS, FELTS, Display, get_display

DISPLAY_KEY = "display"  # the request's ``Display`` in ``scope["state"]``, once read


def html_class(display: Display) -> str:
    """The classes of a page's ``<html>`` element for ``display`` (static/css/app.css):
    ``four-colour``, ``large-cards``, ``theme-light`` / ``theme-dark`` (none for ``auto``,
    where ``prefers-color-scheme`` decides), ``back-red`` ... and ``felt-blue`` ... (none for
    the default blue back and green felt), ``sounds`` (static/js/sounds.js plays only then)."""
    classes = []
    if display.four_colour:
        classes.append("four-colour")
    if display.large_cards:
        classes.append("large-cards")
    if display.theme != "auto":
        classes.append("theme-" + display.theme)
    if display.card_back != BACKS[0]:
        classes.append("back-" + display.card_back)
    if display.felt != FELTS[0]:
        classes.append("felt-" + display.felt)
    if display.sounds:
        classes.append("sounds")
    return " ".join(classes)


def known_display(request: Request) -> Display | None:
    """The request's display preferences if no read is needed: already read, or the player
    is new (no settings row) or unknown."""
    return _display_known(request.scope.setdefault("state", {}))


def remember_display(request: Request, display: Display) -> None:
    """``display``, read by the route with its other reads, for the request's pages."""
    request.scope.setdefault("state", {})[DISPLAY_KEY] = display


def _display_known(state: MutableMapping[str, Any]) -> Display | None:
    found = state.get(DISPLAY_KEY)
    if isinstance(found, Display):
        return found
    player = state.get("player_id")
    if not isinstance(player, str) or state.get("player_is_new"):
        state[DISPLAY_KEY] = Display()
        return state[DISPLAY_KEY]
    return None


def current_display(request: Request, *, quiet: bool = False) -> Display:
    """The requesting player's ``Display``, read once per request (``services.get_display``).

    In a worker thread (a sync route) the read runs on the request's session. On the event
    loop (an async route or an error handler) nothing waits on the database: such a page
    reads it beforehand in a worker thread (``prefetch_display``), else shows the defaults.
    ``quiet``: a failed read (the database is down: an error page) gives the defaults."""
    state = request.scope.setdefault("state", {})
    known = _display_known(state)
    if known is not None:
        return known
    player: str = state["player_id"]
    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread
            display = get_display(request_session(request.scope), player)
        else:
            display = Display()
    except SQLAlchemyError:
        if not quiet:
            raise
        display = Display()
    state[DISPLAY_KEY] = display
    return display


async def prefetch_display(request: Request) -> None:
    """For a page rendered on the event loop (an error handler): read the display preferences
    in a worker thread first. A failed read leaves the defaults."""
    state = request.scope.setdefault("state", {})
    if _display_known(state) is None:
        await run_in_threadpool(lambda: current_display(request, quiet=True))
