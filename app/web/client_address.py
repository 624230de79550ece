"""``ClientAddressMiddleware``: a keyed hash of the client's address (``app.web.security``:
``X-Forwarded-For`` only from ``TRUSTED_PROXIES``), for the services' per-address limits
(``app.services.clients.current_address``), set for the request's duration."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import get_settings
from app.services.clients import current_address, keyed_address
from app.web.security import scope_client_address


class ClientAddressMiddleware:
    """See the module notes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        forwarded = [
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
