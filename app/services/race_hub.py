"""Live race progress for the event streams of one worker process, from every worker.

Each worker process has one ``RaceHub``. Event streams subscribe to the races they show and
get ``Progress`` reports in an ``asyncio.Queue``; an idle stream holds no database connection.
The hub brings in the reports made by any worker:

- PostgreSQL: one shared ``LISTEN race_progress`` connection per worker (psycopg 3, async),
  opened on the first subscription; ``pg_notify`` in the action's transaction delivers a
  report when that transaction commits. The connection is re-opened after a failure.
- SQLite: one polling task per worker reads the new rows of ``race_events`` every
  ``RACE_POLL_SECONDS`` (one short query for all of the worker's streams, the connection
  checked out only for it); it stops when the worker's last stream ends.

The application's lifespan (``app.main``) owns the hub: at shutdown ``await hub.close()`` ends
every stream and stops the background task. Uvicorn sends the lifespan shutdown only once its
connections have closed, so the server runs with ``--timeout-graceful-shutdown``: streams still
open then are cancelled, and browsers reconnect to another worker by themselves.

Stream slots (``StreamSlots``, one per worker: ``slots``): a worker holds at most
``MAX_STREAMS_PER_WORKER`` event streams, one player at most ``MAX_STREAMS_PER_PLAYER`` of
them, and one client address (an IPv6 client by its /64: ``app.services.clients``) at most
``MAX_STREAMS_PER_ADDRESS``, cookie or none (a fresh cookie per stream is a new player each
time); one more is refused with ``StreamRefused`` (429 with ``Retry-After``) before it
subscribes. A slot is released when its stream ends, however it ends (the client went away,
the stream's time was up, the server is shutting down).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from typing import Any

import psycopg
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from app.config import get_settings
from app.db.models import RaceEvent
from app.db.session import get_sessionmaker

from .clients import current_address
from .race_progress import CHANNEL, Progress
from .ratelimit import RateLimited

log = logging.getLogger(__name__)
QUEUE_SIZE = 256
RESYNC = "resync"  # a queue item: reports may have been missed, read the standings again
Item = Progress | str | None  # a report, RESYNC, or None: the server is shutting down


STREAM_RETRY_AFTER_SECONDS = 10


class StreamRefused(RateLimited):
    """No event stream slot left, for this player or on this worker (HTTP 429, Retry-After)."""

    def __init__(self, message: str, limit: int) -> None:
        Exception.__init__(self, message)
        self.message = message
        self.scope = "actions"
        self.limit = limit
        self.window_seconds = STREAM_RETRY_AFTER_SECONDS
        self.retry_after = STREAM_RETRY_AFTER_SECONDS


class StreamSlot:
    """One open event stream's place; ``release()`` may be called any number of times."""

    def __init__(self, owner: StreamSlots, player_id: str, address: str | None = None) -> None:
        self._owner = owner
        self.player_id = player_id
        self.address = address
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._owner._release(self.player_id, self.address)


