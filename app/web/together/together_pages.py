"""The pages of playing together: the daily deal, challenges, and their live event streams.

Routes parse, call a service, render (``app.web.site.rendering``). The live race panels' data comes
from ``app.services.race_panel``; the streams from ``app.web.together.race_streams``.
"""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.orm import Session

from app import services
from app.engine import ALL_VARIANTS, DEFAULT_VARIANT, get_variant
from app.i18n import N_, gettext
from app.services import NotFound, ServiceError
from app.services import challenges as challenge_service
from app.services import daily as daily_service
from app.services.leaderboard import PAGE_SIZE, check_page, leaderboard
from app.services.race_panel import challenge_race_id, daily_race_id, race_panel
from app.services.types import GameState
from app.web.site.deps import PlayerId
from app.web.site.rendering import (
    Page,
    base_context,
    base_url,
    error_page,
    not_found,
    render,
    see_other,
    see_other_saying,
)
from app.web.site.templating import static_url
from app.web.together.race_streams import html_stream

router = APIRouter(include_in_schema=False)

NO_CHALLENGE = N_("There is no such challenge. Check that the whole link was copied.")


def _no_variant(request: Request, csrf_token: str) -> Response:
    return error_page(
        request, csrf_token, 404, N_("No such variant"), N_("There is no variant of that name.")
    )


# -- the daily deal ----------------------------------------------------------------------------


@router.get("/daily", response_class=HTMLResponse)
def daily_home() -> Response:
    return see_other(f"/daily/{DEFAULT_VARIANT}")


@router.get("/daily/{variant}/events")
async def daily_events(variant: str, player: PlayerId) -> Response:
    if variant not in ALL_VARIANTS:
        return Response("There is no such variant.", status_code=404, media_type="text/plain")
    race_id = await asyncio.to_thread(daily_race_id, variant)
    return html_stream(race_id, player)


def _at_stake(db: Session, player: str, race_id: str) -> GameState | None:
    """The player's started game on the shared deal, which playing it again gives up (the
    saved game of the variant stays: races keep their own slot)."""
    return services.race_game_at_stake(db, player, race_id)


def _live_refresh(request: Request) -> bool:
    """A page's live tables asking for themselves alone (``?live=1``, after a race update)."""
    return request.query_params.get("live") == "1"


def _page_number(request: Request) -> int:
    """The ``?page=`` of a list page (1 if missing); ``InvalidRequest`` if malformed."""
    value = request.query_params.get("page")
    return 1 if value is None else check_page(value[:12])


def _daily_page(
    request: Request, db: Session, player: str, csrf_token: str, variant: str, day: date | None
) -> Response:
    try:
        page_no = _page_number(request)
    except ServiceError as exc:
        return error_page(request, csrf_token, 422, N_("No such page"), exc.message)
    try:
        info = daily_service.daily_info(db, player, variant, day)
    except ServiceError as exc:
        return error_page(request, csrf_token, 404, N_("No daily deal"), exc.message)
    board = leaderboard(db, info.race_id, player, over=info.over, page=page_no)
    live = info.started and not info.over
    ctx = base_context(request, csrf_token, "daily")
    ctx.update(board=board, info=info, live=live)
    if _live_refresh(request):
        return render(request, "daily.html", ctx, block="live_tables")
    ctx.update(
        variant_title=gettext(get_variant(variant).title),
        panel=race_panel(db, info.race_id, player) if live else None,
        today=daily_service.today(),
        busy=_at_stake(db, player, info.race_id),
        static_css=static_url("css/together.css"),
    )
    return render(request, "daily.html", ctx)


@router.get("/daily/{variant}", response_class=HTMLResponse)
def daily_page(page: Page, variant: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    if variant not in ALL_VARIANTS:
        return _no_variant(request, csrf_token)
    return _daily_page(request, db, player, csrf_token, variant, None)


@router.get("/daily/{variant}/{day}", response_class=HTMLResponse)
def daily_day_page(page: Page, variant: str, day: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    if variant not in ALL_VARIANTS:
        return _no_variant(request, csrf_token)
    try:
        when = daily_service.check_day(day[:12])
    except ServiceError as exc:
        return error_page(request, csrf_token, 404, N_("No daily deal"), exc.message)
    return _daily_page(request, db, player, csrf_token, variant, when)


@router.post("/daily/{variant}", response_class=HTMLResponse)
def daily_play(page: Page, variant: str, again: Annotated[str | None, Form()] = None) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state, _ = daily_service.play_daily(db, player, variant, again=again == "1")
    except ServiceError as exc:
        return error_page(request, csrf_token, 422, N_("Cannot start the daily deal"), exc.message)
    return see_other_saying(request, f"/games/{state.id}", "again" if again == "1" else "daily")


# -- challenges --------------------------------------------------------------------------------


@router.post("/games/{game_id}/challenge", response_class=HTMLResponse)
def challenge_create(page: Page, game_id: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        token = challenge_service.create_challenge(db, player, game_id).token
    except NotFound:
        return not_found(request, csrf_token)
    return see_other(f"/challenge/{token}")


@router.get("/challenge/{token}/events")
async def challenge_events(token: str, player: PlayerId) -> Response:
    try:
        race_id = await asyncio.to_thread(challenge_race_id, token)
    except NotFound:
        return Response("There is no such challenge.", status_code=404, media_type="text/plain")
    return html_stream(race_id, player)


@router.get("/challenge/{token}", response_class=HTMLResponse)
def challenge_page(page: Page, token: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        page_no = _page_number(request)
    except ServiceError as exc:
        return error_page(request, csrf_token, 422, N_("No such page"), exc.message)
    try:
        challenge = challenge_service.get_challenge(db, token, player)
        board = leaderboard(db, challenge.race_id, player, page=page_no)
        sides = challenge_service.comparison(db, token, player)
    except NotFound:
        return not_found(request, csrf_token, NO_CHALLENGE)
    ctx = base_context(request, csrf_token, "")
    ctx.update(challenge=challenge, sides=sides[(page_no - 1) * PAGE_SIZE : page_no * PAGE_SIZE])
    ctx.update(board=board)
    if _live_refresh(request):
        return render(request, "challenge.html", ctx, block="live_tables")
    ctx.update(
        my_game=next((s.game_id for s in sides if s.you and s.status != "gave-up"), None),
        joined=any(s.you for s in sides),
        variant_title=gettext(get_variant(challenge.variant).title),
        panel=race_panel(db, challenge.race_id, player),
        share_url=f"{base_url(request)}/challenge/{challenge.token}",
        busy=_at_stake(db, player, challenge.race_id),
        static_css=static_url("css/together.css"),
    )
    return render(request, "challenge.html", ctx)


@router.post("/challenge/{token}/play", response_class=HTMLResponse)
def challenge_play(page: Page, token: str, again: Annotated[str | None, Form()] = None) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state, _ = challenge_service.play_challenge(db, player, token, again=again == "1")
    except NotFound:
        return not_found(request, csrf_token, NO_CHALLENGE)
    return see_other_saying(request, f"/games/{state.id}", "again" if again == "1" else "challenge")
