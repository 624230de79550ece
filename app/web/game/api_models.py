"""The JSON API's bodies and responses (docs/api.md) and the functions that fill them; the
routes are in ``app.web.game.api``."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import Body, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from app.engine import (
    ALL_VARIANTS,
    DEFAULT_VARIANT,
    MAX_DEAL_NUMBER,
    MIN_DEAL_NUMBER,
    Move,
)
from app.services import GameState, VariantStatistics, clock_seconds

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


# What each error of a game route means (``error_responses``' default).
GAME_ERRORS = {
    403: "Missing or invalid CSRF token, or a cross-site request: nothing changed.",
    404: "No such game (or another player's game).",
    409: "The version is not the game's current version: nothing changed.",
    422: "A malformed body, or an action the rules refuse: nothing changed.",
}


def error_responses(
    *codes: int, texts: Mapping[int, str] = GAME_ERRORS, own: Mapping[int, str] | None = None
) -> dict[int | str, dict[str, Any]]:
    """A route's documented errors (OpenAPI ``responses``): each code an ``ErrorOut``, described
    by ``texts``, then each code of ``own`` described in the route's own words."""
    described = {**{c: texts[c] for c in codes}, **(own or {})}
    return {c: {"model": ErrorOut, "description": text} for c, text in described.items()}


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
    seconds: int = Field(
        0,
        description="The elapsed play time in whole seconds: the clock starts at the game's "
        "first move (or deal) or first solver question and stops at its win; 0 for a dealt "
        "layout nobody touched (not a game yet).",
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


def game_json(state: GameState, status_code: int = 200, location: bool = False) -> Response:
    """``game_out(state)`` as the JSON response itself: the route's ``response_model``
    documents it, and FastAPI does not validate the model it was handed once more (about
    0.1 ms a request, issue 12). ``location``: a new game's ``Location`` header."""
    response = Response(
        game_out(state).model_dump_json(), status_code=status_code, media_type="application/json"
    )
    if location:
        response.headers["Location"] = f"/api/games/{state.id}"
    return response


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
        seconds=clock_seconds(state.started_at, state.finished_at, datetime.now(UTC)),
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
