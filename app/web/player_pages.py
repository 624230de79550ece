"""The player's own pages: statistics, privacy and settings (saved games, statistics, the
deck's colours, theme and card size, display name) and deleting what is kept about them.

Routes parse, call a service, render (``app.web.rendering``); every change is a form post
answered with a ``303`` back to the page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.orm import Session

from app import services
from app.config import get_settings
from app.db.session import SessionDep
from app.services import InvalidRequest, ServiceError
from app.services import profiles as profile_service
from app.web import charts
from app.web.deps import CsrfToken, PlayerId, clear_identity
from app.web.rendering import Page, base_context, render, see_other

router = APIRouter(include_in_schema=False)


# -- statistics -------------------------------------------------------------------------------


@router.get("/stats", response_class=HTMLResponse)
def stats(request: Request, db: SessionDep, player: PlayerId, csrf_token: CsrfToken) -> Response:
    data = services.get_stats(db, player)
    ctx = base_context(request, csrf_token, "stats")
    totals = charts.totals(data)
    ctx.update(
        data=data,
        totals=totals,
        chart=charts.starts_wins_chart(data.per_day, days=30, today=datetime.now(UTC).date()),
        prefs=services.get_settings(db, player),
    )
    return render(request, "stats.html", ctx)


# -- privacy and settings ---------------------------------------------------------------------


def _privacy_context(request: Request, db: Session, player: str, csrf_token: str) -> dict[str, Any]:
    ctx = base_context(request, csrf_token, "privacy")
    ctx.update(
        prefs=services.get_settings(db, player),
        profile=profile_service.get_profile(db, player),  # display name and leaderboards
        cookie_name=get_settings().cookie_name,
        themes=THEME_CHOICES,
    )
    return ctx


# The theme switch's choices, in the order shown (the value, its label).
THEME_CHOICES = (
    ("auto", "As my device is set (light or dark)"),
    ("light", "Light"),
    ("dark", "Dark"),
)

DONE_MESSAGES = {
    "settings": "Your settings are saved.",
    "deck": "Your deck and theme are saved.",
    "profile": "Your name and leaderboard setting are saved.",
    "games": "Your saved games are deleted.",
    "results": "Your results and statistics are deleted.",
    "all": "Everything about you is deleted and your cookie is cleared. "
    "If you play again, you start as a new player.",
}


@router.get("/privacy", response_class=HTMLResponse)
def privacy(page: Page, done: Annotated[str | None, Query(max_length=12)] = None) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    ctx = _privacy_context(request, db, player, csrf_token)
    ctx["done"] = DONE_MESSAGES.get(done or "")
    return render(request, "privacy.html", ctx)


@router.post("/settings", response_class=HTMLResponse)
def save_settings(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    save_games: Annotated[str | None, Form()] = None,
    record_stats: Annotated[str | None, Form()] = None,
) -> Response:
    services.update_settings(
        db, player, save_games=save_games == "on", record_stats=record_stats == "on"
    )
    return see_other("/privacy?done=settings")


def _checkbox(label: str, value: str | None) -> bool:
    """A checkbox's field: absent (unticked) or ``on`` (ticked); anything else is refused."""
    if value is None or value == "":
        return False
    if value == "on":
        return True
    raise InvalidRequest(f"{label}: send “on” to choose it, or leave it out. Nothing changed.")


@router.post("/settings/deck", response_class=HTMLResponse)
def save_deck(
    page: Page,
    four_colour: Annotated[str | None, Form()] = None,
    theme: Annotated[str | None, Form()] = None,
    large_cards: Annotated[str | None, Form()] = None,
) -> Response:
    """The deck's colours, the theme and the card size: kept in the player's settings (so
    every device of the player shows them), applied on every page (``base_context``)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        four = _checkbox("Four-colour cards", four_colour)
        large = _checkbox("Larger cards", large_cards)
        services.update_settings(
            db, player, four_colour=four, theme=theme or "auto", large_cards=large
        )
    except ServiceError as exc:
        ctx = _privacy_context(request, db, player, csrf_token)
        ctx.update(deck_error=exc.message, done=None)
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=deck")


@router.post("/privacy/delete-games", response_class=HTMLResponse)
def delete_games(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_games(db, player)
    return see_other("/privacy?done=games")


@router.post("/privacy/delete-results", response_class=HTMLResponse)
def delete_results(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_results(db, player)
    return see_other("/privacy?done=results")


@router.post("/privacy/delete-everything", response_class=HTMLResponse)
def delete_everything(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_player(db, player)
    response = see_other("/privacy?done=all")
    clear_identity(request, response)
    return response


@router.post("/settings/profile", response_class=HTMLResponse)
def save_profile(
    page: Page,
    display_name: Annotated[str | None, Form(max_length=200)] = None,
    on_leaderboards: Annotated[str | None, Form()] = None,
) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        profile_service.update_profile(
            db, player, display_name=display_name or None, on_leaderboards=on_leaderboards == "on"
        )
    except ServiceError as exc:
        ctx = _privacy_context(request, db, player, csrf_token)
        ctx.update(profile_error=exc.message, profile_form=(display_name or "")[:40], done=None)
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=profile")
