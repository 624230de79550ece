"""Every error, one answer per fault: ``{"detail": "a sentence a player understands"}`` for
the API, the site's error page (``app.web.rendering.render_error``) for a browser
(``Accept: text/html``) outside ``/api``; never a stack trace.

- Service errors: 404 (``NotFound``), 409 (``VersionConflict``), 422 (refused or invalid).
- Request validation errors: 422 with one readable sentence; unknown routes and methods: a
  sentence too.
- Rate limited (``app.services.ratelimit.RateLimited``): 429 with ``Retry-After``; so are a
  second solver question in flight and an event stream over its caps (subclasses).
- A player id deleted for good ("Delete everything", ``PlayerDeleted``) trying to write:
  410 with the cookie cleared, so the browser's next request is a new player.
- The solver's queue is full (``app.services.analysis.SolverBusy``): 503 with ``Retry-After``.
- A NUL character in a value PostgreSQL is given (an id, code or token of the request): 404
  when it is in the path (no game has such an id), else 422; never a 500.
- The database cannot be reached or is busy past its timeout (``OperationalError``,
  ``InterfaceError``, the pool's ``TimeoutError``, any ``DBAPIError`` that invalidated its
  connection): 503 with ``Retry-After``. Nothing is half-done: every service runs in one
  transaction, which the database rolls back; the pool replaces dead connections
  (``app.db.session.server_hung_up``, and SQLAlchemy invalidates the pool on a disconnect), so
  service comes back by itself as soon as the database does. Any other database error is a
  defect: a logged 500.
- Anything unexpected: logged, and a plain 500 sentence (a 5xx is a defect: the safety net).

``install(app)`` registers the handlers and documents 503 and 429 in ``/openapi.json``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import observability as obs
from app.i18n import N_
from app.services import (
    NotFound,
    ServiceError,
    VersionConflict,
)
from app.services.analysis import SolverBusy
from app.services.errors import PlayerDeleted
from app.services.ratelimit import RateLimited
from app.web.deps import clear_identity
from app.web.display import prefetch_display
from app.web.rendering import render_error
from app.web.security import SECURITY_HEADERS
from app.web.templating import templates

log = logging.getLogger("scorpion")

DB_RETRY_AFTER_SECONDS = 2
DB_DOWN_DETAIL = N_(
    "The game server cannot reach its database just now (or it is busy). Nothing was "
    "changed: please try again in a few seconds."
)
# (N_: marked for the catalog, the error pages show them translated; the JSON API in English)
STATUS_TEXT = {
    400: N_("The request could not be understood."),
    401: N_("You are not signed in."),
    403: N_("This request is not allowed."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not accept that kind of request."),
    406: N_("This address cannot answer in the format asked for."),
    413: N_("The request is too large."),
    415: N_("The request's content type is not supported: send JSON."),
    429: N_("Too many requests: please wait a moment and try again."),
}


def wants_html(request: Request) -> bool:
    """A browser page request (not the JSON API): pages get HTML errors, the API JSON."""
    path = request.url.path
    if path == "/api" or path.startswith("/api/") or path == "/openapi.json":
        return False
    return "text/html" in request.headers.get("accept", "")


def _field(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header", "cookie")]
    return ".".join(parts)


def validation_message(errors: Sequence[Any]) -> str:
    """One sentence for pydantic/FastAPI validation errors."""
    if not errors:
        return "The request is not valid."
    sentences = []
    for err in list(errors)[:3]:
        kind = str(err.get("type", ""))
        field = _field(err.get("loc", ()))
        if kind == "json_invalid":
            sentences.append("The request body is not valid JSON.")
            continue
        if kind == "missing":
            sentences.append(
                f"The field '{field}' is required." if field else "A request body is required."
            )
            continue
        if kind in ("model_attributes_type", "model_type", "dict_type") and not field:
            sentences.append("The request body must be a JSON object.")
            continue
        msg = str(err.get("msg", "is not valid")).rstrip(".")
        if msg:
            msg = msg[0].lower() + msg[1:]
        if field:
            sentences.append(f"The field '{field}' is not valid: {msg}.")
        else:
            sentences.append(f"The request is not valid: {msg}.")
    return " ".join(dict.fromkeys(sentences))


def is_connection_fault(error: BaseException) -> bool:
    """True for errors that mean "the database cannot be reached", not a defect."""
    if isinstance(error, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
        return True
    return isinstance(error, sa_exc.DBAPIError) and bool(error.connection_invalidated)


def respond(
    request: Request, status: int, detail: str, headers: dict[str, str] | None = None
) -> Response:
    """The answer to any error: the error page for a browser, else JSON ``detail``."""
    if wants_html(request):
        try:
            response = render_error(request, status, detail)
            if headers:
                response.headers.update(headers)
            return response
        except Exception:  # fall back to plain HTML below
            log.exception("error page failed")
        try:
            page = templates.env.get_template("fallback_error.html").render(detail=detail)
        except Exception:
            log.exception("the fallback error page failed")
            return PlainTextResponse(detail, status_code=status, headers=headers)
        return HTMLResponse(page, status_code=status, headers=headers)
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


NUL_DETAIL = N_(
    "The request holds a NUL character (U+0000), which no id, code or name of the site "
    "contains: nothing was changed."
)


def is_nul_refusal(error: BaseException) -> bool:
    """True for PostgreSQL refusing a NUL character in a text value (SQLite takes it, and
    finds nothing by it): a NUL in an id, code or token the request carried."""
    return isinstance(error, sa_exc.DataError) and "NUL (0x00)" in str(error.orig)


def _nul_refused(request: Request) -> Response:
    """A NUL in the path is an address with nothing at it (``404``, as a NUL id is on SQLite);
    elsewhere (a form or JSON field, a query) the request is not valid (``422``). Whatever
    the service began is rolled back with its transaction."""
    log.info("NUL character refused on %s %s", request.method, request.url.path)
    if "\x00" in request.scope.get("path", ""):
        return respond(request, 404, STATUS_TEXT[404])  # (a game, a device, a challenge...)
    return respond(request, 422, NUL_DETAIL)


def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    response = respond(
        request, 500, N_("Something went wrong on our side; nothing was changed. Please retry.")
    )
    return _as_ours(request, response)


def _as_ours(request: Request, response: Response) -> Response:
    """The headers ``app.web.front`` puts on every answer, on the safety net's 500 (Starlette
    answers it outside every middleware): the security headers, the request id (the one the
    access log names), and never stored."""
    for name, value in SECURITY_HEADERS:
        response.headers.setdefault(name, value)
    state = request.scope.get("state") or {}
    request_id = state.get("request_id") or obs.REQUEST_ID.get()
    if request_id:
        response.headers["X-Request-ID"] = str(request_id)
    response.headers["Cache-Control"] = "no-store"
    return response


def _http_detail(exc: StarletteHTTPException) -> tuple[int, str]:
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        # FastAPI's answer to a body that is not even text (bad UTF-8): a malformed body.
        return 422, N_("The request body is not valid JSON.")
    detail = exc.detail if isinstance(exc.detail, str) else ""
    default = STATUS_TEXT.get(exc.status_code, N_("The request could not be completed."))
    # Starlette's own defaults ("Not Found", "Method Not Allowed") are not sentences.
    try:
        phrase = HTTPStatus(exc.status_code).phrase
    except ValueError:
        phrase = ""
    if not detail or detail == phrase:
        detail = default
    return exc.status_code, detail


async def _display_first(request: Request) -> None:
    """An error page shows the player's theme and deck like every page (not for the database
    being down, nor for an unexpected fault: those pages read nothing)."""
    if wants_html(request):
        await prefetch_display(request)


def install(app: FastAPI) -> None:
    """Register every error handler and document 503 and 429 in the OpenAPI schema."""

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> Response:
        await _display_first(request)
        if isinstance(exc, NotFound):
            status = 404
        elif isinstance(exc, VersionConflict):
            status = 409
        else:  # InvalidRequest, ActionRefused
            status = 422
        return respond(request, status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        await _display_first(request)
        return respond(request, 422, validation_message(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        await _display_first(request)
        status, detail = _http_detail(exc)
        return respond(request, status, detail, dict(exc.headers or {}) or None)

    @app.exception_handler(RateLimited)
    async def _rate_limited(request: Request, exc: RateLimited) -> Response:
        await _display_first(request)
        return respond(request, 429, exc.message, {"Retry-After": str(exc.retry_after)})

    @app.exception_handler(PlayerDeleted)
    async def _player_deleted(request: Request, exc: PlayerDeleted) -> Response:
        response = respond(request, 410, exc.message, {"Cache-Control": "no-store"})
        clear_identity(request, response)
        return response

    @app.exception_handler(SolverBusy)
    async def _solver_busy(request: Request, exc: SolverBusy) -> Response:
        await _display_first(request)
        headers = {"Retry-After": str(exc.retry_after), "Cache-Control": "no-store"}
        return respond(request, 503, exc.message, headers)

    async def _database_fault(request: Request, exc: Exception) -> Response:
        if is_nul_refusal(exc):
            return _nul_refused(request)
        if not is_connection_fault(exc):
            return _unexpected(request, exc)  # any other database error is a defect
        first_line = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        log.warning(
            "database unavailable on %s %s: %s", request.method, request.url.path, first_line
        )
        headers = {"Retry-After": str(DB_RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
        return respond(request, 503, DB_DOWN_DETAIL, headers)

    app.add_exception_handler(sa_exc.DBAPIError, _database_fault)  # Operational-, Interface-
    app.add_exception_handler(sa_exc.TimeoutError, _database_fault)  # the pool's

    @app.exception_handler(Exception)
    async def _unexpected_error(request: Request, exc: Exception) -> Response:
        return _unexpected(request, exc)

    document_fault_responses(app)


ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
RATE_LIMITED_TEXT = (
    "Too many requests of this player (new games or actions) in the current window: "
    "nothing changed. See Retry-After."
)
DELETED_TEXT = (
    "This player id was deleted for good (DELETE /api/player): nothing is saved for it any "
    "more, nothing changed, and the cookie is cleared (the next request is a new player)."
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
    """Add 503 (every API operation), 429 (every writing operation, hints and event streams)
    and 410 (every writing operation: a deleted player) to ``/openapi.json``, so the published
    schema lists every status the API can answer. The body is the API's
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
                writes = method in ("post", "put", "patch", "delete")
                if writes or path.endswith(("/hints", "/events")):
                    responses.setdefault("429", _fault_response(RATE_LIMITED_TEXT, body))
                if writes:
                    responses.setdefault(
                        "410",
                        {
                            "description": DELETED_TEXT,
                            "content": {"application/json": {"schema": body}},
                        },
                    )
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
