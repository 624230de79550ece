"""The JSON API of docs/api.md, exactly: parse -> service -> render.

Errors are raised by the services (``ServiceError``) and turned into ``{"detail": ...}`` by
the handlers in ``app.web.site.errors``; identity and CSRF are enforced by
``app.web.middleware.identity``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Request, Response

from app import services
from app.engine import Action, variant_metadata
from app.web.game.api_models import (
    GameOut,
    HintsOut,
    MoveIn,
    NewGameBody,
    NewGameIn,
    SessionOut,
    StatsOut,
    VariantOut,
    VariantsOut,
    VersionIn,
    error_responses,
    game_json,
    hint_out,
    stats_out,
)
from app.web.site.deps import CallerDep, CsrfToken, PlayerId, clear_identity

# -- routes ------------------------------------------------------------------------------------


router = APIRouter(prefix="/api", tags=["api"])

OptionalVersion = Annotated[VersionIn | None, Body()]
GameId = Annotated[str, Path(alias="id", description="The game's opaque id.")]


@router.get(
    "/variants",
    response_model=VariantsOut,
    summary="The variants of the Scorpion family, in the order of the rules",
)
def get_variants() -> VariantsOut:
    return VariantsOut(variants=[VariantOut(**v) for v in variant_metadata()])


@router.get("/session", response_model=SessionOut, summary="The player and their CSRF token")
def get_session(player_id: PlayerId, csrf_token: CsrfToken) -> SessionOut:
    return SessionOut(player=player_id, csrf_token=csrf_token)


@router.post(
    "/games",
    status_code=201,
    response_model=GameOut,
    responses=error_responses(403, 422),
    summary="Start a new game",
)
def create_game(caller: CallerDep, body: NewGameBody = None) -> Response:
    body = body or NewGameIn.model_validate({})
    state = services.create_game(
        caller.db,
        caller.player_id,
        body.variant,
        body.deal_number,
        body.deal,
        winnable=body.winnable,
        difficulty=body.difficulty,
    )
    return game_json(state, 201, location=True)


@router.get(
    "/games/{id}", response_model=GameOut, responses=error_responses(404, 422), summary="A game"
)
def get_game(game_id: GameId, caller: CallerDep) -> Response:
    return game_json(services.get_game(caller.db, caller.player_id, game_id))


@router.post(
    "/games/{id}/moves",
    response_model=GameOut,
    responses=error_responses(403, 404, 409, 422),
    summary="Move a card (with all on it) to another column, or a reserve or cell card",
)
def post_move(game_id: GameId, body: MoveIn, caller: CallerDep) -> Response:
    action: Action = (
        "move",
        body.from_column,
        body.from_index,
        body.to_column,
        body.from_pile,
        body.to_pile,
    )
    return game_json(services.act(caller.db, caller.player_id, game_id, action, body.version))


STEP: dict[str, Any] = {"response_model": GameOut, "responses": error_responses(403, 404, 409, 422)}
STEP_SUMMARIES = {
    "deal": "Deal the stock onto the first three columns",
    "undo": "Undo the last step",
    "redo": "Redo the step the last undo took back",
}


@router.post("/games/{id}/deal", name="post_deal", summary=STEP_SUMMARIES["deal"], **STEP)
@router.post("/games/{id}/undo", name="post_undo", summary=STEP_SUMMARIES["undo"], **STEP)
@router.post("/games/{id}/redo", name="post_redo", summary=STEP_SUMMARIES["redo"], **STEP)
def post_step(
    request: Request,
    game_id: GameId,
    caller: CallerDep,
    body: OptionalVersion = None,
) -> Response:
    # The deal, undo or redo: the last part of the path names it.
    kind = request.url.path.rsplit("/", 1)[-1]
    version = body.version if body else None
    return game_json(services.act(caller.db, caller.player_id, game_id, (kind,), version))


DELETE: dict[str, Any] = {
    "status_code": 204,
    "response_class": Response,
    "responses": error_responses(403),
}


@router.get(
    "/games/{id}/hints",
    response_model=HintsOut,
    responses=error_responses(404, 422),
    summary="Every legal, useful move, and whether the deal is possible",
)
def get_hints(game_id: GameId, caller: CallerDep) -> HintsOut:
    result = services.hints(caller.db, caller.player_id, game_id)
    return HintsOut(
        moves=[hint_out(m) for m in result.moves],
        can_deal=result.can_deal,
        stuck=result.stuck,
    )


@router.post(
    "/games/{id}/restart",
    status_code=201,
    response_model=GameOut,
    responses=error_responses(403, 404, 422),
    summary="A new game with the same deal",
)
def post_restart(game_id: GameId, caller: CallerDep) -> Response:
    return game_json(services.restart(caller.db, caller.player_id, game_id), 201, location=True)


@router.get("/stats", response_model=StatsOut, summary="Statistics of every variant")
def get_stats(caller: CallerDep) -> StatsOut:
    stats = services.get_stats(caller.db, caller.player_id, recent_limit=0, days=0)
    return StatsOut(variants={name: stats_out(s) for name, s in stats.variants.items()})


@router.delete("/games", summary="Delete every saved game of this player", **DELETE)
def delete_games(caller: CallerDep) -> Response:
    services.delete_games(caller.db, caller.player_id)
    return Response(status_code=204)


@router.delete("/stats", summary="Delete every result of this player", **DELETE)
def delete_stats(caller: CallerDep) -> Response:
    services.delete_results(caller.db, caller.player_id)
    return Response(status_code=204)


@router.delete("/player", summary="Delete all of this player's data and clear the cookie", **DELETE)
def delete_player(request: Request, caller: CallerDep) -> Response:
    services.delete_player(caller.db, caller.player_id)
    response = Response(status_code=204)
    clear_identity(request, response)
    return response
