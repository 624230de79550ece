"""Playing together: the daily deal, challenges, leaderboards and live races (pages and API).

Routes parse, call a service, render. Live progress goes out as server-sent events: HTML
fragments for the pages (htmx 4's SSE extension, ``hx-sse:connect``) and JSON for the API.
An event stream holds no database connection while it waits: it reads the standings once
(a short session in a worker thread) and then only listens to the worker's ``RaceHub``.

Nothing here sends a card: race reports carry names, moves, suits completed and a status.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, Path, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import services
from app.config import get_settings
from app.db.models import Race, RaceEntry
from app.db.session import SessionDep, get_sessionmaker
from app.engine import VARIANTS, get_variant
from app.services import NotFound, ServiceError
from app.services import challenges as challenge_service
from app.services import daily as daily_service
from app.services import profiles as profile_service
from app.services.leaderboard import Board, BoardEntry, leaderboard
from app.services.race import Progress, standings
from app.services.race_hub import RESYNC, hub
from app.web.api import ErrorOut, GameOut, game_out
from app.web.deps import CsrfToken, PlayerId
from app.web.pages import (
    CARDS_COOKIE,
    _base_context,
    _error_page,
    _not_found,
    render,
    see_other,
    static_url,
    templates,
)
from app.web.view import format_seconds

KEEPALIVE_SECONDS = 15.0
STREAM_SECONDS = 600.0  # a stream ends after this long; the browser reconnects by itself
HTML_MIN_INTERVAL = 0.15  # a page's list is re-sent at most this often
SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response (so the OpenAPI schema says so)."""

    media_type = "text/event-stream"


router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["play together"])


# -- races as the pages show them ------------------------------------------------------------


STATUS_TEXT = {
    "playing": "playing",
    "won": "finished: won",
    "stuck": "stuck",
    "gave-up": "gave up",
    "rejected": "result rejected",
    "unfinished": "did not finish",
}


@dataclass(frozen=True, slots=True)
class RacePanel:
    kind: str  # daily | challenge
    title: str
    page_url: str
    events_url: str
    rows: list[Progress]  # the rows shown (``panel_rows``)
    more: int  # players on the deal not shown
    mine: frozenset[int]


def _race_title(race: Race) -> str:
    title = get_variant(race.variant).title if race.variant in VARIANTS else race.variant
    if race.kind == "daily":
        return f"{title} daily deal of {race.day.isoformat() if race.day else ''}"
    return f"{title} challenge"


def _race_urls(race: Race) -> tuple[str, str]:
    if race.kind == "daily":
        return f"/daily/{race.variant}", f"/daily/{race.variant}/events"
    return f"/challenge/{race.token}", f"/challenge/{race.token}/events"


def _my_entries(db: Session, race_id: str, player: str) -> frozenset[int]:
    try:
        return frozenset(
            db.execute(
                select(RaceEntry.id).where(
                    RaceEntry.race_id == race_id, RaceEntry.player_id == player
                )
            ).scalars()
        )
    finally:
        db.rollback()


def race_panel_for_game(db: Session, player: str, game_id: str) -> RacePanel | None:
    """The live race panel of the play page, if the player's game plays a shared deal
    (the newest race it is in: a challenge made from a daily game shows the challenge)."""
    try:
        race = db.execute(
            select(Race)
            .join(RaceEntry, RaceEntry.race_id == Race.id)
            .where(RaceEntry.game_id == game_id, RaceEntry.player_id == player)
            .order_by(Race.created_at.desc())
            .limit(1)
        ).scalar_one_or_none()
    finally:
        db.rollback()
    if race is None or (race.kind == "daily" and race.day != daily_service.today()):
        return None
    return _panel(db, race, player)


def _panel(db: Session, race: Race, player: str) -> RacePanel:
    page_url, events_url = _race_urls(race)
    mine = _my_entries(db, race.id, player)
    rows, more = panel_rows(standings(db, race.id), mine)
    return RacePanel(
        kind=race.kind,
        title=_race_title(race),
        page_url=page_url,
        events_url=events_url,
        rows=rows,
        more=more,
        mine=mine,
    )


PANEL_ROWS = 12  # the live panel shows the leaders and the viewer, not a whole daily crowd


def panel_rows(rows: list[Progress], mine: frozenset[int]) -> tuple[list[Progress], int]:
    """The rows the live panel shows (winners by fewest moves, then by suits completed,
    the viewer's always) and how many others are not shown."""
    ordered = sorted(
        rows,
        key=lambda p: (p.status != "won", p.moves if p.status == "won" else 0, -p.suits, p.entry),
    )
    shown = ordered[:PANEL_ROWS]
    shown += [p for p in ordered[PANEL_ROWS:] if p.entry in mine]
    return shown, len(rows) - len(shown)


