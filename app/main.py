"""The application: ``uvicorn app.main:app`` serves the HTML pages and the JSON API.

Middleware, outermost first, each pure ASGI with one job (``app.web``): the request id, its
metrics and the access log (``request_log``); ``/healthz``, ``/readyz``, ``/metrics``
(``ops``); the security headers (``security_headers``); ``/static`` (``static_first``: no
cookie); the body limit (``body_limit``); the client's address (``client_address``); the
language (``language``); identity and CSRF (``identity``); the request's database sessions
closed after the response (``request_sessions``); and outermost ``Cache-Control:
no-store`` on every ``/api`` answer, the other middlewares' own refusals included (``no_store``).
Errors: ``app.web.site.errors``. Routers, grouped by what they serve (docs/architecture.md):
``app.web.game`` (the play page and ``/api/games``), ``app.web.coach`` (the solver's help),
``app.web.together`` (daily deals, challenges, races), ``app.web.player`` (the player's own
pages and data), ``app.web.site`` (the installable app's files).

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
from app.services.analysis import shutdown_pool
from app.services.race_hub import hub
from app.web.coach import analysis_pages, api_analysis, api_review, review_pages
from app.web.game import api, pages
from app.web.middleware.body_limit import BodyLimitMiddleware
from app.web.middleware.client_address import ClientAddressMiddleware
from app.web.middleware.identity import IdentityMiddleware
from app.web.middleware.language import LanguageMiddleware
from app.web.middleware.no_store import ApiNoStore
from app.web.middleware.ops import OpsMiddleware
from app.web.middleware.request_log import RequestLogMiddleware
from app.web.middleware.request_sessions import RequestSessionsMiddleware
from app.web.middleware.security_headers import SecurityHeadersMiddleware
from app.web.middleware.static_first import StaticFirstMiddleware
from app.web.player import devices_api, player_pages
from app.web.site import errors, pwa
from app.web.site.assets import static_files
from app.web.together import together_api, together_pages

ROOT = Path(__file__).resolve().parent.parent
STATIC_DIR = ROOT / "static"


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Close the race hub (ending its event streams) and the solver pool at shutdown."""
    try:
        yield
    finally:
        await hub.close()
        await asyncio.to_thread(shutdown_pool)


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
    # The middlewares, innermost first (``add_middleware`` wraps what was added before).
    app.add_middleware(RequestSessionsMiddleware)
    app.add_middleware(IdentityMiddleware, settings=settings)
    app.add_middleware(LanguageMiddleware)
    app.add_middleware(ClientAddressMiddleware)
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(StaticFirstMiddleware, static_app=static_files().app)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(OpsMiddleware, settings=settings)
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(ApiNoStore)
    app.mount("/static", static_files().app, name="static")  # (url_for; served by the above)

    # The busiest routers first (a JSON move, then the play page and its forms). No path of
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
    return app


app = create_app()
