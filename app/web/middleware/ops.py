"""Operations endpoints, answered by ``OpsMiddleware`` before the player's middlewares:

- ``GET /healthz``: the process is alive and serving; touches no database. 200 ``{"status": "ok"}``.
- ``GET /readyz``: the database answers and its schema is at the migrations' head: 200
  ``{"status": "ready", ...}``, else 503 ``{"status": "unavailable", "reason": ...}``.
- ``GET /metrics``: Prometheus text format (``app.observability``), only to clients whose
  address is in ``METRICS_ALLOW`` (CIDRs); everyone else gets a plain 404.

These three are answered before identity: they neither need nor set the player cookie, and
they are never cached. ``route_template``: the route that answered a request, as its
template (``scope["route"]``, set by the router), never the raw path.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from app import observability as obs
from app.config import Settings, get_settings

ROOT = Path(__file__).resolve().parents[3]
MIGRATIONS_DIR = ROOT / "migrations"
READY_TIMEOUT_SECONDS = 3.0
OPS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


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


async def answer_ops(
    path: str, scope: Scope, send: Send, settings: Settings, request_id: str
) -> int:
    """Answer ``/healthz``, ``/readyz`` or ``/metrics`` (``path``); returns the status."""
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


class OpsMiddleware:
    """``GET``/``HEAD`` of ``/healthz``, ``/readyz`` and ``/metrics``, answered before the
    player's middlewares (no cookie, never cached); ``settings``: the app's, else the
    process's."""

    def __init__(self, app: ASGIApp, settings: Settings | None = None) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path in OPS_PATHS and scope["method"] in ("GET", "HEAD"):
            scope["route_label"] = path  # (``app.web.middleware.request_log``'s metrics)
            settings = self.settings or get_settings()
            await answer_ops(path, scope, send, settings, obs.REQUEST_ID.get() or "-")
            return
        await self.app(scope, receive, send)
