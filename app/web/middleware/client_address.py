"""``ClientAddressMiddleware``: a keyed hash of the client's address (``app.web.site.security``:
``X-Forwarded-For`` only from ``TRUSTED_PROXIES``), for the services' per-address limits
(``app.services.clients.current_address``), set for the request's duration."""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

from app.config import get_settings
from app.services.clients import current_address, keyed_address
from app.web.middleware.asgi import HttpMiddleware
from app.web.site.security import scope_client_address


class ClientAddressMiddleware(HttpMiddleware):
    """See the module notes."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        forwarded = [  # (every value: a proxy may add a header of its own)
            value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name == b"x-forwarded-for"
        ]
        shared = get_settings()  # (the process's settings)
        address = scope_client_address(scope, forwarded, shared.trusted_proxies)
        token = current_address.set(keyed_address(shared.secret_key, address or "unknown"))
        try:
            await self.app(scope, receive, send)
        finally:
            current_address.reset(token)
