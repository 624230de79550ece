"""The one ASGI middleware in front of the app (install it last, so it wraps everything).

Every HTTP request passes it once; in one pass over the request's headers and one wrapper
of ``send`` (no ``BaseHTTPMiddleware``: nothing is buffered, nothing runs in another task),
in this order:

1. the request id: the client's ``X-Request-ID`` when well formed, else a new one; echoed on
   the response and put on every log line of the request (``app.observability``);
2. ``/healthz``, ``/readyz`` and ``/metrics`` (``app.web.ops``): answered here, without the
   player cookie and never cached;
3. static files (``/static/...``, ``static_app``): the security headers only, never a
   ``Set-Cookie`` (a response that may sit in a shared cache for a year);
4. everything else: the request's language (``app.i18n.current_locale``: the player's choice
   in its cookie, else ``Accept-Language``), the body cap (``app.web.body_limit``: ``413``
   before anything reads an oversized body), the keyed hash of the client's address for the
   services' per-address limits (``app.web.security``, ``app.services.clients.current_address``),
   the player
   (identity and CSRF, ``app.web.deps``: a refused request gets ``403`` before any route
   runs, a new player's cookie is set on whatever the response is; a cookie's device not
   confirmed in the last seconds is looked up, in a worker thread: one statement of two
   primary-key lookups, ``app.services.devices.standing``; a removed device becomes a new
   player, ``app.services.common.current_device`` names the device); after the response, the
   request's database sessions are closed (``app.db.session.get_db``);
5. on every response: the security headers it lacks (``app.web.security``), ``X-Request-ID``,
   the time to its first byte by route template (``scope["route"]``, set by the router:
   never the raw path), the open event streams, and the access log (``scorpion.access``).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from anyio import to_thread
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app import observability as obs
from app.config import Settings, get_settings
from app.db.session import close_request_sessions, get_engine
from app.services import devices
from app.services.clients import current_address, keyed_address
from app.services.common import current_device
from app.web.asgi import json_detail_reply
from app.web.body_limit import BodyGuard, declared_too_large, may_drain, refuse
from app.web.deps import CSRF_HEADERS, UNSAFE_METHODS, check_unsafe, identify
from app.web.ops import OPS_PATHS, answer_ops, route_template
from app.web.security import SECURITY_HEADERS, scope_client_address

access_log = logging.getLogger("scorpion.access")

_REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_SECURITY = tuple((name.encode(), value.encode()) for name, value in SECURITY_HEADERS)
_EVENT_STREAM = b"text/event-stream"
_WANTED = frozenset({b"x-request-id", b"cookie", b"content-length", b"expect"})
_WANTED |= frozenset({b"user-agent", b"accept-language"}) | CSRF_HEADERS
Headers = Sequence[tuple[bytes, bytes]]
_TIMERS: dict[tuple[str, str, int], Any] = {}  # the latency histogram's children, by labels


def _observe(method: str, route: str, status: int, seconds: float) -> None:
    timer = _TIMERS.get((method, route, status))
    if timer is None:
        timer = obs.REQUEST_SECONDS.labels(method, route, str(status))
        if len(_TIMERS) < 1024:
            _TIMERS[(method, route, status)] = timer
    timer.observe(seconds)


def _finish_headers(message: Message, extra: Headers, request_id: bytes) -> bool:
    """``extra`` (a new player's cookie), the security headers the response lacks and the
    request id, on a response's start ``message``; returns whether it is an event stream."""
    raw = list(message.get("headers", ()))
    raw.extend(extra)
    present = {name.lower() for name, _ in raw}
    raw.extend(pair for pair in _SECURITY if pair[0] not in present)
    stream = False
    found = -1
    for n, (name, value) in enumerate(raw):
        lowered = name.lower()
        if lowered == b"x-request-id" and found < 0:
            found = n
        elif lowered == b"content-type" and value.startswith(_EVENT_STREAM):
            stream = True
    if found < 0:
        raw.append((b"x-request-id", request_id))
    else:  # the response's own value is replaced, any repeat dropped
        raw[found] = (b"x-request-id", request_id)
        raw[found + 1 :] = [pair for pair in raw[found + 1 :] if pair[0].lower() != b"x-request-id"]
    message["headers"] = raw
    return stream


def _access_log(message: str, args: tuple[Any, ...], extra: dict[str, Any]) -> None:
    """``access_log.info(message, *args, extra=extra)`` without looking up the caller's file
    and line in the stack (which no log format of the site shows)."""
    if access_log.isEnabledFor(logging.INFO):
        record = access_log.makeRecord(
            access_log.name, logging.INFO, "(unknown file)", 0, message, args, None, extra=extra
        )
        access_log.handle(record)


# The data file's uploads (``app.web.player_pages``'s form, ``app.web.devices_api``'s JSON):
# their cap is ``MAX_IMPORT_BYTES`` and room for the form's other fields (the route itself
# refuses a file over ``MAX_IMPORT_BYTES``, readably); past it, the form's refusal is a 303 to
# the privacy page, which says why (``IMPORT_TOO_LARGE``), the JSON route's the usual 413.
IMPORT_PATHS = frozenset({"/privacy/import", "/api/player/import"})
IMPORT_FORM_ROOM = 64 * 1024
IMPORT_TOO_LARGE = {"/privacy/import": "/privacy?refused=too-large#your-data"}


def _standing(player_id: str, device_id: str, agent: str) -> bool:
    with get_engine().connect() as conn:
        return devices.standing(conn, player_id, device_id, agent)


class FrontMiddleware:
    """See the module notes."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings | None = None,
        static_app: ASGIApp | None = None,
        static_prefix: str = "/static",
    ) -> None:
        self.app = app
        self.settings = settings
        self.static_app = static_app
        self.static_prefix = static_prefix
        obs.install_database_listener()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found: dict[bytes, bytes] = {}
        forwarded: list[str] = []
        for name, value in scope.get("headers", ()):
            if name in _WANTED:
                found.setdefault(name, value)
            elif name == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
        incoming = found.get(b"x-request-id", b"").decode("latin-1")
        request_id = incoming if _REQUEST_ID_RE.fullmatch(incoming) else os.urandom(16).hex()
        token = obs.REQUEST_ID.set(request_id)
        # (also in the request's state: the safety net's 500, answered outside this middleware
        # once the exception has left it, sends it too: app.web.errors)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        method: str = scope["method"]
        path: str = scope["path"]
        status = 500
        route = "<unmatched>"
        try:
            if path in OPS_PATHS and method in ("GET", "HEAD"):
                route = path
                status = await answer_ops(path, scope, send, self._settings(), request_id)
                _observe(method, route, status, time.perf_counter() - started)
                return
            rid = request_id.encode()
            stream = False

            async def send_out(message: Message, extra: Headers = ()) -> None:
                nonlocal status, stream
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    stream = _finish_headers(message, extra, rid)
                    elapsed = time.perf_counter() - started
                    _observe(method, route_template(scope, route), status, elapsed)
                    if stream:
                        obs.EVENT_STREAMS.inc()
                await send(message)

            try:
                if self.static_app is not None and path.startswith(self.static_prefix + "/"):
                    route = self.static_prefix
                    scope = {**scope, "root_path": scope.get("root_path", "") + self.static_prefix}
                    await self.static_app(scope, receive, send_out)
                else:
                    await self._player_request(scope, receive, send_out, found, forwarded)
            finally:
                if stream:
                    obs.EVENT_STREAMS.dec()
                route = route_template(scope, route)
        finally:
            client = scope.get("client")
            _access_log(
                "%s %s %d %.1fms",
                (method, route, status, (time.perf_counter() - started) * 1000),
                {
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "client": client[0] if client else "",
                    "request_id": request_id,
                },
            )
            obs.REQUEST_ID.reset(token)

    def _settings(self) -> Settings:
        return self.settings or get_settings()

    async def _player_request(
        self,
        scope: Scope,
        receive: Receive,
        send_out: Callable[..., Awaitable[None]],
        found: dict[bytes, bytes],
        forwarded: list[str],
    ) -> None:
        """Steps 4 of the module notes: the body cap, the client's address, the player."""
        shared = get_settings()  # (the body cap and the address: the process's settings)
        limit = shared.max_body_bytes
        location = None
        if scope["path"] in IMPORT_PATHS and scope["method"] == "POST":
            # (the one bigger body: a data file)
            limit = max(limit, shared.max_import_bytes + IMPORT_FORM_ROOM)
            location = IMPORT_TOO_LARGE.get(scope["path"])
        length = found.get(b"content-length")
        if declared_too_large(length, limit):
            drained = may_drain(length, found.get(b"expect"))
            await refuse(send_out, limit, receive if drained else None, location)
            return
        guard = BodyGuard(limit, receive, send_out, location)
        address = scope_client_address(scope, forwarded, shared.trusted_proxies)
        address_token = current_address.set(keyed_address(shared.secret_key, address or "unknown"))
        device_token = None
        locale_token = None
        try:
            settings = self._settings()
            cookie = found.get(b"cookie")
            cookie_text = cookie.decode("latin-1") if cookie else None
            identity = identify(scope, cookie_text, settings)
            agent = found.get(b"user-agent", b"").decode("latin-1")[:512]
            if not identity.is_new and not devices.confirmed(
                identity.player_id, identity.device_id
            ):
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
            device_token = current_device.set((identity.device_id, agent))
            new_cookie = identity.new_cookie
            state = scope["state"]
            # The request's language (app.i18n): the player's choice, else the browser's.
            choice = i18n.cookie_choice(cookie_text)
            accept = found.get(b"accept-language")
            state["locale_cookie"] = choice
            state["accept_language"] = accept_text = accept.decode("latin-1") if accept else None
            locale_token = i18n.current_locale.set(i18n.choose(choice, accept_text))

            async def send_app(message: Message) -> None:
                if guard.refused:
                    return  # the 413 went out already; whatever the app says now is dropped
                if message["type"] == "http.response.start":
                    guard.started = True
                    if new_cookie and not state.get("identity_cleared"):
                        await send_out(message, new_cookie)
                        return
                await send_out(message)

            receive_app: Receive = guard.receive
            if scope["method"] in UNSAFE_METHODS:
                refusal, receive_app = await check_unsafe(
                    scope, receive_app, identity, settings, found
                )
                if refusal is not None:
                    for message in json_detail_reply(403, refusal):
                        await send_app(message)  # (with the new player's cookie)
                    return

            try:
                await self.app(scope, receive_app, send_app)
            except Exception:
                if not guard.refused:
                    raise
                # The app failed on the body we cut off (a client disconnect, as far as it
                # knows): the client has its 413 already.
            finally:
                close_request_sessions(scope)  # (``get_db``'s, after the response)
        finally:
            if device_token is not None:
                current_device.reset(device_token)
            if locale_token is not None:
                i18n.current_locale.reset(locale_token)
            current_address.reset(address_token)
