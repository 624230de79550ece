"""JSON API addition (issue 40): the review of a game, ``/api/games/{id}/review``.

``POST`` asks for it (CSRF and the rate limit of actions, as the other unsafe routes): ``202``
while the solver processes work on it in the background, ``200`` once done. ``GET`` reads it
as far as it went. The work itself: ``app.services.review``.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.db.session import SessionDep
from app.services import review
from app.web.game.api import GameId
from app.web.game.api_models import error_responses
from app.web.site.deps import PlayerId


class StepOut(BaseModel):
    step: int = Field(description="The position after this many steps of the log (0: opening).")
    verdict: Literal["win", "loss", "unknown"] = Field(
        description="win: still winnable; loss: proved lost; unknown: not decided in time."
    )


class ReviewOut(BaseModel):
    state: Literal["working", "done"] = Field(
        description="working: the solver is still at it (steps decided so far are listed); "
        "done: every position has its verdict."
    )
    steps: list[StepOut] = Field(description="The positions decided so far, in order.")
    first_losing_step: int | None = Field(
        description="The first step whose position is lost while the one before was winnable "
        "(the move that lost a winnable game), or null."
    )


router = APIRouter(prefix="/api", tags=["api"])

_RESPONSES = error_responses(
    403,
    404,
    own={
        422: "The deal is still secret (today's daily deal, or a challenge on it): "
        "its review waits until the day is over. Nothing changed."
    },
)


def review_out(status: review.ReviewStatus) -> ReviewOut:
    return ReviewOut(
        state="done" if status.state == "done" else "working",
        steps=[
            StepOut(step=k, verdict=v)  # type: ignore[arg-type]
            for k, v in enumerate(status.verdicts)
            if v is not None
        ],
        first_losing_step=status.first_losing_step,
    )


@router.post(
    "/games/{id}/review",
    response_model=ReviewOut,
    responses={**_RESPONSES, 202: {"model": ReviewOut, "description": "Working on it."}},
    summary="Ask the solver for a review of the game's positions",
    description="Starts (or takes up) the solver's review of every position of the game's move "
    "log, in the background: 202 while working, 200 when done. Reviewing a game in progress "
    "marks it assisted. Counts as an action for the rate limit.",
)
async def post_review(
    game_id: GameId, db: SessionDep, player_id: PlayerId, response: Response
) -> ReviewOut:
    status, run = await run_in_threadpool(review.start_review, db, player_id, game_id)
    if run:
        review.submit_review(game_id)
    response.status_code = 200 if status.state == "done" else 202
    return review_out(status)


@router.get(
    "/games/{id}/review",
    response_model=ReviewOut,
    responses=error_responses(404, 422),
    summary="The review of the game, as far as it went",
    description="Every position decided so far with its verdict; 404 for a game without a "
    "review (ask for one with POST) or another player's game.",
)
async def get_review(game_id: GameId, db: SessionDep, player_id: PlayerId) -> ReviewOut:
    status, take_up = await run_in_threadpool(review.review_status, db, player_id, game_id)
    if take_up:
        review.submit_review(game_id)
    return review_out(status)
