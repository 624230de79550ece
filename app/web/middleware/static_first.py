"""``StaticFirstMiddleware``: ``/static/...`` answered by the static files' app before the
player's middlewares (identity, language, body limit): a static file's response never
carries a ``Set-Cookie`` (it may sit in a shared cache for a year)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.middleware.request_log import ROUTE_LABEL


class StaticFirstMiddleware:
    """See the module notes."""

    def __init__(self, app: ASGIApp, static_app: ASGIApp, prefix: str = "/static") -> None:
        self.app = app
        self.static_app = static_app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.prefix + "/"):
            scope[ROUTE_LABEL] = self.prefix
            root_path = scope.get("root_path", "") + self.prefix
            await self.static_app({**scope, "root_path": root_path}, receive, send)
            return
        await self.app(scope, receive, send)
