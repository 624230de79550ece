"""Operations endpoints and the request-level instrumentation, in one outermost ASGI middleware.

``OpsMiddleware`` (install it last, so it wraps everything):

- ``GET /healthz``: the process is alive and serving; touches no database. 200 ``{"status": "ok"}``.
- ``GET /readyz``: the database answers and its schema is at the migrations' head: 200
  ``{"status": "ready", ...}``, else 503 ``{"status": "unavailable", "reason": ...}``.
- ``GET /metrics``: Prometheus text format (``app.observability``), only to clients whose
  address is in ``METRICS_ALLOW`` (CIDRs); everyone else gets a plain 404.

These three are answered here, before the identity middleware: they neither need nor set the
player cookie, and they are never cached. Static files (``/static/...``, ``static_app``) are
served from here too, with the security headers but without the identity middleware: a
response that may sit in a shared cache for a year must never carry a ``Set-Cookie``.

For every request it takes or makes a request id (``X-Request-ID``, echoed on the response
and put on every log line of the request), times the response by route template
(``scope["route"]``, set by the router: the template, never the raw path), counts open event
streams, and writes the access log (``scorpion.access``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import time
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import observability as obs
from app.config import Settings, get_settings
from app.web.asgi import HttpMiddleware
from app.web.security import SecurityHeadersMiddleware

access_log = logging.getLogger("scorpion.access")

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS_DIR = ROOT / "migrations"
READY_TIMEOUT_SECONDS = 3.0
OPS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
_REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=16)
def parse_allow_list(value: str) -> tuple[Network, ...] | None:
    """``METRICS_ALLOW`` as networks; None means everyone (``*``)."""
    if value.strip() == "*":
        return None
    return tuple(
        ipaddress.ip_network(item.strip(), strict=False)
        for item in value.split(",")
        if item.strip()
    )


def address_allowed(host: str | None, allow: str) -> bool:
    networks = parse_allow_list(allow)
    if networks is None:
        return True
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address.version == n.version and address in n for n in networks)


@lru_cache(maxsize=1)
def migration_heads() -> frozenset[str]:
    """The revision(s) at the head of the migration scripts shipped with the app."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory(str(MIGRATIONS_DIR)).get_heads())


def check_ready() -> tuple[bool, dict[str, Any]]:
    """(ready, body): the database answers and is migrated to head."""
    from sqlalchemy import text

    from app.db.session import get_engine

    try:
        heads = migration_heads()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return False, {"reason": f"migration scripts unreadable: {type(exc).__name__}"}
    try:
        with get_engine().connect() as conn:
            rows = conn.execute(text("SELECT version_num FROM alembic_version"))
            current = {row[0] for row in rows}
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
        from sqlalchemy.exc import ProgrammingError

        if isinstance(exc, ProgrammingError) or "alembic_version" in str(exc):
            return False, {"reason": "database not migrated (no alembic_version table)"}
        return False, {"reason": f"database unreachable: {type(exc).__name__}"}
    if current != set(heads):
        return False, {
            "reason": "database migrations not at head: run alembic upgrade head",
            "database": sorted(current),
            "head": sorted(heads),
        }
    return True, {"migration": sorted(heads)}


async def _send_simple(
    send: Send, status: int, body: bytes, content_type: str, request_id: str
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"x-content-type-options", b"nosniff"),
                (b"x-request-id", request_id.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def route_template(scope: Scope, default: str = "<unmatched>") -> str:
    """The template of the route that answered (set by the router), never the raw path."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str) and path:
        return path
    return default


class OpsMiddleware(HttpMiddleware):
    """See the module notes."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings | None = None,
        static_app: ASGIApp | None = None,
        static_prefix: str = "/static",
    ) -> None:
        super().__init__(app)
        self.settings = settings
        self.static_app = SecurityHeadersMiddleware(static_app) if static_app else None
        self.static_prefix = static_prefix
        obs.install_database_listener()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        settings = self.settings or get_settings()
        incoming = _header(scope, b"x-request-id")
        request_id = (
            incoming if incoming and _REQUEST_ID_RE.fullmatch(incoming) else uuid.uuid4().hex
        )
        token = obs.REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 500
        route = "<unmatched>"
        stream = False
        try:
            path = scope["path"]
            if path in OPS_PATHS and scope["method"] in ("GET", "HEAD"):
                route = path
                status = await self._ops(path, scope, send, settings, request_id)
                obs.REQUEST_SECONDS.labels(scope["method"], route, str(status)).observe(
                    time.perf_counter() - started
                )
                return

            inner = self.app
            if self.static_app is not None and path.startswith(self.static_prefix + "/"):
                route = self.static_prefix
                scope = {**scope, "root_path": scope.get("root_path", "") + self.static_prefix}
                inner = self.static_app

            async def send_wrapper(message: Message) -> None:
                nonlocal status, stream
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    headers = MutableHeaders(scope=message)
                    headers["x-request-id"] = request_id
                    obs.REQUEST_SECONDS.labels(
                        scope["method"], route_template(scope, route), str(status)
                    ).observe(time.perf_counter() - started)
                    if headers.get("content-type", "").startswith("text/event-stream"):
                        stream = True
                        obs.EVENT_STREAMS.inc()
                await send(message)

            try:
                await inner(scope, receive, send_wrapper)
            finally:
                if stream:
                    obs.EVENT_STREAMS.dec()
                route = route_template(scope, route)
        finally:
            client = scope.get("client")
            access_log.info(
                "%s %s %d %.1fms",
                scope["method"],
                route,
                status,
                (time.perf_counter() - started) * 1000,
                extra={
                    "method": scope["method"],
                    "route": route,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "client": client[0] if client else "",
                    "request_id": request_id,
                },
            )
            obs.REQUEST_ID.reset(token)

    async def _ops(
        self, path: str, scope: Scope, send: Send, settings: Settings, request_id: str
    ) -> int:
        if path == "/healthz":
            await _send_simple(send, 200, _json({"status": "ok"}), "application/json", request_id)
            return 200
        if path == "/readyz":
            try:
                ready, body = await asyncio.wait_for(
                    asyncio.to_thread(check_ready), READY_TIMEOUT_SECONDS
                )
            except TimeoutError:
                ready, body = False, {"reason": "database did not answer in time"}
            status = 200 if ready else 503
            body = {"status": "ready" if ready else "unavailable", **body}
            await _send_simple(send, status, _json(body), "application/json", request_id)
            return status
        client = scope.get("client")
        if not address_allowed(client[0] if client else None, settings.metrics_allow):
            await _send_simple(
                send, 404, _json({"detail": "Not Found"}), "application/json", request_id
            )
            return 404
        body_bytes, content_type = await asyncio.to_thread(obs.render_metrics)
        await _send_simple(send, 200, body_bytes, content_type, request_id)
        return 200


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            try:
                return str(value.decode("latin-1"))
            except UnicodeDecodeError:
                return None
    return None
