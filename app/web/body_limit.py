"""A cap on request bodies (``MAX_BODY_BYTES``, default 64 KiB), before anything reads them.

No request of this site needs more than a few hundred bytes: the longest is a three-deck deal
string. ``BodyLimitMiddleware`` is a plain ASGI middleware, outside identity and CSRF (which may
read a form body), so an oversized body is refused before any of it is parsed or buffered:

- a ``Content-Length`` over the limit is answered ``413`` at once, without reading the body;
- a body without a length (chunked) is counted as it arrives; at the first byte past the limit
  the client gets ``413`` and the app sees the client go away (``http.disconnect``), so it
  stops reading and nothing is written.

The answer is the site's usual JSON error: ``{"detail": "..."}``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import get_settings
from app.web.asgi import HttpMiddleware, json_detail_reply


def _too_large(limit: int) -> tuple[Message, Message]:
    detail = (
        f"This request is too large: at most {limit:,} bytes are accepted. Nothing was changed."
    )
    return json_detail_reply(413, detail, [(b"connection", b"close")])


class BodyLimitMiddleware(HttpMiddleware):
    """Refuses request bodies over ``limit`` bytes (default: ``Settings.max_body_bytes``)."""

    def __init__(self, app: ASGIApp, limit: int | None = None) -> None:
        super().__init__(app)
        self.limit = limit

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit if self.limit is not None else get_settings().max_body_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1  # an unreadable length is not trusted either
                if declared > limit:
                    for message in _too_large(limit):
                        await send(message)
                    return
                break

        received = 0
        refused = False
        started = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    if not started:
                        for reply in _too_large(limit):
                            await send(reply)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out already; whatever the app says now is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not refused:
                raise
            # The app failed on the body we cut off (a client disconnect, as far as it knows):
            # the client has its 413 already.
