"""Faults that are not the player's doing: the database is unreachable (503), or the player
went past a rate limit (429). ``install(app)`` registers their handlers.

- Database unreachable: ``app.web.errors`` answers ``OperationalError`` (connection refused,
  server shut down, a connection cut mid-request, SQLite busy past its timeout) with 503.
  This module adds the other faces of the same fault: ``InterfaceError`` (a connection that
  is already closed), the pool's ``TimeoutError``, and any ``DBAPIError`` that invalidated its
  connection. Nothing is half-done: every service runs in one transaction, which the database
  rolls back. The engine's ``pool_pre_ping`` replaces dead pooled connections, so service
  comes back by itself as soon as the database does.
- Rate limited (``app.services.ratelimit.RateLimited``): ``429`` with ``Retry-After``.

Both are answered by the app's own ``HTTPException`` handler when it has one (JSON
``{"detail": ...}`` for the API, the site's error page for a browser), else by a plain
JSON / HTML answer here.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from fastapi import FastAPI
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from app.services.ratelimit import RateLimited

logger = logging.getLogger("scorpion.faults")

DB_RETRY_AFTER_SECONDS = 5
DB_DOWN_DETAIL = (
    "The game server cannot reach its database just now. Nothing was changed: "
    "please try again in a few seconds."
)


def wants_html(request: Request) -> bool:
    """A browser page request (not the JSON API): pages get HTML errors, the API JSON."""
    path = request.url.path
    if path == "/api" or path.startswith("/api/") or path == "/openapi.json":
        return False
    return "text/html" in request.headers.get("accept", "")


async def _respond(
    request: Request, status_code: int, detail: str, headers: dict[str, str]
) -> Response:
    """Answer like the app answers any HTTP error (its handler), else plainly."""
    handler = request.app.exception_handlers.get(StarletteHTTPException)
    if handler is not None:
        response = await handler(
            request, StarletteHTTPException(status_code, detail=detail, headers=headers)
        )
        if isinstance(response, Response):
            for name, value in headers.items():
                response.headers[name] = value
            return response
    if wants_html(request):
        page = (
            '<!doctype html><html lang="en"><meta charset="utf-8">'
            f"<title>Scorpion solitaire</title><main><h1>Sorry</h1><p>{html.escape(detail)}</p>"
            '<p><a href="/">Home</a></p></main>'
        )
        return HTMLResponse(page, status_code=status_code, headers=headers)
    return JSONResponse({"detail": detail}, status_code=status_code, headers=headers)


def is_connection_fault(error: BaseException) -> bool:
    """True for errors that mean "the database cannot be reached", not a defect."""
    if isinstance(error, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
        return True
    return isinstance(error, sa_exc.DBAPIError) and bool(error.connection_invalidated)


async def database_unavailable(request: Request, error: Exception) -> Response:
    if not is_connection_fault(error):
        # Any other database error is a defect: let it be a logged 500, not a "try later".
        raise error
    first_line = str(error).splitlines()[0] if str(error) else error.__class__.__name__
    logger.warning(
        "database unavailable on %s %s: %s", request.method, request.url.path, first_line
    )
    return await _respond(
        request,
        503,
        DB_DOWN_DETAIL,
        {"Retry-After": str(DB_RETRY_AFTER_SECONDS), "Cache-Control": "no-store"},
    )


async def rate_limited(request: Request, error: Exception) -> Response:
    assert isinstance(error, RateLimited)
    return await _respond(request, 429, error.message, {"Retry-After": str(error.retry_after)})


ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
RATE_LIMITED_TEXT = (
    "Too many requests of this player (new games or actions) in the current window: "
    "nothing changed. See Retry-After."
)
UNAVAILABLE_TEXT = "The database cannot be reached just now: nothing changed. See Retry-After."


def _fault_response(description: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": description,
        "headers": {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer"},
            }
        },
        "content": {"application/json": {"schema": dict(body)}},
    }


def document_fault_responses(app: FastAPI) -> None:
    """Add 503 (every API operation) and 429 (every POST, and hints) to ``/openapi.json``,
    so the published schema lists every status the API can answer. The body is the API's
    error model (``ErrorOut``: ``{"detail": ...}``) when the schema has one."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        components = schema.get("components", {}).get("schemas", {})
        body = {"$ref": "#/components/schemas/ErrorOut"} if "ErrorOut" in components else ERROR_BODY
        for path, operations in schema.get("paths", {}).items():
            if not path.startswith("/api/"):
                continue
            for method, operation in operations.items():
                if not isinstance(operation, dict) or "responses" not in operation:
                    continue
                responses = operation["responses"]
                responses.setdefault("503", _fault_response(UNAVAILABLE_TEXT, body))
                if method == "post" or path.endswith("/hints"):
                    responses.setdefault("429", _fault_response(RATE_LIMITED_TEXT, body))
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def install(app: FastAPI) -> None:
    """503 for the database faults ``app.web.errors`` leaves out; 429 for rate limits; both
    documented in the OpenAPI schema.

    Call after ``install_error_handlers`` (an ``OperationalError`` handler already there is
    kept)."""
    for error_class in (sa_exc.InterfaceError, sa_exc.TimeoutError, sa_exc.DBAPIError):
        app.add_exception_handler(error_class, database_unavailable)
    if sa_exc.OperationalError not in app.exception_handlers:
        app.add_exception_handler(sa_exc.OperationalError, database_unavailable)
    app.add_exception_handler(RateLimited, rate_limited)
    document_fault_responses(app)


__all__ = [
    "DB_DOWN_DETAIL",
    "database_unavailable",
    "document_fault_responses",
    "install",
    "is_connection_fault",
    "rate_limited",
    "wants_html",
]
