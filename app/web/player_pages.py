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
from starlette.datastructures import UploadFile

from app import i18n, services
from app.config import get_settings
from app.db.session import SessionDep
from app.i18n import N_, gettext
from app.services import InvalidRequest, ServiceError, portability
from app.services import devices as device_service
from app.services import profiles as profile_service
from app.services.players import KEEP_LOCALE, set_locale
from app.web import charts
from app.web.deps import (
    CsrfToken,
    DeviceId,
    PlayerId,
    become_device,
    clear_identity,
    csrf_token_for,
)
from app.web.messages import translate
from app.web.rendering import (
    Page,
    base_context,
    base_url,
    error_page,
    form_fields,
    is_htmx,
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
    device = request.scope.get("state", {}).get("device_id", "")
    ctx.update(
        prefs=services.get_settings(db, player),
        profile=profile_service.get_profile(db, player),  # display name and leaderboards
        cookie_name=get_settings().cookie_name,
        themes=THEME_CHOICES,
        devices=device_service.list_devices(db, player, device),
        max_import_bytes=get_settings().max_import_bytes,
        link=None,
        link_minutes=device_service.LINK_CODE_MINUTES,
        lang_cookie=i18n.LOCALE_COOKIE,
        # what "follow the browser" means for this browser now
        browser_locale=i18n.negotiate((request.scope.get("state") or {}).get("accept_language")),
    )
    return ctx


# The theme switch's choices, in the order shown (the value, its label).
THEME_CHOICES = (
    ("auto", N_("As my device is set (light or dark)")),
    ("light", N_("Light")),
    ("dark", N_("Dark")),
)

DONE_MESSAGES = {
    "settings": N_("Your settings are saved."),
    "deck": N_("Your deck and theme are saved."),
    "profile": N_("Your name and leaderboard setting are saved."),
    "games": N_("Your saved games are deleted."),
    "results": N_("Your results and statistics are deleted."),
    "all": N_(
        "Everything about you is deleted and your cookie is cleared. "
        "If you play again, you start as a new player."
    ),
    "language": N_("The language is saved."),
    "device": N_("The device is removed: its cookie no longer reaches your games."),
    "linked": N_("This device is linked: it now shares your games, statistics and settings."),
    "imported": N_("Your data file is imported: it replaced what this site kept about you."),
}


@router.get("/privacy", response_class=HTMLResponse)
def privacy(
    page: Page,
    done: Annotated[str | None, Query(max_length=12)] = None,
    refused: Annotated[str | None, Query(max_length=12)] = None,
) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    ctx = _privacy_context(request, db, player, csrf_token)
    if refused == "too-large":  # a data file past the body cap (app.web.front: a 303 here)
        refusal = portability.too_large(get_settings().max_import_bytes)
        ctx["import_error"] = translate(refusal.message)
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
        set_locale_cookie(request, response, stored)
    return response


@router.post("/settings", response_class=HTMLResponse)
def save_settings(
    page: Page,
    save_games: Annotated[str | None, Form()] = None,
    record_stats: Annotated[str | None, Form()] = None,
    locale: Annotated[str | None, Form(max_length=16)] = None,
) -> Response:
    request, db, player = page.request, page.db, page.player
    # (a form without the language field leaves the language as it is)
    choice = KEEP_LOCALE if locale is None else i18n.normalize(locale)
    services.update_settings(
        db,
        player,
        save_games=save_games == "on",
        record_stats=record_stats == "on",
        locale=choice,
    )
    response = see_other("/privacy?done=settings")
    if choice is not KEEP_LOCALE:
        set_locale_cookie(request, response, choice or i18n.AUTO)
    return response


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
        ctx.update(deck_error=translate(exc.message), done=None)
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=deck")


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
    page: Page,
    locale: Annotated[str | None, Form(max_length=16)] = None,
    next: Annotated[str | None, Form(max_length=2000)] = None,
) -> Response:
    """The language switch (the page header's and the settings'): a locale of the site, or
    ``auto`` (follow the browser), kept in the player's settings and this device's cookie; a
    ``303`` back to the page it was sent from. Anything else changes nothing: 422."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
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
    set_locale_cookie(request, response, choice or i18n.AUTO)
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


# -- devices: linking another device (``app.services.devices``) --------------------------------


@router.post("/privacy/link-code", response_class=HTMLResponse)
def make_link_code(page: Page) -> Response:
    """A new one-time code, shown once (it is kept only as a hash): this answer shows it."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    issued = device_service.make_link_code(db, player)
    url = device_service.link_url(base_url(request), issued.code)
    ctx = _privacy_context(request, db, player, csrf_token)
    ctx.update(link=issued, link_url=url, link_qr=device_service.qr_svg(url), done=None)
    block = "link_panel" if is_htmx(request) else None
    return render(request, "privacy.html", ctx, block=block)


