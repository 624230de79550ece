"""A cap on request bodies (``MAX_BODY_BYTES``, default 64 KiB), before anything reads them.

No request of this site needs more than a few hundred bytes: the longest is a three-deck deal
string. The one ASGI middleware (``app.web.front``) applies it before identity and CSRF (which
may read a form body), so an oversized body is refused before any of it is parsed or buffered:

- a ``Content-Length`` over the limit is answered ``413`` without handing the body to the app;
- a body without a length (chunked) is counted as it arrives; at the first byte past the limit
  the client gets ``413`` and the app sees the client go away (``http.disconnect``), so it
  stops reading and nothing is written.

The answer is the site's usual JSON error: ``{"detail": "..."}``, then the connection closes;
for a form whose refusal a browser shows (``location``: the privacy page's import), a ``303``
to that page instead, which says why (issue 39: a refusal on a page is a page, not JSON).
An ordinary HTTP client sends the whole body before it reads the answer, and a server that
closes with part of the body unread resets the connection under it (issue 34: the client saw
the reset, not the 413). So the rest of a refused body is read and thrown away first, up to
``DRAIN_BYTES`` and ``DRAIN_SECONDS`` (a bigger or slower body is cut off as before), unless
the client waits to be told (``Expect: 100-continue``): then it hears the 413 before sending any
of it.
"""

from __future__ import annotations

import asyncio

from starlette.types import Message, Receive, Send

from app.web.asgi import json_detail_reply

# What is read and thrown away of a refused body at most, and for how long, before answering.
DRAIN_BYTES = 32 * 1024 * 1024
DRAIN_SECONDS = 15.0


def _too_large(limit: int) -> tuple[Message, Message]:
    detail = (
        f"This request is too large: at most {limit:,} bytes are accepted. Nothing was changed."
    )
    return json_detail_reply(413, detail, [(b"connection", b"close")])


def declared_too_large(content_length: bytes | None, limit: int) -> bool:
    """Whether a ``Content-Length`` says more than ``limit`` (an unreadable one is not trusted
    either)."""
    if content_length is None:
        return False
    try:
        return int(content_length) > limit
    except ValueError:
        return True


def may_drain(content_length: bytes | None, expect: bytes | None) -> bool:
    """Whether the rest of a body refused for its ``Content-Length`` is worth reading before
    answering: not when the client waits for ``100 Continue`` (it sends nothing until told),
    nor when it says it sends more than ``DRAIN_BYTES`` (or says it unreadably)."""
    if expect is not None and expect.strip().lower() == b"100-continue":
        return False
    try:
        return content_length is not None and int(content_length) <= DRAIN_BYTES
    except ValueError:
        return False


async def drain(receive: Receive, received: int = 0) -> None:
    """Read and throw away the rest of a request's body (``received`` bytes of it are read
    already), up to ``DRAIN_BYTES`` in all and ``DRAIN_SECONDS``; stops early when the
    client goes away."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            while received <= DRAIN_BYTES:
                message = await receive()
                if message["type"] != "http.request":
                    return
                received += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        return


def _see_other(location: str) -> tuple[Message, Message]:
    start: Message = {
        "type": "http.response.start",
        "status": 303,
        "headers": [
            (b"location", location.encode("latin-1")),
            (b"content-length", b"0"),
            (b"cache-control", b"no-store"),
            (b"connection", b"close"),
        ],
    }
    return start, {"type": "http.response.body", "body": b""}


async def refuse(
    send: Send, limit: int, receive: Receive | None = None, location: str | None = None
) -> None:
    """Answer ``413`` (or, given a ``location``, ``303`` to it): after reading the rest of the
    body through ``receive`` (``drain``), or at once without it."""
    if receive is not None:
        await drain(receive)
    for message in _see_other(location) if location else _too_large(limit):
        await send(message)


class BodyGuard:
    """One request's cap on a body without a (trusted) length, counted as it arrives:
    ``receive`` past the limit reads the rest of the body (``drain``), answers ``413`` (through
    ``send``, unless the app's answer has ``started``) and tells the app the client went away
    (``refused``: whatever the app says after that is dropped by the caller)."""

    __slots__ = ("limit", "location", "received", "refused", "started", "_receive", "_send")

    def __init__(
        self, limit: int, receive: Receive, send: Send, location: str | None = None
    ) -> None:
        self.limit = limit
        self.location = location
        self.received = 0
        self.refused = False
        self.started = False
        self._receive = receive
        self._send = send

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refused = True
                if not self.started:
                    if message.get("more_body", False):
                        await drain(self._receive, self.received)
                    await refuse(self._send, self.limit, location=self.location)
                return {"type": "http.disconnect"}
        return message
