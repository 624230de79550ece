"""What the site's plain ASGI middlewares share: passing anything but HTTP straight through,
and a whole JSON ``{"detail": ...}`` answer sent without the app."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HttpMiddleware:
    """A plain ASGI middleware of HTTP requests: ``handle`` sees each HTTP request; anything
    else (lifespan, websockets) goes straight to ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def json_detail_reply(
    status: int, detail: str, extra_headers: list[tuple[bytes, bytes]] | None = None
) -> tuple[Message, Message]:
    """The two messages of a ``{"detail": detail}`` answer that is never cached."""
    body = json.dumps({"detail": detail}).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *(extra_headers or ()),
        ],
    }
    return start, {"type": "http.response.body", "body": body}