@router.post("/privacy/devices/remove", response_class=HTMLResponse)
def remove_device(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    this: DeviceId,
    device: Annotated[str, Form(max_length=24)],
) -> Response:
    device_service.remove_device(db, player, device, by=this)
    return see_other("/privacy?done=device")


def _link_context(
    request: Request, db: Session, player: str, csrf_token: str, code: str
) -> dict[str, Any]:
    ctx = base_context(request, csrf_token, "privacy")
    ctx.update(
        code=code,
        has_data=device_service.has_data(db, player),
        error=None,
        link_minutes=device_service.LINK_CODE_MINUTES,
    )
    return ctx


@router.get("/link", response_class=HTMLResponse)
def link_page(page: Page, code: Annotated[str | None, Query(max_length=40)] = None) -> Response:
    """The form that joins this browser to another device's player (the QR code's URL fills
    in the code)."""
    normalised = device_service.normalise_code(code or "")
    shown = f"{normalised[:4]}-{normalised[4:]}" if normalised else ""
    ctx = _link_context(page.request, page.db, page.player, page.csrf_token, shown)
    return render(page.request, "link.html", ctx)


@router.post("/link", response_class=HTMLResponse)
async def link_submit(page: Page, device: DeviceId) -> Response:
    form = await form_fields(page.request)
    code = form.get("code")
    leave = form.get("leave") == "on"
    agent = page.request.headers.get("user-agent", "")[:512]
    return await _run(_link, page, device, code, leave, agent)


async def _run(fn: Any, *args: Any) -> Response:
    from starlette.concurrency import run_in_threadpool

    result: Response = await run_in_threadpool(fn, *args)
    return result


def _link(page: Page, device: str, code: Any, leave: bool, agent: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        linked = device_service.link_device(
            db, player, device, code, user_agent=agent, leave_data=leave
        )
    except (ServiceError, device_service.TooManyLinkTries) as exc:
        ctx = _link_context(request, db, player, csrf_token, code if isinstance(code, str) else "")
        ctx["error"] = translate(exc.message)
        status = 429 if isinstance(exc, device_service.TooManyLinkTries) else 422
        response = render(
            request,
            "link.html",
            ctx,
            status_code=status,
            block="link_form" if is_htmx(request) else None,
        )
        if isinstance(exc, device_service.TooManyLinkTries):
            response.headers["Retry-After"] = str(exc.retry_after)
        return response
    if not is_htmx(request):
        response = see_other("/privacy?done=linked")
        become_device(request, response, linked.player_id, linked.device_id)
        return response
    # The page stays: its forms (the footer's language switch) get the new device's token.
    token = csrf_token_for(linked.player_id, device_id=linked.device_id)
    ctx = base_context(request, token, "privacy")
    ctx.update(linked=True, code="", has_data=False, error=None, lang_switch_oob=True)
    response = render(request, "link.html", ctx, block="link_form")
    become_device(request, response, linked.player_id, linked.device_id)
    return response


# -- your data: export and import (``app.services.portability``) -------------------------------


@router.get("/privacy/export")
def export_data(request: Request, db: SessionDep, player: PlayerId) -> Response:
    """Everything kept about the player, as a signed JSON file (a download)."""
    body = portability.export_player_data(db, player)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Response(
        body,
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="scorpion-data-{stamp}.json"',
            "Cache-Control": "no-store",
        },
    )


@router.post("/privacy/import", response_class=HTMLResponse)
async def import_data(page: Page) -> Response:
    request = page.request
    limit = get_settings().max_import_bytes
    form = await request.form(max_files=1, max_fields=10)
    upload = form.get("file")
    confirmed = form.get("confirm") == "on"
    raw = b""
    if isinstance(upload, UploadFile):
        raw = await upload.read(limit + 1)
    await form.close()
    return await _run(_import, page, raw, confirmed, isinstance(upload, UploadFile))


def _import(page: Page, raw: bytes, confirmed: bool, uploaded: bool) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        portability.import_player_data(
            db, player, raw if uploaded else b"", confirmed=confirmed, chosen=uploaded
        )
    except ServiceError as exc:
        ctx = _privacy_context(request, db, player, csrf_token)
        ctx.update(import_error=translate(exc.message), done=None)
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=imported")
