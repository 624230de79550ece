"""The application: ``uvicorn app.main:app`` serves the HTML pages and the JSON API.

Middleware: ``app.web.front`` (request id, health and metrics, /static, the body limit,
the client address, identity + CSRF, security headers, request metrics and the access log),
and outside it ``app.web.no_store`` (``Cache-Control: no-store`` on every ``/api`` answer).
Errors: ``app.web.errors``. Routers: the JSON API (``app.web.api``, ``app.web.api_analysis``,
``app.web.together_api``) and the HTML pages (``app.web.pages``, ``app.web.player_pages``,
``app.web.analysis_pages``, ``app.web.together_pages``).

The lifespan owns the process's long-lived helpers: the race hub (live event streams) and the
solver's process pool; both are made on first use and closed at shutdown. Serve with
``--timeout-graceful-shutdown`` so open event streams do not hold a shutdown up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from app import observability
from app.config import Settings, get_settings
from app.db.session import close_loop_connections
from app.services.analysis import shutdown_pool
from app.services.race_hub import hub
from app.web import (
    analysis_pages,
    api,
    api_analysis,
    api_review,
    devices_api,
    errors,
    pages,
    player_pages,
    pwa,
    review_pages,
    together_api,
    together_pages,
)
from app.web.assets import static_files
from app.web.front import FrontMiddleware
from app.web.lean import first_routes
from app.web.no_store import ApiNoStore

ROOT = Path(__file__).resolve().parent.parent
STATIC_DIR = ROOT / "static"


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Close the race hub (ending its event streams), the solver pool and the event loop's
    database connection (``app.web.inline``) at shutdown."""
    try:
        yield
    finally:
        await hub.close()
        await asyncio.to_thread(shutdown_pool)
        close_loop_connections()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()  # refuses to start in production with the dev key
    observability.configure_logging(settings.log_format, settings.log_level)
    app = FastAPI(
        title="Scorpion",
        summary="Scorpion solitaire: exact rules, honest statistics, private by design.",
        version="1.0",
        docs_url=None,  # the interactive docs load scripts from a CDN; /openapi.json stays
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=lifespan,
        # The site's own metrics and logs (app.observability) are its telemetry. FastAPI's
        # OpenTelemetry bridge is off: it asks the OpenTelemetry providers whether they are set
        # up (environment lookups) on every request, and no OpenTelemetry SDK is installed.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    errors.install(app)
    # The one middleware: /healthz /readyz /metrics, request ids, /static (no cookie), the
    # body limit, the client address, identity + CSRF, security headers, metrics, access log.
    # (/static: servestatic, app.web.assets)
    app.add_middleware(FrontMiddleware, settings=settings, static_app=static_files().app)
    # Outside it, one small step: every /api answer is "Cache-Control: no-store" (app.web.no_store).
    app.add_middleware(ApiNoStore)
    app.mount("/static", static_files().app, name="static")  # (url_for; served by the above)

    # FastAPI tries the routes in this order, about 2 us each (an included router's own routes
    # twice): the busiest first, a JSON move and then the play page and its forms. No path of
    # one router can match another's, so the order changes nothing else.
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(api_analysis.router)  # POST /api/games/{id}/analysis (the solver)
    app.include_router(api_review.router)  # /api/games/{id}/review (the solver's review)
    app.include_router(review_pages.router)  # the review on the replay page, a way to win
    app.include_router(together_api.router)  # profile, daily deal, challenges, races
    app.include_router(player_pages.router)  # statistics, privacy and settings
    app.include_router(devices_api.router)  # devices, link codes, the data file
    app.include_router(analysis_pages.router)  # solver buttons, winnable deals
    app.include_router(together_pages.router)  # daily deal, challenges, live panels
    app.include_router(pwa.router)  # the web app's manifest, service worker, offline page
    # ... and the busiest of those first of all, matched by their patterns alone (the first
    # routes FastAPI would try of the first two routers: the same answers, fewer steps).
    first_routes(app, (api.router, api.FIRST), (pages.router, pages.FIRST))
    return app


app = create_app()
