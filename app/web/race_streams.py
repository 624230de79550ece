"""Live progress of a shared deal as server-sent events: HTML fragments for the pages
(htmx 4's SSE extension, ``hx-sse:connect``) and JSON for the API.

An event stream holds no database connection while it waits: it reads the standings once
(a short session in a worker thread) and then only listens to the worker's ``RaceHub``.
Nothing here sends a card: race reports carry names, moves, suits completed and a status.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi.responses import StreamingResponse

from app.services.race import Progress
from app.services.race_hub import RESYNC, hub
from app.services.race_panel import panel_rows, snapshot
from app.web.rendering import RACE_STATUS_TEXT, templates

KEEPALIVE_SECONDS = 15.0
STREAM_SECONDS = 600.0  # a stream ends after this long; the browser reconnects by itself
HTML_MIN_INTERVAL = 0.15  # a page's list is re-sent at most this often
SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response (so the OpenAPI schema says so)."""

    media_type = "text/event-stream"


def rows_html(rows: list[Progress], mine: frozenset[int]) -> str:
    """The live panel's list (``partials/race_rows.html``)."""
    shown, more = panel_rows(rows, mine)
    template = templates.env.get_template("partials/race_rows.html")
    return template.render(rows=shown, more=more, mine=mine, status_text=RACE_STATUS_TEXT)


def sse(data: str, event: str | None = None) -> str:
    lines = [f"event: {event}"] if event else []
    lines += [f"data: {line}" for line in data.splitlines() or [""]]
    return "\n".join(lines) + "\n\n"


async def race_events(
    race_id: str,
    player: str,
    render_all: Callable[[dict[int, Progress], frozenset[int]], str],
    render_one: Callable[[Progress, frozenset[int]], str] | None = None,
    min_interval: float = 0.0,
) -> AsyncIterator[str]:
    """The event stream of a race: everyone's standings first, then each change.

    ``render_one`` (the API) sends single reports; without it (the pages) every change
    sends the whole, small list again, at most once per ``min_interval`` seconds (reports
    arriving meanwhile are sent together).
    """
    sub = await hub.subscribe(race_id)
    try:
        rows, mine = await asyncio.to_thread(snapshot, race_id, player)
        state = {p.entry: p for p in rows}
        yield render_all(state, mine)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STREAM_SECONDS
        last_sent = loop.time()
        while loop.time() < deadline:
            try:
                item = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            wait = last_sent + min_interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            batch = [item]
            while not sub.queue.empty():
                batch.append(sub.queue.get_nowait())
            if any(p is None for p in batch):
                return  # the server is shutting down
            if RESYNC in batch:  # reports may have been missed: read the standings again
                rows, mine = await asyncio.to_thread(snapshot, race_id, player)
                state = {p.entry: p for p in rows}
                yield render_all(state, mine)
                continue
            changed: list[Progress] = []
            for p in batch:
                assert isinstance(p, Progress)
                old = state.get(p.entry)
                if old is not None and old.version > p.version:
                    continue  # an older report than the one shown
                state[p.entry] = p
                changed.append(p)
            if not changed:
                continue
            last_sent = loop.time()
            if render_one is None:
                yield render_all(state, mine)
            else:
                for p in changed:
                    yield render_one(p, mine)
    finally:
        hub.unsubscribe(sub)


def html_stream(race_id: str, player: str) -> StreamingResponse:
    """The pages' stream: the panel's whole list again on every change."""

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        return sse(rows_html(list(state.values()), mine))

    return StreamingResponse(
        race_events(race_id, player, render_all, min_interval=HTML_MIN_INTERVAL),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def progress_json(p: Progress, mine: frozenset[int]) -> dict[str, Any]:
    return {
        "name": p.name,
        "you": p.entry in mine,
        "moves": p.moves,
        "suits": p.suits,
        "status": p.status,
        "ranked": p.ranked,
        "entry": p.entry,
    }


def json_stream(race_id: str, player: str) -> StreamingResponse:
    """The API's stream: ``standings`` (everyone) first, then one ``progress`` per report."""

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        body = json.dumps([progress_json(p, mine) for p in state.values()])
        return sse(body, "standings")

    def render_one(p: Progress, mine: frozenset[int]) -> str:
        return sse(json.dumps(progress_json(p, mine)), "progress")

    return StreamingResponse(
        race_events(race_id, player, render_all, render_one),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )
