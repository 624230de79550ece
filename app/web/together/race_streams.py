"""Live progress of a shared deal as server-sent events: HTML fragments for the pages
(htmx 4's SSE extension, ``hx-sse:connect``) and JSON for the API.

An event stream holds no database connection while it waits: it reads the standings once
(a short session in a worker thread) and then only listens to the worker's ``RaceHub``.
Nothing here sends a card: race reports carry names, moves, suits completed and a status.

Each stream takes a slot first (``race_hub.slots``: at most ``MAX_STREAMS_PER_PLAYER`` per
player and ``MAX_STREAMS_PER_WORKER`` per worker; one more is a 429 with ``Retry-After``); the
slot is released when the stream ends or the client goes away. A race update is rendered once
per worker: streams showing the same standings to the same viewer (a spectator, or the same
player) share the rendered bytes (``RenderCache``), so a thousand streams cost one render and
a thousand writes, not a thousand renders.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Any

from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from app.config import get_settings
from app.i18n import current_locale
from app.services.race_hub import RESYNC, StreamSlot, hub, slots
from app.services.race_panel import panel_rows, snapshot
from app.services.race_progress import Progress
from app.web.site.templating import templates

KEEPALIVE_SECONDS = 15.0
# A stream ends after ``STREAM_SECONDS`` (settings); the browser reconnects by itself and the
# new stream starts with everyone's standings, so the page catches up with what it missed.
HTML_MIN_INTERVAL = 0.15  # a page's list is re-sent at most this often
SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response (so the OpenAPI schema says so)."""

    media_type = "text/event-stream"


class SlotStreamResponse(StreamingResponse):
    """An event stream holding a stream slot, released when the response ends, however it
    ends (even if the stream never started: the client went away first)."""

    def __init__(self, content: AsyncIterator[str], slot: StreamSlot) -> None:
        super().__init__(content, media_type="text/event-stream", headers=SSE_HEADERS)
        self.slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slot.release()


class RenderCache:
    """Rendered event text by what it shows, shared by every stream of the worker (LRU).

    Used from the event loop's thread only."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, str] = OrderedDict()
        self.renders = 0  # how many times something was actually rendered (tests, benchmarks)

    def get(self, key: Hashable, render: Callable[[], str]) -> str:
        text = self._items.get(key)
        if text is not None:
            self._items.move_to_end(key)
            return text
        text = render()
        self.renders += 1
        self._items[key] = text
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return text


render_cache = RenderCache()
_MASK = (1 << 64) - 1


def _fingerprint(state: dict[int, Progress]) -> int:
    """An order-free digest of the standings (kept up to date as reports replace rows)."""
    return sum(hash(p) for p in state.values()) & _MASK


def rows_html(rows: list[Progress], mine: frozenset[int]) -> str:
    """The live panel's list (``partials/race_rows.html``)."""
    shown, more = panel_rows(rows, mine)
    template = templates.env.get_template("partials/race_rows.html")
    status_text = templates.env.globals["race_status_text"]  # (translated)
    return template.render(rows=shown, more=more, mine=mine, status_text=status_text)


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
    *,
    kind: str = "",
    slot: StreamSlot | None = None,
) -> AsyncIterator[str]:
    """The event stream of a race: everyone's standings first, then each change.

    ``render_one`` (the API) sends single reports; without it (the pages) every change
    sends the whole, small list again, at most once per ``min_interval`` seconds (reports
    arriving meanwhile are sent together). ``kind`` names the rendering for the shared
    ``render_cache``; ``slot`` is released when the stream ends.
    """
    try:
        async for text in _race_events(race_id, player, render_all, render_one, min_interval, kind):
            yield text
    finally:
        if slot is not None:
            slot.release()


async def _race_events(
    race_id: str,
    player: str,
    render_all: Callable[[dict[int, Progress], frozenset[int]], str],
    render_one: Callable[[Progress, frozenset[int]], str] | None,
    min_interval: float,
    kind: str,
) -> AsyncIterator[str]:
    state: dict[int, Progress] = {}
    fingerprint = 0
    mine: frozenset[int] = frozenset()

    def all_text() -> str:
        # (in the request's language: the page's rows are words)
        key = (kind, "all", race_id, mine, len(state), fingerprint, current_locale.get())
        return render_cache.get(key, lambda: render_all(state, mine))

    def one_text(p: Progress) -> str:
        assert render_one is not None
        key = (kind, "one", race_id, p, p.entry in mine)
        return render_cache.get(key, lambda: render_one(p, mine))

    sub = await hub.subscribe(race_id)
    try:
        rows, mine = await asyncio.to_thread(snapshot, race_id, player)
        state = {p.entry: p for p in rows}
        fingerprint = _fingerprint(state)
        yield all_text()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + get_settings().stream_seconds
        last_sent = loop.time()
        while loop.time() < deadline:
            if sub.queue.empty():
                idle = min(KEEPALIVE_SECONDS, deadline - loop.time())
                try:  # asyncio.timeout: no extra task per wait (wait_for makes one)
                    async with asyncio.timeout(idle):
                        item = await sub.queue.get()
                except TimeoutError:
                    if loop.time() < deadline:
                        yield ": keep-alive\n\n"
                    continue
            else:
                item = sub.queue.get_nowait()
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
                fingerprint = _fingerprint(state)
                yield all_text()
                continue
            changed: list[Progress] = []
            for p in batch:
                assert isinstance(p, Progress)
                old = state.get(p.entry)
                if old is not None and old.version > p.version:
                    continue  # an older report than the one shown
                if old is not None:
                    fingerprint = (fingerprint - hash(old)) & _MASK
                state[p.entry] = p
                fingerprint = (fingerprint + hash(p)) & _MASK
                changed.append(p)
            if not changed:
                continue
            last_sent = loop.time()
            if render_one is None:
                yield all_text()
            else:
                for p in changed:
                    yield one_text(p)
    finally:
        hub.unsubscribe(sub)


def html_stream(race_id: str, player: str) -> StreamingResponse:
    """The pages' stream: the panel's whole list again on every change. Raises
    ``StreamRefused`` (429) when no stream slot is left."""

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        return sse(rows_html(list(state.values()), mine))

    slot = slots.acquire(player)
    events = race_events(
        race_id, player, render_all, min_interval=HTML_MIN_INTERVAL, kind="html", slot=slot
    )
    return SlotStreamResponse(events, slot)


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
    """The API's stream: ``standings`` (everyone) first, then one ``progress`` per report.
    Raises ``StreamRefused`` (429) when no stream slot is left."""

    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        body = json.dumps([progress_json(p, mine) for p in state.values()])
        return sse(body, "standings")

    def render_one(p: Progress, mine: frozenset[int]) -> str:
        return sse(json.dumps(progress_json(p, mine)), "progress")

    slot = slots.acquire(player)
    events = race_events(race_id, player, render_all, render_one, kind="json", slot=slot)
    return SlotStreamResponse(events, slot)
