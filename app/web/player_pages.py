"""The player's own pages: statistics, privacy and settings (saved games, statistics, card
colours, display name) and deleting what is kept about them.

Routes parse, call a service, render (``app.web.rendering``); every change is a form post
answered with a ``303`` back to the page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.orm import Session

from app import i18n, services
from app.config import get_settings
from app.db.session import SessionDep
from app.i18n import N_, gettext
from app.services import ServiceError
from app.services import profiles as profile_service
from app.services.players import set_locale
from app.web import charts
from app.web.deps import CsrfToken, PlayerId, clear_identity
from app.web.messages import translate
from app.web.rendering import (
    CARDS_COOKIE,
    Page,
    base_context,
    error_page,
    render,
    see_other,
    set_locale_cookie,
)

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
        cards_cookie=CARDS_COOKIE,
        lang_cookie=i18n.LOCALE_COOKIE,
        # what "follow the browser" means for this browser now
        browser_locale=i18n.negotiate((request.scope.get("state") or {}).get("accept_language")),
    )
    return ctx


DONE_MESSAGES = {
    "settings": N_("Your settings are saved."),
    "profile": N_("Your name and leaderboard setting are saved."),
    "games": N_("Your saved games are deleted."),
    "results": N_("Your results and statistics are deleted."),
    "all": N_(
        "Everything about you is deleted and your cookie is cleared. "
        "If you play again, you start as a new player."
    ),
    "language": N_("The language is saved."),
}


@router.get("/privacy", response_class=HTMLResponse)
def privacy(page: Page, done: Annotated[str | None, Query(max_length=12)] = None) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    ctx = _privacy_context(request, db, player, csrf_token)
    # The settings page shows the stored choice: a device whose cookie says otherwise (the
    # language changed on another device of the player) follows the settings from here on.
    state = request.scope.get("state") or {}
    stored = i18n.normalize(ctx["prefs"].locale) or i18n.AUTO
    stale = state.get("locale_cookie") not in (None, stored)
    if stale:
        i18n.current_locale.set(i18n.choose(stored, state.get("accept_language")))
        state["locale_cookie"] = stored
    message = DONE_MESSAGES.get(done or "")
    ctx["done"] = gettext(message) if message else None
    response = render(request, "privacy.html", ctx)
    if stale:
        set_locale_cookie(response, stored)
    return response


@router.post("/settings", response_class=HTMLResponse)
def save_settings(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    save_games: Annotated[str | None, Form()] = None,
    record_stats: Annotated[str | None, Form()] = None,
    four_colour: Annotated[str | None, Form()] = None,
    locale: Annotated[str | None, Form(max_length=16)] = None,
) -> Response:
    services.update_settings(
        db, player, save_games=save_games == "on", record_stats=record_stats == "on"
    )
    response = see_other("/privacy?done=settings")
    if locale is not None:  # (a form without the field leaves the language as it is)
        choice = i18n.normalize(locale)
        set_locale(db, player, choice)
        set_locale_cookie(response, choice or i18n.AUTO)
    if four_colour == "on":
        response.set_cookie(
            CARDS_COOKIE, "4", max_age=400 * 24 * 3600, httponly=True, samesite="lax"
        )
    else:
        response.delete_cookie(CARDS_COOKIE)
    return response


def _back_to(target: str | None) -> str:
    """Where the language switch sends the player back to: a path of this site (never another
    site's address), else the start page."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    if any(ord(ch) < 32 for ch in target):
        return "/"
    return target


@router.post("/settings/language", response_class=HTMLResponse)
def save_language(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    locale: Annotated[str | None, Form(max_length=16)] = None,
    next: Annotated[str | None, Form(max_length=2000)] = None,
) -> Response:
    """The language switch (the page header's and the settings'): a locale of the site, or
    ``auto`` (follow the browser), kept in the player's settings and this device's cookie; a
    ``303`` back to the page it was sent from. Anything else changes nothing: 422."""
    choice = i18n.normalize(locale)
    if choice is None and locale != i18n.AUTO:
        return error_page(
            request,
            csrf_token,
            422,
            N_("Unknown language"),
            N_("Choose English, Simplified Chinese or the browser's language."),
        )
    set_locale(db, player, choice)
    response = see_other(_back_to(next))
    set_locale_cookie(response, choice or i18n.AUTO)
    return response


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
    response.delete_cookie(CARDS_COOKIE)
    response.delete_cookie(i18n.LOCALE_COOKIE)
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
        ctx.update(
            profile_error=translate(exc.message), profile_form=(display_name or "")[:40], done=None
        )
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=profile")