def _rows_html(rows: list[Progress], mine: frozenset[int]) -> str:
    shown, more = panel_rows(rows, mine)
    template = templates.env.get_template("partials/race_rows.html")
    return template.render(rows=shown, more=more, mine=mine, status_text=STATUS_TEXT)


templates.env.globals.update(race_status_text=STATUS_TEXT, together_css="css/together.css")


# -- server-sent events --------------------------------------------------------------------------


def _sse(data: str, event: str | None = None) -> str:
    lines = [f"event: {event}"] if event else []
    lines += [f"data: {line}" for line in data.splitlines() or [""]]
    return "\n".join(lines) + "\n\n"


def _snapshot(race_id: str, player: str) -> tuple[list[Progress], frozenset[int]]:
    with get_sessionmaker()() as db:
        return standings(db, race_id), _my_entries(db, race_id, player)


async def race_events(
    race_id: str,
    player: str,
    render_all: Callable[[dict[int, Progress], frozenset[int]], str],
    render_one: Callable[[Progress, frozenset[int]], str] | None = None,
    min_interval: float = 0.0,
) -> AsyncIterator[str]:
    """The event stream of a race: everyone's standings first, then each change.

    ``render_one`` (the API) sends single reports; without it (the pages) every change
    sends the whole, small list again, at most once per ``min_interval`` seconds (reports
    arriving meanwhile are sent together).
    """
    sub = await hub.subscribe(race_id)
    try:
        rows, mine = await asyncio.to_thread(_snapshot, race_id, player)
        state = {p.entry: p for p in rows}
        yield render_all(state, mine)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STREAM_SECONDS
        last_sent = loop.time()
        while loop.time() < deadline:
            try:
                item = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            wait = last_sent + min_interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            batch = [item]
            while not sub.queue.empty():
                batch.append(sub.queue.get_nowait())
            if any(p is None for p in batch):
                return  # the server is shutting down
            if RESYNC in batch:  # reports may have been missed: read the standings again
                rows, mine = await asyncio.to_thread(_snapshot, race_id, player)
                state = {p.entry: p for p in rows}
                yield render_all(state, mine)
                continue
            changed: list[Progress] = []
            for p in batch:
                assert isinstance(p, Progress)
                old = state.get(p.entry)
                if old is not None and old.version > p.version:
                    continue  # an older report than the one shown
                state[p.entry] = p
                changed.append(p)
            if not changed:
                continue
            last_sent = loop.time()
            if render_one is None:
                yield render_all(state, mine)
            else:
                for p in changed:
                    yield render_one(p, mine)
    finally:
        hub.unsubscribe(sub)


