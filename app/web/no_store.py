"""``Cache-Control: no-store`` on every answer of the JSON API (issue 39, item 8).

An ``/api/...`` answer is a player's own state (a game, statistics, a session's CSRF token) or
an error about it: no browser or shared cache may keep it. One small pure ASGI middleware,
outside ``app.web.front`` so that the answers made there (a refused CSRF check, an oversized
body) get it too: the response's own ``Cache-Control``, if any, is replaced. (A 500 of the
safety net, answered outside every middleware, gets it from ``app.web.errors``.)
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_PREFIX = "/api/"
NO_STORE = (b"cache-control", b"no-store")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIX) or path == API_PREFIX.rstrip("/")


class ApiNoStore:
    """See the module notes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_api_path(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    pair
                    for pair in message.get("headers", ())
                    if pair[0].lower() != b"cache-control"
                ]
                headers.append(NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_no_store)
