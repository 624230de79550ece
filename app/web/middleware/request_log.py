"""``RequestLogMiddleware``: the request id, the request metrics and the access log.

Outermost of the app's middlewares (``app.main``): every HTTP request passes it once.

- the request id: the client's ``X-Request-ID`` when well formed, else a new one; put on
  every log line of the request (``app.observability.REQUEST_ID``) and on the response (the
  response's own value, if any, replaced);
- the time to the response's first byte by route template (``scope["route"]``, set by the
  router: never the raw path; ``scope["route_label"]`` for what no route answers: the ops
  endpoints, static files), and the event streams open now;
- one access log line (``scorpion.access``) when the request ends.
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import observability as obs
from app.web.middleware.asgi import HttpMiddleware, first_headers
from app.web.middleware.ops import route_template

access_log = logging.getLogger("scorpion.access")

ROUTE_LABEL = "route_label"  # scope key: the metrics' label of a request no route answers
_REQUEST_ID = (b"x-request-id",)
_REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_EVENT_STREAM = b"text/event-stream"
_TIMERS: dict[tuple[str, str, int], Any] = {}  # the latency histogram's children, by labels


def _observe(method: str, route: str, status: int, seconds: float) -> None:
    timer = _TIMERS.get((method, route, status))
    if timer is None:
        timer = obs.REQUEST_SECONDS.labels(method, route, str(status))
        if len(_TIMERS) < 1024:
            _TIMERS[(method, route, status)] = timer
    timer.observe(seconds)


def _with_request_id(message: Message, request_id: bytes) -> bool:
    """Put ``request_id`` on a response's start ``message`` (replacing the response's own,
    dropping any repeat); returns whether the response is an event stream."""
    raw = [pair for pair in message.get("headers", ()) if pair[0].lower() != b"x-request-id"]
    raw.append((b"x-request-id", request_id))
    message["headers"] = raw
    return any(
        name.lower() == b"content-type" and value.startswith(_EVENT_STREAM) for name, value in raw
    )


def _access_log(message: str, args: tuple[Any, ...], extra: dict[str, Any]) -> None:
    """``access_log.info(message, *args, extra=extra)`` without looking up the caller's file
    and line in the stack (which no log format of the site shows)."""
    if access_log.isEnabledFor(logging.INFO):
        record = access_log.makeRecord(
            access_log.name, logging.INFO, "(unknown file)", 0, message, args, None, extra=extra
        )
        access_log.handle(record)


class RequestLogMiddleware(HttpMiddleware):
    """See the module notes."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app)
        obs.install_database_listener()

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        incoming = first_headers(scope, _REQUEST_ID).get(b"x-request-id", b"").decode("latin-1")
        request_id = incoming if _REQUEST_ID_RE.fullmatch(incoming) else os.urandom(16).hex()
        token = obs.REQUEST_ID.set(request_id)
        # (also in the request's state: the safety net's 500, answered outside this middleware
        # once the exception has left it, sends it too: app.web.site.errors)
        scope.setdefault("state", {})["request_id"] = request_id
        rid = request_id.encode()
        started = time.perf_counter()
        method: str = scope["method"]
        status = 500
        stream = False

        def route() -> str:
            return route_template(scope, scope.get(ROUTE_LABEL, "<unmatched>"))

        async def send_out(message: Message) -> None:
            nonlocal status, stream
            if message["type"] == "http.response.start":
                status = int(message["status"])
                stream = _with_request_id(message, rid)
                _observe(method, route(), status, time.perf_counter() - started)
                if stream:
                    obs.EVENT_STREAMS.inc()
            await send(message)

        try:
            await self.app(scope, receive, send_out)
        finally:
            if stream:
                obs.EVENT_STREAMS.dec()
            label = route()
            client = scope.get("client")
            elapsed_ms = (time.perf_counter() - started) * 1000
            _access_log(
                "%s %s %d %.1fms",
                (method, label, status, elapsed_ms),
                {
                    "method": method,
                    "route": label,
                    "status": status,
                    "duration_ms": round(elapsed_ms, 2),
                    "client": client[0] if client else "",
                    "request_id": request_id,
                },
            )
            obs.REQUEST_ID.reset(token)