def _html_stream(race_id: str, player: str) -> StreamingResponse:
    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        return _sse(_rows_html(list(state.values()), mine))

    return StreamingResponse(
        race_events(race_id, player, render_all, min_interval=HTML_MIN_INTERVAL),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def _progress_json(p: Progress, mine: frozenset[int]) -> dict[str, Any]:
    return {
        "name": p.name,
        "you": p.entry in mine,
        "moves": p.moves,
        "suits": p.suits,
        "status": p.status,
        "ranked": p.ranked,
        "entry": p.entry,
    }


def _json_stream(race_id: str, player: str) -> StreamingResponse:
    def render_all(state: dict[int, Progress], mine: frozenset[int]) -> str:
        body = json.dumps([_progress_json(p, mine) for p in state.values()])
        return _sse(body, "standings")

    def render_one(p: Progress, mine: frozenset[int]) -> str:
        return _sse(json.dumps(_progress_json(p, mine)), "progress")

    return StreamingResponse(
        race_events(race_id, player, render_all, render_one),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def _daily_race_id(variant: str) -> str:
    with get_sessionmaker()() as db:
        return daily_service.daily_race(db, variant, daily_service.today()).id


def _challenge_race_id(token: str) -> str:
    with get_sessionmaker()() as db:
        return challenge_service.get_challenge(db, token).race_id


# -- pages: the daily deal ---------------------------------------------------------------------


def _check_variant_page(variant: str) -> str | None:
    return variant if variant in VARIANTS else None


def _board_ctx(board: Board) -> dict[str, Any]:
    return {"board": board, "format_seconds": format_seconds}


@router.get("/daily", response_class=HTMLResponse)
def daily_home() -> Response:
    return see_other("/daily/scorpion")


@router.get("/daily/{variant}/events")
async def daily_events(variant: str, player: PlayerId) -> Response:
    if variant not in VARIANTS:
        return Response("There is no such variant.", status_code=404, media_type="text/plain")
    race_id = await asyncio.to_thread(_daily_race_id, variant)
    return _html_stream(race_id, player)


def _daily_page(
    request: Request,
    db: Session,
    player: str,
    csrf_token: str,
    variant: str,
    day: date | None,
) -> Response:
    try:
        info = daily_service.daily_info(db, player, variant, day)
    except ServiceError as exc:
        return _error_page(request, csrf_token, 404, "No daily deal", exc.message)
    board = leaderboard(db, info.race_id, player, over=info.over)
    panel = None
    if not info.over:
        race = db.get(Race, info.race_id)
        db.rollback()
        assert race is not None
        panel = _panel(db, race, player)
    ctx = _base_context(request, csrf_token, "daily")
    ctx.update(
        _board_ctx(board),
        info=info,
        variant_title=get_variant(variant).title,
        panel=panel,
        today=daily_service.today(),
        static_css=static_url("css/together.css"),
    )
    return render(request, "daily.html", ctx)


@router.get("/daily/{variant}", response_class=HTMLResponse)
def daily_page(
    request: Request, variant: str, db: SessionDep, player: PlayerId, csrf_token: CsrfToken
) -> Response:
    if _check_variant_page(variant) is None:
        return _error_page(
            request, csrf_token, 404, "No such variant", "There is no variant of that name."
        )
    return _daily_page(request, db, player, csrf_token, variant, None)


@router.get("/daily/{variant}/{day}", response_class=HTMLResponse)
def daily_day_page(
    request: Request,
    variant: str,
    day: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
) -> Response:
    if _check_variant_page(variant) is None:
        return _error_page(
            request, csrf_token, 404, "No such variant", "There is no variant of that name."
        )
    try:
        when = daily_service.check_day(day[:12])
    except ServiceError as exc:
        return _error_page(request, csrf_token, 404, "No daily deal", exc.message)
    return _daily_page(request, db, player, csrf_token, variant, when)


@router.post("/daily/{variant}", response_class=HTMLResponse)
def daily_play(
    request: Request,
    variant: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    again: Annotated[str | None, Form()] = None,
) -> Response:
    try:
        state, _ = daily_service.play_daily(db, player, variant, again=again == "1")
    except ServiceError as exc:
        return _error_page(request, csrf_token, 422, "Cannot start the daily deal", exc.message)
    return see_other(f"/games/{state.id}")


# -- pages: challenges -------------------------------------------------------------------------


@router.post("/games/{game_id}/challenge", response_class=HTMLResponse)
def challenge_create(
    request: Request, game_id: str, db: SessionDep, player: PlayerId, csrf_token: CsrfToken
) -> Response:
    try:
        challenge = challenge_service.create_challenge(db, player, game_id)
    except NotFound:
        return _not_found(request, csrf_token)
    return see_other(f"/challenge/{challenge.token}")


def _no_challenge(request: Request, csrf_token: str) -> Response:
    return _not_found(
        request,
        csrf_token,
        "There is no such challenge. Check that the whole link was copied.",
    )


@router.get("/challenge/{token}/events")
async def challenge_events(token: str, player: PlayerId) -> Response:
    try:
        race_id = await asyncio.to_thread(_challenge_race_id, token)
    except NotFound:
        return Response("There is no such challenge.", status_code=404, media_type="text/plain")
    return _html_stream(race_id, player)


@router.get("/challenge/{token}", response_class=HTMLResponse)
def challenge_page(
    request: Request, token: str, db: SessionDep, player: PlayerId, csrf_token: CsrfToken
) -> Response:
    try:
        challenge = challenge_service.get_challenge(db, token, player)
        board = leaderboard(db, challenge.race_id, player)  # (checks wins: before the sides)
        sides = challenge_service.comparison(db, token, player)
    except NotFound:
        return _no_challenge(request, csrf_token)
    race = db.get(Race, challenge.race_id)
    db.rollback()
    assert race is not None
    ctx = _base_context(request, csrf_token, "")
    ctx.update(
        challenge=challenge,
        sides=sides,
        my_game=next((s.game_id for s in sides if s.you and s.status != "gave-up"), None),
        joined=any(s.you for s in sides),
        variant_title=get_variant(challenge.variant).title,
        panel=_panel(db, race, player),
        board=board,
        share_url=f"{str(request.base_url).rstrip('/')}/challenge/{challenge.token}",
        format_seconds=format_seconds,
        static_css=static_url("css/together.css"),
    )
    return render(request, "challenge.html", ctx)


@router.post("/challenge/{token}/play", response_class=HTMLResponse)
def challenge_play(
    request: Request,
    token: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    again: Annotated[str | None, Form()] = None,
) -> Response:
    try:
        state, _ = challenge_service.play_challenge(db, player, token, again=again == "1")
    except NotFound:
        return _no_challenge(request, csrf_token)
    return see_other(f"/games/{state.id}")


# -- pages: the player's name -----------------------------------------------------------------


@router.post("/settings/profile", response_class=HTMLResponse)
def save_profile(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    display_name: Annotated[str | None, Form(max_length=200)] = None,
    on_leaderboards: Annotated[str | None, Form()] = None,
) -> Response:
    try:
        profile_service.update_profile(
            db, player, display_name=display_name or None, on_leaderboards=on_leaderboards == "on"
        )
    except ServiceError as exc:
        ctx = _base_context(request, csrf_token, "privacy")
        ctx.update(
            prefs=services.get_settings(db, player),
            profile=profile_service.get_profile(db, player),
            profile_error=exc.message,
            profile_form=(display_name or "")[:40],
            done=None,
            cookie_name=get_settings().cookie_name,
            cards_cookie=CARDS_COOKIE,
        )
        return render(request, "privacy.html", ctx, status_code=422)
    return see_other("/privacy?done=profile")


# -- the JSON API ------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class ProfileIn(_Strict):
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


class AgainIn(_Strict):
    again: StrictBool = Field(
        default=False,
        description="True: a new game even if one is running (a replay, unranked).",
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


class LeaderboardOut(BaseModel):
    wins: list[BoardEntryOut] = Field(
        description="Unassisted wins, by fewest moves then shortest time (ties share a rank)."
    )
    assisted: list[BoardEntryOut] = Field(description="Wins with hints or undo.")
    others: list[BoardEntryOut] = Field(description="Ranked attempts not won (yet).")
    rejected: int = Field(description="Claimed wins whose move log does not replay to a win.")


class DailyOut(BaseModel):
    variant: str
    day: date
    over: bool = Field(description="The UTC day has ended: the deal number is revealed.")
    deal_number: int | None = Field(description="Null until the day is over.")
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
    ranked: bool
    moves: int
    seconds: int
    suits: int
    status: str
    assisted: bool
    game_id: str | None = Field(description="Only for your own games.")


class ComparisonOut(ChallengeOut):
    sides: list[SideOut]
    leaderboard: LeaderboardOut


def _entry_out(e: BoardEntry) -> BoardEntryOut:
    return BoardEntryOut(
        rank=e.rank,
        name=e.name,
        you=e.you,
        moves=e.moves,
        seconds=e.seconds,
        suits=e.suits,
        status=e.status,
        assisted=e.assisted,
    )


def _board_out(board: Board) -> LeaderboardOut:
    return LeaderboardOut(
        wins=[_entry_out(e) for e in board.wins],
        assisted=[_entry_out(e) for e in board.assisted],
        others=[_entry_out(e) for e in board.others],
        rejected=board.rejected,
    )


def _profile_out(p: profile_service.Profile) -> ProfileOut:
    return ProfileOut(
        display_name=p.display_name,
        default_name=p.default_name,
        shown_name=p.shown_name,
        on_leaderboards=p.on_leaderboards,
    )


Variant = Annotated[
    str, Path(description="The variant.", json_schema_extra={"enum": list(VARIANTS)})
]
Token = Annotated[str, Path(description="The challenge's link token.", max_length=64)]
_ERR: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "Missing or invalid CSRF token: nothing changed."},
    404: {"model": ErrorOut, "description": "No such variant, day, game or challenge."},
    422: {"model": ErrorOut, "description": "Malformed input: nothing changed."},
}
_ERROR_JSON = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
_STREAM_ERR: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such challenge.", "content": _ERROR_JSON},
    422: {"description": "No such variant, or a malformed token.", "content": _ERROR_JSON},
}


