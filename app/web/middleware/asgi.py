"""What the site's pure-ASGI middlewares share: ``HttpMiddleware`` (their shape),
``first_headers`` (the request headers they read) and ``json_detail_reply`` (a whole JSON
``{"detail": ...}`` answer sent without the app: the body limit's and CSRF's refusals)."""

from __future__ import annotations

import json
from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HttpMiddleware:
    """A pure ASGI middleware with one job on HTTP requests (``http``); anything else (the
    lifespan, a WebSocket) passes through untouched. Nothing is buffered, nothing runs in
    another task (unlike ``BaseHTTPMiddleware``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def first_headers(scope: Scope, names: Collection[bytes]) -> dict[bytes, bytes]:
    """The first value of each request header of ``names`` (lower-case) that ``scope`` has."""
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        if name in names:
            found.setdefault(name, value)
    return found


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
