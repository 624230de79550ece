"""``RequestSessionsMiddleware``: the request's database sessions (``app.db.session.get_db``,
a plain dependency) closed after its response has gone out, whatever happened."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app.db.session import close_request_sessions


class RequestSessionsMiddleware:
    """See the module notes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            if scope["type"] == "http":
                close_request_sessions(scope)
