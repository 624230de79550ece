"""A cap on request bodies (``MAX_BODY_BYTES``, default 64 KiB), before anything reads them.

No request of this site needs more than a few hundred bytes: the longest is a three-deck deal
string. The one ASGI middleware (``app.web.front``) applies it before identity and CSRF (which
may read a form body), so an oversized body is refused before any of it is parsed or buffered:

- a ``Content-Length`` over the limit is answered ``413`` at once, without reading the body;
- a body without a length (chunked) is counted as it arrives; at the first byte past the limit
  the client gets ``413`` and the app sees the client go away (``http.disconnect``), so it
  stops reading and nothing is written.

The answer is the site's usual JSON error: ``{"detail": "..."}``.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Send

from app.web.asgi import json_detail_reply


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


async def refuse(send: Send, limit: int) -> None:
    """Answer ``413`` at once."""
    for message in _too_large(limit):
        await send(message)


class BodyGuard:
    """One request's cap on a body without a (trusted) length, counted as it arrives:
    ``receive`` past the limit answers ``413`` (through ``send``, unless the app's answer has
    ``started``) and tells the app the client went away (``refused``: whatever the app says
    after that is dropped by the caller)."""

    __slots__ = ("limit", "received", "refused", "started", "_receive", "_send")

    def __init__(self, limit: int, receive: Receive, send: Send) -> None:
        self.limit = limit
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
                    await refuse(self._send, self.limit)
                return {"type": "http.disconnect"}
        return message
