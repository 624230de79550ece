"""``SecurityHeadersMiddleware``: the security headers (``app.web.site.security``) on every
response that lacks them: pages, the JSON API, static files, refusals made before any route
(the body limit, CSRF). A pure ASGI middleware: nothing is buffered, streams stream."""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

from app.web.middleware.asgi import HttpMiddleware
from app.web.site.security import SECURITY_HEADERS

_SECURITY = tuple((name.encode(), value.encode()) for name, value in SECURITY_HEADERS)


class SecurityHeadersMiddleware(HttpMiddleware):
    """See the module notes."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = list(message.get("headers", ()))
                present = {name.lower() for name, _ in raw}
                raw.extend(pair for pair in _SECURITY if pair[0] not in present)
                message["headers"] = raw
            await send(message)

        await self.app(scope, receive, send_secured)
