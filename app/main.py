"""The application: ``uvicorn app.main:app`` serves the HTML pages and the JSON API.

Middleware (outermost first): ops (``app.web.ops``: health, metrics, request id, access log),
security headers, then identity + CSRF (``app.web.deps``).
Routers: the JSON API (``app.web.api``) and the HTML pages (``app.web.pages``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from app import observability
from app.config import Settings, get_settings
from app.web import analysis_pages, api, api_analysis, errors_db, pages, play_together
from app.web.deps import IdentityMiddleware
from app.web.errors import install_error_handlers
from app.web.ops import OpsMiddleware
from app.web.security import SecurityHeadersMiddleware
from app.web.static_files import get_static_assets

ROOT = Path(__file__).resolve().parent.parent
STATIC_DIR = ROOT / "static"


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
    )
    install_error_handlers(app, getattr(pages, "render_error", None))
    errors_db.install(app)  # 503 on the other database faults, 429 on rate limits
    app.add_middleware(IdentityMiddleware, settings=settings)
    app.add_middleware(SecurityHeadersMiddleware)
    # Outermost: /healthz /readyz /metrics, request ids, access log, and /static (no cookie).
    app.add_middleware(OpsMiddleware, settings=settings, static_app=get_static_assets())
    app.mount("/static", get_static_assets(), name="static")  # (url_for; served by the above)

    app.include_router(api.router)
    app.include_router(api_analysis.router)  # POST /api/games/{id}/analysis (the solver)
    # HTML pages: app/web/pages.py (owned by the pages work) defines ``router``.
    app.include_router(pages.router)
    app.include_router(analysis_pages.router)  # solver buttons, winnable deals
    app.include_router(play_together.api_router)  # daily deal, challenges, races (API)
    app.include_router(play_together.router)  # ... and their pages
    return app


app = create_app()
