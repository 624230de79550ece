"""The JSON API of playing together: your display name, the daily deal, challenges and their
live progress (server-sent events). An extension of docs/api.md in its style: same identity,
CSRF, errors and rate limits as ``app.web.game.api``.

Response models are filled from the services' dataclasses with
``Model.model_validate(obj, from_attributes=True)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict
from datetime import date
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from sqlalchemy.orm import Session

from app import services
from app.db.session import SessionDep
from app.engine import ALL_VARIANTS
from app.services import challenges as challenge_service
from app.services import daily as daily_service
from app.services import profiles as profile_service
from app.services.leaderboard import MAX_PAGE, PAGE_SIZE, Board, leaderboard
from app.services.race_panel import challenge_race_id, daily_race_id
from app.web.game.api_models import GameOut, StrictBody, error_responses, game_out
from app.web.site.deps import PlayerId
from app.web.site.rendering import base_url
from app.web.together.race_streams import EventStreamResponse, json_stream

router = APIRouter(prefix="/api", tags=["play together"])


class ClosedBody(StrictBody):
    """A strict body that refuses unknown fields."""

    model_config = ConfigDict(strict=True, extra="forbid")


class ProfileIn(ClosedBody):
    display_name: StrictStr | None = Field(
        default=None,
        description="1 to 24 characters: letters A-Z, digits, spaces and - _ . ' "
        "(null or blank: the default name).",
    )
    on_leaderboards: StrictBool | None = Field(
        default=None, description="False: never appear on leaderboards or in live races."
    )


class ProfileOut(BaseModel):
    display_name: str | None = Field(description="The chosen name; null: the default name.")
    default_name: str = Field(description='The name shown without a chosen one, "Player 4F2A".')
    shown_name: str
    on_leaderboards: bool


class AgainIn(ClosedBody):
    again: StrictBool = Field(
        default=False, description="True: a new game even if one is running (a replay, unranked)."
    )


class BoardEntryOut(BaseModel):
    rank: int | None
    name: str
    you: bool
    moves: int
    seconds: int | None
    suits: int
    status: str
    assisted: bool
    reason: str | None = Field(
        default=None,
        description='An unverified win: "too-fast" (under RANKED_MIN_SECONDS_PER_MOVE a move) '
        'or "after-the-day" (a daily deal won after its UTC day ended). Null otherwise.',
    )


class LeaderboardOut(BaseModel):
    wins: list[BoardEntryOut] = Field(
        description="Unassisted wins, by fewest moves made then shortest time (ties share a rank)."
    )
    assisted: list[BoardEntryOut] = Field(
        description="Assisted wins (the solver was asked), unranked."
    )
    unverified: list[BoardEntryOut] = Field(
        description="Wins too fast to be human, or finished after the day: listed, not ranked."
    )
    others: list[BoardEntryOut] = Field(description="Ranked attempts not won (yet).")
    rejected: int = Field(description="Claimed wins whose move log does not replay to a win.")
    page: int = Field(description="This page of every list (?page=, from 1).")
    pages: int = Field(description="How many pages the longest list has.")
    total: int = Field(description="Entries in all the lists together.")
    page_size: int = Field(description="Rows per page of each list.")


class DailyOut(BaseModel):
    variant: str
    day: date
    over: bool = Field(description="The UTC day has ended: the deal string is published.")
    started: bool = Field(description="Someone has played this day's deal (false: not yet).")
    deal_number: int | None = Field(
        default=None, description="Always null: a daily deal is a random deal, never a number."
    )
    deal: str | None = Field(description="The deal string, published once the day is over.")
    winnable: bool | None = Field(
        description="The server's solver proved the deal winnable; null: not started yet."
    )
    game_id: str | None = Field(description="Your daily game: the running one, else the latest.")
    status: str | None = Field(description="Your daily game's status; null: not played yet.")
    leaderboard: LeaderboardOut


class ChallengeOut(BaseModel):
    token: str
    url: str
    variant: str
    deal_number: int | None = Field(description="Null for a deal string or a daily deal.")


class SideOut(BaseModel):
    name: str
    you: bool
    challenger: bool
    ranked: bool = Field(description="The player's first game of this deal (the one ranked).")
    moves: int
    seconds: int
    suits: int
    status: str
    assisted: bool
    game_id: str | None = Field(description="Only for your own games.")


class ComparisonOut(ChallengeOut):
    sides: list[SideOut] = Field(description="Everyone's games, paged like the leaderboard.")
    leaderboard: LeaderboardOut


def _challenge_fields(request: Request, c: challenge_service.Challenge) -> dict[str, Any]:
    """A challenge's fields for ``ChallengeOut``, with its link."""
    return {**asdict(c), "url": f"{base_url(request)}/challenge/{c.token}"}


def board_out(board: Board) -> LeaderboardOut:
    return LeaderboardOut.model_validate(board, from_attributes=True)


def profile_out(p: profile_service.Profile) -> ProfileOut:
    return ProfileOut.model_validate(p, from_attributes=True)


def _played(response: Response, state: services.GameState, new: bool) -> GameOut:
    """201 and the new game, or 200 and the running one; ``Location`` names it."""
    response.status_code = 201 if new else 200
    response.headers["Location"] = f"/api/games/{state.id}"
    return game_out(state)