class StreamSlots:
    """How many event streams this worker holds, in all and per player (see module notes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._per_player: dict[str, int] = {}
        self._per_address: dict[str, int] = {}
        self.total = 0

    def held_by(self, player_id: str) -> int:
        return self._per_player.get(player_id, 0)

    def acquire(self, player_id: str, address: str | None = None) -> StreamSlot:
        """A slot for a stream of ``player_id`` from ``address`` (the keyed client address;
        by default the request's, ``current_address``)."""
        settings = get_settings()
        address = address or current_address.get()
        with self._lock:
            if self.total >= settings.max_streams_per_worker:
                raise StreamRefused(
                    "The server is holding as many live updates as it can just now. "
                    f"Please try again in {STREAM_RETRY_AFTER_SECONDS} seconds.",
                    settings.max_streams_per_worker,
                )
            held = self._per_player.get(player_id, 0)
            if held >= settings.max_streams_per_player:
                raise StreamRefused(
                    f"Too many live updates open: at most {settings.max_streams_per_player} "
                    "at a time per player. Close another tab showing a race, then try again "
                    f"in {STREAM_RETRY_AFTER_SECONDS} seconds.",
                    settings.max_streams_per_player,
                )
            from_address = self._per_address.get(address, 0) if address else 0
            if address and from_address >= settings.max_streams_per_address:
                raise StreamRefused(
                    "Too many live updates open from your address: at most "
                    f"{settings.max_streams_per_address} at a time. Close another tab showing "
                    f"a race, then try again in {STREAM_RETRY_AFTER_SECONDS} seconds.",
                    settings.max_streams_per_address,
                )
            self._per_player[player_id] = held + 1
            if address:
                self._per_address[address] = from_address + 1
            self.total += 1
        return StreamSlot(self, player_id, address)

    def _release(self, player_id: str, address: str | None = None) -> None:
        with self._lock:
            if address:
                left = self._per_address.get(address, 0) - 1
                if left > 0:
                    self._per_address[address] = left
                else:
                    self._per_address.pop(address, None)
            held = self._per_player.get(player_id, 0) - 1
            if held > 0:
                self._per_player[player_id] = held
            else:
                self._per_player.pop(player_id, None)
            self.total = max(0, self.total - 1)


class Subscription:
    """A stream's mailbox: progress reports of one race, newest kept if it overflows."""

    def __init__(self, race_id: str) -> None:
        self.race_id = race_id
        self.queue: asyncio.Queue[Item] = asyncio.Queue(QUEUE_SIZE)

    def put(self, item: Item) -> None:
        if self.queue.full():  # a stream that cannot keep up: drop the oldest, then resync
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            if item is not None:
                item = RESYNC
        self.queue.put_nowait(item)


class RaceHub:
    def __init__(self) -> None:
        self._subs: dict[str, set[Subscription]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self.closing: asyncio.Event | None = None
        self.listen_connections = 0  # open LISTEN connections of this process (0 or 1)

    # -- subscriptions ---------------------------------------------------------------------

    async def subscribe(self, race_id: str) -> Subscription:
        """Subscribe to ``race_id``; returns once reports made from now on will arrive."""
        self._ensure_running()
        sub = Subscription(race_id)
        self._subs.setdefault(race_id, set()).add(sub)
        if self.closing is not None and self.closing.is_set():
            sub.put(None)  # shutting down: the stream ends at once
        assert self._ready is not None
        await asyncio.wait_for(self._ready.wait(), timeout=10)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.race_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.race_id]

    @property
    def subscribers(self) -> int:
        return sum(len(s) for s in self._subs.values())

    def dispatch(self, race_id: str, progress: Progress) -> None:
        for sub in list(self._subs.get(race_id, ())):
            sub.put(progress)

    def close_streams(self) -> None:
        """End every stream of this process (the server is shutting down)."""
        if self.closing is not None:
            self.closing.set()
        for subs in self._subs.values():
            for sub in subs:
                sub.put(None)

    async def close(self) -> None:
        """End every stream and stop the background task (the application shuts down)."""
        self.close_streams()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _resync_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.put(RESYNC)

    def _dispatch_payload(self, payload: str) -> None:
        try:
            data: dict[str, Any] = json.loads(payload)
            self.dispatch(str(data["race"]), Progress.from_dict(data))
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed race progress report")

    # -- the background task -----------------------------------------------------------------

    def _ensure_running(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # first use, or a new event loop (tests)
            self._subs = {}
            self._loop = loop
            self._task = None
            self._ready = asyncio.Event()
            self.closing = asyncio.Event()
        if self._task is None or self._task.done():
            assert self._ready is not None
            self._ready.clear()
            url = get_settings().database_url
            runner = self._listen(url) if url.startswith("postgresql") else self._poll()
            self._task = loop.create_task(runner, name="race-hub")

    async def _listen(self, url: str) -> None:
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        delay = 0.2
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
            except psycopg.Error as exc:
                log.warning("race hub: cannot connect to listen (%s); retrying", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            self.listen_connections += 1
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
                assert self._ready is not None
                if self._ready.is_set():  # a new connection: reports made meanwhile are lost
                    self._resync_all()
                self._ready.set()
                delay = 0.2
                async for note in conn.notifies():
                    self._dispatch_payload(note.payload)
            except psycopg.Error as exc:
                log.warning("race hub: listen connection lost (%s); reconnecting", exc)
            finally:
                self.listen_connections -= 1
                with contextlib.suppress(Exception):
                    await conn.close()

    async def _poll(self) -> None:
        interval = get_settings().race_poll_seconds
        last = await asyncio.to_thread(_max_event_id)
        assert self._ready is not None
        self._ready.set()
        while True:
            await asyncio.sleep(interval)
            if not self._subs:  # nobody left to tell: stop (the next subscriber restarts it)
                self._ready.clear()
                return
            try:
                rows = await asyncio.to_thread(_events_since, last)
            except Exception as exc:  # noqa: BLE001 - a busy or failing database: try again
                log.warning("race hub: polling failed (%s)", exc)
                continue
            for event_id, race_id, payload in rows:
                last = max(last, event_id)
                if race_id in self._subs:
                    self._dispatch_payload(payload)


def _max_event_id() -> int:
    with get_sessionmaker()() as db:
        return int(db.execute(select(func.coalesce(func.max(RaceEvent.id), 0))).scalar_one())


def _events_since(last: int) -> list[tuple[int, str, str]]:
    """Every race's events after ``last`` (all of them, so ``last`` never skips one)."""
    with get_sessionmaker()() as db:
        rows = db.execute(
            select(RaceEvent.id, RaceEvent.race_id, RaceEvent.payload)
            .where(RaceEvent.id > last)
            .order_by(RaceEvent.id)
            .limit(2000)
        ).all()
        return [(int(i), str(r), str(p)) for i, r, p in rows]


hub = RaceHub()
slots = StreamSlots()
