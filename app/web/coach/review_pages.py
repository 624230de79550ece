"""The review of a game on its replay page (issue 40): the strip of verdicts, its progress
while the solver works (htmx polls ``GET /games/{id}/review``), the form that asks for it and
"Show a way to win" (``GET /games/{id}/way``: the solver's line from the last winnable position,
played like a replay). The work itself: ``app.services.review``; markup: ``templates/replay.html``
and ``templates/partials/review.html``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.orm import Session

from app.i18n import N_
from app.services import NotFound, ServiceError, review
from app.services.games import get_game
from app.web.game.messages import translate
from app.web.site.rendering import (
    Page,
    ReplayPlay,
    ReplayStep,
    base_context,
    error_page,
    is_htmx,
    not_found,
    render,
    replay_context,
    see_other,
)

router = APIRouter(include_in_schema=False)


def review_context(
    db: Session, player_id: str, game_id: str, *, finished: bool, step: int | None = None
) -> dict[str, Any]:
    """What ``partials/review.html`` needs; takes up a review whose worker stopped."""
    status, stale = review.find_review(db, player_id, game_id)
    if stale:
        review.submit_review(game_id)
    return {
        "gid": game_id,
        "review": status,
        "finished": finished,
        "step": step,
        "review_error": None,
    }


def _finished(db: Session, player_id: str, game_id: str) -> bool:
    state = get_game(db, player_id, game_id)
    return state.status == "won" or state.abandoned


@router.post("/games/{game_id}/review", response_class=HTMLResponse)
def post_review(page: Page, game_id: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        status, run = review.start_review(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    except ServiceError as exc:
        if not is_htmx(request):
            return error_page(request, csrf_token, 422, N_("No review yet"), exc.message)
        ctx = base_context(request, csrf_token, "play")
        ctx.update(gid=game_id, review=None, finished=True, step=None)
        ctx.update(review_error=translate(exc.message))
        return render(request, "partials/review.html", ctx)
    if run:
        review.submit_review(game_id)
    if not is_htmx(request):
        return see_other(f"/games/{game_id}/replay")
    ctx = base_context(request, csrf_token, "play")
    ctx.update(review_context(db, player, game_id, finished=status.finished))
    return render(request, "partials/review.html", ctx)


@router.get("/games/{game_id}/review", response_class=HTMLResponse)
def get_review(page: Page, game_id: str) -> Response:
    """The review section (htmx polls it while the solver works); a full page request goes
    to the replay page, where it is shown."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    if not is_htmx(request):
        return see_other(f"/games/{game_id}/replay")
    try:
        finished = _finished(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    ctx = base_context(request, csrf_token, "play")
    ctx.update(review_context(db, player, game_id, finished=finished))
    return render(request, "partials/review.html", ctx)


@router.get("/games/{game_id}/way", response_class=HTMLResponse)
def way_to_win(
    page: Page,
    game_id: str,
    step: ReplayStep = 0,
    play: ReplayPlay = 0,
) -> Response:
    """ "Show a way to win": the solver's line from the last winnable position of a finished
    game's review, step by step like a replay (public views only)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state = get_game(db, player, game_id)
        start, frames, line = review.winning_frames(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    ctx = replay_context(
        request,
        csrf_token,
        state,
        frames,
        line,
        step=step,
        play=play,
        base=f"/games/{game_id}/way",
        way_from=start,
    )
    if is_htmx(request):
        return render(request, "replay.html", ctx, block="replay")
    return render(request, "replay.html", ctx)