_Route = TypeVar("_Route", bound=Callable[..., Any])
AgainBody = Annotated[AgainIn | None, Body()]
Variant = Annotated[
    str, Path(description="The variant.", json_schema_extra={"enum": list(ALL_VARIANTS)})
]
Token = Annotated[str, Path(description="The challenge's link token.", max_length=64)]
_ERR = error_responses(
    403,
    404,
    422,
    texts={
        403: "Missing or invalid CSRF token: nothing changed.",
        404: "No such variant, day, game or challenge.",
        422: "Malformed input: nothing changed.",
    },
)
_ERROR_JSON = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
_STREAM_ERR: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such challenge.", "content": _ERROR_JSON},
    422: {"description": "No such variant, or a malformed token.", "content": _ERROR_JSON},
}


def _play_route(path: str, summary: str, *, running: str) -> Callable[[_Route], _Route]:
    """A route that plays a deal: 201 and a new game, or 200 and your ``running`` one."""
    return router.post(
        path,
        status_code=201,
        response_model=GameOut,
        responses={200: {"description": running}, **_ERR},
        summary=f"{summary} (201 a new game; 200 your running one)",
    )


def _events_route(path: str, deal: str) -> Callable[[_Route], _Route]:
    """A route that streams the live progress of everyone on ``deal`` (server-sent events)."""
    return router.get(
        path,
        response_class=EventStreamResponse,
        responses=_STREAM_ERR,
        summary=f"Live progress of everyone on {deal} (server-sent events)",
    )


@router.get("/profile", response_model=ProfileOut, summary="Your name as others see it")
def api_get_profile(db: SessionDep, player: PlayerId) -> ProfileOut:
    return profile_out(profile_service.get_profile(db, player))


@router.put("/profile", response_model=ProfileOut, responses=_ERR, summary="Set your display name")
def api_put_profile(body: ProfileIn, db: SessionDep, player: PlayerId) -> ProfileOut:
    given = body.model_fields_set
    profile = profile_service.update_profile(
        db,
        player,
        display_name=body.display_name if "display_name" in given else ...,
        on_leaderboards=body.on_leaderboards,
    )
    return profile_out(profile)


PageQuery = Annotated[
    int, Query(ge=1, le=MAX_PAGE, description=f"A page of the lists ({PAGE_SIZE} rows a page).")
]


def _daily_out(db: Session, player: str, variant: str, day: date | None, page: int = 1) -> DailyOut:
    services.check_variant(variant)
    info = daily_service.daily_info(db, player, variant, day)
    board = board_out(leaderboard(db, info.race_id, player, over=info.over, page=page))
    mine = {"game_id": info.my_game_id, "status": info.my_status, "leaderboard": board}
    return DailyOut.model_validate({**asdict(info), **mine})


@router.get(
    "/daily/{variant}", response_model=DailyOut, responses=_ERR, summary="Today's daily deal"
)
def api_daily(variant: Variant, db: SessionDep, player: PlayerId, page: PageQuery = 1) -> DailyOut:
    return _daily_out(db, player, variant, None, page)


@_events_route("/daily/{variant}/events", "today's daily deal")
async def api_daily_events(variant: Variant, player: PlayerId) -> Response:
    services.check_variant(variant)
    race_id = await asyncio.to_thread(daily_race_id, variant)
    return json_stream(race_id, player)


@router.get(
    "/daily/{variant}/{day}",
    response_model=DailyOut,
    responses=_ERR,
    summary="A day's daily deal and its leaderboard (the deal string once the day is over)",
)
def api_daily_day(
    variant: Variant,
    day: Annotated[str, Path(description="YYYY-MM-DD (UTC)", max_length=10)],
    db: SessionDep,
    player: PlayerId,
    page: PageQuery = 1,
) -> DailyOut:
    return _daily_out(db, player, variant, daily_service.check_day(day), page)


@_play_route("/daily/{variant}", "Play today's daily deal", running="Your running daily game")
def api_daily_play(
    variant: Variant, db: SessionDep, player: PlayerId, response: Response, body: AgainBody = None
) -> GameOut:
    played = daily_service.play_daily(db, player, variant, again=bool(body and body.again))
    return _played(response, *played)


@router.post(
    "/games/{id}/challenge",
    status_code=201,
    response_model=ChallengeOut,
    responses=_ERR,
    summary="A challenge link for the deal of one of your games",
)
def api_challenge_create(
    request: Request,
    game_id: Annotated[str, Path(alias="id", description="The game's opaque id.")],
    db: SessionDep,
    player: PlayerId,
) -> ChallengeOut:
    c = challenge_service.create_challenge(db, player, game_id)
    return ChallengeOut.model_validate(_challenge_fields(request, c))


@router.get(
    "/challenges/{token}",
    response_model=ComparisonOut,
    responses=_ERR,
    summary="A challenge: everyone's game side by side, and its leaderboard",
)
def api_challenge(
    request: Request, token: Token, db: SessionDep, player: PlayerId, page: PageQuery = 1
) -> Any:
    c = challenge_service.get_challenge(db, token, player)
    board = leaderboard(db, c.race_id, player, page=page)
    sides = challenge_service.comparison(db, token, player)[
        (page - 1) * PAGE_SIZE : page * PAGE_SIZE
    ]
    fields = {**_challenge_fields(request, c), "sides": sides, "leaderboard": board_out(board)}
    return ComparisonOut.model_validate(fields, from_attributes=True)


@_play_route(
    "/challenges/{token}/games",
    "Play a challenge's deal",
    running="Your running game on this challenge",
)
def api_challenge_play(
    token: Token, db: SessionDep, player: PlayerId, response: Response, body: AgainBody = None
) -> GameOut:
    played = challenge_service.play_challenge(db, player, token, again=bool(body and body.again))
    return _played(response, *played)


@_events_route("/challenges/{token}/events", "a challenge")
async def api_challenge_events(token: Token, player: PlayerId) -> Response:
    race_id = await asyncio.to_thread(challenge_race_id, token)
    return json_stream(race_id, player)
