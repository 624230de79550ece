"""JSON API addition (issue 5): ``POST /api/games/{id}/analysis``, the solver's verdict.

An extension of docs/api.md in its style (same identity, CSRF, errors and rate limit
of actions). The route is async: the solver runs in a separate process
(``app.services.analysis``) and the request awaits it without holding a thread.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field, StrictBool, StrictInt

from app.db.session import SessionDep
from app.services import analysis
from app.web.game.api import GameId
from app.web.game.api_models import (
    HintMoveOut,
    PileHintOut,
    StrictBody,
    error_responses,
    hint_out,
)
from app.web.site.deps import PlayerId


class AnalysisIn(StrictBody):
    hint: StrictBool = Field(
        False,
        description="Also return a solver hint: the first action of a winning line the solver "
        "found and verified (only when the verdict is win).",
    )
    version: StrictInt | None = Field(
        None, description="The game version the question is about (409 if stale)."
    )


AnalysisBody = Annotated[AnalysisIn | None, Body()]


class DealHintOut(BaseModel):
    deal: Literal[True] = Field(description="The hint is to deal the stock.")


class AnalysisOut(BaseModel):
    verdict: Literal["win", "loss", "unknown"] = Field(
        description="win: some sequence of moves still wins from here (proved by a line replayed "
        "through the engine); loss: no sequence of moves wins from here (proved); unknown: the "
        "solver could not tell within its time budget (then the game is not marked assisted)."
    )
    seconds: float = Field(description="How long the answer took, in seconds.")
    hint: HintMoveOut | PileHintOut | DealHintOut | None = Field(
        description="Only when asked for and the verdict is win: a move (a pile move in a variant "
        "with reserves or cells), or the deal, that keeps "
        "the game winnable. Otherwise null. The rest of the line is never revealed."
    )
    version: int = Field(description="The game version that was analysed.")


router = APIRouter(prefix="/api", tags=["api"])

_RESPONSES = error_responses(
    403,
    404,
    409,
    own={
        422: 'A malformed body, or a won game ("This game is won and finished"): nothing changed.'
    },
)


@router.post(
    "/games/{id}/analysis",
    response_model=AnalysisOut,
    responses=_RESPONSES,
    summary="Is this game still winnable? (optionally with a solver hint)",
    description="Asks the solver about the game's current position, hidden cards included "
    "(server side only: the answer never reveals them, nor the winning line). Answers within "
    "the time budget (ANALYSIS_BUDGET_SECONDS, default 3 s) or says unknown. Asking marks the "
    "game as assisted: its win counts in the statistics' assisted_won. Counts as an action "
    "for the rate limit. The solver covers every variant; in a variant with reserves or cells the "
    "hint may name those piles (from_pile, to_pile).",
)
async def post_analysis(
    game_id: GameId, db: SessionDep, player_id: PlayerId, body: AnalysisBody = None
) -> AnalysisOut:
    body = body or AnalysisIn.model_validate({})
    result = await analysis.analyse_game(
        db, player_id, game_id, hint=body.hint, expected_version=body.version
    )
    hint: HintMoveOut | PileHintOut | DealHintOut | None = None
    if result.hint == "deal":
        hint = DealHintOut(deal=True)
    elif result.hint is not None:
        hint = hint_out(result.hint)
    return AnalysisOut(
        verdict=result.verdict, seconds=result.seconds, hint=hint, version=result.version
    )