@api_router.get("/profile", response_model=ProfileOut, summary="Your name as others see it")
def api_get_profile(db: SessionDep, player: PlayerId) -> ProfileOut:
    return _profile_out(profile_service.get_profile(db, player))


@api_router.put(
    "/profile", response_model=ProfileOut, responses=_ERR, summary="Set your display name"
)
def api_put_profile(body: ProfileIn, db: SessionDep, player: PlayerId) -> ProfileOut:
    given = body.model_fields_set
    profile = profile_service.update_profile(
        db,
        player,
        display_name=body.display_name if "display_name" in given else ...,
        on_leaderboards=body.on_leaderboards,
    )
    return _profile_out(profile)


def _daily_out(db: Session, player: str, variant: str, day: date | None) -> DailyOut:
    services.check_variant(variant)
    info = daily_service.daily_info(db, player, variant, day)
    return DailyOut(
        variant=info.variant,
        day=info.day,
        over=info.over,
        deal_number=info.deal_number,
        game_id=info.my_game_id,
        status=info.my_status,
        leaderboard=_board_out(leaderboard(db, info.race_id, player, over=info.over)),
    )


@api_router.get(
    "/daily/{variant}", response_model=DailyOut, responses=_ERR, summary="Today's daily deal"
)
def api_daily(variant: Variant, db: SessionDep, player: PlayerId) -> DailyOut:
    return _daily_out(db, player, variant, None)


