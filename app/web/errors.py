"""Every error is ``{"detail": "<a sentence a player understands>"}``; never a stack trace.

Service errors map to 404 / 409 / 422; request validation errors become one readable
sentence; unknown routes and methods get a sentence too; anything unexpected is logged and
answered with a plain 500 sentence (a 5xx is a defect: this is only the safety net).

HTML pages: for a browser (``Accept: text/html``) outside ``/api``, the pages module may
provide ``render_error(request, status_code, detail) -> Response``; it is used when present.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import escape
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.services import (
    ActionRefused,
    InvalidRequest,
    NotFound,
    ServiceError,
    VersionConflict,
)

log = logging.getLogger("scorpion")

HtmlErrorRenderer = Callable[[Request, int, str], Response]

STATUS_TEXT = {
    400: "The request could not be understood.",
    401: "You are not signed in.",
    403: "This request is not allowed.",
    404: "There is nothing at this address.",
    405: "This address does not accept that kind of request.",
    406: "This address cannot answer in the format asked for.",
    413: "The request is too large.",
    415: "The request's content type is not supported: send JSON.",
    429: "Too many requests: please wait a moment and try again.",
}


def _wants_html(request: Request) -> bool:
    if request.url.path.startswith("/api") or request.url.path == "/openapi.json":
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


def install_error_handlers(app: FastAPI, html: HtmlErrorRenderer | None = None) -> None:
    def respond(
        request: Request, status: int, detail: str, headers: dict[str, str] | None = None
    ) -> Response:
        if html is not None and _wants_html(request):
            try:
                response = html(request, status, detail)
                if headers:
                    response.headers.update(headers)
                return response
            except Exception:  # fall back to plain text below
                log.exception("error page failed")
        if _wants_html(request):
            page = (
                "<!doctype html><html lang=en><meta charset=utf-8><title>Scorpion</title>"
                f'<main><h1>Sorry</h1><p>{escape(detail)}</p><p><a href="/">Home</a></p></main>'
            )
            return HTMLResponse(page, status_code=status, headers=headers)
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> Response:
        if isinstance(exc, NotFound):
            status = 404
        elif isinstance(exc, VersionConflict):
            status = 409
        elif isinstance(exc, InvalidRequest | ActionRefused):
            status = 422
        else:
            status = 422
        return respond(request, status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        return respond(request, 422, validation_message(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
            # FastAPI's answer to a body that is not even text (bad UTF-8): a malformed body.
            return respond(request, 422, "The request body is not valid JSON.")
        detail = exc.detail if isinstance(exc.detail, str) else ""
        default = STATUS_TEXT.get(exc.status_code, "The request could not be completed.")
        # Starlette's own defaults ("Not Found", "Method Not Allowed") are not sentences.
        try:
            phrase = HTTPStatus(exc.status_code).phrase
        except ValueError:
            phrase = ""
        if not detail or detail == phrase:
            detail = default
        return respond(request, exc.status_code, detail, dict(exc.headers or {}) or None)

    @app.exception_handler(OperationalError)
    async def _db_busy(request: Request, exc: OperationalError) -> Response:
        log.error("database error: %s", exc)
        return respond(
            request,
            503,
            "The game server is busy right now; nothing was changed. Please try again.",
            {"Retry-After": "1"},
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return respond(
            request, 500, "Something went wrong on our side; nothing was changed. Please retry."
        )
