"""``IdentityMiddleware``: the player, and CSRF, for every request that reaches the app.

- the player and device from the signed cookie (``app.web.site.deps.identify``), or a new
  anonymous player, whose cookie is set on whatever the response is (unless the route cleared
  the identity: ``identity_cleared``);
- a cookie's device not confirmed in the last ``CONFIRM_SECONDS`` is looked up, in a worker
  thread (``app.services.devices.standing``: one statement of two primary-key lookups); a
  removed device becomes a new player; ``app.services.common.current_device`` names the
  device for the request;
- an unsafe method (POST, PUT, PATCH, DELETE) must pass the CSRF check
  (``app.web.site.deps.check_unsafe``): a refused request gets ``403`` before any route runs.
"""

from __future__ import annotations

from anyio import to_thread
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings, get_settings
from app.db.session import get_engine
from app.services import devices
from app.services.common import current_device
from app.web.middleware.asgi import HttpMiddleware, first_headers, json_detail_reply
from app.web.site.deps import CSRF_HEADERS, UNSAFE_METHODS, check_unsafe, identify

_WANTED = frozenset({b"cookie", b"user-agent"}) | CSRF_HEADERS


def _standing(player_id: str, device_id: str, agent: str) -> bool:
    with get_engine().connect() as conn:
        return devices.standing(conn, player_id, device_id, agent)


class IdentityMiddleware(HttpMiddleware):
    """See the module notes. ``settings``: the app's (tests), else the process's."""

    def __init__(self, app: ASGIApp, settings: Settings | None = None) -> None:
        super().__init__(app)
        self.settings = settings

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = first_headers(scope, _WANTED)
        settings = self.settings or get_settings()
        cookie = found.get(b"cookie")
        cookie_text = cookie.decode("latin-1") if cookie else None
        identity = identify(scope, cookie_text, settings)
        agent = found.get(b"user-agent", b"").decode("latin-1")[:512]
        if not identity.is_new and not devices.confirmed(identity.player_id, identity.device_id):
            try:
                stands = await to_thread.run_sync(
                    _standing, identity.player_id, identity.device_id, agent
                )
            except (OperationalError, InterfaceError, SATimeoutError):
                # The database is down or busy: nothing can be read or written for anyone
                # now, and the request's own use of it answers the usual 503. Not confirmed:
                # asked again on the next request.
                stands = True
            if not stands:  # a removed device: a new anonymous player from now on
                identity = identify(scope, cookie_text, settings, fresh=True)
        if identity.is_new:
            devices.confirm_new(identity.player_id, identity.device_id)
        new_cookie = identity.new_cookie
        state = scope.setdefault("state", {})

        async def send_app(message: Message) -> None:
            if (
                message["type"] == "http.response.start"
                and new_cookie
                and not state.get("identity_cleared")
            ):
                message["headers"] = [*message.get("headers", ()), *new_cookie]
            await send(message)

        token = current_device.set((identity.device_id, agent))
        try:
            receive_app: Receive = receive
            if scope["method"] in UNSAFE_METHODS:
                refusal, receive_app = await check_unsafe(scope, receive, identity, settings, found)
                if refusal is not None:
                    for message in json_detail_reply(403, refusal):
                        await send_app(message)  # (with the new player's cookie)
                    return
            await self.app(scope, receive_app, send_app)
        finally:
            current_device.reset(token)