@api_router.get(
    "/daily/{variant}/events",
    response_class=EventStreamResponse,
    responses=_STREAM_ERR,
    summary="Live progress of everyone on today's daily deal (server-sent events)",
)
async def api_daily_events(variant: Variant, player: PlayerId) -> Response:
    services.check_variant(variant)
    race_id = await asyncio.to_thread(_daily_race_id, variant)
    return _json_stream(race_id, player)


@api_router.get(
    "/daily/{variant}/{day}",
    response_model=DailyOut,
    responses=_ERR,
    summary="A day's daily deal and its leaderboard (the number once the day is over)",
)
def api_daily_day(
    variant: Variant,
    day: Annotated[str, Path(description="YYYY-MM-DD (UTC)", max_length=10)],
    db: SessionDep,
    player: PlayerId,
) -> DailyOut:
    return _daily_out(db, player, variant, daily_service.check_day(day))


@api_router.post(
    "/daily/{variant}",
    status_code=201,
    response_model=GameOut,
    responses={200: {"description": "Your running daily game"}, **_ERR},
    summary="Play today's daily deal (201 a new game; 200 your running one)",
)
def api_daily_play(
    variant: Variant,
    db: SessionDep,
    player: PlayerId,
    response: Response,
    body: Annotated[AgainIn | None, Body()] = None,
) -> GameOut:
    state, new = daily_service.play_daily(db, player, variant, again=bool(body and body.again))
    response.status_code = 201 if new else 200
    response.headers["Location"] = f"/api/games/{state.id}"
    return game_out(state)


@api_router.post(
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
    return ChallengeOut(
        token=c.token,
        url=f"{str(request.base_url).rstrip('/')}/challenge/{c.token}",
        variant=c.variant,
        deal_number=c.deal_number,
    )


@api_router.get(
    "/challenges/{token}",
    response_model=ComparisonOut,
    responses=_ERR,
    summary="A challenge: everyone's game side by side, and its leaderboard",
)
def api_challenge(request: Request, token: Token, db: SessionDep, player: PlayerId) -> Any:
    c = challenge_service.get_challenge(db, token, player)
    board = leaderboard(db, c.race_id, player)  # (checks wins: before the sides)
    sides = challenge_service.comparison(db, token, player)
    return ComparisonOut(
        token=c.token,
        url=f"{str(request.base_url).rstrip('/')}/challenge/{c.token}",
        variant=c.variant,
        deal_number=c.deal_number,
        sides=[
            SideOut(
                name=s.name,
                you=s.you,
                challenger=s.challenger,
                ranked=s.ranked,
                moves=s.moves,
                seconds=s.seconds,
                suits=s.suits,
                status=s.status,
                assisted=s.assisted,
                game_id=s.game_id,
            )
            for s in sides
        ],
        leaderboard=_board_out(board),
    )


@api_router.post(
    "/challenges/{token}/games",
    status_code=201,
    response_model=GameOut,
    responses={200: {"description": "Your running game on this challenge"}, **_ERR},
    summary="Play a challenge's deal (201 a new game; 200 your running one)",
)
def api_challenge_play(
    token: Token,
    db: SessionDep,
    player: PlayerId,
    response: Response,
    body: Annotated[AgainIn | None, Body()] = None,
) -> GameOut:
    state, new = challenge_service.play_challenge(
        db, player, token, again=bool(body and body.again)
    )
    response.status_code = 201 if new else 200
    response.headers["Location"] = f"/api/games/{state.id}"
    return game_out(state)


@api_router.get(
    "/challenges/{token}/events",
    response_class=EventStreamResponse,
    responses=_STREAM_ERR,
    summary="Live progress of everyone on a challenge (server-sent events)",
)
async def api_challenge_events(token: Token, player: PlayerId) -> Response:
    race_id = await asyncio.to_thread(_challenge_race_id, token)
    return _json_stream(race_id, player)
