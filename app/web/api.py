"""The JSON API of docs/api.md, exactly: parse -> service -> render.

Errors are raised by the services (``ServiceError``) and turned into ``{"detail": ...}`` by
the handlers in ``app.web.errors``; identity and CSRF are enforced by ``IdentityMiddleware``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from app import services
from app.db.session import SessionDep
from app.engine import (
    ALL_VARIANTS,
    DEFAULT_VARIANT,
    MAX_DEAL_NUMBER,
    MIN_DEAL_NUMBER,
    Move,
    variant_metadata,
)
from app.services import GameState, VariantStatistics
from app.web.deps import CsrfToken, PlayerId, clear_identity

# -- bodies ------------------------------------------------------------------------------------


class StrictBody(BaseModel):
    """A request body of exact JSON types (no coercion)."""

    model_config = ConfigDict(strict=True)


class NewGameIn(StrictBody):
    variant: StrictStr = Field(
        DEFAULT_VARIANT,
        description="The variant to play.",
        json_schema_extra={"enum": list(ALL_VARIANTS)},
    )
    deal_number: StrictInt | None = Field(
        None,
        description=f"A deal number, {MIN_DEAL_NUMBER} to {MAX_DEAL_NUMBER}. "
        "Without it (and without a deal string) the server picks a random deal number.",
        json_schema_extra={"minimum": MIN_DEAL_NUMBER, "maximum": MAX_DEAL_NUMBER},
    )
    deal: StrictStr | None = Field(
        None,
        description="A deal string: the variant's card codes separated by single spaces (52 for "
        "one deck, 104 for Double Scorpion, 156 for Triple Scorpion): the columns in order, "
        "each from its deepest card, then the reserve cards, then the stock in dealing order.",
    )
    winnable: StrictBool = Field(
        False,
        description="A deal from the variant's catalog of deals the solver proved winnable "
        "(no deal_number or deal with it). A variant without such a catalog is a 422.",
    )
    difficulty: Literal["easy", "medium", "hard"] | None = Field(
        None,
        description='With "winnable": true, a deal of that grade (docs/difficulty.md).',
    )


NewGameBody = Annotated[NewGameIn | None, Body()]


PILE_DOC = (
    "column, reserve or cell; each kind of pile is numbered from 0. A pile the variant lacks is "
    "a 422."
)


class MoveIn(StrictBody):
    from_column: StrictInt = Field(
        description="The pile to pick up from (a column, 0-6 in the base game; or the reserve or "
        "cell named by from_pile), numbered from 0."
    )
    from_index: StrictInt = Field(
        description="Index of the picked-up card in its column (0 is the deepest card); 0 for a "
        "reserve or a cell."
    )
    to_column: StrictInt = Field(
        description="The pile the card (or group) goes to (a column, or the cell named by "
        "to_pile), numbered from 0."
    )
    from_pile: StrictStr = Field(
        "column",
        description=f"The kind of pile picked up from: {PILE_DOC}",
        json_schema_extra={"enum": ["column", "reserve", "cell"]},
    )
    to_pile: StrictStr = Field(
        "column",
        description="The kind of pile the card goes to: column or cell (nothing is ever put "
        "onto a reserve: a 422). Only the exposed card of a column, alone, goes into an empty "
        "cell.",
        json_schema_extra={"enum": ["column", "cell"]},
    )
    version: StrictInt | None = Field(
        None, description="The game version this move was chosen against (409 if stale)."
    )


class VersionIn(StrictBody):
    version: StrictInt | None = Field(
        None, description="The game version this action was chosen against (409 if stale)."
    )


# -- responses ---------------------------------------------------------------------------------


class ErrorOut(BaseModel):
    detail: str = Field(description="A sentence a player understands.")


class SessionOut(BaseModel):
    player: str = Field(description="The player's opaque id.")
    csrf_token: str = Field(description="Send it as X-CSRF-Token on every unsafe request.")


class GameOut(BaseModel):
    id: str
    variant: str
    deal_number: int | None = Field(description="None for a game created from a deal string.")
    status: Literal["playing", "won"]
    columns: list[list[str | None]] = Field(
        description="The variant's columns (7 in the base game, 10 or 13 in larger variants), "
        "deepest card first; a face-down card is null."
    )
    stock: int = Field(description="Cards left in the stock.")
    completed: list[str] = Field(description="Suits of removed runs, in removal order.")
    moves: int = Field(description="Steps taken (moves and the deal), net of undo.")
    version: int = Field(description="Increases by one on every accepted change.")
    can_undo: bool
    can_redo: bool
    reserves: list[str | None] = Field(
        description="The face-up reserve cards, in order (an empty slot is null); an empty list "
        "where the variant has none."
    )
    cells: list[str | None] = Field(
        description="The free cells, in order (an empty cell is null); an empty list where the "
        "variant has none."
    )
    runs_needed: int = Field(description="Completed runs that win: 4, 8 or 12.")
    assisted: bool = Field(
        description="The solver was asked about this game (POST /api/games/{id}/analysis): "
        "it is assisted from then on. The plain hint, undo and redo are not assistance."
    )
    moves_made: int = Field(
        description="Every move and deal performed, undone ones included (undo and redo are "
        "not counted): what rankings and fewest moves compare."
    )
    difficulty: str | None = Field(
        None,
        description="easy, medium or hard: the grade of a winnable deal asked for by "
        "difficulty; null for every other game.",
        json_schema_extra={"enum": ["easy", "medium", "hard", None]},
    )


class HintMoveOut(BaseModel):
    from_column: int
    from_index: int
    to_column: int


class PileHintOut(BaseModel):
    """A hinted move naming a reserve or a cell (a column-to-column hint has no piles)."""

    from_column: int
    from_index: int
    to_column: int
    from_pile: Literal["column", "reserve", "cell"]
    to_pile: Literal["column", "cell"]


class HintsOut(BaseModel):
    moves: list[PileHintOut | HintMoveOut] = Field(
        description="Every legal, useful move. A move carries from_pile and to_pile only when "
        "one of them is not a column; none once the game is won."
    )
    can_deal: bool
    stuck: bool = Field(description="No useful move is left and the stock is empty.")


class VariantOut(BaseModel):
    id: str
    name: str
    decks: int = Field(description="1, 2 or 3 decks of 52 cards.")
    columns: int = Field(description="Tableau columns.")
    stock: int = Field(description="Stock cards (0: no stock).")
    reserves: int = Field(description="Face-up reserve cards beside the tableau.")
    cells: int = Field(description="Free cells (one card each).")
    runs_needed: int = Field(description="Completed runs that win.")
    description: str = Field(description="One line for a variant picker.")


class VariantsOut(BaseModel):
    variants: list[VariantOut]


class VariantStatsOut(BaseModel):
    started: int
    won: int
    win_rate: float | None = Field(description="won / started; null before the first start.")
    abandoned: int = Field(description="Unfinished games left for a new game of the variant.")
    current_streak: int
    best_streak: int
    best_time_seconds: int | None = Field(
        description="Fastest unassisted win, start to win (assisted wins do not count here)."
    )
    fewest_moves: int | None = Field(
        description="Fewest moves made (every move and deal, undone ones included) of an "
        "unassisted win (assisted wins do not count here)."
    )
    last_played: datetime | None
    assisted_won: int = Field(
        description="Wins (counted in won) of assisted games: the solver was asked (POST "
        "/api/games/{id}/analysis). won - assisted_won is the unassisted wins."
    )


class StatsOut(BaseModel):
    variants: dict[str, VariantStatsOut]


def game_out(state: GameState) -> GameOut:
    view = state.view
    return GameOut(
        id=state.id,
        variant=state.variant,
        deal_number=state.deal_number,
        status="won" if state.status == "won" else "playing",
        columns=view.columns,
        stock=view.stock,
        completed=view.completed,
        moves=view.moves,
        version=state.version,
        can_undo=view.can_undo,
        can_redo=view.can_redo,
        assisted=state.assisted,
        moves_made=state.moves_made,
        difficulty=state.difficulty,
        reserves=view.reserves,
        cells=view.cells,
        runs_needed=view.runs_needed,
    )


def hint_out(m: Move) -> PileHintOut | HintMoveOut:
    if m.from_pile == "column" and m.to_pile == "column":
        return HintMoveOut(
            from_column=m.from_column, from_index=m.from_index, to_column=m.to_column
        )
    return PileHintOut(
        from_column=m.from_column,
        from_index=m.from_index,
        to_column=m.to_column,
        from_pile=m.from_pile,  # type: ignore[arg-type]
        to_pile=m.to_pile,  # type: ignore[arg-type]
    )


def stats_out(s: VariantStatistics) -> VariantStatsOut:
    return VariantStatsOut.model_validate(s, from_attributes=True)


# -- routes ------------------------------------------------------------------------------------


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    text = {
        403: "Missing or invalid CSRF token, or a cross-site request: nothing changed.",
        404: "No such game (or another player's game).",
        409: "The version is not the game's current version: nothing changed.",
        422: "A malformed body, or an action the rules refuse: nothing changed.",
    }
    return {c: {"model": ErrorOut, "description": text[c]} for c in codes}


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
def create_game(
    db: SessionDep, player_id: PlayerId, response: Response, body: NewGameBody = None
) -> GameOut:
    body = body or NewGameIn.model_validate({})
    state = services.create_game(
        db,
        player_id,
        body.variant,
        body.deal_number,
        body.deal,
        winnable=body.winnable,
        difficulty=body.difficulty,
    )
    response.headers["Location"] = f"/api/games/{state.id}"
    return game_out(state)


@router.get(
    "/games/{id}", response_model=GameOut, responses=error_responses(404, 422), summary="A game"
)
def get_game(game_id: GameId, db: SessionDep, player_id: PlayerId) -> GameOut:
    return game_out(services.get_game(db, player_id, game_id))


@router.post(
    "/games/{id}/moves",
    response_model=GameOut,
    responses=error_responses(403, 404, 409, 422),
    summary="Move a card (with all on it) to another column, or a reserve or cell card",
)
def post_move(game_id: GameId, body: MoveIn, db: SessionDep, player_id: PlayerId) -> GameOut:
    action = (
        "move",
        body.from_column,
        body.from_index,
        body.to_column,
        body.from_pile,
        body.to_pile,
    )
    return game_out(services.act(db, player_id, game_id, action, body.version))


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
    db: SessionDep,
    player_id: PlayerId,
    body: OptionalVersion = None,
) -> GameOut:
    # The deal, undo or redo: the last part of the path names it.
    kind = request.url.path.rsplit("/", 1)[-1]
    version = body.version if body else None
    return game_out(services.act(db, player_id, game_id, (kind,), version))


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
def get_hints(game_id: GameId, db: SessionDep, player_id: PlayerId) -> HintsOut:
    result = services.hints(db, player_id, game_id)
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
def post_restart(
    game_id: GameId, db: SessionDep, player_id: PlayerId, response: Response
) -> GameOut:
    state = services.restart(db, player_id, game_id)
    response.headers["Location"] = f"/api/games/{state.id}"
    return game_out(state)


@router.get("/stats", response_model=StatsOut, summary="Statistics of every variant")
def get_stats(db: SessionDep, player_id: PlayerId) -> StatsOut:
    stats = services.get_stats(db, player_id, recent_limit=0, days=0)
    return StatsOut(variants={name: stats_out(s) for name, s in stats.variants.items()})


@router.delete("/games", summary="Delete every saved game of this player", **DELETE)
def delete_games(db: SessionDep, player_id: PlayerId) -> Response:
    services.delete_games(db, player_id)
    return Response(status_code=204)


@router.delete("/stats", summary="Delete every result of this player", **DELETE)
def delete_stats(db: SessionDep, player_id: PlayerId) -> Response:
    services.delete_results(db, player_id)
    return Response(status_code=204)


@router.delete("/player", summary="Delete all of this player's data and clear the cookie", **DELETE)
def delete_player(request: Request, db: SessionDep, player_id: PlayerId) -> Response:
    services.delete_player(db, player_id)
    response = Response(status_code=204)
    clear_identity(request, response)
    return response
